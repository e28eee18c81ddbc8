"""The bitmap counter in id order and in rank order: the same counts, the probes it predicts,
and which order the engine picks (``tricount.cpu.bitmap.plan_in_id_order``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tricount
from tricount import reference
from tricount.cpu import bitmap, engine, id_order, one_region
from tricount.generate import grid, rmat
from tricount.prep.orient import orient_upper

from graphs import NAMED


def brute_plan(oriented):
    """The first pass by its definition: every pair (x, v) of a row probes min(d+(v), the
    entries after v), and goes to v when d+(v) is the larger."""
    indptr, out = oriented.indptr.tolist(), oriented.indices.tolist()
    total, deferred = 0, [0] * oriented.n_vertices
    for x in range(oriented.n_vertices):
        for k in range(indptr[x], indptr[x + 1] - 1):
            v, rest = out[k], indptr[x + 1] - k - 1
            total += min(indptr[v + 1] - indptr[v], rest)
            deferred[v] += indptr[v + 1] - indptr[v] > rest
    return total, deferred


def random_graph(n, p, seed):
    rng = np.random.default_rng(seed)
    src, dst = np.triu_indices(n, k=1)
    keep = rng.random(src.shape[0]) < p
    return src[keep], dst[keep]


def hubs_in_the_middle(leaves: int, hubs: int):
    """Every leaf joined to every hub, the hubs' ids between the two halves of the leaves':
    a low leaf's row holds all the hubs, so in id order each of its pairs (leaf, hub) probes
    the hubs after it (about hubs / 4 probes an edge); by rank, the hubs have no
    out-neighbours and nothing is probed. No triangles."""
    low = np.arange(leaves // 2)
    hub = np.arange(hubs) + leaves // 2
    high = np.arange(leaves - leaves // 2) + leaves // 2 + hubs
    every = np.concatenate([low, high])
    src = np.repeat(every, hubs)
    dst = np.tile(hub, every.shape[0])
    return src, dst


@pytest.fixture
def order(monkeypatch, request):
    """Force the bitmap's order: "id" (a bound no graph exceeds) or "rank" (no probes allowed)."""
    bound = 1 << 62 if request.param == "id" else -1
    monkeypatch.setattr(bitmap, "id_order_limit", lambda n_edges, workers: bound)
    return request.param


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 90), p=st.floats(0.0, 0.7), seed=st.integers(0, 2**32 - 1))
def test_the_first_pass_matches_its_definition(n, p, seed):
    graph = tricount.Graph.from_edges(*random_graph(n, p, seed), n_vertices=n)
    upper = graph.upper()
    ranked = orient_upper(upper, graph.degrees, "rank", parallel=True)
    for oriented in (upper, ranked):
        plan = bitmap.plan_deferral(oriented)
        assert (plan.probes, plan.n_deferred.tolist()) == brute_plan(oriented)
        # The count with its first pass given is the count that makes it.
        assert bitmap.count_bitmap(oriented, plan) == bitmap.count_bitmap(oriented)


@pytest.mark.parametrize("order", ["id", "rank"], indirect=True)
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # the bounds stay put
@given(n=st.integers(1, 90), p=st.floats(0.0, 0.7), seed=st.integers(0, 2**32 - 1))
def test_both_orders_match_the_oracle(order, n, p, seed):
    src, dst = random_graph(n, p, seed)
    graph = tricount.Graph.from_edges(src, dst, n_vertices=n)
    result = engine.count(graph, method="bitmap")
    assert result.method_reason.endswith(f"{order} order" if graph.n_edges else "id order")
    assert result.n_triangles == reference.count_triangles(src.tolist(), dst.tolist())


@pytest.mark.parametrize("marks", ["bytes", "bits"])
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # the bound stays put
@given(n=st.integers(1, 90), p=st.floats(0.0, 0.7), seed=st.integers(0, 2**32 - 1))
def test_the_one_pass_and_its_budget(monkeypatch, marks, n, p, seed):
    # The one pass (a graph on the calling thread) counts what the three passes count, with
    # either marks (tricount.cpu._marks), takes the probes of their first pass, and gives up
    # exactly when its budget is below them. The one region, every pair at its anchor, counts
    # the same, in parallel and on the calling thread (its kernel's serial twin).
    from tricount.cpu import _marks
    from tricount.prep._parallel import on_calling_thread

    monkeypatch.setattr(_marks, "BYTE_MAP_MAX_VERTICES", 1 << 20 if marks == "bytes" else 0)
    src, dst = random_graph(n, p, seed)
    graph = tricount.Graph.from_edges(src, dst, n_vertices=n)
    upper = graph.upper()
    expected = reference.count_triangles(src.tolist(), dst.tolist())
    for oriented in (upper, orient_upper(upper, graph.degrees, "rank", parallel=True)):
        probes, _ = brute_plan(oriented)
        assert bitmap.count_one_pass(oriented) == expected
        assert bitmap.count_bitmap(oriented) == expected
        assert bitmap.count_at_anchors(oriented) == expected
        with on_calling_thread():
            assert bitmap.count_at_anchors(oriented) == expected
        assert bitmap.count_one_pass(oriented, budget=probes) == expected
        # (an empty graph is counted whatever the budget, as plan_in_id_order does)
        assert bitmap.count_one_pass(oriented, budget=probes - 1) == (
            None if oriented.n_edges else 0)


def test_the_one_pass_gives_the_id_order_up_past_its_bound(monkeypatch):
    # Every graph on the calling thread: the one pass stops once past the id order's bound
    # and counts the rank orientation instead.
    monkeypatch.setattr(engine, "SERIAL_MAX_EDGES", 1 << 40)
    src, dst = hubs_in_the_middle(600, 300)  # about 75 probes an edge in id order
    graph = tricount.Graph.from_edges(src, dst)
    assert bitmap.probes(graph.upper()) > id_order.id_order_limit(graph.n_edges, 1) * graph.n_edges
    assert bitmap.count_one_pass_in_id_order(graph.upper()) is None
    result = engine.count(graph, method="bitmap")
    assert result.method_reason.endswith("one pass, rank order") and result.n_triangles == 0
    src, dst = rmat(10, 8, seed=3)  # and a graph with triangles, in id order
    graph = tricount.Graph.from_edges(src, dst)
    result = engine.count(graph, method="bitmap")
    assert result.method_reason.endswith("one pass, id order")
    assert result.n_triangles == reference.count_triangles(src.tolist(), dst.tolist())


@pytest.mark.parametrize("order", ["id", "rank"], indirect=True)
@pytest.mark.parametrize("name", sorted(NAMED))
def test_both_orders_on_named_graphs(order, name):
    src, dst, n_triangles, _ = NAMED[name]
    graph = tricount.Graph.from_edges(src, dst)
    assert engine.count(graph, method="bitmap").n_triangles == n_triangles


@pytest.mark.parametrize("order", ["id", "rank"], indirect=True)
@pytest.mark.parametrize("marks", ["bytes", "bits"])
def test_both_orders_in_parallel_regions(order, marks, monkeypatch):
    # Graphs under SERIAL_MAX_EDGES run the one pass; this one runs the threads' kernels,
    # the three regions (not the one region that two threads or more may take).
    from tricount.cpu import _marks

    monkeypatch.setattr(engine, "SERIAL_MAX_EDGES", 0)
    monkeypatch.setattr(one_region, "ONE_REGION_MAX_EDGES", 0)
    monkeypatch.setattr(_marks, "BYTE_MAP_MAX_VERTICES", 1 << 20 if marks == "bytes" else 0)
    src, dst = rmat(11, 16, seed=4)
    graph = tricount.Graph.from_edges(src, dst)
    expected = reference.count_triangles(src.tolist(), dst.tolist())
    result = engine.count(graph, method="bitmap")
    assert result.n_triangles == expected and "one pass" not in result.method_reason


@pytest.mark.parametrize("marks", ["bytes", "bits"])
def test_two_threads_or_more_count_a_mid_sized_graph_in_one_region(monkeypatch, marks):
    from tricount.cpu import _marks

    monkeypatch.setattr(_marks, "BYTE_MAP_MAX_VERTICES", 1 << 20 if marks == "bytes" else 0)
    src, dst = rmat(11, 16, seed=4)
    graph = tricount.Graph.from_edges(src, dst)
    expected = reference.count_triangles(src.tolist(), dst.tolist())
    assert graph.n_edges >= engine.serial_bound("bitmap", 16)  # not on the calling thread
    probes = bitmap.anchor_probes_per_edge(graph.upper())
    monkeypatch.setattr(one_region, "ONE_REGION_PROBES_PER_EDGE", probes * 2)
    for threads in (16, 2):  # two: within bitmap's wider serial bound, yet one region
        monkeypatch.setattr(engine, "thread_count", lambda: threads)
        assert graph.n_edges < engine.serial_bound("bitmap", 2)
        result = engine.count(graph, method="bitmap")
        assert result.method_reason.endswith("one region, every pair at its anchor"), threads
        assert result.n_triangles == expected
    # Past the bound on two threads: the one pass on this thread; on one thread, always.
    monkeypatch.setattr(one_region, "ONE_REGION_PROBES_PER_EDGE", probes / 2)
    result = engine.count(graph, method="bitmap")
    assert "one pass" in result.method_reason and result.n_triangles == expected
    monkeypatch.setattr(one_region, "ONE_REGION_PROBES_PER_EDGE", probes * 2)
    monkeypatch.setattr(engine, "thread_count", lambda: 1)
    result = engine.count(graph, method="bitmap")
    assert "one region" not in result.method_reason and result.n_triangles == expected


def test_small_graphs_keep_the_one_pass(monkeypatch):
    # Under ONE_REGION_MIN_EDGES on any number of threads.
    src, dst = rmat(9, 8, seed=3)
    graph = tricount.Graph.from_edges(src, dst)
    assert graph.n_edges < one_region.ONE_REGION_MIN_EDGES
    for threads in (2, 16):
        monkeypatch.setattr(engine, "thread_count", lambda: threads)
        result = engine.count(graph, method="bitmap")
        assert "one pass" in result.method_reason, threads
        assert result.n_triangles == reference.count_triangles(src.tolist(), dst.tolist())


def test_more_threads_take_the_one_region_under_the_serial_bound(monkeypatch):
    # 10,002 edges: over ONE_REGION_MIN_EDGES, under SERIAL_MAX_EDGES, where 16 threads kept
    # the one pass on the calling thread before (ca-GrQc 0.3-0.5 -> 0.1-0.2 ms, H100 host).
    src, dst = rmat(11, 6, seed=1)
    graph = tricount.Graph.from_edges(src, dst)
    assert one_region.ONE_REGION_MIN_EDGES <= graph.n_edges < engine.SERIAL_MAX_EDGES
    monkeypatch.setattr(one_region, "ONE_REGION_SMALL_PROBES_PER_EDGE", float("inf"))
    monkeypatch.setattr(engine, "thread_count", lambda: 16)
    result = engine.count(graph, method="bitmap")
    assert result.method_reason.endswith("one region, every pair at its anchor")
    assert result.n_triangles == reference.count_triangles(src.tolist(), dst.tolist())


def test_which_graphs_count_in_one_region(monkeypatch):
    # The estimate of the anchors' probes: exact while the entries fit the sample.
    upper = tricount.Graph.from_edges(*rmat(7, 8, seed=2)).upper()
    assert 0 < upper.n_edges <= bitmap.ONE_REGION_SAMPLES
    exact = np.diff(upper.indptr)[upper.indices].mean()
    assert bitmap.anchor_probes_per_edge(upper) == pytest.approx(exact)
    # Under the least size (the one pass's): on no number of threads.
    assert not any(bitmap.at_anchors(upper, threads) for threads in (1, 2, 3, 16))
    monkeypatch.setattr(one_region, "ONE_REGION_MIN_EDGES", upper.n_edges)
    assert bitmap.at_anchors(upper, 2) and bitmap.at_anchors(upper, 3)
    assert bitmap.at_anchors(upper, 16) and not bitmap.at_anchors(upper, 1)
    monkeypatch.setattr(one_region, "ONE_REGION_PROBES_PER_EDGE", exact * 0.9)
    assert not bitmap.at_anchors(upper, 2)  # two threads: the one bound for every size
    assert bitmap.at_anchors(upper, 16)  # more: the small graphs' bound
    monkeypatch.setattr(one_region, "ONE_REGION_MAX_EDGES", upper.n_edges)
    assert not bitmap.at_anchors(upper, 16)
    monkeypatch.undo()
    monkeypatch.setattr(one_region, "ONE_REGION_MIN_EDGES", upper.n_edges)
    assert upper.n_edges < one_region.ONE_REGION_SMALL_EDGES  # a small graph's bound applies
    monkeypatch.setattr(one_region, "ONE_REGION_PROBES_PER_EDGE", exact * 0.9)
    assert bitmap.at_anchors(upper, 16)
    monkeypatch.setattr(one_region, "ONE_REGION_SMALL_PROBES_PER_EDGE", exact * 0.9)
    assert not bitmap.at_anchors(upper, 16)
    monkeypatch.setattr(one_region, "ONE_REGION_SMALL_EDGES", upper.n_edges)  # the larger's
    monkeypatch.setattr(one_region, "ONE_REGION_SMALL_PROBES_PER_EDGE", exact * 2)
    assert not bitmap.at_anchors(upper, 16)
    monkeypatch.undo()
    # A low leaf's pair with each hub probes the hubs' rows: hundreds of probes an edge.
    upper = tricount.Graph.from_edges(*hubs_in_the_middle(1200, 600)).upper()
    assert bitmap.anchor_probes_per_edge(upper) > one_region.ONE_REGION_PROBES_PER_EDGE
    monkeypatch.setattr(one_region, "ONE_REGION_MIN_EDGES", 0)
    assert not bitmap.at_anchors(upper, 16)
    empty = tricount.Graph.from_edges(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    assert not bitmap.at_anchors(empty.upper(), 16) and bitmap.count_at_anchors(empty.upper()) == 0


def test_few_probes_count_in_id_order():
    graph = tricount.Graph.from_edges(*grid(40, 40))
    assert bitmap.probes(graph.upper()) <= id_order.ID_ORDER_PROBES_PER_EDGE * graph.n_edges
    result = engine.count(graph, method="bitmap")
    assert result.method_reason.endswith("id order") and result.n_triangles == 0


def test_many_probes_in_id_order_count_by_rank():
    src, dst = hubs_in_the_middle(1200, 600)  # 150 probes an edge in id order
    graph = tricount.Graph.from_edges(src, dst)
    upper = graph.upper()
    workers = (1, 2, id_order.ID_ORDER_MANY_THREADS, 64)
    assert all(bitmap.probes(upper) > id_order.id_order_limit(graph.n_edges, w) * graph.n_edges
               for w in workers)
    ranked = orient_upper(upper, graph.degrees, "rank", parallel=True)
    assert bitmap.probes(ranked) == 0
    assert bitmap.plan_in_id_order(upper) is None
    result = engine.count(graph, method="bitmap")
    assert result.method_reason.endswith("rank order") and result.n_triangles == 0


def test_the_limit_by_size_and_threads():
    small, large = id_order.ID_ORDER_SMALL_MAX_EDGES - 1, id_order.ID_ORDER_SMALL_MAX_EDGES
    assert id_order.id_order_limit(small, 2) == id_order.ID_ORDER_SMALL_PROBES_PER_EDGE
    assert id_order.id_order_limit(large, 2) == id_order.ID_ORDER_PROBES_PER_EDGE
    many = id_order.ID_ORDER_MANY_THREADS
    assert id_order.id_order_limit(large, many) == id_order.ID_ORDER_MANY_THREADS_PROBES_PER_EDGE
    # R-MAT 12 takes between 16 and 64 probes an edge in id order: the id order while the
    # graph is "small" for the bounds, the rank order once it is not.
    graph = tricount.Graph.from_edges(*rmat(12, 16, seed=1))
    per_edge = bitmap.probes(graph.upper()) / graph.n_edges
    assert id_order.ID_ORDER_PROBES_PER_EDGE < per_edge <= id_order.ID_ORDER_SMALL_PROBES_PER_EDGE


def test_empty_graph():
    graph = tricount.Graph.from_edges(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    assert bitmap.probes(graph.upper()) == 0
    assert bitmap.plan_in_id_order(graph.upper()) is not None
    assert engine.count(graph, method="bitmap").n_triangles == 0


@pytest.mark.parametrize("marks", ["bytes", "bits"])
@settings(max_examples=60, deadline=None)
@given(size=st.integers(1, 12), seed=st.integers(0, 2**32 - 1))
def test_a_probe_counts_the_marked_entries_of_its_range(marks, size, seed):
    # Every range of an array, the short ones (masked loads, clamped at the array's end)
    # and the long ones, empty and reversed ones included.
    from tricount.cpu import _marks

    rng = np.random.default_rng(seed)
    n = 2**20 + 70 if marks == "bits" else 70  # ids above 2^20 for the bitmap
    out = rng.integers(0, n, size=size).astype(np.int32)
    chosen = {int(w) for w in out if rng.random() < 0.5}
    table = _marks.new_marks(n)
    assert table.dtype == (np.uint8 if marks == "bytes" else np.uint64)
    for w in chosen:
        _marks.set_mark(table, np.uint64(w))
    for begin in range(size + 1):
        for end in range(size + 1):
            expected = sum(int(w) in chosen for w in out[begin:end])
            assert bitmap._probe(table, out, np.int64(begin), np.int64(end)) == expected


# -- triangles at each vertex, in id order (cpu/per_vertex.py) ------------------------------


def brute_per_vertex(src, dst, n):
    per_vertex = [0] * n
    for v, count in reference.triangles_per_vertex(src.tolist(), dst.tolist()).items():
        per_vertex[v] = count
    return per_vertex


@pytest.mark.parametrize("order", ["id", "rank"], indirect=True)
@pytest.mark.parametrize("private_cells", [0, 1 << 23])  # every worker's own row, or one shared
@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # the bounds stay put
@given(n=st.integers(1, 90), p=st.floats(0.0, 0.7), seed=st.integers(0, 2**32 - 1))
def test_per_vertex_in_both_orders(order, private_cells, n, p, seed):
    from tricount.cpu import per_vertex

    src, dst = random_graph(n, p, seed)
    graph = tricount.Graph.from_edges(src, dst, n_vertices=n)
    old = per_vertex.PRIVATE_CREDIT_MAX_CELLS
    per_vertex.PRIVATE_CREDIT_MAX_CELLS = private_cells
    try:
        got = per_vertex.per_vertex_counts(graph)
    finally:
        per_vertex.PRIVATE_CREDIT_MAX_CELLS = old
    assert got.dtype == np.int64 and got.tolist() == brute_per_vertex(src, dst, n)


@pytest.mark.parametrize("private_cells", [0, 1 << 23])
def test_per_vertex_in_parallel_regions(monkeypatch, private_cells):
    from tricount.cpu import per_vertex

    monkeypatch.setattr(per_vertex, "PRIVATE_CREDIT_MAX_CELLS", private_cells)
    src, dst = rmat(11, 16, seed=4)
    graph = tricount.Graph.from_edges(src, dst)
    assert bitmap.plan_in_id_order(graph.upper()) is not None
    got = per_vertex.per_vertex_counts(graph)
    assert np.array_equal(got, per_vertex.per_vertex_bitmap(graph.oriented()))
    assert got.sum() == 3 * reference.count_triangles(src.tolist(), dst.tolist())


# -- triangles on each edge, in id order (cpu/edge_support.py) -----------------------------


def support_by_edge(graph, src, dst):
    """The reference's support of every edge of ``graph.edges()``, in that order."""
    expected = reference.edge_support(src.tolist(), dst.tolist())
    lo, hi = (a.tolist() for a in graph.edges())
    ids = graph.vertex_ids.tolist()
    return [expected.get(frozenset((ids[a], ids[b])), 0) for a, b in zip(lo, hi)]


@pytest.mark.parametrize("order", ["id"], indirect=True)
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # the bounds stay put
@given(n=st.integers(1, 90), p=st.floats(0.0, 0.7), seed=st.integers(0, 2**32 - 1))
def test_edge_support_in_id_order(order, n, p, seed):
    from tricount.cpu.edge_support import edge_support_in_id_order

    src, dst = random_graph(n, p, seed)
    graph = tricount.Graph.from_edges(src, dst)
    got = edge_support_in_id_order(graph)
    assert got is not None and got.dtype == np.int64
    assert got.tolist() == support_by_edge(graph, src, dst)


def test_edge_support_falls_back_where_the_id_order_does_not_pay_or_fit(monkeypatch):
    from tricount.backends.cpu import CPU
    from tricount.cpu import edge_support

    src, dst = hubs_in_the_middle(1200, 600)  # the rank order's graph: no triangles
    graph = tricount.Graph.from_edges(src, dst)
    assert edge_support.edge_support_in_id_order(graph) is None
    assert not CPU.edge_support(graph).any()
    src, dst = rmat(11, 16, seed=4)
    graph = tricount.Graph.from_edges(src, dst)
    expected = support_by_edge(graph, src, dst)
    assert CPU.edge_support(graph).tolist() == expected  # in id order, parallel regions
    monkeypatch.setattr(edge_support, "PRIVATE_SUPPORT_MAX_CELLS", 0)
    assert edge_support.edge_support_in_id_order(graph) is None
    assert CPU.edge_support(graph).tolist() == expected  # the degree orientation's merge
