"""The oracle: an independent, obviously correct triangle counter.

It shares no code with the engines: it reads raw edge pairs (any hashable
ids), builds Python sets of neighbours ignoring self-loops and repeats, and for
every ordered pair (u, v) of neighbours adds |N(u) ∩ N(v)|. Each triangle has
three edges, each met in both directions, so the sum is 6 × the count (and is
checked to divide by 6).
Slow by design; used only to judge the other backends.
"""

from __future__ import annotations

from collections import defaultdict

__all__ = ["count_triangles", "triangles_per_vertex", "neighbour_sets"]


def neighbour_sets(src, dst) -> dict:
    """Map each vertex to the set of its neighbours; loops dropped, repeats merged."""
    adj = defaultdict(set)
    for u, v in zip(src, dst):
        u, v = _plain(u), _plain(v)
        adj[u]
        adj[v]
        if u != v:
            adj[u].add(v)
            adj[v].add(u)
    return adj


def _plain(x):
    # NumPy scalars hash like Python ints, but keep the oracle free of them.
    return x.item() if hasattr(x, "item") else x


def count_triangles(src, dst) -> int:
    """Distinct triangles of the undirected simple graph of an edge list.

    >>> count_triangles([0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3])  # K4
    4
    """
    adj = neighbour_sets(src, dst)
    closed = 0  # each triangle met once per ordered edge: 6 times in all
    for u, nu in adj.items():
        for v in nu:
            closed += len(nu & adj[v])
    if closed % 6:
        raise AssertionError("oracle invariant broken: ordered-edge sum not divisible by 6")
    return closed // 6


def triangles_per_vertex(src, dst) -> dict:
    """Triangles at each vertex (each triangle counted at its three corners).

    >>> sorted(triangles_per_vertex([0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3]).values())
    [3, 3, 3, 3]
    """
    adj = neighbour_sets(src, dst)
    out = {}
    for u, nu in adj.items():
        pairs = sum(len(nu & adj[v]) for v in nu)  # each triangle at u seen twice
        out[u] = pairs // 2
    return out
