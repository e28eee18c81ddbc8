"""The backend's directed, weighted and listing functions against plain NetworkX.

``clustering`` and ``average_clustering`` on directed graphs (Fagiolo: the same
integers, so the same floats) and with ``weight=`` (a cube root per edge
instead of per triangle: equal to a few units in the last place),
``all_triangles`` (the same triangles, each tuple in node order; with
``nbunch``, those that touch it) and ``triadic_census``, on named and random
graphs, through the backend as NetworkX's dispatcher calls it.
"""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tricount.nx.interface import BackendInterface as B


def call(name, G, *args, **kwargs):
    edge_attrs = {kwargs["weight"]: 1} if kwargs.get("weight") else None
    return B.convert_to_nx(getattr(B, name)(B.convert_from_nx(G, edge_attrs=edge_attrs),
                                            *args, **kwargs))


def approx_dict(want):
    return {k: pytest.approx(v, rel=1e-12, abs=1e-15) for k, v in want.items()}


NAMED_DIGRAPHS = {
    "3-cycle": nx.DiGraph([(0, 1), (1, 2), (2, 0)]),
    "feed-forward": nx.DiGraph([(0, 1), (1, 2), (0, 2)]),
    "all arcs": nx.complete_graph(4, create_using=nx.DiGraph),
    "loop and isolated": nx.DiGraph([(0, 1), (1, 2), (2, 0), (2, 2), (3, 3)]),
    "string labels": nx.DiGraph([("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("d", "a")]),
    "gnp": nx.gnp_random_graph(40, 0.15, seed=3, directed=True),
}


def weighted(G, seed):
    import random

    rng = random.Random(seed)
    for u, v in G.edges():
        G[u][v]["weight"] = rng.choice([0.5, 1, 2, 3.25, 7])
    return G


@pytest.mark.parametrize("name", sorted(NAMED_DIGRAPHS))
def test_directed_clustering_and_census(name):
    D = NAMED_DIGRAPHS[name]
    assert call("clustering", D) == nx.clustering(D)  # the same integer division
    assert call("average_clustering", D) == nx.average_clustering(D)
    assert call("triadic_census", D) == nx.triadic_census(D)
    assert list(call("triadic_census", D)) == list(nx.triadic_census(D))
    nodes = list(D)[:2]
    assert call("clustering", D, nodes) == nx.clustering(D, nodes)


@pytest.mark.parametrize("name", sorted(NAMED_DIGRAPHS))
def test_weighted_clustering(name):
    D = weighted(NAMED_DIGRAPHS[name].copy(), 1)
    for G in (D, D.to_undirected()):
        assert call("clustering", G, weight="weight") == approx_dict(
            nx.clustering(G, weight="weight"))
        assert call("average_clustering", G, weight="weight") == pytest.approx(
            nx.average_clustering(G, weight="weight"), rel=1e-12)


def test_all_triangles_rows_in_node_order():
    G = nx.les_miserables_graph()  # string labels
    got = list(call("all_triangles", G))
    assert sorted(got) == sorted(nx.all_triangles(G))
    order = {n: i for i, n in enumerate(G)}
    assert all(order[u] < order[v] < order[w] for u, v, w in got)
    nbunch = ["Valjean", "Javert", "nobody"]  # a label not in the graph is skipped
    assert triangle_sets(call("all_triangles", G, nbunch)) == \
        triangle_sets(nx.all_triangles(G, nbunch))
    assert triangle_sets(call("all_triangles", G, "Javert")) == \
        triangle_sets(nx.all_triangles(G, "Javert"))


def triangle_sets(triangles) -> set:
    """Triangles as sets (with ``nbunch``, NetworkX orders each tuple its own way)."""
    triangles = list(triangles)
    assert len(triangles) == len(set(map(frozenset, triangles)))  # each once
    return set(map(frozenset, triangles))


random_digraphs = st.integers(1, 20).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                         max_size=100)))


@settings(max_examples=20, deadline=None)
@given(graph=random_digraphs, seed=st.integers(0, 3))
def test_random_graphs_match_networkx(graph, seed):
    n, arcs = graph
    D = nx.DiGraph()
    D.add_nodes_from(range(n))
    D.add_edges_from(arcs)
    assert call("clustering", D) == nx.clustering(D)
    assert call("triadic_census", D) == nx.triadic_census(D)
    weighted(D, seed)
    assert call("clustering", D, weight="weight") == approx_dict(
        nx.clustering(D, weight="weight"))
    G = D.to_undirected()
    assert call("clustering", G, weight="weight") == approx_dict(
        nx.clustering(G, weight="weight"))
    assert sorted(call("all_triangles", G)) == sorted(nx.all_triangles(G))
    assert triangle_sets(call("all_triangles", G, [0, 1])) == \
        triangle_sets(nx.all_triangles(G, [0, 1]))
