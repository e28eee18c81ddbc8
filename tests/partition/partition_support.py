"""An oracle for partitioned counts, independent of tricount.partition: ranks and apexes from
Python sets of neighbours (tricount.reference), never from the kernels under test."""

from __future__ import annotations

from collections import Counter

import numpy as np

from tricount import reference


def graph_edges(graph):
    """A CSRGraph's edges as Python lists of compact ids."""
    lo, hi = graph.edges()
    return np.asarray(lo).tolist(), np.asarray(hi).tolist()


def oracle_ranks(graph) -> dict:
    """Rank of every compact vertex in (degree, id) order, from neighbour sets."""
    adj = reference.neighbour_sets(*graph_edges(graph))
    degree = {v: len(adj.get(v, ())) for v in range(graph.n_vertices)}
    order = sorted(range(graph.n_vertices), key=lambda v: (degree[v], v))
    return {v: r for r, v in enumerate(order)}


def triangles_by_apex(graph) -> Counter:
    """How many triangles have their highest-ranked vertex at each rank (the apex)."""
    adj = reference.neighbour_sets(*graph_edges(graph))
    rank = oracle_ranks(graph)
    out = Counter()
    for u, nu in adj.items():
        for v in nu:
            if v <= u:
                continue
            for w in nu & adj[v]:
                if w > v:
                    out[max(rank[u], rank[v], rank[w])] += 1
    return out


def in_range(by_apex: Counter, lo: int, hi: int) -> int:
    return sum(c for r, c in by_apex.items() if lo <= r < hi)
