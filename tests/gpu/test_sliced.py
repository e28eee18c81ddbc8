"""Counting under a memory budget (tricount.gpu.prepare.sliced): same graph, same plan, same count.

The orientation built in slices must equal the standard one array for array,
the plan's slices put together must equal the standard plan, every count
under a budget must equal the reference, and the device memory held during a
count (a CuPy memory hook over every pool allocation, plus the graph's own
arrays) must stay within the budget given.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from gpu_support import complete_graph, edges_graph, load_real, real_graphs, require_gpu  # noqa: E402

pytestmark = pytest.mark.gpu
require_gpu()

import cupy  # noqa: E402

from tricount import CSRGraph, UnsupportedGraphError  # noqa: E402
from tricount.bench.device_memory import live_memory_hook  # noqa: E402
from tricount.errors import UnknownMethodError  # noqa: E402
from tricount.generate import rmat  # noqa: E402
from tricount.gpu import prepare  # noqa: E402
from tricount.gpu.engine import count, count_oriented  # noqa: E402
from tricount.gpu.plan import (ORIENT_BYTES_PER_KEY, SLICE_BYTES_PER_KEY,  # noqa: E402
                               graph_device_bytes, sliced_resident_bytes, tuned)
from tricount.gpu.prepare import orient_by_rank_sliced  # noqa: E402
from tricount.reference import count_triangles  # noqa: E402

REAL = [r["name"] for r in real_graphs()]


def same(a, b):
    a, b = cupy.asnumpy(a), cupy.asnumpy(b)
    np.testing.assert_array_equal(a.astype(np.int64), b.astype(np.int64))


def rmat_graph(scale: int, seed: int = 1) -> CSRGraph:
    src, dst = rmat(scale, 16, seed=seed)
    return CSRGraph.from_edges(src, dst, name=f"rmat-s{scale}")


def shaped_graphs():
    """Small graphs of every shape: a hub, a clique, a path, one edge, R-MAT."""
    star = [(0, v) for v in range(1, 200)] + [(v, v + 1) for v in range(1, 199, 2)]
    return [edges_graph(star, name="star"), complete_graph(40),
            edges_graph([(v, v + 1) for v in range(300)], name="path"),
            edges_graph([(0, 1)], name="edge"), rmat_graph(10), rmat_graph(12, seed=3)]


GRAPHS = shaped_graphs() + [rmat_graph(14)]


def budget_for(graph, capacity: int) -> int:
    """The max_memory that gives slices of ``capacity`` keys."""
    idx = graph.indices.dtype.itemsize
    return (graph_device_bytes(graph.n_vertices, graph.n_edges, idx)
            + SLICE_BYTES_PER_KEY * capacity
            + sliced_resident_bytes(graph.n_vertices, graph.n_edges, idx))


def both_orientations(graph, share: float):
    """(capacity, sliced, standard): the rank orientation in slices of ``share`` of the
    edges (at least 1) and the standard one."""
    dev = graph.to_device(cupy)
    lo, hi = dev.edges()
    capacity = max(1, int(share * graph.n_edges))
    sliced = orient_by_rank_sliced(lo, hi, dev.n_vertices, dev.degrees, capacity)
    return capacity, sliced, prepare.orient_by_rank(lo, hi, dev.n_vertices, dev.degrees)


@pytest.mark.parametrize("graph", GRAPHS, ids=lambda g: g.name)
@pytest.mark.parametrize("share", [0.0, 0.01, 0.34, 1.0, 3.0])
def test_orientation_in_slices_equals_the_standard_one(graph, share):
    capacity, sliced, standard = both_orientations(graph, share)
    same(sliced.indptr, standard.indptr)
    same(sliced.indices, standard.indices)
    assert sliced.rows is None
    assert (sliced.n_vertices, sliced.n_edges, sliced.max_out_degree) == (
        standard.n_vertices, standard.n_edges, standard.max_out_degree)
    # A slice holds at most the edges that fit the room of `capacity` plan keys,
    # or one row when a row is longer.
    per_slice = capacity * SLICE_BYTES_PER_KEY // ORIENT_BYTES_PER_KEY
    assert sliced.n_slices >= -(-graph.n_edges // max(per_slice, standard.max_out_degree))
    same(sliced.out_degree, cupy.diff(standard.indptr))


@pytest.mark.parametrize("graph", GRAPHS, ids=lambda g: g.name)
@pytest.mark.parametrize("share", [0.0, 0.05, 0.5, 2.0])
def test_plan_slices_put_together_equal_the_standard_plan(graph, share):
    capacity, sliced, standard = both_orientations(graph, share)
    plan = prepare.plan_partners(standard)
    owners, partners, running_probes = [], [], []
    work = np.zeros(graph.n_vertices, dtype=np.int64)
    most = int(cupy.diff(plan.ptr).max()) if plan.n_pairs else 0
    previous_end = 0
    for piece, first in sliced.plan_slices():
        span = int(piece.ptr.shape[0]) - 1
        assert first >= previous_end and piece.n_pairs <= max(capacity, most)
        previous_end = first + span
        owners.append(cupy.asnumpy(piece.owners).astype(np.int64) + first)
        partners.append(cupy.asnumpy(piece.partners))
        work[first:first + span] = cupy.asnumpy(piece.work)
        running_probes.append(cupy.asnumpy(cupy.diff(piece.running)))
        del piece
    if plan.n_pairs == 0:
        assert not owners
        return
    same(cupy.asarray(np.concatenate(owners)), plan.owners)
    same(cupy.asarray(np.concatenate(partners)), plan.partners)
    same(cupy.asarray(np.concatenate(running_probes)), cupy.diff(plan.running))
    same(cupy.asarray(work), plan.work)


def reference_count(graph) -> int:
    lo, hi = graph.edges()
    return count_triangles(np.asarray(lo), np.asarray(hi))


@pytest.mark.parametrize("graph", GRAPHS, ids=lambda g: g.name)
@pytest.mark.parametrize("options", [
    {}, {"block_work": 0, "max_task": 1},
    {"edge32": False, "warp_slots": 32, "long_list": 1},
    {"by_owner": True, "block_size": 512, "block_table_bytes": 64 * 1024},
], ids=["defaults", "block-tasks", "edge64", "by-owner"])
@pytest.mark.parametrize("share", [0.0, 0.2, 1.0])
def test_hash_counts_slices_exactly(graph, options, share):
    dev = graph.to_device(cupy)
    lo, hi = dev.edges()
    capacity = max(int(dev.max_degree), int(share * graph.n_edges))
    sliced = orient_by_rank_sliced(lo, hi, dev.n_vertices, dev.degrees, capacity)
    out = count_oriented(sliced, plan=tuned("hash", **options))
    assert out.n_triangles == reference_count(graph) and out.method == "hash"


@pytest.mark.parametrize("graph", [g for g in GRAPHS if g.n_edges > 500], ids=lambda g: g.name)
@pytest.mark.parametrize("method", ["auto", "hash"])
def test_the_engine_counts_in_slices_under_a_budget(graph, method):
    capacity = max(int(graph.max_degree), -(-graph.n_edges // 5))
    out = count(graph, method=method, max_memory=budget_for(graph, capacity))
    assert out.n_triangles == reference_count(graph)
    assert out.method == "hash" and "slices" in out.method_reason


@pytest.mark.parametrize("name", REAL)
def test_real_graphs_under_a_tight_budget(name):
    graph = load_real(name)
    row = next(r for r in real_graphs() if r["name"] == name)
    capacity = max(int(graph.max_degree), -(-graph.n_edges // 40))
    out = count(graph, method="auto", max_memory=budget_for(graph, capacity))
    assert "slices" in out.method_reason
    assert out.n_triangles == row["triangles"]


def test_a_budget_that_fits_takes_the_standard_path():
    graph = rmat_graph(12)
    out = count(graph, method="auto", max_memory=1 << 40)
    assert "slices" not in out.method_reason


@pytest.mark.parametrize("scale", [14, 17])
def test_peak_memory_stays_within_16_bytes_per_edge_and_vertex(scale):
    """Issue 7's bound, 16 B per edge + 16 B per vertex, the GPU graph's arrays included."""
    src, dst = rmat(scale, 16, seed=1, xp=cupy)
    graph = CSRGraph.from_edges(cupy.concatenate([src, dst]), cupy.concatenate([dst, src]))
    del src, dst
    lo, hi = graph.edges()
    graph_bytes = graph.indptr.nbytes + lo.nbytes + hi.nbytes + graph.degrees.nbytes
    budget = 16 * graph.n_edges + 16 * graph.n_vertices
    expected = count(graph, method="hash").n_triangles
    cupy.get_default_memory_pool().free_all_blocks()
    with live_memory_hook() as hook:
        out = count(graph, method="auto", max_memory=budget)
    assert out.n_triangles == expected
    assert "slices" in out.method_reason
    assert graph_bytes + hook.peak <= budget, (graph_bytes, hook.peak, budget)


def test_budgets_that_cannot_work_are_refused():
    graph = rmat_graph(10)
    with pytest.raises(UnsupportedGraphError, match="budget"):
        count(graph, method="hash", max_memory=1000)
    with pytest.raises(UnsupportedGraphError, match="only method 'hash'"):
        count(graph, method="wedge", max_memory=budget_for(graph, graph.n_edges))
    with pytest.raises(UnsupportedGraphError, match="only method 'hash'"):
        count(graph, method="hash", orientation="degree", max_memory=budget_for(graph, 100))
    for bad in (0, -5, "lots", None.__class__):
        with pytest.raises(UnknownMethodError, match="max_memory"):
            count(graph, max_memory=bad)
