"""Any graph a user holds goes into every public function, and comes back keyed the user's way.

One small graph, the bowtie on the names a..e (two triangles sharing c), held
every way a user might hold it; then random edge lists in every shape against
NetworkX; then the conventions (``nodes=``, ``weight=``, ``output=``,
``vertices=``) and the errors.

    a       d
    | \\   / |
    |  c    |        triangles: {a, b, c}, {c, d, e}
    | /   \\ |        per vertex: a 1, b 1, c 2, d 1, e 1
    b       e
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import tricount
from tricount.inputs import read_arcs

NAMES = ["a", "b", "c", "d", "e"]
PAIRS = [("a", "b"), ("a", "c"), ("b", "c"), ("c", "d"), ("c", "e"), ("d", "e")]
IDS = [(NAMES.index(u) * 10 + 7, NAMES.index(v) * 10 + 7) for u, v in PAIRS]  # 7, 17, ...
PER_NAME = {"a": 1, "b": 1, "c": 2, "d": 1, "e": 1}
PER_ID = {NAMES.index(k) * 10 + 7: v for k, v in PER_NAME.items()}


class _DLPackOnly:
    """An array known only through the DLPack protocol (as a PyTorch CPU tensor is)."""

    def __init__(self, a):
        self._a = a

    def __dlpack__(self, **kwargs):
        return self._a.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


def _holdings():
    src, dst = (np.array(c) for c in zip(*IDS))
    out = {
        "tuple of arrays": ((src, dst), PER_ID),
        "tuple of lists": ((src.tolist(), dst.tolist()), PER_ID),
        "(m, 2) array": (np.array(IDS), PER_ID),
        "list of pairs": (list(IDS), PER_ID),
        "generator of pairs": (None, PER_ID),  # made fresh in the test: read once
        "list of name pairs": (list(PAIRS), PER_NAME),
        "dict of columns": ({"source": src, "target": dst}, PER_ID),
        "DLPack": (_DLPackOnly(np.array(IDS)), PER_ID),
        "NetworkX": (nx.Graph(PAIRS), PER_NAME),
        "NetworkX multigraph": (nx.MultiGraph(PAIRS + PAIRS[:2]), PER_NAME),
    }
    n = 5
    rows, cols = (np.array([NAMES.index(x) for x in c]) for c in zip(*PAIRS))
    per_index = {NAMES.index(k): v for k, v in PER_NAME.items()}
    for kind in (sp.csr_array, sp.csr_matrix, sp.coo_array):
        out[f"scipy {kind.__name__}"] = (kind((np.ones(6), (rows, cols)), shape=(n, n)),
                                         per_index)
    return out


HOLDINGS = _holdings()


def _tables():
    """The same edges in each table library that is installed, by column convention."""
    out = {}
    columns = {"source/target": ("source", "target"), "src/dst": ("src", "dst"),
               "U/V": ("U", "V"), "two columns": ("from", "to")}
    for lib in ("pandas", "pyarrow", "polars"):
        mod = _maybe(lib)
        if mod is None:
            continue
        for label, (a, b) in columns.items():
            data = {a: [u for u, _ in PAIRS], b: [v for _, v in PAIRS]}
            table = mod.table(data) if lib == "pyarrow" else mod.DataFrame(data)
            out[f"{lib} {label}"] = table
    return out


def _maybe(name):
    try:
        return __import__(name)
    except ImportError:
        return None


@pytest.mark.parametrize("name", sorted(HOLDINGS))
def test_every_holding_counts_and_keys_back(name):
    graph, want = HOLDINGS[name]
    fresh = (lambda: iter(IDS)) if graph is None else (lambda: graph)
    assert tricount.count_triangles(fresh(), backend="cpu") == 2
    assert tricount.triangles(fresh(), output="dict", backend="cpu") == want
    assert tricount.count(fresh(), backend="reference").n_triangles == 2
    assert tricount.transitivity(fresh(), backend="cpu") == 3 * 2 / 10
    assert tricount.k_truss(fresh(), 3, backend="cpu").n_edges == 6
    assert sum(tricount.edge_support(fresh(), backend="cpu")) == 6


@pytest.mark.parametrize("name", sorted(_tables()))
def test_tables(name):
    table = _tables()[name]
    assert tricount.triangles(table, output="dict", backend="cpu") == PER_NAME
    rows = np.concatenate(list(tricount.list_triangles(table, backend="cpu")))
    assert sorted(map(tuple, rows.tolist())) == [("a", "b", "c"), ("c", "d", "e")]


def test_igraph_names_key_results_only_when_each_vertex_has_its_own():
    ig = pytest.importorskip("igraph")
    h = ig.Graph.TupleList([("a", "b"), ("b", "c"), ("c", "a")])
    h.add_vertices(2)  # named None: two keys would be one
    h.add_edges([(3, 0), (4, 0), (3, 4)])
    with pytest.raises(tricount.InvalidEdgesError, match="missing \\(None\\) or repeated"):
        tricount.triangles(h, output="dict", backend="cpu")
    del h.vs["name"]
    assert tricount.triangles(h, output="dict", backend="cpu") == {0: 2, 1: 1, 2: 1, 3: 1, 4: 1}


def test_igraph():
    ig = pytest.importorskip("igraph")
    named = ig.Graph.TupleList(PAIRS)  # vertex names from the tuples
    assert tricount.triangles(named, output="dict", backend="cpu") == PER_NAME
    plain = ig.Graph(n=7, edges=[(0, 1), (1, 2), (2, 0)])  # vertices 3..6 isolated
    assert tricount.triangles(plain, output="dict", backend="cpu") == \
        {0: 1, 1: 1, 2: 1, 3: 0, 4: 0, 5: 0, 6: 0}
    directed = ig.Graph(edges=[(0, 1), (1, 2), (2, 0)], directed=True)
    assert tricount.clustering(directed, backend="cpu").tolist() == [0.5, 0.5, 0.5]
    weighted = ig.Graph(edges=[(0, 1), (1, 2), (2, 0), (2, 3)])
    weighted.es["w"] = [1.0, 1.0, 8.0, 1.0]
    assert tricount.clustering(weighted, weight="w", backend="cpu").round(6).tolist() == \
        [0.25, 0.25, 0.083333, 0.0]


def test_networkx_directed_and_weighted():
    D = nx.DiGraph([(0, 1), (1, 2), (2, 0), (2, 3)])
    # triangles ignore direction; clustering of a directed graph is Fagiolo's.
    assert tricount.triangles(D, backend="cpu").tolist() == [1, 1, 1, 0]
    assert tricount.clustering(D, output="dict", backend="cpu") == nx.clustering(D)
    assert tricount.clustering(D, directed=False, backend="cpu").tolist() == \
        list(nx.clustering(D.to_undirected()).values())
    G = nx.Graph()
    G.add_weighted_edges_from([(0, 1, 1.0), (1, 2, 1.0), (2, 0, 8.0), (2, 3, 1.0)])
    want = nx.clustering(G, weight="weight")
    got = tricount.clustering(G, weight="weight", output="dict", backend="cpu")
    assert got == {k: pytest.approx(v, rel=1e-12) for k, v in want.items()}
    # weight= on triangles: the numerator S(v), c(v) = 2 S(v) / (d(v) (d(v) - 1)).
    s = tricount.triangles(G, weight="weight", backend="cpu")
    assert s.round(12).tolist() == [0.25, 0.25, 0.25, 0.0]


class TestConventions:
    def test_nodes(self):
        g = (np.array([c[0] for c in IDS]), np.array([c[1] for c in IDS]))
        assert tricount.triangles(g, nodes=27, backend="cpu") == 2
        assert tricount.triangles(g, nodes=27.0, backend="cpu") == 2  # as in a list, NetworkX
        assert tricount.triangles(g, nodes=[27, 7], backend="cpu").tolist() == [2, 1]
        assert tricount.clustering(g, nodes=[27], output="dict", backend="cpu") == {27: 1 / 3}
        G = nx.Graph(PAIRS)
        assert tricount.triangles(G, nodes="c", backend="cpu") == 2
        assert tricount.triangles(G, nodes=["e", "a"], output="dict", backend="cpu") == \
            {"e": 1, "a": 1}
        grid = nx.grid_2d_graph(2, 2)  # tuple labels: a tuple is one node
        assert tricount.triangles(grid, nodes=(0, 1), backend="cpu") == 0
        with pytest.raises(tricount.InvalidArgumentError, match="vertices='range'"):
            tricount.triangles(g, nodes=[8], backend="cpu")
        with pytest.raises(tricount.InvalidArgumentError, match="'z' is not a vertex"):
            tricount.triangles(G, nodes=["z"], backend="cpu")
        for function in (tricount.triangles, tricount.clustering, tricount.average_clustering):
            with pytest.raises(tricount.InvalidArgumentError, match="99 is not a vertex"):
                function(g, nodes=99, backend="cpu")  # one id, not a vertex: not a sequence
        with pytest.raises(ZeroDivisionError, match="nodes= names none"):  # as NetworkX
            tricount.average_clustering(G, nodes=[], backend="cpu")
        with pytest.raises(tricount.InvalidArgumentError, match="directed must be True"):
            tricount.clustering(G, directed="maybe", backend="cpu")
        with pytest.raises(tricount.InvalidArgumentError, match="count_zeros must be True"):
            tricount.average_clustering(G, count_zeros="maybe", backend="cpu")
        assert tricount.average_clustering(G, count_zeros=0, backend="cpu") == \
            nx.average_clustering(G, count_zeros=False)
        assert tricount.average_clustering(G, nodes=["a", "c"], backend="cpu") == \
            nx.average_clustering(G, nodes=["a", "c"])
        # A vertex named twice counts once in a mean, as in NetworkX (its dict keeps one).
        assert tricount.average_clustering(G, nodes=["a", "c", "a"], backend="cpu") == \
            nx.average_clustering(G, nodes=["a", "c", "a"]) == \
            tricount.average_clustering(G, nodes=["a", "c"], backend="cpu")
        with pytest.raises(tricount.InvalidArgumentError, match=r"\[0\] is not a vertex"):
            tricount.clustering(G, nodes=[[0]], backend="cpu")  # unhashable: no vertex is

    def test_weights_past_float64_and_directions_not_given(self):
        G = nx.Graph([(0, 1), (1, 2), (2, 0)])
        G[0][1]["weight"] = 10**400
        with pytest.raises(tricount.InvalidEdgesError, match="past float64's range"):
            tricount.clustering(G, weight="weight", backend="cpu")
        # An undirected graph lists its edges in some order, which is no direction.
        for weight in (None, "weight"):
            with pytest.raises(tricount.UnsupportedGraphError, match="need a directed graph"):
                tricount.clustering(nx.Graph([(0, 1), (1, 2), (2, 0)]), directed=True,
                                    weight=weight, backend="cpu")

    def test_outputs(self):
        pandas = pytest.importorskip("pandas")
        G = nx.Graph(PAIRS)
        frame = tricount.triangles(G, output="frame", backend="cpu")
        assert isinstance(frame, pandas.DataFrame)
        assert dict(zip(frame["vertex"], frame["triangles"])) == PER_NAME
        support = tricount.edge_support(G, output="frame", backend="cpu")
        assert list(support.columns) == ["u", "v", "support"] and support["support"].sum() == 6
        assert tricount.truss_decomposition(G, output="dict", backend="cpu")[("a", "b")] == 3
        with pytest.raises(tricount.InvalidArgumentError, match="output"):
            tricount.triangles(G, output="json", backend="cpu")

    def test_isolated_ids_both_conventions(self):
        # R-MAT leaves ids unused. "edges": the vertices are the ids in an edge (NetworkX's
        # graph of the edge list); "range": every id 0..max is a vertex (igraph, graph-tool).
        src, dst = tricount.generate.rmat(9, 4, seed=3)
        present = nx.Graph(zip(src.tolist(), dst.tolist()))
        present.remove_edges_from(list(nx.selfloop_edges(present)))
        spanned = present.copy()
        spanned.add_nodes_from(range(int(max(src.max(), dst.max())) + 1))
        assert len(spanned) > len(present)  # the point of the test
        edges = tricount.average_clustering((src, dst), backend="cpu")
        ranged = tricount.average_clustering((src, dst), vertices="range", backend="cpu")
        assert edges == pytest.approx(nx.average_clustering(present), rel=1e-12)
        assert ranged == pytest.approx(nx.average_clustering(spanned), rel=1e-12)
        assert ranged < edges
        g = tricount.Graph.from_edges(src, dst)
        assert tricount.clustering(g, vertices="range", backend="cpu").shape[0] == len(spanned)
        ig = _maybe("igraph")
        if ig is not None:
            h = ig.Graph(n=len(spanned), edges=list(zip(src.tolist(), dst.tolist())))
            h.simplify()
            assert ranged == pytest.approx(h.transitivity_avglocal_undirected(mode="zero"),
                                           rel=1e-12)
        with pytest.raises(tricount.InvalidArgumentError, match="integer vertex ids"):
            tricount.average_clustering(nx.Graph(PAIRS), vertices="range", backend="cpu")


class TestErrors:
    def test_unsupported_object_names_what_is_accepted(self):
        with pytest.raises(tricount.InvalidArgumentError) as err:
            tricount.count_triangles(object(), backend="cpu")
        for kind in ("NetworkX", "igraph", "SciPy", "pandas", "(m, 2)", "__dlpack__"):
            assert kind in str(err.value)

    @pytest.mark.parametrize("holding", [{0: [1, 2], 1: [2, 0]}, {"a": ["b", "c"],
                                                                   "b": ["c", "a"]}])
    def test_a_dict_of_unnamed_columns_is_refused(self, holding):
        # As adjacency lists each is a triangle; as the columns "0"/"1" ("a"/"b") it would
        # be a path with no triangle: refused, never guessed.
        with pytest.raises(tricount.InvalidEdgesError, match="adjacency lists"):
            tricount.count_triangles(holding, backend="cpu")

    def test_a_dataframe_of_any_two_columns_is_a_table(self):
        pd = pytest.importorskip("pandas")
        frame = pd.DataFrame({"a": [0, 1, 2], "b": [1, 2, 0]})
        assert tricount.count_triangles(frame, backend="cpu") == 1

    def test_bad_shapes_and_columns(self):
        with pytest.raises(tricount.InvalidEdgesError, match=r"shape \(m, 2\)"):
            tricount.count_triangles(np.zeros((4, 3), dtype=int), backend="cpu")
        with pytest.raises(tricount.InvalidEdgesError, match="source/target"):
            tricount.count_triangles({"a": [0], "b": [1], "c": [2]}, backend="cpu")
        with pytest.raises(tricount.InvalidEdgesError, match="square"):
            tricount.count_triangles(sp.csr_array(np.ones((2, 3))), backend="cpu")
        with pytest.raises(tricount.InvalidEdgesError, match="all strings or all integers"):
            tricount.count_triangles([("a", 1), (2, "b")], backend="cpu")
        with pytest.raises(tricount.InvalidArgumentError, match="holds no weights"):
            tricount.clustering(np.array(IDS), weight="w", backend="cpu")


class TestExactIds:
    """Python integers past 2**63 stay exact whatever holds them (NumPy alone would read
    ``[2**63 + 5, 0]`` as float64); a buffer of pairs reads as an array."""

    BIG = 2**63 + 5

    @pytest.mark.parametrize("holding", [
        lambda b: [(b, 0), (0, 1), (1, b)],
        lambda b: zip([b, 0, 1], [0, 1, b]),
        lambda b: {"u": [b, 0, 1], "v": [0, 1, b]},
        lambda b: ([b, 0, 1], [0, 1, b]),
    ])
    def test_past_2_63(self, holding):
        assert tricount.count_triangles(holding(self.BIG), backend="cpu") == 1
        per = tricount.triangles(holding(2**64 - 1), output="dict", backend="cpu")
        assert per == {0: 1, 1: 1, 2**64 - 1: 1}

    @pytest.mark.parametrize("holding", [
        lambda e: e,
        lambda e: (np.array([u for u, _ in e], dtype=object), [v for _, v in e]),
        lambda e: {"src": [u for u, _ in e], "dst": [v for _, v in e]},
        lambda e: ([u for u, _ in e], [v for _, v in e]),
        lambda e: [(u, v, 1.5) for u, v in e],
    ])
    def test_a_whole_float_among_ids_past_2_53(self, holding):
        """float64 rounds 2**53 + 1 to 2**53: a list holding a float (3.0) beside them was
        read as float64, and the triangle {2**53, 2**53 + 1, 7} lost a vertex."""
        a, b = 2**53, 2**53 + 1
        edges = [(a, b), (b, 7), (7, a), (3.0, 7)]
        per = tricount.triangles(holding(edges), output="dict", backend="cpu")
        assert per == {3: 0, 7: 1, a: 1, b: 1}

    @pytest.mark.parametrize("dtype, power", [(np.float16, 11), (np.float32, 24),
                                              (np.float64, 53)])
    def test_float_ids_where_floats_skip_integers_are_refused(self, dtype, power):
        ids = np.array([2.0**power, 1.0], dtype=dtype)
        with pytest.raises(tricount.InvalidEdgesError, match=rf"2\*\*{power} or more"):
            tricount.count_triangles((ids, ids[::-1]), backend="cpu")
        below = np.array([2.0**power - 1, 1.0], dtype=dtype)
        assert tricount.count_triangles((below, below[::-1]), backend="cpu") == 0

    def test_long_double_ids_past_int64_are_refused(self):
        """float128's mantissa holds ids up to 2**64: one past 2**63 wrapped in the int64
        cast (a .npy of such rows read as vertex 0 and a triangle)."""
        ids = np.array([2.0**63 + 2048, 1, 2], dtype=np.longdouble)
        with pytest.raises(tricount.InvalidEdgesError, match=r"2\*\*(53|63) or more"):
            tricount.count_triangles((ids, np.roll(ids, 1)), backend="cpu")

    def test_float16_ids_warn_nothing(self):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("error")
            edges = (np.array([0, 1, 2], np.float16), np.array([1, 2, 0], np.float16))
            assert tricount.count_triangles(edges, backend="cpu") == 1

    def test_memoryview_of_pairs(self):
        pairs = memoryview(np.array([[0, 1], [1, 2], [2, 0]]))
        assert tricount.count_triangles(pairs, backend="cpu") == 1


def test_masked_arrays_hide_nothing():
    ma = np.ma.masked_array
    assert tricount.count_triangles((ma([0, 1, 2]), ma([1, 2, 0])), backend="cpu") == 1
    src, dst = ma([0, 1, 2, 0], mask=[0, 0, 0, 1]), ma([1, 2, 0, 5], mask=[0, 0, 0, 1])
    for holding in ((src, dst), {"u": src, "v": dst}, ma(np.stack([src.data, dst.data], 1),
                                                          mask=[[0, 0]] * 3 + [[1, 1]])):
        with pytest.raises(tricount.InvalidEdgesError, match="hidden entries"):
            tricount.count_triangles(holding, backend="cpu")


@pytest.mark.parametrize("weights, message", [
    (np.array(["2", "1", "1"]), "real numbers, got strings"),
    (np.array([1 + 1j, 1, 1]), "real numbers, got complex numbers"),
    (np.array([None, 1, 1], dtype=object), "real numbers, got NoneType"),
    (np.array([np.nan, 1, 1]), "finite numbers"),
    (np.array([np.inf, 1, 1]), "finite numbers"),
    (np.array([0.0, 0.0, 0.0]), "which is 0 here"),
])
def test_weights_must_be_real_finite_and_not_all_zero(weights, message):
    with pytest.raises(tricount.InvalidEdgesError, match=message):
        tricount.clustering(([0, 1, 2], [1, 2, 0], weights), weight="w", backend="cpu")
    G = nx.Graph()
    G.add_weighted_edges_from(zip([0, 1, 2], [1, 2, 0], weights.tolist()))
    with pytest.raises(tricount.InvalidEdgesError, match=message):
        tricount.clustering(G, weight="weight", backend="cpu")


def test_range_of_ids_past_what_tricount_holds():
    edges = np.array([(0, 1), (1, 2), (2, 0), (0, 2**64 - 1)], dtype=np.uint64)
    with pytest.raises(tricount.UnsupportedGraphError, match="vertices='edges'"):
        tricount.average_clustering(edges, vertices="range", backend="cpu")
    assert tricount.average_clustering(edges, backend="cpu") == pytest.approx(7 / 12)


def test_weights_from_every_holding():
    w = [1.0, 1.0, 8.0, 1.0]
    want = [0.25, 0.25, 0.083333, 0.0]
    holdings = [([0, 1, 2, 2], [1, 2, 0, 3], w),
                {"src": [0, 1, 2, 2], "dst": [1, 2, 0, 3], "w": w},
                [(0, 1, 1.0), (1, 2, 1.0), (2, 0, 8.0), (2, 3, 1.0)]]
    for graph in holdings:
        weight = "w" if isinstance(graph, dict) else "weight"
        assert tricount.clustering(graph, weight=weight, backend="cpu").round(6).tolist() == want
    assert tricount.clustering(([0, 1, 2, 2], [1, 2, 0, 3]), weight=np.array(w),
                               backend="cpu").round(6).tolist() == want


edge_lists = st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), max_size=120)


@settings(max_examples=40, deadline=None)
@given(edges=edge_lists)
def test_random_edge_lists_every_shape_against_networkx(edges):
    G = nx.Graph(edges)
    G.remove_edges_from(list(nx.selfloop_edges(G)))
    G.add_nodes_from(v for e in edges for v in e)  # a loop's vertex occurs in an edge
    want = nx.triangles(G)
    names = [(f"v{u}", f"v{v}") for u, v in edges]
    for graph in (edges, np.array(edges, dtype=np.int64).reshape(-1, 2),
                  tuple(np.array(c, dtype=np.int64) for c in zip(*edges)) if edges else
                  (np.zeros(0, np.int64), np.zeros(0, np.int64)),
                  {"u": [u for u, _ in edges], "v": [v for _, v in edges]}):
        assert tricount.triangles(graph, output="dict", backend="cpu") == want
    by_name = tricount.triangles(names, output="dict", backend="cpu")
    assert by_name == {f"v{k}": t for k, t in want.items()}
    if edges:
        assert tricount.clustering(edges, output="dict", backend="cpu") == \
            pytest.approx(nx.clustering(G))


def test_read_arcs_keeps_device_and_names():
    arcs = read_arcs([("x", "y"), ("y", "z")])
    assert arcs.labels.tolist() == ["x", "y", "z"] and arcs.n_vertices == 3
    assert (arcs.src.tolist(), arcs.dst.tolist()) == ([0, 1], [1, 2])


class TestTypedHoldings:
    """Holdings whose types NumPy would read into another graph, or into a raw error."""

    @pytest.mark.parametrize("holding", [
        [("a", "b"), (b"b", "c"), ("c", "a")],
        [("a", "b"), ("b", "c"), ("c", b"a")],
    ])
    def test_str_and_bytes_names_in_a_list_are_a_mix(self, holding):
        # NumPy turns b"b" into "b": the three pairs read as one triangle (NetworkX: 0).
        pd = pytest.importorskip("pandas")
        for graph in (holding, pd.Series(holding)):
            with pytest.raises(tricount.InvalidEdgesError, match="got a mix"):
                tricount.count_triangles(graph, backend="cpu")

    def test_named_weighted_triples_keep_their_weights(self):
        # NumPy read the whole list as text, the weights included.
        G = nx.Graph()
        G.add_weighted_edges_from([("a", "b", 1.0), ("b", "c", 2.0), ("c", "a", 3.0),
                                   ("c", "d", 5.0)])
        got = tricount.clustering([("a", "b", 1.0), ("b", "c", 2.0), ("c", "a", 3.0),
                                   ("c", "d", 5.0)], weight="w", output="dict", backend="cpu")
        assert got == pytest.approx(nx.clustering(G, weight="weight"))
        with pytest.raises(tricount.InvalidEdgesError, match="real numbers, got str"):
            tricount.clustering([(0, 1, "1.0"), (1, 2, "2"), (2, 0, "3")], weight="w",
                                backend="cpu")
        with pytest.raises(tricount.InvalidEdgesError, match="read with weight="):
            tricount.count_triangles([("a", "b", 1.0), ("b", "c", 2.0)], backend="cpu")

    def test_masked_weights_hide_nothing(self):
        w = np.ma.masked_array([99.0, 1, 1, 1], mask=[1, 0, 0, 0])
        with pytest.raises(tricount.InvalidEdgesError, match="masked array of weights"):
            tricount.clustering(([0, 1, 2, 2], [1, 2, 0, 3], w), weight="w", backend="cpu")
        with pytest.raises(tricount.InvalidEdgesError, match="masked array of weights"):
            tricount.clustering(([0, 1, 2, 2], [1, 2, 0, 3]), weight=w, backend="cpu")
        unmasked = np.ma.masked_array([8.0, 1, 1, 1])
        assert tricount.clustering(([0, 1, 2, 2], [1, 2, 0, 3], unmasked), weight="w",
                                   backend="cpu").round(6).tolist() == \
            [0.25, 0.25, 0.083333, 0.0]

    def test_weights_as_a_column_of_any_frame_library(self):
        want = [0.25, 0.25, 0.083333, 0.0]
        columns = [np.array([1.0, 8.0, 1.0, 1.0])]
        for module, make in (("pandas", lambda m, w: m.Series(w)),
                             ("polars", lambda m, w: m.Series(w)),
                             ("pyarrow", lambda m, w: m.array(w))):
            mod = pytest.importorskip(module)
            columns.append(make(mod, [1.0, 8.0, 1.0, 1.0]))
        for w in columns:
            assert tricount.clustering(([0, 2, 1, 2], [1, 0, 2, 3], w), weight="w",
                                       backend="cpu").round(6).tolist() == want
            assert tricount.clustering(([0, 2, 1, 2], [1, 0, 2, 3]), weight=w,
                                       backend="cpu").round(6).tolist() == want

    def test_a_weight_column_named_by_a_number(self):
        pd = pytest.importorskip("pandas")
        frame = pd.DataFrame(np.array([[0, 1, 1.0], [1, 2, 2.0], [2, 0, 3.0], [2, 3, 5.0]]))
        G = nx.Graph()
        G.add_weighted_edges_from(frame.itertuples(index=False))
        assert tricount.clustering(frame, weight=2, output="dict", backend="cpu") == \
            pytest.approx(nx.clustering(G, weight="weight"))
        assert tricount.clustering({"u": [0, 1, 2, 2], "v": [1, 2, 0, 3], 2: [1.0, 2, 3, 5]},
                                   weight=2, output="dict", backend="cpu") == \
            pytest.approx(nx.clustering(G, weight="weight"))

    def test_structured_arrays_by_their_fields(self):
        rec = np.array([(5, 0, 1), (1, 1, 2), (1, 2, 0)],
                       dtype=[("w", "f8"), ("src", "i8"), ("dst", "i8")])
        assert tricount.count_triangles(rec, backend="cpu") == 1
        G = nx.Graph()
        G.add_weighted_edges_from(zip(rec["src"].tolist(), rec["dst"].tolist(),
                                      rec["w"].tolist()))
        assert tricount.clustering(rec, weight="w", output="dict", backend="cpu") == \
            pytest.approx(nx.clustering(G, weight="weight"))

    def test_numpy_variable_width_strings_are_names(self):
        kind = np.dtypes.StringDType()
        src, dst = np.array(["a", "b", "c"], dtype=kind), np.array(["b", "c", "a"], dtype=kind)
        assert tricount.triangles((src, dst), output="dict", backend="cpu") == \
            {"a": 1, "b": 1, "c": 1}

    def test_a_host_arrow_array_is_not_called_a_device_array(self):
        pa = pytest.importorskip("pyarrow")
        with pytest.raises(tricount.InvalidEdgesError, match=r"^an array of edges"):
            tricount.count_triangles(pa.array([1, 2, 3]), backend="cpu")


class TestNodesHoldings:
    def test_a_frame_library_column_of_nodes(self):
        pa = pytest.importorskip("pyarrow")
        graph = [(10, 20), (20, 30), (30, 10), (30, 40)]
        assert tricount.triangles(graph, nodes=pa.array([10, 40]), backend="cpu").tolist() \
            == [1, 0]
        assert tricount.triangles(graph, nodes=pa.chunked_array([[10], [40]]),
                                  backend="cpu").tolist() == [1, 0]

    def test_a_string_that_is_no_vertex_is_named_whole(self):
        with pytest.raises(tricount.InvalidArgumentError, match="'10' is not a vertex"):
            tricount.triangles([(10, 20), (20, 30), (30, 10)], nodes="10", backend="cpu")
        with pytest.raises(tricount.InvalidArgumentError, match="b'a' is not a vertex"):
            tricount.triangles([("a", "b"), ("b", "c"), ("c", "a")], nodes=b"a",
                               backend="cpu")
        assert tricount.triangles([("ab", "b"), ("b", "c"), ("c", "ab")], nodes="ab",
                                  backend="cpu") == 1


class TestIdColumns:
    """``tricount.count`` reads an (m, 2) array or a table of integer ids as the pair of its
    id columns (sized by the cost model, built on the GPU where it counts): the same pair
    that the build reads, and None wherever the build must say something else."""

    def test_arrays_and_tables_of_integer_ids(self):
        pd, pl, pa = (pytest.importorskip(name) for name in ("pandas", "polars", "pyarrow"))

        from tricount.inputs import id_columns

        rows = np.array([[0, 1], [1, 2], [2, 0], [2, 3]], dtype=np.int32)
        src, dst = id_columns(rows)
        assert np.shares_memory(src, rows) and src.tolist() == [0, 1, 2, 2]
        frame = pd.DataFrame({"w": [1.0] * 4, "target": rows[:, 1], "source": rows[:, 0]})
        tables = (frame, pa.table({"u": rows[:, 0], "v": rows[:, 1]}),
                  pl.DataFrame({"a": rows[:, 0], "b": rows[:, 1]}),
                  pa.table({"src": pa.chunked_array([rows[:2, 0], rows[2:, 0]]),
                            "dst": pa.chunked_array([rows[:2, 1], rows[2:, 1]])}))
        for table in tables:
            got = id_columns(table)
            assert [c.tolist() for c in got] == [[0, 1, 2, 2], [1, 2, 0, 3]], type(table)

    def test_whatever_the_build_reads_otherwise_is_left_to_it(self):
        import pandas as pd
        import pyarrow as pa

        from tricount.inputs import id_columns

        for graph in (np.zeros((4, 3), np.int64), np.zeros((4, 2), np.float64),
                      np.ma.array(np.zeros((4, 2), np.int64)), [(0, 1), (1, 2)],
                      pd.DataFrame({"source": ["a", "b"], "target": ["b", "c"]}),
                      pd.DataFrame({"source": pd.array([0, None], dtype="Int64"),
                                    "target": [1, 2]}),
                      pd.DataFrame({"a": [0], "b": [1], "c": [2]}),  # which two?
                      pa.table({"u": pa.array([0, None]), "v": pa.array([1, 2])}),
                      {"u": np.arange(3), "v": np.arange(3)}, (np.arange(3), np.arange(3))):
            assert id_columns(graph) is None, graph

    def test_counts_and_errors_are_the_builds(self):
        import pandas as pd
        import pyarrow as pa

        from tricount import inputs

        rows = np.array([[0, 1], [1, 2], [2, 0], [2, 3], [3, 0], [1, 3], [3, 3], [7, 3]])
        for graph in (rows, np.asfortranarray(rows), rows.astype(">i4"),
                      pd.DataFrame(rows, columns=["source", "target"]),
                      pd.DataFrame({"w": 1.5, "dst": rows[:, 1], "src": rows[:, 0]}),
                      pa.table({"u": rows[:, 0], "v": rows[:, 1].astype(np.uint8)})):
            built, _ = inputs.as_graph(graph)  # the build that read these before id_columns
            got = tricount.count(graph, backend="cpu")
            assert got.n_triangles == tricount.count(built, backend="cpu").n_triangles
            facts = ("vertices", "edges", "self_loops_dropped", "duplicates_dropped")
            assert [got.graph[k] for k in facts] == [built.summary()[k] for k in facts]
            g, _ = inputs.as_graph(inputs.id_columns(graph))
            for name in ("indptr", "indices", "vertex_ids"):
                np.testing.assert_array_equal(getattr(g, name), getattr(built, name))
        with pytest.raises(tricount.InvalidEdgesError, match="integer vertex ids, got dtype bool"):
            tricount.count(pd.DataFrame({"a": rows[:, 0] > 2, "b": rows[:, 1] > 0}))
        with pytest.raises(tricount.InvalidEdgesError, match="cannot tell the edge columns"):
            tricount.count(pd.DataFrame({"a": [0], "b": [1], "c": [2]}), backend="cpu")
        with pytest.raises(tricount.InvalidEdgesError, match="1 missing value"):
            tricount.count(pa.table({"u": pa.array([0, None]), "v": pa.array([1, 2])}))
        with pytest.raises(tricount.InvalidEdgesError, match="negative|non-negative"):
            tricount.count(np.array([[0, -1]]), backend="cpu")
