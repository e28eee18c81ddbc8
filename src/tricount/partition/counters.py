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
import threading

__all__ = ["subproblem_counter"]

# Numba's parallel kernels already use every core; sub-problems that threads of one
# process (a Dask worker with several threads, a LocalCluster without processes) hand
# in at once run one after another instead of oversubscribing the cores.
_CPU_LOCK = threading.Lock()


def _count_cpu(source, sub, *, block=None) -> dict:
    from tricount.partition.cpu import count_subproblem

    with _CPU_LOCK:
        return count_subproblem(source, sub, block=block)


def subproblem_counter(prefer: str = "auto"):
    """``(count_subproblem, reason)`` for this process.

    ``prefer``: ``"auto"`` (the GPU when the hook exists and a GPU is usable),
    ``"cpu"``, or ``"gpu"`` (raise when it cannot run).
    """
    if prefer == "cpu":
        return _count_cpu, "cpu requested"
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
    return _count_cpu, f"cpu: {why}"
