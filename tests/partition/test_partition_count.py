"""Partitioned counts are exact for every block count 1-8; each triangle lands in its apex's range.

Judged by tricount.reference (sets of neighbours) and, per range, by the
oracle of partition_support (ranks and apexes from the same sets).
"""

from __future__ import annotations

import sys
from math import comb
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tricount
from tricount import reference
from tricount.partition import count_partitioned, plan_graph, ranked_csr, split_anchors
from tricount.partition.plan import edge_owner, split_owners
from tricount.partition.blocks import column_block
from tricount.partition.cpu import anchor_work, count_subproblem

sys.path.insert(0, str(Path(__file__).parent))
from partition_support import in_range, triangles_by_apex  # noqa: E402

from graphs import NAMED, NOISY, complete_graph  # noqa: E402

ALL_NAMED = {**NAMED, **NOISY}
BLOCK_COUNTS = range(1, 9)


def per_range_counts(graph, k):
    """(plan, [count of each sub-problem]) with k forced apex ranges."""
    r = ranked_csr(graph)
    plan = plan_graph(r, partitions=k)
    return plan, [count_subproblem(r, sub)["n_triangles"] for sub in plan.subproblems()]


class TestNamedGraphs:
    @pytest.mark.parametrize("name", sorted(ALL_NAMED))
    def test_every_block_count(self, name):
        src, dst, n_triangles, _ = ALL_NAMED[name]
        graph = tricount.Graph.from_edges(src, dst)
        by_apex = triangles_by_apex(graph)
        for k in BLOCK_COUNTS:
            plan, counts = per_range_counts(graph, k)
            assert plan.k == k and len(counts) == k
            assert sum(counts) == n_triangles, (name, k)
            for sub, got in zip(plan.subproblems(), counts):
                assert got == in_range(by_apex, sub.apex_lo, sub.apex_hi), (name, k, sub)

    def test_k4_literal(self):
        # K4 in rank order (all degrees 3, so rank = id); the oriented CSR:
        #   row 0: 1 2 3      indptr  = [0, 3, 5, 6, 6]
        #   row 1: 2 3        indices = [1, 2, 3, 2, 3, 3]
        #   row 2: 3
        # Apex 2 closes {0,1,2}; apex 3 closes the other three.
        src, dst, _, _ = NAMED["K4"]
        r = ranked_csr(tricount.Graph.from_edges(src, dst))
        assert r.indptr.tolist() == [0, 3, 5, 6, 6]
        assert r.indices.tolist() == [1, 2, 3, 2, 3, 3]
        plan, counts = per_range_counts(tricount.Graph.from_edges(src, dst), 4)
        assert plan.bounds == (0, 1, 2, 3, 4)
        assert counts == [0, 0, 1, 3]


def test_complete_graph_closed_form():
    src, dst = complete_graph(60)
    graph = tricount.Graph.from_edges(src, dst)
    for k in (1, 5, 8):
        assert count_partitioned(graph, partitions=k)[0] == comb(60, 3)


def test_rmat_every_block_count_and_anchor_pieces():
    from tricount.generate import rmat

    graph = tricount.Graph.from_edges(*rmat(9, 8, seed=5))
    expected = reference.count_triangles(*[a.tolist() for a in graph.edges()])
    by_apex = triangles_by_apex(graph)
    r = ranked_csr(graph)
    for k in BLOCK_COUNTS:
        plan = plan_graph(r, partitions=k)
        total = 0
        for sub in plan.subproblems():
            block = column_block(r, sub.apex_lo, sub.apex_hi)
            got = count_subproblem(r, sub, block=block)["n_triangles"]
            assert got == in_range(by_apex, sub.apex_lo, sub.apex_hi)
            pieces = split_anchors(sub, anchor_work(r, block), 3)
            assert [p.rows for p in pieces][0][0] == 0 and pieces[-1].rows[1] == sub.apex_hi
            assert sum(count_subproblem(r, p, block=block)["n_triangles"] for p in pieces) == got
            total += got
        assert total == expected


def owned_terms(r, lo: int, hi: int) -> np.ndarray:
    """Per rank o below ``hi``: Σ over the edges a -> b (b < hi) that o owns of
    |R(a) ∩ R(b)|, R(u) = N+(u) ∩ [lo, hi), by Python sets (the owner by edge_owner)."""
    rows = [r.indices[r.indptr[u]:r.indptr[u + 1]].tolist() for u in range(hi)]
    R = [{x for x in row if lo <= x < hi} for row in rows]
    terms = np.zeros(hi, dtype=np.int64)
    for a in range(hi):
        for b in rows[a]:
            if b < hi:
                terms[int(edge_owner(a, b, len(R[a]), len(R[b])))] += len(R[a] & R[b])
    return terms


@pytest.mark.parametrize("scale,seed", [(7, 3), (8, 11)])
def test_owner_pieces_every_block_count(scale, seed):
    # Cut by owner, every piece of every range counts exactly the edges its owners own
    # (one owner at a time too), and the pieces add up to the range's count.
    from tricount.generate import rmat

    graph = tricount.Graph.from_edges(*rmat(scale, 8, seed=seed))
    expected = reference.count_triangles(*[a.tolist() for a in graph.edges()])
    r = ranked_csr(graph)
    for k in BLOCK_COUNTS:
        total = 0
        for sub in plan_graph(r, partitions=k).subproblems():
            block = column_block(r, sub.apex_lo, sub.apex_hi)
            got = count_subproblem(r, sub, block=block)["n_triangles"]
            terms = owned_terms(r, sub.apex_lo, sub.apex_hi)
            assert got == int(terms.sum())
            for pieces in (1, 2, 3, 5):
                cut = split_owners(sub, terms + 1, pieces)
                assert cut[0].owners[0] == 0 and cut[-1].owners[1] == sub.apex_hi
                assert all(a.owners[1] == b.owners[0] for a, b in zip(cut, cut[1:]))
                counts = [count_subproblem(r, p, block=block)["n_triangles"] for p in cut]
                assert counts == [int(terms[p.owner_lo:p.owner_hi].sum()) for p in cut]
            for o in range(0, sub.apex_hi, 7):
                one = split_owners(sub, terms + 1, 1)[0]
                one = type(one)(**{**one.__dict__, "owner_lo": o, "owner_hi": o + 1})
                assert count_subproblem(r, one, block=block)["n_triangles"] == terms[o]
            total += got
        assert total == expected


def test_an_owner_range_outside_the_apexes_is_refused():
    from tricount.errors import TricountError
    from tricount.partition.plan import SubProblem

    src, dst, _, _ = NAMED["K4"]
    r = ranked_csr(tricount.Graph.from_edges(src, dst))
    with pytest.raises(TricountError, match="owners 0..9"):
        count_subproblem(r, SubProblem(0, 0, 4, 6, 6, 0, owner_lo=0, owner_hi=9))


def test_every_loop_on_all_threads(monkeypatch):
    # Small inputs run on one thread (ranked.SERIAL_BELOW); here every loop takes all threads,
    # so the atomic orientation, the per-thread byte maps and the reductions are exercised.
    from tricount.generate import rmat
    import tricount.partition.ranked as ranked_module
    from tricount.prep.orient import orient_by_rank

    monkeypatch.setattr(ranked_module, "SERIAL_BELOW", 0)
    graph = tricount.Graph.from_edges(*rmat(10, 8, seed=8))
    r = ranked_csr(graph)
    lo, hi = graph.edges()
    np.testing.assert_array_equal(r.indices, orient_by_rank(lo, hi, graph.n_vertices).indices)
    by_apex = triangles_by_apex(graph)
    for k in (1, 4, 8):
        plan, counts = per_range_counts(graph, k)
        assert counts == [in_range(by_apex, s.apex_lo, s.apex_hi) for s in plan.subproblems()]


multigraphs = st.integers(min_value=1, max_value=30).flatmap(
    lambda n: st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                       min_size=0, max_size=200))


@settings(max_examples=40, deadline=None)
@given(edges=multigraphs, k=st.integers(1, 8))
def test_random_multigraphs_match_oracle(edges, k):
    src = [u for u, _ in edges]
    dst = [v for _, v in edges]
    expected = reference.count_triangles(src, dst)
    graph = tricount.Graph.from_edges(src, dst)
    plan, counts = per_range_counts(graph, k)
    assert sum(counts) == expected
    by_apex = triangles_by_apex(graph)
    assert counts == [in_range(by_apex, s.apex_lo, s.apex_hi) for s in plan.subproblems()]


@settings(deadline=None, max_examples=60)
@given(edges=multigraphs, k=st.integers(1, 4), pieces=st.integers(1, 5))
def test_random_multigraphs_by_owner(edges, k, pieces):
    graph = tricount.Graph.from_edges([u for u, _ in edges], [v for _, v in edges])
    r = ranked_csr(graph)
    for sub in plan_graph(r, partitions=k).subproblems():
        terms = owned_terms(r, sub.apex_lo, sub.apex_hi)
        cut = split_owners(sub, np.ones_like(terms), pieces)
        counts = [count_subproblem(r, p)["n_triangles"] for p in cut]
        assert counts == [int(terms[p.owner_lo:p.owner_hi].sum()) for p in cut]


@pytest.mark.slow
def test_count_beyond_32_bits_in_pieces():
    # K_2955 has C(2955, 3) = 4,296,157,285 > 2**32 triangles; every range's count is int64 and
    # the sum a Python int.
    src, dst = np.triu_indices(2955, k=1)
    n, report = count_partitioned(tricount.Graph.from_edges(src, dst), partitions=3)
    assert n == comb(2955, 3) == 4_296_157_285
    assert sum(s["n_triangles"] for s in report.subproblems) == n


class TestRealGraphs:
    def test_shared_graphs(self, shared_graphs):
        for row in shared_graphs:
            if row["edges"] > 10_000:
                continue  # loading the large ones takes seconds: they are in the slow sweep
            graph = tricount.load_graph(row["path"])
            for k in (1, 3, 8):
                assert count_partitioned(graph, partitions=k)[0] == row["triangles"], (row, k)

    @pytest.mark.slow
    def test_shared_graphs_every_block_count(self, shared_graphs):
        for row in shared_graphs:
            graph = tricount.load_graph(row["path"])
            r = ranked_csr(graph)
            for k in BLOCK_COUNTS:
                plan = plan_graph(r, partitions=k)
                got = sum(count_subproblem(r, s)["n_triangles"] for s in plan.subproblems())
                assert got == row["triangles"], (row["name"], k)


def test_subproblem_outside_the_graph_is_refused():
    from tricount.errors import TricountError
    from tricount.partition import SubProblem

    r = ranked_csr(tricount.Graph.from_edges(*NAMED["K4"][:2]))
    with pytest.raises(TricountError, match="do not fit"):
        count_subproblem(r, SubProblem(0, 0, 4, 6, 0, 0, row_lo=0, row_hi=9))
    with pytest.raises(TricountError, match="do not fit"):
        count_subproblem(r, SubProblem(0, 2, 9, 0, 0, 0))


class TestReport:
    def test_budget_picks_k_and_the_report_says_why(self):
        import json

        from tricount.generate import rmat

        graph = tricount.Graph.from_edges(*rmat(10, 8, seed=9))
        expected = tricount.count_triangles(graph, backend="cpu")
        n, report = count_partitioned(graph, max_memory=30_000)
        assert n == expected and report.n_subproblems > 1
        assert "max_memory=30000" in report.reason
        assert all(s["memory"] <= 30_000 for s in report.subproblems)
        assert sum(s["n_triangles"] for s in report.subproblems) == n
        out = json.loads(json.dumps(report.to_dict()))  # plain values, for --json
        assert out["subproblems"] == report.n_subproblems and out["where"] == ["cpu"]

    def test_orientation_into_given_arrays(self):
        from tricount.generate import rmat
        from tricount.partition.ranked import rank_graph, ranked_from_upper

        graph = tricount.Graph.from_edges(*rmat(9, 8, seed=3))
        out = (np.empty(graph.n_vertices + 1, dtype=np.int64),
               np.empty(graph.n_edges, dtype=graph.indices.dtype))
        r = ranked_from_upper(graph.indptr, graph.indices, graph.n_vertices, out=out)
        assert r.indptr is out[0] and r.indices is out[1]
        np.testing.assert_array_equal(r.indices, rank_graph(graph).indices)
