"""Beyond the total: triangles per vertex and per edge, clustering, transitivity, k-truss.

    graph ──as_graph──▶ CSRGraph ──backend_for──▶ cpu | gpu | reference
    per vertex:  degree-oriented CSR ─▶ per_vertex kernel (each corner credited once)
    per edge:    degree-oriented CSR ─▶ edge_support kernel ─▶ reordered to graph.edges()
    k-truss:     edge support + symmetric CSR with edge ids ─▶ level-by-level peeling

Semantics are NetworkX's: self-loops and repeated edges are ignored, an
isolated vertex lies in no triangle and has clustering 0, and a graph with no
triangles has transitivity 0. ``clustering`` and ``average_clustering`` are
NetworkX's weighted ones with ``weight=`` (:mod:`tricount.weighted`) and
Fagiolo's directed ones for a directed input (:mod:`tricount.directed`).

Every function takes any graph :func:`tricount.count` takes (a
:class:`~tricount.CSRGraph`, a path, a NetworkX or igraph graph, a table,
arrays, ...; :mod:`tricount.inputs`). Results come back one way everywhere,
chosen by ``output``:

- ``"array"`` (the default): a NumPy array aligned with ``graph.vertex_ids``
  (per vertex: for an edge list the sorted distinct ids, for NetworkX the
  node order) or with ``graph.edges()`` (per edge);
- ``"dict"``: keyed by the user's ids, ``{vertex: value}`` (NetworkX node
  labels, string names, original integer ids) or ``{(u, v): value}``;
- ``"frame"``: a pandas DataFrame with the user's ids in a ``vertex`` column
  (``u`` and ``v`` per edge) beside the values.

``nodes=`` restricts a per-vertex result to the given vertices (user ids, in
the given order), or, for a single vertex, returns its value alone, as
NetworkX does. Which ids are vertices: for an edge list, the ids that occur
in an edge (``vertices="edges"``, the default: an id in no edge is not a
vertex), or every id ``0 .. max id`` (``vertices="range"``, as igraph and
graph-tool read an edge list: the ids in no edge are isolated vertices with
clustering 0, which lowers the average clustering). A graph object (NetworkX,
igraph, a matrix) has its own vertices, isolated ones included.
"""

from __future__ import annotations

import numpy as np

from tricount import directed as _directed
from tricount import weighted as _weighted
from tricount._frame_columns import host_column
from tricount.api import as_graph, count
from tricount.backends import backend_for
from tricount.errors import InvalidArgumentError, check_choice, check_count
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
    "OUTPUTS",
]

#: The shapes of a result (see the module doc).
OUTPUTS = ("array", "dict", "frame")


def _prepare(graph, backend, vertices="edges"):
    engine, _reason = backend_for(backend, graph)  # a bad name fails before any file is read
    g, _ = as_graph(graph, device="gpu" if engine.name == "gpu" else "cpu", vertices=vertices)
    return g, engine


def _says_directed(graph, directed) -> bool:
    """``directed`` when given, else whether the input object says it is directed."""
    if directed is not None:
        if not isinstance(directed, (bool, np.bool_)):
            raise InvalidArgumentError(f"directed must be True, False or None, got {directed!r}")
        return bool(directed)
    is_directed = getattr(graph, "is_directed", None)
    return bool(is_directed()) if callable(is_directed) else False


def triangles(graph, *, nodes=None, weight=None, vertices: str = "edges",
              output: str = "array", backend: str = "auto"):
    """Triangles at every vertex (int64), aligned with ``graph.vertex_ids``.

    Each triangle is counted at each of its three corners, so the counts sum
    to 3 × the number of triangles. Direction is ignored.

    Parameters
    ----------
    graph : graph-like
        Any graph :func:`tricount.count` takes.
    nodes : vertex or iterable of vertices, optional
        Only these vertices (the user's ids), in this order; a single vertex
        gives its value alone.
    weight : str or array_like, optional
        Sum, instead of counting, each triangle's geometric mean of normalised
        weights (float64: the numerator of NetworkX's weighted clustering,
        ``c(v) = 2 S(v) / (d(v) (d(v) - 1))``). The edge attribute or column,
        or one weight per edge.
    vertices : {"edges", "range"}
        Which ids of an edge list are vertices (see the module doc).
    output : {"array", "dict", "frame"}
        The shape of the result (see the module doc).
    backend : {"auto", "cpu", "gpu", "reference"}
        ``auto``: the CPU for a graph small enough that the CPU answers first
        (starting the GPU costs more than the work), else the GPU when one is
        usable, else the CPU (:func:`tricount.backends.backend_for`).

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

    Keyed by original id (a bowtie: two triangles sharing vertex 12), or for some only:

    >>> bowtie = ([10, 10, 11, 12, 12, 13], [11, 12, 12, 13, 14, 14])
    >>> tricount.triangles(bowtie, output="dict", backend="cpu")
    {10: 1, 11: 1, 12: 2, 13: 1, 14: 1}
    >>> tricount.triangles(bowtie, nodes=[12, 10], backend="cpu").tolist()
    [2, 1]
    >>> tricount.triangles(bowtie, nodes=12, backend="cpu")
    2
    """
    check_choice(output, "output", OUTPUTS)
    if weight is not None:
        wg = _weighted.weighted_graph(graph, weight=weight, directed=False, vertices=vertices)
        return _vertex_result(wg.graph, _weighted.weighted_triangle_sums(wg, backend=backend),
                              nodes, output, "triangles")
    g, chosen = _prepare(graph, backend, vertices)
    return _vertex_result(g, chosen.per_vertex(g), nodes, output, "triangles")


def edge_support(graph, *, output: str = "array", backend: str = "auto"):
    """Triangles on every undirected edge (int64), aligned with ``graph.edges()``.

    Each triangle adds one to each of its three edges, so the values sum to
    3 × the number of triangles. ``output`` as in the module doc.

    Examples
    --------
    K4 minus the edge {0, 1}: the edge {2, 3} closes two triangles ({0, 2, 3}
    and {1, 2, 3}), every other edge one.

    >>> import tricount
    >>> g = tricount.Graph.from_edges([0, 0, 1, 1, 2], [2, 3, 2, 3, 3])
    >>> tricount.edge_support(g, output="dict", backend="cpu")
    {(0, 2): 1, (0, 3): 1, (1, 2): 1, (1, 3): 1, (2, 3): 2}
    """
    check_choice(output, "output", OUTPUTS)
    g, chosen = _prepare(graph, backend)
    return _edge_result(g, chosen.edge_support(g), output, "support")


def clustering(graph, *, nodes=None, weight=None, directed: bool | None = None,
               vertices: str = "edges", output: str = "array", backend: str = "auto"):
    """Local clustering coefficient of every vertex (float64), aligned with ``graph.vertex_ids``.

    c(v) = 2 T(v) / (d(v) (d(v) - 1)) where T(v) is the triangles at v and d(v)
    its degree (self-loops excluded); 0 when d(v) < 2. With ``weight``,
    NetworkX's weighted clustering (each triangle counts its geometric mean
    of normalised weights); for a directed input, Fagiolo's directed
    clustering, as NetworkX computes both (:mod:`tricount.weighted`,
    :mod:`tricount.directed`).

    Parameters
    ----------
    nodes, weight, vertices, output, backend
        As for :func:`triangles`.
    directed : bool, optional
        Read the edges as arcs. By default a NetworkX or igraph graph says
        itself and anything else is undirected.

    Examples
    --------
    A triangle {0, 1, 2} with a pendant edge {2, 3}: vertex 2 has 1 triangle
    among its C(3, 2) = 3 neighbour pairs.

    >>> import tricount
    >>> g = tricount.Graph.from_edges([0, 1, 2, 2], [1, 2, 0, 3])
    >>> tricount.clustering(g, backend="cpu").round(4)
    array([1.    , 1.    , 0.3333, 0.    ])

    The same edges as arcs 0 -> 1 -> 2 -> 0, 2 -> 3: a 3-cycle, c = 1/2 at 0 and 1:

    >>> tricount.clustering(([0, 1, 2, 2], [1, 2, 0, 3]), directed=True, nodes=[0, 1],
    ...                     backend="cpu").tolist()
    [0.5, 0.5]
    """
    check_choice(output, "output", OUTPUTS)
    g, values = _clustering_values(graph, weight, directed, vertices, backend)
    return _vertex_result(g, values, nodes, output, "clustering")


def _clustering_values(graph, weight, directed, vertices, backend):
    """``(graph, clustering aligned with its vertex_ids)`` by the right definition."""
    directed = _says_directed(graph, directed)
    if weight is not None:
        wg = _weighted.weighted_graph(graph, weight=weight, directed=directed,
                                      vertices=vertices)
        return wg.graph, _weighted.weighted_clustering(wg, backend=backend)
    if directed:
        dg = _directed.directed_graph(graph, vertices=vertices)
        return dg.graph, _directed.directed_clustering(dg, backend=backend)
    g, chosen = _prepare(graph, backend, vertices)
    return g, _clustering_from(g, chosen.per_vertex(g))


def _clustering_from(g, per_vertex) -> np.ndarray:
    deg = to_host(g.degrees).astype(np.float64)
    pairs = deg * (deg - 1.0)  # exact in float64 while d < 9.4e7
    out = np.zeros(g.n_vertices, dtype=np.float64)
    np.divide(2.0 * per_vertex, pairs, out=out, where=per_vertex > 0)
    return out


def average_clustering(graph, *, nodes=None, weight=None, directed: bool | None = None,
                       count_zeros: bool = True, vertices: str = "edges",
                       backend: str = "auto") -> float:
    """Mean of the local clustering coefficients (:func:`clustering`).

    Summed in vertex order with Python's ``sum``, as NetworkX sums, so the
    same coefficients give the same float.

    Parameters
    ----------
    nodes, weight, directed, vertices, backend
        As for :func:`clustering`: the mean over ``nodes`` (each once), weighted,
        directed. ``vertices="range"`` counts every id ``0 .. max`` of an edge
        list, the ids in no edge with clustering 0 (igraph's and graph-tool's
        average); the default averages over the ids that occur in an edge.
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

    The isolated-id convention: ids 1..4 with 0 in no edge are 4 vertices,
    or 5 with ``vertices="range"`` (vertex 0 adds a 0 to the mean):

    >>> edges = ([1, 2, 3, 3], [2, 3, 1, 4])
    >>> round(tricount.average_clustering(edges, backend="cpu"), 4)
    0.5833
    >>> round(tricount.average_clustering(edges, vertices="range", backend="cpu"), 4)
    0.4667
    """
    if not (isinstance(count_zeros, (bool, np.bool_)) or count_zeros in (0, 1)):
        raise InvalidArgumentError(f"count_zeros must be True or False, got {count_zeros!r}")
    g, values = _clustering_values(graph, weight, directed, vertices, backend)
    if nodes is not None:
        single, at = _node_positions(g, nodes)
        if not single:  # each vertex once, in the order of its first mention (NetworkX's)
            at = at[np.sort(np.unique(at, return_index=True)[1])]
        values = np.atleast_1d(to_host(values)[at])
    return _directed.average_in_order(values, count_zeros)


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


def truss_decomposition(graph, *, output: str = "array", backend: str = "auto"):
    """Trussness of every edge (int32), aligned with ``graph.edges()``.

    The trussness of an edge is the largest k such that the edge lies in the
    k-truss (see :func:`k_truss`); an edge in no triangle has trussness 2.
    Edges are peeled level by level: every edge whose support has fallen to
    the current level is removed in one parallel step (Kabir & Madduri's PKT).
    ``output`` as in the module doc.

    Examples
    --------
    K4 with a tail edge {3, 4}: the K4 edges have trussness 4, the tail 2.

    >>> import tricount
    >>> g = tricount.Graph.from_edges([0, 0, 0, 1, 1, 2, 3], [1, 2, 3, 2, 3, 3, 4])
    >>> tricount.truss_decomposition(g, backend="cpu")
    array([4, 4, 4, 4, 4, 4, 2], dtype=int32)
    """
    check_choice(output, "output", OUTPUTS)
    g, chosen = _prepare(graph, backend)
    trussness, _removed = chosen.peel(g)
    return _edge_result(g, trussness, output, "trussness")


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


# -- results keyed the user's way -----------------------------------------------------------


def _frame(columns: dict):
    try:
        import pandas
    except ImportError:
        raise InvalidArgumentError('output="frame" needs pandas: pip install pandas, or '
                                   'pass output="dict"') from None
    return pandas.DataFrame(columns)


def _node_positions(g, nodes):
    """``(single, positions)``: where ``nodes`` (one vertex, or an iterable of them: the
    user's ids) sit in ``g.vertex_ids``; a vertex that is not in the graph is refused."""
    ids = to_host(g.vertex_ids)
    numeric = ids.dtype.kind in "iu"
    if numeric and ids.shape[0] > 1 and not bool((ids[1:] > ids[:-1]).all()):
        numeric = False  # NetworkX node order: look up by label

    def positions(wanted: list):
        if numeric:
            try:
                keys = np.asarray(wanted, dtype=ids.dtype)
            except (TypeError, ValueError, OverflowError):
                keys = None
            if keys is not None and keys.ndim == 1:
                at = np.minimum(np.searchsorted(ids, keys), max(ids.shape[0] - 1, 0))
                missing = [w for w, a in zip(wanted, at.tolist()) if not ids.shape[0]
                           or ids[a] != w]
                if not missing:
                    return at
                raise _not_a_vertex(missing[0], numeric, ids)
        index = {label: i for i, label in enumerate(ids.tolist())}
        for w in wanted:
            try:
                known = w in index
            except TypeError:  # unhashable: no vertex is
                known = False
            if not known:
                raise _not_a_vertex(w, numeric, ids)
        return np.array([index[w] for w in wanted], dtype=np.int64)

    column = host_column(nodes, "nodes")  # a pandas, polars or pyarrow column
    if column is not None:
        nodes = column  # NumPy values, not pyarrow's scalars
    try:
        hash(nodes)
        single = not isinstance(nodes, (list, set, frozenset, range)) and \
            _is_vertex(ids, nodes, numeric)
    except TypeError:  # unhashable: a list of vertices
        single = False
    if single:
        return True, int(positions([nodes])[0])
    if isinstance(nodes, (str, bytes)):  # a name, not a sequence of one-letter names
        raise _not_a_vertex(nodes, numeric, ids)
    try:
        wanted = list(nodes)
    except TypeError:  # one id, not a vertex (NetworkX: "not a node or a sequence")
        raise _not_a_vertex(nodes, numeric, ids) from None
    return False, positions(wanted)


def _is_vertex(ids, node, numeric) -> bool:
    if numeric:
        if isinstance(node, (float, np.floating)) and float(node).is_integer():
            node = int(node)  # 1.0 is the vertex 1, as in a list and in NetworkX
        if not isinstance(node, (int, np.integer)) or isinstance(node, bool):
            return False
        at = int(np.searchsorted(ids, node)) if node >= 0 else ids.shape[0]
        return at < ids.shape[0] and ids[at] == node
    return any(label == node for label in ids.tolist())


def _not_a_vertex(node, numeric, ids) -> InvalidArgumentError:
    n = int(ids.shape[0])
    if numeric and n and int(ids[0]) == 0 and int(ids[-1]) == n - 1:  # every id 0 .. max
        hint = f" (its vertices are 0 .. {n - 1})"
    elif numeric:
        hint = (" (an id that occurs in no edge is not a vertex; pass vertices='range' to "
                "count every id 0 .. max)")
    else:
        hint = ""
    return InvalidArgumentError(f"nodes: {node!r} is not a vertex of the graph{hint}")


def _vertex_result(g, values, nodes, output: str, column: str):
    """A per-vertex array aligned with ``g.vertex_ids``, shaped as ``nodes`` and ``output``
    ask (see the module doc)."""
    values = to_host(values)
    ids = to_host(g.vertex_ids)
    if nodes is not None:
        single, at = _node_positions(g, nodes)
        if single:
            return values[at].item()
        values, ids = values[at], ids[at]
    if output == "array":
        return values
    if output == "dict":
        return dict(zip(ids.tolist(), values.tolist()))
    return _frame({"vertex": ids, column: values})


def _edge_result(g, values, output: str, column: str):
    """A per-edge array aligned with ``g.edges()``, shaped as ``output`` asks."""
    values = to_host(values)
    if output == "array":
        return values
    ids = to_host(g.vertex_ids)
    lo, hi = (to_host(a) for a in g.edges())
    if output == "dict":
        return dict(zip(zip(ids[lo].tolist(), ids[hi].tolist()), values.tolist()))
    return _frame({"u": ids[lo], "v": ids[hi], column: values})


def _aligned(graph, values, what: str):
    """``values`` on the host, when ``graph`` is a graph and ``values`` has one entry per
    ``what``."""
    if not isinstance(graph, CSRGraph):
        raise InvalidArgumentError(
            f"graph must be a tricount.Graph, got {type(graph).__name__}")
    length = graph.n_vertices if what == "vertex" else graph.n_edges
    values = to_host(np.asarray(values) if isinstance(values, list) else values)
    if values.ndim != 1 or values.shape[0] != length:
        raise InvalidArgumentError(
            f"values must have one entry per {what} ({length}), got shape {values.shape}")
    return values


def vertex_dict(graph: CSRGraph, values) -> dict:
    """``{original vertex id: value}`` for an array aligned with ``graph.vertex_ids``
    (what ``output="dict"`` gives).

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
    return _vertex_result(graph, _aligned(graph, values, "vertex"), None, "dict", "value")


def edge_dict(graph: CSRGraph, values) -> dict:
    """``{(id_u, id_v): value}`` for an array aligned with ``graph.edges()`` (what
    ``output="dict"`` gives).

    Keys use the original ids, in the order ``graph.edges()`` stores them (the
    smaller compact id first).
    """
    return _edge_result(graph, _aligned(graph, values, "edge"), "dict", "value")
