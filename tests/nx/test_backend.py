"""The backend against plain NetworkX: same answers, same types, same errors.

Calls go through the backend directly (convert_from_nx, the function,
convert_to_nx), and through ``backend="tricount"`` when the entry points are
installed.
"""

from __future__ import annotations

import importlib.metadata
import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tricount.nx.interface import BackendInterface as B
from tricount.nx.graph import TricountGraph

from graphs import NAMED, NOISY

INSTALLED = any(ep.name == "tricount"
                for ep in importlib.metadata.entry_points(group="networkx.backends"))
needs_entry_points = pytest.mark.skipif(not INSTALLED, reason="entry points not installed")


def from_edges(src, dst):
    G = nx.Graph()
    G.add_nodes_from([*src, *dst])
    G.add_edges_from(zip(src, dst))
    return G


def test_graphs():
    """Named graphs (self-loops kept: every function ignores them) and classic ones."""
    out = {name: from_edges(src, dst) for name, (src, dst, _, _) in {**NAMED, **NOISY}.items()}
    out.update({
        "karate": nx.karate_club_graph(),
        "les-miserables": nx.les_miserables_graph(),  # string labels, weighted edges
        "florentine": nx.florentine_families_graph(),
        "grid": nx.grid_2d_graph(4, 5),  # tuple labels
        "petersen": nx.petersen_graph(),
        "K7": nx.complete_graph(7),
        "barbell": nx.barbell_graph(5, 3),
        "gnp": nx.gnp_random_graph(60, 0.15, seed=4),
        "powerlaw": nx.powerlaw_cluster_graph(200, 4, 0.4, seed=2),
        "isolated": nx.empty_graph(5),
        "mixed-labels": nx.Graph([(0, "a"), ("a", (1, 2)), ((1, 2), 0), (0, 3.5)]),
    })
    return out


GRAPHS = test_graphs()
del test_graphs


def call(name, G, *args, **kwargs):
    """Run the backend's function as NetworkX's dispatcher would."""
    return B.convert_to_nx(getattr(B, name)(_convert(name, G), *args, **kwargs))


def _convert(name, G):
    # k_truss is declared preserve_all_attrs: NetworkX asks for every attribute.
    preserve = name == "k_truss"
    return B.convert_from_nx(G, preserve_edge_attrs=preserve, preserve_node_attrs=preserve,
                             preserve_graph_attrs=preserve, name=name)


def assert_python_scalars(value):
    values = value.values() if isinstance(value, dict) else [value]
    for v in values:
        assert type(v) in (int, float), type(v)


@pytest.mark.parametrize("gname", sorted(GRAPHS))
def test_triangles(gname):
    G = GRAPHS[gname]
    got = call("triangles", G)
    assert got == nx.triangles(G)
    assert list(got) == list(G)  # NetworkX's node order
    assert_python_scalars(got)
    nodes = list(G)[:3]
    assert call("triangles", G, nodes) == nx.triangles(G, nodes)
    if len(G):
        assert call("triangles", G, nodes[0]) == nx.triangles(G, nodes[0])
        assert_python_scalars(call("triangles", G, nodes[0]))


@pytest.mark.parametrize("gname", sorted(GRAPHS))
def test_clustering_average_transitivity(gname):
    G = GRAPHS[gname]
    got = call("clustering", G)
    assert got == nx.clustering(G)
    assert [type(v) for v in got.values()] == [type(v) for v in nx.clustering(G).values()]
    assert_python_scalars(got)
    nodes = list(G)[:3]
    assert call("clustering", G, nodes) == nx.clustering(G, nodes)
    got_t, want_t = call("transitivity", G), nx.transitivity(G)
    assert got_t == want_t and type(got_t) is type(want_t)
    for count_zeros in (True, False):
        try:
            want = nx.average_clustering(G, count_zeros=count_zeros)
        except ZeroDivisionError:
            with pytest.raises(ZeroDivisionError):
                call("average_clustering", G, count_zeros=count_zeros)
            continue
        got_a = call("average_clustering", G, count_zeros=count_zeros)
        assert got_a == want and type(got_a) is float  # the same arithmetic: bit for bit
    if len(G) > 3:
        assert call("average_clustering", G, nodes) == nx.average_clustering(G, nodes)


@pytest.mark.parametrize("gname", sorted(GRAPHS))
def test_k_truss(gname):
    G = GRAPHS[gname].copy()
    G.remove_edges_from(list(nx.selfloop_edges(G)))
    G.graph["name"] = gname
    for i, n in enumerate(G):
        G.nodes[n]["rank"] = i
    for u, v, d in G.edges(data=True):
        d["tag"] = (u, v)
    for k in (-1, 2, 3, 4, 5, 7, 3.5):
        got, want = call("k_truss", G, k), nx.k_truss(G, k)
        assert isinstance(got, nx.Graph)
        assert got.graph == want.graph and got._node == want._node and got._adj == want._adj, k


def test_node_arguments_follow_networkx():
    G = nx.karate_club_graph()
    assert call("triangles", G, [0, 99, 1]) == nx.triangles(G, [0, 99, 1])  # 99: not a node
    assert call("triangles", G, iter([2, 3])) == {2: nx.triangles(G, 2), 3: nx.triangles(G, 3)}
    for bad in (3.5, [[1, 2]], 7 + 1j):  # not a node, unhashable inside, not a node again
        with pytest.raises(nx.NetworkXError) as theirs:
            nx.triangles(G, bad)
        with pytest.raises(nx.NetworkXError) as ours:
            call("triangles", G, bad)
        assert str(ours.value) == str(theirs.value)
    with pytest.raises(AttributeError):  # NetworkX: float has no .values()
        call("average_clustering", G, 0)


def test_multigraphs_raise_what_networkx_raises():
    M = nx.MultiGraph([(0, 1), (0, 1), (1, 2), (2, 0), (2, 3)])
    assert call("triangles", M) == nx.triangles(M) == {0: 1, 1: 1, 2: 1, 3: 0}
    for name, args in (("triangles", (0,)), ("clustering", ()), ("transitivity", ()),
                       ("average_clustering", ())):
        with pytest.raises(nx.NetworkXNotImplemented, match="not implemented for multigraph"):
            getattr(nx, name)(M, *args)
        with pytest.raises(nx.NetworkXNotImplemented, match="not implemented for multigraph"):
            call(name, M, *args)


def test_k_truss_refuses_self_loops():
    G = nx.cycle_graph(3)
    G.add_edge(0, 0)
    with pytest.raises(nx.NetworkXNotImplemented, match="Input graph has self loops"):
        call("k_truss", G, 1)


def test_can_run_gives_reasons():
    G, D = nx.karate_club_graph(), nx.DiGraph([(0, 1), (1, 2), (2, 0)])
    assert B.can_run("triangles", (G,), {}) is True
    assert B.can_run("clustering", (G,), {"weight": "weight"}) is True
    assert B.can_run("clustering", (D,), {}) is True
    nx.set_edge_attributes(D, "heavy", "kind")
    assert "on every edge that has it" in B.can_run("clustering", (D,), {"weight": "kind"})
    assert "on every edge that has it" in B.can_run("average_clustering", (D, None, "kind"), {})
    for odd in (float("nan"), float("inf")):  # NetworkX answers these itself (NaN)
        nx.set_edge_attributes(D, odd, "odd")
        assert "NaN, an infinity" in B.can_run("clustering", (D,), {"weight": "odd"})
    nx.set_edge_attributes(D, 0, "zero")  # NetworkX: ZeroDivisionError
    assert "only zeros" in B.can_run("clustering", (D,), {"weight": "zero"})
    tg = B.convert_from_nx(D, edge_attrs={"zero": None})
    assert "only zeros" in B.can_run("clustering", (tg,), {"weight": "zero"})
    for k in (float("inf"), float("nan"), -float("inf")):  # NetworkX: [] or every edge
        assert "not finite" in B.can_run("k_truss", (G, k), {})
    assert B.can_run("k_truss", (G, 3), {}) is True
    assert "directed" in B.can_run("transitivity", (D,), {})
    assert "nodelist" in B.can_run("triadic_census", (D, [0]), {})
    assert B.can_run("triadic_census", (D,), {}) is True
    assert B.can_run("transitivity", (G,), {}) is True
    assert "not implemented" in B.can_run("square_clustering", (G,), {})
    assert isinstance(B.should_run("triangles", (G, 0), {}), str)
    assert B.should_run("triangles", (G,), {}) is True


def test_weights_past_float64_are_declined():
    G = nx.Graph([(0, 1), (1, 2), (2, 0)])
    G[0][1]["weight"] = 10**400  # NetworkX computes with Python's integers
    assert "float64's range" in B.can_run("clustering", (G,), {"weight": "weight"})
    tg = B.convert_from_nx(G, edge_attrs={"weight": 1})
    assert "float64's range" in B.can_run("clustering", (tg,), {"weight": "weight"})


def test_a_conversion_keeping_every_attribute_serves_weighted_calls():
    # k_truss converts with every attribute kept, and NetworkX's cache hands that graph to a
    # later weighted clustering, which had found no converted weights (KeyError).
    G = nx.complete_graph(4)
    G.add_edge(3, 4)
    for i, (u, v) in enumerate(G.edges):
        if i != 2:  # one edge without the attribute: 1, as NetworkX reads it
            G[u][v]["weight"] = 1.0 + i
    tg = B.convert_from_nx(G, preserve_edge_attrs=True)
    assert B.can_run("clustering", (tg,), {"weight": "weight"}) is True
    want = nx.clustering(G, weight="weight")
    got = B.clustering(tg, weight="weight")
    assert got == {k: pytest.approx(v, rel=1e-12) for k, v in want.items()}
    assert B.average_clustering(tg, weight="weight") == \
        pytest.approx(nx.average_clustering(G, weight="weight"), rel=1e-12)


def test_any_graph_name_and_label_type():
    G = nx.complete_graph(4)
    G.graph["name"] = 5  # NetworkX takes any value as a name
    assert B.triangles(B.convert_from_nx(G)) == nx.triangles(G)
    H = nx.relabel_nodes(nx.complete_graph(3), {i: np.int32(i) for i in range(3)})
    truss = B.k_truss(B.convert_from_nx(H, preserve_edge_attrs=True, preserve_node_attrs=True), 3)
    assert [type(n) for n in truss] == [np.int32] * 3  # the labels as the graph holds them


def test_conversion_round_trip_keeps_attributes():
    G = nx.les_miserables_graph()
    G.graph["title"] = "Les Misérables"
    tg = B.convert_from_nx(G, preserve_edge_attrs=True, preserve_node_attrs=True,
                           preserve_graph_attrs=True)
    assert isinstance(tg, TricountGraph) and tg.__networkx_backend__ == "tricount"
    back = B.convert_to_nx(tg)
    assert back.graph == G.graph and back._node == G._node and back._adj == G._adj
    assert B.convert_to_nx(5) == 5
    assert B.convert_from_nx(tg) is tg
    # Only the named attributes, defaults filled in.
    tg = B.convert_from_nx(G, edge_attrs={"weight": 1, "missing": 0})
    assert all(set(d) == {"weight", "missing"} for d in tg.edge_attrs.values())


@needs_entry_points
@pytest.mark.parametrize("gname", sorted(GRAPHS))
def test_dispatch_by_name(gname):
    G = GRAPHS[gname]
    assert nx.triangles(G, backend="tricount") == nx.triangles(G)
    assert nx.clustering(G, backend="tricount") == nx.clustering(G)
    assert nx.transitivity(G, backend="tricount") == nx.transitivity(G)
    if len(G):
        assert nx.average_clustering(G, backend="tricount") == nx.average_clustering(G)


@needs_entry_points
def test_dispatch_errors_and_fallback():
    D = nx.DiGraph([(0, 1), (1, 2), (2, 0)])
    with pytest.raises(nx.NetworkXNotImplemented, match="not implemented for directed"):
        nx.triangles(D, backend="tricount")
    with pytest.raises(nx.NetworkXNotImplemented, match="not implemented for directed"):
        nx.k_truss(D, 3, backend="tricount")
    with pytest.raises(nx.NetworkXNotImplemented, match="not implemented for multigraph"):
        nx.k_truss(nx.MultiGraph([(0, 1)]), 3, backend="tricount")
    # A call tricount declines (a weight that is not a number) and backend="tricount"
    # forced: NetworkX refuses; with fallback, NetworkX runs it.
    with pytest.raises(NotImplementedError):
        nx.transitivity(D, backend="tricount")
    with nx.config(fallback_to_nx=True, backend_priority=["tricount"]):
        assert nx.transitivity(D) == nx.transitivity(D, backend="networkx")


def test_values_are_exact_on_a_large_count():
    # K_60: 1711 triangles at each vertex; clustering exactly 1.
    G = nx.complete_graph(60)
    assert set(call("triangles", G).values()) == {math.comb(59, 2)}
    assert set(call("clustering", G).values()) == {1.0}
    assert call("transitivity", G) == 1.0
    assert np.int64 not in {type(v) for v in call("triangles", G).values()}


# -- Hypothesis: random graphs, every function ------------------------------------------

random_graphs = st.integers(min_value=0, max_value=25).flatmap(
    lambda n: st.lists(st.tuples(st.integers(0, max(n - 1, 0)), st.integers(0, max(n - 1, 0))),
                       max_size=120 if n else 0).map(lambda edges: (n, edges)))


@settings(max_examples=80, deadline=None)
@given(graph=random_graphs)
def test_random_graphs_match_networkx(graph):
    n, edges = graph
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(edges)
    assert call("triangles", G) == nx.triangles(G)
    assert call("clustering", G) == nx.clustering(G)
    assert call("transitivity", G) == nx.transitivity(G)
    if n:
        assert call("average_clustering", G) == nx.average_clustering(G)
    G.remove_edges_from(list(nx.selfloop_edges(G)))
    for k in (2, 3, 4):
        assert call("k_truss", G, k)._adj == nx.k_truss(G, k)._adj


def test_real_graph_through_the_backend(shared_graphs):
    row = next(r for r in shared_graphs if r["name"] == "football")
    G = nx.read_edgelist(row["path"], nodetype=int)
    assert sum(call("triangles", G).values()) == 3 * row["triangles"]
    assert call("triangles", G) == nx.triangles(G)
    assert call("clustering", G) == nx.clustering(G)
    assert call("average_clustering", G) == nx.average_clustering(G)
    assert call("transitivity", G) == nx.transitivity(G)


@needs_entry_points
@pytest.mark.filterwarnings("ignore::UserWarning")  # NetworkX's note on cached conversions
@pytest.mark.parametrize("view", [
    lambda G: G.subgraph(range(4)),
    lambda G: G.to_undirected(as_view=True),
    lambda G: nx.restricted_view(G, [], []),
])
def test_a_view_answers_from_its_graph_as_it_is_now(view, monkeypatch):
    # With NetworkX's conversion cache on (its default), a view kept its own converted copy,
    # which changes to the parent never cleared: K4's triangles after an edge was removed.
    monkeypatch.setattr(nx.config, "cache_converted_graphs", True)
    G = nx.complete_graph(4)
    S = view(G)
    assert nx.triangles(S, backend="tricount") == {0: 3, 1: 3, 2: 3, 3: 3}
    G.remove_edge(0, 1)
    assert nx.triangles(S, backend="tricount") == nx.triangles(S) == {0: 1, 1: 1, 2: 2, 3: 2}
    assert nx.transitivity(S, backend="tricount") == nx.transitivity(S) == 0.75


@needs_entry_points
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_a_reversed_view_answers_from_its_graph_as_it_is_now(monkeypatch):
    monkeypatch.setattr(nx.config, "cache_converted_graphs", True)
    D = nx.DiGraph([(0, 1), (1, 2), (2, 0)])
    R = D.reverse(copy=False)
    assert nx.triadic_census(R, backend="tricount")["030C"] == 1
    D.remove_edge(2, 0)
    assert nx.triadic_census(R, backend="tricount") == nx.triadic_census(R)
