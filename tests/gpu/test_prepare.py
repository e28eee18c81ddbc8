"""The fused GPU preparation (tricount.gpu.prepare.fused) returns exactly its portable twins' arrays.

Every output array of the canonical build, the rank orientation, the hash
plan and its tasks is compared element by element with the portable
NumPy/CuPy code of tricount.prep run on the same CuPy input, on drawn edge
lists (loops, repeats, both directions, sparse and dense ids), R-MAT graphs
and the real graphs; counts through the fused path are checked against the
reference.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
from gpu_support import gpu_count, load_real, real_graphs, require_gpu  # noqa: E402

pytestmark = pytest.mark.gpu
require_gpu()

import cupy  # noqa: E402

from tricount import CSRGraph  # noqa: E402
from tricount.errors import InvalidEdgesError  # noqa: E402
from tricount.generate import rmat  # noqa: E402
from tricount.gpu import prepare  # noqa: E402
from tricount.prep import orient, partners  # noqa: E402
from tricount.prep.canonical import canonical_edges, validate_edge_arrays  # noqa: E402
from tricount.reference import count_triangles  # noqa: E402


def same(a, b):
    a, b = cupy.asnumpy(a), cupy.asnumpy(b)
    assert a.shape == b.shape
    np.testing.assert_array_equal(a.astype(np.int64), b.astype(np.int64))


def same_canonical(src, dst, n_vertices=None):
    s, d = validate_edge_arrays(cupy.asarray(src), cupy.asarray(dst))
    fused = prepare.fused_canonical_edges(s, d, n_vertices=n_vertices)
    portable = canonical_edges(s, d, n_vertices=n_vertices, fused=False)
    if fused is None:  # no edges or sparse ids: the portable path is the answer
        return portable
    assert fused.lo.dtype == portable.lo.dtype and fused.hi.dtype == portable.hi.dtype
    same(fused.lo, portable.lo)
    same(fused.hi, portable.hi)
    same(fused.vertex_ids, portable.vertex_ids)
    assert fused.n_vertices == portable.n_vertices
    assert fused.self_loops_dropped == portable.self_loops_dropped
    assert fused.duplicates_dropped == portable.duplicates_dropped
    return fused


def same_preparation(graph):
    """Rank orientation, plan and tasks of a GPU graph: fused == portable."""
    dev = graph.to_device(cupy)
    lo, hi = dev.edges()
    fused = prepare.orient_by_rank(lo, hi, dev.n_vertices, dev.degrees)
    portable = orient.orient_by_rank(lo, hi, dev.n_vertices, dev.degrees)
    for field in ("indptr", "rows", "indices"):
        same(getattr(fused, field), getattr(portable, field))
    assert fused.max_out_degree == portable.max_out_degree
    plan = prepare.plan_partners(fused)
    twin = partners.plan_partners(fused)
    assert plan.n_pairs == twin.n_pairs
    for field in ("ptr", "partners", "work"):
        same(getattr(plan, field), getattr(twin, field))
    if plan.n_pairs:
        same(plan.owners, twin.owners)
    out_degree = cupy.diff(fused.indptr)
    for max_probes in (1, 7, 1000, 1 << 40):
        tasks = prepare.split_tasks(plan, out_degree, max_probes)
        expected = partners.split_tasks(twin, out_degree, max_probes)
        for field in ("owner", "begin", "end", "work"):
            same(getattr(tasks, field), getattr(expected, field))
    return fused


edge_lists = st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), max_size=300)


@settings(max_examples=60, deadline=None)
@given(edge_lists, st.booleans())
def test_canonical_matches_portable_on_drawn_edges(pairs, both_directions):
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    if both_directions:
        pairs = np.concatenate([pairs, pairs[:, ::-1]])
    same_canonical(pairs[:, 0], pairs[:, 1])
    same_canonical(pairs[:, 0], pairs[:, 1], n_vertices=41)


@settings(max_examples=40, deadline=None)
@given(edge_lists)
def test_fused_preparation_matches_portable_on_drawn_graphs(pairs):
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    g = CSRGraph.from_edges(cupy.asarray(pairs[:, 0]), cupy.asarray(pairs[:, 1]))
    if g.n_edges:
        same_preparation(g)


def test_canonical_loops_repeats_and_gaps():
    src = np.array([5, 7, 7, 9, 5, 7, 9, 9, 100, 5], dtype=np.int64)
    dst = np.array([7, 5, 7, 5, 7, 9, 7, 9, 5, 100], dtype=np.int64)
    canon = same_canonical(src, dst)
    assert (canon.n_vertices, int(canon.lo.shape[0])) == (4, 4)
    assert canon.self_loops_dropped == 2 and canon.duplicates_dropped == 1
    same(canon.vertex_ids, np.array([5, 7, 9, 100]))


def test_canonical_only_loops_and_sparse_ids():
    same_canonical(np.array([3, 3]), np.array([3, 3]))
    # ids too sparse for a presence array: the portable sort-based path answers
    s, d = validate_edge_arrays(cupy.asarray([0, 2**40]), cupy.asarray([2**40, 7]))
    assert prepare.fused_canonical_edges(s, d) is None
    assert CSRGraph.from_edges(cupy.asarray([0, 2**40]), cupy.asarray([2**40, 7])).n_edges == 2


def test_canonical_out_of_range_is_named():
    s, d = validate_edge_arrays(cupy.asarray([0, 1]), cupy.asarray([1, 9]))
    with pytest.raises(InvalidEdgesError, match="endpoint 9 is out of range"):
        prepare.fused_canonical_edges(s, d, n_vertices=5)


@pytest.mark.parametrize("scale", [10, 14, 17])
def test_rmat_both_directions(scale):
    src, dst = rmat(scale, 16, seed=scale, xp=cupy)
    both_src, both_dst = cupy.concatenate([src, dst]), cupy.concatenate([dst, src])
    canon = same_canonical(both_src, both_dst)
    g = CSRGraph(canon.lo, canon.hi, canon.n_vertices, vertex_ids=canon.vertex_ids)
    same_preparation(g)
    one_way = CSRGraph.from_edges(src, dst)
    assert one_way.n_edges == g.n_edges and one_way.duplicates_dropped < canon.duplicates_dropped


@pytest.mark.parametrize("name", [r["name"] for r in real_graphs()])
def test_real_graphs(name):
    row = next(r for r in real_graphs() if r["name"] == name)
    host = load_real(name)
    lo, hi = host.edges()
    # The host graph's edges, reversed and repeated, rebuilt on the GPU by the fused path.
    src = cupy.asarray(np.concatenate([lo, hi, lo]).astype(np.int64))
    dst = cupy.asarray(np.concatenate([hi, lo, hi]).astype(np.int64))
    canon = same_canonical(src, dst, n_vertices=host.n_vertices)
    assert canon.duplicates_dropped == host.n_edges
    g = CSRGraph(canon.lo, canon.hi, canon.n_vertices, vertex_ids=canon.vertex_ids)
    same_preparation(g)
    assert gpu_count(g, "hash", {}) == row["triangles"]


@settings(max_examples=25, deadline=None)
@given(edge_lists)
def test_counts_through_the_fused_path(pairs):
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    g = CSRGraph.from_edges(cupy.asarray(pairs[:, 0]), cupy.asarray(pairs[:, 1]))
    expected = count_triangles(pairs[:, 0], pairs[:, 1])
    for method in ("hash", "wedge", "bitwedge", "merge"):
        assert gpu_count(g, method, {}) == expected


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint16])
def test_count_ids_matches_bincount(dtype):
    rng = np.random.default_rng(7)
    ids = rng.integers(0, 1000, size=100_000).astype(dtype)
    ids[:5000] = 3  # one hot id
    same(prepare.count_ids(cupy.asarray(ids), 1200), np.bincount(ids, minlength=1200))
    same(prepare.count_ids(cupy.asarray(ids[:0]), 4), np.zeros(4))


@pytest.mark.parametrize("narrow_max", [0, 100_000, 100_001])
def test_count_ids_with_wide_and_narrow_counters(monkeypatch, narrow_max):
    # 32-bit counters below HISTOGRAM_NARROW_MAX_IDS ids, 64-bit from it: both exact.
    monkeypatch.setattr(prepare.fused, "HISTOGRAM_NARROW_MAX_IDS", narrow_max)
    rng = np.random.default_rng(8)
    ids = rng.integers(0, 500, size=100_000)
    ids[:70_000] = 499
    counts = prepare.count_ids(cupy.asarray(ids), 600)
    assert counts.dtype == cupy.int64
    same(counts, np.bincount(ids, minlength=600))


def test_gpu_degrees_match_the_host_graph():
    src, dst = rmat(12, 16, seed=3)
    host = CSRGraph.from_edges(src, dst)
    same(host.to_device(cupy).degrees, host.degrees)
