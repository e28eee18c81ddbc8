"""A text edge list straight to a graph on the GPU, reading overlapped with the copies.

Pearson et al. (HPEC 2019, §II-C) overlap reading the edge list with building
the graph in GPU memory: one thread fills a double buffer from the file while
another drains it into the device. Here the same pipeline has three stages,
each busy at once:

1. the input's :class:`~tricount.io.source.Source`, opened once, supplies
   line-aligned chunks of text (a reader thread, or the page cache for a
   plain file);
2. the host parses chunk ``k`` with the Numba parser on every core, and
   gathers its edges into pinned host buffer ``k % 2``;
3. a non-blocking CUDA stream copies that buffer into a device edge list
   (``cudaMemcpyAsync`` from pinned memory: the DMA engine, no CPU), while
   stage 2 already parses chunk ``k + 1`` into the other buffer. Before a
   buffer is refilled, the event recorded after its last copy is waited on,
   so a copy never reads a buffer being written.

The device edge list grows by doubling (device-to-device copies on the caller's
stream, after the copies queued so far). When the file is read, the graph is
built on the GPU by the code the NumPy path shares,
:func:`tricount.prep.canonical.canonical_edges` (one sort
of 64-bit keys), so loops, duplicates, vertex ids and the CSR are exactly
those of the host loader. Files that declare their vertices (Matrix Market,
METIS) keep all of them, ids ``1 .. n`` as on the host.

CuPy is imported only when this runs; importing the module needs no GPU. This
module uses CuPy directly and never imports :mod:`tricount.gpu` (a higher
floor): the caller (``api``, through ``backends.get_backend``) has checked that
the GPU is usable; a missing CuPy is still reported as
``BackendUnavailableError``. Out of device memory is an error naming the input.
"""

from __future__ import annotations

import time

import numpy as np

from tricount.errors import BackendUnavailableError, UnsupportedGraphError, import_failure
from tricount.io._parse import EdgeText

__all__ = ["DeviceEdges", "read_graph_gpu"]

#: Device edge list capacity at the first chunk, in multiples of its edges, when
#: the file size gives no better estimate (compressed files).
INITIAL_CAPACITY_CHUNKS = 4
#: Slack on the capacity estimated from the file size (lines vary in length).
ESTIMATE_SLACK = 1.1
#: Pinned buffers get this much room over the chunk that first needs them, so
#: that chunks a little longer (in lines) do not each reallocate pinned memory.
PINNED_SLACK = 1.25


def _cupy():
    try:
        import cupy
    except ImportError as exc:
        raise BackendUnavailableError(f"device 'gpu' is unavailable: "
                                      f"{import_failure(exc, 'CuPy', 'cupy')}; "
                                      "load with device='cpu'") from None
    return cupy


def _cupyx():
    import cupyx

    return cupyx


def plan_capacity(m: int, chunk_bytes: int, file_bytes: int | None) -> int:
    """Edges to allocate on the device at the first chunk (``m`` edges in ``chunk_bytes``).

    From the file size at the first chunk's bytes per edge when it is known
    (a plain file), else a few chunks' worth; growth covers any shortfall.

    >>> plan_capacity(1000, 14_000, 140_000)
    11000
    >>> plan_capacity(1000, 14_000, None)
    4000
    """
    if file_bytes and chunk_bytes > 0:
        return max(m, int(ESTIMATE_SLACK * m * file_bytes / chunk_bytes))
    return INITIAL_CAPACITY_CHUNKS * m


def grown_capacity(capacity: int, need: int) -> int:
    """The next capacity when ``need`` edges must fit: at least double (amortised O(1) copies).

    >>> grown_capacity(100, 150), grown_capacity(100, 900)
    (200, 900)
    """
    return max(need, 2 * capacity)


class DeviceEdges(EdgeText):
    """An :class:`EdgeText` whose edges go to the GPU as they are parsed (see module doc).

    ``file_bytes``: the file's size when it is plain text (sizes the device
    buffer from the first chunk), else None; ``capacity``: the number of edges when it is
    known (host edge arrays, :func:`tricount.gpu.host_edges.upload_edges`), which sizes the
    device buffer once. Use as a context manager, or call :meth:`close`: it waits for every
    copy before the pinned buffers can go.
    """

    def __init__(self, *, file_bytes: int | None = None, path=None, capacity: int | None = None):
        super().__init__(merge_repeats=False)  # device memory bounds it: see _too_big
        self.path = path
        self._cp = _cupy()
        self.stream = self._cp.cuda.Stream(non_blocking=True)
        self.file_bytes = file_bytes
        self.capacity = capacity
        self.dtype = None  # of the device edge list: the first chunk's, int64 once needed
        self.src = self.dst = None  # device arrays of ``capacity`` entries
        self.n_edges = 0
        self._pinned = [None, None]  # (src, dst) pinned host arrays of each slot
        self._copied = [None, None]  # event recorded after the last copy out of each slot
        self._slot = 0
        self.wait_s = 0.0  # host time spent waiting for a slot's previous copy

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def close(self) -> None:
        """Wait for every copy in flight (then the pinned buffers may be freed)."""
        self.stream.synchronize()

    # -- the double buffer ---------------------------------------------------------------

    def add(self, m: int, dtype, fill, chunk_bytes: int = 0, consumed: int = 0) -> None:
        """Gather ``m`` parsed edges into a pinned buffer and queue its copy to the GPU."""
        if self.dtype is None or np.dtype(dtype).itemsize > self.dtype.itemsize:
            self._widen(np.dtype(dtype))
        slot = self._slot
        self._slot ^= 1
        if self._copied[slot] is not None:
            t0 = time.perf_counter()
            self._copied[slot].synchronize()  # its previous copy has read it: refill it
            self.wait_s += time.perf_counter() - t0
        pinned = self._pinned[slot]
        if pinned is None or pinned[0].shape[0] < m:
            # Chunks of a known capacity come whole: no slack (the pool rounds sizes up to a
            # power of two, and a process's first pinning costs about 0.5 ms a MiB).
            room = m if self.capacity is not None else int(PINNED_SLACK * m) + 1
            pinned = (_cupyx().empty_pinned(room, dtype=self.dtype),
                      _cupyx().empty_pinned(room, dtype=self.dtype))
            self._pinned[slot] = pinned
        src_h, dst_h = pinned[0][:m], pinned[1][:m]
        fill(src_h, dst_h)  # the parser's gather writes straight into pinned memory
        self._reserve(self.n_edges + m, m, chunk_bytes)
        a, b = self.n_edges, self.n_edges + m
        self.src[a:b].set(src_h, stream=self.stream)  # from pinned memory: asynchronous
        self.dst[a:b].set(dst_h, stream=self.stream)
        self._copied[slot] = self.stream.record()
        self.n_edges = b

    def _widen(self, dtype) -> None:
        """Switch to ``dtype``: the first chunk's, or int64 once an id needs it."""
        self.close()  # both slots idle: their buffers can go
        self._pinned = [None, None]
        self._copied = [None, None]
        self.dtype = dtype
        if self.src is not None:
            try:
                self.src = self.src.astype(dtype)
                self.dst = self.dst.astype(dtype)
            except self._cp.cuda.memory.OutOfMemoryError:
                raise _too_big(self.path, self.src.shape[0], dtype) from None
            self._after_current()

    def _reserve(self, need: int, m: int, chunk_bytes: int) -> None:
        """Make the device edge list hold ``need`` edges (growth copies on the caller's
        stream, after the loader's queued copies)."""
        cp = self._cp
        capacity = 0 if self.src is None else self.src.shape[0]
        if need <= capacity:
            return
        if self.src is None:
            size = max(need, self.capacity or plan_capacity(m, chunk_bytes, self.file_bytes))
        else:
            size = grown_capacity(capacity, need)
        # On the caller's stream, not the loader's: CuPy's pool gives memory freed on a stream
        # only to that stream, and these buffers are freed once the graph is built (kept for
        # a stream of their own, they stayed cached for nobody after every load).
        self.close()  # the copies queued into the old buffers are done (growth is rare)
        try:
            src = cp.empty(size, dtype=self.dtype)
            dst = cp.empty(size, dtype=self.dtype)
            if self.n_edges:
                src[: self.n_edges] = self.src[: self.n_edges]
                dst[: self.n_edges] = self.dst[: self.n_edges]
        except cp.cuda.memory.OutOfMemoryError:
            raise _too_big(self.path, need, self.dtype) from None
        self.src, self.dst = src, dst
        self._after_current()

    def _after_current(self) -> None:
        """Queue the loader's next copies after the work queued so far on the caller's stream
        (where the buffers were made and filled, perhaps in memory that stream just freed)."""
        self.stream.wait_event(self._cp.cuda.get_current_stream().record())

    def take_edges(self):
        """Every edge copied, as device int64 arrays (the buffers themselves when they are
        int64 and full); the buffers are released."""
        cp = self._cp
        self.close()
        self._pinned = [None, None]
        if self.src is None:
            return cp.zeros(0, dtype=cp.int64), cp.zeros(0, dtype=cp.int64)
        n = self.n_edges
        # A full buffer of int64 is handed over as it is; a part is copied, so the room past
        # it is freed before the build.
        whole = n == self.src.shape[0]
        try:
            src = self.src[:n].astype(cp.int64, copy=not whole)
            dst = self.dst[:n].astype(cp.int64, copy=not whole)
        except cp.cuda.memory.OutOfMemoryError:  # narrower ids widened: 16 B a line more
            raise _too_big(self.path, n, np.int64) from None
        finally:
            self.src = self.dst = None
        return src, dst


def _too_big(path, n_edges: int, dtype) -> UnsupportedGraphError:
    need = 2 * n_edges * np.dtype(dtype).itemsize
    return UnsupportedGraphError(
        f"{path}: the edge list ({n_edges} edges, {need / 2**30:.2f} GiB) does not fit in GPU "
        "memory; load it with device='cpu' (and count with backend='cpu')")


def read_graph_gpu(source, fmt: str, *, name=None, progress=None):
    """Parse a text input (an opened :class:`~tricount.io.source.Source`) into a
    CSRGraph whose arrays live on the GPU.

    ``fmt`` is ``snap``, ``graphchallenge``, ``matrix-market`` or ``metis``.
    Returns ``(graph, timings)``: ``load_s`` (read, parse and copy,
    overlapped), ``build_s`` (canonicalisation on the GPU), ``copy_wait_s``
    (how long the parser waited for a buffer's copy: near 0 when the copies
    hide behind it).
    """
    from tricount.graph import CSRGraph
    from tricount.io import parse_into
    from tricount.io._parse import check_symmetric
    from tricount.prep.canonical import canonical_edges

    cp = _cupy()
    t0 = time.perf_counter()
    file_bytes = source.size if source.compression is None else None
    with DeviceEdges(file_bytes=file_bytes, path=source.path) as sink:
        declared = parse_into(source, fmt, sink, progress=progress)
        src, dst = sink.take_edges()
    n_vertices, id_base = declared.n_vertices, declared.id_base
    t1 = time.perf_counter()
    try:
        if n_vertices is not None:
            # Declared ids id_base .. id_base + n - 1 (checked by the parser) as 0 .. n - 1.
            src -= id_base
            dst -= id_base
        canon = canonical_edges(src, dst, n_vertices=n_vertices)
        del src, dst
        vertex_ids = canon.vertex_ids
        if n_vertices is not None:
            vertex_ids = cp.arange(id_base, id_base + canon.n_vertices, dtype=cp.int64)
        facts = dict(vertex_ids=vertex_ids, self_loops_dropped=canon.self_loops_dropped,
                     duplicates_dropped=canon.duplicates_dropped, name=name)
        if canon.lo.shape[0]:
            graph = CSRGraph(canon.lo, canon.hi, canon.n_vertices, **facts)
        else:  # no edges: no search over an empty array on the device
            indptr = cp.zeros(canon.n_vertices + 1, dtype=cp.int64)
            graph = CSRGraph.from_upper_csr(indptr, canon.hi, canon.n_vertices, **facts,
                                            check=False)
        cp.cuda.get_current_stream().synchronize()
    except cp.cuda.memory.OutOfMemoryError:
        raise _too_big(source.path, sink.n_edges, np.int64) from None
    if declared.symmetric:
        check_symmetric(source.path, graph, sink.n_entries)
    t2 = time.perf_counter()
    return graph, {"load_s": t1 - t0, "build_s": t2 - t1, "copy_wait_s": sink.wait_s}
