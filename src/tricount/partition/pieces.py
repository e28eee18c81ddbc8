"""How a partition plan's apex ranges become the pieces that devices count, and how the
devices take them.

One device counts each apex range whole. Several devices (or Dask workers) cut each range into
pieces of about equal estimated work (:func:`plan_pieces`): by anchor, from a sampled running
sum of the anchors' work, or, where every device keeps the rank-ordered CSR and the range is
the whole graph, by owner; a piece shares its range's block, and the pieces' counts add up to
the range's (:func:`tricount.partition.plan.split_anchors`,
:func:`tricount.partition.plan.split_owners` say why). A :class:`WorkQueue` hands them out,
heaviest first, the block a device already holds preferred. Pure: NumPy and the plan's
objects; the estimates come from callables the executor gives
(:mod:`tricount.partition.gpu`, :mod:`tricount.partition.device_graph`).
"""

from __future__ import annotations

import dataclasses
import threading

import numpy as np

from tricount.errors import TricountError
from tricount.partition.device_plan import WHOLE_BLOCK_VERTEX_BYTES, DevicePlan, size
from tricount.partition.plan import PartitionPlan, SubProblem, cut_by_work, plan_partitions

__all__ = ["PIECES_PER_DEVICE", "PIECE_MAX_ENTRIES", "OWNER_PIECES_PER_DEVICE", "ANCHOR_SAMPLES",
           "pieces_per_range", "whole_range", "plan_pieces", "anchor_pieces", "owner_pieces",
           "WorkQueue"]

#: With several devices, each apex range is cut into this many pieces per device, handed out
#: heaviest first: a device that finishes early takes another piece, so the slowest device
#: waits at most about one piece for the others. The pieces' cost is estimated by their
#: probes plus :data:`tricount.gpu.apex.ENTRY_PROBES` per row entry (the pair stream's
#: share). With that estimate, on four H100s (device run 29, best of 3, two rounds):
#:
#: ==============  ===========  ===========  ===========  ===========
#: per device      2            3            4            6
#: ==============  ===========  ===========  ===========  ===========
#: R-MAT 26 s      0.602-0.607  0.612-0.613  0.670-0.691  0.657-0.658
#: slowest kernel  0.256        0.232        0.239-0.240  0.244-0.247
#: R-MAT 25 s      0.303-0.306  0.314-0.326  0.329-0.340  0.350-0.373
#: ==============  ===========  ===========  ===========  ===========
#:
#: Every piece's launch and pass cost something (4 and 6 lose), and 2 leave the kernels
#: unbalanced (1.17x the mean at R-MAT 26); 3 keep the devices' busy time as balanced as 2
#: (the slowest 0.308 s against 0.306) with the kernels within 1.08x. Pieces that shrink
#: wave by wave (4:2:1 of a device's share, largest first) lost (R-MAT 26 slowest kernel
#: 0.244 s against 0.224, end to end alike; benchmarks/results/partition_gpu_h100x4.md).
PIECES_PER_DEVICE = 3
#: ... and more on a large graph, so that no piece holds more than about this many anchor
#: entries per device: the estimate that cuts pieces of equal work was fitted at R-MAT 26,
#: and at R-MAT 29 (four H100s, device run 52) twelve pieces of equal estimate took 1.3 to
#: 7.0 s of kernel each, the highest ranks the slowest, so one device counted 13.5 s and
#: another 7.1. Smaller pieces let the devices even out what the estimate misjudges; their
#: fixed cost (a few ms each) is nothing beside seconds of kernel.
PIECE_MAX_ENTRIES = 1 << 28


#: Where every device keeps the rank-ordered CSR (one range, its block the CSR itself), the
#: range is cut by owner instead (:func:`tricount.partition.plan.split_owners`), into this
#: many pieces per device (0: by anchor, as any other range). Anchor pieces build a hub's
#: table once for every piece that holds one of its edges: at R-MAT 26 the twelve anchor
#: pieces' kernels add up to 0.857 s against 0.776 s for the whole range on one GPU, which
#: caps four devices' kernels at 3.46x. Owner pieces add up to 0.776-0.788 s, but each
#: reads every row (one pass of ``tc_slice_csr_pairs``, and the plan one of
#: ``tc_slice_owner_work`` over each device's share). On four H100s (2026-11-27, device
#: run 3 of the session, two rounds, best of 3; ``benchmarks/partition_layouts.py``), end
#: to end s and slowest kernel s:
#:
#: ==========  ==================  ==================  ==================  ============
#: R-MAT       anchors, 3/device   owners, 1/device    owners, 2/device    owners, 3
#: ==========  ==================  ==================  ==================  ============
#: 26          0.663-0.679, 0.224  0.603-0.621, 0.214  0.648-0.658, 0.205  0.695-0.702
#: 25          0.343-0.354, 0.095  0.324-0.332, 0.092  0.309-0.331, 0.086  0.348-0.362
#: ==========  ==================  ==================  ==================  ============
#:
#: Two per device balance the kernels (3.72-3.83x one GPU's, against 3.62x for one piece
#: each) and lose little end to end; on two GPUs they win both (R-MAT 26 0.878-0.881 s
#: against 0.941-0.943, kernels 1.98x against 1.83-1.91x).
OWNER_PIECES_PER_DEVICE = 2


def pieces_per_range(workers: int, n_edges: int = 0) -> int:
    """Pieces each apex range is cut into for ``workers`` devices or Dask workers on a graph
    of ``n_edges`` edges: one range whole for one, else :data:`PIECES_PER_DEVICE` for each,
    or more where a device's share of the edges exceeds that many
    :data:`PIECE_MAX_ENTRIES`.

    >>> pieces_per_range(1, 8_493_557_202), pieces_per_range(4), pieces_per_range(4, 1 << 30)
    (1, 12, 12)
    >>> pieces_per_range(4, 8_493_557_202)  # R-MAT 29: 8 a device
    32
    """
    if workers <= 1:
        return 1
    return max(PIECES_PER_DEVICE, -(-int(n_edges) // (workers * PIECE_MAX_ENTRIES))) * workers

#: The anchors' work is read back at about this many ranks (a piece's bounds fall on them):
#: 8 MiB, where every rank's would be 2 GiB at R-MAT 28.
ANCHOR_SAMPLES = 1 << 20


def whole_range(dplans: list[DevicePlan], partitions) -> bool:
    """Whether the count is one apex range whose block is the rank-ordered CSR itself: every
    device keeps that CSR and no other number of ranges is asked for."""
    return all(p.ranked_resident for p in dplans) and partitions in (None, 1)


def plan_pieces(n_vertices: int, n_edges: int, partitions, dplans: list[DevicePlan], *,
                in_degree, anchor_prefix, pieces: int, owner_prefix=None,
                workers: int = 1) -> tuple[PartitionPlan, list[SubProblem]]:
    """The plan of a count on devices planned by ``dplans``, and the pieces to count.

    One range when :func:`whole_range`, else the least k (or ``partitions``) ranges whose
    blocks fit the tightest device, from ``in_degree()`` (host int64, by rank). With
    ``pieces`` > 1 each range is cut into that many pieces of about equal anchor work,
    from ``anchor_prefix(samples)``
    (:meth:`~tricount.partition.device_worker.DeviceWorker.anchor_prefix`); the whole range,
    given ``owner_prefix``
    (:meth:`~tricount.partition.device_worker.DeviceWorker.owner_prefix`), into
    :data:`OWNER_PIECES_PER_DEVICE` pieces for each of ``workers`` by owner instead,
    unless the graph is large enough for more than :data:`PIECES_PER_DEVICE` anchor
    pieces a device (:data:`PIECE_MAX_ENTRIES`): there the owner estimate misjudged the
    hubs' piece (R-MAT 28 on four H100s, device run 3 of 2026-11-27: one device counted
    one owner piece in 2.66-2.72 s while another counted two in 1.49-1.57 s; 7.67-7.85 s
    against 7.13-7.17 s for sixteen anchor pieces), and the many small anchor pieces even
    out what the estimate misses. The callables read a device and run only when needed.
    :func:`~tricount.partition.gpu.count_gpu` and the Dask workers' device graphs
    (:mod:`tricount.partition.device_graph`) plan here.
    """
    whole = whole_range(dplans, partitions)
    if whole:
        plan = _whole_plan(n_vertices, n_edges, partitions, dplans)
    else:
        plan = _plan(in_degree(), partitions, dplans)
    items = plan.subproblems()
    by_owner = (whole and owner_prefix is not None and OWNER_PIECES_PER_DEVICE
                and pieces <= PIECES_PER_DEVICE * workers)  # past that, by anchor (below)
    if pieces > 1 and by_owner:
        positions, work, pairs = owner_prefix(ANCHOR_SAMPLES)
        items = owner_pieces(items[0], positions, work, OWNER_PIECES_PER_DEVICE * workers,
                             pairs=pairs)
    elif pieces > 1:
        positions, work = anchor_prefix(ANCHOR_SAMPLES)
        items = [p for sub in items for p in anchor_pieces(sub, positions, work, pieces)]
    return plan, items


def _whole_plan(n: int, m: int, partitions, dplans: list[DevicePlan]) -> PartitionPlan:
    """One apex range, whose block is the rank-ordered CSR every device keeps (no statistics
    leave the device)."""
    tight = min(dplans, key=lambda p: p.blocks_budget)
    why = "partitions=1 requested" if partitions == 1 else "the rank-ordered CSR fits the device"
    return PartitionPlan(1, (0, n), (m,), (m,), (WHOLE_BLOCK_VERTEX_BYTES * n,), n, m,
                         f"{why}: one sub-problem, whose block is the CSR itself; {tight.reason}",
                         work_estimate="entries", model=tight.model)


def _plan(in_degree, partitions, dplans: list[DevicePlan]) -> PartitionPlan:
    """The least k (or ``partitions``) apex ranges whose blocks fit the tightest device."""
    tight = min(dplans, key=lambda p: p.blocks_budget)
    budget = max(0, tight.blocks_budget)
    try:
        plan = plan_partitions(in_degree, partitions=partitions, max_memory=budget,
                               model=tight.model)
    except TricountError as exc:
        raise type(exc)(f"on the GPU {tight.reason}, a sub-problem's block may take "
                        f"{size(budget)}: {exc}") from exc
    return dataclasses.replace(plan, reason=f"{plan.reason}; {tight.reason}")


def anchor_pieces(sub: SubProblem, positions, work, pieces: int) -> list[SubProblem]:
    """Cut ``sub``'s anchors into at most ``pieces`` of about equal estimated work.

    ``work[i]`` is the work of the anchors below ``positions[i]`` (a sampled
    running sum, :meth:`~tricount.partition.device_worker.DeviceWorker.anchor_prefix`); cuts fall on
    sampled ranks (:func:`tricount.partition.plan.cut_by_work` on the samples), and empty
    pieces are dropped. Like :func:`~tricount.partition.plan.split_anchors`,
    the pieces share the sub-problem's block and their counts add up to its.

    >>> sub = SubProblem(0, 0, 8, 10, 10, 0)
    >>> work = np.array([0, 1, 2, 3, 4, 5, 6, 7, 100])
    >>> [p.rows for p in anchor_pieces(sub, np.arange(9), work, 2)]
    [(0, 7), (7, 8)]
    """
    bounds = _sampled_bounds(positions, work, *sub.rows, pieces)
    return [SubProblem(sub.index, sub.apex_lo, sub.apex_hi, sub.entries,
                       _between(positions, work, a, b), sub.memory, a, b)
            for a, b in zip(bounds[:-1], bounds[1:])]


def _sampled_bounds(positions, work, lo: int, hi: int, pieces: int) -> list[int]:
    """Sorted distinct bounds from ``lo`` to ``hi`` cutting that rank range into at most
    ``pieces`` of about equal work, on sampled ranks (``work`` a running sum at
    ``positions``; :func:`tricount.partition.plan.cut_by_work` on the samples)."""
    j0 = int(np.searchsorted(positions, lo, side="right")) - 1
    j1 = int(np.searchsorted(positions, hi, side="left"))
    cuts = cut_by_work(work[j0:j1 + 1] - work[j0], max(1, int(pieces)))[1:-1] + j0
    return sorted({lo, hi} | {int(min(max(positions[c], lo), hi)) for c in cuts})


def _between(positions, sums, a: int, b: int) -> int:
    """A sampled running sum's growth from rank ``a`` to ``b``, each read at the last sample
    not above it (exact where both are sampled ranks)."""
    def below(rank):
        return int(sums[int(np.searchsorted(positions, rank, side="right")) - 1])

    return below(b) - below(a)


def owner_pieces(sub: SubProblem, positions, work, pieces: int, *,
                 pairs=None) -> list[SubProblem]:
    """Cut ``sub``'s owners into at most ``pieces`` ranges of about equal estimated work
    (``work``, and ``pairs`` when given, sampled running sums at ``positions``,
    :meth:`~tricount.partition.device_worker.DeviceWorker.owner_prefix`); cuts fall on sampled
    ranks, so each piece's work and pairs are exact differences, and empty pieces are dropped. As
    :func:`~tricount.partition.plan.split_owners`, each piece keeps every anchor and the
    pieces' counts add up to the sub-problem's.

    >>> sub = SubProblem(0, 0, 8, 10, 10, 0)
    >>> cut = owner_pieces(sub, np.arange(9), np.array([0, 1, 2, 3, 4, 5, 6, 7, 100]), 2)
    >>> [(p.owners, p.work) for p in cut]
    [((0, 7), 7), ((7, 8), 93)]
    """
    bounds = _sampled_bounds(positions, work, sub.apex_lo, sub.apex_hi, pieces)
    return [dataclasses.replace(sub, work=_between(positions, work, a, b), owner_lo=a,
                                owner_hi=b,
                                pairs=-1 if pairs is None else _between(positions, pairs, a, b))
            for a, b in zip(bounds[:-1], bounds[1:])]


#: Pieces whose estimated work rounds to the same sixteenth of the heaviest's count as equal.
WORK_CLASSES = 16


class WorkQueue:
    """Pieces to count: a device takes the heaviest piece of the range whose block it holds,
    else the heaviest piece left (largest estimated work first, blocks reused).

    Pieces cut to equal estimates differ only by the estimate's noise; among those, the
    highest ranks go first, as the estimate underrates them on large graphs (R-MAT 29,
    :data:`PIECE_MAX_ENTRIES`): a misjudged piece then runs while the others fill in.
    """

    def __init__(self, items):
        top = max((s.work for s in items), default=0) or 1
        self.left = sorted(items, key=lambda s: (-round(WORK_CLASSES * s.work / top), s.index,
                                                 -s.row_lo, -s.owner_lo))
        self.lock = threading.Lock()

    def take(self, block_key):
        with self.lock:
            for i, item in enumerate(self.left):
                if (item.apex_lo, item.apex_hi) == block_key:
                    return self.left.pop(i)
            return self.left.pop(0) if self.left else None

    def cancel(self) -> None:
        with self.lock:
            self.left = []
