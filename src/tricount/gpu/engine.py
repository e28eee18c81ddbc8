"""The GPU backend: move the graph, orient it on the GPU, run one counting method, time it.

Mirrors :mod:`tricount.cpu.engine`. ``count(graph, method=..., **options)``
takes a :class:`~tricount.CSRGraph` on the host or already on the GPU:

1. ``to_device(cupy)`` copies the upper-triangular CSR (skipped when the
   graph already lives in CuPy arrays);
2. every edge is oriented by (degree, id) on the GPU, through the same ``xp``
   code as the CPU (bincount, one sort of packed 64-bit keys), after renaming
   the vertices by that rank (``orientation="rank"``); ``"degree"`` keeps the
   graph's ids, ``"id"`` uses the id order instead (Pearson et al.'s), which
   the built graph already is. ``"auto"`` (the default) is ``"rank"``, except
   that method ``auto`` counts a flat graph whose id order already gives short
   out-lists in that order, by ``wedge`` (:func:`choose_id_order`);
3. the method's launcher runs its kernel and reads the 64-bit count back.

Timings follow the Graph Challenge split (Pearson et al. §III-B): ``gpu_s``
from the built graph to the answer, ``preprocess_s`` the orientation,
``count_s`` all counting work (allocations, launches, read-back) and
``kernel_s`` the counting kernel alone: the GPU's time between CUDA events,
the stream held while the launch is enqueued (``_common.KernelTimer``). The first call of a
method compiles its kernel; time later calls (the benchmark warms up first).

Memory is checked before anything is allocated. A graph whose copy and
orientation would not fit in the free device memory (or in ``max_memory``)
is counted by ``hash`` with its orientation and plan built in slices
(:mod:`tricount.gpu.sliced`) when the method is ``auto`` or ``hash``;
otherwise it raises :class:`~tricount.UnsupportedGraphError`. Methods check
their own extra buffers the same way. No managed memory is ever used.
"""

from __future__ import annotations

import inspect
import time

from tricount.errors import UnknownMethodError
from tricount.gpu import GPU_METHODS
from tricount.gpu.bitwedge import BITWEDGE_SHARED_MAX_BYTES
from tricount.gpu.wedge import FINGERPRINT_MAX_OUT_DEGREE
from tricount.result import EngineResult

__all__ = ["count", "resolve_method", "method_options", "GPU_METHODS", "ORIENTATIONS"]

ORIENTATIONS = ("auto", "degree", "id", "rank")

# auto's rule: a cost model over n, m and the largest out-degree, from the H100
# runs of 2026-11-22 (benchmarks/gpu_notes.md, kernel ms):
#: Graphs whose bitwedge bitmaps (n bits per warp) fit in shared memory take
#: bitwedge: on the five real graphs of issue 7 it took 0.013-0.037 ms against
#: merge's 0.026-0.095 and hash's 0.033-0.062 (run 69); on G(2^15, 2^19), 0.027
#: against wedge's 0.032 and merge's 0.038 (run 69).
AUTO_BITWEDGE_ON_CHIP_VERTICES = 8 * BITWEDGE_SHARED_MAX_BYTES
#: Skewed graphs up to this many vertices also take bitwedge, whose global
#: bitmaps stay in the caches while the tested ids crowd into the hubs' words:
#: R-MAT 18 (173,963 vertices) 0.646 ms against hash's 0.724 (run 69); R-MAT 19
#: (335,328) 1.83 against 1.66 (run 68) and R-MAT 21 15.1 against 8.3 (run 69).
#: Flat graphs spread their tests over every word: G(2^18, 2^22) took 1.23 ms
#: against wedge's 0.147 (run 68).
AUTO_BITWEDGE_MAX_VERTICES = 1 << 18
#: Larger graphs whose largest out-degree is at least this many times the mean
#: degree m / n are skewed: hash, the fastest kernel on every larger R-MAT graph
#: (21: 8.4 against 16.3 for bitmap; 24: 133 against 349; max/mean 32 at 21).
#: Flat ones go to wedge (uniform random, 2^24 vertices, run 96: 9.7 ms with its
#: fingerprint layout and a lane per edge, all counting work 17.9 ms, against
#: merge's 25.1 and hash's 37.7; max/mean 1.9).
AUTO_SKEW_FOR_HASH = 4.0
#: Larger graphs whose id order already gives out-lists of at most this many
#: (wedge's fingerprint layout) are counted by wedge in that order: the rank
#: orientation (a sort of every edge, and the degrees if nothing computed them
#: yet) is skipped, and wedge's kernel costs about the same. Run 100 (H100),
#: kernel / from the built graph, ms: uniform random 2^24 9.91 / 18.4 against
#: 9.82 / 59.6 in rank order; G(2^21, 2^25) 1.58 / 1.74 against 0.96 / 5.60;
#: G(2^18, 2^22) 0.115 / 0.60 against 0.110 / 1.47. A skewed graph's hubs have
#: long id-order out-lists.
AUTO_ID_MAX_OUT_DEGREE = FINGERPRINT_MAX_OUT_DEGREE


def _launcher(name: str):
    if name == "merge":
        from tricount.gpu.merge import count_merge as fn
    elif name == "binary":
        from tricount.gpu.binary import count_binary as fn
    elif name == "dynamic":
        from tricount.gpu.dynamic import count_dynamic as fn
    elif name == "bitmap":
        from tricount.gpu.bitmap import count_bitmap as fn
    elif name == "shared":
        from tricount.gpu.shared import count_shared as fn
    elif name == "radix":
        from tricount.gpu.radix import count_radix as fn
    elif name == "hash":
        from tricount.gpu.hash import count_hash as fn
    elif name == "wedge":
        from tricount.gpu.wedge import count_wedge as fn
    elif name == "bitwedge":
        from tricount.gpu.bitwedge import count_bitwedge as fn
    else:
        from tricount.gpu.spgemm import count_spgemm as fn
    return fn


def method_options(name: str) -> tuple[str, ...]:
    """The keyword options a GPU method accepts (besides ``orientation``)."""
    params = inspect.signature(_launcher(name)).parameters
    return tuple(p.name for p in params.values() if p.kind is inspect.Parameter.KEYWORD_ONLY)


def resolve_method(method: str) -> str:
    """Check a requested method name; ``auto`` is resolved later, from the oriented graph."""
    if method == "auto" or method in GPU_METHODS:
        return method
    raise UnknownMethodError(
        f"unknown GPU method {method!r}; GPU methods: {', '.join(GPU_METHODS)} (or auto)")


def choose_method(oriented) -> tuple[str, str]:
    """``auto``: pick a method from cheap statistics of the oriented graph, and say why."""
    n, m = oriented.n_vertices, oriented.n_edges
    if m == 0:
        return "merge", "auto: no edges, nothing to intersect"
    if n <= AUTO_BITWEDGE_ON_CHIP_VERTICES:
        return "bitwedge", (f"auto: {n} vertices <= {AUTO_BITWEDGE_ON_CHIP_VERTICES}: bit tests "
                            "against per-warp bitmaps of n bits in shared memory")
    skew = oriented.max_out_degree / (m / n)
    if skew >= AUTO_SKEW_FOR_HASH and n <= AUTO_BITWEDGE_MAX_VERTICES:
        return "bitwedge", (f"auto: {n} vertices <= {AUTO_BITWEDGE_MAX_VERTICES}, largest "
                            f"out-degree {oriented.max_out_degree} = {skew:.1f} x the mean degree "
                            f"(>= {AUTO_SKEW_FOR_HASH:g}): skewed and small, so bit tests against "
                            "per-warp bitmaps, which stay in cache")
    if skew >= AUTO_SKEW_FOR_HASH:
        return "hash", (f"auto: {m} edges, largest out-degree {oriented.max_out_degree} = "
                        f"{skew:.1f} x the mean degree (>= {AUTO_SKEW_FOR_HASH:g}): skewed, so "
                        "hash sets for the longer list of every edge")
    return "wedge", (f"auto: {m} edges, largest out-degree {oriented.max_out_degree} = "
                     f"{skew:.1f} x the mean degree (< {AUTO_SKEW_FOR_HASH:g}): flat, so "
                     "wedge-parallel lanes over short lists")


def choose_id_order(upper) -> str | None:
    """``auto``'s orientation: why to count ``upper`` (the graph in id order) as it
    is, by wedge, or None (orient by rank and let :func:`choose_method` pick)."""
    n = upper.n_vertices
    if upper.n_edges == 0 or n <= AUTO_BITWEDGE_ON_CHIP_VERTICES:
        return None
    d = upper.max_out_degree
    if d > AUTO_ID_MAX_OUT_DEGREE:
        return None
    return (f"auto: {n} vertices > {AUTO_BITWEDGE_ON_CHIP_VERTICES} and largest out-degree "
            f"{d} <= {AUTO_ID_MAX_OUT_DEGREE} in id order: flat as it is, so wedge on the id "
            "order, without the rank orientation")


def _check_options(name: str, options: dict) -> None:
    allowed = method_options(name)
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        listed = ", ".join(allowed) if allowed else "none"
        raise UnknownMethodError(
            f"GPU method {name!r} has no option {', '.join(map(repr, unknown))}; its options: "
            f"{listed} (and orientation)")


def _orientation_bytes(graph, on_device: bool) -> int:
    """Device bytes to hold the graph and orient it (degrees, keys, their sort, the result)."""
    m, n = graph.n_edges, graph.n_vertices
    idx = graph.indices.dtype.itemsize
    resident = 0 if on_device else 8 * (n + 1) + 2 * idx * m
    # bincounts + degrees, forward mask, src/dst, keys and the sort's buffer, rows/cols, indptr
    orient = 24 * n + m * (1 + 2 * idx + 16 + 2 * idx) + 8 * (n + 1)
    return resident + orient


def _graph_device_bytes(graph) -> int:
    """Device bytes of a graph's arrays there: ``indptr``, COO rows and columns, degrees."""
    idx = graph.indices.dtype.itemsize
    return 16 * graph.n_vertices + 8 + 2 * idx * graph.n_edges


def _memory_plan(graph, on_device: bool, name: str, orientation: str, max_memory):
    """None for the standard preparation, or the byte budget of the sliced one.

    The budget is ``max_memory`` (the graph's device arrays included, copied or
    not) or what is free, whichever is smaller. The standard path is taken when
    its estimate fits; otherwise hash counts in slices (:mod:`tricount.gpu.sliced`)
    when it may (method ``auto`` or ``hash``, orientation ``auto`` or ``rank``).
    """
    from tricount.errors import UnsupportedGraphError
    from tricount.gpu._common import MEMORY_SAFETY, free_device_bytes

    resident = _graph_device_bytes(graph)
    free = int(MEMORY_SAFETY * free_device_bytes()) + (resident if on_device else 0)
    budget = free if max_memory is None else min(free, int(max_memory))
    standard = _orientation_bytes(graph, on_device) + (resident if on_device else 0)
    if standard <= budget:
        return None
    if name in ("auto", "hash") and orientation in ("auto", "rank"):
        return budget
    raise UnsupportedGraphError(
        f"graph {graph.name or ''} with {graph.n_vertices} vertices and {graph.n_edges} edges "
        f"needs about {standard / 2**30:.2f} GiB of GPU memory for method {name!r}, over the "
        f"budget of {budget / 2**30:.2f} GiB; only method 'hash' (or 'auto') with orientation "
        "'rank' counts in slices under a smaller budget (or use backend='cpu', or a larger GPU)"
        .replace("graph  ", "graph "))


def count(graph, *, method: str = "auto", orientation: str = "auto", max_memory=None,
          **options) -> EngineResult:
    """Count the triangles of a :class:`~tricount.CSRGraph` on the GPU.

    Parameters
    ----------
    graph : CSRGraph
        On the host (copied) or on the GPU.
    method : str
        One of :data:`GPU_METHODS` or ``"auto"``.
    orientation : {"auto", "rank", "degree", "id"}
        Orient edges by (degree, id) after renaming vertices by that rank
        (the same DAG as "degree", laid out by degree, which made hash and
        dynamic 10-25 % faster on R-MAT), by (degree, id) on the graph's own
        ids, or by id as Pearson et al. do. "auto" (the default) is "rank",
        or "id" when method "auto" finds the graph flat in id order
        (:func:`choose_id_order`).
    max_memory : int, optional
        Bytes of device memory the count may hold at once, the graph's own
        arrays included (default: what is free). A graph whose standard
        preparation would not fit is counted by ``hash`` with its orientation
        and plan built in slices (:mod:`tricount.gpu.sliced`); other methods
        raise :class:`~tricount.UnsupportedGraphError`.
    **options
        The method's tunables, e.g. ``sf=2.0`` for ``dynamic`` or
        ``variant="thread"`` for ``binary``; :func:`method_options` lists them.

    Returns
    -------
    EngineResult
        ``n_triangles``, the method run and why, and timings in seconds.
    """
    import cupy

    name = resolve_method(method)
    if orientation not in ORIENTATIONS:
        raise UnknownMethodError(
            f"orientation {orientation!r} is unknown; choose one of {', '.join(ORIENTATIONS)}")
    if name == "auto":
        if options:
            raise UnknownMethodError(
                f"method 'auto' takes no method options (got {', '.join(sorted(options))}); "
                "name a method to tune it")
    else:
        _check_options(name, options)
    on_device = graph.xp is cupy
    if max_memory is not None and not (isinstance(max_memory, (int, float)) and max_memory > 0):
        raise UnknownMethodError(
            f"max_memory must be a positive number of bytes, got {max_memory!r}")
    # Also the memory check: the standard path is taken only when it fits.
    budget = _memory_plan(graph, on_device, name, orientation, max_memory)
    stream = cupy.cuda.get_current_stream()
    t0 = time.perf_counter()
    dev = graph.to_device(cupy)
    stream.synchronize()
    t1 = time.perf_counter()
    id_order_reason = None
    if orientation == "auto":
        if name == "auto" and budget is None:
            id_order_reason = choose_id_order(dev.upper())
        orientation = "id" if id_order_reason else "rank"
    if budget is not None:
        from tricount.gpu.sliced import orient_by_rank_sliced, slice_capacity

        lo, hi = dev.edges()
        capacity = slice_capacity(budget, _graph_device_bytes(dev), dev.n_vertices, dev.n_edges,
                                  lo.dtype.itemsize, dev.max_degree)
        oriented = orient_by_rank_sliced(lo, hi, dev.n_vertices, dev.degrees, capacity)
        del lo, hi
        sliced = (f"; counted in slices under a budget of {budget / 2**30:.2f} GiB (the "
                  f"standard preparation needs more): {oriented.n_slices} orientation slices "
                  f"of at most {capacity} keys")
    elif orientation == "degree":
        oriented = dev.oriented()
    elif orientation == "rank":
        from tricount.gpu.prepare import orient_by_rank

        lo, hi = dev.edges()
        oriented = orient_by_rank(lo, hi, dev.n_vertices, dev.degrees)
    else:
        oriented = dev.upper()
    stream.synchronize()
    t2 = time.perf_counter()
    if budget is not None:
        name, reason = "hash", ("requested" if name == "hash" else
                                "auto: hash is the method that counts in slices") + sliced
    elif id_order_reason:
        name, reason = "wedge", id_order_reason
    elif name == "auto":
        name, reason = choose_method(oriented)
    else:
        reason = "requested"
    n_triangles, kernel_s = _launcher(name)(oriented, **options)
    t3 = time.perf_counter()
    return EngineResult(int(n_triangles), name, reason, {
        "transfer_s": t1 - t0,
        "preprocess_s": t2 - t1,
        "count_s": t3 - t2,
        "kernel_s": kernel_s,
        "gpu_s": t3 - t0,
    })
