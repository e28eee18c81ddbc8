"""CPU edge support: the triangles on every edge, by merging sorted out-lists.

Counts: for every undirected edge, the triangles that contain it (its
*support*); each triangle adds one to each of its three edges, so
``support.sum() == 3 * n_triangles``.
Precondition: the degree-oriented CSR of :func:`tricount.prep.orient_by_degree`
(rows sorted by id). The result is indexed by position in that CSR.
Counted once: a triangle a < b < c in (degree, id) order is found only from
the edge a -> b, as the common out-neighbour c met while merging N+(a) with
N+(b). The merge stands at c's position in row a (the edge a -> c) and in row
b (the edge b -> c), so all three edges are known without a search.
Work: per vertex u, for each v in N+(u), a two-pointer merge of N+(u) and
N+(v). Roles decide who writes: the edges u -> v and u -> c lie in row u,
which only the thread working on u touches in those roles, so
their credits are plain adds into ``support``; the edge v -> c lies in row v,
which another thread may be crediting at the same time, so that credit is an
atomic add into a second array, ``support_top``. The two are summed at the
end. Rows go out in small chunks (:mod:`tricount.cpu._common`); counts are
int64.

In id order (:func:`edge_support_in_id_order`, where
:func:`tricount.cpu.bitmap.plan_in_id_order` says it pays): the graph's own upper
CSR, whose positions are the graph's edges, each pair (x, v) settled at the end
with the shorter candidate list, as the bitmap counter settles it. The anchor x
keeps, for each w of N+(x), the position of the edge x -> w (a position map per
worker instead of a bitmap); a pair settled at x probes N+(v) (positions j: the
edges v -> w), one deferred to x probes the rest of y's row after x (the edges
y -> c). Each hit credits the three edges of its triangle: the probed position,
the anchor's edge from its map, and the pair's own edge (once per pair, by its
hits). A triangle a < b < c is found once, by the pair (a, b) at the end that
settles it. Each worker credits a row of its own without a branch (a miss adds
to a sink slot), summed at the end; the merge above counts the graphs whose
rows and maps would not fit (:data:`PRIVATE_SUPPORT_MAX_CELLS`) or whose id order
would not pay.
"""

from __future__ import annotations

import numpy as np

from tricount._threads import load_numba
from tricount.cpu._common import CHUNK_VERTICES, claim, n_workers, next_common, run_chunked
from tricount.cpu.bitmap import anchor_chunk, deferred_lists, plan_in_id_order
from tricount.prep._atomic import atomic_add

numba = load_numba()  # Numba, started without its BLAS probe (tricount._threads)

_u = np.uint64  # an unsigned index: no wrap-around test (tricount.cpu.bitmap)


@numba.njit(inline="always")
def support_from_row(indptr, indices, u, support, support_top):
    """Credit the three edges of every triangle found from row ``u`` (see the module doc)."""
    u_begin, u_end = indptr[u], indptr[u + 1]
    for k in range(u_begin, u_end):
        v = indices[k]
        b_end = indptr[v + 1]
        on_uv = np.int64(0)
        a, b = next_common(indices, u_begin, u_end, indptr[v], b_end)
        while a < u_end:  # c = indices[a]: the triangle u -> v -> c with u -> c
            on_uv += 1
            support[a] += 1              # u -> c: row u, this iteration's alone
            atomic_add(support_top, b, 1)  # v -> c: row v, shared
            a, b = next_common(indices, a + 1, u_end, b + 1, b_end)
        support[k] += on_uv


@numba.njit(parallel=True, cache=True, nogil=True)
def _edge_support_merge(indptr, indices, support, support_top, cursor, workers):
    n = indptr.shape[0] - 1
    for _worker in numba.prange(workers):
        begin, end = claim(cursor, n, CHUNK_VERTICES)
        while begin < n:
            for u in range(begin, end):
                support_from_row(indptr, indices, u, support, support_top)
            begin, end = claim(cursor, n, CHUNK_VERTICES)


def edge_support_merge(oriented) -> np.ndarray:
    """Support of every edge (int64), indexed by position in a degree-oriented CSR."""
    support, support_top = np.zeros((2, oriented.n_edges), dtype=np.int64)  # see the module doc
    if oriented.n_edges:
        run_chunked(_edge_support_merge, oriented.indptr, oriented.indices, support, support_top)
    return support + support_top


#: The most cells (workers x (edges + 1) credits, workers x vertices positions) the id order's
#: rows and maps may take together: 64 MiB of int32; past it, the degree orientation's merge.
PRIVATE_SUPPORT_MAX_CELLS = 1 << 24


def edge_support_in_id_order(graph) -> np.ndarray | None:
    """Support of every edge (int64) of a host graph, aligned with ``graph.edges()``, counted
    in id order (the module doc); None where that does not pay or fit (then count
    :func:`edge_support_merge` on the degree orientation)."""
    upper = graph.upper()
    n, m = upper.n_vertices, upper.n_edges
    workers = n_workers()
    if workers * (m + 1 + n) > PRIVATE_SUPPORT_MAX_CELLS:
        return None
    plan = plan_in_id_order(upper)
    if plan is None:
        return None
    if m == 0:
        return np.zeros(0, dtype=np.int64)
    deferred_ptr, rest_begin, rest_end = deferred_lists(upper, plan)
    # 32-bit rows: an edge's support is below its ends' degrees, an edge's position + 1
    # below 2^31 - 1 here (the bound above); half the bytes to zero and to add up.
    credits = np.zeros((workers, m + 1), dtype=np.int32)  # slot m: where misses add
    positions = np.zeros((workers, n), dtype=np.int32)  # 1 + the edge x -> w, or 0
    run_chunked(_edge_support_deferred, upper.indptr, upper.indices, deferred_ptr, rest_begin,
                rest_end, positions, credits, np.int64(anchor_chunk(workers)))
    return credits[:, :m].sum(axis=0, dtype=np.int64)


@numba.njit(inline="always")
def _credit_probes(out, begin, end, position, credits, sink):
    """Credit the two edges of every hit among ``out[begin:end]`` (the probed edge and the
    anchor's edge to the same vertex); misses add to ``sink``. Return the hits."""
    hits = np.int64(0)
    for j in range(begin, end):
        p = position[_u(out[_u(j)])]
        hit = p != 0
        credits[_u(j if hit else sink)] += 1
        credits[_u(p - 1 if hit else sink)] += 1
        hits += np.int64(hit)
    return hits


@numba.njit(nogil=True, cache=True)
def support_range(out_ptr, out, deferred_ptr, rest_begin, rest_end, position, begin, end,
                  credits):
    """Credit the edges of the triangles settled at the anchors ``begin .. end - 1``
    (``position`` all zero before and after). Indices unsigned, as in
    :mod:`tricount.cpu.bitmap`."""
    sink = out.shape[0]
    for anchor in range(begin, end):
        x = _u(anchor)
        x_begin = out_ptr[x]
        x_end = out_ptr[x + _u(1)]
        if x_end - x_begin < 2:  # closes nothing, and nothing is deferred to it
            continue
        for k in range(x_begin, x_end):
            # below 2^24 (PRIVATE_SUPPORT_MAX_CELLS): fits int32
            position[_u(out[_u(k)])] = k + 1
        for k in range(x_begin, x_end - 1):
            v = _u(out[_u(k)])
            v_begin = out_ptr[v]
            v_end = out_ptr[v + _u(1)]
            if v_end - v_begin <= x_end - k - 1:  # not defers(out_ptr, v, rest)
                credits[_u(k)] += _credit_probes(out, v_begin, v_end, position, credits, sink)
        for q in range(deferred_ptr[x], deferred_ptr[x + _u(1)]):
            # The pair (y, x): its edge y -> x sits just before the rest of y's row.
            first = rest_begin[_u(q)]
            credits[_u(first - 1)] += _credit_probes(out, first, rest_end[_u(q)], position,
                                                     credits, sink)
        for k in range(x_begin, x_end):
            position[_u(out[_u(k)])] = 0


@numba.njit(parallel=True, nogil=True, cache=True)
def _edge_support_deferred(out_ptr, out, deferred_ptr, rest_begin, rest_end, positions, credits,
                           chunk, cursor, workers):
    n = out_ptr.shape[0] - 1
    for worker in numba.prange(workers):
        position = positions[worker]
        mine = credits[worker]
        begin, end = claim(cursor, n, chunk)
        while begin < n:
            support_range(out_ptr, out, deferred_ptr, rest_begin, rest_end, position, begin,
                          end, mine)
            begin, end = claim(cursor, n, chunk)
