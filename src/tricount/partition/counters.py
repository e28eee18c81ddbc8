"""Which counter a process uses for a sub-problem: its GPU's when it has one, else the CPU's.

The GPU counter is a hook: a module ``tricount.partition.gpu`` exposing
``count_subproblem(source, sub, *, block=None) -> dict`` with the CPU
counter's signature and result keys (:func:`tricount.partition.cpu.count_subproblem`;
``"where"`` names the device, e.g. ``"gpu:0"``). It must import CuPy only
when called. Until it exists, or where no GPU is usable, every process counts
with the CPU.
"""

from __future__ import annotations

import importlib

__all__ = ["subproblem_counter"]


def subproblem_counter(prefer: str = "auto"):
    """``(count_subproblem, reason)`` for this process.

    ``prefer``: ``"auto"`` (the GPU when the hook exists and a GPU is usable),
    ``"cpu"``, or ``"gpu"`` (raise when it cannot run).
    """
    # Sub-problems that threads of one process hand in at once (a Dask worker with several
    # threads, a LocalCluster without processes) take turns loop by loop, each loop on every
    # core: tricount.partition.ranked.parallel holds the process's one parallel region.
    from tricount.partition.cpu import count_subproblem as count_cpu

    if prefer == "cpu":
        return count_cpu, "cpu requested"
    try:
        gpu = importlib.import_module("tricount.partition.gpu")
    except ImportError:
        gpu = None
    if gpu is None or not hasattr(gpu, "count_subproblem"):
        why = "no GPU sub-problem counter in this tricount (tricount.partition.gpu)"
    else:
        from tricount.gpu import probe

        usable, why = probe()
        if usable:
            return gpu.count_subproblem, why
    if prefer == "gpu":
        from tricount.errors import BackendUnavailableError

        raise BackendUnavailableError(f"cannot count sub-problems on a GPU here: {why}")
    return count_cpu, f"cpu: {why}"
