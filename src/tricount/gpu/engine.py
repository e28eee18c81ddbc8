"""The GPU engine: execute a plan of :mod:`tricount.gpu.plan` on one graph.

Mirrors :mod:`tricount.cpu.engine`. :func:`count` takes a
:class:`~tricount.CSRGraph` on the host or already on the GPU and goes:

1. :func:`~tricount.gpu.plan.plan_memory`: the preparation, fused or sliced,
   or a refusal, before anything is allocated;
2. ``to_device(cupy)`` copies the upper-triangular CSR (skipped when the
   graph already lives in CuPy arrays);
3. :func:`~tricount.gpu.plan.plan_orientation`, then
   :func:`tricount.gpu.prepare.orient`: the oriented CSR on the GPU;
4. :func:`~tricount.gpu.plan.plan_method`, then the method's launcher
   (:mod:`tricount.gpu.methods`) runs its kernel and reads the 64-bit count back.

Before all of this, a bare ``method="auto"`` on a small graph
(:func:`~tricount.gpu.plan.choose_short_route`) takes the short route instead
(:mod:`tricount.gpu.small`): degrees, orientation and count in four launches with
no host synchronisation, reported as method ``"small"``.

Timings follow the Graph Challenge split (Pearson et al. §III-B): ``gpu_s``
from the built graph to the answer, ``transfer_s`` the copy,
``preprocess_s`` the orientation, ``count_s`` all counting work (the
method's own preparation, launches, read-back), each synchronized wall
time. A caller that wants the kernels alone passes ``timer``, a factory of
context managers that the launchers wrap around their launches (the
benchmark's :class:`tricount.bench.gpu_timer.KernelTimer`); their seconds add
up to ``kernel_s``, which appears only then. The first call of a method
compiles its kernel; time later calls.

After a count, :mod:`tricount.gpu.warm` leaves a marker saying that this route's
kernels are in CuPy's disk cache, which the cost model reads to predict whether a
later process compiles.

Memory is checked before anything is allocated, and running out anyway (the
copy, the orientation, a method's buffers) raises
:class:`~tricount.UnsupportedGraphError` naming the step, never CuPy's error.
No managed memory is ever used.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import importlib
import time

from tricount.errors import UnknownMethodError
from tricount.gpu import warm
from tricount.gpu.device import cupy, device_facts, free_device_bytes, out_of_memory
from tricount.gpu.plan import (GPU_METHODS, ORIENTATIONS, SHORT_ROUTE_METHOD, GraphStats, Plan,
                               choose_short_route, plan_memory, plan_method, plan_orientation,
                               request, wants_id_order_degree)
from tricount.gpu.prepare import orient
from tricount.gpu.small import count_small
from tricount.result import EngineResult

__all__ = ["count", "count_oriented", "execute", "Regions", "GPU_METHODS", "ORIENTATIONS"]


class Regions:
    """The ``timed`` factory a launcher receives: a timer region per call when the
    caller times, else a no-op context."""

    def __init__(self, timer):
        self.timer, self.regions = timer, []

    def __call__(self, *, host_syncs: bool = False):
        """A region around launches; ``host_syncs`` when the host waits inside it."""
        if self.timer is None:
            return contextlib.nullcontext()
        region = self.timer(host_syncs=host_syncs)
        self.regions.append(region)
        return region

    @property
    def seconds(self) -> float | None:
        if self.timer is None:
            return None
        return float(sum(region.seconds for region in self.regions))


@functools.lru_cache(maxsize=None)
def _launcher(path: str):
    """The function ``module:name`` that a shape class names as its launcher."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def execute(oriented, plan: Plan, timer=None) -> tuple[int, float | None]:
    """Run a resolved plan's method on an oriented CSR on the device:
    ``(n_triangles, kernel_seconds)``, the seconds None unless ``timer`` is given."""
    regions = Regions(timer)
    n_triangles = _launcher(type(plan.shape).launcher)(oriented, plan.shape, regions)
    return int(n_triangles), regions.seconds


def _timings(timer, kernel_s, **phases) -> dict:
    if timer is not None:
        phases["kernel_s"] = kernel_s
    return phases


def count(graph, *, method: str = "auto", orientation: str = "auto", max_memory=None,
          plan: Plan | None = None, timer=None, **unknown) -> EngineResult:
    """Count the triangles of a :class:`~tricount.CSRGraph` on the GPU.

    Parameters
    ----------
    graph : CSRGraph
        On the host (copied) or on the GPU.
    method : str
        One of :data:`GPU_METHODS` or ``"auto"``. ``"auto"`` with no ``plan`` and
        orientation counts a small graph by the short route (method ``"small"``,
        :func:`tricount.gpu.plan.choose_short_route`).
    orientation : {"auto", "rank", "degree", "id"}
        Orient edges by (degree, id) after renaming vertices by that rank
        (the same DAG as "degree", laid out by degree, which made hash 10-25 %
        faster on R-MAT), by (degree, id) on the graph's own ids, or by id as
        Pearson et al. do. "auto" (the default) is "rank", or "id" when method
        "auto" finds the graph flat in id order
        (:func:`tricount.gpu.plan.choose_id_order`).
    max_memory : int, optional
        Bytes of device memory the count may hold at once, the graph's own
        arrays included (default: what is free). A graph whose fused
        preparation would not fit is counted by ``hash`` with its orientation
        and plan built in slices; other methods raise
        :class:`~tricount.UnsupportedGraphError`.
    plan : Plan, optional
        A plan, whole or partial (e.g. ``Plan(method="hash",
        shape=HashShape(warp_slots=1024))``): what it sets is kept, the rest is
        planned (:mod:`tricount.gpu.plan`). The benchmarks' tuning knobs.
    timer : callable, optional
        ``timer(host_syncs=False)`` returns a context manager with a
        ``seconds`` attribute; wrapped around every kernel launch, their sum is
        ``kernel_s``.

    Returns
    -------
    EngineResult
        ``n_triangles``, the method run and why, and timings in seconds.

    Any other keyword raises :class:`~tricount.UnknownMethodError`: tuning knobs
    are fields of a plan's launch shape, not keywords.
    """
    if unknown:
        raise UnknownMethodError(
            f"the GPU backend has no option {', '.join(map(repr, sorted(unknown)))}; its options: "
            "method, orientation, max_memory (tuning knobs are fields of a "
            "tricount.gpu.plan.Plan, passed as plan=)")
    if max_memory is not None and not (isinstance(max_memory, (int, float)) and max_memory > 0):
        raise UnknownMethodError(
            f"max_memory must be a positive number of bytes, got {max_memory!r}")
    short = choose_short_route(graph.n_vertices, graph.n_edges, method=method,
                               orientation=orientation, plan=plan, max_memory=max_memory)
    if short is not None:
        return _count_short(graph, short, timer)
    cp = cupy()
    wanted = request(method, orientation, plan)
    stats = GraphStats(graph.n_vertices, graph.n_edges, graph.indices.dtype.itemsize,
                       graph.xp is cp, free_device_bytes(), name=graph.name or "")
    planned = plan_memory(stats, wanted, max_memory)
    what = _what(graph)
    stream = cp.cuda.get_current_stream()
    t0 = time.perf_counter()
    with out_of_memory(f"copying {what} to the GPU"):
        dev = graph.to_device(cp)
        if dev is not graph:  # a graph already there has nothing to wait for
            stream.synchronize()
    t1 = time.perf_counter()
    with out_of_memory(f"orienting {what}"):
        stats = dataclasses.replace(
            stats, on_device=True,
            max_degree=dev.max_degree if planned.preparation.sliced else None,
            max_out_degree_id=(dev.upper().max_out_degree
                               if wants_id_order_degree(planned, stats) else None))
        planned = plan_orientation(stats, planned)
        oriented = orient(dev, planned)
        stream.synchronize()
    t2 = time.perf_counter()
    stats = dataclasses.replace(stats, max_out_degree=oriented.max_out_degree,
                                n_slices=getattr(oriented, "n_slices", 0),
                                free_bytes=free_device_bytes(), device=device_facts())
    planned = plan_method(stats, planned)
    with out_of_memory(f"counting {what} with {planned.method}"):
        n_triangles, kernel_s = execute(oriented, planned, timer)
    t3 = time.perf_counter()
    warm.mark_compiled(warm.route_name(planned.method, planned.orientation))
    return EngineResult(n_triangles, planned.method, planned.reason, _timings(
        timer, kernel_s, transfer_s=t1 - t0, preprocess_s=t2 - t1, count_s=t3 - t2,
        gpu_s=t3 - t0))


#: The short route's marker in :mod:`tricount.gpu.warm`.
_SHORT_ROUTE = warm.route_name(SHORT_ROUTE_METHOD, "degree")
#: The ``timed`` of an untimed count (a no-op region each call; it never holds any).
_UNTIMED = Regions(None)


def _count_short(graph, reason: str, timer) -> EngineResult:
    """:func:`count` by the short route (:mod:`tricount.gpu.small`): no plan, no
    orientation step, no host synchronisation before the count is read. Its
    orientation runs inside ``count_s`` (there is no ``preprocess_s`` to report).

    A repeated count of a graph on the device is a replay of one CUDA graph, about
    120 us on the GPU for the largest graphs of the route: this host path is kept to
    a few microseconds (the error messages are made only on an error)."""
    cp = cupy()
    t0 = time.perf_counter()
    indptr, indices = graph.indptr, graph.indices
    if not isinstance(indices, cp.ndarray):
        with out_of_memory(lambda: f"copying {_what(graph)} to the GPU"):
            indptr, indices = cp.asarray(indptr), cp.asarray(indices)
            cp.cuda.get_current_stream().synchronize()
    t1 = time.perf_counter()
    regions = _UNTIMED if timer is None else Regions(timer)
    with out_of_memory(lambda: f"counting {_what(graph)} by the short route"):
        n_triangles = count_small(indptr, indices, graph.n_vertices, graph.n_edges, regions,
                                  replay=timer is None)
    t2 = time.perf_counter()
    warm.mark_compiled(_SHORT_ROUTE)
    timings = {"transfer_s": t1 - t0, "count_s": t2 - t1, "gpu_s": t2 - t0}
    if timer is not None:
        timings["kernel_s"] = regions.seconds
    return EngineResult(n_triangles, SHORT_ROUTE_METHOD, reason, timings)


def _what(graph) -> str:
    """A graph as an error message names it."""
    return (f"graph {graph.name + ' ' if graph.name else ''}({graph.n_vertices} vertices, "
            f"{graph.n_edges} edges)")


def count_oriented(oriented, *, method: str = "auto", plan: Plan | None = None,
                   timer=None) -> EngineResult:
    """Count an oriented CSR already on the device (a literal test graph, one
    sub-problem of a larger count): only the method and its shape are planned,
    from the oriented graph's statistics."""
    wanted = dataclasses.replace(request(method, oriented.order, plan),
                                 orientation=oriented.order)
    stats = GraphStats(oriented.n_vertices, oriented.n_edges, oriented.indices.dtype.itemsize,
                       True, free_device_bytes(), device=device_facts(),
                       max_out_degree=oriented.max_out_degree,
                       n_slices=getattr(oriented, "n_slices", 0))
    planned = plan_method(stats, wanted)
    t0 = time.perf_counter()
    with out_of_memory(f"counting an oriented graph of {oriented.n_edges} edges with "
                       f"{planned.method}"):
        n_triangles, kernel_s = execute(oriented, planned, timer)
    return EngineResult(n_triangles, planned.method, planned.reason,
                        _timings(timer, kernel_s, count_s=time.perf_counter() - t0))
