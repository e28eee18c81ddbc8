"""The degree and rank orientations on the CPU in parallel, from the upper CSR, without a sort.

Computes: the same oriented CSRs as :func:`tricount.prep.orient.orient_by_degree`
and :func:`tricount.prep.orient.orient_by_rank` (each undirected edge once, from
the end of lower (degree, id) to the higher; rows sorted by id; by rank, every
vertex renamed by its position in the order (degree, id)), array for array,
from the graph's upper-triangular CSR (row ``w`` holds its neighbours
``v > w``, sorted) and its degrees.
Preconditions: a canonical graph (no loops, no repeats); ``deg`` its degrees.
Why no sort: the out-list of ``u`` is made of two sorted runs. Its targets
below ``u`` come from the rows ``w < u`` whose edge to ``u`` points back
(deg(w) > deg(u)), its targets above ``u`` from ``u``'s own upper row in
order. So a counting sort by source places every edge (two passes over the
edges, like GAPBS's ``RelabelByDegree`` and GBBS's filter), and only the
first run of each row, written by several threads, is sorted afterwards; it
is short (at most the number of higher-degree neighbours of lower id).
Work: three passes, each handing out rows of the upper CSR in chunks through
one atomic cursor (:mod:`tricount.prep._parallel`): count (a row's forward
edges in a local counter, each backward edge one atomic add at its target),
place (forward edges in order behind the backward run, each backward edge at
an atomic cursor of its target row), sort the backward runs. Measured against
NumPy's sort of packed keys on the 2-core development machine, R-MAT scale 18
(3.8 M edges): see ``PARALLEL_MIN_EDGES`` in :mod:`tricount.prep.orient`.
The rank orientation renames both ends by a counting sort of the vertices by
degree (ties stay in id order), places each forward edge in order at the start
of its source's row and each backward one at an atomic cursor after them, and
sorts every row (renaming does not keep the order).
"""

from __future__ import annotations

import numpy as np

from tricount._threads import load_numba
from tricount.prep._atomic import atomic_add
from tricount.prep._parallel import claimed_chunks, insertion_sort, run_chunked

numba = load_numba()  # Numba, started without its BLAS probe (tricount._threads)

__all__ = ["orient_upper_by_degree", "orient_upper_by_rank", "degree_rank"]

#: Rows of the upper CSR per claimed chunk; small for the same reason as the
#: counting kernels' (a hub's row costs as much as thousands of others).
CHUNK_ROWS = 256
# Indices into the graph's arrays are unsigned (``_u``): Numba then drops the wrap-around
# test of a negative index (tricount.cpu.bitmap measured a third of its count there).
_u = np.uint64

#: Runs up to this long are sorted by insertion, longer ones by Numba's sort (R-MAT 18's
#: rank-oriented rows: 71 ms against 101 with Numba's sort for every row, 2026-11-25).
INSERTION_SORT_MAX = 32


@numba.njit(parallel=True, nogil=True, cache=True)
def _split_rows(indptr, indices, deg, forward, backward, out_ptr, filled, out, place, cursor,
                workers):
    """One pass over the upper CSR's rows, (degree, id) deciding each edge's source.

    Counting (``place`` False): ``forward[w]``, the edges of row ``w`` that stay
    w -> v, and ``backward[v]`` (atomic), the edges of earlier rows that turn to
    v -> w (deg(w) > deg(v)). Placing: every edge into its source's row, the
    forward edges of row ``w`` in order after ``w``'s backward run, each backward
    edge at the next free slot of that run (``filled``, atomic).
    """
    n = indptr.shape[0] - 1
    for _worker in numba.prange(workers):
        for begin, end in claimed_chunks(cursor, n, CHUNK_ROWS):
            for row in range(begin, end):
                w = _u(row)
                dw = deg[w]
                kept = 0
                at = out_ptr[w] + backward[w] if place else 0  # the run above w's own
                for k in range(indptr[w], indptr[w + _u(1)]):
                    v = _u(indices[_u(k)])
                    if dw <= deg[v]:  # (deg, id) of w below v's: w < v breaks the tie
                        if place:
                            out[_u(at + kept)] = v
                        kept += 1
                    elif place:
                        out[_u(out_ptr[v] + atomic_add(filled, v, 1))] = w
                    else:
                        atomic_add(backward, v, 1)
                if not place:
                    forward[w] = kept


@numba.njit(parallel=True, nogil=True, cache=True)
def _sort_runs(out_ptr, lengths, out, cursor, workers):
    """Sort the first ``lengths[u]`` entries of every row ``u``, written in any order."""
    n = out_ptr.shape[0] - 1
    for _worker in numba.prange(workers):
        for begin, end in claimed_chunks(cursor, n, CHUNK_ROWS):
            for u in range(begin, end):
                lo = out_ptr[u]
                if lengths[u] <= INSERTION_SORT_MAX:
                    insertion_sort(out, lo, lo + lengths[u])
                else:
                    out[lo:lo + lengths[u]].sort()


@numba.njit(nogil=True, cache=True)
def _rank_by_degree(deg, max_degree, rank):
    """``rank[v]``: v's position in the order (degree, id), by one counting sort."""
    start = np.zeros(max_degree + 2, dtype=np.int64)
    for v in range(deg.shape[0]):
        start[deg[v] + 1] += 1
    for d in range(max_degree + 1):
        start[d + 1] += start[d]
    for v in range(deg.shape[0]):  # ids in increasing order: ties keep it
        rank[v] = start[deg[v]]
        start[deg[v]] += 1


@numba.njit(parallel=True, nogil=True, cache=True)
def _place_ranked(indptr, indices, deg, rank, out_ptr, forward, filled, out, cursor, workers):
    """Write every edge, both ends renamed by rank, into the row of its lower rank: the
    forward edges of row ``w`` in order at the start of row ``rank[w]``, each backward edge
    at the next free slot after row ``rank[v]``'s forward part (``filled``, atomic)."""
    n = indptr.shape[0] - 1
    for _worker in numba.prange(workers):
        for begin, end in claimed_chunks(cursor, n, CHUNK_ROWS):
            for row in range(begin, end):
                w = _u(row)
                dw = deg[w]
                rw = rank[w]
                at = out_ptr[_u(rw)]
                for k in range(indptr[w], indptr[w + _u(1)]):
                    v = _u(indices[_u(k)])
                    if dw <= deg[v]:  # rank[w] < rank[v], as in _split_rows
                        out[_u(at)] = rank[v]
                        at += 1
                    else:
                        rv = _u(rank[v])
                        out[_u(out_ptr[rv] + forward[v] + atomic_add(filled, rv, 1))] = rw


def _count_type(n_edges: int):
    return np.int32 if n_edges < 2**31 else np.int64


def _out_degrees(indptr, indices, deg):
    """``(forward, backward)``: per vertex, its out-edges found in its own upper row and
    in the rows of lower ids (their sum is the out-degree)."""
    n = indptr.shape[0] - 1
    forward = np.empty(n, dtype=_count_type(indices.shape[0]))
    backward = np.zeros(n, dtype=forward.dtype)
    unused = np.zeros(1, dtype=np.int64)
    run_chunked(_split_rows, indptr, indices, deg, forward, backward, unused, backward, indices,
                False)
    return forward, backward


def _offsets(out_degree):
    out_ptr = np.zeros(out_degree.shape[0] + 1, dtype=np.int64)
    np.cumsum(out_degree, dtype=np.int64, out=out_ptr[1:])
    return out_ptr


def orient_upper_by_degree(indptr, indices, deg):
    """``(out_ptr, out)``: the degree-oriented CSR (int64 offsets, ``indices``'s type) of a
    canonical graph given as its upper CSR and degrees (NumPy arrays)."""
    forward, backward = _out_degrees(indptr, indices, deg)
    out_ptr = _offsets(forward + backward)
    del forward
    out = np.empty(indices.shape[0], dtype=indices.dtype)
    filled = np.zeros_like(backward)
    run_chunked(_split_rows, indptr, indices, deg, backward, backward, out_ptr, filled, out, True)
    del filled
    run_chunked(_sort_runs, out_ptr, backward, out)
    return out_ptr, out


def degree_rank(deg, dtype=np.int32):
    """``rank[v]``: the position of v in the order (degree, id) (the portable
    :func:`tricount.prep.orient.degree_rank`, by a counting sort)."""
    rank = np.empty(deg.shape[0], dtype=dtype)
    if deg.shape[0]:
        _rank_by_degree(deg, int(deg.max()), rank)
    return rank


def orient_upper_by_rank(indptr, indices, deg):
    """``(out_ptr, out)``: the rank-oriented CSR (int64 offsets, ``indices``'s type; vertex
    ``r`` is the vertex of rank ``r``) of a canonical graph given as its upper CSR and
    degrees (NumPy arrays)."""
    forward, backward = _out_degrees(indptr, indices, deg)
    rank = degree_rank(deg, indices.dtype)
    out_degree = np.empty_like(forward)
    out_degree[rank] = forward + backward
    del backward
    out_ptr = _offsets(out_degree)
    out = np.empty(indices.shape[0], dtype=indices.dtype)
    filled = np.zeros_like(out_degree)
    run_chunked(_place_ranked, indptr, indices, deg, rank, out_ptr, forward, filled, out)
    del filled, rank, forward
    run_chunked(_sort_runs, out_ptr, out_degree, out)
    return out_ptr, out
