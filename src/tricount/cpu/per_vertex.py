"""CPU per-vertex triangle counts: the bitmap counter, crediting all three corners.

Counts: for every vertex, the triangles it lies in (each triangle at each of its
three corners, so ``per_vertex.sum() == 3 * n_triangles``).
Precondition: the degree-oriented CSR of :func:`tricount.prep.orient_by_degree`
(each edge once, from lower to higher (degree, id); rows sorted).
Counted once: a triangle a < b < c in (degree, id) order is found only with a
as the anchor, b in N+(a) and c in both N+(a) and N+(b); at that moment the
thread credits a, b and c once each.
Work: per anchor u, as in :mod:`tricount.cpu.bitmap`: the thread marks N+(u)
in its worker's byte map, probes every w in N+(v) for each v in
N+(u), then clears its marks. Each hit credits w at once (one atomic add per
triangle); v is credited once per (u, v) with its hits, and u once per anchor.
Every corner may be credited by any thread (a vertex is anchor for some
triangles and middle or top for others), so every credit is an atomic add.
Anchors go out in small chunks (:mod:`tricount.cpu._common`). Counts are int64
throughout.

In id order (:func:`per_vertex_counts`, where :func:`tricount.cpu.bitmap.plan_in_id_order`
says it pays): the graph's own upper CSR, each pair (x, v) of a row settled at the
end with the shorter candidate list, as the bitmap counter settles it: at x, probing
N+(v) in x's map; or at v, probing the rest of x's row after v in v's map. A
triangle a < b < c is found once, by the pair (a, b) at the end that settles it,
and credits a, b and c there (the owner x of a deferred pair is found from its
row position by a binary search in the offsets). Nothing is oriented.
"""

from __future__ import annotations

import numpy as np

from tricount._threads import load_numba
from tricount.prep._atomic import atomic_add
from tricount.cpu._common import CHUNK_VERTICES, claim, n_workers, run_chunked
from tricount.cpu._marks import clear_row, is_marked, mark_row, new_marks
from tricount.cpu.bitmap import anchor_chunk, deferred_lists, plan_in_id_order

numba = load_numba()  # Numba, started without its BLAS probe (tricount._threads)

_u = np.uint64  # an unsigned index: no wrap-around test (tricount.cpu.bitmap)


@numba.njit(inline="always")
def credit_at_anchor(indptr, indices, mark, u, per_vertex):
    """Credit the corners of every triangle whose lowest corner is ``u`` (``mark`` zeroed)."""
    u_begin = indptr[u]
    u_end = indptr[u + 1]
    if u_end - u_begin < 2:
        return  # a triangle needs two out-neighbours at its anchor
    for k in range(u_begin, u_end):
        mark[indices[k]] = 1
    at_u = np.int64(0)
    for k in range(u_begin, u_end):
        v = indices[k]
        at_v = np.int64(0)
        for j in range(indptr[v], indptr[v + 1]):
            w = indices[j]
            if mark[w]:
                atomic_add(per_vertex, w, 1)
                at_v += 1
        if at_v:
            atomic_add(per_vertex, v, at_v)
        at_u += at_v
    for k in range(u_begin, u_end):
        mark[indices[k]] = 0
    if at_u:
        atomic_add(per_vertex, u, at_u)


def per_vertex_bitmap(oriented) -> np.ndarray:
    """Triangles at every vertex (int64, indexed by compact id) of a degree-oriented CSR."""
    per_vertex = np.zeros(oriented.n_vertices, dtype=np.int64)
    if oriented.n_edges == 0:
        return per_vertex
    marks = np.zeros((n_workers(), oriented.n_vertices), dtype=np.uint8)
    run_chunked(_per_vertex_bitmap, oriented.indptr, oriented.indices, marks, per_vertex)
    return per_vertex


@numba.njit(parallel=True, cache=True, nogil=True)
def _per_vertex_bitmap(indptr, indices, marks, per_vertex, cursor, workers):
    n = indptr.shape[0] - 1
    for worker in numba.prange(workers):
        mark = marks[worker]
        begin, end = claim(cursor, n, CHUNK_VERTICES)
        while begin < n:
            for u in range(begin, end):
                credit_at_anchor(indptr, indices, mark, u, per_vertex)
            begin, end = claim(cursor, n, CHUNK_VERTICES)


def per_vertex_counts(graph) -> np.ndarray:
    """Triangles at every vertex (int64, by compact id) of a host graph: in id order where
    that pays (the module doc), else on the graph's degree orientation."""
    upper = graph.upper()
    plan = plan_in_id_order(upper)
    if plan is None:
        return per_vertex_bitmap(graph.oriented())
    n = upper.n_vertices
    if upper.n_edges == 0:
        return np.zeros(n, dtype=np.int64)
    deferred_ptr, rest_begin, rest_end = deferred_lists(upper, plan)
    workers = n_workers()
    # Each worker credits a row of its own where they fit (summed at the end: no atomic
    # add per triangle corner), else all share one row by atomic adds.
    shared = workers > 1 and workers * n > PRIVATE_CREDIT_MAX_CELLS
    credits = np.zeros((1 if shared else workers, n), dtype=np.int64)
    run_chunked(_per_vertex_deferred, upper.indptr, upper.indices, deferred_ptr, rest_begin,
                rest_end, new_marks(n, workers), credits, shared,
                np.int64(anchor_chunk(workers)))
    return credits[0] if credits.shape[0] == 1 else credits.sum(axis=0)


#: The most counters (workers x vertices) given to the workers' own rows of credits: 64 MiB.
PRIVATE_CREDIT_MAX_CELLS = 1 << 23


@numba.njit(inline="always")
def _credit(credits, v, amount, shared):
    if shared:
        atomic_add(credits, v, amount)
    else:
        credits[v] += amount


@numba.njit(inline="always")
def _credit_marked(marks, out, begin, end, credits, shared):
    """Credit every w of ``out[begin:end]`` marked in ``marks``; return how many. A row of
    its own is credited without a branch (every probe adds its mark: a hit's branch
    mispredicts); a shared row only at the hits, by atomic adds."""
    hits = np.int64(0)
    for j in range(begin, end):
        w = _u(out[_u(j)])
        bit = is_marked(marks, w)
        if shared:
            if bit:
                atomic_add(credits, w, 1)
        else:
            credits[w] += bit
        hits += bit
    return hits


@numba.njit(nogil=True, cache=True)
def credit_range(out_ptr, out, deferred_ptr, rest_begin, rest_end, marks, begin, end,
                 credits, shared):
    """Credit the corners of the triangles settled at the anchors ``begin .. end - 1``
    (``marks``, :mod:`tricount.cpu._marks`, clean before and after) into ``credits`` (by
    atomic adds if ``shared``). Indices unsigned, as in :mod:`tricount.cpu.bitmap`."""
    for anchor in range(begin, end):
        x = _u(anchor)
        x_begin = out_ptr[x]
        x_end = out_ptr[x + _u(1)]
        if x_end - x_begin < 2:  # closes nothing, and nothing is deferred to it
            continue
        mark_row(marks, out, x_begin, x_end)
        at_x = np.int64(0)
        for k in range(x_begin, x_end - 1):
            v = _u(out[_u(k)])
            v_begin = out_ptr[v]
            v_end = out_ptr[v + _u(1)]
            if v_end - v_begin <= x_end - k - 1:  # not defers(out_ptr, v, rest)
                hits = _credit_marked(marks, out, v_begin, v_end, credits, shared)
                if hits:
                    _credit(credits, v, hits, shared)
                    at_x += hits
        for q in range(deferred_ptr[x], deferred_ptr[x + _u(1)]):
            hits = _credit_marked(marks, out, rest_begin[_u(q)], rest_end[_u(q)], credits,
                                  shared)
            if hits:  # the row holding x at rest_begin[q] - 1 is the pair's other end
                y = np.searchsorted(out_ptr, rest_begin[_u(q)] - 1, side="right") - 1
                _credit(credits, _u(y), hits, shared)
                at_x += hits
        if at_x:
            _credit(credits, x, at_x, shared)
        clear_row(marks, out, x_begin, x_end)


@numba.njit(parallel=True, nogil=True, cache=True)
def _per_vertex_deferred(out_ptr, out, deferred_ptr, rest_begin, rest_end, maps, credits,
                         shared, chunk, cursor, workers):
    n = out_ptr.shape[0] - 1
    for worker in numba.prange(workers):
        marks = maps[worker]
        # The worker's own row, or the one row all share (by atomic adds).
        mine = credits[min(np.int64(worker), credits.shape[0] - 1)]
        begin, end = claim(cursor, n, chunk)
        while begin < n:
            credit_range(out_ptr, out, deferred_ptr, rest_begin, rest_end, marks, begin, end,
                         mine, shared)
            begin, end = claim(cursor, n, chunk)
