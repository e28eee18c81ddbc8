"""The hash method's plan (owner/partner CSR): every triangle is closed by exactly one pair.

The plan is evaluated here on the host with NumPy, probe by probe, exactly as
the GPU kernel uses it: each element w of N+(partner) is looked up in
N+(owner). The sum must equal the triangle count.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tricount import Graph, reference
from tricount.prep.partners import plan_from_pairs, plan_partners, split_tasks

from graphs import NAMED, NOISY, complete_graph


def closed_by_plan(oriented, plan) -> int:
    """Σ over owners x and partners y of |N+(x) ∩ N+(y)|, vectorised probes."""
    indptr = np.asarray(oriented.indptr, dtype=np.int64)
    cols = np.asarray(oriented.indices, dtype=np.int64)
    rows = np.asarray(oriented.rows, dtype=np.int64)
    n = oriented.n_vertices
    ptr, partners = np.asarray(plan.ptr), np.asarray(plan.partners, dtype=np.int64)
    owners = np.repeat(np.arange(n, dtype=np.int64), np.diff(ptr))
    lengths = indptr[partners + 1] - indptr[partners]
    probe_owner = np.repeat(owners, lengths)
    starts = np.repeat(indptr[partners] - np.cumsum(lengths) + lengths, lengths)
    probe_w = cols[np.arange(int(lengths.sum()), dtype=np.int64) + starts]
    edge_keys = rows * n + cols  # sorted: rows ascending, each row ascending
    probe_keys = probe_owner * n + probe_w
    at = np.searchsorted(edge_keys, probe_keys)
    at = np.minimum(at, len(edge_keys) - 1)
    return int(np.count_nonzero(edge_keys[at] == probe_keys)) if len(edge_keys) else 0


def check_plan(graph):
    oriented = graph.oriented()
    plan = plan_partners(oriented)
    ptr = np.asarray(plan.ptr)
    out_degree = np.diff(np.asarray(oriented.indptr))
    assert ptr[0] == 0 and ptr[-1] == plan.n_pairs == len(plan.partners)
    assert plan.partners.dtype == oriented.indices.dtype
    for x in np.flatnonzero(np.diff(ptr))[:200]:
        lengths = out_degree[np.asarray(plan.partners[ptr[x]:ptr[x + 1]])]
        assert np.all(np.diff(lengths) <= 0)           # longest first
        assert np.all(lengths <= out_degree[x]) and np.all(lengths >= 1)
        assert plan.work[x] == lengths.sum() + out_degree[x]
    return closed_by_plan(oriented, plan)


@pytest.mark.parametrize("name", list(NAMED) + list(NOISY))
def test_named_graphs(name):
    src, dst, n_triangles, _ = {**NAMED, **NOISY}[name]
    assert check_plan(Graph.from_edges(src, dst)) == n_triangles


def test_complete_graph():
    src, dst = complete_graph(40)
    assert check_plan(Graph.from_edges(src, dst)) == 40 * 39 * 38 // 6


def test_id_orientation():
    src, dst = complete_graph(12)
    graph = Graph.from_edges(src, dst)
    oriented = graph.upper()
    assert closed_by_plan(oriented, plan_partners(oriented)) == 220


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), max_size=300))
def test_random_graphs_against_the_oracle(edges):
    src, dst = [u for u, _ in edges], [v for _, v in edges]
    assert check_plan(Graph.from_edges(src, dst)) == reference.count_triangles(src, dst)


@pytest.mark.parametrize("real_graphs", [
    "small", pytest.param((30_000, 250_000), id="large", marks=pytest.mark.slow)], indirect=True)
def test_real_graphs(real_graphs):
    # Up to 250,000 edges: the host probe evaluation holds every probe in memory.
    for row, graph in real_graphs:
        assert check_plan(graph) == row["triangles"], row["name"]


@pytest.mark.parametrize("max_probes", [1, 2, 7, 1000])
def test_tasks_cover_every_pair_once(max_probes):
    src, dst = complete_graph(30)
    oriented = Graph.from_edges(src, dst).oriented()
    plan = plan_partners(oriented)
    out_degree = np.diff(oriented.indptr)
    tasks = split_tasks(plan, out_degree, max_probes)
    covered = np.zeros(plan.n_pairs, dtype=np.int64)
    for owner, b, e, w in zip(tasks.owner, tasks.begin, tasks.end, tasks.work):
        assert b < e and np.all(plan.owners[b:e] == owner)
        covered[b:e] += 1
        probes = out_degree[plan.partners[b:e]].sum()
        assert w == probes + out_degree[owner]
        # only a single list may pass the cap
        assert probes - out_degree[plan.partners[e - 1]] < max_probes or e - b == 1
    assert np.all(covered == 1)
    if max_probes >= 1000:
        assert len(tasks.owner) == np.count_nonzero(np.diff(plan.ptr))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 60), st.integers(0, 60)), min_size=1, max_size=400),
       st.integers(1, 60), st.integers(1, 60))
def test_a_slice_of_owners_renumbered_is_that_part_of_the_plan(edges, a, b):
    """plan_from_pairs over the owners first .. end-1, renumbered from 0 with their own
    out-degrees (what the GPU's sliced plan does), equals that part of the whole plan."""
    src, dst = [u for u, _ in edges], [v for _, v in edges]
    oriented = Graph.from_edges(src, dst).oriented()
    assume(oriented.n_edges > 0)  # an empty plan has no owners to slice
    plan = plan_partners(oriented)
    n = oriented.n_vertices
    first, end = sorted((min(a, n), min(b, n)))
    out_degree = np.diff(oriented.indptr).astype(np.int32)
    lo, hi = int(plan.ptr[first]), int(plan.ptr[end])
    piece = plan_from_pairs(np.asarray(plan.owners[lo:hi]) - first, plan.partners[lo:hi],
                            out_degree, end - first, owner_out_degree=out_degree[first:end])
    np.testing.assert_array_equal(piece.ptr, plan.ptr[first:end + 1] - lo)
    np.testing.assert_array_equal(piece.partners, plan.partners[lo:hi])
    np.testing.assert_array_equal(piece.work, plan.work[first:end])
    np.testing.assert_array_equal(np.diff(piece.running), np.diff(plan.running[lo:hi + 1]))
