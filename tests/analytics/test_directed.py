"""Directed triangles on the CPU, judged by matrix powers and by NetworkX.

Per vertex: cycles (A^3)_xx and the feed-forward roles (A A A^T)_xx,
(A A^T A)_xx, (A^T A A)_xx against dense matrices; directed clustering,
its average and the triadic census against NetworkX, to the bit.
"""

from __future__ import annotations

import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from networkx.algorithms.triads import triad_type

from tricount.cpu.directed import directed_triangles_cpu
from tricount.directed import (
    TRIAD_NAMES,
    _ARC_BITS,
    directed_average_clustering,
    directed_clustering,
    directed_graph,
    directed_triangle_counts,
    direction_mask,
    triad_name,
    triadic_census,
)
from tricount.errors import InvalidArgumentError, UnsupportedGraphError
from tricount.local import average_clustering, clustering
from tricount.prep.edge_ids import oriented_mask
from tricount.prep.orient import OrientedCSR

sys.path.insert(0, str(Path(__file__).parent))
from triangle_oracles import dense_arcs, directed_roles  # noqa: E402

ROLES = ("cycles", "sources", "middles", "sinks")


def digraph(n, arcs):
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    G.add_edges_from(arcs)
    return G


#: Named digraphs on 0..n-1: (n, arcs).
NAMED = {
    "cycle": (3, [(0, 1), (1, 2), (2, 0)]),
    "feed-forward": (3, [(0, 1), (1, 2), (0, 2)]),
    "all six arcs": (3, [(0, 1), (1, 0), (1, 2), (2, 1), (0, 2), (2, 0)]),
    "out-star": (4, [(0, 1), (0, 2), (0, 3)]),
    "K4 tournament + loop": (4, [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3), (3, 3)]),
    "bowtie of cycles": (5, [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 2)]),
    "isolated vertex": (4, [(0, 1), (1, 2), (2, 0)]),
    "empty": (0, []),
}


def check_against_networkx(G):
    n = G.number_of_nodes()
    counts = directed_triangle_counts(G, backend="cpu")
    matrix = directed_roles(dense_arcs([u for u, _ in G.edges()], [v for _, v in G.edges()], n))
    for role in ROLES:
        assert np.array_equal(getattr(counts, role), matrix[role]), role
    assert counts.n_cycles * 3 == int(counts.cycles.sum())
    assert counts.n_transitive == int(counts.middles.sum()) == int(counts.sinks.sum())
    want = nx.clustering(G)
    got = directed_clustering(G, backend="cpu")
    assert [want[v] for v in G] == got.tolist()  # the same bits
    if n:
        assert directed_average_clustering(G, backend="cpu") == nx.average_clustering(G)
        if any(got):
            assert directed_average_clustering(G, count_zeros=False, backend="cpu") == \
                nx.average_clustering(G, count_zeros=False)
    census = triadic_census(G, backend="cpu")
    assert census == nx.triadic_census(G)
    assert list(census) == list(TRIAD_NAMES)


class TestNamed:
    @pytest.mark.parametrize("name", sorted(NAMED))
    def test_against_networkx(self, name):
        n, arcs = NAMED[name]
        check_against_networkx(digraph(n, arcs))

    def test_cycle_and_feed_forward(self):
        cycle = directed_triangle_counts(([0, 1, 2], [1, 2, 0]), backend="cpu")
        assert (cycle.n_cycles, cycle.n_transitive) == (1, 0)
        assert cycle.cycles.tolist() == [1, 1, 1]
        loop = directed_triangle_counts(([0, 1, 0], [1, 2, 2]), backend="cpu")
        assert (loop.n_cycles, loop.n_transitive) == (0, 1)
        assert (loop.sources.tolist(), loop.middles.tolist(), loop.sinks.tolist()) == \
            ([1, 0, 0], [0, 1, 0], [0, 0, 1])

    def test_fagiolo_is_half_networkx_directed_triangles(self):
        G = digraph(5, [(0, 1), (1, 0), (1, 2), (2, 0), (0, 3), (3, 2), (2, 3), (4, 0)])
        counts = directed_triangle_counts(G, backend="cpu")
        from networkx.algorithms.cluster import _directed_triangles_and_degree_iter

        assert [2 * int(t) for t in counts.fagiolo] == \
            [t for _v, _dt, _db, t in _directed_triangles_and_degree_iter(G)]

    def test_edge_arrays_with_sparse_ids(self):
        # A 3-cycle on ids 7, 1000, 10**15; repeated arcs and a loop change nothing.
        big = 10**15
        r = directed_triangle_counts(([7, 1000, big, 7, big], [1000, big, 7, 1000, big]),
                                     backend="cpu")
        assert r.vertex_ids.tolist() == [7, 1000, big]
        assert (r.n_cycles, r.cycles.tolist()) == (1, [1, 1, 1])

    def test_undirected_networkx_graph_is_refused(self):
        with pytest.raises(UnsupportedGraphError, match="directed graph"):
            directed_triangle_counts(nx.complete_graph(3), backend="cpu")


def test_triad_names_match_networkx_on_every_code():
    for code in range(64):
        G = digraph(3, [arc for arc, bit in _ARC_BITS.items() if code & bit])
        assert triad_name(code) == triad_type(G), code


def test_direction_mask():
    #   edges (sorted):  0-1   1-2   2-3
    #   arcs:            0->1  1->2, 2->1   3->2 (twice), loop 3->3
    lo, hi = np.array([0, 1, 2]), np.array([1, 2, 3])
    mask = direction_mask(lo, hi, 4, np.array([0, 1, 2, 3, 3, 3]), np.array([1, 2, 1, 2, 2, 3]))
    assert mask.tolist() == [1, 3, 2]


def test_kernel_on_a_literal_csr():
    # The feed-forward loop 0 -> 1 -> 2, 0 -> 2 plus 2 -> 0 (so 0 <-> 2 is mutual).
    # Degrees are equal (2 each), so the orientation is by id:
    #   0 -> 1, 2     1 -> 2     masks relative to it: 0->1: 1, 0->2: 3, 1->2: 1
    oriented = OrientedCSR(np.array([0, 2, 3, 3]), np.array([0, 0, 1], dtype=np.int32),
                           np.array([1, 2, 2], dtype=np.int32), 3, 3, 2, "degree")
    counts, codes = directed_triangles_cpu(oriented, np.array([1, 3, 1], dtype=np.uint8))
    # code: 0->1 (1) | 0->2 (4) | 2->0 (8) | 1->2 (16) = 29, type 120C
    assert codes.nonzero()[0].tolist() == [29] and triad_name(29) == "120C"
    assert counts.tolist() == [[1, 1, 1], [1, 0, 0], [0, 1, 0], [0, 0, 1]]
    dg = directed_graph(([0, 1, 0, 2], [1, 2, 2, 0]))
    assert oriented_mask(dg.graph, dg.graph.oriented(), dg.mask).tolist() == [1, 3, 1]


def test_parallel_kernel_agrees(monkeypatch):
    # Small graphs run on the calling thread; force the blocks onto the thread pool.
    import tricount.cpu.directed as cpu_directed

    g = directed_graph((np.arange(400) % 37, (np.arange(400) * 7 + 3) % 41))
    oriented = g.graph.oriented()
    mask = oriented_mask(g.graph, oriented, g.mask)
    serial = directed_triangles_cpu(oriented, mask)
    monkeypatch.setattr(cpu_directed, "PARALLEL_MIN_EDGES", 0)
    parallel = directed_triangles_cpu(oriented, mask)
    assert serial[1].sum() > 0
    assert np.array_equal(serial[0], parallel[0]) and np.array_equal(serial[1], parallel[1])


digraphs = st.integers(1, 25).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=150)))


@settings(max_examples=25, deadline=None)
@given(graph=digraphs)
def test_random_digraphs(graph):
    n, arcs = graph
    check_against_networkx(digraph(n, arcs))


@settings(max_examples=20, deadline=None)
@given(graph=digraphs)
def test_edge_arrays_equal_networkx_input(graph):
    n, arcs = graph
    if not arcs:
        return
    src = np.array([u for u, _ in arcs]) * 5 + 3  # sparse ids
    dst = np.array([v for _, v in arcs]) * 5 + 3
    from_arrays = directed_triangle_counts((src, dst), backend="cpu")
    G = digraph(n, arcs)
    from_nx = directed_triangle_counts(G, backend="cpu")
    present = [v for v in G if G.degree(v) > 0 or G.has_edge(v, v)]
    keep = np.array(sorted(present))
    assert from_arrays.vertex_ids.tolist() == (keep * 5 + 3).tolist()
    for role in ROLES:
        assert np.array_equal(getattr(from_arrays, role), getattr(from_nx, role)[keep])


MATRIX_MARKET = {
    # symmetric: the stored lower triangle stands for both arcs of every pair
    "symmetric": "%%MatrixMarket matrix coordinate pattern symmetric\n4 4 4\n"
                 "2 1\n3 1\n3 2\n4 3\n",
    "skew": "%%MatrixMarket matrix coordinate real skew-symmetric\n4 4 4\n"
            "2 1 1.5\n3 1 -2\n3 2 1\n4 3 4\n",
    # general, with vertices 5 and 6 in no entry: they are vertices all the same
    "isolated": "%%MatrixMarket matrix coordinate pattern general\n6 6 5\n"
                "2 1\n3 1\n3 2\n1 3\n4 3\n",
}


@pytest.mark.parametrize("name", sorted(MATRIX_MARKET))
def test_a_matrix_market_file_is_the_matrix_it_declares(name, tmp_path):
    """A symmetric file was read as its stored triangle's arcs only, and a file's declared
    vertices in no entry were dropped: directed clustering, its average and the triad
    census differed from the same file read by SciPy (and from NetworkX on it)."""
    import scipy.io

    path = tmp_path / f"{name}.mtx"
    path.write_text(MATRIX_MARKET[name])
    matrix = scipy.io.mmread(path)
    digraph = nx.relabel_nodes(nx.from_scipy_sparse_array(matrix, create_using=nx.DiGraph),
                               lambda i: i + 1)  # the file's ids are 1 .. N
    assert clustering(path, directed=True, output="dict") == pytest.approx(
        nx.clustering(digraph))
    assert average_clustering(path, directed=True) == pytest.approx(
        nx.average_clustering(digraph))
    assert triadic_census(path) == nx.triadic_census(digraph)
    counts = directed_triangle_counts(path)
    assert counts.vertex_ids.tolist() == list(range(1, matrix.shape[0] + 1))


def test_a_file_gives_no_weights(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("0 1\n1 2\n2 0\n")
    with pytest.raises(InvalidArgumentError, match="a file is read as its edges, without"):
        clustering(path, weight="weight")
