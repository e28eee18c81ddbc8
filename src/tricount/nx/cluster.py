"""``triangles``, ``clustering``, ``average_clustering`` and ``transitivity`` for NetworkX.

Each wrapper only translates NetworkX's conventions (node labels, the
``nodes`` argument, Python scalars, the int 0 NetworkX returns where there is
no triangle, the errors it raises for multigraphs) and calls
:mod:`tricount.local`. Weighted and directed clustering, and the transitivity
of a directed graph, are declined by ``can_run`` with the reason, and
NetworkX runs them itself.
"""

from __future__ import annotations

import networkx as nx

from tricount import local
from tricount.nx._decorators import networkx_algorithm
from tricount.nx._engine import MULTIGRAPH_MESSAGE, engine_backend

__all__ = ["triangles", "clustering", "average_clustering", "transitivity"]


def _single_node_is_faster(G, nodes=None, *args, **kwargs):
    if nodes is not None and nodes in G:
        return "one node: NetworkX counts it directly, without converting the graph"
    return True


def _unweighted_undirected(G, nodes=None, weight=None, *args, **kwargs):
    if weight is not None:
        return f"weighted clustering (weight={weight!r}) is not implemented by tricount"
    if G.is_directed():
        return "directed clustering (Fagiolo's) is not implemented by tricount"
    return True


def _undirected(G):
    if G.is_directed():
        return "transitivity of a directed graph (successors as neighbours) is not implemented"
    return True


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
    additional_docs="Unweighted, undirected graphs only; other calls fall back to NetworkX.",
    can_run=_unweighted_undirected,
    should_run=_single_node_is_faster,
)
def clustering(G, nodes=None, weight=None):
    if G.is_multigraph():
        raise nx.NetworkXNotImplemented(MULTIGRAPH_MESSAGE)
    values = local.clustering(G.csr, backend=engine_backend())
    return G.node_values(values, nodes, zero=0)


@networkx_algorithm(
    additional_docs="Unweighted, undirected graphs only; other calls fall back to NetworkX.",
    can_run=_unweighted_undirected,
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
    if G.is_multigraph():
        raise nx.NetworkXNotImplemented(MULTIGRAPH_MESSAGE)
    value = local.transitivity(G.csr, backend=engine_backend())
    return 0 if value == 0 else value
