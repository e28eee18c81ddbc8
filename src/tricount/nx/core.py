"""``k_truss`` for NetworkX: the k-truss with the graph's, nodes' and edges' attributes.

The wrapper refuses self-loops as NetworkX does, rounds a fractional ``k`` up
(NetworkX keeps an edge when its support is at least k - 2, which for real k
is ceil(k) - 2), calls :func:`tricount.k_truss`, and returns a NetworkX graph
of the input's class with the attributes NetworkX asked to keep (all of them:
``k_truss`` copies them to its result). A NetworkX graph, not a backend graph,
because a k-truss is mostly handed on to other NetworkX functions. Directed graphs and multigraphs
never get here: NetworkX rejects them before dispatching.
"""

from __future__ import annotations

import math
import numbers

import networkx as nx

from tricount import local
from tricount.nx._decorators import networkx_algorithm
from tricount.nx._engine import engine_backend
from tricount.nx.graph import to_networkx

__all__ = ["k_truss"]


def _finite_k(G, k, *args, **kwargs):
    if isinstance(k, numbers.Real) and not math.isfinite(k):
        return f"k={k!r}: NetworkX answers a k that is not finite itself"
    return True


@networkx_algorithm(
    additional_docs="Peels every edge of a support level in one parallel step (PKT).",
    can_run=_finite_k,
)
def k_truss(G, k):
    if G.self_loops > 0:
        raise nx.NetworkXNotImplemented(
            "Input graph has self loops which is not permitted; "
            "Consider using G.remove_edges_from(nx.selfloop_edges(G))."
        )
    truss = local.k_truss(G.csr, math.ceil(k), backend=engine_backend())
    return to_networkx(G.subgraph(truss))
