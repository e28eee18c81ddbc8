"""The GPU methods kept only to compare against, runnable by name from the benchmarks.

``auto`` never picks these; they stay so that every table of
``benchmarks/results/`` can be run again: Polak's forward merge (``merge``),
Pearson et al.'s binary search and dynamic kernel (``binary``, ``dynamic``),
Bisson & Fatica's bitmaps (``bitmap``), Iakovidis's LᵀL with columns in shared
memory (``shared``), Tirpankar & Sundar's radix binning (``radix``) and
cuSPARSE's SpGEMM (``spgemm``). Each is a launcher ``<method>.py`` beside its
kernel ``kernels/<method>.cu`` (which includes the package's ``common.cuh``),
with a launch-shape dataclass whose class names the launcher, so the GPU
engine prepares and executes it like a production method.

Importable as ``baselines`` with ``benchmarks/`` on ``sys.path`` (the
benchmark scripts and ``tests/gpu`` put it there)::

    >>> import baselines                                          # doctest: +SKIP
    >>> baselines.count(graph, "merge", block_size=64).n_triangles  # doctest: +SKIP
"""

from __future__ import annotations

import importlib
from pathlib import Path

from tricount.gpu import engine
from tricount.gpu.plan import Plan, make_shape, tuned

__all__ = ["METHODS", "ENTRY_POINTS", "KERNELS", "plan_for", "method_plan", "count"]

#: The folder of the baselines' kernels (their headers come from the package's).
KERNELS = str(Path(__file__).resolve().parent / "kernels")
#: The lab methods, in the order the benchmarks list them.
METHODS = ("merge", "binary", "dynamic", "bitmap", "shared", "radix", "spgemm")
#: Every ``extern "C"`` kernel of ``kernels/``, as (source stem, name);
#: scripts/compile_kernels.sh checks them against the sources.
ENTRY_POINTS = (
    ("merge", "tc_merge"),
    ("binary", "tc_binary_thread"),
    ("binary", "tc_binary_warp"),
    ("dynamic", "tc_dynamic"),
    ("bitmap", "tc_bitmap_shared"),
    ("bitmap", "tc_bitmap_global"),
    ("shared", "tc_shared"),
    ("radix", "tc_radix_wedges"),
    ("radix", "tc_radix_split_e"),
    ("radix", "tc_radix_histogram"),
    ("radix", "tc_radix_move"),
)


def plan_for(method: str, *, orientation: str = "auto", **options) -> Plan:
    """A partial plan that runs lab ``method`` with launch-shape fields ``options``."""
    if method not in METHODS:
        raise KeyError(f"no baseline {method!r}; baselines: {', '.join(METHODS)}")
    shape_class = importlib.import_module(f"baselines.{method}").SHAPE
    return Plan(method=method, orientation=orientation, shape=make_shape(shape_class, **options))


def method_plan(method: str, options: dict) -> Plan:
    """The partial plan of a benchmark's variant: a production or lab ``method`` with
    launch-shape ``options`` (``orientation`` among them, when given)."""
    options = dict(options)
    orientation = options.pop("orientation", "auto")
    if method in METHODS:
        return plan_for(method, orientation=orientation, **options)
    return tuned(method, orientation=orientation, **options)


def count(graph, method: str, *, orientation: str = "auto", max_memory=None, timer=None,
          **options):
    """Count ``graph`` with lab ``method`` through the GPU engine (an EngineResult)."""
    return engine.count(graph, plan=plan_for(method, orientation=orientation, **options),
                        max_memory=max_memory, timer=timer)
