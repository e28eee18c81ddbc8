"""The backend graph, and conversion to and from NetworkX.

:class:`TricountGraph` is what NetworkX hands the backend's functions: a
:class:`~tricount.CSRGraph` whose compact vertex ``i`` is the ``i``-th node of
the NetworkX graph (``vertex_ids`` holds the labels), the node labels and their
index, the graph's kind (directed, multigraph), how many self-loops it had,
and the attributes NetworkX asked to keep (``k_truss`` keeps them all, because
its result copies them). Self-loops and parallel edges are dropped from the
CSR, as every tricount graph drops them; the count of loops stays, because
``k_truss`` must refuse a graph that has any. The edges as NetworkX lists
them stay too, as arcs in compact ids with the numeric edge attributes
NetworkX asked for (:attr:`TricountGraph.arcs`): directed clustering and the
triad census read their directions, weighted clustering their weights.
"""

from __future__ import annotations

import contextlib

import networkx as nx
import numpy as np

from tricount.graph import CSRGraph
from tricount.inputs import networkx_arcs
from tricount.prep.xp import to_host

__all__ = ["TricountGraph", "from_networkx", "to_networkx"]


class TricountGraph:
    """A NetworkX graph as tricount sees it; ``__networkx_backend__ = "tricount"``.

    ``nodes`` lists the labels in NetworkX's node order; ``graph_attrs``,
    ``node_attrs`` (label -> dict) and ``edge_attrs`` ((u, v) -> dict, as
    NetworkX listed the edge) are ``None`` unless kept.
    """

    __networkx_backend__ = "tricount"

    def __init__(self, csr: CSRGraph, nodes: list, *, directed=False, multigraph=False,
                 self_loops=0, graph_attrs=None, node_attrs=None, edge_attrs=None,
                 nx_class=None, arcs=None, arc_values=None):
        self.csr = csr
        #: The edges as NetworkX listed them (``Arcs`` in compact ids), or None.
        self.arcs = arcs
        #: ``{attribute: float64 array aligned with arcs}`` for the attributes NetworkX asked for.
        self.arc_values = dict(arc_values or {})
        self.nodes = nodes
        self.index = {node: i for i, node in enumerate(nodes)}
        self.directed = bool(directed)
        self.multigraph = bool(multigraph)
        self.self_loops = int(self_loops)
        self.graph_attrs = graph_attrs
        self.node_attrs = node_attrs
        self.edge_attrs = edge_attrs
        self.nx_class = nx_class or _nx_class(directed, multigraph)
        self.__networkx_cache__ = {}

    # -- what NetworkX's dispatcher and tests ask of a backend graph ------------------

    def is_directed(self) -> bool:
        return self.directed

    def is_multigraph(self) -> bool:
        return self.multigraph

    def number_of_nodes(self) -> int:
        return len(self.nodes)

    def number_of_edges(self) -> int:
        """Edges of the simple graph (parallel edges and self-loops dropped)."""
        return self.csr.n_edges

    def __len__(self) -> int:
        return len(self.nodes)

    def __iter__(self):
        return iter(self.nodes)

    def __contains__(self, node) -> bool:
        try:
            return node in self.index
        except TypeError:  # unhashable: not a node, as in NetworkX
            return False

    def __repr__(self) -> str:
        return f"<TricountGraph of {self.nx_class.__name__}: {self.csr!r}>"

    def weights(self, name: str):
        """The float64 values of the edge attribute ``name`` aligned with :attr:`arcs`
        (1 where an edge lacks it, as NetworkX's weighted clustering reads it), or None
        when one is not a real number that float64 holds. Converted when NetworkX asked
        for the attribute; else read from the attributes kept whole (``k_truss``'s
        conversion, which NetworkX's cache hands to a later weighted call)."""
        if name not in self.arc_values:
            if self.edge_attrs is None or self.arcs is None \
                    or len(self.edge_attrs) != self.arcs.src.shape[0]:
                return None  # not kept, or parallel edges merged into one key
            values = _float_values(d.get(name, 1) for d in self.edge_attrs.values())
            if values is None:
                return None
            self.arc_values[name] = values
        return self.arc_values[name]

    # -- NetworkX's result conventions ----------------------------------------------

    def nbunch_iter(self, nbunch=None):
        """Labels of ``nbunch`` that are nodes, with NetworkX's errors (``Graph.nbunch_iter``)."""
        if nbunch is None:
            return iter(self.nodes)
        if nbunch in self:
            return iter([nbunch])

        def bunch(nlist):
            try:
                for n in nlist:
                    if n in self.index:
                        yield n
            except TypeError as err:
                message = err.args[0] if err.args else ""
                exc = err
                if "iter" in message:
                    exc = nx.NetworkXError("nbunch is not a node or a sequence of nodes.")
                if "object is not iterable" in message:
                    exc = nx.NetworkXError(f"Node {nbunch} is not in the graph.")
                if "hashable" in message:
                    exc = nx.NetworkXError(f"Node {n} in sequence nbunch is not a valid node.")
                raise exc from None

        return bunch(nbunch)

    def node_values(self, values, nodes=None, *, zero=None):
        """NetworkX's shape for per-node results of an array aligned with ``nodes``.

        A dict over every node (``nodes=None``) or over the nodes of an nbunch,
        or the bare value when ``nodes`` is a single node. Values become Python
        scalars; with ``zero`` given, values equal to 0 become ``zero`` (NetworkX's
        clustering returns the int 0 where there is no triangle).
        """
        values = to_host(values).tolist()
        if zero is not None:
            values = [zero if x == 0 else x for x in values]
        if nodes is not None and nodes in self:
            return values[self.index[nodes]]
        if nodes is None:
            return dict(zip(self.nodes, values))
        return {n: values[self.index[n]] for n in self.nbunch_iter(nodes)}

    def subgraph(self, csr: CSRGraph) -> "TricountGraph":
        """The backend graph of ``csr``, a subgraph whose ``vertex_ids`` are labels of ours."""
        # The labels as the user's graph holds them (np.int32, an IntEnum), not as the
        # int64 array of vertex_ids gives them back.
        nodes = [self.nodes[self.index[label]] for label in to_host(csr.vertex_ids).tolist()]
        node_attrs = edge_attrs = None
        if self.node_attrs is not None:
            node_attrs = {n: self.node_attrs[n] for n in nodes}
        if self.edge_attrs is not None:
            lo, hi = (to_host(a).tolist() for a in csr.edges())
            edge_attrs = {}
            for a, b in zip(lo, hi):
                u, v = nodes[a], nodes[b]
                data = self.edge_attrs.get((u, v))
                edge_attrs[(u, v)] = self.edge_attrs[(v, u)] if data is None else data
        return TricountGraph(csr, nodes, directed=self.directed, multigraph=self.multigraph,
                             graph_attrs=self.graph_attrs, node_attrs=node_attrs,
                             edge_attrs=edge_attrs, nx_class=self.nx_class)


def _nx_class(directed, multigraph):
    if multigraph:
        return nx.MultiDiGraph if directed else nx.MultiGraph
    return nx.DiGraph if directed else nx.Graph


def _attr_dicts(items, attrs, preserve):
    """Attribute dicts to keep: all of them, only ``attrs`` (name -> default), or none."""
    if preserve:
        return {key: dict(data) for key, data in items}
    if not attrs:
        return None
    out = {}
    for key, data in items:
        kept = {}
        for name, default in attrs.items():
            if name in data:
                kept[name] = data[name]
            elif default is not None:
                kept[name] = default
        out[key] = kept
    return out


def from_networkx(G, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False,
                  preserve_node_attrs=False, preserve_graph_attrs=False, name=None,
                  graph_name=None) -> TricountGraph:
    """``convert_from_nx``: the :class:`TricountGraph` of a NetworkX graph.

    Attributes are kept only as asked; the computations never read them.
    """
    if isinstance(G, TricountGraph):
        return G
    if nx.is_frozen(G) or hasattr(G, "_graph"):
        # A view (subgraph, reverse, restricted, to_undirected(as_view=True)) has a cache of
        # its own that its parent's changes never clear: with NetworkX's conversion cache on
        # (its default) a view answered from the graph as it was (triangles of K4 after an
        # edge was removed). None is NetworkX's word for "do not cache this graph".
        with contextlib.suppress(AttributeError, TypeError):
            G.__networkx_cache__ = None
    arcs = networkx_arcs(G)
    name = G.graph.get("name")  # any value in NetworkX; a report's name is text
    csr = CSRGraph.from_edges(arcs.src, arcs.dst, n_vertices=arcs.n_vertices,
                              name=name if isinstance(name, str) and name else None)
    csr.vertex_ids = arcs.labels
    edge_items = ((tuple(e[:2]), e[-1]) for e in G.edges(data=True))
    return TricountGraph(
        csr, list(G.nodes), directed=G.is_directed(), multigraph=G.is_multigraph(),
        self_loops=csr.self_loops_dropped,
        graph_attrs=dict(G.graph) if preserve_graph_attrs else None,
        node_attrs=_attr_dicts(G.nodes(data=True), node_attrs, preserve_node_attrs),
        edge_attrs=_attr_dicts(edge_items, edge_attrs, preserve_edge_attrs),
        nx_class=type(G) if not G.is_multigraph() else None,
        arcs=arcs, arc_values=_numeric_values(G, edge_attrs),
    )


def _numeric_values(G, edge_attrs) -> dict:
    """``{name: float64 array}`` of each asked-for edge attribute that is numeric on every
    edge (the default where absent), in ``G.edges()`` order."""
    out = {}
    for name, default in (edge_attrs or {}).items():
        values = _float_values(d.get(name, default) for _, _, d in G.edges(data=True))
        if values is not None:
            out[name] = values
    return out


def _float_values(values):
    """``values`` as a float64 array, or None: a missing value without default, not a
    number, or an integer past float64's range."""
    try:
        return np.fromiter(values, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        return None


def to_networkx(obj, *, name=None):
    """``convert_to_nx``: a NetworkX graph for a :class:`TricountGraph`; anything else as is."""
    if not isinstance(obj, TricountGraph):
        return obj
    G = obj.nx_class()
    if obj.graph_attrs:
        G.graph.update(obj.graph_attrs)
    if obj.node_attrs is None:
        G.add_nodes_from(obj.nodes)
    else:
        G.add_nodes_from((n, dict(obj.node_attrs[n])) for n in obj.nodes)
    nodes = obj.nodes
    lo, hi = (to_host(a).tolist() for a in obj.csr.edges())
    pairs = ((nodes[a], nodes[b]) for a, b in zip(lo, hi))
    if obj.edge_attrs is None:
        G.add_edges_from(pairs)
    else:
        G.add_edges_from((u, v, dict(obj.edge_attrs[(u, v)])) for u, v in pairs)
    return G
