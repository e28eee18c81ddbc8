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
    assert g.vertex_ids.dtype == np.int64
    assert tricount.count_triangles(g, backend="cpu") == 1


@pytest.mark.parametrize("as_list", [False, True], ids=["uint64", "python-ints"])
def test_every_uint64_id_is_an_id(as_list):
    # The triangle {2**64-1, 2**63, 0} with a tail to 2**63-1: ids past 2**63-1 are neither
    # refused nor wrapped; a Python list of them (which NumPy alone reads as float64) too.
    top, half = 2**64 - 1, 2**63
    src = [top, half, 0, half]
    dst = [half, 0, top, half - 1]
    if not as_list:
        src, dst = np.array(src, dtype=np.uint64), np.array(dst, dtype=np.uint64)
    g = Graph.from_edges(src, dst)
    assert g.vertex_ids.dtype == np.uint64
    assert g.vertex_ids.tolist() == [0, half - 1, half, top]
    assert tricount.count_triangles(g, backend="cpu") == 1
    assert tricount.vertex_dict(g, tricount.triangles(g, backend="cpu")) == {
        0: 1, half - 1: 0, half: 1, top: 1}


def test_mixed_signed_and_unsigned_arrays_stay_exact():
    # int64 src with uint64 dst past 2**63: NumPy would promote the pair to float64.
    src = np.array([1, 2, 3], dtype=np.int64)
    dst = np.array([2**63 + 1, 2**63 + 1, 2], dtype=np.uint64)
    g = Graph.from_edges(src, dst)
    assert g.vertex_ids.tolist() == [1, 2, 3, 2**63 + 1]
    assert g.n_edges == 3 and tricount.count_triangles(g, backend="cpu") == 0


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
        ([2**64], [1], "not vertex ids in 0 .. 2\\*\\*64-1"),
        ([-1, 2**63], [1, 2], "not vertex ids in 0 .. 2\\*\\*64-1"),
        ([2.0**63], [1.0], "floating-point vertex id of 2\\*\\*53 or more"),
        (["a"], ["b"], "integer vertex ids"),
        ([True], [False], "integer vertex ids"),
        (np.array([0.5, 1], dtype=object), [1, 2], "fractional vertex id \\(0.5\\)"),
        (np.array([1, "2"], dtype=object), [1, 2], "not vertex ids"),
        (np.array([True, 2], dtype=object), [1, 2], "integer vertex ids, got a boolean"),
        (np.zeros((2, 2), dtype=np.int64), np.zeros((2, 2), dtype=np.int64), "one-dimensional"),
    ],
)
def test_invalid_edges_raise_clear_value_errors(src, dst, message):
    with pytest.raises(InvalidEdgesError, match=message) as info:
        Graph.from_edges(src, dst)
    assert isinstance(info.value, ValueError) and isinstance(info.value, TricountError)


def test_object_arrays_of_whole_numbers_are_ids():
    g = Graph.from_edges(np.array([0, 1.0, np.int32(2)], dtype=object), [1, 2, 0])
    assert g.vertex_ids.tolist() == [0, 1, 2] and tricount.count_triangles(g, backend="cpu") == 1


@pytest.mark.parametrize("n_vertices", [3.5, 3.0, "4", True, [4]])
def test_n_vertices_must_be_an_integer(n_vertices):
    with pytest.raises(tricount.InvalidArgumentError, match="n_vertices must be an integer") as info:
        Graph.from_edges([0, 1], [1, 2], n_vertices=n_vertices)
    assert isinstance(info.value, TypeError) and isinstance(info.value, TricountError)


def test_n_vertices_bounds():
    with pytest.raises(tricount.InvalidArgumentError, match="n_vertices must be at least 0"):
        Graph.from_edges([], [], n_vertices=-1)
    with pytest.raises(InvalidEdgesError, match="out of range for a graph of 2 vertices"):
        Graph.from_edges([0, 1], [1, 2], n_vertices=2)
    g = Graph.from_edges([0, 1], [1, 2], n_vertices=np.int64(5))  # NumPy integers are integers
    assert g.n_vertices == 5 and type(g.n_vertices) is int


@pytest.mark.parametrize("call", [
    lambda: Graph.from_edges([0], [1], name=3),
    lambda: Graph.from_upper_csr(np.array([0, 0]), np.array([], np.int32), 1.5,
                                 vertex_ids=np.arange(1)),
    lambda: Graph.from_scipy([[0, 1], [1, 0]]),
    lambda: Graph.from_networkx({0: [1]}),
], ids=["name", "upper-n_vertices", "scipy-matrix", "networkx-G"])
def test_constructors_name_the_bad_parameter(call):
    with pytest.raises(tricount.InvalidArgumentError,
                       match="^(name|n_vertices|matrix|G) must be"):
        call()


def test_empty_graph():
    g = Graph.from_edges([], [])
    assert (g.n_vertices, g.n_edges) == (0, 0)
    assert tricount.count_triangles(g, backend="cpu") == 0


def test_from_scipy_keeps_isolated_vertices_and_symmetrises():
    sp = pytest.importorskip("scipy.sparse")
    # directed 3-cycle 0->1->2->0, isolated vertex 4, and a stored zero (0,3): an edge, as
    # NetworkX's from_scipy_sparse_array and a Matrix Market file read it
    m = sp.coo_array(([1, 1, 1, 0], ([0, 1, 2, 0], [1, 2, 0, 3])), shape=(5, 5))
    g = Graph.from_scipy(m)
    assert g.n_vertices == 5 and g.n_edges == 4
    assert tricount.count_triangles(g, backend="cpu") == 1
    back = g.to_scipy()
    assert (back != back.T).nnz == 0 and back.nnz == 8
    assert Graph.from_scipy(sp.csr_array(m)).n_edges == 4
    dropped = sp.csr_array(m)
    dropped.eliminate_zeros()
    assert Graph.from_scipy(dropped).n_edges == 3


def test_a_stored_zero_is_an_edge_as_networkx_and_matrix_market_read_it(tmp_path):
    sp = pytest.importorskip("scipy.sparse")
    nx = pytest.importorskip("networkx")
    mtx = tmp_path / "z.mtx"
    mtx.write_text("%%MatrixMarket matrix coordinate integer symmetric\n3 3 3\n"
                   "2 1 0\n3 1 1\n3 2 1\n")
    a = sp.coo_array(([0, 1, 1], ([1, 2, 2], [0, 0, 1])), shape=(3, 3))
    want = sum(nx.triangles(nx.from_scipy_sparse_array(a)).values()) // 3
    assert want == 1
    assert tricount.count_triangles(str(mtx), backend="cpu") == want
    assert tricount.count_triangles(a, backend="cpu") == want
    assert tricount.count_triangles(Graph.from_scipy(a), backend="cpu") == want


@pytest.mark.parametrize("indptr, indices, n, ids, message", [
    ([0, 2, 3, 3], [0, 2, 2], 3, None, "not a canonical upper CSR"),  # row 0 holds 0: counted 2
    ([0, 2, 3, 3], [2, 1, 2], 3, None, "not a canonical upper CSR"),  # unsorted row
    ([0, 2, 3, 3], [1, 2, 3], 3, None, "not a canonical upper CSR"),  # id 3 of 3 vertices
    ([0, 2, 1, 3], [1, 2, 2], 3, None, "not a canonical upper CSR"),  # offsets decrease
    ([0, 2, 3], [1, 2, 2], 3, None, "n_vertices \\+ 1 = 4 offsets"),
    ([0, 2, 3, 4], [1, 2, 2], 3, None, "from 0 to len\\(indices\\) = 3"),
    ([0.0, 2, 3, 3], [1, 2, 2], 3, None, "indptr must be a one-dimensional integer array"),
    ([0, 2, 3, 3], [1.0, 2, 2], 3, None, "indices must be a one-dimensional integer array"),
    ([0, 2, 3, 3], [1, 2, 2], 3, np.arange(2), "one id per vertex \\(3\\), got 2"),
])
def test_from_upper_csr_checks_what_it_wraps(indptr, indices, n, ids, message):
    with pytest.raises(InvalidEdgesError, match=message):
        Graph.from_upper_csr(np.array(indptr), np.array(indices), n, vertex_ids=ids)
    good = Graph.from_upper_csr(np.array([0, 2, 3, 3]), np.array([1, 2, 2]), 3,
                                vertex_ids=None)
    assert tricount.count_triangles(good, backend="cpu") == 1


@pytest.mark.parametrize("ids", ["uint32", "uint64", "int16", "uint16", ">i4", "<i8"])
@pytest.mark.parametrize("offsets", ["int64", "int32", "uint64", ">i8"])
def test_from_upper_csr_gives_the_kernels_their_layout(ids, offsets):
    # The GPU kernels are compiled for int32 or int64 ids and int64 offsets and read memory
    # as laid out: other types, byte orders and strides are converted (the partitioned GPU
    # count raised, or would have read other ids, on such arrays).
    indptr = np.array([0, 2, 3, 3, 3], dtype=offsets)
    indices = np.array([1, 2, 2], dtype=ids)
    g = Graph.from_upper_csr(indptr, indices, 4, vertex_ids=None)
    assert g.indptr.dtype == np.int64 and g.indptr.dtype.isnative
    assert g.indices.dtype in (np.int32, np.int64) and g.indices.dtype.isnative
    assert g.indptr.flags.c_contiguous and g.indices.flags.c_contiguous
    np.testing.assert_array_equal(g.indptr, [0, 2, 3, 3, 3])
    np.testing.assert_array_equal(g.indices, [1, 2, 2])
    assert tricount.count_triangles(g, backend="cpu") == 1


def test_from_upper_csr_holds_arrays_already_in_layout_and_copies_strided_ones():
    indptr = np.array([0, 2, 3, 3], dtype=np.int64)
    indices = np.array([1, 2, 2], dtype=np.int32)
    g = Graph.from_upper_csr(indptr, indices, 3, vertex_ids=None)
    assert g.indptr is indptr and g.indices is indices
    strided = np.array([1, -1, 2, -1, 2], dtype=np.int32)[::2]
    g = Graph.from_upper_csr(indptr, strided, 3, vertex_ids=None)
    assert g.indices.flags.c_contiguous and g.indices.tolist() == [1, 2, 2]


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


def test_summary_computes_the_largest_degree_only_when_asked():
    # K4 plus a pendant vertex: degrees 3, 3, 3, 4, 1.
    g = Graph.from_edges([0, 0, 0, 1, 1, 2, 3], [1, 2, 3, 2, 3, 3, 4])
    assert g.summary(compute=False)["max_degree"] is None  # nothing computed yet
    assert g.summary()["max_degree"] == 4
    assert g.summary(compute=False)["max_degree"] == 4  # known now


def test_a_cpu_count_reports_the_largest_degree_it_computed():
    edges = [0, 0, 0, 1, 1, 2, 3], [1, 2, 3, 2, 3, 3, 4]
    result = tricount.count(Graph.from_edges(*edges), backend="cpu", method="merge")
    assert (result.n_triangles, result.graph["max_degree"]) == (4, 4)  # oriented by degree
    # The bitmap counter in id order needs no degrees: none is computed for the report.
    result = tricount.count(Graph.from_edges(*edges), backend="cpu", method="bitmap")
    assert result.method_reason.endswith("id order")
    assert (result.n_triangles, result.graph["max_degree"]) == (4, None)


def test_to_device_takes_a_module_or_its_name():
    g = Graph.from_edges([0, 1, 2], [1, 2, 0])
    for name in ("numpy", "cpu", np):
        assert g.to_device(name) is g
    with pytest.raises(tricount.InvalidArgumentError, match="to_device takes numpy or cupy"):
        g.to_device("torch")


def test_int32_ids_of_more_than_int32_vertices_become_int64():
    # Ranks are made in the ids' type: int32 ids of 2^31 or more vertices would overflow them.
    from tricount.graph import _kernel_layout

    indptr, indices = np.array([0, 1, 1], dtype=np.int64), np.array([1], dtype=np.int32)
    assert _kernel_layout(indptr, indices, 2)[1] is indices
    assert _kernel_layout(indptr, indices, 2**31)[1].dtype == np.int64
