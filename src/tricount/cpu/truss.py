"""CPU truss peeling: one frontier of edges removed in parallel (PKT's inner step).

Computes: one step of the level-synchronous truss decomposition driven by
:func:`tricount.backends._local.peel`. Every edge of the frontier ``curr`` has
support exactly ``level`` among the edges still present; removing the frontier
destroys every triangle that contains one of its edges, and the step lowers
the support of each surviving edge of those triangles by one per triangle.
An edge whose support falls from ``level + 1`` to ``level`` joins the next
frontier; supports never fall below ``level`` (a decrement that would is
undone), because an edge at ``level`` is removed at this level anyway.
Preconditions: the symmetric CSR with an undirected edge id per entry
(:func:`tricount.prep.edge_ids.adjacency_with_edge_ids`); ``processed`` marks the
edges removed in earlier steps and ``in_curr`` the frontier.
Counted once: a destroyed triangle (e, e1, e2) with e in the frontier lowers
e1 and e2 when neither is in the frontier; when e1 is in the frontier too,
both e and e1 find the triangle and only the smaller edge id lowers e2; when
all are in the frontier, nothing survives to be lowered.
Work: one parallel iteration per frontier edge (u, v): each entry w of the
shorter of N(u), N(v) is binary-searched in the longer (the search start only
moves forward, the lists being sorted). Support updates and appends to the
next frontier are atomic. Dynamic chunks, because hub edges cost far more.
Source: H. Kabir and K. Madduri, "Parallel k-truss decomposition on multicore
systems", HPEC 2017 (PKT); J. Wang and J. Cheng, "Truss decomposition in
massive networks", VLDB 2012 (the peeling order).
"""

from __future__ import annotations

import numpy as np

from tricount._threads import load_numba
from tricount.prep._atomic import atomic_add
from tricount.cpu._common import claim, run_chunked

numba = load_numba()  # Numba, started without its BLAS probe (tricount._threads)

#: Frontier edges per work chunk; small, because one hub edge can cost as much
#: as thousands of others (same provenance as the merge counter's chunks).
CHUNK_EDGES = 16
#: Frontiers smaller than this run on one thread: most frontiers of a deep
#: peeling are small, and one parallel region costs more than it saves there.
#: Measured 2026-11-22 on the shared 2-core development machine (OMP layer,
#: other jobs running): an empty ``prange`` call cost 5-7 ms, about the time one
#: thread takes for a few thousand R-MAT frontier edges. Quiet machines start
#: threads faster, so this errs towards fewer parallel regions.
SERIAL_FRONTIER_EDGES = 4096


# Indices unsigned (``_u``): Numba then drops the wrap-around test of a negative index
# (tricount.cpu.bitmap).
_u = np.uint64


@numba.njit(inline="always")
def _lower_bound(cols, lo, hi, key):
    """First position p in [lo, hi) with cols[p] >= key (hi when none)."""
    while lo < hi:
        mid = lo + (hi - lo) // 2
        if cols[_u(mid)] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo


@numba.njit(inline="always")
def _lower(support, edge, level, next_buf, next_count):
    """Remove one triangle from ``edge``'s support, clamped at ``level``."""
    old = atomic_add(support, edge, -1)
    if old == level + 1:
        next_buf[atomic_add(next_count, 0, 1)] = edge
    elif old <= level:
        atomic_add(support, edge, 1)  # already at the level: it leaves at this level anyway


@numba.njit(inline="always")
def _peel_edge(i, adj_indptr, adj_cols, adj_eid, edge_lo, edge_hi, curr, level, support,
               in_curr, processed, next_buf, next_count):
    """Remove the triangles of frontier edge ``curr[i]`` from its neighbours' supports."""
    e = curr[_u(i)]
    u = _u(edge_lo[_u(e)])
    v = _u(edge_hi[_u(e)])
    a_begin = adj_indptr[u]
    a_end = adj_indptr[u + _u(1)]
    b_begin = adj_indptr[v]
    b_end = adj_indptr[v + _u(1)]
    if a_end - a_begin > b_end - b_begin:  # walk the shorter list, search the longer
        a_begin, b_begin = b_begin, a_begin
        a_end, b_end = b_end, a_end
    # Binary search costs |short| log2 |long| reads, a merge |short| + |long|:
    # take the cheaper one for this edge.
    n_short = a_end - a_begin
    n_long = b_end - b_begin
    search = n_short * np.log2(n_long + 1) < n_short + n_long
    p = a_begin
    lo = b_begin
    while p < a_end and lo < b_end:
        w = adj_cols[_u(p)]
        if search:
            lo = _lower_bound(adj_cols, lo, b_end, w)
            if lo == b_end:
                break
        elif adj_cols[_u(lo)] < w:
            lo += 1
            continue
        if adj_cols[_u(lo)] != w:  # w is not in the longer list
            p += 1
            continue
        e1 = adj_eid[_u(p)]
        e2 = adj_eid[_u(lo)]
        p += 1
        lo += 1
        if processed[_u(e1)] or processed[_u(e2)]:
            continue  # destroyed in an earlier step
        c1 = in_curr[_u(e1)]
        c2 = in_curr[_u(e2)]
        if not c1 and not c2:
            _lower(support, e1, level, next_buf, next_count)
            _lower(support, e2, level, next_buf, next_count)
        elif c1 and not c2:
            if e < e1:
                _lower(support, e2, level, next_buf, next_count)
        elif c2 and not c1:
            if e < e2:
                _lower(support, e1, level, next_buf, next_count)


@numba.njit(parallel=True, cache=True, nogil=True)
def _peel_frontier(adj_indptr, adj_cols, adj_eid, edge_lo, edge_hi, curr, level, support,
                   in_curr, processed, next_buf, next_count, cursor, workers):
    n = curr.shape[0]
    for _worker in numba.prange(workers):
        begin, end = claim(cursor, n, CHUNK_EDGES)
        while begin < n:
            for i in range(begin, end):
                _peel_edge(i, adj_indptr, adj_cols, adj_eid, edge_lo, edge_hi, curr, level,
                           support, in_curr, processed, next_buf, next_count)
            begin, end = claim(cursor, n, CHUNK_EDGES)


@numba.njit(cache=True, nogil=True)
def _peel_frontier_serial(adj_indptr, adj_cols, adj_eid, edge_lo, edge_hi, curr, level, support,
                          in_curr, processed, next_buf, next_count):
    """The same step without threads, for frontiers too small to pay for waking them."""
    for i in range(curr.shape[0]):
        _peel_edge(i, adj_indptr, adj_cols, adj_eid, edge_lo, edge_hi, curr, level, support,
                   in_curr, processed, next_buf, next_count)


def peel_frontier(adjacency, edge_lo, edge_hi, curr, level, support, in_curr, processed,
                  next_buf, next_count) -> int:
    """Remove the frontier ``curr`` at ``level``; returns how many edges ``next_buf`` holds.

    ``adjacency`` is ``(indptr, cols, eid)``; ``support`` (int32) is updated in
    place; ``next_count`` is a one-element int64 array reset here.
    """
    adj_indptr, adj_cols, adj_eid = adjacency
    next_count[0] = 0
    args = (adj_indptr, adj_cols, adj_eid, edge_lo, edge_hi, curr, np.int64(level), support,
            in_curr, processed, next_buf, next_count)
    if curr.shape[0] < SERIAL_FRONTIER_EDGES:
        _peel_frontier_serial(*args)
    else:
        run_chunked(_peel_frontier, *args)
    return int(next_count[0])
