"""The CPU backend's count: resolve a method, orient the graph, run the counter, time each phase.

``bitmap`` counts the graph's upper CSR as it is (id order) where that takes few
enough probes (:func:`tricount.cpu.bitmap.plan_in_id_order`), else the rank
orientation (vertices renamed by (degree, id), built for the count and not kept);
a small graph (:func:`on_caller`) in one pass on the calling thread
(:func:`tricount.cpu.bitmap.count_one_pass`), which gives up on the id order once
its probes pass the same bound; a mid-sized one on two threads or more in one
parallel region, every pair at its anchor (:func:`tricount.cpu.bitmap.at_anchors`,
the rule in :mod:`tricount.cpu.one_region`);
``merge``, ``spgemm`` and ``numpy`` count the graph's cached degree orientation
(:meth:`~tricount.CSRGraph.oriented`).
"""

from __future__ import annotations

import contextlib
import time

import numpy as np

from tricount._threads import SERIAL_MAX_EDGES, serial_bound, thread_count
from tricount.cpu import CPU_METHODS, GPU_ONLY_METHODS
from tricount.cpu.one_region import probes_bound
from tricount.errors import UnknownMethodError
from tricount.prep.orient import orient_upper
from tricount.result import EngineResult

#: Why ``auto`` is ``bitmap``: measured on every graph of benchmarks/results/cpu*.md.
AUTO_REASON = ("auto: bitmap beat merge on every measured CPU graph (1.4-2.4x, "
               "docs/performance.md)")


def resolve_method(method: str) -> tuple[str, str]:
    """Return ``(method, reason)`` for a requested CPU method name."""
    if method == "auto":
        return "bitmap", AUTO_REASON
    if method in CPU_METHODS:
        return method, "requested"
    if method in GPU_ONLY_METHODS:
        raise UnknownMethodError(
            f"method {method!r} runs only on the GPU backend; CPU methods: "
            f"{', '.join(CPU_METHODS)} (or auto)"
        )
    raise UnknownMethodError(
        f"unknown method {method!r}; CPU methods: {', '.join(CPU_METHODS)} (or auto)"
    )


def _counter(name: str):
    """The counting function of a CPU method (its module compiles Numba code or loads SciPy,
    so it is imported only when that method runs)."""
    if name == "merge":
        from tricount.cpu.merge import count_merge

        return count_merge
    if name == "bitmap":
        from tricount.cpu.bitmap import count_bitmap

        return count_bitmap
    if name == "numpy":
        from tricount.cpu.wedge_numpy import count_wedges_numpy

        return count_wedges_numpy
    from tricount.cpu.spgemm import count_spgemm

    return count_spgemm


def on_caller(name: str, n_edges: int, threads: int | None = None) -> bool:
    """Whether a method's Numba kernels count a graph of ``n_edges`` edges on this thread
    (of ``threads``, default this process's): under :data:`SERIAL_MAX_EDGES` (four times it
    for bitmap on two threads: :func:`tricount._threads.serial_bound`), where a parallel
    region's entry costs more than its threads win. NumPy's and SciPy's counters load no
    Numba."""
    if name not in ("bitmap", "merge"):
        return False
    threads = thread_count() if threads is None else threads
    return n_edges < serial_bound(name, threads, SERIAL_MAX_EDGES)


def threads_for(name: str, n_edges: int, caller: bool | None = None):
    """Where a method's Numba kernels run: on this thread where :func:`on_caller` says so
    (``caller``, when the caller asked already), else in parallel regions."""
    if name not in ("bitmap", "merge"):
        return contextlib.nullcontext()
    from tricount.prep._parallel import on_calling_thread

    return on_calling_thread(on_caller(name, n_edges) if caller is None else caller)


def _bitmap_input(graph):
    """What the bitmap counter counts, and its first pass if made: the upper CSR where the
    id order pays, else the rank orientation."""
    from tricount.cpu.bitmap import plan_in_id_order

    upper = graph.upper()
    plan = plan_in_id_order(upper)
    if plan is not None:
        return upper, plan
    return orient_upper(upper, graph.degrees, "rank", parallel=True), None


def _one_region(graph, threads: int) -> bool:
    """Whether the bitmap count of ``graph`` runs in one region on ``threads`` threads,
    every pair at its anchor (:func:`tricount.cpu.bitmap.at_anchors`; the rule, which the
    cost model reads too, :mod:`tricount.cpu.one_region`). It takes graphs under the
    serial bound too (:func:`on_caller`; bitmap's is wider on two threads), counted sooner
    in one region than in the one pass on this thread."""
    # Asked before the upper CSR is made, and before the probes are estimated from it.
    if probes_bound(graph.n_edges, threads) is None:
        return False
    from tricount.cpu.bitmap import at_anchors

    return at_anchors(graph.upper(), threads)


def _bitmap_at_anchors(graph, reason: str):
    """The bitmap count in one region, every pair at its anchor: ``(count, when the counted
    CSR was ready, reason)``."""
    from tricount.cpu.bitmap import count_at_anchors

    upper = graph.upper()
    t1 = time.perf_counter()
    return count_at_anchors(upper), t1, f"{reason}; one region, every pair at its anchor"


def _bitmap_one_pass(graph, started: float):
    """A small graph's bitmap count on this thread, in one pass: the upper CSR while its
    probes stay under the id order's bound (:func:`tricount.cpu.id_order.id_order_limit`,
    one thread), else the rank orientation. Returns the count, its order and when the
    counted orientation was ready (``started`` for the graph's own)."""
    from tricount.cpu.bitmap import count_one_pass, count_one_pass_in_id_order

    upper = graph.upper()
    n_triangles = count_one_pass_in_id_order(upper)
    if n_triangles is not None:
        return n_triangles, upper.order, started
    ranked = orient_upper(upper, graph.degrees, "rank", parallel=True)
    return count_one_pass(ranked), ranked.order, time.perf_counter()


def count(graph, *, method: str = "auto", **options) -> EngineResult:
    """Count the triangles of a :class:`~tricount.CSRGraph` on the CPU."""
    if options:
        raise UnknownMethodError(
            f"the CPU backend takes no method options, got {', '.join(sorted(options))}")
    name, reason = resolve_method(method)
    graph = graph.to_device(np)
    threads = thread_count()  # asking costs microseconds: ask once
    caller = on_caller(name, graph.n_edges, threads)
    asked = time.perf_counter()
    one_region = name == "bitmap" and _one_region(graph, threads)  # timed: it samples
    asked = time.perf_counter() - asked
    with threads_for(name, graph.n_edges, caller and not one_region):
        t0 = time.perf_counter() - asked
        if name == "bitmap" and caller and not one_region:
            n_triangles, order, t1 = _bitmap_one_pass(graph, t0)
            t2 = time.perf_counter()
            return EngineResult(n_triangles, name, f"{reason}; one pass, {order} order",
                                {"preprocess_s": t1 - t0, "count_s": t2 - t1,
                                 "kernel_s": t2 - t1})
        plan = None  # bitmap's first pass, when the order's choice made it
        if one_region:
            n_triangles, t1, reason = _bitmap_at_anchors(graph, reason)
            t2 = time.perf_counter()
            return EngineResult(n_triangles, name, reason,
                                {"preprocess_s": t1 - t0, "count_s": t2 - t1,
                                 "kernel_s": t2 - t1})
        if name == "bitmap":
            oriented, plan = _bitmap_input(graph)
            reason = f"{reason}; {oriented.order} order"
        else:
            oriented = graph.oriented()
        t1 = time.perf_counter()
        counter = _counter(name)
        n_triangles = counter(oriented) if plan is None else counter(oriented, plan)
        t2 = time.perf_counter()
    return EngineResult(n_triangles, name, reason,
                        {"preprocess_s": t1 - t0, "count_s": t2 - t1, "kernel_s": t2 - t1})
