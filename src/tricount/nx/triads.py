"""``triadic_census`` for NetworkX (its ``triads.py``).

The census of the whole directed graph: closed triads from the arc codes of
the triangles, open ones from degree formulas (:func:`tricount.directed.triadic_census`).
With a ``nodelist`` (the triads that touch some nodes only) tricount declines
and NetworkX counts.
"""

from __future__ import annotations

from tricount.directed import triadic_census as _triadic_census
from tricount.nx._decorators import networkx_algorithm
from tricount.nx._engine import engine_backend
from tricount.nx.cluster import direction_mask_graph

__all__ = ["triadic_census"]


def _no_nodelist(G, nodelist=None):
    if nodelist is not None:
        return ("triadic_census with a nodelist counts only the triads that touch it; "
                "tricount counts the whole graph")
    return True


@networkx_algorithm(
    additional_docs="Closed triads from the arc codes of the triangles, open ones from degrees.",
    can_run=_no_nodelist,
)
def triadic_census(G, nodelist=None):
    return _triadic_census(direction_mask_graph(G), backend=engine_backend())
