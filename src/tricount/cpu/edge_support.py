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
"""

from __future__ import annotations

import numpy as np

from tricount._threads import load_numba
from tricount.cpu._common import CHUNK_VERTICES, claim, next_common, run_chunked
from tricount.prep._atomic import atomic_add

numba = load_numba()  # Numba, started without its BLAS probe (tricount._threads)


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
