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
Work: anchors in parallel blocks (small graphs on the calling thread), a
two-pointer merge per edge u -> v. No atomics: the block owns row u, so it writes the term of each
triangle into two arrays indexed by row-u entries, ``closes[k]`` (the edge
u -> v that closed it, credited to u and v) and ``tops[k]`` (the edge u -> c,
credited to c). Per vertex, S(x) = (closes of x's out-edges) + (closes and tops
of x's in-edges), gathered by two ``bincount``s in CSR order: the result is the
same bits for any thread count and every run.
"""

from __future__ import annotations

import numpy as np

from tricount._threads import load_numba
from tricount._threads import parallel_region
from tricount.cpu._common import next_common
from tricount.cpu.listing import PARALLEL_MIN_EDGES

numba = load_numba()  # Numba, started without its BLAS probe (tricount._threads)

__all__ = ["weighted_triangle_sums_cpu"]

#: Anchors per parallel block (as :data:`tricount.cpu.merge.CHUNK_VERTICES`).
BLOCK_VERTICES = 64


@numba.njit(cache=True, nogil=True)
def _weighted_rows(indptr, indices, ow, closes, tops, u_begin, u_end):
    """``closes``/``tops`` of the entries of rows ``u_begin .. u_end - 1``: the terms of
    the triangles each entry closes as a -> b, and of those it tops as a -> c."""
    for u in range(u_begin, u_end):
        k_begin = indptr[u]
        k_end = indptr[u + 1]
        for k in range(k_begin, k_end):
            v = indices[k]
            w_uv = ow[k]
            b_end = indptr[v + 1]
            closed = 0.0
            a, b = next_common(indices, k_begin, k_end, indptr[v], b_end)
            while a < k_end:  # c = indices[a]: the triangle u -> v -> c with u -> c
                term = w_uv * ow[a] * ow[b]
                closed += term
                tops[a] += term  # u -> c: row u, this block's alone
                a, b = next_common(indices, a + 1, k_end, b + 1, b_end)
            closes[k] = closed


@numba.njit(parallel=True, cache=True, nogil=True)
def _weighted_terms(indptr, indices, ow, closes, tops):
    """:func:`_weighted_rows` over blocks of :data:`BLOCK_VERTICES` rows."""
    n = indptr.shape[0] - 1
    for block in numba.prange((n + BLOCK_VERTICES - 1) // BLOCK_VERTICES):
        first = block * BLOCK_VERTICES
        _weighted_rows(indptr, indices, ow, closes, tops, first, min(first + BLOCK_VERTICES, n))


def weighted_triangle_sums_cpu(oriented, ow) -> np.ndarray:
    """S(x) for every vertex (float64, by compact id) of a degree-oriented CSR with
    entry factors ``ow``."""
    n, m = oriented.n_vertices, oriented.n_edges
    if m == 0:
        return np.zeros(n, dtype=np.float64)
    closes = np.zeros(m, dtype=np.float64)
    tops = np.zeros(m, dtype=np.float64)
    ow = np.ascontiguousarray(ow, dtype=np.float64)
    if m < PARALLEL_MIN_EDGES or numba.get_num_threads() == 1:
        _weighted_rows(oriented.indptr, oriented.indices, ow, closes, tops, 0, n)
    else:
        with parallel_region(1):  # blocks are the work chunks; one loop at a time
            _weighted_terms(oriented.indptr, oriented.indices, ow, closes, tops)
    return (np.bincount(oriented.rows, weights=closes, minlength=n)
            + np.bincount(oriented.indices, weights=closes + tops, minlength=n))
