"""Weighted clustering on the CPU, undirected and directed, judged by NetworkX.

NetworkX takes the cube root of each triangle's product and sums in its own
order; tricount multiplies cube roots and sums in CSR order, so the values
agree to a few units in the last place: the tests allow 1e-12, relative.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tricount.cpu.weighted import weighted_triangle_sums_cpu
from tricount.errors import UnsupportedGraphError
from tricount.prep.orient import OrientedCSR
from tricount.weighted import (
    last_values,
    weighted_average_clustering,
    weighted_clustering,
    weighted_graph,
)

TOLERANCE = 1e-12


def assert_close(got, want):
    want = np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape
    assert np.allclose(got, want, rtol=TOLERANCE, atol=TOLERANCE), np.abs(got - want).max()


def nx_graph(n, edges, directed=False):
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(n))
    G.add_weighted_edges_from(edges)
    return G


def check_against_networkx(G):
    want = nx.clustering(G, weight="weight")
    assert_close(weighted_clustering(G, backend="cpu"), [want[v] for v in G])
    if len(G):
        got = weighted_average_clustering(G, backend="cpu")
        assert abs(got - nx.average_clustering(G, weight="weight")) <= TOLERANCE


class TestUndirected:
    def test_triangle_with_a_heavy_edge(self):
        # Weights 1, 1, 8 and a pendant 1: ŵ = 1/8, 1/8, 1; the term is (1/64)^(1/3) = 1/4.
        got = weighted_clustering(([0, 1, 2, 2], [1, 2, 0, 3], [1, 1, 8, 1]), backend="cpu")
        assert_close(got, [0.25, 0.25, 0.25 / 3, 0.0])

    def test_equal_weights_give_plain_clustering(self):
        G = nx.karate_club_graph()
        for u, v in G.edges():
            G[u][v]["w"] = 3.5
        assert_close(weighted_clustering(G, weight="w", backend="cpu"),
                     [nx.clustering(G)[v] for v in G])

    def test_missing_weights_count_as_one(self):
        G = nx_graph(4, [(0, 1, 2.0), (1, 2, 4.0)])
        G.add_edges_from([(0, 2), (2, 3)])
        check_against_networkx(G)

    def test_the_last_repeated_weight_wins(self):
        # The edge {0, 1} is given as 0-1 (9.0) and then 1-0 (1.0): 1.0 stands.
        src, dst, w = [0, 1, 2, 1, 2], [1, 2, 0, 0, 3], [9.0, 1.0, 1.0, 1.0, 8.0]
        G = nx.Graph()
        G.add_weighted_edges_from(zip(src, dst, w))
        assert G[0][1]["weight"] == 1.0
        assert_close(weighted_clustering((src, dst, w), backend="cpu"),
                     [nx.clustering(G, weight="weight")[v] for v in range(4)])

    def test_a_self_loop_sets_the_maximum(self):
        G = nx_graph(3, [(0, 1, 1.0), (1, 2, 1.0), (2, 0, 1.0), (1, 1, 27.0)])
        wg = weighted_graph(G)
        assert wg.max_weight == 27.0
        check_against_networkx(G)  # ŵ = 1/27 on each triangle edge: the term is 1/27

    def test_karate_with_weights(self):
        check_against_networkx(nx.karate_club_graph())  # its edges carry "weight"

    def test_multigraph_is_refused(self):
        with pytest.raises(UnsupportedGraphError, match="multigraph"):
            weighted_clustering(nx.MultiGraph([(0, 1), (1, 2)]), backend="cpu")

    def test_kernel_on_a_literal_csr(self):
        # K4 minus {0, 1}, degree-oriented: 0 -> 2, 3   1 -> 2, 3   2 -> 3.
        # Factors: 0->2: 1, 0->3: 2, 1->2: 3, 1->3: 5, 2->3: 7.
        # Triangles: {0,2,3}: 1·2·7 = 14, {1,2,3}: 3·5·7 = 105.
        oriented = OrientedCSR(np.array([0, 2, 4, 5, 5]), np.array([0, 0, 1, 1, 2], np.int32),
                               np.array([2, 3, 2, 3, 3], np.int32), 4, 5, 2, "degree")
        sums = weighted_triangle_sums_cpu(oriented, np.array([1.0, 2.0, 3.0, 5.0, 7.0]))
        assert sums.tolist() == [14.0, 105.0, 119.0, 119.0]


class TestDirected:
    def test_cycle_with_a_reciprocated_arc(self):
        # 0 -> 1 -> 2 -> 0 plus 1 -> 0, all weights 1: the pair {0, 1} has factor 2.
        G = nx_graph(3, [(0, 1, 1.0), (1, 2, 1.0), (2, 0, 1.0), (1, 0, 1.0)], directed=True)
        check_against_networkx(G)

    def test_triple_read_as_arcs(self):
        src, dst, w = [0, 1, 2, 0, 2], [1, 2, 0, 2, 3], [1.0, 2.0, 3.0, 4.0, 5.0]
        G = nx.DiGraph()
        G.add_weighted_edges_from(zip(src, dst, w))
        want = nx.clustering(G, weight="weight")
        assert_close(weighted_clustering((src, dst, w), directed=True, backend="cpu"),
                     [want[v] for v in range(4)])


def test_parallel_kernel_agrees(monkeypatch):
    # Small graphs run on the calling thread; force the blocks onto the thread pool.
    import tricount.cpu.weighted as cpu_weighted

    G = nx.gnm_random_graph(200, 2000, seed=4)
    wg = weighted_graph(G)
    serial = weighted_clustering(wg, backend="cpu")
    monkeypatch.setattr(cpu_weighted, "PARALLEL_MIN_EDGES", 0)
    assert np.array_equal(weighted_clustering(wg, backend="cpu"), serial)  # deterministic


def test_last_values():
    keys, values = last_values(np.array([4, 1, 4, 4, 1]), np.array([1.0, 2.0, 3.0, 4.0, 5.0]))
    assert keys.tolist() == [1, 4] and values.tolist() == [5.0, 4.0]


weighted_graphs = st.integers(1, 25).flatmap(lambda n: st.tuples(st.just(n), st.lists(
    st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.floats(0.01, 100.0)),
    max_size=120)))


@settings(max_examples=25, deadline=None)
@given(graph=weighted_graphs, directed=st.booleans())
def test_random_weighted_graphs(graph, directed):
    n, edges = graph
    check_against_networkx(nx_graph(n, edges, directed))
