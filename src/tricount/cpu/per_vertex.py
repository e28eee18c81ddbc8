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
"""

from __future__ import annotations

import numpy as np

from tricount._threads import load_numba
from tricount.prep._atomic import atomic_add
from tricount.cpu._common import CHUNK_VERTICES, claim, n_workers, run_chunked

numba = load_numba()  # Numba, started without its BLAS probe (tricount._threads)


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
