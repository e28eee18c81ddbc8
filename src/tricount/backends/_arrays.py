"""What the CPU and GPU backends share: per-edge results realigned to ``graph.edges()``
and the level-by-level truss peeling, each written once against ``xp``."""

from __future__ import annotations

from tricount.local._prep import adjacency_with_edge_ids, oriented_edge_ids
from tricount.local._truss import peel as peel_levels
from tricount.prep.xp import to_host

__all__ = ["support_aligned", "peel_aligned"]


def support_aligned(g, kernel):
    """Edge support in ``g``'s namespace, aligned with ``g.edges()``; ``kernel`` counts
    the support of every entry of the degree-oriented CSR."""
    oriented = g.oriented()
    by_position = kernel(oriented)
    out = g.xp.empty_like(by_position)
    out[oriented_edge_ids(g, oriented)] = by_position
    return out


def peel_aligned(g, support_kernel, peel_frontier, stop_level):
    """``(trussness, removed)`` on the host, from the backend's two kernels."""
    support = support_aligned(g, support_kernel).astype(g.xp.int32)  # < max degree < 2**31
    adjacency = adjacency_with_edge_ids(g)
    lo, hi = g.edges()
    trussness, removed = peel_levels((adjacency.indptr, adjacency.cols, adjacency.eid), lo, hi,
                                     support, peel_frontier=peel_frontier, stop_level=stop_level)
    return to_host(trussness), to_host(removed)
