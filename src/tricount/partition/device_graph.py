"""A graph a Dask worker with a GPU keeps on its device for a count's tasks.

The GPU twin of :mod:`tricount.partition.host_graph`, and one device's share of
:func:`tricount.partition.gpu.count_gpu`, cut at the seams a cluster needs: made once per
worker process (:mod:`tricount.partition.worker_cache` keeps it), it plans when its worker
is the planning one, counts each piece handed to it, and closes.

- **Prepare** (what ``count_gpu`` does per device): the graph, a ``.tcsr`` read straight
  into device memory where the plan copies it there whole (:mod:`tricount.io.native_gpu`;
  else into host memory by :func:`tricount.io.load_graph`, as ``count_gpu`` reads it; a
  scattered :class:`~tricount.partition.ranked.RankedCSR` as it is), the device's budget and
  residency (:meth:`~tricount.partition.device_worker.DeviceWorker.plan_memory`, from the memory
  free on this process's current device and ``max_memory``), then
  :meth:`~tricount.partition.device_worker.DeviceWorker.prepare`: the copy, the degrees and the rank
  check on the device, the orientation there when the file is not in rank order (or on
  the device into host memory, when the rank-ordered CSR will not stay on it). The host
  arrays go once the CSR is on the device. No pass over the edges runs on the CPU.
- **Plan** (:func:`tricount.partition.pieces.plan_pieces`, as ``count_gpu``): one range whose
  block is the CSR itself when this device keeps it, else the least k ranges whose blocks
  fit this device, from the in-degrees read back from it (kept on the host at preparation
  only in that case); each range cut into ``pieces`` of about equal anchor work, read back
  at sampled ranks. The plan fits the planning worker's device: on workers with less
  memory, pass ``max_memory``.
- **Count**: :meth:`~tricount.partition.device_worker.DeviceWorker.count` on the kept CSR (the last
  block kept between pieces of one range; the whole range's block is the CSR itself).
- **Close**: the device's arrays let go into CuPy's pool, as ``count_gpu`` leaves them (the
  pool's blocks go back to the device only after a failure); returns the device's account
  (pieces, busy seconds, bytes copied, peak memory, budget, residency).
"""

from __future__ import annotations

import time

import numpy as np

from tricount.partition.plan import PartitionPlan, SubProblem

__all__ = ["DeviceGraph"]

#: What a count returns of :meth:`DeviceWorker.count`'s dict (the CPU counter's keys).
COUNT_KEYS = ("n_triangles", "index", "rows", "block_s", "count_s", "where")


class DeviceGraph:
    """The rank-ordered CSR prepared on this process's current GPU, and its worker."""

    def __init__(self, worker, facts: dict, *, partitions=None, in_degree=None,
                 open_s: float = 0.0, prepare_s: float = 0.0):
        self.worker = worker
        self.facts = facts
        self.partitions = partitions
        self.in_degree = in_degree  # host int64 by rank; only when the plan may need it
        self.timings = {"open_s": open_s, "prepare_s": prepare_s}
        self.where = worker.label
        self.reason = worker.label

    @classmethod
    def prepare(cls, source, *, partitions=None, max_memory=None) -> "DeviceGraph":
        """Read ``source`` (a ``.tcsr`` path or a RankedCSR) and prepare it on this device."""
        from tricount.gpu.device import free_device_bytes
        from tricount.partition.device_worker import DeviceWorker
        from tricount.partition.pieces import whole_range
        from tricount.partition.source import _cupy, graph_source, reads_file_to_device

        t0 = time.perf_counter()
        src = graph_source(source, unread_file=True)
        t1 = time.perf_counter()
        cp = _cupy()
        device = cp.cuda.Device().id
        worker = DeviceWorker(device, f"gpu:{device}")
        try:
            with cp.cuda.Device(device):
                free = free_device_bytes()
            dplan = worker.plan_memory(src, free, max_memory)
            if src.unread and not reads_file_to_device([dplan]):
                t_read = time.perf_counter()
                src = src.read_host()
                t1 += time.perf_counter() - t_read  # the read is the open, not the preparation
            if src.ranked is not True and not dplan.ranked_resident:
                src = worker.orient_to_host(src)  # the device streams the ranked CSR from here
                dplan = worker.plan_memory(src, free, max_memory)
            whole = whole_range([dplan], partitions)
            worker.prepare(src, keep_in_degree=not whole)
            in_degree = None if whole else worker.host_in_degree()
        except BaseException:
            _release(worker)  # a failed preparation leaves nothing on the device
            raise
        facts = {"graph": src.summary.get("graph"), "vertices": src.n_vertices,
                 "edges": src.n_edges}
        return cls(worker, facts, partitions=partitions, in_degree=in_degree, open_s=t1 - t0,
                   prepare_s=time.perf_counter() - t1)

    @property
    def n_vertices(self) -> int:
        return self.facts["vertices"]

    def plan(self, *, pieces: int = 1, workers: int = 1) -> tuple[PartitionPlan,
                                                                 list[SubProblem]]:
        """The plan and its pieces for ``workers`` workers, from this device's statistics
        (as ``count_gpu``)."""
        from tricount.partition.pieces import plan_pieces

        worker = self.worker
        return plan_pieces(self.facts["vertices"], self.facts["edges"], self.partitions,
                           [worker.dplan], in_degree=self._in_degree,
                           anchor_prefix=worker.anchor_prefix, owner_prefix=worker.owner_prefix,
                           pieces=pieces, workers=workers)

    def _in_degree(self) -> np.ndarray:
        # Kept at preparation whenever the plan is more than the whole range, and that is
        # decided by the same rule (whole_range) on the same device plan: never missing.
        assert self.in_degree is not None, "in-degrees dropped for a one-range plan"
        return self.in_degree

    def count(self, piece: SubProblem) -> dict:
        """Count one piece on the device (the CPU counter's keys, ``where`` the device)."""
        piece.check(self.n_vertices)
        worker = self.worker
        with worker.context("counting a sub-problem"):
            out = worker.count(piece)
        return {key: out[key] for key in COUNT_KEYS}

    def close(self) -> dict | None:
        """Let the device's arrays go (into CuPy's pool, as ``count_gpu`` leaves them: the
        worker's next count reuses the blocks, and freeing 20 GiB of them cost 0.12 s a
        count at R-MAT 26, run 12); the device's account."""
        worker, self.worker, self.in_degree = self.worker, None, None
        if worker is None:
            return None
        stats = dict(worker.stats)
        _release(worker, free_pools=False)
        return stats


def _release(worker, *, free_pools: bool = True) -> None:
    """Close a device worker (its arrays let go); with ``free_pools`` (a failure) also
    hand CuPy's cached device blocks and pinned staging buffers back, so that the memory
    is free for the next try and for other processes."""
    from tricount.partition.source import _cupy

    try:
        worker.close()
    finally:
        if free_pools:
            cp = _cupy()
            with cp.cuda.Device(worker.device_id):
                cp.get_default_memory_pool().free_all_blocks()
            cp.get_default_pinned_memory_pool().free_all_blocks()
