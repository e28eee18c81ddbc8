"""The Numba loops of the partitioned count: rank orientation, column blocks, statistics, count.

Every loop here reads a CSR whose rows are sorted and, for the counting loops,
whose vertex ids are ranks in (degree, id) order, so that row ``u`` holds only
ids greater than ``u`` (:mod:`tricount.partition.ranked`). Loops over rows run
in ``prange`` with the dynamic chunks the caller sets
(``numba.parallel_chunksize``). Shared counters are written with
:func:`tricount.prep._atomic.atomic_add`. Every count is int64.

Imported only when a partitioned count runs (``import tricount`` stays light).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from tricount._threads import load_numba
from tricount.prep._atomic import atomic_add

numba = load_numba()  # Numba, started without its BLAS probe (tricount._threads)


# -- rank orientation of an upper CSR ------------------------------------------------------------

@numba.njit(parallel=True, nogil=True, cache=True)
def column_counts(indptr, indices, counts):
    """``counts[v] += ``(entries equal to ``v``); ``counts`` is zeroed int64 of length n."""
    for u in prange(indptr.shape[0] - 1):
        for j in range(indptr[u], indptr[u + 1]):
            atomic_add(counts, indices[j], 1)


@numba.njit(nogil=True, cache=True)
def rank_by_degree(deg, rank):
    """``rank[v]``: position of ``v`` in (degree, id) order, by one stable counting sort.

    Vertices are visited in id order, so equal degrees keep id order: the same
    order as :func:`tricount.prep.orient.degree_rank`, in O(n + max degree).
    """
    n = deg.shape[0]
    top = 0
    for v in range(n):
        if deg[v] > top:
            top = deg[v]
    start = np.zeros(top + 2, dtype=np.int64)
    for v in range(n):
        start[deg[v] + 1] += 1
    for d in range(top + 1):
        start[d + 1] += start[d]
    for v in range(n):
        d = deg[v]
        rank[v] = start[d]
        start[d] += 1


@numba.njit(parallel=True, nogil=True, cache=True)
def oriented_counts(indptr, indices, rank, counts):
    """``counts[r]`` += out-degree of rank ``r`` (each edge belongs to its lower rank)."""
    for u in prange(indptr.shape[0] - 1):
        ru = rank[u]
        for j in range(indptr[u], indptr[u + 1]):
            rv = rank[indices[j]]
            atomic_add(counts, min(ru, rv), 1)


@numba.njit(parallel=True, nogil=True, cache=True)
def oriented_fill(indptr, indices, rank, cursor, out_indices):
    """Write every edge at ``cursor[lower rank]`` (claimed atomically) as its higher rank.

    Rows come out unsorted; :func:`sort_rows` sorts them.
    """
    for u in prange(indptr.shape[0] - 1):
        ru = rank[u]
        for j in range(indptr[u], indptr[u + 1]):
            rv = rank[indices[j]]
            if ru < rv:
                out_indices[atomic_add(cursor, ru, 1)] = rv
            else:
                out_indices[atomic_add(cursor, rv, 1)] = ru


@numba.njit(parallel=True, nogil=True, cache=True)
def sort_rows(indptr, indices):
    """Sort every row of a CSR in place (rows in parallel)."""
    for u in prange(indptr.shape[0] - 1):
        a, b = indptr[u], indptr[u + 1]
        if b - a > 1:
            indices[a:b].sort()


@numba.njit(nogil=True, cache=True)
def is_nondecreasing(values):
    """True when ``values[i] <= values[i + 1]`` everywhere (id order is rank order)."""
    for i in range(values.shape[0] - 1):
        if values[i] > values[i + 1]:
            return False
    return True


# -- statistics of a ranked CSR ------------------------------------------------------------------

@numba.njit(parallel=True, nogil=True, cache=True)
def apex_probes(indptr, indices, in_degree, probes):
    """``probes[c] += in(b)`` for every edge ``b -> c``: the two-paths ``a -> b -> c``.

    That is the number of probes the bitmap count makes on apex ``c`` (one per
    wedge a -> b -> c: b's list is probed once per in-neighbour a of b).
    """
    for b in prange(indptr.shape[0] - 1):
        w = in_degree[b]
        if w == 0:
            continue
        for j in range(indptr[b], indptr[b + 1]):
            atomic_add(probes, indices[j], w)


# -- column blocks -------------------------------------------------------------------------------

@numba.njit(inline="always")
def _lower_bound(indices, a, b, value):
    """First position in the sorted slice ``indices[a:b]`` whose entry is >= ``value``."""
    while a < b:
        mid = (a + b) >> 1
        if indices[mid] < value:
            a = mid + 1
        else:
            b = mid
    return a


@numba.njit(parallel=True, nogil=True, cache=True)
def block_lengths(indptr, indices, lo, hi, lengths):
    """``lengths[u]`` = entries of row ``u`` in ``[lo, hi)``, for ``u < lengths.shape[0]``."""
    for u in prange(lengths.shape[0]):
        a, b = indptr[u], indptr[u + 1]
        # Most rows end below the range or start above it: one read each, no search.
        if a == b or indices[b - 1] < lo or indices[a] >= hi:
            lengths[u] = 0
            continue
        s = _lower_bound(indices, a, b, lo)
        lengths[u] = _lower_bound(indices, s, b, hi) - s


@numba.njit(parallel=True, nogil=True, cache=True)
def block_fill(indptr, indices, lo, block_indptr, block_indices):
    """Copy each row's entries >= ``lo`` into the block, as many as ``block_indptr`` allows."""
    for u in prange(block_indptr.shape[0] - 1):
        t = block_indptr[u]
        if block_indptr[u + 1] == t:
            continue
        s = _lower_bound(indices, indptr[u], indptr[u + 1], lo)
        for k in range(block_indptr[u + 1] - t):
            block_indices[t + k] = indices[s + k]


# -- the count of one sub-problem ---------------------------------------------------------------

@numba.njit(parallel=True, nogil=True, cache=True)
def count_block(indptr, indices, block_indptr, block_indices, lo, row_lo, row_hi, owner_lo,
                owner_hi, marks):
    """Σ over edges a -> b with ``row_lo <= a < row_hi`` of |N+(a) ∩ N+(b) ∩ [lo, hi)|, only
    the edges whose owner lies in ``[owner_lo, owner_hi)`` (``plan.edge_owner``: a where its
    block row is at least as long as b's, else b).

    ``block_indptr``/``block_indices`` hold, for every row below ``hi``, its
    entries in ``[lo, hi)`` (the column block). Anchor ``a`` marks its block
    entries in its thread's byte map (offset by ``lo``), walks its full
    out-list for b below its last marked entry c (b < c, rows sorted, so the
    walk stops there), probes b's block entries, then clears its marks.
    """
    total = np.int64(0)
    for a in prange(row_lo, row_hi):
        s, e = block_indptr[a], block_indptr[a + 1]
        # a needs a marked apex c and another out-neighbour b < c.
        if e == s or indptr[a + 1] - indptr[a] < 2:
            continue
        mark = marks[numba.get_thread_id()]
        for k in range(s, e):
            mark[block_indices[k] - lo] = 1
        last = block_indices[e - 1]
        local = np.int64(0)
        for j in range(indptr[a], indptr[a + 1]):
            b = indices[j]
            if b >= last:
                break
            owner = a if e - s >= block_indptr[b + 1] - block_indptr[b] else b
            if owner < owner_lo or owner >= owner_hi:
                continue
            for k in range(block_indptr[b], block_indptr[b + 1]):
                local += mark[block_indices[k] - lo]
        for k in range(s, e):
            mark[block_indices[k] - lo] = 0
        total += local
    return total


@numba.njit(parallel=True, nogil=True, cache=True)
def anchor_work(indptr, indices, block_indptr, block_indices, work):
    """``work[a]``: the marks and probes :func:`count_block` makes for anchor ``a``."""
    for a in prange(work.shape[0]):
        s, e = block_indptr[a], block_indptr[a + 1]
        if e == s or indptr[a + 1] - indptr[a] < 2:
            continue
        last = block_indices[e - 1]
        w = e - s
        for j in range(indptr[a], indptr[a + 1]):
            b = indices[j]
            if b >= last:
                break
            w += block_indptr[b + 1] - block_indptr[b]
        work[a] = w
