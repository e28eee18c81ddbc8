"""Several GPUs of one host preparing one graph together: each copies and orients a share,
and the devices exchange their shares.

When the graph is in host memory and every device keeps the whole rank-ordered CSR (the
device plan's ``ranked_resident`` and ``upload_first``), each device alone would copy the
whole graph over its own PCIe link, the host staging every byte once per device, and orient
every edge: work that does not shrink with more devices (R-MAT 26 on four H200s: about
0.8 s of a 1.14 s count, against 0.21 s of kernels). Here it is shared, in four steps with
a barrier between each (:meth:`~tricount.partition.gpu.DeviceThreads.each`: every step
ends with its device's stream synchronized, by the one wrapper that runs every step, so a
peer only ever reads finished arrays):

1. device i copies rows ``[r_i, r_{i+1})`` of the host CSR (about m/d entries,
   :func:`row_shares`) into arrays of the whole graph's size;
2. each copies the other devices' rows from them (:func:`tricount.gpu.peers.copy_from_peer`:
   NVLink or PCIe, no host staging), so each holds the whole graph;
3. each computes the whole graph's statistics (replicated: passes over its own device
   memory and one sort of n keys) and orients the ranks of its share only
   (:func:`oriented_shares`: about m/d oriented entries each, cut on the oriented offsets,
   which every device computes alike from the same degrees);
4. each copies the other devices' oriented rows from them, and the devices' copies are
   compared (a sum of the ids on each).

The graph's own arrays are let go after step 3: no device reads a peer's graph after
step 2. A graph already in rank order skips the orientation (steps 1-2 only). Every
device ends with what :meth:`~tricount.partition.gpu.DeviceWorker.prepare` alone gives it,
so the count that follows is unchanged; the GPU tests and the emulated ones (2-4 workers,
several slices a share, a ranked file, a corrupted copy) hold it to the reference.
"""

from __future__ import annotations

import time

import numpy as np

from tricount.errors import TricountError
from tricount.prep.xp import array_namespace

__all__ = ["can_share", "row_shares", "oriented_shares", "prepare"]


def can_share(workers, source, dplans) -> bool:
    """Whether several workers prepare ``source`` together: it is in host memory and every
    device copies it first and keeps the rank-ordered CSR."""
    return (len(workers) > 1 and source.device is None
            and all(p.ranked_resident and p.upload_first for p in dplans))


def _cut(offsets, parts: int) -> list[int]:
    """``parts + 1`` row bounds cutting the entries of ``offsets`` (int64 running sums, host
    or device: only the bounds are read back) about equally."""
    xp = array_namespace(offsets)
    n, m = int(offsets.shape[0]) - 1, int(offsets[-1])
    targets = xp.asarray([m * i // parts for i in range(1, parts)], dtype=xp.int64)
    inner = xp.searchsorted(offsets, targets, side="left") if parts > 1 else []
    inner = inner.get() if hasattr(inner, "get") else inner
    return [0] + [int(b) for b in inner] + [n]


def row_shares(indptr, parts: int) -> list[tuple[int, int]]:
    """``parts`` consecutive row ranges of a CSR with about equal entries each (``indptr`` on
    the host or a device).

    >>> row_shares(np.array([0, 4, 5, 6, 10]), 2)
    [(0, 2), (2, 4)]
    >>> row_shares(np.array([0, 0]), 3)
    [(0, 0), (0, 0), (0, 1)]
    """
    bounds = _cut(indptr, parts)
    return list(zip(bounds[:-1], bounds[1:]))


def oriented_shares(out_degree, parts: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """``parts`` shares of the ranks, about equal in oriented entries: ``((first, end),
    (begin, stop))``, the ranks and their entries (``out_degree``: a device's int32 array)."""
    from tricount.gpu.apex import offsets as running

    offsets = running(out_degree)
    bounds = _cut(offsets, parts)
    at = offsets[array_namespace(offsets).asarray(bounds, dtype=np.int64)]
    entries = [int(e) for e in (at.get() if hasattr(at, "get") else at)]
    return [((a, b), (e, f)) for a, b, e, f in zip(bounds[:-1], bounds[1:], entries[:-1],
                                                     entries[1:])]


def _upload_share(worker, source, rows: tuple[int, int]):
    """Step 1: rows ``rows`` of the host graph into device arrays of the whole graph's size."""
    from tricount.gpu.chunks import HostCSR
    from tricount.partition.gpu import _cupy

    cp = _cupy()
    r0, r1 = rows
    indptr = cp.empty(source.n_vertices + 1, dtype=cp.int64)
    cols = cp.empty(source.n_edges, dtype=source.indices.dtype)
    indptr[r0:r1 + 1].set(np.ascontiguousarray(source.indptr[r0:r1 + 1]))
    reader = HostCSR(source.indptr, source.indices, stage_entries=worker.dplan.stage_entries,
                     stage_rows=worker.dplan.stage_rows)
    try:
        for chunk in reader.chunks(r0, r1, worker.dplan.stage_entries):
            cols[chunk.e0:chunk.e1] = chunk.cols
    finally:
        worker._close_reader(reader)
    worker.stats["bytes_copied"] += 8 * (r1 - r0 + 1)
    return indptr, cols


def _gather(worker, mine, peers, pieces) -> None:
    """Steps 2 and 4: copy into ``mine`` (arrays of this worker) the element ranges
    ``pieces[j]`` of ``peers[j]`` (the same arrays of worker j; None for this worker)."""
    from tricount.gpu.peers import copy_from_peer, enable_peer_access
    from tricount.partition.gpu import _cupy

    cp = _cupy()
    enable_peer_access(worker.device_id, {p[0].device.id for p in peers if p is not None})
    stream = cp.cuda.get_current_stream()
    for theirs, ranges in zip(peers, pieces):
        if theirs is None:
            continue
        for dst, src, (lo, hi) in zip(mine, theirs, ranges):
            copy_from_peer(dst[lo:hi], src[lo:hi], stream)


def prepare(threads, source, *, keep_in_degree: list[bool]) -> None:
    """Prepare ``source`` on every worker of ``threads`` together (the module doc's steps);
    worker i keeps its in-degrees when ``keep_in_degree[i]``."""
    from tricount.gpu.chunks import DeviceCSR
    from tricount.partition.gpu import _cupy

    workers = threads.workers
    index = {id(w): i for i, w in enumerate(workers)}
    d = len(workers)
    rows = row_shares(source.indptr, d)
    offsets = np.asarray(source.indptr)

    def timed(worker, what, fn):
        t0 = time.perf_counter()
        with worker.context(what):
            out = fn()
            # A step ends when its work is done, not launched: the next step's peers read
            # what it wrote, and nothing else orders their streams after this one.
            _cupy().cuda.get_current_stream().synchronize()
        worker.stats["prepare_s"] += time.perf_counter() - t0
        return out

    graphs = threads.each(lambda w: timed(w, "copying a share of the graph",
                                          lambda: _upload_share(w, source, rows[index[id(w)]])))
    source_pieces = [((r0, r1 + 1), (int(offsets[r0]), int(offsets[r1]))) for r0, r1 in rows]

    def gather_graph(w):
        i = index[id(w)]
        peers = [None if j == i else g for j, g in enumerate(graphs)]
        pieces = [None if j == i else p for j, p in enumerate(source_pieces)]
        timed(w, "copying the graph from the other devices",
              lambda: _gather(w, graphs[i], peers, pieces))

    threads.each(gather_graph)
    readers = [DeviceCSR(*g) for g in graphs]
    graphs.clear()  # each device's graph now lives only in its reader, dropped after step 3

    def prepare_share(w):
        i = index[id(w)]
        w.prepare(source, keep_in_degree=keep_in_degree[i], reader=readers[i],
                  orient_share=(i, d))
        # Its last kernels may still be writing the oriented rows that step 4 reads from
        # the other devices: the barrier must follow their end (timed waits for it).
        timed(w, "orienting a share of the graph", lambda: None)

    threads.each(prepare_share)
    readers.clear()
    if workers[0].oriented_shares is None:
        return  # the graph was in rank order: nothing was oriented
    shares = workers[0].oriented_shares
    if any(w.oriented_shares != shares for w in workers):
        raise TricountError("the devices computed different shares of the orientation "
                            "(their degrees differ); nothing was counted")
    csrs = [(w.csr.indices,) for w in workers]
    entry_pieces = [((begin, stop),) for _ranks, (begin, stop) in shares]

    def gather_oriented(w):
        i = index[id(w)]
        peers = [None if j == i else c for j, c in enumerate(csrs)]
        timed(w, "copying the oriented graph from the other devices",
              lambda: _gather(w, csrs[i], peers, entry_pieces))

    threads.each(gather_oriented)
    # Every device must now hold the same oriented graph: one pass over each device's copy
    # (about 2 ms per 10^9 ids) rather than a count from a copy that went wrong.
    sums = threads.each(lambda w: timed(w, "checking the oriented graph", lambda: int(
        w.csr.indices.sum(dtype=_cupy().int64))))
    if len(set(sums)) != 1:
        raise TricountError(f"the devices' copies of the oriented graph differ (sums of ids "
                            f"{sums}); nothing was counted")
