"""CSRGraph construction: canonical form, what is dropped and reported, input checks."""

from __future__ import annotations

import numpy as np
import pytest

import tricount
from tricount import Graph, InvalidEdgesError, TricountError


def test_canonical_form_of_messy_input():
    #   ids 100, 7, 42 (sparse, unsorted); (7,100) listed both ways, (42,42) a loop,
    #   (100,42) repeated: undirected edges {7,100}, {42,100}
    src = [100, 7, 42, 100, 100]
    dst = [7, 100, 42, 42, 42]
    g = Graph.from_edges(src, dst)
    assert g.n_vertices == 3 and g.n_edges == 2
    assert g.vertex_ids.tolist() == [7, 42, 100]
    assert g.self_loops_dropped == 1
    assert g.duplicates_dropped == 1  # the second (100, 42); the reverse (7,100) is not a duplicate
    assert g.indptr.dtype == np.int64 and g.indices.dtype == np.int32
    # upper-triangular CSR in compact ids: 0=7, 1=42, 2=100 -> rows 0:[2], 1:[2], 2:[]
    assert g.indptr.tolist() == [0, 1, 2, 2]
    assert g.indices.tolist() == [2, 2]
    assert g.degrees.tolist() == [1, 1, 2]
    indptr, indices = g.adjacency()
    assert indptr.tolist() == [0, 1, 2, 4] and indices.tolist() == [2, 2, 0, 1]


def test_duplicates_count_repeats_of_a_direction():
    g = Graph.from_edges([0, 0, 0, 1, 1], [1, 1, 1, 0, 0])
    assert g.n_edges == 1
    assert g.duplicates_dropped == 3  # two extra (0,1), one extra (1,0)


def test_sixty_three_bit_ids():
    big = 2**63 - 1
    g = Graph.from_edges(np.array([big, big - 1, 5], dtype=np.uint64),
                         np.array([big - 1, 5, big], dtype=np.uint64))
    assert g.vertex_ids.tolist() == [5, big - 1, big]
    assert tricount.count_triangles(g, backend="cpu") == 1


def test_whole_floats_are_ids():
    g = Graph.from_edges(np.array([0.0, 1.0, 2.0]), np.array([1.0, 2.0, 0.0]))
    assert tricount.count_triangles(g, backend="cpu") == 1


@pytest.mark.parametrize(
    "src,dst,message",
    [
        ([0, 1], [1], "same length"),
        ([0, -1], [1, 2], "negative vertex id"),
        ([0.5, 1.0], [1.0, 2.0], "fractional vertex id"),
        ([float("nan")], [1.0], "NaN or infinite"),
        (np.array([2**63], dtype=np.uint64), np.array([1], dtype=np.uint64), "above 2\\*\\*63-1"),
        ([2**64], [1], "not vertex ids"),
        (["a"], ["b"], "integer vertex ids"),
        ([True], [False], "integer vertex ids"),
        (np.zeros((2, 2), dtype=np.int64), np.zeros((2, 2), dtype=np.int64), "one-dimensional"),
    ],
)
def test_invalid_edges_raise_clear_value_errors(src, dst, message):
    with pytest.raises(InvalidEdgesError, match=message) as info:
        Graph.from_edges(src, dst)
    assert isinstance(info.value, ValueError) and isinstance(info.value, TricountError)


def test_empty_graph():
    g = Graph.from_edges([], [])
    assert (g.n_vertices, g.n_edges) == (0, 0)
    assert tricount.count_triangles(g, backend="cpu") == 0


def test_from_scipy_keeps_isolated_vertices_and_symmetrises():
    sp = pytest.importorskip("scipy.sparse")
    # directed 3-cycle 0->1->2->0 plus isolated vertex 3 and an explicit zero (0,3)
    m = sp.coo_array(([1, 1, 1, 0], ([0, 1, 2, 0], [1, 2, 0, 3])), shape=(4, 4))
    g = Graph.from_scipy(m)
    assert g.n_vertices == 4 and g.n_edges == 3
    assert tricount.count_triangles(g, backend="cpu") == 1
    back = g.to_scipy()
    assert (back != back.T).nnz == 0 and back.nnz == 6


def test_from_scipy_rejects_non_square():
    sp = pytest.importorskip("scipy.sparse")
    with pytest.raises(InvalidEdgesError, match="square"):
        Graph.from_scipy(sp.csr_array((2, 3)))


def test_from_networkx_directed_and_labels():
    nx = pytest.importorskip("networkx")
    G = nx.DiGraph([("a", "b"), ("b", "a"), ("b", "c"), ("c", "a"), ("a", "a")])
    G.add_node("lonely")
    g = Graph.from_networkx(G)
    assert g.n_vertices == 4 and g.n_edges == 3
    assert list(g.vertex_ids) == ["a", "b", "c", "lonely"]
    assert g.self_loops_dropped == 1
    assert tricount.count_triangles(g, backend="cpu") == 1


def test_from_networkx_matches_networkx_on_karate():
    nx = pytest.importorskip("networkx")
    G = nx.karate_club_graph()
    expected = sum(nx.triangles(G).values()) // 3
    g = Graph.from_networkx(G)
    assert g.vertex_ids.dtype == np.int64
    assert tricount.count_triangles(g, backend="cpu") == expected == 45
