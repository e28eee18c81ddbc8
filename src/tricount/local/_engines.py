"""The three local computations on each backend, as NumPy arrays aligned with the graph.

``per_vertex`` is indexed by compact vertex id (aligned with ``graph.vertex_ids``);
``edge_support`` and ``peel`` by undirected edge id (aligned with
``graph.edges()``). ``backend`` is already resolved: ``cpu``, ``gpu`` or
``reference``.
"""

from __future__ import annotations

import numpy as np

from tricount.local._prep import adjacency_with_edge_ids, oriented_edge_ids
from tricount.prep.xp import to_host

__all__ = ["per_vertex", "edge_support", "peel"]


def _on(graph, backend):
    """The graph with its arrays where ``backend`` computes."""
    if backend == "gpu":
        import cupy

        return graph.to_device(cupy)
    return graph.to_device(np)


def per_vertex(graph, backend: str) -> np.ndarray:
    """Triangles at every vertex (int64)."""
    if backend == "reference":
        from tricount import reference

        lo, hi = (to_host(a).tolist() for a in graph.edges())
        counts = reference.triangles_per_vertex(lo, hi)
        out = np.zeros(graph.n_vertices, dtype=np.int64)
        for v, t in counts.items():
            out[v] = t
        return out
    g = _on(graph, backend)
    if backend == "gpu":
        from tricount.gpu.per_vertex import per_vertex_counts

        return to_host(per_vertex_counts(g.oriented()))
    from tricount.cpu.per_vertex import per_vertex_bitmap

    return per_vertex_bitmap(g.oriented())


def _support_on_device(g, backend):
    """Edge support in ``g``'s namespace, aligned with ``g.edges()``."""
    oriented = g.oriented()
    if backend == "gpu":
        from tricount.gpu.edge_support import edge_support_counts as kernel
    else:
        from tricount.cpu.edge_support import edge_support_merge as kernel
    by_position = kernel(oriented)
    out = g.xp.empty_like(by_position)
    out[oriented_edge_ids(g, oriented)] = by_position
    return out


def edge_support(graph, backend: str) -> np.ndarray:
    """Triangles on every undirected edge (int64)."""
    if backend == "reference":
        from tricount import reference

        lo, hi = (to_host(a).tolist() for a in graph.edges())
        support = reference.edge_support(lo, hi)
        return np.array([support[frozenset((u, v))] for u, v in zip(lo, hi)], dtype=np.int64)
    return to_host(_support_on_device(_on(graph, backend), backend))


def peel(graph, backend: str, *, stop_level=None):
    """Trussness of every edge (int32), peeling levels below ``stop_level`` only.

    Returns ``(trussness, removed)``: edges still present when the peeling
    stopped have ``removed == 0`` and trussness 0 (they form the
    ``(stop_level + 2)``-truss).
    """
    if backend == "reference":
        from tricount import reference

        lo, hi = (to_host(a).tolist() for a in graph.edges())
        level = reference.trussness(lo, hi)
        trussness = np.array([level[frozenset((u, v))] for u, v in zip(lo, hi)], dtype=np.int32)
        removed = np.ones(trussness.shape[0], dtype=np.uint8)
        if stop_level is not None:
            removed[trussness >= stop_level + 2] = 0
            trussness[removed == 0] = 0
        return trussness, removed
    from tricount.local._truss import peel as peel_levels

    g = _on(graph, backend)
    if backend == "gpu":
        from tricount.gpu.truss import peel_frontier
    else:
        from tricount.cpu.truss import peel_frontier
    support = _support_on_device(g, backend).astype(np.int32)  # support < max degree < 2**31
    adjacency = adjacency_with_edge_ids(g)
    lo, hi = g.edges()
    trussness, removed = peel_levels((adjacency.indptr, adjacency.cols, adjacency.eid), lo, hi,
                                     support, peel_frontier=peel_frontier, stop_level=stop_level)
    return to_host(trussness), to_host(removed)
