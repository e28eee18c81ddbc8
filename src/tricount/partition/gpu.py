"""The GPU executor of a partition plan: one GPU or several, the graph on the host, on a device or
in a file; and one sub-problem counted on its own (:func:`count_subproblem`). Dask workers
keep one device's share between their tasks instead (:mod:`tricount.partition.device_graph`,
planned by :func:`~tricount.partition.pieces.plan_pieces` as here).

Counts the triangles of a graph as the sub-problems of :mod:`tricount.partition.plan` (apex
ranges of the rank-oriented graph; each triangle counted once, in the range of its apex),
each on a GPU, and adds the counts as Python integers.

    graph (host arrays, one device's arrays, a .tcsr read straight into each device's
      memory where every device keeps the graph whole, else into host memory)
      ─ degrees, (degree, id) rank, out- and in-degrees ──────▶ statistics (1-2 passes)
      ─ orientation in slices ─▶ the rank-ordered CSR, on each device or on the host
      (several devices keeping it: each copies and orients a share, and the devices
      exchange their shares over NVLink or PCIe, :mod:`tricount.partition.shared_prep`;
      or device 0 orients it alone and the others copy it, when it does not fit beside
      the graph)
    plan_partitions(in-degrees, a block's budget) ─▶ k apex ranges
      (k = 1 when the rank-ordered CSR stays on the device: its block is the CSR itself)
      several devices: each range cut into pieces of about equal anchor work (the whole
      range, every device keeping the CSR: by owner, plan.split_owners)
    a thread per device: take the heaviest piece of the range whose block it holds (else
      the heaviest left), build that block, stream the piece's pairs, hash kernel ─▶ Σ

The modules: the graph as read (:mod:`tricount.partition.source`), one device's steps
(:mod:`tricount.partition.device_worker`, its passes :mod:`tricount.gpu.apex`'s), the
pieces and their hand-out (:mod:`tricount.partition.pieces`), and here the threads that
run the devices together. What stays on a device and how much room each step gets is
decided before anything is allocated (:mod:`tricount.partition.device_plan`, pure). Every
device has its own thread (CuPy's current device, stream and memory hooks are per
thread), its own streams and its own part of CuPy's pool; a graph in host memory is shared
read-only, each device copying it through pinned buffers of its own.

Why the rank-ordered CSR first: a sub-problem needs, for every rank u below its range's
end, the slice of N+(u) in the range (its *block*) and the rows of its anchors (its *pair
stream*). Cut from the graph as stored (ids in id order), each block needs the whole edge
list renamed on the fly and a sort of its keys, once per range and per pass over the
host. Once the graph is in rank order, a block is one pass over the rows below the range's
end that keeps a contiguous run of each row, in order (no sort), the whole range's block
is the CSR itself, and a piece of anchors reads only its own rows. The orientation costs
one sort of every edge, in slices (about 70 ms per 10^9 keys on an H100), and it is
needed by the plan's statistics anyway; on the device it replaces the per-range sorts
and, when the CSR stays there, every later pass over PCIe (25-50 GB/s) by one over HBM
(about 3 TB/s). docs/partition.md ("Why orient first") has the byte counts.
"""

from __future__ import annotations

import dataclasses
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from tricount.errors import InvalidArgumentError, TricountError, UnsupportedGraphError
from tricount.partition import shared_prep
from tricount.partition.device_worker import DeviceWorker
from tricount.partition.pieces import WorkQueue, pieces_per_range, plan_pieces, whole_range
from tricount.partition.plan import SubProblem
from tricount.partition.source import _cupy, graph_source, reads_file_to_device

__all__ = ["count_gpu", "count_subproblem", "rank_on_gpu", "resolve_devices", "fits_in_memory",
           "DeviceThreads"]


def resolve_devices(devices) -> list[int]:
    """Device ids for ``devices``: None (the current device), ``"all"``, a count (the first
    ones) or ids (repeats allowed: two workers sharing one GPU, each with half its memory)."""
    from tricount.partition import check_devices

    cp = _cupy()
    available = cp.cuda.runtime.getDeviceCount()
    devices = check_devices(devices)
    if devices is None:
        return [cp.cuda.Device().id]
    if devices == "all":
        return list(range(available))
    ids = list(range(devices)) if isinstance(devices, int) else list(devices)
    bad = [d for d in ids if d >= available]
    if bad or not ids:
        raise InvalidArgumentError(f"devices={devices!r}: this machine has {available} GPU(s), "
                                   f"ids 0 .. {available - 1}")
    return ids


def fits_in_memory(n_vertices: int, n_edges: int, index_bytes: int, *, on_device: bool,
                   method: str = "auto", orientation: str = "auto", max_memory=None,
                   name: str = "") -> tuple[bool, str]:
    """Whether the in-memory GPU count (:func:`tricount.gpu.engine.count`) fits, and why not:
    the GPU plan's memory check (:func:`tricount.gpu.plan.plan_memory`, and a sliced
    preparation's least slice), with the memory free on the current device."""
    from tricount.gpu.device import free_device_bytes
    from tricount.gpu.plan import (GraphStats, graph_device_bytes, plan_memory, request,
                                   slice_capacity)

    n, m, idx = int(n_vertices), int(n_edges), int(index_bytes)
    stats = GraphStats(n, m, idx, on_device, free_device_bytes(), name=name or "")
    wanted = request(method, orientation)
    try:
        planned = plan_memory(stats, wanted, max_memory)
        prep = planned.preparation
        if prep.sliced:
            slice_capacity(prep.budget_bytes, graph_device_bytes(n, m, idx), n, m, idx, 1)
    except UnsupportedGraphError as exc:
        return False, f"the in-memory count does not fit: {exc}"
    return True, f"the in-memory count fits the GPU ({prep.kind} preparation)"


# -- several devices -----------------------------------------------------------------------------


class DeviceThreads:
    """Runs each worker's steps in a thread of its own; a single worker runs in the caller's."""

    def __init__(self, workers: list[DeviceWorker]):
        self.workers = workers
        self.pools = None
        if len(workers) > 1:
            self.pools = [ThreadPoolExecutor(max_workers=1,
                                             thread_name_prefix=f"tricount-{w.label}")
                          for w in workers]

    def run(self, i: int, fn):
        if self.pools is None:
            return fn(self.workers[i])
        return self.pools[i].submit(fn, self.workers[i]).result()

    def each(self, fn) -> list:
        """``fn(worker)`` on every worker at once; the first error is raised once all ended."""
        if self.pools is None:
            return [fn(self.workers[0])]
        futures = [pool.submit(fn, w) for pool, w in zip(self.pools, self.workers)]
        results, error = [], None
        for f in futures:
            try:
                results.append(f.result())
            except BaseException as exc:
                error = error or exc
                results.append(None)
        if error is not None:
            raise error
        return results

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        try:
            self.each(lambda w: w.close())
        finally:
            for pool in self.pools or ():
                pool.shutdown(wait=True)
        return False


def _free_bytes(ids: list[int]) -> dict:
    """Bytes free on each device, shared equally by the workers that use it."""
    from tricount.gpu.device import free_device_bytes

    cp = _cupy()
    share = Counter(ids)
    free = {}
    for d in share:
        with cp.cuda.Device(d):
            free[d] = free_device_bytes() // share[d]
    return free


def _labels(ids: list[int]) -> list[str]:
    """``gpu:0``, or ``gpu:0#1`` for a second worker on device 0."""
    seen = Counter()
    out = []
    for d in ids:
        out.append(f"gpu:{d}" + (f"#{seen[d]}" if seen[d] else ""))
        seen[d] += 1
    return out


def count_gpu(graph, *, partitions=None, devices=None, max_memory=None, shape=None, timer=None):
    """Count triangles as a plan of sub-problems on one or several GPUs.

    Returns ``(n_triangles, PartitionReport)``; the report lists every piece
    counted (``subproblems``) and every device (``devices``: pieces, busy and
    kernel seconds, bytes copied, peak memory, budget, residency).

    Parameters
    ----------
    graph : CSRGraph, RankedCSR, str or os.PathLike
        On the host or on a GPU; a file is read into host memory, except a plain
        ``.tcsr`` that every device copies whole, which each device reads itself
        (:func:`reads_file_to_device`); a ``.tcsr`` in rank order needs no orientation.
    partitions : int, optional
        Force this many apex ranges; default the least that fits (one when the
        rank-ordered CSR fits the device).
    devices : None, "all", int or list of int
        GPUs to use: the current one, all, the first ``devices``, or these ids
        (an id twice: two workers sharing that GPU's memory).
    max_memory : int, optional
        Bytes each device may hold for the count (default: what is free).
    shape : HashShape, optional
        The hash kernel's launch shape (tests, benchmarks); by block size.
    timer : callable, optional
        As :func:`tricount.gpu.engine.count`'s: kernel seconds per piece and device.
    """
    from tricount.partition import PartitionReport, check_partition_args

    partitions, devices, max_memory = check_partition_args(partitions, devices, max_memory)
    t0 = time.perf_counter()
    source = graph_source(graph, unread_file=True)
    if source.device is not None:
        # The work that made the caller's arrays may still be queued on the caller's stream,
        # which the workers' non-blocking streams do not wait for.
        _cupy().cuda.Device(source.device).synchronize()  # CuPy makes it current for this
    t_load = time.perf_counter()
    ids = resolve_devices(devices)
    workers = [DeviceWorker(d, label, shape=shape, timer=timer)
               for d, label in zip(ids, _labels(ids))]
    with DeviceThreads(workers) as threads:
        free = _free_bytes(ids)
        dplans = None
        if source.device is not None and any(d != source.device for d in ids):
            # A graph on the first device stays there, and the others copy its preparation
            # (NVLink or PCIe), only when every device keeps the rank-ordered CSR and the first
            # has room beside it; else it goes through the host.
            if source.device == ids[0]:
                try:
                    dplans = [w.plan_memory(source, free[w.device_id], max_memory)
                              for w in workers]
                except UnsupportedGraphError:
                    dplans = None
            if dplans is None or not shared_prep.can_replicate(workers, dplans):
                source, dplans = source.to_host(), None
        if dplans is None:
            dplans = [w.plan_memory(source, free[w.device_id], max_memory) for w in workers]
        if source.unread and not reads_file_to_device(dplans):
            t_read = time.perf_counter()
            source = source.read_host()
            t_load += time.perf_counter() - t_read  # the read is the load, not the preparation
        if source.ranked is not True and not all(p.ranked_resident for p in dplans):
            source = threads.run(0, lambda w: w.orient_to_host(source))
            dplans = [w.plan_memory(source, free[w.device_id], max_memory) for w in workers]
        whole = whole_range(dplans, partitions)
        keep = [i == 0 and not whole for i in range(len(workers))]
        if source.unread:  # each device reads the file itself (reads_file_to_device)
            threads.each(lambda w: w.prepare(source, keep_in_degree=w is workers[0] and not whole))
        elif shared_prep.can_share(workers, source, dplans):
            shared_prep.prepare(threads, source, keep_in_degree=keep)
        elif shared_prep.can_replicate(workers, dplans):
            shared_prep.prepare_once(threads, source, keep_in_degree=keep)
        else:
            threads.each(lambda w: w.prepare(source, keep_in_degree=w is workers[0] and not whole))
        t_prepare = time.perf_counter()
        plan, items = plan_pieces(
            source.n_vertices, source.n_edges, partitions, dplans,
            in_degree=lambda: threads.run(0, lambda w: w.host_in_degree()),
            anchor_prefix=lambda samples: shared_anchor_prefix(threads, samples),
            owner_prefix=lambda samples: shared_owner_prefix(threads, samples),
            pieces=pieces_per_range(len(workers), source.n_edges), workers=len(workers))
        t_plan = time.perf_counter()
        results = _drain_all(threads, items)
        t_count = time.perf_counter()
    results.sort(key=lambda r: (r["index"], r["rows"][0], r["owners"][0]))
    n_triangles = sum(int(r["n_triangles"]) for r in results)  # Python ints: exact
    summary = dict(source.summary)
    if summary.get("max_degree") is None and workers[0].max_degree is not None:
        summary["max_degree"] = workers[0].max_degree
    timings = {"load_s": t_load - t0, "prepare_s": t_prepare - t_load,
               "plan_s": t_plan - t_prepare, "count_s": t_count - t_plan,
               "total_s": t_count - t0}
    kernel = [w.stats["kernel_s"] for w in workers if w.stats["kernel_s"] is not None]
    if kernel:
        timings["kernel_s"] = max(kernel)
    report = PartitionReport(plan.k, "gpu", plan.reason, tuple(w.label for w in workers), plan,
                             results, timings, devices=[dict(w.stats) for w in workers],
                             graph=summary)
    return n_triangles, report


def _by_share(threads: DeviceThreads, prefix: str, samples: int) -> list:
    """Each device's ``prefix`` method (``anchor_prefix`` or ``owner_prefix``) over its share
    of the anchors (rank ranges of equal entries), in share order; one device: the whole."""
    workers = threads.workers
    if len(workers) == 1:
        return [threads.run(0, lambda w: getattr(w, prefix)(samples))]
    shares = threads.run(0, lambda w: w.rank_shares(len(workers)))
    index = {id(w): i for i, w in enumerate(workers)}
    return threads.each(lambda w: getattr(w, prefix)(samples, rows=shares[index[id(w)]]))


def shared_anchor_prefix(threads: DeviceThreads, samples: int) -> tuple[np.ndarray, np.ndarray]:
    """:meth:`~tricount.partition.device_worker.DeviceWorker.anchor_prefix` of the whole
    graph, each device estimating the work of a share of the anchors and the host joining
    the sums."""
    parts = _by_share(threads, "anchor_prefix", samples)
    positions, work, below = [], [], 0
    for i, (p, wk) in enumerate(parts):
        keep = slice(1 if i else 0, None)  # a share's first position is the last one's end
        positions.append(p[keep])
        work.append(wk[keep] + below)
        below += int(wk[-1])
    return np.concatenate(positions), np.concatenate(work)


def shared_owner_prefix(threads: DeviceThreads, samples: int) -> tuple[np.ndarray, np.ndarray,
                                                                        np.ndarray]:
    """:meth:`~tricount.partition.device_worker.DeviceWorker.owner_prefix` of the whole
    graph, each device reading the edges of a share of the anchors and the host adding their
    sampled sums (the same positions for every share; a running sum of a sum is the sum of
    the running sums)."""
    parts = _by_share(threads, "owner_prefix", samples)
    return parts[0][0], sum(p[1] for p in parts), sum(p[2] for p in parts)


def _drain_all(threads: DeviceThreads, items) -> list[dict]:
    work = WorkQueue(items)
    return [r for part in threads.each(lambda w: w.drain(work)) for r in part]


def rank_on_gpu(graph, *, max_memory=None):
    """The :class:`~tricount.partition.ranked.RankedCSR` of a graph, ordered on the current GPU
    (the statistics and the orientation's slices) into host memory: what
    :func:`tricount.partition.prepare_ranked` writes, without the CPU's orientation."""
    from tricount.partition.ranked import RankedCSR

    source = graph_source(graph)
    if source.device is not None:
        source = source.to_host()
    device = _cupy().cuda.Device().id
    worker = DeviceWorker(device, f"gpu:{device}")
    with DeviceThreads([worker]):
        worker.plan_memory(dataclasses.replace(source, ranked=False),
                           _free_bytes([device])[device], max_memory)
        out = worker.orient_to_host(source, keep_rank=True)
    return RankedCSR(out.indptr, out.indices, out.n_vertices, out.n_edges, out.rank, None,
                     None if out.in_degree is None else np.asarray(out.in_degree))


# -- the Dask workers' counter -------------------------------------------------------------------


def count_subproblem(source, sub: SubProblem, *, block=None) -> dict:
    """Count one sub-problem on this process's current GPU, preparing the graph for it alone.

    ``source`` is a :class:`~tricount.partition.ranked.RankedCSR` or a ranked
    ``.tcsr`` path (read once per process, :func:`~tricount.partition.blocks.open_source`);
    ``block``, a host :class:`~tricount.partition.blocks.ColumnBlock` of the
    sub-problem's range, is used instead of building it. Returns the CPU
    counter's keys (:func:`tricount.partition.cpu.count_subproblem`), ``where``
    naming the device (``"gpu:0"``). It is a
    :class:`~tricount.partition.device_graph.DeviceGraph` made for one sub-problem: every
    call copies and checks the graph again, where the Dask executor keeps one per worker
    and pays that once per count.
    """
    from tricount.partition.blocks import open_source
    from tricount.partition.device_graph import DeviceGraph

    ranked = open_source(source)
    sub.check(ranked.n_vertices)
    if block is not None and (block.lo, block.hi) != (sub.apex_lo, sub.apex_hi):
        raise TricountError(f"sub-problem {sub.index} counts apexes {sub.apex_lo}.."
                            f"{sub.apex_hi}; the block given holds {block.lo}..{block.hi}")
    graph = DeviceGraph.prepare(ranked)
    try:
        if block is not None:
            graph.worker.use_block(block)
        return graph.count(sub)
    finally:
        graph.close()
