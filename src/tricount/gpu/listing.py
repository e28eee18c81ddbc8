"""Launcher of ``kernels/listing.cu``: every triangle once, streamed from the GPU in chunks.

Lists: each triangle as a row of three vertex ids sorted by compact id; the
same rows in the same order as :mod:`tricount.cpu.listing`. Input: a
degree-oriented COO+CSR of CuPy arrays.
Steps: ``tc_list_count`` stores the triangles every oriented edge closes, a
prefix sum numbers them (int64), and ``tc_list_write`` fills one window of
numbers at a time into a device buffer, column by column.
Streaming: two device buffers and two pinned host buffers alternate. Window
i + 1 is written on the compute stream while window i is copied to pinned
memory on the copy stream and then handed to the caller; a buffer is written
again only after the event that ends its copy. So the card holds two windows,
the host two pinned windows, and the number of triangles is bounded by what
the caller does with them (a file: the disk), not by the card.
"""

from __future__ import annotations

import numpy as np

from tricount.gpu._triangles import (BLOCK_SIZE, GROUP_SIZE, default_defines,
                                     get_triangle_kernel, launch_edge_range)
from tricount.gpu.device import cupy, kernel_arrays

__all__ = ["GpuLister", "iter_columns_gpu", "list_triangles_gpu"]

#: The ``#ifndef`` defaults of ``kernels/listing.cu`` (tests/gpu/test_kernel_defines.py).
DEFAULT_DEFINES = default_defines("listing")

#: cudaMemcpyDeviceToHost.
_DEVICE_TO_HOST = 2
#: Windows whose edge ranges one device search finds (their bounds: 32 bytes each).
WINDOW_BATCH = 1 << 16


class GpuLister:
    """Counted and numbered triangles of one oriented graph on the GPU.

    ``labels``: None to write compact ids, else an int64 array (NumPy or
    CuPy) of the id written for each compact vertex. Construction runs the
    count and the prefix sum and synchronizes.
    """

    def __init__(self, oriented, labels=None, *, block_size: int = BLOCK_SIZE,
                 group_size: int = GROUP_SIZE):
        cp = cupy()
        self.block_size, self.group_size = block_size, group_size
        self.n_edges = oriented.n_edges
        self.indptr, self.rows, self.cols, vertex = kernel_arrays(oriented)
        self.labels = None if labels is None else cp.asarray(labels, dtype=cp.int64)
        self._shape = {"block_size": block_size, "group_size": group_size, "vertex_t": vertex}
        self._oriented = oriented
        self.offsets = cp.zeros(self.n_edges + 1, dtype=cp.int64)
        if self.n_edges:
            counts = cp.empty(self.n_edges, dtype=cp.uint32)  # < 2^31 each (one out-list)
            kernel = get_triangle_kernel("listing", "tc_list_count", oriented, **self._shape)
            launch_edge_range(kernel, self.n_edges,
                              (self.indptr, self.rows, self.cols, np.int64(self.n_edges), counts),
                              block_size=block_size, group_size=group_size)
            cp.cumsum(counts, dtype=cp.int64, out=self.offsets[1:])
            del counts
        self.n_triangles = int(self.offsets[-1])  # synchronizes

    def windows(self, chunk_size: int):
        """``(t_begin, t_end, e_begin, e_end)`` of every window of ``chunk_size`` triangles,
        in order; their edge ranges are searched on the device, :data:`WINDOW_BATCH` at a
        time (host memory stays bounded for any chunk size)."""
        cp = cupy()
        if chunk_size < 1:
            raise ValueError(f"chunk_size must be at least 1, got {chunk_size}")
        step = chunk_size * WINDOW_BATCH
        for first in range(0, self.n_triangles, step):
            starts = np.arange(first, min(first + step, self.n_triangles), chunk_size,
                               dtype=np.int64)
            ends = np.minimum(starts + chunk_size, self.n_triangles)
            e_begin = cp.searchsorted(self.offsets, cp.asarray(starts), side="right") - 1
            e_end = cp.searchsorted(self.offsets, cp.asarray(ends), side="left")
            yield from zip(starts.tolist(), ends.tolist(), cp.asnumpy(e_begin).tolist(),
                           cp.asnumpy(e_end).tolist())

    def write(self, window, out) -> None:
        """Launch the write of ``window`` into the device int64 array ``out`` (3 k entries:
        the u, v and w columns) on the current stream."""
        t_begin, t_end, e_begin, e_end = window
        kernel = get_triangle_kernel("listing", "tc_list_write", self._oriented,
                                     **self._shape)
        labels = self.labels if self.labels is not None else np.uint64(0)  # null: compact ids
        launch_edge_range(kernel, e_end - e_begin,
                          (self.indptr, self.rows, self.cols, self.offsets, labels,
                           np.int64(e_begin), np.int64(e_end), np.int64(t_begin),
                           np.int64(t_end), out),
                          block_size=self.block_size, group_size=self.group_size)


def _lister(oriented, labels, tunables) -> GpuLister:
    return oriented if isinstance(oriented, GpuLister) else GpuLister(oriented, labels, **tunables)


def iter_columns_gpu(oriented, labels, chunk_size: int, **tunables):
    """Yield every triangle once as ``(3, k)`` int64 NumPy views of pinned memory.

    Row 0 holds the u column, row 1 v, row 2 w. A view is valid only until the
    next one is asked for (its buffer is then refilled); copy what you keep.
    ``oriented`` may be a :class:`GpuLister` already counted (``labels`` is then its own).
    """
    import cupyx

    cp = cupy()
    lister = _lister(oriented, labels, tunables)
    if lister.n_triangles == 0:
        return
    windows = lister.windows(chunk_size)
    capacity = 3 * min(chunk_size, lister.n_triangles)
    slots = 1 if chunk_size >= lister.n_triangles else 2
    device = [cp.empty(capacity, dtype=cp.int64) for _ in range(slots)]
    host = [cupyx.empty_pinned(capacity, dtype=np.int64) for _ in range(slots)]
    compute, copier = cp.cuda.Stream(), cp.cuda.Stream()
    copied = [None] * slots

    def start(i, window):
        slot = i % slots
        k = window[1] - window[0]
        with compute:
            if copied[slot] is not None:
                compute.wait_event(copied[slot])  # the copy out of this buffer has finished
            lister.write(window, device[slot])
            written = compute.record()
        copier.wait_event(written)
        cp.cuda.runtime.memcpyAsync(host[slot].ctypes.data, device[slot].data.ptr, 3 * k * 8,
                                    _DEVICE_TO_HOST, copier.ptr)
        copied[slot] = copier.record()
        return k

    try:
        i, window = 0, next(windows)
        k = start(0, window)
        while True:
            following = next(windows, None)
            if following is not None:
                # Its host buffer held window i - 1, which the caller is done with.
                k_next = start(i + 1, following)
            copied[i % slots].synchronize()
            yield host[i % slots][: 3 * k].reshape(3, k)
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
    array, copied out of the streamed pinned buffers. Without, each chunk is a
    new CuPy array on the device (column-major: each column contiguous) and
    nothing is copied to the host.
    """
    if to_host:
        for columns in iter_columns_gpu(oriented, labels, chunk_size, **tunables):
            yield np.array(columns.T, order="C")  # always a copy (one row reads as contiguous)
        return
    cp = cupy()
    lister = _lister(oriented, labels, tunables)
    if lister.n_triangles == 0:
        return
    for window in lister.windows(chunk_size):
        k = window[1] - window[0]
        out = cp.empty(3 * k, dtype=cp.int64)
        lister.write(window, out)
        yield out.reshape(3, k).T
