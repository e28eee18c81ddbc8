"""What the CPU and GPU backends share for local results, written once for NumPy and CuPy.

:func:`support_aligned` realigns a backend's per-edge counts to ``graph.edges()``;
:func:`peel_aligned` runs the level-synchronous truss peeling (PKT, :func:`peel`)
on a backend's two kernels; :func:`directed_aligned` and :func:`weighted_aligned`
hand a backend's directed and weighted kernels the per-edge mask or factors
reordered to its degree-oriented CSR.

:func:`peel` computes the trussness of every edge: the largest k such that the edge lies
in the k-truss, the maximal subgraph in which every edge is in at least k - 2
triangles (Cohen's definition, as NetworkX's ``k_truss``). Every edge is in
the 2-truss, so trussness is at least 2.

Level l = 0, 1, 2, ... removes every edge whose support among the edges still
present is l, in frontiers: the first frontier is every remaining edge with
support l; removing a frontier lowers the supports of surviving edges, and
those that fall to l form the next frontier, until none does. An edge removed
at level l has trussness l + 2. One frontier is removed in parallel by a
backend's ``peel_frontier`` (CPU: :mod:`tricount.cpu.truss`; GPU:
:mod:`tricount.gpu.truss`), so the work per step is spread over the edges of
the frontier, never one edge at a time. Levels with no edge are skipped: the
next level is the smallest support left. With ``stop_level`` the peeling stops
before that level, leaving exactly the edges of the (stop_level + 2)-truss.

Source: H. Kabir and K. Madduri, "Parallel k-truss decomposition on multicore
systems", HPEC 2017.
"""

from __future__ import annotations

from tricount.prep.edge_ids import (
    adjacency_with_edge_ids,
    oriented_edge_ids,
    oriented_mask,
    oriented_values,
)
from tricount.prep.xp import array_namespace, to_host

__all__ = ["support_aligned", "peel_aligned", "peel", "directed_aligned", "weighted_aligned"]


#: Rebuild the symmetric CSR without removed edges once over half its entries
#: are dead (4 × alive edges < entries, each edge being stored twice): later
#: frontiers then scan only live neighbours. A heuristic; not tuned.
COMPACT_WHEN_DEAD = 0.5


def _drop_removed(adjacency, removed):
    """The symmetric CSR ``(indptr, cols, eid)`` without the entries of removed edges."""
    xp = array_namespace(removed)
    indptr, cols, eid = adjacency
    alive = removed[eid] == 0
    # Alive entries before each row start give the new row starts.
    before = xp.zeros(cols.shape[0] + 1, dtype=xp.int64)
    xp.cumsum(alive, dtype=xp.int64, out=before[1:])
    return before[indptr], cols[alive], eid[alive]


def peel(adjacency, edge_lo, edge_hi, support, *, peel_frontier, stop_level=None):
    """Peel edges level by level; returns ``(trussness, removed)``.

    ``adjacency`` is ``(indptr, cols, eid)`` (see
    :func:`tricount.prep.edge_ids.adjacency_with_edge_ids`); ``support`` (int32,
    aligned with the edge ids) is consumed. ``trussness`` (int32) holds l + 2
    for every removed edge and 0 for the edges left when ``stop_level`` stopped
    the peeling; ``removed`` (uint8) marks the removed edges.
    """
    xp = array_namespace(support)
    m = int(support.shape[0])
    trussness = xp.zeros(m, dtype=xp.int32)
    removed = xp.zeros(m, dtype=xp.uint8)
    in_curr = xp.zeros(m, dtype=xp.uint8)
    ids = adjacency[2].dtype  # the kernels' edge id type (TC_EDGE_T on the GPU)
    # An edge joins a next frontier at most once (when its support first falls
    # to the level), so m slots always suffice.
    next_buf = xp.empty(m, dtype=ids)
    next_count = xp.zeros(1, dtype=xp.int64)
    remaining = xp.arange(m, dtype=ids)
    while True:
        remaining = remaining[removed[remaining] == 0]
        if remaining.shape[0] == 0:
            break
        left = support[remaining]
        level = int(left.min())  # supports never fall below the level being peeled
        if stop_level is not None and level >= stop_level:
            break
        curr = remaining[left == level]
        if level == 0:
            # Support 0 is exact (nothing was clamped yet): these edges close no
            # triangle, so removing them lowers nothing.
            removed[curr] = 1
            trussness[curr] = 2
            continue
        if 2 * remaining.shape[0] < (1 - COMPACT_WHEN_DEAD) * adjacency[1].shape[0]:
            adjacency = _drop_removed(adjacency, removed)
        while curr.shape[0]:
            in_curr[curr] = 1
            n_next = peel_frontier(adjacency, edge_lo, edge_hi, curr, level, support, in_curr,
                                   removed, next_buf, next_count)
            removed[curr] = 1
            in_curr[curr] = 0
            trussness[curr] = level + 2
            curr = next_buf[:n_next].copy()
    return trussness, removed


def support_aligned(g, kernel):
    """Edge support in ``g``'s namespace, aligned with ``g.edges()``; ``kernel`` counts
    the support of every entry of the degree-oriented CSR."""
    oriented = g.oriented()
    by_position = kernel(oriented)
    out = g.xp.empty_like(by_position)
    out[oriented_edge_ids(g, oriented)] = by_position
    return out


def peel_aligned(g, support_kernel, peel_frontier, stop_level):
    """``(trussness, removed)`` on the host, aligned with ``g.edges()``, from the backend's
    support kernel and frontier step."""
    support = support_aligned(g, support_kernel).astype(g.xp.int32)  # < max degree < 2**31
    adjacency = adjacency_with_edge_ids(g)
    lo, hi = g.edges()
    trussness, removed = peel((adjacency.indptr, adjacency.cols, adjacency.eid), lo, hi,
                              support, peel_frontier=peel_frontier, stop_level=stop_level)
    return to_host(trussness), to_host(removed)


def directed_aligned(g, mask, kernel, *, per_vertex: bool):
    """Host ``(counts (4, n), codes (64,))`` of a backend's directed kernel on ``g`` with a
    direction mask per edge of ``g.edges()`` (see :mod:`tricount.directed`)."""
    oriented = g.oriented()
    counts, codes = kernel(oriented, oriented_mask(g, oriented, mask), per_vertex=per_vertex)
    return to_host(counts), to_host(codes)


def weighted_aligned(g, factors, kernel):
    """Host float64 sums per vertex of a backend's weighted kernel on ``g`` with a factor
    per edge of ``g.edges()`` (see :mod:`tricount.weighted`)."""
    oriented = g.oriented()
    return to_host(kernel(oriented, oriented_values(g, oriented, factors)))
