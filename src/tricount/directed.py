"""Directed triangles: cycles and feed-forward loops, directed clustering, the triad census.

    (src, dst) | nx.DiGraph ──directed_graph──▶ DirectedGraph = CSRGraph + direction mask
    mask ──reordered to the degree-oriented CSR──▶ directed kernel (cpu | gpu)
        ─▶ per vertex: cycles, and times as source / middle / sink of a feed-forward loop
        ─▶ histogram of the 64 arc codes of the triangles
    per vertex + total and reciprocated degrees ─▶ directed clustering (Fagiolo 2007)
    code histogram + degree formulas ─▶ triadic census (16 types)

A directed graph is kept as its undirected simple graph (each pair of
neighbours once, self-loops dropped, repeated arcs merged) and, per undirected
edge ``(lo, hi)`` of ``graph.edges()``, a 2-bit *direction mask*: bit 0 is the
arc lo -> hi, bit 1 the arc hi -> lo (3: reciprocated). Every triangle of the
undirected graph is found once by the undirected kernels' rule, and its three
masks say which directed triangles it holds. Results are aligned with
``graph.vertex_ids``, as in :mod:`tricount.local`.

Examples
--------
A directed 3-cycle plus the chord 0 -> 2 reversed as 2 -> 0 is still one
cycle; adding 0 -> 2 makes a feed-forward loop 0 -> 1 -> 2 with 0 -> 2 as well:

>>> from tricount.directed import directed_triangle_counts
>>> r = directed_triangle_counts(([0, 1, 2], [1, 2, 0]), backend="cpu")
>>> r.n_cycles, r.n_transitive
(1, 0)
>>> r = directed_triangle_counts(([0, 1, 2, 0], [1, 2, 0, 2]), backend="cpu")
>>> r.n_cycles, r.n_transitive
(1, 1)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tricount.backends import backend_for
from tricount.errors import UnsupportedGraphError
from tricount.graph import CSRGraph
from tricount.inputs import graph_and_arcs, is_networkx
from tricount.prep.edge_ids import edge_keys
from tricount.prep.xp import array_namespace, to_host

__all__ = [
    "DirectedGraph",
    "DirectedTriangles",
    "TRIAD_NAMES",
    "directed_graph",
    "direction_mask",
    "directed_triangle_counts",
    "directed_clustering",
    "directed_average_clustering",
    "triadic_census",
    "triad_name",
]

#: The 16 isomorphism types of a triad (three vertices and the arcs among them),
#: in MAN notation (mutual, asymmetric, null dyads) and the order NetworkX reports them.
TRIAD_NAMES = ("003", "012", "102", "021D", "021U", "021C", "111D", "111U", "030T", "030C",
               "201", "120D", "120U", "120C", "210", "300")

#: Arc (x, y) -> bit of a triad code over the vertices 0, 1, 2 (the kernels' layout:
#: the three 2-bit masks of the edges 01, 02, 12, lower vertex first).
_ARC_BITS = {(0, 1): 1, (1, 0): 2, (0, 2): 4, (2, 0): 8, (1, 2): 16, (2, 1): 32}


@dataclass(frozen=True)
class DirectedGraph:
    """A directed simple graph: its undirected graph and a direction mask per edge.

    ``mask[i]`` (uint8, in the graph's namespace) describes ``graph.edges()[i] =
    (lo, hi)``: bit 0 set when the arc lo -> hi exists, bit 1 when hi -> lo does.
    """

    graph: CSRGraph
    mask: object

    def to_device(self, xp) -> "DirectedGraph":
        if xp is self.graph.xp:
            return self
        mask = xp.asarray(self.mask) if xp is not np else to_host(self.mask)
        return DirectedGraph(self.graph.to_device(xp), mask)


@dataclass(frozen=True, eq=False)  # arrays inside: == would be ambiguous
class DirectedTriangles:
    """Directed triangles per vertex (int64, aligned with ``vertex_ids``) and in total.

    ``cycles`` sums to 3 × ``n_cycles``; ``sources``, ``middles`` and
    ``sinks`` each sum to ``n_transitive`` (every feed-forward loop s -> m -> t,
    s -> t has one vertex in each role). ``codes`` is the number of triangles
    of each 6-bit arc code (see :func:`triad_name`).
    """

    vertex_ids: object
    cycles: np.ndarray
    sources: np.ndarray
    middles: np.ndarray
    sinks: np.ndarray
    codes: np.ndarray
    n_cycles: int
    n_transitive: int

    @property
    def transitive(self) -> np.ndarray:
        """Feed-forward loops at each vertex in any role (sums to 3 × ``n_transitive``)."""
        return self.sources + self.middles + self.sinks

    @property
    def fagiolo(self) -> np.ndarray:
        """Fagiolo's directed triangles T_x = ((A + A^T)^3)_xx / 2 at each vertex."""
        return self.cycles + self.transitive


# -- the representation --------------------------------------------------------------------


def direction_mask(lo, hi, n_vertices: int, src, dst):
    """The direction mask (uint8) of each undirected edge ``(lo[i], hi[i])``.

    ``lo``/``hi`` are a graph's sorted edges (``graph.edges()``), ``src``/``dst``
    the arcs in the same compact ids; self-loops are ignored and every
    non-loop arc must be one of the edges. NumPy or CuPy.

    >>> direction_mask(np.array([0, 1]), np.array([1, 2]), 3,
    ...                np.array([0, 1, 2, 1, 1]), np.array([1, 0, 1, 2, 1]))
    array([3, 3], dtype=uint8)
    """
    xp = array_namespace(lo, hi, src, dst)
    m = int(lo.shape[0])
    arc = src != dst
    src, dst = src[arc], dst[arc]
    keys = edge_keys(lo, hi, n_vertices)  # sorted: graph.edges() is sorted by (lo, hi)
    at = xp.searchsorted(keys, edge_keys(xp.minimum(src, dst), xp.maximum(src, dst), n_vertices))
    forward = xp.zeros(m, dtype=xp.uint8)
    backward = xp.zeros(m, dtype=xp.uint8)
    forward[at[src < dst]] = 1  # repeated arcs write the same value: no race to lose
    backward[at[src > dst]] = 2
    return forward | backward


def check_directed_object(edges) -> None:
    """Refuse a NetworkX or igraph graph that says it is undirected: its edges have no
    direction to read (the order it lists them in is not one)."""
    if (is_networkx(edges) or hasattr(edges, "get_edgelist")) and not edges.is_directed():
        raise UnsupportedGraphError(
            f"directed triangles need a directed graph, and this {type(edges).__name__} is "
            "undirected: count it as it is (tricount.triangles, or tricount.clustering "
            "without directed=True), or pass a directed graph")


def directed_graph(edges, *, vertices: str = "edges", name=None) -> DirectedGraph:
    """Build a :class:`DirectedGraph` from the arcs of any graph a user holds.

    ``edges``: a NetworkX ``DiGraph``, a directed igraph graph, ``(src, dst)``,
    a table of arcs (``source`` -> ``target``), an ``(m, 2)`` array, a list
    of pairs, a matrix (row -> column), a path (its lines as written, a symmetric Matrix
    Market file's entries both ways, in the vertex set the file declares); see
    :mod:`tricount.inputs`. The vertices are the ids that occur, or every id
    ``0 .. max`` with ``vertices="range"`` (every node of a graph object); a
    graph object must be directed.
    """
    if isinstance(edges, DirectedGraph):
        return edges
    check_directed_object(edges)
    g, src, dst, _weights, _directed = graph_and_arcs(edges, vertices=vertices, name=name)
    lo, hi = g.edges()
    return DirectedGraph(g, direction_mask(lo, hi, g.n_vertices, src, dst))


# -- the computations ----------------------------------------------------------------------


def directed_triangle_counts(edges, *, backend: str = "auto") -> DirectedTriangles:
    """Directed 3-cycles and feed-forward loops, per vertex and in total.

    Parameters
    ----------
    edges : graph-like or DirectedGraph
        Arcs (see :func:`directed_graph`); self-loops are ignored and a repeated
        arc counts once.
    backend : {"auto", "cpu", "gpu", "reference"}

    Returns
    -------
    DirectedTriangles

    Examples
    --------
    All six arcs among three vertices: two 3-cycles and six feed-forward loops
    (every ordering s, m, t of the vertices); each vertex lies on both cycles
    and is source, middle and sink of two loops each, so Fagiolo's T is 8 = 2^3
    at each vertex:

    >>> from tricount.directed import directed_triangle_counts
    >>> r = directed_triangle_counts(([0, 1, 1, 2, 2, 0], [1, 0, 2, 1, 0, 2]), backend="cpu")
    >>> r.n_cycles, r.n_transitive, r.cycles.tolist(), r.sources.tolist()
    (2, 6, [2, 2, 2], [2, 2, 2])
    >>> r.fagiolo.tolist()
    [8, 8, 8]
    """
    dg = directed_graph(edges)
    counts, codes = _run(dg, backend, per_vertex=True)
    cycles, sources, middles, sinks = counts
    return DirectedTriangles(
        vertex_ids=dg.graph.vertex_ids, cycles=cycles, sources=sources, middles=middles,
        sinks=sinks, codes=codes, n_cycles=int(cycles.sum()) // 3,
        n_transitive=int(sources.sum()))


def _run(dg: DirectedGraph, backend: str, *, per_vertex: bool):
    """Host ``(counts (4, n), codes (64,))`` from the chosen backend."""
    engine, _reason = backend_for(backend, dg.graph)
    return engine.directed_counts(dg.graph, dg.mask, per_vertex=per_vertex)


def arc_degrees(dg: DirectedGraph):
    """Host int64 arrays: out-only, in-only and reciprocated neighbours of every vertex."""
    lo, hi = (to_host(a) for a in dg.graph.edges())
    mask = to_host(dg.mask)
    n = dg.graph.n_vertices

    def count(ids):
        return np.bincount(ids, minlength=n).astype(np.int64)

    out_only = count(lo[mask == 1]) + count(hi[mask == 2])
    in_only = count(hi[mask == 1]) + count(lo[mask == 2])
    mutual = count(lo[mask == 3]) + count(hi[mask == 3])
    return out_only, in_only, mutual


def directed_clustering(edges, *, backend: str = "auto") -> np.ndarray:
    """Directed clustering coefficient of every vertex (Fagiolo 2007), as NetworkX computes it.

    c(x) = T(x) / (d_tot(x) (d_tot(x) - 1) - 2 d_rec(x)) where T(x) is
    Fagiolo's directed triangles at x (:attr:`DirectedTriangles.fagiolo`),
    d_tot the in- plus out-degree and d_rec the reciprocated neighbours; 0
    where T(x) is 0. Float64, aligned with ``vertex_ids``; the same division
    of the same integers as NetworkX, so the same bits.

    Examples
    --------
    A 3-cycle: each vertex has d_tot = 2 and T = 1, so c = 1 / 2:

    >>> from tricount.directed import directed_clustering
    >>> directed_clustering(([0, 1, 2], [1, 2, 0]), backend="cpu")
    array([0.5, 0.5, 0.5])
    """
    dg = directed_graph(edges)
    counts, _codes = _run(dg, backend, per_vertex=True)
    return _clustering_from(dg, counts.sum(axis=0))


def _clustering_from(dg: DirectedGraph, fagiolo) -> np.ndarray:
    out_only, in_only, mutual = arc_degrees(dg)
    total = out_only + in_only + 2 * mutual
    # NetworkX: t / ((d_tot (d_tot - 1) - 2 d_rec) * 2) with t = 2 T, in integers.
    pairs = (total * (total - 1) - 2 * mutual) * 2
    out = np.zeros(fagiolo.shape[0], dtype=np.float64)
    np.divide(2 * fagiolo, pairs, out=out, where=fagiolo > 0)  # exact in float64 below 2^53
    return out


def directed_average_clustering(edges, *, count_zeros: bool = True,
                                backend: str = "auto") -> float:
    """Mean of :func:`directed_clustering`, summed in vertex order as NetworkX sums it.

    Raises ``ZeroDivisionError`` when there is nothing to average, as NetworkX does.

    A 3-cycle with the pendant arc 2 -> 3: vertex 2 has d_tot = 3, so c(2) = 1 / 6,
    and the mean is (1/2 + 1/2 + 1/6 + 0) / 4:

    >>> from tricount.directed import directed_average_clustering
    >>> directed_average_clustering(([0, 1, 2, 2], [1, 2, 0, 3]), backend="cpu")
    0.2916666666666667
    """
    return average_in_order(directed_clustering(edges, backend=backend), count_zeros)


def average_in_order(values: np.ndarray, count_zeros: bool) -> float:
    """``sum(values) / len(values)`` with Python's ``sum`` over the values in order, the
    sum NetworkX's ``average_clustering`` takes, so the result has the same bits."""
    values = values.tolist() if count_zeros else [v for v in values.tolist() if v != 0]
    if not values:
        raise ZeroDivisionError(  # as NetworkX raises it
            "average_clustering of no vertices: the graph has none, or nodes= names none"
            + ("" if count_zeros else ", or every clustering coefficient is 0 "
               "(count_zeros=False)"))
    return sum(values) / len(values)


# -- the triad census ----------------------------------------------------------------------


def _arcs(code: int) -> set:
    return {arc for arc, bit in _ARC_BITS.items() if code & bit}


def triad_name(code: int) -> str:
    """The MAN type of the triad whose arcs among vertices 0, 1, 2 form ``code``.

    Bits: 1 is 0 -> 1, 2 is 1 -> 0, 4 is 0 -> 2, 8 is 2 -> 0, 16 is 1 -> 2,
    32 is 2 -> 1.

    >>> triad_name(0), triad_name(1), triad_name(1 | 16), triad_name(1 | 16 | 8)
    ('003', '012', '021C', '030C')
    """
    arcs = _arcs(code)
    pairs = ((0, 1), (0, 2), (1, 2))
    mutual = [p for p in pairs if p in arcs and p[::-1] in arcs]
    single = [(x, y) if (x, y) in arcs else (y, x) for x, y in pairs
              if ((x, y) in arcs) != ((y, x) in arcs)]
    man = f"{len(mutual)}{len(single)}{3 - len(mutual) - len(single)}"
    if man in ("021", "030", "111", "120"):
        return man + _letter(man, mutual, single)
    return man


def _letter(man: str, mutual: list, single: list) -> str:
    """The letter of the four MAN classes with several types (Holland & Leinhardt)."""
    tails = [x for x, _ in single]
    heads = [y for _, y in single]
    if man == "021":  # D: one vertex sends both arcs; U: one receives both; C: a chain
        return "D" if tails[0] == tails[1] else "U" if heads[0] == heads[1] else "C"
    if man == "030":
        return "C" if set(tails) == {0, 1, 2} else "T"
    if man == "111":  # D: the single arc points at the mutual pair; U: away from it
        return "D" if heads[0] in mutual[0] else "U"
    # 120: D: the third vertex sends to both of the pair; U: receives from both; C: a chain
    return "D" if tails[0] == tails[1] else "U" if heads[0] == heads[1] else "C"


def _mask_between(code: int, x: int, y: int) -> int:
    """Dyad of ``x`` and ``y`` in ``code`` as seen from x: 1 out, 2 in, 3 mutual, 0 none."""
    arcs = _arcs(code)
    return int((x, y) in arcs) | (int((y, x) in arcs) << 1)


def _corner_dyads(code: int):
    """For each corner of a triangle with ``code``, its two dyads as a sorted pair."""
    corners = ((0, 1, 2), (1, 0, 2), (2, 0, 1))
    return [tuple(sorted((_mask_between(code, x, y), _mask_between(code, x, z))))
            for x, y, z in corners]


def _open_wedge_name(dyads: tuple) -> str:
    """Type of the open triad whose middle vertex 0 has the two dyads ``dyads`` (seen from 0)."""
    first, second = dyads
    code = 0
    for other, dyad in ((1, first), (2, second)):
        if dyad & 1:
            code |= _ARC_BITS[(0, other)]
        if dyad & 2:
            code |= _ARC_BITS[(other, 0)]
    return triad_name(code)


def triadic_census(edges, *, backend: str = "auto") -> dict:
    """How many triads (vertex triples) of each of the 16 types the directed graph has.

    The seven types whose three pairs are all joined come from the triangles'
    arc codes; the types with two joined pairs from the wedges at each vertex
    (pairs of neighbours by dyad kind) less the closed ones; the types with
    one joined pair from each edge's vertices joined to neither end; 003 from
    C(n, 3). Keys in NetworkX's order; Python ints.

    Examples
    --------
    A 3-cycle and an isolated vertex 3 (n = 4): one 030C, the three triads
    with vertex 3 hold one arc each (012), none is empty:

    >>> from tricount.directed import triadic_census
    >>> c = triadic_census(([0, 1, 2, 3], [1, 2, 0, 3]), backend="cpu")
    >>> {k: v for k, v in c.items() if v}
    {'012': 3, '030C': 1}
    """
    dg = directed_graph(edges)
    _counts, codes = _run(dg, backend, per_vertex=False)
    codes = [int(c) for c in codes]
    out_only, in_only, mutual = arc_degrees(dg)
    n = dg.graph.n_vertices
    census = dict.fromkeys(TRIAD_NAMES, 0)

    # Closed triads: straight from the codes.
    for code, k in enumerate(codes):
        if k:
            census[triad_name(code)] += k

    # Open triads: pairs of neighbours at each middle vertex, by the two dyads' kinds
    # (1 out, 2 in, 3 mutual), less the pairs a triangle closes.
    def pairs(a):
        return int((a * (a - 1) // 2).sum())

    wedges = {(1, 1): pairs(out_only), (2, 2): pairs(in_only), (3, 3): pairs(mutual),
              (1, 2): int((out_only * in_only).sum()), (1, 3): int((out_only * mutual).sum()),
              (2, 3): int((in_only * mutual).sum())}
    for code, k in enumerate(codes):
        if k:
            for dyads in _corner_dyads(code):
                wedges[dyads] -= k
    for dyads, k in wedges.items():
        census[_open_wedge_name(dyads)] += k

    # Triads with one joined pair: the edge's ends and a vertex joined to neither,
    # n - d(lo) - d(hi) + (common neighbours) of them per edge.
    lo, hi = (to_host(a) for a in dg.graph.edges())
    mask = to_host(dg.mask)
    degree = out_only + in_only + mutual
    ends = degree[lo] + degree[hi]
    common_mutual = common_single = 0
    for code, k in enumerate(codes):
        if k:
            n_mutual = sum(_mask_between(code, x, y) == 3 for x, y in ((0, 1), (0, 2), (1, 2)))
            common_mutual += k * n_mutual
            common_single += k * (3 - n_mutual)
    reciprocated = mask == 3
    n_mutual_edges = int(reciprocated.sum())
    census["102"] = n * n_mutual_edges - int(ends[reciprocated].sum()) + common_mutual
    census["012"] = n * (lo.shape[0] - n_mutual_edges) - int(ends[~reciprocated].sum()) \
        + common_single
    census["003"] = math.comb(n, 3) - sum(census.values())
    return census
