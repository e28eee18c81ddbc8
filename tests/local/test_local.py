"""Per-vertex and per-edge counts, clustering, transitivity and k-truss on the CPU.

Judged three ways: the hand-checked answers of tests/graphs.py, NetworkX, and
the reference oracle (tricount.reference), on named, real and Hypothesis graphs.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tricount
import tricount.local
from tricount import reference
from tricount.backends.cpu import CPU
from tricount.cpu.edge_support import edge_support_merge
from tricount.cpu.per_vertex import per_vertex_bitmap
from tricount.cpu.walk_numpy import edge_support_numpy, per_vertex_numpy
from tricount.cpu.truss import peel_frontier
from tricount.prep.orient import csr_from_sorted

from graphs import BY_REAL_SIZE, NAMED, NOISY, complete_graph

ALL_NAMED = {**NAMED, **NOISY}
BACKENDS = ["cpu", "reference"]


def nx_graph(src, dst, vertex_ids=None):
    """The NetworkX graph of an edge list, self-loops removed, every listed id a node."""
    G = nx.Graph()
    G.add_nodes_from(vertex_ids if vertex_ids is not None else [*src, *dst])
    G.add_edges_from(zip(src, dst))
    G.remove_edges_from(list(nx.selfloop_edges(G)))
    return G


def frozen(edge_values: dict) -> dict:
    return {frozenset(e): v for e, v in edge_values.items()}


def edge_set(graph) -> set:
    ids = graph.vertex_ids
    lo, hi = graph.edges()
    return {frozenset((ids[a], ids[b])) for a, b in zip(lo.tolist(), hi.tolist())}


# -- named graphs ---------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(ALL_NAMED))
def test_named_graphs_per_vertex(name, backend):
    src, dst, n_triangles, per_vertex = ALL_NAMED[name]
    g = tricount.Graph.from_edges(src, dst)
    got = tricount.triangles(g, backend=backend)
    assert got.dtype == np.int64
    assert tricount.vertex_dict(g, got) == per_vertex
    assert int(got.sum()) == 3 * n_triangles
    assert tricount.vertex_dict(g, got) == nx.triangles(nx_graph(src, dst))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(ALL_NAMED))
def test_named_graphs_edge_support(name, backend):
    src, dst, n_triangles, _ = ALL_NAMED[name]
    g = tricount.Graph.from_edges(src, dst)
    got = tricount.edge_support(g, backend=backend)
    assert got.dtype == np.int64 and got.shape == (g.n_edges,)
    assert int(got.sum()) == 3 * n_triangles
    assert frozen(tricount.edge_dict(g, got)) == reference.edge_support(src, dst)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(ALL_NAMED))
def test_named_graphs_clustering_and_transitivity(name, backend):
    src, dst, _, _ = ALL_NAMED[name]
    g = tricount.Graph.from_edges(src, dst)
    G = nx_graph(src, dst)
    assert tricount.vertex_dict(g, tricount.clustering(g, backend=backend)) == nx.clustering(G)
    assert tricount.transitivity(g, backend=backend) == nx.transitivity(G)
    for count_zeros in (True, False):
        try:
            expected = nx.average_clustering(G, count_zeros=count_zeros)
        except ZeroDivisionError:
            with pytest.raises(ZeroDivisionError):
                tricount.average_clustering(g, count_zeros=count_zeros, backend=backend)
            continue
        got = tricount.average_clustering(g, count_zeros=count_zeros, backend=backend)
        assert got == pytest.approx(expected, rel=1e-12, abs=0)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(ALL_NAMED))
def test_named_graphs_truss(name, backend):
    src, dst, _, _ = ALL_NAMED[name]
    g = tricount.Graph.from_edges(src, dst)
    trussness = tricount.truss_decomposition(g, backend=backend)
    assert frozen(tricount.edge_dict(g, trussness)) == reference.trussness(src, dst)
    G = nx_graph(src, dst)
    for k in range(-1, 7):
        h = tricount.k_truss(g, k, backend=backend)
        H = nx.k_truss(G, k)
        assert sorted(h.vertex_ids.tolist()) == sorted(H.nodes), k
        assert edge_set(h) == {frozenset(e) for e in H.edges}, k


def test_empty_graph_semantics():
    # NetworkX: triangles {} and clustering {}, transitivity 0, average_clustering raises.
    g = tricount.Graph.from_edges([], [])
    assert tricount.triangles(g, backend="cpu").shape == (0,)
    assert tricount.edge_support(g, backend="cpu").shape == (0,)
    assert tricount.clustering(g, backend="cpu").shape == (0,)
    assert tricount.transitivity(g, backend="cpu") == 0.0
    with pytest.raises(ZeroDivisionError):
        tricount.average_clustering(g, backend="cpu")
    assert tricount.truss_decomposition(g, backend="cpu").shape == (0,)
    assert tricount.k_truss(g, 3, backend="cpu").n_vertices == 0


def test_isolated_vertices_and_no_wedges():
    # Four isolated vertices and one edge: no wedge, no triangle; all zeros.
    g = tricount.Graph.from_edges([0], [1], n_vertices=6)
    assert tricount.triangles(g, backend="cpu").tolist() == [0] * 6
    assert tricount.clustering(g, backend="cpu").tolist() == [0.0] * 6
    assert tricount.transitivity(g, backend="cpu") == 0.0
    assert tricount.average_clustering(g, backend="cpu") == 0.0
    with pytest.raises(ZeroDivisionError):
        tricount.average_clustering(g, count_zeros=False, backend="cpu")
    assert tricount.k_truss(g, 2, backend="cpu").vertex_ids.tolist() == [0, 1]


def test_inputs_other_than_a_graph(tmp_path):
    # (src, dst) pairs are aligned with the sorted distinct ids; paths load like count().
    assert tricount.triangles(([9, 9, 5], [5, 7, 7]), backend="cpu").tolist() == [1, 1, 1]
    path = tmp_path / "k4.txt"
    path.write_text("0 1\n0 2\n0 3\n1 2\n1 3\n2 3\n")
    assert tricount.triangles(str(path), backend="cpu").tolist() == [3, 3, 3, 3]
    with pytest.raises(TypeError, match="^k must be an integer"):
        tricount.k_truss(path, 2.5, backend="cpu")
    with pytest.raises(tricount.TricountError):
        tricount.triangles(([0], [1]), backend="nonsense")


def test_dicts_refuse_values_of_the_wrong_length():
    g = tricount.Graph.from_edges([0, 1, 2], [1, 2, 0])  # 3 vertices, 3 edges
    with pytest.raises(tricount.InvalidArgumentError, match=r"one entry per vertex \(3\)"):
        tricount.vertex_dict(g, [1, 2])
    with pytest.raises(tricount.InvalidArgumentError, match=r"one entry per edge \(3\)"):
        tricount.edge_dict(g, np.zeros(4))
    with pytest.raises(tricount.InvalidArgumentError, match="got shape \\(3, 1\\)"):
        tricount.vertex_dict(g, np.zeros((3, 1)))
    with pytest.raises(tricount.InvalidArgumentError, match="graph must be a tricount.Graph"):
        tricount.vertex_dict(([0, 1], [1, 2]), [0, 0, 0])
    assert tricount.edge_dict(g, [7, 8, 9]) == {(0, 1): 7, (0, 2): 8, (1, 2): 9}


def test_complete_graphs_closed_form():
    for n in (3, 4, 5, 17, 64):
        g = tricount.Graph.from_edges(*complete_graph(n))
        assert tricount.triangles(g, backend="cpu").tolist() == [(n - 1) * (n - 2) // 2] * n
        assert tricount.edge_support(g, backend="cpu").tolist() == [n - 2] * (n * (n - 1) // 2)
        assert tricount.truss_decomposition(g, backend="cpu").tolist() == [n] * (n * (n - 1) // 2)
        assert tricount.k_truss(g, n, backend="cpu").n_edges == n * (n - 1) // 2
        assert tricount.k_truss(g, n + 1, backend="cpu").n_edges == 0


def test_k_truss_keeps_original_ids_and_names():
    # Two K4s joined by a path; ids far apart and out of order.
    k4a = [(100 + a, 100 + b) for a, b in zip(*complete_graph(4))]
    k4b = [(7 + 1000 * a, 7 + 1000 * b) for a, b in zip(*complete_graph(4))]
    edges = k4a + k4b + [(103, 50), (50, 7)]
    src, dst = zip(*edges)
    g = tricount.Graph.from_edges(np.array(src), np.array(dst), name="two-k4")
    h = tricount.k_truss(g, 4, backend="cpu")
    assert sorted(h.vertex_ids.tolist()) == [7, 100, 101, 102, 103, 1007, 2007, 3007]
    assert h.n_edges == 12 and h.name == "two-k4 4-truss"
    assert tricount.triangles(h, backend="cpu").tolist() == [3] * 8


# -- literal CSRs: each kernel alone ----------------------------------------------------


def test_literal_per_vertex_kernel():
    # K4 minus {0, 1}, oriented by hand (a DAG: 0 -> 2, 0 -> 3, 1 -> 2, 1 -> 3, 2 -> 3):
    #   indptr  = [0, 2, 4, 5, 5]
    #   indices = [2, 3 | 2, 3 | 3 | ]
    # Triangles {0, 2, 3} and {1, 2, 3}: vertices 0, 1 in one, 2, 3 in two.
    rows = np.array([0, 0, 1, 1, 2], dtype=np.int32)
    cols = np.array([2, 3, 2, 3, 3], dtype=np.int32)
    oriented = csr_from_sorted(rows, cols, 4, "degree")
    assert oriented.indptr.tolist() == [0, 2, 4, 5, 5]
    assert per_vertex_bitmap(oriented).tolist() == [1, 1, 2, 2]
    assert per_vertex_numpy(oriented).tolist() == [1, 1, 2, 2]


def test_literal_edge_support_kernel():
    # The same DAG: positions 0..4 are 0->2, 0->3, 1->2, 1->3, 2->3.
    # {2, 3} lies in both triangles; every other edge in one.
    rows = np.array([0, 0, 1, 1, 2], dtype=np.int32)
    cols = np.array([2, 3, 2, 3, 3], dtype=np.int32)
    oriented = csr_from_sorted(rows, cols, 4, "degree")
    assert edge_support_merge(oriented).tolist() == [1, 1, 1, 1, 2]
    assert edge_support_numpy(oriented).tolist() == [1, 1, 1, 1, 2]


def test_literal_peel_frontier_kernel():
    # K4 minus {0, 1} again, now symmetric with undirected edge ids
    #   e0 = {0,2}, e1 = {0,3}, e2 = {1,2}, e3 = {1,3}, e4 = {2,3}
    #   indptr = [0, 2, 4, 7, 10]
    #   cols   = [2, 3 | 2, 3 | 0, 1, 3 | 0, 1, 2]
    #   eid    = [0, 1 | 2, 3 | 0, 2, 4 | 1, 3, 4]
    # Level 1, frontier {e0}: triangle {0, 2, 3} dies, so e1 (support 1) falls
    # to 1 -- already the level, kept there -- and e4 falls from 2 to 1 and
    # joins the next frontier.
    indptr = np.array([0, 2, 4, 7, 10], dtype=np.int64)
    cols = np.array([2, 3, 2, 3, 0, 1, 3, 0, 1, 2], dtype=np.int32)
    eid = np.array([0, 1, 2, 3, 0, 2, 4, 1, 3, 4], dtype=np.int32)
    lo = np.array([0, 0, 1, 1, 2], dtype=np.int32)
    hi = np.array([2, 3, 2, 3, 3], dtype=np.int32)
    support = np.array([1, 1, 1, 1, 2], dtype=np.int32)
    in_curr = np.array([1, 0, 0, 0, 0], dtype=np.uint8)
    removed = np.zeros(5, dtype=np.uint8)
    next_buf = np.empty(5, dtype=np.int32)
    next_count = np.zeros(1, dtype=np.int64)
    n = peel_frontier((indptr, cols, eid), lo, hi, np.array([0], dtype=np.int32), 1, support,
                      in_curr, removed, next_buf, next_count)
    assert n == 1 and next_buf[0] == 4
    assert support.tolist() == [1, 1, 1, 1, 1]


def test_peel_frontier_counts_a_shared_triangle_once():
    # A triangle e0 = {0,1}, e1 = {0,2}, e2 = {1,2} with e0 and e1 both in the
    # frontier at level 1: only e2 survives, and it must lose exactly 1.
    #   indptr = [0, 2, 4, 6]; cols = [1, 2 | 0, 2 | 0, 1]; eid = [0, 1 | 0, 2 | 1, 2]
    indptr = np.array([0, 2, 4, 6], dtype=np.int64)
    cols = np.array([1, 2, 0, 2, 0, 1], dtype=np.int32)
    eid = np.array([0, 1, 0, 2, 1, 2], dtype=np.int32)
    lo = np.array([0, 0, 1], dtype=np.int32)
    hi = np.array([1, 2, 2], dtype=np.int32)
    support = np.array([1, 1, 2], dtype=np.int32)
    in_curr = np.array([1, 1, 0], dtype=np.uint8)
    next_buf = np.empty(3, dtype=np.int32)
    next_count = np.zeros(1, dtype=np.int64)
    n = peel_frontier((indptr, cols, eid), lo, hi, np.array([0, 1], dtype=np.int32), 1, support,
                      in_curr, np.zeros(3, dtype=np.uint8), next_buf, next_count)
    assert n == 1 and next_buf[0] == 2 and support.tolist() == [1, 1, 1]


def test_peel_stops_before_the_requested_level():
    # K5 (trussness 5) plus a pendant triangle (trussness 3) and a tail (2).
    src, dst = complete_graph(5)
    src = list(src) + [4, 4, 5, 6]
    dst = list(dst) + [5, 6, 6, 7]
    g = tricount.Graph.from_edges(src, dst)
    full, removed = CPU.peel(g)
    assert removed.all() and sorted(set(full.tolist())) == [2, 3, 5]
    for stop in range(0, 5):
        part, kept = CPU.peel(g, stop_level=stop)
        assert ((kept == 0) == (full >= stop + 2)).all(), stop
        assert (part[kept == 1] == full[kept == 1]).all()


# -- Hypothesis: random multigraphs ----------------------------------------------------

multigraphs = st.integers(min_value=1, max_value=30).flatmap(
    lambda n: st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                       min_size=0, max_size=150)
)


@settings(max_examples=80, deadline=None)
@given(edges=multigraphs)
def test_random_multigraphs_match_networkx(edges):
    src = [u for u, _ in edges]
    dst = [v for _, v in edges]
    g = tricount.Graph.from_edges(src, dst)
    G = nx_graph(src, dst)
    n_triangles = tricount.count_triangles(g, backend="cpu")
    per_vertex = tricount.triangles(g, backend="cpu")
    support = tricount.edge_support(g, backend="cpu")
    assert tricount.vertex_dict(g, per_vertex) == nx.triangles(G)
    # Both walks: Numba's kernels and NumPy's (a process without Numba).
    assert np.array_equal(per_vertex_bitmap(g.oriented()), per_vertex)
    assert np.array_equal(per_vertex_numpy(g.oriented()), per_vertex)
    assert np.array_equal(edge_support_numpy(g.oriented()), edge_support_merge(g.oriented()))
    assert int(per_vertex.sum()) == 3 * n_triangles == int(support.sum())
    assert frozen(tricount.edge_dict(g, support)) == reference.edge_support(src, dst)
    assert tricount.vertex_dict(g, tricount.clustering(g, backend="cpu")) == nx.clustering(G)
    assert tricount.transitivity(g, backend="cpu") == nx.transitivity(G)
    trussness = tricount.truss_decomposition(g, backend="cpu")
    assert frozen(tricount.edge_dict(g, trussness)) == reference.trussness(src, dst)
    for k in (3, 4, 5):
        assert edge_set(tricount.k_truss(g, k, backend="cpu")) == {
            frozenset(e) for e in nx.k_truss(G, k).edges}


def test_a_fresh_process_computes_clustering_without_numba(tmp_path):
    # Per-vertex counts, clustering and transitivity of a small graph: NumPy's walk, no
    # Numba start, NetworkX's answers.
    import subprocess
    import sys

    G = nx.les_miserables_graph()
    code = (
        "import sys, networkx as nx, tricount; "
        "g = tricount.Graph.from_networkx(nx.les_miserables_graph()); "
        "print(repr(tricount.vertex_dict(g, tricount.triangles(g, backend='cpu'))), '|', "
        "repr(tricount.transitivity(g, backend='cpu')), '|', "
        "'numba.np.arraymath' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    triangles, transitivity, numba_started = out.stdout.strip().split(" | ")
    assert eval(triangles) == nx.triangles(G)
    assert float(transitivity) == nx.transitivity(G)
    assert numba_started == "False"


@settings(max_examples=60, deadline=None)
@given(edges=multigraphs, data=st.data())
def test_relabelling_permutes_the_results(edges, data):
    src = [u for u, _ in edges]
    dst = [v for _, v in edges]
    n = max(src + dst, default=-1) + 1
    new_ids = data.draw(st.lists(st.integers(0, 2**40), min_size=n, max_size=n, unique=True))
    g = tricount.Graph.from_edges(src, dst)
    h = tricount.Graph.from_edges([new_ids[u] for u in src], [new_ids[v] for v in dst])
    base = tricount.vertex_dict(g, tricount.triangles(g, backend="cpu"))
    moved = tricount.vertex_dict(h, tricount.triangles(h, backend="cpu"))
    assert moved == {new_ids[v]: t for v, t in base.items()}
    base_truss = frozen(tricount.edge_dict(g, tricount.truss_decomposition(g, backend="cpu")))
    moved_truss = frozen(tricount.edge_dict(h, tricount.truss_decomposition(h, backend="cpu")))
    assert moved_truss == {frozenset(new_ids[v] for v in e): t for e, t in base_truss.items()}


# -- the real graphs ---------------------------------------------------------------------

#: Definition-level truss checks (the reference oracle) only up to this many edges.
REFERENCE_TRUSS_MAX_EDGES = 1_000  # the oracle takes seconds on jazz (2,742 edges)
#: NetworkX comparisons: up to 7,000 edges in the default suite (under a second in all),
#: up to 30,000 with -m slow (NetworkX alone takes half a minute on those).
NX_EDGES = pytest.mark.parametrize("real_graphs", [
    pytest.param((0, 7_000), id="to-7k"),
    pytest.param((7_000, 30_000), id="7k-30k", marks=pytest.mark.slow)], indirect=True)


@BY_REAL_SIZE
def test_real_graphs_sums(real_graphs):
    for row, g in real_graphs:
        per_vertex = tricount.triangles(g, backend="cpu")
        support = tricount.edge_support(g, backend="cpu")
        assert int(per_vertex.sum()) == 3 * row["triangles"], row["name"]
        assert int(support.sum()) == 3 * row["triangles"], row["name"]


@NX_EDGES
def test_real_graphs_against_networkx(real_graphs):
    for row, g in real_graphs:
        lo, hi = g.edges()
        ids = g.vertex_ids
        G = nx_graph(ids[lo].tolist(), ids[hi].tolist(), ids.tolist())
        assert tricount.vertex_dict(g, tricount.triangles(g, backend="cpu")) == nx.triangles(G)
        assert tricount.vertex_dict(g, tricount.clustering(g, backend="cpu")) == nx.clustering(G)
        assert tricount.transitivity(g, backend="cpu") == nx.transitivity(G), row["name"]
        assert tricount.average_clustering(g, backend="cpu") == pytest.approx(
            nx.average_clustering(G), rel=1e-12)
        k_max = int(tricount.truss_decomposition(g, backend="cpu").max())
        top = tricount.k_truss(g, k_max, backend="cpu")
        assert edge_set(top) == {frozenset(e) for e in nx.k_truss(G, k_max).edges}, row["name"]
        assert nx.k_truss(G, k_max + 1).number_of_edges() == 0


@BY_REAL_SIZE
def test_real_graphs_truss(real_graphs):
    for row, g in real_graphs:
        trussness = tricount.truss_decomposition(g, backend="cpu")
        k_max = int(trussness.max())
        # Every edge of the k_max-truss lies in at least k_max - 2 of its triangles.
        top = tricount.local._edge_subgraph(g, trussness == k_max, None)
        assert int(tricount.edge_support(top, backend="cpu").min()) >= k_max - 2, row["name"]
        # The two code paths agree: k_truss peels only up to level k - 3.
        for k in (3, k_max, k_max + 1):
            h = tricount.k_truss(g, k, backend="cpu")
            assert h.n_edges == int((trussness >= k).sum()), (row["name"], k)
        if row["edges"] <= REFERENCE_TRUSS_MAX_EDGES:
            lo, hi = (a.tolist() for a in g.edges())
            expected = reference.trussness(lo, hi)
            assert trussness.tolist() == [expected[frozenset(e)] for e in zip(lo, hi)], row["name"]
