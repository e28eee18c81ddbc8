"""Beyond the total: triangles per vertex and per edge, clustering, transitivity, k-truss.

    graph ──as_graph──▶ CSRGraph ──get_backend──▶ cpu | gpu | reference
    per vertex:  degree-oriented CSR ─▶ per_vertex kernel (each corner credited once)
    per edge:    degree-oriented CSR ─▶ edge_support kernel ─▶ reordered to graph.edges()
    k-truss:     edge support + symmetric CSR with edge ids ─▶ level-by-level peeling

Semantics are NetworkX's: self-loops and repeated edges are ignored, an
isolated vertex lies in no triangle and has clustering 0, and a graph with no
triangles has transitivity 0. Results are NumPy arrays aligned with
``graph.vertex_ids`` (per vertex) or ``graph.edges()`` (per edge), whichever
backend ran; :func:`vertex_dict` and :func:`edge_dict` key them by original id.
Every function takes a :class:`~tricount.CSRGraph`, a file path or a
``(src, dst)`` pair, like :func:`tricount.count`; pass a graph when you need
to read the alignment (for a ``(src, dst)`` pair it is the sorted distinct ids).
"""

from __future__ import annotations

import numpy as np

from tricount.api import as_graph, count
from tricount.backends import get_backend
from tricount.errors import InvalidArgumentError, check_count
from tricount.graph import CSRGraph
from tricount.prep.xp import array_namespace, to_host

__all__ = [
    "triangles",
    "edge_support",
    "clustering",
    "average_clustering",
    "transitivity",
    "k_truss",
    "truss_decomposition",
    "vertex_dict",
    "edge_dict",
]


def _prepare(graph, backend):
    engine, _reason = get_backend(backend)  # a bad backend name fails before any file is read
    g, _ = as_graph(graph, device="gpu" if engine.name == "gpu" else "cpu")
    return g, engine


def triangles(graph, *, backend: str = "auto") -> np.ndarray:
    """Triangles at every vertex (int64), aligned with ``graph.vertex_ids``.

    Each triangle is counted at each of its three corners, so the counts sum
    to 3 × the number of triangles.

    Parameters
    ----------
    graph : CSRGraph, str, os.PathLike or (src, dst)
    backend : {"auto", "cpu", "gpu", "reference"}
        ``auto`` uses the GPU when one is usable, else the CPU.

    Examples
    --------
    K4 has 4 triangles and each vertex lies in 3 of them:

    >>> import tricount
    >>> g = tricount.Graph.from_edges([0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3])
    >>> tricount.triangles(g, backend="cpu")
    array([3, 3, 3, 3])

    The ×3 relation: 12 = 3 × 4.

    >>> int(tricount.triangles(g, backend="cpu").sum()) == 3 * tricount.count_triangles(g)
    True

    Keyed by original id (a bowtie: two triangles sharing vertex 12):

    >>> g = tricount.Graph.from_edges([10, 10, 11, 12, 12, 13], [11, 12, 12, 13, 14, 14])
    >>> tricount.vertex_dict(g, tricount.triangles(g, backend="cpu"))
    {10: 1, 11: 1, 12: 2, 13: 1, 14: 1}
    """
    g, chosen = _prepare(graph, backend)
    return chosen.per_vertex(g)


def edge_support(graph, *, backend: str = "auto") -> np.ndarray:
    """Triangles on every undirected edge (int64), aligned with ``graph.edges()``.

    Each triangle adds one to each of its three edges, so the values sum to
    3 × the number of triangles.

    Examples
    --------
    K4 minus the edge {0, 1}: the edge {2, 3} closes two triangles ({0, 2, 3}
    and {1, 2, 3}), every other edge one.

    >>> import tricount
    >>> g = tricount.Graph.from_edges([0, 0, 1, 1, 2], [2, 3, 2, 3, 3])
    >>> tricount.edge_dict(g, tricount.edge_support(g, backend="cpu"))
    {(0, 2): 1, (0, 3): 1, (1, 2): 1, (1, 3): 1, (2, 3): 2}
    """
    g, chosen = _prepare(graph, backend)
    return chosen.edge_support(g)


def clustering(graph, *, backend: str = "auto") -> np.ndarray:
    """Local clustering coefficient of every vertex (float64), aligned with ``graph.vertex_ids``.

    c(v) = 2 T(v) / (d(v) (d(v) - 1)) where T(v) is the triangles at v and d(v)
    its degree (self-loops excluded); 0 when d(v) < 2.

    Examples
    --------
    A triangle {0, 1, 2} with a pendant edge {2, 3}: vertex 2 has 1 triangle
    among its C(3, 2) = 3 neighbour pairs.

    >>> import tricount
    >>> g = tricount.Graph.from_edges([0, 1, 2, 2], [1, 2, 0, 3])
    >>> tricount.clustering(g, backend="cpu").round(4)
    array([1.    , 1.    , 0.3333, 0.    ])
    """
    g, chosen = _prepare(graph, backend)
    return _clustering_from(g, chosen.per_vertex(g))


def _clustering_from(g, per_vertex) -> np.ndarray:
    deg = to_host(g.degrees).astype(np.float64)
    pairs = deg * (deg - 1.0)  # exact in float64 while d < 9.4e7
    out = np.zeros(g.n_vertices, dtype=np.float64)
    np.divide(2.0 * per_vertex, pairs, out=out, where=per_vertex > 0)
    return out


def average_clustering(graph, *, count_zeros: bool = True, backend: str = "auto") -> float:
    """Mean of the local clustering coefficients.

    Parameters
    ----------
    count_zeros : bool
        With False, average only over the vertices whose clustering is not 0.

    Raises
    ------
    ZeroDivisionError
        When there is no vertex to average over (an empty graph, or no vertex
        with clustering above 0 and ``count_zeros=False``), as NetworkX does.

    Examples
    --------
    >>> import tricount
    >>> g = tricount.Graph.from_edges([0, 1, 2, 2], [1, 2, 0, 3])
    >>> round(tricount.average_clustering(g, backend="cpu"), 4)  # (1 + 1 + 1/3 + 0) / 4
    0.5833
    >>> round(tricount.average_clustering(g, count_zeros=False, backend="cpu"), 4)
    0.7778
    """
    return _average(clustering(graph, backend=backend), count_zeros)


def _average(values, count_zeros: bool) -> float:
    if not count_zeros:
        values = values[values != 0]
    if values.shape[0] == 0:
        raise ZeroDivisionError(
            "average_clustering of no vertices: the graph is empty"
            + ("" if count_zeros else " or every clustering coefficient is 0")
        )
    return float(values.sum()) / values.shape[0]


def transitivity(graph, *, backend: str = "auto") -> float:
    """3 × triangles / wedges, the global clustering coefficient; 0.0 without triangles.

    A wedge is a path of length 2, counted at its middle vertex: a vertex of
    degree d is the middle of d (d - 1) / 2 wedges. Uses the backend's fastest
    total count, not the per-vertex counts.

    Examples
    --------
    >>> import tricount
    >>> tricount.transitivity(([0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3]), backend="cpu")  # K4
    1.0
    >>> tricount.transitivity(([0, 1, 2, 2], [1, 2, 0, 3]), backend="cpu")  # 3 × 1 / 5
    0.6
    """
    g, chosen = _prepare(graph, backend)
    return _transitivity(count(g, backend=chosen.name).n_triangles, _n_wedges(g))


def _transitivity(n_triangles: int, n_wedges: int) -> float:
    return 3 * n_triangles / n_wedges if n_triangles else 0.0  # exact integers, one rounding


def _n_wedges(g) -> int:
    deg = to_host(g.degrees)
    return int((deg * (deg - 1) // 2).sum())  # int64: sum of d^2 <= 2m · max degree


def truss_decomposition(graph, *, backend: str = "auto") -> np.ndarray:
    """Trussness of every edge (int32), aligned with ``graph.edges()``.

    The trussness of an edge is the largest k such that the edge lies in the
    k-truss (see :func:`k_truss`); an edge in no triangle has trussness 2.
    Edges are peeled level by level: every edge whose support has fallen to
    the current level is removed in one parallel step (Kabir & Madduri's PKT).

    Examples
    --------
    K4 with a tail edge {3, 4}: the K4 edges have trussness 4, the tail 2.

    >>> import tricount
    >>> g = tricount.Graph.from_edges([0, 0, 0, 1, 1, 2, 3], [1, 2, 3, 2, 3, 3, 4])
    >>> tricount.truss_decomposition(g, backend="cpu")
    array([4, 4, 4, 4, 4, 4, 2], dtype=int32)
    """
    g, chosen = _prepare(graph, backend)
    trussness, _removed = chosen.peel(g)
    return trussness


def k_truss(graph, k: int, *, backend: str = "auto") -> CSRGraph:
    """The k-truss: the largest subgraph whose every edge lies in k - 2 of its triangles.

    As NetworkX's ``k_truss`` (Cohen's definition): vertices left with no
    edge are dropped, so for k <= 2 this is the graph without its isolated
    vertices. The result keeps the original vertex ids in ``vertex_ids``.

    Parameters
    ----------
    k : int
        The order of the truss.

    Examples
    --------
    K4 with a tail edge {3, 4}: the 4-truss is the K4; the 5-truss is empty.

    >>> import tricount
    >>> g = tricount.Graph.from_edges([0, 0, 0, 1, 1, 2, 3], [1, 2, 3, 2, 3, 3, 4])
    >>> h = tricount.k_truss(g, 4, backend="cpu")
    >>> h.vertex_ids.tolist(), h.n_edges
    ([0, 1, 2, 3], 6)
    >>> tricount.k_truss(g, 5, backend="cpu").n_vertices
    0
    """
    k = check_count(k, "k", minimum=None)
    g, chosen = _prepare(graph, backend)
    if k <= 2 or g.n_edges == 0:
        keep = np.ones(g.n_edges, dtype=bool)
    else:
        _trussness, removed = chosen.peel(g, stop_level=k - 2)
        keep = removed == 0
    return _edge_subgraph(g, keep, f"{g.name} {k}-truss" if g.name else None)


def _edge_subgraph(g, keep, name) -> CSRGraph:
    """The subgraph of the kept edges and their endpoints, original ids carried over."""
    xp = g.xp
    lo, hi = g.edges()
    keep = xp.asarray(keep)
    lo, hi = lo[keep], hi[keep]
    used = xp.zeros(g.n_vertices, dtype=xp.bool_)
    used[lo] = True
    used[hi] = True
    # Renumbering by rank keeps lo < hi and the (lo, hi) order CSRGraph expects.
    new_id = xp.cumsum(used, dtype=xp.int64) - 1
    vertices = xp.flatnonzero(used)
    ids_xp = array_namespace(g.vertex_ids)
    vertex_ids = g.vertex_ids[ids_xp.asarray(to_host(vertices)) if ids_xp is np else vertices]
    return CSRGraph(new_id[lo].astype(lo.dtype), new_id[hi].astype(hi.dtype),
                    int(vertices.shape[0]), vertex_ids=vertex_ids, name=name)


def _aligned(graph, values, what: str) -> list:
    """``values`` as a list, when ``graph`` is a graph and ``values`` has one entry per ``what``."""
    if not isinstance(graph, CSRGraph):
        raise InvalidArgumentError(
            f"graph must be a tricount.Graph, got {type(graph).__name__}")
    length = graph.n_vertices if what == "vertex" else graph.n_edges
    values = to_host(values)
    if values.ndim != 1 or values.shape[0] != length:
        raise InvalidArgumentError(
            f"values must have one entry per {what} ({length}), got shape {values.shape}")
    return values.tolist()


def vertex_dict(graph: CSRGraph, values) -> dict:
    """``{original vertex id: value}`` for an array aligned with ``graph.vertex_ids``.

    >>> import tricount
    >>> g = tricount.Graph.from_edges([7, 8, 9], [8, 9, 7])
    >>> tricount.vertex_dict(g, tricount.triangles(g, backend="cpu"))
    {7: 1, 8: 1, 9: 1}

    An array of another length is refused, not cut short:

    >>> tricount.vertex_dict(g, [1, 2])
    Traceback (most recent call last):
        ...
    tricount.errors.InvalidArgumentError: values must have one entry per vertex (3), got shape (2,)
    """
    values = _aligned(graph, values, "vertex")
    return dict(zip(to_host(graph.vertex_ids).tolist(), values))


def edge_dict(graph: CSRGraph, values) -> dict:
    """``{(id_u, id_v): value}`` for an array aligned with ``graph.edges()``.

    Keys use the original ids, in the order ``graph.edges()`` stores them (the
    smaller compact id first).
    """
    values = _aligned(graph, values, "edge")
    ids = to_host(graph.vertex_ids)
    lo, hi = (to_host(a) for a in graph.edges())
    return dict(zip(zip(ids[lo].tolist(), ids[hi].tolist()), values))
