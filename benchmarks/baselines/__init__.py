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

import numpy as np

from tricount.errors import UnknownMethodError
from tricount.gpu import engine
from tricount.gpu._module import get_kernel
from tricount.gpu.device import cupy, kernel_arrays, launch, read_count
from tricount.gpu.plan import Plan, make_shape, tuned

__all__ = ["METHODS", "ENTRY_POINTS", "KERNELS", "plan_for", "method_plan", "count",
           "count_by_edges", "check_variant"]

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


def count_by_edges(stem: str, name: str, oriented, shape, timed, *, grid, extra=()) -> int:
    """Launch lab kernel ``name`` of ``kernels/<stem>.cu``, whose arguments are the oriented
    COO+CSR, its number of edges, ``extra`` and the 64-bit result, and read the count.

    ``grid(kernel)`` gives the blocks unless ``shape.grid_size`` does; the file's
    defines are ``shape.block_size`` and the ids' type.
    """
    cp = cupy()
    if oriented.n_edges == 0:
        return 0
    indptr, rows, cols, vertex = kernel_arrays(oriented)
    kernel = get_kernel(stem, name, {"block_size": shape.block_size, "vertex_t": vertex},
                        folder=KERNELS)
    result = cp.zeros(1, dtype=cp.uint64)
    grid_size = shape.grid_size or grid(kernel)
    with timed():
        launch(kernel, grid_size, shape.block_size,
               (indptr, rows, cols, np.int64(oriented.n_edges), *extra, result))
    return read_count(result)


def check_variant(method: str, variant: str, variants: tuple) -> None:
    """Raise :class:`UnknownMethodError` unless ``variant`` is one of ``variants``."""
    if variant not in variants:
        raise UnknownMethodError(f"{method} variant {variant!r} is unknown; choose one of "
                                 f"{', '.join(variants)}")
