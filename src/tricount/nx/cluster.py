"""``triangles``, ``clustering``, ``average_clustering``, ``transitivity`` and
``all_triangles`` for NetworkX (its ``cluster.py``).

Each wrapper only translates NetworkX's conventions (node labels, the
``nodes`` / ``nbunch`` arguments, Python scalars, the int 0 NetworkX returns
where there is no triangle, the errors it raises for multigraphs) and calls
:mod:`tricount.local`, :mod:`tricount.listing`, :mod:`tricount.directed` or
:mod:`tricount.weighted`. Clustering is undirected, directed (Fagiolo's) or
weighted as NetworkX's is. What tricount declines (``can_run`` returns the
reason, which NetworkX logs, and NetworkX runs the call itself): the
transitivity of a directed graph, and weighted clustering whose weight
attribute is not a float64 number on every edge, or is NaN, infinite or only
zeros (docs/nx.md lists every case).
"""

from __future__ import annotations

import math
import numbers

import networkx as nx
import numpy as np

from tricount import local
from tricount.directed import DirectedGraph, direction_mask, directed_clustering
from tricount.graph import CSRGraph
from tricount.listing import list_triangles
from tricount.nx._decorators import networkx_algorithm
from tricount.nx._engine import MULTIGRAPH_MESSAGE, engine_backend
from tricount.nx.graph import TricountGraph
from tricount.weighted import weighted_clustering, weighted_graph

__all__ = ["triangles", "clustering", "average_clustering", "transitivity", "all_triangles",
           "direction_mask_graph"]

#: Rows per chunk when listing for NetworkX: small enough that a consumer that stops early
#: wasted little, large enough to amortise a chunk's cost.
NX_CHUNK_ROWS = 1 << 16


def _single_node_is_faster(G, nodes=None, *args, **kwargs):
    if nodes is not None and nodes in G:
        return "one node: NetworkX counts it directly, without converting the graph"
    return True


def _numeric_weight(G, nodes=None, weight=None, *args, **kwargs):
    if weight is None:
        return True
    if not isinstance(weight, str):
        return f"weight={weight!r} is not an edge attribute name"
    if isinstance(G, TricountGraph):
        values = G.weights(weight)
        numeric = values is not None
        values = values.tolist() if numeric else []
    else:
        values = [d.get(weight, 1) for _, _, d in G.edges(data=True)]
        numeric = all(isinstance(w, numbers.Real) for w in values)
        try:
            values = [float(w) for w in values] if numeric else []
        except OverflowError:
            numeric = False
    if not numeric:
        return (f"weighted clustering needs the edge attribute {weight!r} to be a number "
                "within float64's range on every edge that has it")
    if not all(math.isfinite(w) for w in values) or (values and max(values) == 0):
        return (f"the edge attribute {weight!r} holds NaN, an infinity, or only zeros: "
                "NetworkX gives what it gives for those (NaN, or ZeroDivisionError)")
    return True


def _undirected(G):
    if G.is_directed():
        return ("transitivity of a directed graph (successors as neighbours) is not "
                "implemented by tricount")
    return True


def _refuse_multigraph(G):
    if G.is_multigraph():
        raise nx.NetworkXNotImplemented(MULTIGRAPH_MESSAGE)


def direction_mask_graph(G) -> DirectedGraph:
    """The backend graph's CSR with the direction mask of NetworkX's arcs."""
    lo, hi = G.csr.edges()
    return DirectedGraph(G.csr, direction_mask(lo, hi, G.csr.n_vertices, G.arcs.src,
                                               G.arcs.dst))


def _clustering_values(G, weight):
    """Clustering aligned with NetworkX's node order, as NetworkX defines it for ``G``."""
    backend = engine_backend()
    if weight is not None:
        arcs = G.arcs
        arcs.weights = G.weights(weight)
        wg = weighted_graph(arcs, weight=weight, directed=G.is_directed())
        return weighted_clustering(wg, backend=backend)
    if G.is_directed():
        return directed_clustering(direction_mask_graph(G), backend=backend)
    return local.clustering(G.csr, backend=backend)


@networkx_algorithm(
    additional_docs="Counts every vertex at once, on the GPU when one is usable.",
    should_run=_single_node_is_faster,
)
def triangles(G, nodes=None):
    if nodes is not None and G.is_multigraph():
        raise nx.NetworkXNotImplemented(MULTIGRAPH_MESSAGE)
    per_vertex = local.triangles(G.csr, backend=engine_backend())
    return G.node_values(per_vertex, nodes)


@networkx_algorithm(
    additional_docs="Undirected, directed (Fagiolo) and weighted, every vertex at once.",
    can_run=_numeric_weight,
    should_run=_single_node_is_faster,
)
def clustering(G, nodes=None, weight=None):
    _refuse_multigraph(G)
    return G.node_values(_clustering_values(G, weight), nodes, zero=0)


@networkx_algorithm(
    additional_docs="Undirected, directed (Fagiolo) and weighted, every vertex at once.",
    can_run=_numeric_weight,
)
def average_clustering(G, nodes=None, weight=None, count_zeros=True):
    # NetworkX's own arithmetic on the values NetworkX's clustering returns, so
    # the float is the same bit for bit (and the same errors on empty input).
    c = clustering(G, nodes, weight=weight).values()
    if not count_zeros:
        c = [v for v in c if abs(v) > 0]
    return sum(c) / len(c)


@networkx_algorithm(
    additional_docs="Undirected graphs only; directed graphs fall back to NetworkX.",
    can_run=_undirected,
)
def transitivity(G):
    _refuse_multigraph(G)
    value = local.transitivity(G.csr, backend=engine_backend())
    return 0 if value == 0 else value


@networkx_algorithm(
    additional_docs="Lists every triangle once, streamed in chunks, each in node order.",
)
def all_triangles(G, nbunch=None):
    keep = None
    if nbunch is not None:
        keep = np.zeros(len(G.nodes), dtype=bool)
        keep[[G.index[n] for n in G.nbunch_iter(nbunch)]] = True
    return _triangle_tuples(G, keep)


def _triangle_tuples(G, keep):
    g = G.csr.to_device(np)
    # The same CSR with compact ids as its labels: rows come back as node indices.
    compact = CSRGraph.from_upper_csr(g.indptr, g.indices, g.n_vertices,
                                      vertex_ids=np.arange(g.n_vertices), check=False)
    labels = np.empty(len(G.nodes), dtype=object)
    labels[:] = G.nodes
    for rows in list_triangles(compact, backend=engine_backend(), chunk_size=NX_CHUNK_ROWS):
        if keep is not None:
            rows = rows[keep[rows].any(axis=1)]
        # Three columns of labels zipped: the tuples are made in C, not row by row.
        yield from zip(*labels[rows.T].tolist())
