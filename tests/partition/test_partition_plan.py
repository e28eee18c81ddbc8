"""The plan alone (pure NumPy): ranges cover the ranks, fit the budget, balance what they should."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tricount.errors import TricountError, UnsupportedGraphError
from tricount.partition.plan import (MemoryModel, SubProblem, plan_partitions, split_anchors)

MODEL = MemoryModel(entry_bytes=4, row_bytes=8)


def check_cover(plan, n):
    assert plan.bounds[0] == 0 and plan.bounds[-1] == n
    assert all(a <= b for a, b in zip(plan.bounds[:-1], plan.bounds[1:]))
    assert len(plan.bounds) == plan.k + 1 == len(plan.work) + 1 == len(plan.memory) + 1


class TestForcedPartitions:
    def test_exactly_k_ranges_even_past_n(self):
        plan = plan_partitions([0, 1, 2], partitions=5)
        check_cover(plan, 3)
        assert plan.k == 5 and plan.bounds == (0, 1, 2, 3, 3, 3)

    def test_empty_graph(self):
        plan = plan_partitions([], partitions=3)
        assert plan.k == 3 and plan.bounds == (0, 0, 0, 0) and plan.work == (0, 0, 0)

    def test_balances_the_larger_share(self):
        # Entries pile up at the end, work at the start: each range must carry at most about
        # half of both, which neither a cut by entries nor by work alone achieves.
        in_degree = [1] * 8 + [8]
        work = [8] + [1] * 8
        plan = plan_partitions(in_degree, work=work, partitions=2)
        entries, total_work = sum(in_degree), sum(work)
        worst = max(max(e / entries, w / total_work) for e, w in zip(plan.entries, plan.work))
        assert worst <= 0.75
        cut = plan_partitions(in_degree, partitions=2).bounds  # by entries alone
        work_of_cut = [sum(work[a:b]) for a, b in zip(cut[:-1], cut[1:])]
        assert max(work_of_cut) / total_work > worst

    def test_forced_k_too_small_for_budget_raises(self):
        # 100 entries of 4 bytes and up to 808 bytes of offsets: at least 3 ranges of 2000.
        with pytest.raises(TricountError, match="partitions=3"):
            plan_partitions([10] * 100, partitions=1, max_memory=2000, model=MODEL)

    def test_out_of_range_k(self):
        with pytest.raises(TricountError):
            plan_partitions([1, 2], partitions=0)


class TestBudget:
    def test_no_budget_one_subproblem(self):
        plan = plan_partitions(np.arange(100))
        assert plan.k == 1 and "no memory budget" in plan.reason

    def test_fits_whole(self):
        plan = plan_partitions([1] * 10, max_memory=10_000, model=MODEL)
        assert plan.k == 1 and "whole" in plan.reason

    def test_least_k_that_fits(self):
        in_degree = np.full(1000, 50)
        budget = 60_000
        plan = plan_partitions(in_degree, max_memory=budget, model=MODEL)
        assert max(plan.memory) <= budget
        # Fewer ranges cannot fit: forcing k - 1 under the same budget is refused.
        with pytest.raises(TricountError):
            plan_partitions(in_degree, partitions=plan.k - 1, max_memory=budget, model=MODEL)

    def test_single_apex_too_large(self):
        with pytest.raises(UnsupportedGraphError, match="rank 2 alone"):
            plan_partitions([0, 1, 10_000], max_memory=1000, model=MODEL)

    def test_memory_where_no_work_is(self):
        # All the work in the first ranks, the entries everywhere: a work cut alone would
        # leave one range with 90 % of the entries; the budget still holds.
        in_degree = np.full(100, 20)
        work = np.r_[np.ones(10, dtype=np.int64), np.zeros(90, dtype=np.int64)]
        plan = plan_partitions(in_degree, work=work, max_memory=5000, model=MODEL)
        assert plan.k >= 2 and max(plan.memory) <= 5000


@settings(max_examples=80, deadline=None)
@given(in_degree=st.lists(st.integers(0, 50), min_size=0, max_size=60),
       work=st.data(), k=st.integers(1, 8), budget=st.one_of(st.none(), st.integers(200, 3000)))
def test_random_plans(in_degree, work, k, budget):
    w = work.draw(st.lists(st.integers(0, 1000), min_size=len(in_degree), max_size=len(in_degree)))
    try:
        plan = plan_partitions(in_degree, work=w, partitions=k, max_memory=budget, model=MODEL)
    except TricountError:
        assert budget is not None  # only a budget can make a forced k impossible
        return
    check_cover(plan, len(in_degree))
    assert plan.k == k
    assert sum(plan.entries) == sum(in_degree) and sum(plan.work) == sum(w)
    if budget is not None:
        assert max(plan.memory) <= budget
    auto = None
    if budget is not None:
        try:
            auto = plan_partitions(in_degree, work=w, max_memory=budget, model=MODEL)
        except UnsupportedGraphError:
            return
        check_cover(auto, len(in_degree))
        assert max(auto.memory) <= budget and auto.k <= k


def test_split_anchors_covers_rows():
    sub = SubProblem(0, 5, 10, entries=7, work=100, memory=0)
    work = np.array([0, 5, 0, 40, 10, 10, 10, 10, 10, 5])
    pieces = split_anchors(sub, work, 3)
    assert pieces[0].rows[0] == 0 and pieces[-1].rows[1] == 10
    assert all(a.rows[1] == b.rows[0] for a, b in zip(pieces[:-1], pieces[1:]))
    assert sum(p.work for p in pieces) == work.sum()
    assert max(p.work for p in pieces) == 45  # the heavy anchor 3 and what it cannot shed


@settings(max_examples=80, deadline=None)
@given(values=st.lists(st.integers(0, 1000), min_size=0, max_size=40), data=st.data())
def test_furthest_takes_fractional_caps_exactly(values, data):
    # The bisection passes fractional caps (a share of the total); the search runs on the
    # integer prefix sums without a cast to float, and must agree with the definition.
    from tricount.partition.plan import _Costs

    costs = _Costs(np.asarray(values, dtype=np.int64), np.asarray(values, dtype=np.int64), MODEL)
    cum = costs.cum_in
    lo = data.draw(st.integers(0, len(values)))
    cap = data.draw(st.one_of(st.floats(0, 3 * (int(cum[-1]) + 1)), st.just(np.inf)))
    expected = max(hi for hi in range(lo, len(values) + 1) if cum[hi] - cum[lo] <= cap)
    assert costs.furthest(cum, lo, cap) == expected
