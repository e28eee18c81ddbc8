"""CPU bitmap counter: N+(x) as a bitmap, probed by the shorter candidate list of every edge.

Counts: distinct triangles of a simple undirected graph.
Precondition: an oriented CSR whose edges point up the ids (every u -> v has
v > u) with rows sorted: the rank orientation of
:func:`tricount.prep.orient.orient_upper` (vertices renamed by (degree, id),
as GAPBS relabels them), or the id orientation.
Counted once: a triangle a < b < c is closed by c, which lies in N+(a) after b
and in N+(b). The pair (a, b) is settled at one end only: at a, by probing
every w of N+(b) in a's bitmap (d+(b) probes), or, when a has fewer
candidates after b than b has out-neighbours, at b, by probing the rest of
N+(a) after b in b's bitmap. So the probes are Σ min(d+(b), #N+(a) after b)
over the edges instead of Σ d+(b): R-MAT scale 18, 203 M instead of 659 M.
This is the owner rule of the GPU's hash method (the longer list is the set,
the shorter is probed), with the candidates cut at b because the rows are
sorted, and with the pairs "deferred" to b found by one counting pass.
Work: a plan pass counts the deferred pairs of every vertex (atomic adds) and
notes each one's slot, a second places them there with no atomics (the start
and end of the rest of the anchor's row: two ids a pair), so that each vertex's
pairs lie together and the count reads them in order. Both ways tried without
the placing pass were slower (benchmarks/results/cpu_vs_gapbs.md and
cpu_vs_gapbs_16_h100.md): stacks linked through the pairs made the count chase
each hub's links, and pairs written by the first pass straight into runs laid
out from the degrees made sixteen threads' writes meet in the hubs' runs; then
per anchor x (handed out in chunks, :mod:`tricount.cpu._common`) the worker
marks N+(x) in its own map (a byte a vertex, or a bit past 2^20 vertices:
:mod:`tricount.cpu._marks`), probes its own pairs and its deferred ones, and
clears the marks it set. Counts are int64 per worker and in the sum.
Measured (R-MAT 18, 2-core development machine, 2026-11-25): see
benchmarks/results/cpu_vs_gapbs.md.
Which ids: the rows need only point up the ids and be sorted, so the graph's own
upper CSR (id order) can be counted as it is, with no orientation at all, where
renaming by rank would cost more than it saves. :func:`plan_in_id_order` decides
from the probes the id order would take, which the count's own first pass (the
deferred pairs' counting) adds up: the owner rule above keeps them near the rank
order's on most real graphs (1.1-2.5x on the shared graphs), while the rank
orientation costs 20-30 ns an edge on two threads, as much as the count there.
Work per thread: anchors are claimed in chunks of :data:`COUNT_CHUNK_ANCHORS` on
several threads, so that a run of hubs (ids put them together) is shared.
One pass on one thread (:func:`count_one_pass`, a graph counted on the calling
thread): taken in increasing id, every anchor w < x that defers a pair to x has
been walked before x comes (x is in N+(w), so x > w), so the pair is pushed on
x's stack as w is walked (a linked list through the pairs: a small graph's
stay in the cache) and probed when x is: the first pass and the count in one.
The same probes, the same triangles, each once; on ca-HepTh (26 K edges) 0.38
against 0.75 ms for the three passes on the calling thread (2-core development
machine, 2026-11-27, both before the byte map and the unsigned indices). It
counts its probes as it goes and gives up past a budget, so that the id order's
bound (:func:`plan_in_id_order`) costs no pass of its own.
In one region (:func:`count_at_anchors`), on two threads or more: a mid-sized graph
whose id order takes few probes even without the owner rule (:func:`at_anchors`, the
rule in :mod:`tricount.cpu.one_region`) is counted in one parallel region, every
pair (x, v) settled at its anchor x (N+(v) probed in x's marks: Σ d+(v) probes, no
deferred pairs, so no first pass and no placing pass). Each triangle a < b < c is
still counted once, at the pair (a, b). There the three regions' entries and the
deferred pairs' bookkeeping (or, for a small graph, the one pass's single thread)
cost more than the probes the owner rule saves: ca-HepTh 0.36 -> 0.14-0.15 ms on
sixteen threads (H100 host, 2026-11-27, benchmarks/results/cpu_vs_gapbs_16_h100.md),
0.31 -> 0.19 ms on two (benchmarks/results/cpu_vs_gapbs.md).
Sources: Bisson & Fatica's bitmaps (the set), GAPBS's relabelling by degree,
and the hash method's owner rule (docs/gpu.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tricount._threads import load_numba
from tricount.cpu import one_region
from tricount.cpu._common import CHUNK_VERTICES, claim, n_workers, run_chunked
from tricount.cpu._marks import SHORT_PROBE, clear_row, is_marked, mark_row, new_marks
from tricount.cpu.id_order import id_order_limit
from tricount.prep._atomic import atomic_add
from tricount.prep._parallel import claimed_chunks

numba = load_numba()  # Numba, started without its BLAS probe (tricount._threads)

__all__ = ["count_bitmap", "count_one_pass", "count_one_pass_in_id_order", "plan_deferral",
           "plan_in_id_order", "probes", "Deferral", "deferred_lists", "anchor_chunk",
           "defers", "count_at_anchors", "at_anchors", "anchor_probes_per_edge"]


@numba.njit(inline="always")
def defers(out_ptr, v, rest):
    """Whether the pair (x, v) goes to v: v has more out-neighbours than x's row has
    entries after v (``rest``)."""
    return out_ptr[v + 1] - out_ptr[v] > rest


# Every index into the graph's arrays below is an unsigned integer (``_u``): Numba then
# drops the wrap-around test of a negative index, which took a third of the count
# kernel's time (email-Enron 6.4 -> 4.2 ms, R-MAT 18 715 -> 410 ms on one thread; 2-core
# development machine, 2026-11-27).
_u = np.uint64


@numba.njit(parallel=True, nogil=True, cache=True)
def _deferred_pairs(out_ptr, out, n_deferred, slots, cursor, workers):
    """The pairs (x, v) settled at v, counted (``n_deferred[v]``, atomic): each one's slot in
    v's list goes to ``slots`` at the position of v in x's row, -1 for a pair settled at x
    (the last entry of a row, which pairs with nothing, is left unwritten). Returns the
    probes of the count: Σ over the pairs of min(d+(v), the entries of x's row after v),
    whichever end settles the pair."""
    n = out_ptr.shape[0] - 1
    total = np.int64(0)
    for _worker in numba.prange(workers):
        local = np.int64(0)
        begin, end = claim(cursor, n, CHUNK_VERTICES)
        while begin < n:
            for x in range(begin, end):
                x_end = out_ptr[_u(x) + _u(1)]
                for k in range(out_ptr[_u(x)], x_end - 1):  # the last entry closes nothing
                    v = _u(out[_u(k)])
                    rest = x_end - k - 1
                    if defers(out_ptr, v, rest):
                        local += rest
                        slots[_u(k)] = atomic_add(n_deferred, v, 1)
                    else:
                        local += out_ptr[v + _u(1)] - out_ptr[v]
                        slots[_u(k)] = -1
            begin, end = claim(cursor, n, CHUNK_VERTICES)
        total += local
    return total


@numba.njit(parallel=True, nogil=True, cache=True)
def _place_deferred(out_ptr, out, slots, deferred_ptr, rest_begin, rest_end, cursor, workers):
    """Every pair settled at v placed at its slot of v's list (``slots``, from the first
    pass): the range of x's row after v. No atomics and no test of the rule again: the first
    pass's slots say which pairs and where (on 16 threads the hubs' shared counters made
    this pass the count's slowest but one)."""
    n = out_ptr.shape[0] - 1
    for _worker in numba.prange(workers):
        begin, end = claim(cursor, n, CHUNK_VERTICES)
        while begin < n:
            for x in range(begin, end):
                x_end = out_ptr[_u(x) + _u(1)]
                for k in range(out_ptr[_u(x)], x_end - 1):
                    slot = slots[_u(k)]
                    if slot >= 0:
                        q = _u(deferred_ptr[_u(out[_u(k)])] + slot)
                        rest_begin[q] = k + 1
                        rest_end[q] = x_end
            begin, end = claim(cursor, n, CHUNK_VERTICES)
    return 0


@numba.njit(inline="always")
def _probe(marks, out, begin, end):
    """How many of ``out[begin:end]`` are marked in ``marks`` (a range of at most
    :data:`~tricount.cpu._marks.SHORT_PROBE` entries as that many masked loads)."""
    begin, end = np.int64(begin), np.int64(end)
    if end - begin <= SHORT_PROBE:
        if end <= begin:
            return np.int64(0)
        last = np.int64(out.shape[0] - 1)  # a masked load stays inside ``out``
        found = np.int64(0)
        for t in range(SHORT_PROBE):
            j = begin + t
            found += is_marked(marks, _u(out[_u(min(j, last))])) * np.int64(j < end)
        return found
    found = np.int64(0)
    for j in range(begin, end):
        found += is_marked(marks, _u(out[_u(j)]))
    return found


@numba.njit(nogil=True, cache=True)
def count_range(out_ptr, out, deferred_ptr, rest_begin, rest_end, marks, begin, end):
    """Triangles settled at the anchors ``begin .. end - 1`` (``marks``: a byte map or a
    bitmap, :mod:`tricount.cpu._marks`, clean before and after): each one's own pairs
    that stay, and the pairs deferred to it. One call per
    claimed chunk, not per anchor: a call costs about 0.1 us (seven arrays passed), as much
    as a sparse anchor's work (the power grid: 565 -> 235 us for its 4,941 anchors, one
    thread). Not inlined: Numba's parfor pass fails on this body inlined into the
    parallel loop (a recursion in its reduction search)."""
    found = np.int64(0)
    for anchor in range(begin, end):
        x = _u(anchor)
        x_begin = out_ptr[x]
        x_end = out_ptr[x + _u(1)]
        # One out-neighbour closes nothing, and nothing is deferred to x then: a pair
        # (w, x) goes to x only when d+(x) exceeds the entries after x in w's row (>= 1).
        if x_end - x_begin < 2:
            continue
        mark_row(marks, out, x_begin, x_end)
        for k in range(x_begin, x_end - 1):
            v = _u(out[_u(k)])
            v_begin = out_ptr[v]
            v_end = out_ptr[v + _u(1)]
            if v_end - v_begin <= x_end - k - 1:  # not defers(out_ptr, v, rest)
                found += _probe(marks, out, v_begin, v_end)
        for q in range(deferred_ptr[x], deferred_ptr[x + _u(1)]):
            found += _probe(marks, out, rest_begin[_u(q)], rest_end[_u(q)])
        clear_row(marks, out, x_begin, x_end)
    return found


#: Anchors per claimed chunk of the count on several threads. The ids of a real graph put
#: its hubs together: 64 consecutive anchors of email-Enron (id order) hold 19 % of its
#: count's work, which capped 16 threads at about 5x one. On the H100 host's 16 threads
#: (device run 4 of 2026-11-26's late session; the count kernel alone, ms, best of 9) chunks
#: of 64 / 16 / 8 / 4: email-Enron 1.41 / 0.92 / 1.12 / 1.49, ego-Facebook 0.75 / 0.51 /
#: 0.56 / 0.56, blogcatalog 2.65 / 2.26 / 2.43 / 2.71, soc-Epinions1 3.18 / 2.70 / 3.08 /
#: 3.87; R-MAT 18 48 / 51 / 51 / 50 (noise). No change on 2 threads.
COUNT_CHUNK_ANCHORS = 16


@numba.njit(parallel=True, nogil=True, cache=True)
def _count_bitmap(out_ptr, out, deferred_ptr, rest_begin, rest_end, maps, chunk, cursor,
                  workers):
    n = out_ptr.shape[0] - 1
    total = np.int64(0)
    for worker in numba.prange(workers):
        marks = maps[worker]
        local = np.int64(0)
        begin, end = claim(cursor, n, chunk)
        while begin < n:
            local += count_range(out_ptr, out, deferred_ptr, rest_begin, rest_end, marks,
                                 begin, end)
            begin, end = claim(cursor, n, chunk)
        total += local
    return total


@numba.njit(nogil=True, cache=True)
def count_range_at_anchors(out_ptr, out, marks, begin, end):
    """Triangles of the anchors ``begin .. end - 1``, every pair (x, v) of x's row settled at
    x: N+(v) probed in x's marks (``marks`` clean before and after). A triangle a < b < c
    is the pair (a, b)'s: c is in N+(b) and, being above b, after b in a's sorted row; the
    last entry of a row pairs with nothing (nothing in the row lies above it)."""
    found = np.int64(0)
    for anchor in range(begin, end):
        x = _u(anchor)
        x_begin = out_ptr[x]
        x_end = out_ptr[x + _u(1)]
        if x_end - x_begin < 2:  # one out-neighbour closes nothing
            continue
        mark_row(marks, out, x_begin, x_end)
        for k in range(x_begin, x_end - 1):
            v = _u(out[_u(k)])
            found += _probe(marks, out, out_ptr[v], out_ptr[v + _u(1)])
        clear_row(marks, out, x_begin, x_end)
    return found


@numba.njit(parallel=True, nogil=True, cache=True)
def _count_at_anchors(out_ptr, out, maps, chunk, cursor, workers):
    n = out_ptr.shape[0] - 1
    total = np.int64(0)
    for worker in numba.prange(workers):
        local = np.int64(0)
        for begin, end in claimed_chunks(cursor, n, chunk):
            local += count_range_at_anchors(out_ptr, out, maps[worker], begin, end)
        total += local
    return total


#: Row entries sampled (evenly spaced) to estimate the anchors' probes an edge: the mean
#: d+ of an entry's vertex. On the shared graphs 1,024 entries gave 0.90-1.07 of the exact
#: mean, 4,096 0.98-1.02, in 12-13 and 25-40 us by NumPy (2-core machine, 2026-11-27); a
#: graph that stays on its route pays the estimate (blogcatalog on the H100 host: 42 us of
#: 4,096 entries, its count 3.00-3.04 ms without the check, 3.14-3.15 with it). The estimate
#: is one Numba loop since (:func:`_sampled_out_degree`: 1,024 entries of ca-HepTh in 2.7 us).
ONE_REGION_SAMPLES = 1024


def anchor_probes_per_edge(upper) -> float:
    """The probes an edge of :func:`count_at_anchors` on ``upper`` (NumPy arrays), estimated:
    the mean out-degree of the vertices at :data:`ONE_REGION_SAMPLES` evenly spaced row
    entries (each entry v of a row is one pair, which probes d+(v))."""
    m = upper.n_edges
    if m == 0:
        return 0.0
    return float(_sampled_out_degree(upper.indptr, upper.indices,
                                     np.int64(max(1, m // ONE_REGION_SAMPLES))))


@numba.njit(nogil=True, cache=True)
def _sampled_out_degree(out_ptr, out, step):
    """The mean out-degree of the vertices at entries ``0, step, 2 step, ...`` of ``out``
    (one call: NumPy's slicing, indexing and mean took 16 us of ca-HepTh's 0.2 ms count
    on the 2-core machine, 2026-11-27)."""
    total = np.int64(0)
    taken = np.int64(0)
    for k in range(0, out.shape[0], step):
        v = _u(out[_u(k)])
        total += out_ptr[v + _u(1)] - out_ptr[v]
        taken += 1
    return total / taken


def at_anchors(upper, threads: int) -> bool:
    """Whether :func:`count_at_anchors` counts ``upper`` (the graph's upper CSR) on
    ``threads`` threads: its size and the threads allow it and its anchors' probes, estimated,
    stay within the bound (:func:`tricount.cpu.one_region.probes_bound`)."""
    bound = one_region.probes_bound(upper.n_edges, threads)
    return bound is not None and anchor_probes_per_edge(upper) <= bound


def count_at_anchors(oriented) -> int:
    """Triangles of an oriented CSR whose edges point up the ids (NumPy arrays, rows sorted)
    in one parallel region, every pair settled at its anchor (the module doc)."""
    if oriented.n_edges == 0:
        return 0
    workers = n_workers()
    return int(run_chunked(_count_at_anchors, oriented.indptr, oriented.indices,
                           new_marks(oriented.n_vertices, workers),
                           np.int64(anchor_chunk(workers))))


@numba.njit(nogil=True, cache=True)
def _count_one_pass(out_ptr, out, marks, head, link, rest_end, budget):
    """Triangles of the whole graph on one thread, anchors in increasing id (the module
    doc's one pass), and the probes taken; ``(triangles so far, -1)`` as soon as the probes
    pass ``budget``. A pair (x, v) deferred to v is pushed on v's stack: the pair is
    named by the position k of v in x's row (the rest of the row is ``out[k + 1 :
    rest_end[k]]``), ``head[v]`` is the last pair pushed (-1: none) and ``link[k]`` the
    one before it. ``marks`` (:mod:`tricount.cpu._marks`) are clean before and after a
    whole count."""
    n = out_ptr.shape[0] - 1
    found = np.int64(0)
    taken = np.int64(0)
    for anchor in range(n):
        x = _u(anchor)
        x_begin = out_ptr[x]
        x_end = out_ptr[x + _u(1)]
        # One out-neighbour closes nothing, and nothing is deferred to x then (see
        # count_range).
        if x_end - x_begin < 2:
            continue
        mark_row(marks, out, x_begin, x_end)
        for k in range(x_begin, x_end - 1):
            v = _u(out[_u(k)])
            rest = x_end - k - 1
            v_begin = out_ptr[v]
            v_end = out_ptr[v + _u(1)]
            if v_end - v_begin > rest:  # defers(out_ptr, v, rest): settled when v comes
                rest_end[_u(k)] = x_end
                link[_u(k)] = head[v]
                head[v] = k
                taken += rest
            else:
                taken += v_end - v_begin
                found += _probe(marks, out, v_begin, v_end)
        q = head[x]  # every pair deferred to x: their anchors are all below x
        while q >= 0:
            found += _probe(marks, out, q + 1, rest_end[_u(q)])
            q = link[_u(q)]
        clear_row(marks, out, x_begin, x_end)
        if taken > budget:
            return found, np.int64(-1)
    return found, taken if taken <= budget else np.int64(-1)


def count_one_pass(oriented, budget: int | None = None) -> int | None:
    """Triangles of an oriented CSR whose edges point up the ids (NumPy arrays, rows
    sorted), on the calling thread in one pass (see the module doc); None once the count's
    probes pass ``budget`` (None: no budget), when a caller counts another orientation
    instead. Beyond the graph: the marks, a position a vertex and two an edge."""
    n, m = oriented.n_vertices, oriented.n_edges
    if m == 0:
        return 0
    position = np.int32 if m < 2**31 else np.int64  # positions in ``out``
    head = np.full(n, -1, dtype=position)
    link, rest_end = np.empty(m, dtype=position), np.empty(m, dtype=position)
    budget = NO_BUDGET if budget is None else min(budget, NO_BUDGET)
    found, taken = _count_one_pass(oriented.indptr, oriented.indices, new_marks(n), head,
                                   link, rest_end, np.int64(budget))
    return None if taken < 0 else int(found)


#: What :func:`count_one_pass` takes for no budget.
NO_BUDGET = np.iinfo(np.int64).max


def count_one_pass_in_id_order(upper) -> int | None:
    """:func:`count_one_pass` of the graph's upper CSR ``upper``, or None once its probes
    pass the id order's bound on one thread (:func:`tricount.cpu.id_order.id_order_limit`):
    count the rank orientation then."""
    return count_one_pass(upper, id_order_limit(upper.n_edges, 1) * upper.n_edges)


@dataclass(frozen=True)
class Deferral:
    """A count's first pass: per vertex, how many pairs are settled at it (``n_deferred``,
    the bitmap's own pairs aside), each pair's slot in that list (``slots``, by position in
    the CSR; -1: settled at its anchor), and the probes the count will take."""

    n_deferred: np.ndarray
    slots: np.ndarray
    probes: int


def plan_deferral(oriented) -> Deferral:
    """The first pass of :func:`count_bitmap` over ``oriented`` (NumPy arrays, rows sorted);
    its slots take 4 bytes an edge (8 past 2^31 edges) while the plan is held."""
    position = np.int32 if oriented.n_edges < 2**31 else np.int64  # pair slots in ``out``
    n_deferred = np.zeros(oriented.n_vertices, dtype=position)
    slots = np.empty(oriented.n_edges, dtype=position)
    if oriented.n_edges == 0:
        return Deferral(n_deferred, slots, 0)
    probes = run_chunked(_deferred_pairs, oriented.indptr, oriented.indices, n_deferred, slots)
    return Deferral(n_deferred, slots, int(probes))


def probes(oriented) -> int:
    """How many bitmap tests a count of ``oriented`` (NumPy arrays, rows sorted) takes."""
    return plan_deferral(oriented).probes


def plan_in_id_order(upper) -> Deferral | None:
    """The first pass of a count of the graph's upper CSR ``upper`` as it is, where the id
    order pays (:func:`tricount.cpu.id_order.id_order_limit` on its probes, for the threads
    the count will run on), else None: count the rank orientation."""
    plan = plan_deferral(upper)
    m = upper.n_edges
    return plan if m == 0 or plan.probes <= id_order_limit(m, n_workers()) * m else None


def count_bitmap(oriented, plan: Deferral | None = None) -> int:
    """Triangles of an oriented CSR whose edges point up the ids (NumPy arrays, rows
    sorted), by per-worker bitmaps (see the module doc); ``plan``: its first pass, if made."""
    n, m = oriented.n_vertices, oriented.n_edges
    if m == 0:
        return 0
    deferred_ptr, rest_begin, rest_end = deferred_lists(oriented, plan)
    workers = n_workers()
    return int(run_chunked(_count_bitmap, oriented.indptr, oriented.indices, deferred_ptr,
                           rest_begin, rest_end, new_marks(n, workers),
                           np.int64(anchor_chunk(workers))))


def deferred_lists(oriented, plan: Deferral | None = None):
    """``(deferred_ptr, rest_begin, rest_end)``: for every vertex v, the pairs (x, v) settled
    at v, each as the range of x's row after v (positions in ``oriented.indices``), listed
    at ``deferred_ptr[v] .. deferred_ptr[v + 1]``; ``plan`` is the first pass, if made."""
    plan = plan or plan_deferral(oriented)
    n_deferred = plan.n_deferred
    deferred_ptr = np.zeros(oriented.n_vertices + 1, dtype=np.int64)
    np.cumsum(n_deferred, out=deferred_ptr[1:])
    n_pairs = int(deferred_ptr[-1])
    rest_begin = np.empty(n_pairs, dtype=n_deferred.dtype)
    rest_end = np.empty(n_pairs, dtype=n_deferred.dtype)
    if n_pairs:
        run_chunked(_place_deferred, oriented.indptr, oriented.indices, plan.slots,
                    deferred_ptr, rest_begin, rest_end)
    return deferred_ptr, rest_begin, rest_end


def anchor_chunk(workers: int) -> int:
    """Anchors a worker claims at a time: :data:`CHUNK_VERTICES` on one thread (fewer
    calls), :data:`COUNT_CHUNK_ANCHORS` on several, so that a run of hubs is shared."""
    return CHUNK_VERTICES if workers == 1 else COUNT_CHUNK_ANCHORS
