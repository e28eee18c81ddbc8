"""CPU weighted triangles: the sum over each vertex's triangles of a product of edge factors.

Computes, for every vertex x, S(x) = sum over the triangles {x, y, z} of
q_xy q_xz q_yz, q a factor per edge (for NetworkX's weighted clustering the
cube root of the normalised weight, see :mod:`tricount.weighted`; the term is
then the triangle's geometric mean weight). Each triangle adds the same term
to each of its three corners, so S sums to 3 × the sum over the triangles.
Precondition: the degree-oriented CSR (rows sorted by id) and ``ow``, the
factor of every oriented entry.
Counted once: a triangle a < b < c in (degree, id) order is found only from
the edge a -> b, as the common out-neighbour c met while merging N+(a) with
N+(b); the merge stands at c in row a (a -> c) and in row b (b -> c), so the
three weights are at hand (as :mod:`tricount.cpu.edge_support`).
Work: one parallel iteration per anchor u, a two-pointer merge per edge
u -> v. No atomics: the iteration owns row u, so it writes the term of each
triangle into two arrays indexed by row-u entries, ``closes[k]`` (the edge
u -> v that closed it, credited to u and v) and ``tops[k]`` (the edge u -> c,
credited to c). Per vertex, S(x) = (closes of x's out-edges) + (closes and tops
of x's in-edges), gathered by two ``bincount``s in CSR order: the result is the
same bits for any thread count and every run.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["weighted_triangle_sums_cpu"]

#: Anchors per work chunk (the provenance of :data:`tricount.cpu.merge.CHUNK_VERTICES`).
CHUNK_VERTICES = 64


@numba.njit(parallel=True, cache=True, nogil=True)
def _weighted_terms(indptr, indices, ow, closes, tops):
    """``closes``/``tops`` (zeroed float64, one per entry): the terms of the triangles
    each entry closes as a -> b, and of those it tops as a -> c."""
    n = indptr.shape[0] - 1
    for u in numba.prange(n):
        u_begin = indptr[u]
        u_end = indptr[u + 1]
        for k in range(u_begin, u_end):
            v = indices[k]
            w_uv = ow[k]
            a = u_begin
            b = indptr[v]
            b_end = indptr[v + 1]
            closed = 0.0
            while a < u_end and b < b_end:
                x = indices[a]
                y = indices[b]
                if x < y:
                    a += 1
                elif x > y:
                    b += 1
                else:  # c = x: the triangle u -> v -> c with u -> c
                    term = w_uv * ow[a] * ow[b]
                    closed += term
                    tops[a] += term  # u -> c: row u, this iteration's alone
                    a += 1
                    b += 1
            closes[k] = closed


def weighted_triangle_sums_cpu(oriented, ow) -> np.ndarray:
    """S(x) for every vertex (float64, by compact id) of a degree-oriented CSR with
    entry factors ``ow``."""
    n, m = oriented.n_vertices, oriented.n_edges
    if m == 0:
        return np.zeros(n, dtype=np.float64)
    closes = np.zeros(m, dtype=np.float64)
    tops = np.zeros(m, dtype=np.float64)
    with numba.parallel_chunksize(CHUNK_VERTICES):
        _weighted_terms(oriented.indptr, oriented.indices,
                        np.ascontiguousarray(ow, dtype=np.float64), closes, tops)
    return (np.bincount(oriented.rows, weights=closes, minlength=n)
            + np.bincount(oriented.indices, weights=closes + tops, minlength=n))
