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

__all__ = [
    "count_triangles",
    "triangles_per_vertex",
    "neighbour_sets",
    "edge_support",
    "clustering",
    "transitivity",
    "k_truss_edges",
    "trussness",
    "triangle_list",
]


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


def edge_support(src, dst) -> dict:
    """Triangles on each undirected edge, keyed by ``frozenset({u, v})``.

    Support of {u, v} is |N(u) ∩ N(v)|: every common neighbour closes one
    triangle with the edge.

    >>> sorted(edge_support([0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3]).values())  # K4
    [2, 2, 2, 2, 2, 2]
    """
    adj = neighbour_sets(src, dst)
    return {frozenset((u, v)): len(nu & adj[v]) for u, nu in adj.items() for v in nu}


def clustering(src, dst) -> dict:
    """Local clustering: 2 T(v) / (d(v) (d(v) - 1)), and 0.0 below degree 2.

    >>> clustering([0, 1, 2, 2], [1, 2, 0, 3])  # a triangle with a pendant edge at 2
    {0: 1.0, 1: 1.0, 2: 0.3333333333333333, 3: 0.0}
    """
    adj = neighbour_sets(src, dst)
    per_vertex = triangles_per_vertex(src, dst)
    out = {}
    for v, nv in adj.items():
        d = len(nv)
        out[v] = 2 * per_vertex[v] / (d * (d - 1)) if d >= 2 else 0.0
    return out


def transitivity(src, dst) -> float:
    """3 × triangles / wedges (paths of length 2 counted at their middle); 0.0 without triangles.

    >>> transitivity([0, 1, 2, 2], [1, 2, 0, 3])  # 1 triangle, wedges 1 + 1 + 3
    0.6
    """
    adj = neighbour_sets(src, dst)
    n_wedges = sum(len(nv) * (len(nv) - 1) // 2 for nv in adj.values())
    n_triangles = count_triangles(src, dst)
    return 3 * n_triangles / n_wedges if n_triangles else 0.0


def k_truss_edges(src, dst, k: int) -> set:
    """Edges of the k-truss, as ``frozenset({u, v})``: NetworkX's loop, on sets.

    Remove every edge in fewer than k - 2 triangles, and repeat until none is
    removed (Cohen's definition; NetworkX's ``k_truss``).

    >>> len(k_truss_edges([0, 0, 0, 1, 1, 2, 3], [1, 2, 3, 2, 3, 3, 4], 4))  # K4 + a tail
    6
    """
    adj = {v: set(nv) for v, nv in neighbour_sets(src, dst).items()}
    while True:
        weak = [(u, v) for u, nu in adj.items() for v in nu if len(nu & adj[v]) < k - 2]
        if not weak:
            break
        for u, v in weak:
            adj[u].discard(v)
            adj[v].discard(u)
    return {frozenset((u, v)) for u, nu in adj.items() for v in nu}


def trussness(src, dst) -> dict:
    """The largest k whose k-truss holds each edge (at least 2), keyed by ``frozenset``.

    Straight from the definition: the k-truss for k = 3, 4, ... until it is empty.

    >>> sorted(trussness([0, 0, 0, 1, 1, 2, 3], [1, 2, 3, 2, 3, 3, 4]).values())  # K4 + a tail
    [2, 4, 4, 4, 4, 4, 4]
    """
    out = {frozenset((u, v)): 2 for u, nu in neighbour_sets(src, dst).items() for v in nu}
    k = 3
    while True:
        edges = k_truss_edges(src, dst, k)
        if not edges:
            return out
        for e in edges:
            out[e] = k
        k += 1


def triangle_list(src, dst) -> list:
    """Every triangle once, as a tuple ``(u, v, w)`` with ``u < v < w``, in sorted order.

    >>> triangle_list([0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3])  # K4
    [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)]
    """
    adj = neighbour_sets(src, dst)
    return sorted((u, v, w) for u in adj for v in adj[u] if v > u
                  for w in adj[u] & adj[v] if w > v)
