"""Launcher of ``kernels/listing.cu``: every triangle once, streamed from the GPU in chunks.

Lists: each triangle as a row of three vertex ids sorted by compact id; the
same rows as :mod:`tricount.cpu.listing`, in the order of the hash plan's
pairs (each pair's rows by increasing third vertex), which depends on the
graph alone. Input: a degree-oriented COO+CSR of CuPy arrays.
Steps: the hash method's plan (:mod:`tricount.prep.partners`: every edge that
can close a triangle given to the end with the longer out-list, the owners cut
into tasks and ordered as :mod:`tricount.gpu.methods.hash` orders them for the
count); ``tc_list_count`` stores the triangles every pair closes, a prefix sum
numbers them (int64), and ``tc_list_write`` walks the same tasks again to fill
one window of numbers at a time into a device buffer, column by column,
skipping the tasks whose rows miss the window (a task's pairs, and so its
rows, are consecutive).
Streaming: one write launch fills a batch of many windows (as many as two
batches fit in a quarter of the free device memory: every launch walks every
task), and each window is copied out of it on its own. Two device batch
buffers and two pinned host buffers alternate: batch b + 1 is written on the
compute stream while batch b is copied out on the copy stream, window by
window, each handed to the caller when its copy ends; a buffer is written
again only after the event that ends its last copy. So the card holds two
batches, the host two pinned windows, and the number of triangles is bounded
by what the caller does with them (a file: the disk), not by the card.
"""

from __future__ import annotations

import numpy as np

from tricount.gpu.device import cupy, free_device_bytes, kernel_arrays, launch
from tricount.gpu.methods.hash import DEFAULT_DEFINES as HASH_DEFINES
from tricount.gpu.methods.hash import hash_kernel, plan_tasks, task_grid
from tricount.gpu.plan import HashShape
from tricount.gpu.prepare import plan_partners

__all__ = ["GpuLister", "batch_rows", "iter_columns_gpu", "list_triangles_gpu"]

#: The ``#ifndef`` defaults of ``kernels/listing.cu`` (tests/gpu/test_kernel_defines.py):
#: hash.cu's, less the batched bounds the listing does not use.
DEFAULT_DEFINES = {"listing": {k: v for k, v in HASH_DEFINES["hash"].items()
                               if k != "batch_bounds"}}

#: Partner lists a warp reads (shorter: one thread each) by default: the count's 16 at
#: 10^7 edges and more, 32 below; 32 listed R-MAT 21 in 55.1 ms against 56.0 and
#: R-MAT 20 in 25.9 against 27.0 (H100, device run 2 of 2026-11-26, no labels).
LONG_LIST = 32
#: cudaMemcpyDeviceToHost.
_DEVICE_TO_HOST = 2
#: Share of the free device memory a stream's two batch buffers may take. A write
#: launch reads every task's bounds, and each launch and its copy have a fixed cost:
#: a stream writes many chunks per launch and copies each out (R-MAT 21 in 4 Mi-row
#: windows, numbered by edge then: 1.99 s one launch per window, H100). Chosen, not
#: measured.
BATCH_MEMORY_SHARE = 0.25


class GpuLister:
    """Counted and numbered triangles of one oriented graph on the GPU.

    ``labels``: None to write compact ids, else an int64 array (NumPy or
    CuPy) of the id written for each compact vertex. ``shape``: the hash
    method's launch shape (:class:`~tricount.gpu.plan.HashShape`; None: the
    count's own for this size, lists of :data:`LONG_LIST` or more read by a
    warp). Construction plans, runs the count and the prefix sum, and
    synchronizes.
    """

    def __init__(self, oriented, labels=None, *, shape: HashShape | None = None):
        cp = cupy()
        self.shape = (shape or HashShape(long_list=LONG_LIST)).resolve(oriented.n_edges)
        self.n_edges = oriented.n_edges
        self.labels = None if labels is None else cp.asarray(labels, dtype=cp.int64)
        self.offsets = cp.zeros(1, dtype=cp.int64)  # the pairs' running sum (none yet)
        self.n_tasks = 0
        if self.n_edges:
            self._count(oriented)
        self.n_triangles = int(self.offsets[-1])  # synchronizes

    def _count(self, oriented) -> None:
        """Plan, order the tasks, count per pair, and number by a prefix sum."""
        cp = cupy()
        shape, m = self.shape, self.n_edges
        indptr, _rows, cols, _vertex = kernel_arrays(oriented)
        plan = plan_partners(oriented)
        if plan.n_pairs == 0:
            return
        kernel, edge_dtype, self.block_slots, self.shared_bytes = hash_kernel(
            shape, cols, m, oriented.max_out_degree, stem="listing", name="tc_list_count")
        self._writer = hash_kernel(shape, cols, m, oriented.max_out_degree, stem="listing",
                                   name="tc_list_write")[0]
        # tc_list_write stages (unroll + 1) * 32 ids per warp after the tables.
        self.write_shared_bytes = self.shared_bytes + (
            shape.block_size // 32 * (shape.unroll + 1) * 32 * cols.dtype.itemsize)
        self._tasks = plan_tasks(shape, plan, cp.diff(indptr), 0, edge_dtype)
        self.n_tasks, self.n_block = int(self._tasks[0].shape[0]), self._tasks[3]
        self._lists = (indptr.astype(edge_dtype, copy=False), cols, plan.partners)
        counts = cp.zeros(plan.n_pairs, dtype=cp.uint32)  # < 2^31 each (one out-list)
        self._launch(kernel, self.shared_bytes, (counts,))
        self.offsets = cp.zeros(plan.n_pairs + 1, dtype=cp.int64)
        cp.cumsum(counts, dtype=cp.int64, out=self.offsets[1:])

    def _launch(self, kernel, shared_bytes: int, tail: tuple) -> None:
        """One launch over every task: the lists and the task schedule, then ``tail``."""
        cp = cupy()
        owner, begin, end, n_block = self._tasks
        grid = task_grid(kernel, self.shape, self.n_tasks, n_block, shared_bytes)
        next_task = cp.zeros(2, dtype=cp.uint64)
        launch(kernel, grid, self.shape.block_size,
               (*self._lists, owner, begin, end, np.int64(n_block), np.int64(self.n_tasks),
                np.int64(self.block_slots), next_task, *tail), shared_bytes)

    def windows(self, chunk_size: int):
        """``(t_begin, t_end)`` of every window of ``chunk_size`` triangles, in order."""
        if chunk_size < 1:
            raise ValueError(f"chunk_size must be at least 1, got {chunk_size}")
        for first in range(0, self.n_triangles, chunk_size):
            yield first, min(first + chunk_size, self.n_triangles)

    def write(self, window, out, *, rows: bool = False) -> None:
        """Launch the write of ``window`` into the device int64 array ``out`` (3 k entries)
        on the current stream: row by row (``rows``: out holds (k, 3) C-ordered) or the u,
        v and w columns one after the other."""
        t_begin, t_end = window
        if t_end <= t_begin:
            return
        labels = self.labels if self.labels is not None else np.uint64(0)  # null: compact ids
        strides = (3, 1) if rows else (1, t_end - t_begin)
        self._launch(self._writer, self.write_shared_bytes,
                     (self.offsets, labels, np.int64(t_begin), np.int64(t_end),
                      *map(np.int64, strides), out))


def _lister(oriented, labels, tunables) -> GpuLister:
    return oriented if isinstance(oriented, GpuLister) else GpuLister(oriented, labels, **tunables)


def batch_rows(n_triangles: int, chunk_size: int, free_bytes: int) -> int:
    """Rows one write launch of a stream fills: a multiple of ``chunk_size``, two
    batches of 24-byte rows within :data:`BATCH_MEMORY_SHARE` of ``free_bytes``, at
    least one chunk and no more chunks than all the rows need."""
    chunks = max(1, int(free_bytes * BATCH_MEMORY_SHARE) // (2 * 24 * chunk_size))
    return min(chunks, -(-n_triangles // chunk_size)) * chunk_size


def iter_columns_gpu(oriented, labels, chunk_size: int, **tunables):
    """Yield every triangle once as ``(3, k)`` int64 NumPy views of pinned memory.

    Row 0 holds the u column, row 1 v, row 2 w. A view is valid only until the
    next one is asked for (its buffer is then refilled); copy what you keep.
    ``oriented`` may be a :class:`GpuLister` already counted (``labels`` is then its own).
    """
    return _stream(_lister(oriented, labels, tunables), chunk_size, rows=False)


def _stream(lister, chunk_size: int, *, rows: bool):
    """The chunks of ``lister`` as views of pinned memory: ``(k, 3)`` when ``rows``, else
    ``(3, k)`` (the module doc's streaming; iter_columns_gpu's contract)."""
    import cupyx

    cp = cupy()
    n = lister.n_triangles
    if n == 0:
        return
    batch = batch_rows(n, chunk_size, free_device_bytes())
    device = [cp.empty(3 * min(batch, n), dtype=cp.int64) for _ in range(min(2, -(-n // batch)))]
    host = [cupyx.empty_pinned(3 * min(chunk_size, n), dtype=np.int64)
            for _ in range(1 if chunk_size >= n else 2)]
    compute, copier = cp.cuda.Stream(), cp.cuda.Stream()
    written, freed = [None] * len(device), [None] * len(device)
    copied = [None] * len(host)

    def write(b, window):
        slot = b % len(device)
        with compute:
            if freed[slot] is not None:
                compute.wait_event(freed[slot])  # every copy out of this buffer has finished
            lister.write(window, device[slot], rows=rows)
            written[slot] = compute.record()

    def chunks():
        """``(device slot, batch rows, first row, rows)`` of every chunk in order; each
        batch is launched while the one before it is copied out."""
        batches = lister.windows(batch)
        current, b = next(batches), 0
        write(0, current)
        while current is not None:
            following = next(batches, None)
            if following is not None:
                write(b + 1, following)
            slot, in_batch = b % len(device), current[1] - current[0]
            copier.wait_event(written[slot])
            for first in range(0, in_batch, chunk_size):
                yield slot, in_batch, first, min(chunk_size, in_batch - first)
            freed[slot] = copier.record()  # after the batch's last copy was queued
            current, b = following, b + 1

    def copy(i, chunk):
        """Queue chunk i into host buffer i % 2: its rows (one block) or its three column
        pieces (one 2-D copy)."""
        slot, in_batch, first, k = chunk
        h = i % len(host)
        if rows:
            cp.cuda.runtime.memcpyAsync(host[h].ctypes.data, device[slot].data.ptr + first * 24,
                                        k * 24, _DEVICE_TO_HOST, copier.ptr)
        else:
            cp.cuda.runtime.memcpy2DAsync(host[h].ctypes.data, k * 8,
                                          device[slot].data.ptr + first * 8, in_batch * 8,
                                          k * 8, 3, _DEVICE_TO_HOST, copier.ptr)
        copied[h] = copier.record()
        return k

    try:
        order = chunks()
        i, k = 0, copy(0, next(order))
        while True:
            following = next(order, None)
            if following is not None:
                # Its host buffer held chunk i - 1, which the caller is done with.
                k_next = copy(i + 1, following)
            copied[i % len(host)].synchronize()
            view = host[i % len(host)][: 3 * k]
            yield view.reshape(k, 3) if rows else view.reshape(3, k)
            if following is None:
                return
            i, k = i + 1, k_next
    finally:
        # Closed early or failed: let queued work finish before the buffers are freed.
        compute.synchronize()
        copier.synchronize()


def list_triangles_gpu(oriented, labels, chunk_size: int, *, to_host: bool = True, **tunables):
    """Yield every triangle once as ``(k, 3)`` int64 arrays; every chunk has ``chunk_size``
    rows except the last.

    With ``to_host`` (the default) each chunk is a new C-contiguous NumPy
    array, copied out of the streamed pinned buffers; they are written row by
    row on the device, so the host copies one block instead of transposing
    columns (R-MAT 21 in 4 Mi-row chunks: 5.5 s against 8.0 s, H100 machine).
    Without, each chunk is a new CuPy array on the device, written column by
    column (each column contiguous: the rows' stores of a warp land closer
    together, 24.1 against 28.9 ms for R-MAT 21's 22.8 GB on an H100), and
    nothing is copied to the host.
    """
    lister = _lister(oriented, labels, tunables)
    if to_host:
        for rows in _stream(lister, chunk_size, rows=True):
            yield rows.copy()  # the pinned buffer is refilled for the next chunk
        return
    cp = cupy()
    for window in lister.windows(chunk_size) if lister.n_triangles else ():
        k = window[1] - window[0]
        out = cp.empty(3 * k, dtype=cp.int64)
        lister.write(window, out)
        yield out.reshape(3, k).T
