"""CPU merge counter: the forward algorithm (Polak §II-B) with Numba threads.

Counts: distinct triangles of a simple undirected graph.
Precondition: the degree-oriented CSR of :func:`tricount.prep.orient_by_degree`
(each edge once, from lower to higher (degree, id); rows sorted by id).
Counted once: a triangle a < b < c in (degree, id) order is seen only from the
edge a -> b, as the common out-neighbour c of a and b; no other oriented edge
has both other corners in its two out-lists.
Work: per vertex u, for each out-neighbour v of u, a merge of the sorted lists
N+(u) and N+(v) with two pointers, one comparison per step. Vertices are handed
out to the threads in small chunks (:mod:`tricount.cpu._common`), because
per-vertex work varies by orders of magnitude on skewed graphs.
Counts are int64 in every thread and in the reduction.
"""

from __future__ import annotations

import numpy as np

from tricount._threads import load_numba
from tricount.cpu._common import CHUNK_VERTICES, claim, run_chunked

numba = load_numba()  # Numba, started without its BLAS probe (tricount._threads)


# Indices unsigned (``_u``): Numba then drops the wrap-around test of a negative index
# (tricount.cpu.bitmap).
_u = np.uint64


@numba.njit(inline="always")
def intersect_sorted(indices, a, a_end, b, b_end):
    """Size of the intersection of two sorted slices of ``indices`` (int64)."""
    count = 0
    while a < a_end and b < b_end:
        x = indices[_u(a)]
        y = indices[_u(b)]
        # Advance the smaller side; on equality advance both and count.
        if x <= y:
            a += 1
        if x >= y:
            b += 1
        if x == y:
            count += 1
    return count


@numba.njit(parallel=True, cache=True, nogil=True)
def _count_merge(indptr, indices, cursor, workers):
    n = indptr.shape[0] - 1
    total = np.int64(0)
    for _worker in numba.prange(workers):
        local = np.int64(0)
        begin, end = claim(cursor, n, CHUNK_VERTICES)
        while begin < n:
            for row in range(begin, end):
                u = _u(row)
                u_begin = indptr[u]
                u_end = indptr[u + _u(1)]
                for k in range(u_begin, u_end):
                    v = _u(indices[_u(k)])
                    local += intersect_sorted(indices, u_begin, u_end, indptr[v],
                                              indptr[v + _u(1)])
            begin, end = claim(cursor, n, CHUNK_VERTICES)
        total += local
    return total


def count_merge(oriented) -> int:
    """Triangles of a degree-oriented CSR (NumPy arrays) by two-pointer merges."""
    return int(run_chunked(_count_merge, oriented.indptr, oriented.indices))
