"""The short route (tricount.gpu.small, kernels/small.cu): exact counts, the routing, the workspace.

Every count is judged by the CPU engine or the plain reference; the route taken
is read from the result's method. Graphs straddle the shared table's bound (a
vertex whose out-list, under the (degree, id) order, needs more than
``WARP_SLOTS`` slots is counted against a table in global memory) and the
route's own bounds.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
from gpu_support import (complete_graph, cpu_count, edges_graph, hub_graph, load_real,  # noqa: E402
                         real_graphs, require_gpu)

pytestmark = pytest.mark.gpu
require_gpu()

import cupy  # noqa: E402

import tricount  # noqa: E402
from tricount import reference  # noqa: E402
from tricount.bench.gpu_timer import KernelTimer  # noqa: E402
from tricount.errors import UnsupportedGraphError  # noqa: E402
from tricount.gpu import engine, small  # noqa: E402
from tricount.gpu import plan as gp  # noqa: E402
from tricount.gpu.plan import Plan  # noqa: E402

SHORT = gp.SHORT_ROUTE_METHOD


@pytest.fixture(autouse=True, params=[None, "hash"], ids=["bits-where-they-fit", "hash"])
def count_set(request, monkeypatch):
    """Every test twice: with the launcher's choice of count kernel (the bitmap one for
    graphs of up to 98,304 vertices, the hash one past them) and with the hash one forced."""
    monkeypatch.setattr(small, "COUNT_SET", request.param)
    return request.param


def on_device(graph, index_dtype=None):
    """A fresh device graph over ``graph``'s CSR, as the benchmark makes it (ids cast to
    ``index_dtype`` when given)."""
    indices = graph.indices if index_dtype is None else graph.indices.astype(index_dtype)
    return tricount.CSRGraph.from_upper_csr(cupy.asarray(graph.indptr), cupy.asarray(indices),
                                            graph.n_vertices, vertex_ids=graph.vertex_ids)


def judge(graph) -> int:
    lo, hi = graph.edges()
    return reference.count_triangles(cupy.asnumpy(lo), cupy.asnumpy(hi))


def short_count(graph) -> int:
    out = engine.count(graph)
    assert out.method == SHORT, out.method_reason
    assert out.method_reason.startswith("auto: short route")
    return out.n_triangles


def max_out_degree(graph) -> int:
    """The longest out-list under the (degree, id) order (the CPU's orientation)."""
    return int(np.diff(np.asarray(graph.oriented().indptr)).max())


# -- named graphs --------------------------------------------------------------------------


#   0 - 1        indptr  = [0, 3, 5, 6, 6]
#   | X |        indices = [1, 2, 3, 2, 3, 3]     (K4: 4 triangles)
#   3 - 2
def test_literal_k4():
    g = tricount.CSRGraph.from_upper_csr(cupy.asarray([0, 3, 5, 6, 6], dtype=cupy.int64),
                                         cupy.asarray([1, 2, 3, 2, 3, 3], dtype=cupy.int32),
                                         4, vertex_ids=np.arange(4))
    assert short_count(g) == 4


@pytest.mark.parametrize("k", [3, 4, 5, 31, 32, 33, 65, 100])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_complete_graphs(k, index_dtype):
    assert short_count(on_device(complete_graph(k), index_dtype)) == k * (k - 1) * (k - 2) // 6


@pytest.mark.parametrize("pairs, n, expected", [
    ([(0, 1)], None, 0),                                    # one edge
    ([(0, 1)], 10, 0),                                      # one edge, eight isolated vertices
    ([(0, v) for v in range(1, 200)], None, 0),             # a star
    ([(0, 1), (1, 2), (0, 2), (5, 6), (6, 7), (5, 7)], 12, 2),  # two triangles, isolated 3, 4, 8..
    ([(0, 1), (1, 2), (0, 2), (2, 3), (3, 4), (2, 4)], None, 2),  # a bowtie
], ids=["edge", "edge+isolated", "star", "triangles+isolated", "bowtie"])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_named_graphs(pairs, n, expected, index_dtype):
    g = edges_graph(pairs, n_vertices=n)
    assert short_count(on_device(g, index_dtype)) == expected


def test_a_host_graph_is_copied_and_counted():
    out = engine.count(complete_graph(12))
    assert out.method == SHORT and out.n_triangles == 220
    assert {"transfer_s", "count_s", "gpu_s"} == set(out.timings)


def test_a_graph_without_edges_takes_the_planned_route():
    out = engine.count(tricount.CSRGraph.from_edges([], [], n_vertices=5))
    assert out.n_triangles == 0 and out.method in gp.GPU_METHODS


def test_hub_with_rim():
    g = hub_graph(5000)  # one triangle per rim edge
    assert short_count(on_device(g)) == 4999


# -- the shared table's bound ----------------------------------------------------------------


@pytest.mark.parametrize("k", [small.WARP_SLOTS // 2, small.WARP_SLOTS // 2 + 1,
                               small.WARP_SLOTS // 2 + 2, small.WARP_SLOTS + 40])
def test_out_lists_around_the_shared_table(k):
    # K_k's longest out-list is k - 1: on chip up to WARP_SLOTS / 2 entries, in a global
    # table past it.
    g = complete_graph(k)
    assert short_count(on_device(g)) == k * (k - 1) * (k - 2) // 6


def test_dense_core_with_long_and_short_lists():
    # A random dense core (out-lists of several hundred, global tables) beside a sparse
    # fringe (shared tables), in one count.
    rng = np.random.default_rng(7)
    i, j = np.triu_indices(900, 1)
    keep = rng.random(i.size) < 0.8
    fringe = rng.integers(900, 20_000, size=(30_000, 2))
    src = np.concatenate([i[keep], fringe[:, 0], rng.integers(0, 900, 5000)])
    dst = np.concatenate([j[keep], fringe[:, 1], rng.integers(900, 20_000, 5000)])
    g = tricount.CSRGraph.from_edges(src, dst)
    assert max_out_degree(g) > small.WARP_SLOTS // 2
    assert short_count(on_device(g)) == cpu_count(g)


@pytest.mark.parametrize("light, per_warp", [(0, 1), (8, 4), (32, 3), (8, 64)])
def test_light_lists_and_tasks_of_any_size(monkeypatch, light, per_warp):
    # A slot whose source's list is at most LIGHT_LIST long is counted by its lane alone,
    # the others in runs against the source's set; tasks of equal slots cut lists
    # anywhere. Every source through a set (0), the default, lists of up to 32 in
    # registers, and tasks from one a warp to more than the slots: a dense core (lists in
    # global tables), a sparse rim (light lists), and a hub whose list is cut across tasks.
    monkeypatch.setattr(small, "LIGHT_LIST", light)
    monkeypatch.setattr(small, "TASKS_PER_WARP", per_warp)
    monkeypatch.setattr(small, "_KERNELS", {})  # compiled again with this define
    monkeypatch.setattr(small, "_WORKSPACES", {})
    rng = np.random.default_rng(light + per_warp)
    i, j = np.triu_indices(700, 1)
    keep = rng.random(i.size) < 0.7
    rim = rng.integers(700, 30_000, size=(60_000, 2))
    src = np.concatenate([i[keep], rim[:, 0], rng.integers(0, 700, 8000)])
    dst = np.concatenate([j[keep], rim[:, 1], rng.integers(700, 30_000, 8000)])
    for g in (tricount.CSRGraph.from_edges(src, dst), complete_graph(40), hub_graph(3000)):
        assert short_count(on_device(g)) == cpu_count(g)


@pytest.mark.parametrize("items", [1, 8])
def test_scans_of_many_tiles(monkeypatch, items):
    # The place kernel scans the out-degrees in tiles of BLOCK_SIZE x SCAN_ITEMS vertices,
    # a tile per ticket, each adding the sums that the tiles of lower tickets published.
    # One item a thread makes 1,024 tiles of the route's 2^18 vertices, the default 128:
    # thick tiles (a dense block of low ids), tiles with no edge at all (they publish a sum
    # of zero), and a hub at the last vertex whose list runs across the others.
    monkeypatch.setattr(small, "SCAN_ITEMS", items)
    monkeypatch.setattr(small, "SCAN_TILE", small.BLOCK_SIZE * items)
    monkeypatch.setattr(small, "_KERNELS", {})  # compiled again with this define
    monkeypatch.setattr(small, "_WORKSPACES", {})
    rng = np.random.default_rng(items)
    n = gp.SHORT_ROUTE_MAX_VERTICES
    dense = rng.integers(0, 3000, size=(40_000, 2))
    sparse = rng.integers(0, n, size=(20_000, 2))
    hub = np.column_stack([np.full(5000, n - 1), rng.integers(0, n, 5000)])
    g = on_device(edges_graph(np.concatenate([dense, sparse, hub]), n_vertices=n))
    assert small.scan_tiles(n) == n // (small.BLOCK_SIZE * items)
    assert short_count(g) == judge(g)


def test_past_2_32_triangles(monkeypatch):
    # K2955 has C(2955, 3) = 4,296,157,285 > 2^32 triangles and 4.36 M edges, past the
    # route's edge bound: raised for this count, the kernels' limits are far higher.
    monkeypatch.setattr(gp, "SHORT_ROUTE_MAX_EDGES", 1 << 23)
    n = 2955
    assert short_count(on_device(complete_graph(n))) == n * (n - 1) * (n - 2) // 6 \
        == 4_296_157_285


# -- the route's bounds ----------------------------------------------------------------------


def _fan(n_edges):
    """Exactly ``n_edges`` edges: hub 0 with a rim path, one triangle per rim edge."""
    pairs, k = [], 1
    while len(pairs) < n_edges:
        pairs.append((0, k))
        if k > 1 and len(pairs) < n_edges:
            pairs.append((k - 1, k))
        k += 1
    return edges_graph(pairs)


@pytest.mark.parametrize("bound", [1000, 1001])
def test_graphs_around_the_edge_bound(monkeypatch, bound):
    monkeypatch.setattr(gp, "SHORT_ROUTE_MAX_EDGES", 1000)
    g = on_device(_fan(bound))
    out = engine.count(g)
    assert out.n_triangles == judge(g)
    assert (out.method == SHORT) == (bound <= 1000)


@pytest.mark.parametrize("n", [511, 512])
def test_graphs_around_the_vertex_bound(monkeypatch, n):
    monkeypatch.setattr(gp, "SHORT_ROUTE_MAX_VERTICES", 511)
    g = on_device(edges_graph([(0, 1), (1, 2), (0, 2)], n_vertices=n))
    out = engine.count(g)
    assert out.n_triangles == 1
    assert (out.method == SHORT) == (n <= 511)


def test_bitmaps_of_every_size_in_any_order(count_set):
    # The bitmap kernel's shared memory grows with n; past 48 KiB it needs the kernel's
    # opt-in, which must never be lowered by a smaller graph counted in between (device
    # run 37 launched a 37 KiB map after a 10 KiB one and the driver refused it). Sizes
    # from 5 KiB to the bound (96 KiB), down and up again; a triangle and a sparse rim each.
    rng = np.random.default_rng(37)
    for n in (5_000, 60_000, 40_000, 5_000, 98_304, 40_000, 98_305, 1_000):
        rim = rng.integers(0, n, size=(3 * n, 2))
        g = on_device(edges_graph(np.concatenate([[(0, 1), (1, 2), (0, 2)], rim]),
                                  n_vertices=n))
        expected = "hash" if count_set == "hash" or small.bits_bytes(n) > small.BITS_MAX_BYTES \
            else "bits"
        assert small.count_set(n) == expected
        assert short_count(g) == judge(g), n


def test_named_methods_and_plans_take_the_planned_route():
    g = on_device(complete_graph(20))
    for kwargs in ({"method": "hash"}, {"orientation": "rank"}, {"plan": Plan()},
                   {"method": "wedge", "orientation": "id"}):
        out = engine.count(g, **kwargs)
        assert out.n_triangles == 1140 and out.method in gp.GPU_METHODS, kwargs


# -- every shared graph and drawn graphs ------------------------------------------------------


@pytest.mark.parametrize("row", real_graphs(), ids=lambda row: row["name"])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_real_graph(row, index_dtype):
    # graphs.json's triangles are the CPU engine's and the reference's (tests/test_graph*.py).
    assert short_count(on_device(load_real(row["name"]), index_dtype)) == row["triangles"]


edge_lists = st.lists(st.tuples(st.integers(0, 80), st.integers(0, 80)), min_size=1,
                      max_size=600)


@settings(max_examples=60, deadline=None)
@given(edge_lists, st.integers(0, 20), st.sampled_from([np.int32, np.int64]))
def test_drawn_graphs(pairs, extra_vertices, index_dtype):
    pairs = np.asarray(pairs, dtype=np.int64)
    g = tricount.CSRGraph.from_edges(pairs[:, 0], pairs[:, 1],
                                     n_vertices=int(pairs.max()) + 1 + extra_vertices)
    if g.n_edges == 0:  # only loops were drawn
        return
    assert short_count(on_device(g, index_dtype)) == judge(g)


@settings(max_examples=10, deadline=None)
@given(st.integers(520, 800), st.floats(0.6, 0.95), st.integers(0, 2**31))
def test_drawn_dense_graphs(n, density, seed):
    # Dense enough that many out-lists pass the shared table.
    rng = np.random.default_rng(seed)
    i, j = np.triu_indices(n, 1)
    keep = rng.random(i.size) < density
    g = tricount.CSRGraph.from_edges(i[keep], j[keep], n_vertices=n)
    assert short_count(on_device(g)) == cpu_count(g)


# -- the workspace -----------------------------------------------------------------------------


def test_repeated_calls_reuse_and_grow_the_workspace():
    graphs = [complete_graph(10), hub_graph(3000), complete_graph(10), complete_graph(400),
              hub_graph(3000), complete_graph(10)]
    expected = [120, 2999, 120, 400 * 399 * 398 // 6, 2999, 120]
    sizes = []
    for g, want in zip(graphs, expected):
        dev = on_device(g)
        for _ in range(3):
            assert short_count(on_device(g)) == want  # fresh arrays: launched
            assert short_count(dev) == want  # the same arrays: captured, then replayed
        sizes.append(_workspace().words.size)
    assert sizes == sorted(sizes)  # grown, never shrunk
    assert sizes[-1] >= small.workspace_words(400, 400 * 399 // 2)
    before = _workspace().words.data.ptr
    assert short_count(on_device(complete_graph(50))) == 19600
    assert _workspace().words.data.ptr == before  # a smaller graph: no allocation


def _workspace():
    return small._WORKSPACES[cupy.cuda.runtime.getDevice()]


def test_a_repeated_graph_is_replayed_and_reads_its_arrays_anew():
    # Two triangles, then a 6-cycle written into the same device arrays (same n, m):
    # the second graph's counts come from the captured graph's replays.
    #   triangles: indptr [0, 2, 3, 3, 5, 6, 6], indices [1, 2, 2, 4, 5, 5]
    #   6-cycle:   indptr [0, 2, 3, 4, 5, 6, 6], indices [1, 5, 2, 3, 4, 5]
    indptr = cupy.asarray([0, 2, 3, 3, 5, 6, 6], dtype=cupy.int64)
    indices = cupy.asarray([1, 2, 2, 4, 5, 5], dtype=cupy.int32)

    def counts(n_calls):
        return [short_count(tricount.CSRGraph.from_upper_csr(indptr, indices, 6,
                                                              vertex_ids=np.arange(6)))
                for _ in range(n_calls)]

    assert counts(4) == [2, 2, 2, 2]
    replays = [g for g in _workspace().graphs.values() if g]
    assert replays, "the repeated graph was not captured"
    indptr[...] = cupy.asarray([0, 2, 3, 4, 5, 6, 6], dtype=cupy.int64)
    indices[...] = cupy.asarray([1, 5, 2, 3, 4, 5], dtype=cupy.int32)
    assert counts(3) == [0, 0, 0]
    indices[...] = cupy.asarray([1, 2, 2, 4, 5, 5], dtype=cupy.int32)
    indptr[...] = cupy.asarray([0, 2, 3, 3, 5, 6, 6], dtype=cupy.int64)
    assert counts(2) == [2, 2]


def test_replays_of_real_graphs_agree():
    for row in real_graphs()[:6]:
        g = on_device(load_real(row["name"]))
        assert [engine.count(g).n_triangles for _ in range(4)] == [row["triangles"]] * 4


def test_a_timer_adds_the_kernel_time():
    out = engine.count(on_device(complete_graph(30)), timer=KernelTimer)
    assert out.method == SHORT and out.n_triangles == 4060
    assert {"transfer_s", "count_s", "gpu_s", "kernel_s"} == set(out.timings)
    assert isinstance(out.timings["kernel_s"], float)


def test_running_out_of_memory_is_an_unsupported_graph(monkeypatch):
    def exhausted(self, n_vertices, n_edges):
        raise cupy.cuda.memory.OutOfMemoryError(1 << 40, 1 << 30)

    monkeypatch.setattr(small.Workspace, "fit", exhausted)
    with pytest.raises(UnsupportedGraphError, match="short route ran out of GPU memory"):
        engine.count(on_device(complete_graph(10)))


def test_api_reports_the_short_route():
    res = tricount.count(complete_graph(6), backend="gpu")
    assert res.n_triangles == 20 and res.method == SHORT
    assert "short route" in res.method_reason
