"""Weighted clustering, as NetworkX computes it, undirected and directed.

    (src, dst, w) | nx.Graph / nx.DiGraph ──weighted_graph──▶ CSRGraph + a factor per edge
    factors ──reordered to the degree-oriented CSR──▶ weighted kernel (cpu | gpu)
        ─▶ S(x) = sum over x's triangles of q_xy q_xz q_yz
    S + degrees ─▶ clustering, average clustering

NetworkX's weighted clustering (Saramäki et al. 2007; Fagiolo 2007 for
directed graphs) scores each triangle by the geometric mean of its
normalised weights ŵ = w / max(w), the maximum taken over every edge of the
graph, self-loops included. Since (ŵ_xy ŵ_xz ŵ_yz)^(1/3) = ŵ_xy^(1/3)
ŵ_xz^(1/3) ŵ_yz^(1/3), each edge carries one factor q = ŵ^(1/3), computed once,
and a kernel only multiplies. In a directed graph the triangle counts every
choice of one arc per pair, so an edge's factor is the sum of its arcs'
(one arc or two). Then, with d the degree, d_tot the in- plus out-degree and
d_rec the reciprocated neighbours:

- undirected: c(x) = 2 S(x) / (d (d - 1));
- directed: c(x) = S(x) / (d_tot (d_tot - 1) - 2 d_rec);

and 0 where S(x) is 0. A repeated edge or arc keeps its last weight, as
adding it again to a NetworkX graph does. NetworkX takes the cube root of each
product and sums in its own order; the results agree to a few units in the
last place, not bit for bit, except near zero (a product that underflows in
NetworkX, terms of negative weights that cancel: docs/api.md).

Examples
--------
A triangle with weights 1, 1 and 8 and a pendant edge of weight 1 at vertex
2: ŵ = 1/8, 1/8, 1 and 1/8, the triangle's term is (1/8 · 1/8 · 1)^(1/3) = 1/4.

>>> from tricount.weighted import weighted_clustering
>>> weighted_clustering(([0, 1, 2, 2], [1, 2, 0, 3], [1, 1, 8, 1]), backend="cpu").round(6)
array([0.25    , 0.25    , 0.083333, 0.      ])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tricount.backends import backend_for
from tricount.directed import (DirectedGraph, arc_degrees, average_in_order, check_directed_object,
                               direction_mask)
from tricount.errors import InvalidEdgesError, UnsupportedGraphError
from tricount.graph import CSRGraph
from tricount.inputs import graph_and_arcs, is_networkx
from tricount.prep.edge_ids import edge_keys
from tricount.prep.xp import array_namespace, to_host

__all__ = [
    "WeightedGraph",
    "weighted_graph",
    "last_values",
    "weighted_triangle_sums",
    "weighted_clustering",
    "weighted_average_clustering",
]


@dataclass(frozen=True)
class WeightedGraph:
    """A graph with one factor per undirected edge, aligned with ``graph.edges()``.

    ``factors[i]`` (float64, the graph's namespace) multiplies every triangle
    term through edge ``i``: ŵ^(1/3), or for a directed graph the sum of that
    over the edge's arcs. ``mask`` is the direction mask of a directed graph
    (see :mod:`tricount.directed`), None for an undirected one.
    """

    graph: CSRGraph
    factors: object
    max_weight: float
    mask: object = None

    @property
    def directed(self) -> bool:
        return self.mask is not None


def last_values(keys, values):
    """``(unique keys, sorted; the value of each key's last occurrence)``, NumPy or CuPy.

    >>> last_values(np.array([5, 3, 5]), np.array([1.0, 2.0, 7.0]))
    (array([3, 5]), array([2., 7.]))
    """
    xp = array_namespace(keys, values)
    if keys.shape[0] == 0:
        return keys, values
    position = xp.arange(keys.shape[0], dtype=xp.int64)
    order = xp.lexsort(xp.stack([position, keys.astype(xp.int64)]))  # by key, then position
    keys = keys[order]
    last = xp.ones(keys.shape[0], dtype=xp.bool_)
    last[:-1] = keys[1:] != keys[:-1]
    return keys[last], values[order[last]]


def weighted_graph(edges, *, weight="weight", directed: bool | None = None,
                   vertices: str = "edges", name=None) -> WeightedGraph:
    """Build a :class:`WeightedGraph` from the weighted edges of any graph a user holds.

    Parameters
    ----------
    edges : graph-like
        A NetworkX or igraph graph (missing weights count as 1, as in
        NetworkX), ``(src, dst, weights)``, a table with a weight column, a
        matrix (its values), ... (see :mod:`tricount.inputs`).
    weight : str or array_like
        The edge attribute or column, or one weight per input edge.
    directed : bool, optional
        Read the edges as arcs. By default a graph object says itself, and
        anything else is undirected.
    vertices : {"edges", "range"}
        As for :func:`tricount.inputs.as_graph`.
    """
    if isinstance(edges, WeightedGraph):
        return edges
    if is_networkx(edges) and edges.is_multigraph():
        raise UnsupportedGraphError("weighted clustering is not defined for multigraphs "
                                    "(NetworkX refuses them too)")
    if directed:
        check_directed_object(edges)
    g, src, dst, values, says_directed = graph_and_arcs(edges, name=name, weight=weight,
                                                        vertices=vertices)
    directed = says_directed if directed is None else bool(directed)
    xp = g.xp
    n = g.n_vertices
    lo, hi = g.edges()
    if directed:  # one weight per arc (src, dst)
        keys, last = last_values(edge_keys(src, dst, n), values)
    else:  # one weight per pair {src, dst}
        keys, last = last_values(edge_keys(xp.minimum(src, dst), xp.maximum(src, dst), n),
                                 values)
    # NetworkX: the largest weight of any edge, self-loops included; 1 for no edges.
    max_weight = float(last.max()) if last.shape[0] else 1.0
    if not bool(xp.isfinite(last).all()):
        raise InvalidEdgesError("edge weights must be finite numbers, got NaN or infinity")
    if max_weight == 0:
        raise InvalidEdgesError("weighted clustering divides the weights by the largest one, "
                                "which is 0 here (NetworkX raises ZeroDivisionError on such a "
                                "graph once it holds a triangle)")
    cube_root = xp.cbrt(last / max_weight)
    if not directed:
        factors = cube_root[xp.searchsorted(keys, edge_keys(lo, hi, n))]
        return WeightedGraph(g, factors, max_weight)
    factors = _arc_factor(keys, cube_root, edge_keys(lo, hi, n)) \
        + _arc_factor(keys, cube_root, edge_keys(hi, lo, n))
    return WeightedGraph(g, factors, max_weight, direction_mask(lo, hi, n, src, dst))


def _arc_factor(keys, cube_root, wanted):
    """``cube_root`` of each arc key in ``wanted``, 0 where the arc is absent."""
    xp = array_namespace(keys, wanted)
    at = xp.minimum(xp.searchsorted(keys, wanted), keys.shape[0] - 1)
    return xp.where(keys[at] == wanted, cube_root[at], 0.0)


def weighted_triangle_sums(edges, *, weight="weight", directed: bool | None = None,
                           backend: str = "auto") -> np.ndarray:
    """S(x) = the sum over x's triangles of the product of their edge factors (float64,
    aligned with ``vertex_ids``); see the module doc."""
    return _sums(weighted_graph(edges, weight=weight, directed=directed), backend)


def _sums(wg: WeightedGraph, backend: str) -> np.ndarray:
    engine, _reason = backend_for(backend, wg.graph)
    return engine.weighted_sums(wg.graph, wg.factors)


def weighted_clustering(edges, *, weight="weight", directed: bool | None = None,
                        backend: str = "auto") -> np.ndarray:
    """Weighted clustering coefficient of every vertex (float64, aligned with ``vertex_ids``).

    Parameters
    ----------
    edges : graph-like or WeightedGraph
        As for :func:`weighted_graph`.
    weight : str or array_like
        The edge attribute or column (NetworkX: 1 where absent), or one weight per edge.
    directed : bool, optional
        Read the edges as arcs (a NetworkX or igraph graph says itself).
    backend : {"auto", "cpu", "gpu", "reference"}

    Examples
    --------
    Equal weights give the unweighted clustering: K4 has 1 everywhere.

    >>> from tricount.weighted import weighted_clustering
    >>> weighted_clustering(([0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3], [2.0] * 6), backend="cpu")
    array([1., 1., 1., 1.])
    """
    wg = weighted_graph(edges, weight=weight, directed=directed)
    sums = _sums(wg, backend)
    out = np.zeros(sums.shape[0], dtype=np.float64)
    if wg.directed:
        out_only, in_only, mutual = arc_degrees(DirectedGraph(wg.graph, wg.mask))
        total = out_only + in_only + 2 * mutual
        pairs = total * (total - 1) - 2 * mutual
    else:
        deg = to_host(wg.graph.degrees)
        pairs = deg * (deg - 1)
    scale = 1.0 if wg.directed else 2.0
    np.divide(scale * sums, pairs, out=out, where=sums != 0)
    return out


def weighted_average_clustering(edges, *, weight="weight", directed: bool | None = None,
                                count_zeros: bool = True, backend: str = "auto") -> float:
    """Mean of :func:`weighted_clustering`, summed in vertex order as NetworkX sums it.

    Raises ``ZeroDivisionError`` when there is nothing to average, as NetworkX does.

    >>> from tricount.weighted import weighted_average_clustering
    >>> weighted_average_clustering(([0, 1, 2], [1, 2, 0], [1.0, 1.0, 1.0]), backend="cpu")
    1.0
    """
    values = weighted_clustering(edges, weight=weight, directed=directed, backend=backend)
    return average_in_order(values, count_zeros)
