"""A graph a Dask worker without a GPU keeps for a count's tasks: rank-ordered, in host memory.

The CPU twin of :mod:`tricount.partition.device_graph`, with the same four calls: made
once per worker process (:mod:`tricount.partition.worker_cache` keeps it), it plans when
its worker is the planning one, counts each piece handed to it, and closes.

- **Open**: a ``.tcsr`` is read and ranked (:func:`~tricount.partition.ranked.open_ranked`:
  the rank check's column counts are the in-degrees; a file not in rank order is
  rank-oriented by the same stable counting sort on every worker, so every worker has the
  same ranks); a scattered :class:`~tricount.partition.ranked.RankedCSR` is used as it is.
- **Plan**: :func:`tricount.partition.plan_graph` (the probes per apex, one CPU pass over
  the edges), the plan the driver would make of the same graph. With several workers,
  each range is cut into ``pieces`` of about equal anchor work
  (:func:`~tricount.partition.plan.split_anchors`). The work per anchor is measured once,
  against the whole graph as block (:func:`tricount.partition.cpu.anchor_work`: the marks
  and probes of one range, exact when there is one range; for k ranges an estimate of each
  range's share, as the GPU's is).
- **Count**: :func:`tricount.partition.cpu.count_subproblem` on the kept graph; the last
  column block is kept too, so the pieces of one range build it once.
"""

from __future__ import annotations

import time

from tricount.partition.plan import PartitionPlan, SubProblem, split_anchors
from tricount.partition.ranked import RankedCSR

__all__ = ["HostGraph"]


class HostGraph:
    """A rank-ordered graph in this process's memory, counted on the CPU."""

    where = "cpu"

    def __init__(self, ranked: RankedCSR, *, partitions=None, max_memory=None, name=None,
                 open_s: float = 0.0):
        self.ranked = ranked
        self.partitions, self.max_memory = partitions, max_memory
        self.facts = {"graph": name, "vertices": ranked.n_vertices, "edges": ranked.n_edges}
        self.timings = {"open_s": open_s, "prepare_s": 0.0}
        self.reason = "cpu"
        self._block = None

    @classmethod
    def open(cls, source, *, partitions=None, max_memory=None) -> "HostGraph":
        """The graph of a ``.tcsr`` path (read and ranked here) or of a RankedCSR."""
        from tricount.io import graph_name
        from tricount.partition.ranked import open_ranked

        t0 = time.perf_counter()
        if isinstance(source, RankedCSR):
            ranked, name = source, None
        else:
            ranked, name = open_ranked(source), graph_name(source)
        return cls(ranked, partitions=partitions, max_memory=max_memory, name=name,
                   open_s=time.perf_counter() - t0)

    def plan(self, *, pieces: int = 1, workers: int = 1) -> tuple[PartitionPlan,
                                                                 list[SubProblem]]:
        """The plan and its pieces (``pieces`` per range when more than one; ``workers`` is
        the device graph's, :meth:`DeviceGraph.plan`: the CPU cuts by anchor whatever the
        workers)."""
        from tricount.partition import plan_graph

        plan = plan_graph(self.ranked, partitions=self.partitions, max_memory=self.max_memory)
        items = plan.subproblems()
        if pieces > 1 and self.ranked.n_vertices:
            work = self._anchor_work()
            items = [p for sub in items for p in split_anchors(sub, work, pieces)
                     if p.row_lo < p.row_hi]  # an empty piece counts nothing
        return plan, items

    def _anchor_work(self):
        from tricount.partition.blocks import column_block
        from tricount.partition.cpu import anchor_work

        n = self.ranked.n_vertices
        return anchor_work(self.ranked, column_block(self.ranked, 0, n))  # no copy: the CSR

    def count(self, piece: SubProblem) -> dict:
        """Count one piece (the CPU counter's keys); its range's block is kept for the next."""
        from tricount.partition.blocks import column_block
        from tricount.partition.cpu import count_subproblem

        piece.check(self.ranked.n_vertices)  # before a block is cut for it
        t0 = time.perf_counter()
        if self._block is None or (self._block.lo, self._block.hi) != (piece.apex_lo,
                                                                        piece.apex_hi):
            self._block = None  # the old block goes before the new one is cut
            self._block = column_block(self.ranked, piece.apex_lo, piece.apex_hi)
        built_s = time.perf_counter() - t0
        out = count_subproblem(self.ranked, piece, block=self._block)
        out["block_s"] += built_s
        return out

    def close(self) -> None:
        """Let the graph and its block go (nothing to report on the CPU)."""
        self.ranked = self._block = None
