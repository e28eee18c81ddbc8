"""The partition plan: cut the apexes of the rank-oriented graph into ranges, one sub-problem each.

Pure Python and NumPy: statistics in, a :class:`PartitionPlan` out, the same
object for every executor (CPU, one GPU streaming, several GPUs, Dask).

The scheme
----------
Rename every vertex by its rank in (degree, id) order and keep each edge once,
from its lower rank to its higher (:mod:`tricount.partition.ranked`): a DAG
whose row ``a`` is N+(a), sorted. Every triangle has three distinct ranks
a < b < c and, in this DAG, exactly the edges a -> b, a -> c and b -> c. Call
c, its highest rank, the triangle's *apex*. Cut the ranks into k contiguous
ranges V_1 .. V_k (``bounds``). Sub-problem l computes

    T_l = Σ over every edge a -> b of |N+(a) ∩ N+(b) ∩ V_l|.

Each triangle is counted exactly once in T_1 + ... + T_k:

- *at least once*: triangle {a, b, c} with a < b < c has the edge a -> b and
  c ∈ N+(a) ∩ N+(b); c lies in exactly one range V_l, so T_l counts the
  element c for the edge a -> b;
- *at most once*: an element x counted by T_l for an edge u -> v is a common
  out-neighbour of u and v, so {u, v, x} is a triangle with u < v < x, whose
  lowest two ranks are u, v and whose apex is x. Each triangle has one lowest
  pair (one edge u -> v) and one apex (one element x, in one range), so it
  is met once, in the one sub-problem whose range holds its apex.

So T_l is the number of triangles whose apex lies in V_l, and the sum over l
is the triangle count; the tests check both, for every k from 1 to 8.

Why apex ranges: rows are sorted, so N+(u) ∩ V_l is one contiguous slice of
row u, found by two binary searches. Sub-problem l therefore needs only its
*column block* (for every row u below the range's end, the slice of N+(u) in
V_l; m/k entries on average) for the random accesses, plus one sequential
pass over the edges a -> b whose b lies below the range's end (the *pair
stream*). An executor keeps the block where it counts (a GPU's memory, a
worker's) and streams the pairs through. Block triples (Suri and
Vassilvitskii) and 2D tiles of the adjacency were measured against it in
``docs/partition.md``: for about the same number of sub-problems they hold two
to three times more in the largest and balance worse on skewed graphs; they
move fewer bytes (each block is loaded about q times, while every apex range
rereads the pair stream below its end).

Balance
-------
A range costs memory (its block's entries) and time (its work); in rank order
both pile up at the last ranks, the hubs, but not alike: cut so that each
range closes 1/k of the work, the hubs' range holds half the entries at k = 8
on R-MAT; cut by entries, one range does twice the mean work
(``docs/partition.md``). The plan therefore minimises the larger of the two
*shares* (a range's fraction of all entries and of all work) over the k
ranges: a greedy sweep with both caps, the caps found by bisection. With a
memory budget, k is the least number of ranges whose blocks fit (greedy
packing by memory is optimal for contiguous ranges) and the same bisection
then balances those k ranges under the budget.

The work per apex c is a vector the caller passes: ``probes`` (the two-paths
a -> b -> c, :func:`tricount.partition.ranked.apex_probes`, one pass over the
edges) plus ``in(c)`` is what the bitmap count does on c (less the pairs it
skips: 10 % fewer on R-MAT 18). Without it the plan balances entries alone.
(The wedge estimate in(c)(in(c) - 1)/2, which needs only in-degrees, balances
worse than entries do: measured and rejected in ``docs/partition.md``.)

Several devices: a range can also be split by *anchor* (the rows a whose
pairs are streamed, :func:`split_anchors`); the pieces share the range's block,
so they balance work across devices without shrinking memory.

Or by *owner* (:func:`split_owners`), where the devices keep the rank-ordered
CSR itself. Within a sub-problem, call R(u) = N+(u) ∩ [apex_lo, apex_hi) and
give each edge a -> b (b below apex_hi) to its *owner*: a when
|R(a)| >= |R(b)|, else b (the end whose list the GPU's hash method keeps in a
table). An edge has exactly one owner, so cutting the ranks into owner ranges
cuts the sub-problem's edges into disjoint sets that cover them all: each
edge's term |R(a) ∩ R(b)| is added in exactly one piece, and the pieces'
counts add up to the sub-problem's. Every piece streams all the anchors (an
owner's edges come from any row below it) but counts only its owners' edges;
an owner's table is then built in one piece, where anchor pieces build a
hub's table once for every piece that holds one of its edges.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from tricount.errors import TricountError, UnsupportedGraphError

__all__ = ["MemoryModel", "SubProblem", "PartitionPlan", "plan_partitions", "split_anchors",
           "split_owners", "edge_owner", "MAX_PARTITIONS"]

#: The planner gives up beyond this many sub-problems: each rereads the pair
#: stream, so a budget that needs more is better met by another device.
MAX_PARTITIONS = 4096


@dataclass(frozen=True)
class MemoryModel:
    """Bytes one sub-problem holds where it runs, from the size of its column block.

    ``entry_bytes`` per block entry (the index type), ``row_bytes`` per block
    row (one offset per rank below the range's end), ``apex_bytes`` per rank
    in the range (e.g. the CPU's byte map per thread) and ``fixed_bytes`` once
    (stream buffers). Executors supply their own; the default is a block of
    int32 entries with int64 offsets and nothing else.
    """

    entry_bytes: int = 4
    row_bytes: int = 8
    apex_bytes: int = 0
    fixed_bytes: int = 0

    def bytes(self, rows, entries, width):
        """Bytes of a sub-problem (scalars or NumPy arrays): its block and per-range costs."""
        return (self.fixed_bytes + self.row_bytes * (rows + 1) + self.entry_bytes * entries
                + self.apex_bytes * width)


@dataclass(frozen=True)
class SubProblem:
    """What one sub-problem needs, wherever it runs.

    Count Σ over edges a -> b with ``row_lo <= a < row_hi`` of
    |N+(a) ∩ N+(b) ∩ [apex_lo, apex_hi)| in the rank-oriented graph: load
    the column block (for each rank u below ``apex_hi``, the slice of N+(u) in
    ``[apex_lo, apex_hi)``; ``entries`` in all) and stream the rows
    ``row_lo .. row_hi`` (only their entries below ``apex_hi`` can matter).
    With an owner range (``owner_lo``, ``owner_hi``), only the edges whose
    owner (:func:`edge_owner`) lies in it; ``pairs`` is then, where the planner
    counted them, how many of those edges can close a triangle (both lists
    non-empty, the anchor's with two entries), which a GPU checks its pair keys
    against (-1: not counted).
    """

    index: int
    apex_lo: int
    apex_hi: int
    entries: int
    work: int
    memory: int
    row_lo: int = 0
    row_hi: int = -1  # -1: up to apex_hi
    owner_lo: int = 0
    owner_hi: int = -1  # -1: every owner (up to apex_hi)
    pairs: int = -1

    @property
    def rows(self) -> tuple[int, int]:
        return self.row_lo, (self.apex_hi if self.row_hi < 0 else self.row_hi)

    @property
    def owners(self) -> tuple[int, int]:
        return self.owner_lo, (self.apex_hi if self.owner_hi < 0 else self.owner_hi)

    def check(self, n_vertices: int) -> None:
        """Raise :class:`~tricount.TricountError` unless its apexes and anchors lie in a graph
        of ``n_vertices`` ranks (the counting kernels do not check their bounds)."""
        row_lo, row_hi = self.rows
        owner_lo, owner_hi = self.owners
        if not (0 <= self.apex_lo <= self.apex_hi <= n_vertices
                and 0 <= row_lo <= row_hi <= self.apex_hi
                and 0 <= owner_lo <= owner_hi <= self.apex_hi):
            raise TricountError(f"sub-problem {self.index}: anchors {row_lo}..{row_hi}, "
                                f"owners {owner_lo}..{owner_hi} and apexes {self.apex_lo}.."
                                f"{self.apex_hi} do not fit a graph of {n_vertices} ranks")


@dataclass(frozen=True)
class PartitionPlan:
    """k apex ranges of the rank-oriented graph and what each is estimated to cost.

    ``bounds`` has k + 1 ranks: range l is ``bounds[l] .. bounds[l+1]`` (in
    (degree, id) rank order, ``orientation == "rank"``). ``work[l]`` is the
    estimated work (``work_estimate`` names the unit), ``entries[l]`` the
    column block's entries and ``memory[l]`` its bytes under ``model``.
    ``reason`` says why this k.
    """

    k: int
    bounds: tuple
    work: tuple
    entries: tuple
    memory: tuple
    n_vertices: int
    n_edges: int
    reason: str
    orientation: str = "rank"
    work_estimate: str = "entries"
    max_memory: int | None = None
    model: MemoryModel = field(default_factory=MemoryModel)

    def subproblems(self) -> list[SubProblem]:
        """The k sub-problems, in range order."""
        return [SubProblem(i, self.bounds[i], self.bounds[i + 1], self.entries[i], self.work[i],
                           self.memory[i]) for i in range(self.k)]

    @property
    def imbalance(self) -> float:
        """Largest estimated work over the mean (1.0 is perfect balance)."""
        total = sum(self.work)
        return max(self.work) * self.k / total if total else 1.0

    def describe(self) -> str:
        mib = max(self.memory) / 2**20
        return (f"{self.k} apex range(s) of {self.n_vertices} ranks, {self.n_edges} edges; "
                f"largest block {mib:.1f} MiB, work imbalance {self.imbalance:.2f}; {self.reason}")


def _prefix(values) -> np.ndarray:
    """Exclusive running sum (int64, one longer than ``values``)."""
    out = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum(np.asarray(values, dtype=np.int64), out=out[1:])
    return out


def cut_by_work(cum_work, k: int) -> np.ndarray:
    """k + 1 non-decreasing bounds whose ranges hold about 1/k of the work each.

    Bound i sits where the running work ``cum_work`` (exclusive prefix sums)
    is closest to i/k of the total.
    """
    n = cum_work.shape[0] - 1
    total = int(cum_work[-1])
    bounds = np.zeros(k + 1, dtype=np.int64)
    bounds[k] = n
    for i in range(1, k):
        target = total * i // k  # Python ints: exact
        at = int(np.searchsorted(cum_work, target, side="left"))
        if 0 < at <= n and target - int(cum_work[at - 1]) < int(cum_work[at]) - target:
            at -= 1
        bounds[i] = min(max(at, bounds[i - 1]), n)
    return bounds


class _Costs:
    """Entries, work and memory of any rank range, from prefix sums (O(log n) per query)."""

    def __init__(self, in_degree, work, model):
        self.n = int(in_degree.shape[0])
        self.cum_in, self.cum_work, self.model = _prefix(in_degree), _prefix(work), model
        ranks = np.arange(self.n + 1, dtype=np.int64)
        # memory(lo, hi) = reach[hi] - (entry_bytes * cum_in[lo] + apex_bytes * lo): monotone in hi.
        self.reach = model.bytes(ranks, self.cum_in, ranks)

    def memory(self, lo, hi):
        return self.model.bytes(hi, self.cum_in[hi] - self.cum_in[lo], hi - lo)

    def furthest(self, cum, lo, cap):
        """The largest hi with ``cum[hi] - cum[lo] <= cap`` (at least lo)."""
        if cap >= int(cum[-1]):
            return self.n
        # The sums are integers, so ``<= cap`` is ``<= floor(cap)``; an integer needle keeps
        # searchsorted from casting the int64 prefix to float64, a copy of n per call (R-MAT 20:
        # 116 calls, 0.11 s of the plan's 0.14 s; R-MAT 26 would be about 100x that).
        return int(np.searchsorted(cum, int(cum[lo]) + int(cap), side="right")) - 1

    def greedy(self, entry_cap, work_cap, budget):
        """Bounds of the fewest ranges, swept left to right, each within the three caps
        (a single apex over the share caps is a range of its own)."""
        bounds = [0]
        while bounds[-1] < self.n:
            lo = bounds[-1]
            hi = min(self.furthest(self.cum_in, lo, entry_cap),
                     self.furthest(self.cum_work, lo, work_cap), self.n)
            if budget is not None:
                base = self.model.entry_bytes * int(self.cum_in[lo]) + self.model.apex_bytes * lo
                fits = int(np.searchsorted(self.reach, budget + base, side="right")) - 1
                if fits <= lo:
                    raise UnsupportedGraphError(
                        f"rank {lo} alone needs {int(self.memory(lo, lo + 1))} bytes as a "
                        f"sub-problem (in-degree {int(self.cum_in[lo + 1] - self.cum_in[lo])}), "
                        f"more than max_memory={budget}; raise max_memory to at least that, "
                        "or leave it unset (the CPU backend counts in host memory)")
                hi = min(hi, fits)
            bounds.append(max(hi, lo + 1))
        return np.asarray(bounds, dtype=np.int64)

    def balanced(self, k, budget):
        """At most k ranges (under ``budget``) minimising the larger of their entry and work
        shares."""
        entries, work = int(self.cum_in[-1]), int(self.cum_work[-1])
        # Bisect the share cap: hi is always feasible, the optimum is at least 1/k; a
        # thousandth of 1/k is finer than any balance a kernel can tell apart.
        lo, hi = 0.0, 1.0
        while hi - lo > 1e-3 / k:
            mid = (lo + hi) / 2
            if self.greedy(mid * entries, mid * work, budget).shape[0] - 1 <= k:
                hi = mid
            else:
                lo = mid
        return self.greedy(hi * entries, hi * work, budget)


def _exactly(bounds, k, costs):
    """Split the costliest ranges (by the larger share) until there are k; pad with
    empty ranges at the end when every range is a single apex."""
    bounds = [int(b) for b in bounds]
    entries, work = max(int(costs.cum_in[-1]), 1), max(int(costs.cum_work[-1]), 1)
    while len(bounds) - 1 < k:
        best, at = -1.0, None
        for i in range(len(bounds) - 1):
            lo, hi = bounds[i], bounds[i + 1]
            if hi - lo < 2:
                continue
            share = max((costs.cum_in[hi] - costs.cum_in[lo]) / entries,
                        (costs.cum_work[hi] - costs.cum_work[lo]) / work)
            if share > best:
                best, at = share, i
        if at is None:
            bounds += [bounds[-1]] * (k + 1 - len(bounds))
            break
        lo, hi = bounds[at], bounds[at + 1]
        half = cut_by_work(costs.cum_work[lo:hi + 1] - costs.cum_work[lo], 2)[1] + lo
        bounds.insert(at + 1, min(max(int(half), lo + 1), hi - 1))
    return np.asarray(bounds, dtype=np.int64)


def plan_partitions(in_degree, *, work=None, partitions=None, max_memory=None,
                    model: MemoryModel | None = None, work_estimate=None) -> PartitionPlan:
    """Plan the apex ranges of a rank-oriented graph.

    Parameters
    ----------
    in_degree : array of int
        In-degree of every rank (edges from lower ranks), in rank order: the
        column block's entries per apex. ``len(in_degree)`` is n.
    work : array of int, optional
        Estimated work per apex, e.g. ``probes + in_degree``
        (:func:`tricount.partition.ranked.apex_probes`). Default: the entries.
    partitions : int, optional
        Force k ranges (``1 <= k <= MAX_PARTITIONS``; empty ranges are kept
        when k > n). By default the least k whose blocks fit ``max_memory``.
    max_memory : int, optional
        Bytes one sub-problem may hold under ``model``. None: no limit.
    model : MemoryModel, optional
        How the executor's memory grows with a block (default: int32 entries,
        int64 row offsets).
    work_estimate : str, optional
        The name of ``work``'s unit, for reports (default ``"work"``, or
        ``"entries"`` without ``work``).

    Returns
    -------
    PartitionPlan

    Examples
    --------
    K4 in rank order: apexes 0..3 have in-degrees 0, 1, 2, 3 and close 0, 0, 1
    and 3 triangles. Balanced by entries, two ranges cut before the last apex
    (3 entries each side); one sub-problem when nothing forces more.

    >>> plan = plan_partitions([0, 1, 2, 3], partitions=2)
    >>> plan.bounds, plan.entries
    ((0, 3, 4), (3, 3))
    >>> plan_partitions([0, 1, 2, 3]).k
    1
    """
    in_degree = np.asarray(in_degree, dtype=np.int64)
    model = model or MemoryModel()
    if work is None:
        work, work_estimate = in_degree, work_estimate or "entries"
    work = np.asarray(work, dtype=np.int64)
    if work.shape != in_degree.shape:
        raise TricountError(f"work has {work.shape[0]} entries, in_degree {in_degree.shape[0]}")
    costs = _Costs(in_degree, work, model)
    budget = None if max_memory is None else int(max_memory)
    whole = int(costs.memory(0, costs.n))
    if partitions is not None:
        k = int(partitions)
        if not 1 <= k <= MAX_PARTITIONS:
            raise TricountError(f"partitions must be in 1 .. {MAX_PARTITIONS}, got {partitions}")
        if budget is not None:
            need = costs.greedy(np.inf, np.inf, budget).shape[0] - 1
            if need > k:
                raise UnsupportedGraphError(
                    f"partitions={k} leaves a sub-problem larger than max_memory={budget} bytes; "
                    f"the blocks fit in {need} or more (pass partitions={need}, or "
                    "partitions=None to choose)")
        bounds, reason = _exactly(costs.balanced(k, budget), k, costs), f"partitions={k} requested"
    elif budget is None:
        bounds, reason = np.array([0, costs.n], dtype=np.int64), "no memory budget: one sub-problem"
    elif whole <= budget or costs.n == 0:  # no vertices: one empty sub-problem, no bytes
        bounds = np.array([0, costs.n], dtype=np.int64)
        reason = f"fits max_memory={budget} bytes whole ({whole} needed): one sub-problem"
    else:
        k = costs.greedy(np.inf, np.inf, budget).shape[0] - 1
        if k > MAX_PARTITIONS:
            raise UnsupportedGraphError(
                f"max_memory={budget} bytes would need {k} sub-problems (more than "
                f"{MAX_PARTITIONS}); the whole graph needs {whole}: give the executor more memory")
        bounds = _exactly(costs.balanced(k, budget), k, costs)
        reason = (f"one sub-problem would need {whole} bytes, more than max_memory={budget}: "
                  f"the least k whose blocks fit is {k}")
    lo, hi = bounds[:-1], bounds[1:]
    entries = costs.cum_in[hi] - costs.cum_in[lo]
    return PartitionPlan(
        k=int(bounds.shape[0] - 1),
        bounds=tuple(int(b) for b in bounds),
        work=tuple(int(w) for w in costs.cum_work[hi] - costs.cum_work[lo]),
        entries=tuple(int(e) for e in entries),
        memory=tuple(int(b) for b in model.bytes(hi, entries, hi - lo)),
        n_vertices=costs.n, n_edges=int(costs.cum_in[-1]), reason=reason,
        work_estimate=work_estimate or "work", max_memory=budget, model=model)


def split_anchors(sub: SubProblem, anchor_work, pieces: int) -> list[SubProblem]:
    """Cut one sub-problem's anchor rows into ``pieces`` of about equal work.

    ``anchor_work[a]`` is the work of anchor ``a`` inside this sub-problem
    (:func:`tricount.partition.ranked.anchor_work`), for the ranks below its
    ``apex_hi``. The pieces share the sub-problem's column block; their counts
    add up to its count, since every pair a -> b belongs to one anchor a.
    """
    row_lo, row_hi = sub.rows
    return [replace(sub, work=w, row_lo=a, row_hi=b)
            for a, b, w in _work_cuts(anchor_work, row_lo, row_hi, pieces)]


def _work_cuts(work, lo: int, hi: int, pieces: int) -> list[tuple[int, int, int]]:
    """``(a, b, work of a .. b - 1)`` of ``pieces`` consecutive ranges cutting ``lo .. hi``
    into about equal shares of ``work`` (one value per rank; :func:`cut_by_work`)."""
    cum = _prefix(np.asarray(work, dtype=np.int64)[lo:hi])
    cuts = cut_by_work(cum, max(int(pieces), 1))
    return [(int(a) + lo, int(b) + lo, int(cum[b] - cum[a])) for a, b in zip(cuts[:-1], cuts[1:])]


def edge_owner(a, b, length_a, length_b):
    """The owner of the edge a -> b (scalars or arrays): ``a`` where its list in the range is
    at least as long as ``b``'s, else ``b`` (ties go to the anchor, as the GPU's pair keys
    give them)."""
    return np.where(np.asarray(length_a) >= np.asarray(length_b), a, b)


def split_owners(sub: SubProblem, owner_work, pieces: int) -> list[SubProblem]:
    """Cut one sub-problem's edges by owner into ``pieces`` ranges of about equal work.

    ``owner_work[o]`` is the work of the edges owned by rank ``o`` inside this
    sub-problem, for the ranks below its ``apex_hi``. Every piece keeps all
    the anchors and the block; their counts add up to the sub-problem's count,
    since every edge has one owner (the module doc). Empty pieces are dropped.
    """
    owner_lo, owner_hi = sub.owners
    return [replace(sub, work=w, owner_lo=a, owner_hi=b)
            for a, b, w in _work_cuts(owner_work, owner_lo, owner_hi, pieces) if b > a]
