"""A CSR read in chunks on one device: views of device arrays, or host arrays through pinned buffers.

The passes of a partitioned count (:mod:`tricount.gpu.apex`) read an upper
CSR (``indptr`` int64, ``indices``: row ``u`` holds ids above ``u``, sorted)
front to back, one *chunk* at a time. A chunk is the entries ``[e0, e1)`` of
the rows ``[r0, r1)`` on the current device: its slice of ``indptr`` (the
rows' offsets as stored) and of ``indices``. Rows are whole, except that a row
longer than a chunk's room is cut into pieces (``r1 == r0 + 1``); the
kernels clamp the offsets to the chunk's entries as they read them
(:meth:`Chunk.offset_args`; :meth:`Chunk.local_indptr` is that clamp as an
array), so every pass treats a piece like a short row.

- :class:`DeviceCSR`: arrays on this device; a chunk is two views, no copy.
- :class:`HostCSR`: NumPy arrays (a host graph, a ``.tcsr`` read into
  memory, a rank-ordered copy). A filler thread copies chunk ``k`` into
  pinned buffer ``k % 2`` (NumPy copies on several threads, which release the
  GIL) and queues its copy to the device on a copy stream, while the caller's
  stream works on chunk ``k - 1`` in the other pair of device buffers. Events
  order the two streams: a device buffer is overwritten only after the work
  queued on it, and a pinned buffer refilled only after its last copy.
  Rows that stay on the device (:meth:`HostCSR.to_device`, a cache) go
  straight to where they stay instead (:meth:`HostCSR.stream_into`): no device
  buffers, so the pieces can be as large as the pinned buffers of a whole
  copy, and the filler runs ahead of the caller's work.
- :class:`CachedHostCSR`: a :class:`HostCSR` whose first rows stay on the
  device once a pass from row 0 has read them (streamed into the cache as the
  pass goes), so later passes copy only the rest.

Every chunk a generator yields is valid until the next one is asked for: the
caller queues its work on its current stream before that.
"""

from __future__ import annotations

import bisect
import collections
import os
import threading
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass

import numpy as np

from tricount._threads import renew_in_child
from tricount.gpu.device import c_type, cupy
from tricount.prep.xp import array_namespace

__all__ = ["Chunk", "DeviceCSR", "DeviceRows", "HostCSR", "CachedHostCSR", "cached_rows",
           "chunk_bounds", "stage_csr_to_device",
           "STAGE_ENTRIES", "STAGE_ROWS", "STAGED_COPY_MIN_BYTES"]

#: Entries and rows of one pinned staging buffer: 64 MiB of int32 ids and 32 MiB of
#: offsets, a copy of about 3 ms at 25 GB/s (not measured: chosen so that the Python cost of
#: a chunk, about 0.1 ms, stays small and two slots cost under 0.2 GiB of pinned memory).
#: A chunk of STAGE_ROWS rows has STAGE_ROWS + 1 offsets: 2^22 words exactly, because
#: CuPy's pinned pool rounds every allocation up to a power of two, and a process's first
#: pinning costs about 0.5 ms a MiB (issue 25: 2^22 rows took 64 MiB, not 32).
STAGE_ENTRIES = 1 << 24
STAGE_ROWS = (1 << 22) - 1
#: Pairs of pinned and device buffers: one filled while the other is worked on.
STAGE_SLOTS = 2
#: Host copies into pinned memory are split over this many threads (one NumPy copy runs at
#: about 5-10 GB/s, below a PCIe link's 25-50).
COPY_THREADS = min(8, os.cpu_count() or 1)
#: ... in pieces of at least this many bytes.
COPY_PIECE_BYTES = 4 << 20


@dataclass(frozen=True)
class Chunk:
    """The entries ``[e0, e1)`` of rows ``[r0, r1)`` of an upper CSR, on the current device.

    ``indptr`` holds the stored offsets of rows ``r0 .. r1`` (``r1 - r0 + 1``
    values), ``cols`` the ids of the entries.
    """

    r0: int
    r1: int
    e0: int
    e1: int
    indptr: object
    cols: object

    @property
    def n_entries(self) -> int:
        return self.e1 - self.e0

    def local_indptr(self):
        """Offsets of rows ``r0 .. r1`` within the chunk (int64, from 0 to ``n_entries``)."""
        cp = cupy()
        return cp.clip(self.indptr, self.e0, self.e1) - self.e0

    def offset_args(self) -> tuple:
        """``(indptr, n_rows, e0, e1)``: how the kernels that read a chunk's rows from its
        offsets take them (as stored, clamped to the chunk's entries on the device: no copy)."""
        return (self.indptr, np.int64(self.r1 - self.r0), np.int64(self.e0), np.int64(self.e1))

    def rows(self, dtype):
        """The row of every entry, as ``dtype``: one kernel, nothing the host waits for (a
        pass's chunks are queued back to back)."""
        from tricount.gpu.prepare.keys import run_slice  # gpu.prepare imports this module

        rows = cupy().empty(self.n_entries, dtype=dtype)
        if self.n_entries:
            run_slice("tc_slice_entry_rows", self.n_entries,
                      self.offset_args() + (np.int64(self.r0), rows), c_type(rows.dtype))
        return rows


def chunk_bounds(indptr, row_begin: int, row_end: int, max_entries: int,
                 max_rows: int | None = None, *,
                 keep_empty: bool = False) -> list[tuple[int, int, int, int]]:
    """``(r0, r1, e0, e1)`` of consecutive chunks covering rows ``[row_begin, row_end)``.

    Each holds at most ``max_entries`` entries and ``max_rows`` rows; a row with
    more entries left than ``max_entries`` is cut into pieces. Chunks without
    entries are left out, unless ``keep_empty``: then every chunk starts at the
    row the one before ends at, or goes on with its cut row (the offsets
    ``r0 .. r1`` of the chunks cover ``row_begin .. row_end``). ``indptr`` is a
    NumPy or CuPy int64 array.

    Row 2 below has 7 entries: its first 4 are a chunk of their own, the
    rest shares a chunk with row 3.

    >>> chunk_bounds(np.array([0, 2, 2, 9, 10]), 0, 4, 4)
    [(0, 2, 0, 2), (2, 3, 2, 6), (2, 4, 6, 10)]
    >>> chunk_bounds(np.array([0, 0, 0, 3]), 0, 3, 4, 1, keep_empty=True)
    [(0, 1, 0, 0), (1, 2, 0, 0), (2, 3, 0, 3)]
    """
    xp = array_namespace(indptr)
    max_entries = max(1, int(max_entries))
    max_rows = max(1, int(max_rows or max(1, row_end - row_begin)))
    out = []
    r, e = int(row_begin), int(indptr[row_begin])
    while r < row_end:
        limit = e + max_entries
        # The last row boundary j with indptr[j] <= limit: rows r .. j-1 fit from e.
        j = int(xp.searchsorted(indptr, limit, side="right")) - 1
        stop = min(j, r + max_rows, row_end)
        if stop > r:
            e1 = int(indptr[stop])
            if e1 > e or keep_empty:
                out.append((r, stop, e, e1))
            r, e = stop, e1
        else:  # row r alone has more than max_entries left: a piece of it
            row_stop = int(indptr[r + 1])
            e1 = min(limit, row_stop)
            out.append((r, r + 1, e, e1))
            e = e1
            if e == row_stop:
                r += 1
    return out


class DeviceCSR:
    """An upper CSR whose arrays live on the current device: chunks are views."""

    def __init__(self, indptr, indices):
        self.indptr, self.indices = indptr, indices
        self.bytes_copied = 0

    @property
    def n_vertices(self) -> int:
        return int(self.indptr.shape[0]) - 1

    def chunks(self, row_begin: int, row_end: int, max_entries: int):
        for r0, r1, e0, e1 in chunk_bounds(self.indptr, row_begin, row_end, max_entries):
            yield Chunk(r0, r1, e0, e1, self.indptr[r0:r1 + 1], self.indices[e0:e1])

    def close(self) -> None:
        pass


class DeviceRows(DeviceCSR):
    """Rows ``[first, end)`` of an upper CSR on the current device, and only those.

    ``indptr`` holds their ``end - first + 1`` offsets as the whole CSR stores
    them (from ``indptr[0]``, not 0) and ``indices`` their entries. Chunks name
    rows and entries as the whole CSR's would, so every pass reads a share of
    the rows as it reads the whole graph; rows outside the share are empty.
    """

    def __init__(self, first: int, indptr, indices, entry_base: int):
        super().__init__(indptr, indices)
        self.first, self.entry_base = int(first), int(entry_base)
        self.end = self.first + int(indptr.shape[0]) - 1

    def chunks(self, row_begin: int, row_end: int, max_entries: int):
        lo, hi = max(int(row_begin), self.first), min(int(row_end), self.end)
        if hi <= lo:
            return
        base, first = self.entry_base, self.first
        for r0, r1, e0, e1 in chunk_bounds(self.indptr, lo - first, hi - first, max_entries):
            yield Chunk(r0 + first, r1 + first, e0, e1, self.indptr[r0:r1 + 1],
                        self.indices[e0 - base:e1 - base])


_COPY_POOL = None
_COPY_POOL_LOCK = threading.Lock()

renew_in_child(globals(), _COPY_POOL=lambda: None, _COPY_POOL_LOCK=threading.Lock)


def _copy_pool() -> ThreadPoolExecutor:
    global _COPY_POOL
    with _COPY_POOL_LOCK:
        if _COPY_POOL is None:
            _COPY_POOL = ThreadPoolExecutor(max_workers=COPY_THREADS,
                                            thread_name_prefix="tricount-copy")
        return _COPY_POOL


def copy_into(*pairs: tuple[np.ndarray, np.ndarray]) -> None:
    """``dst[:] = src`` for every ``(dst, src)`` (1-D), all at once on several threads (NumPy
    releases the GIL while it copies): pieces of at least :data:`COPY_PIECE_BYTES`, about
    one a thread, the calling thread copying the first."""
    total = sum(int(src.nbytes) for _dst, src in pairs)
    piece = max(COPY_PIECE_BYTES, -(-total // COPY_THREADS))
    calls = []
    for dst, src in pairs:
        step = max(1, piece // src.itemsize)
        calls.extend((np.copyto, dst[a:a + step], src[a:a + step])
                     for a in range(0, src.shape[0], step))
    _run_all(calls)


def narrow_into(src_out: np.ndarray, dst_out: np.ndarray, src: np.ndarray,
                dst: np.ndarray) -> bool:
    """``src_out[:] = src`` and ``dst_out[:] = dst`` (int64 ids into int32 buffers of one
    length) on the threads of :func:`copy_into`, when every id lies in ``0 .. 2**31 - 1``;
    else False, the buffers then partly written, to be dropped. Each thread narrows and checks
    a range of rows in one pass (:func:`tricount.gpu._narrow_cpu.narrow_pair`, Numba)."""
    from tricount.gpu._narrow_cpu import narrow_pair

    m = int(src.shape[0])
    rows = max(COPY_PIECE_BYTES // 8, -(-m // COPY_THREADS))
    return all(_run_all([(narrow_pair, src_out[a:a + rows], dst_out[a:a + rows],
                          src[a:a + rows], dst[a:a + rows]) for a in range(0, m, rows)]))


def _run_all(calls) -> list:
    """``fn(*args)`` for every ``(fn, *args)`` of ``calls``, the first on this thread and the
    rest on the copy threads; the results in order. Every call is done before this returns
    or raises."""
    futures = []
    try:
        for call in calls[1:]:  # inside the try: a Ctrl-C here still waits for those queued
            futures.append(_copy_pool().submit(*call))
        first = [calls[0][0](*calls[0][1:])] if calls else []
    finally:
        _wait_all(futures)  # even on Ctrl-C: no copy may still write once this returns
    return first + [f.result() for f in futures]


def _wait_all(futures) -> None:
    """Wait until every future is done, a Ctrl-C meanwhile raised only after (the copies
    write into buffers the caller frees or refills as soon as it has the exception)."""
    interrupted = None
    while True:
        try:
            wait(futures)
            break
        except KeyboardInterrupt as exc:
            interrupted = exc
    if interrupted is not None:
        raise interrupted


class HostCSR:
    """An upper CSR in host (NumPy) arrays, read in chunks on the current device.

    Construct and use it in one thread, with the device current there; the
    buffers are allocated at the first pass that needs them and released by
    :meth:`close` (after both streams are idle). ``stage_entries`` and
    ``stage_rows`` size a streamed pass's buffers (:meth:`chunks`: pinned, and
    as many on the device, within the caller's budget); ``piece_entries`` and
    ``piece_rows`` the pinned buffers of :meth:`stream_into` (host memory
    only, no larger than the graph: 2 × 96 MiB for int32 ids by default, as a
    whole copy always took). ``bytes_copied`` counts the bytes sent to the
    device.
    """

    def __init__(self, indptr: np.ndarray, indices: np.ndarray, *,
                 stage_entries: int = STAGE_ENTRIES, stage_rows: int = STAGE_ROWS,
                 piece_entries: int = STAGE_ENTRIES, piece_rows: int = STAGE_ROWS):
        self.indptr, self.indices = indptr, indices
        self.stage_entries, self.stage_rows = int(stage_entries), int(stage_rows)
        self.piece_entries = max(1, min(int(piece_entries), int(indptr[-1])))
        self.piece_rows = max(1, min(int(piece_rows), self.n_vertices))
        self.bytes_copied = 0
        self.copy_stream = self._filler = self._slots = self._pieces = None

    @property
    def n_vertices(self) -> int:
        return int(self.indptr.shape[0]) - 1

    def _open(self) -> None:
        """The copy stream and the filler thread, at the first pass."""
        if self.copy_stream is None:
            cp = cupy()
            self.device = cp.cuda.Device()
            self.copy_stream = cp.cuda.Stream(non_blocking=True)
        if self._filler is None:
            self._filler = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tricount-stage")

    def _stage_slots(self) -> list[dict]:
        """The streamed passes' pairs of pinned and device buffers."""
        if self._slots is None:
            cp, cupyx = cupy(), _cupyx()
            idx = self.indices.dtype
            self._slots = [{"pinned": (cupyx.empty_pinned(self.stage_rows + 1, dtype=np.int64),
                                       cupyx.empty_pinned(self.stage_entries, dtype=idx)),
                            "device": (cp.empty(self.stage_rows + 1, dtype=cp.int64),
                                       cp.empty(self.stage_entries, dtype=idx)),
                            "copied": None, "released": None} for _ in range(STAGE_SLOTS)]
            # The device buffers may be memory the pool took back from work still queued on
            # the caller's stream: their first copies wait for that work too.
            opened = cp.cuda.get_current_stream().record()
            for slot in self._slots:
                slot["released"] = opened
        return self._slots

    def _piece_buffers(self) -> list[dict]:
        """:meth:`stream_into`'s pinned buffers."""
        if self._pieces is None:
            cupyx = _cupyx()
            self._pieces = [{"pinned": (cupyx.empty_pinned(self.piece_rows + 1, dtype=np.int64),
                                        cupyx.empty_pinned(self.piece_entries,
                                                           dtype=self.indices.dtype)),
                             "copied": None} for _ in range(STAGE_SLOTS)]
        return self._pieces

    def close(self) -> None:
        """Wait for the filler and both streams, then let the buffers go."""
        if self._filler is not None:
            self._filler.shutdown(wait=True)
            self._filler = None
        if self.copy_stream is not None:
            self.copy_stream.synchronize()
            cupy().cuda.get_current_stream().synchronize()
        self._slots = self._pieces = None

    def _stage(self, pinned: dict, offsets: tuple[int, int], entries: tuple[int, int]) -> None:
        """In the filler thread: the offsets ``[o0, o1)`` and the entries ``[e0, e1)`` copied
        into the pinned pair, once its last copy out is done."""
        (o0, o1), (e0, e1) = offsets, entries
        ptr_h, idx_h = pinned["pinned"]
        if pinned["copied"] is not None:
            pinned["copied"].synchronize()
        copy_into((ptr_h[:o1 - o0], self.indptr[o0:o1]), (idx_h[:e1 - e0], self.indices[e0:e1]))
        self.bytes_copied += 8 * (o1 - o0) + (e1 - e0) * self.indices.itemsize

    def _fill(self, slot: dict, bound) -> None:
        """In the filler thread: a streamed pass's chunk into the slot's pinned buffers, then
        their copy to the slot's device buffers (after the caller's work on them)."""
        r0, r1, e0, e1 = bound
        self._fill_piece(slot, (r0, r1 + 1), (e0, e1), slot["device"], (r0, e0),
                         slot["released"])

    def _fill_piece(self, pinned: dict, offsets: tuple[int, int], entries: tuple[int, int],
                    outputs: tuple, first: tuple[int, int], after,
                    stop: threading.Event | None = None):
        """In the filler thread: the offsets ``[o0, o1)`` and the entries ``[e0, e1)``
        through the pinned pair to the device arrays ``outputs``, which start at row and
        entry ``first``, after ``after`` (an event of the caller's stream, or None), on the
        copy stream; nothing once ``stop`` is set. Returns the copy's event (also the pair's
        ``copied``)."""
        (o0, o1), (e0, e1) = offsets, entries
        indptr_out, cols_out = outputs
        with self.device:
            if stop is not None and stop.is_set():  # the caller has ended: nothing more
                return None
            self._stage(pinned, offsets, entries)
            if after is not None:
                self.copy_stream.wait_event(after)
            ptr_h, idx_h = pinned["pinned"]
            if o1 > o0:
                indptr_out[o0 - first[0]:o1 - first[0]].set(ptr_h[:o1 - o0],
                                                            stream=self.copy_stream)
            if e1 > e0:
                cols_out[e0 - first[1]:e1 - first[1]].set(idx_h[:e1 - e0],
                                                          stream=self.copy_stream)
            pinned["copied"] = self.copy_stream.record()
            return pinned["copied"]

    def stream_into(self, row_begin: int, row_end: int, indptr_out, cols_out, max_entries: int):
        """Rows ``[row_begin, row_end)`` copied into device arrays that keep them, their
        chunks (at most ``max_entries`` entries each, views of those arrays) yielded as
        they arrive.

        ``indptr_out`` (int64) receives the rows' ``row_end - row_begin + 1`` offsets as
        stored, ``cols_out`` (the ids' dtype) their entries from ``indptr[row_begin]`` on;
        both allocated on the caller's current stream. The filler thread copies pieces of
        at most ``piece_entries`` entries and ``piece_rows`` rows (empty ones too: their
        offsets) through two pinned buffers and on to their place, the offsets with the
        entries (CuPy's own copy of pageable memory ran at 7.6 GB/s: 70 ms for R-MAT 26's
        537 MB of offsets, two H100s, 2026-11-28); each offset is written once, so no copy
        touches what a chunk already handed out reads. No piece goes where the caller's work
        is, so the filler runs ahead of the caller: only a pinned buffer waits, for its last
        copy out. The caller's stream waits for the piece a chunk ends in before the chunk
        is yielded; the outputs are whole on it once the generator ends. However it ends,
        pieces not yet begun copy nothing, and the caller's stream waits for every copy
        queued into the outputs (:meth:`_end_pieces`).
        """
        cp = cupy()
        row_begin, row_end = int(row_begin), int(row_end)
        first = (row_begin, int(self.indptr[row_begin]))
        compute = cp.cuda.get_current_stream()
        pieces = chunk_bounds(self.indptr, row_begin, row_end, self.piece_entries,
                              self.piece_rows, keep_empty=True)
        if not pieces:  # no rows: their one offset
            indptr_out[:1].fill(first[1])
            return
        self._open()
        buffers = self._piece_buffers()
        stop, filled = threading.Event(), []
        try:
            # The outputs may be memory the pool took back from work still queued on the
            # caller's stream: the first copy waits for that work (the copy stream keeps
            # order). A piece's offsets start past the last one's (a cut row's later pieces
            # have none): offsets [row_begin, row_end] in all.
            after, start = compute.record(), row_begin
            for k, (r0, r1, e0, e1) in enumerate(pieces):
                filled.append(self._filler.submit(
                    self._fill_piece, buffers[k % len(buffers)], (start, max(start, r1 + 1)),
                    (e0, e1), (indptr_out, cols_out), first, after, stop))
                after, start = None, max(start, r1 + 1)
            arrived, k = 0, 0  # pieces [0, arrived) are on the caller's stream
            for r0, r1, e0, e1 in chunk_bounds(self.indptr, row_begin, row_end, max_entries):
                while pieces[k][1] < r1 or pieces[k][3] < e1:  # the piece the chunk ends in
                    k += 1
                if arrived <= k:
                    arrived = self._arrive(filled, arrived, k + 1, compute)
                yield Chunk(r0, r1, e0, e1, indptr_out[r0 - first[0]:r1 - first[0] + 1],
                            cols_out[e0 - first[1]:e1 - first[1]])
            self._arrive(filled, arrived, len(pieces), compute)  # trailing empty rows too
        finally:
            self._end_pieces(filled, stop, compute)

    @staticmethod
    def _arrive(filled, begin: int, end: int, compute) -> int:
        """The caller's stream waits for pieces ``[begin, end)`` (the last one's event: the
        copy stream keeps order); raises what the filler raised. Returns ``end``."""
        events = [filled[k].result() for k in range(begin, end)]
        if events:
            compute.wait_event(events[-1])
        return end

    def _end_pieces(self, filled, stop: threading.Event, compute) -> None:
        """The end of a :meth:`stream_into`, however it came (the last chunk, a caller that
        stopped early, a failed piece, Ctrl-C): no piece begins to copy any more, those
        running finish, and the caller's stream waits for every copy queued into its arrays,
        whose memory its pool may hand on once the caller lets them go. Interrupted while
        waiting for a running piece, it drains the filler and the copy stream first."""
        stop.set()
        for f in reversed(filled):
            f.cancel()
        try:
            for f in filled:
                if not f.cancelled():
                    f.exception()
        except BaseException:
            self._filler.shutdown(wait=True)
            self._filler = None
            self.copy_stream.synchronize()
            raise
        finally:
            compute.wait_event(self.copy_stream.record())

    def to_device(self, row_begin: int = 0, row_end: int | None = None, *, each=None):
        """Rows ``[row_begin, row_end)`` (default all) copied to the device
        (:meth:`stream_into`): ``(indptr, indices)``, the rows' offsets as stored and their
        entries. ``each(chunk)`` is called on every chunk (``stage_entries`` entries at
        most) as it arrives: a pass that rides on the copy."""
        cp = cupy()
        row_end = self.n_vertices if row_end is None else int(row_end)
        e0, e1 = int(self.indptr[row_begin]), int(self.indptr[row_end])
        indptr = cp.empty(row_end - row_begin + 1, dtype=cp.int64)
        cols = cp.empty(e1 - e0, dtype=self.indices.dtype)
        for chunk in self.stream_into(row_begin, row_end, indptr, cols,
                                      self.stage_entries if each is not None else e1 - e0):
            if each is not None:
                each(chunk)
        return indptr, cols

    def chunks(self, row_begin: int, row_end: int, max_entries: int):
        """The chunks of rows ``[row_begin, row_end)``, at most ``max_entries`` entries each.

        The filler thread fills one slot while the caller works on the chunk in the
        other: a slot is handed back (and its next chunk's filling started) once the
        caller has queued its work on the chunk and asked for the next one.
        """
        bounds = chunk_bounds(self.indptr, row_begin, row_end,
                              min(int(max_entries), self.stage_entries), self.stage_rows)
        if not bounds:
            return
        bounds = iter(bounds)
        self._open()
        slots = self._stage_slots()
        compute = cupy().cuda.get_current_stream()
        pending = collections.deque()

        def fill_next(slot) -> None:
            bound = next(bounds, None)
            if bound is not None:
                pending.append((slot, bound, self._filler.submit(self._fill, slot, bound)))

        for slot in slots:
            fill_next(slot)
        try:
            while pending:
                slot, (r0, r1, e0, e1), filled = pending.popleft()
                filled.result()  # raises what the filler raised
                compute.wait_event(slot["copied"])
                ptr_d, idx_d = slot["device"]
                yield Chunk(r0, r1, e0, e1, ptr_d[:r1 - r0 + 1], idx_d[:e1 - e0])
                slot["released"] = compute.record()
                fill_next(slot)
        finally:
            for _slot, _bound, filled in pending:  # the caller stopped early: let them end
                filled.exception()


def cached_rows(indptr: np.ndarray, index_bytes: int, cache_bytes: int) -> int:
    """The most leading rows of a host CSR whose offsets and ids fit ``cache_bytes`` on the
    device (:class:`CachedHostCSR`).

    >>> cached_rows(np.array([0, 2, 2, 9, 10]), 4, 40)
    2
    """
    def held(rows: int) -> int:  # grows with the rows
        return 8 * (rows + 1) + index_bytes * int(indptr[rows])

    return max(0, bisect.bisect_right(range(int(indptr.shape[0])), cache_bytes, key=held) - 1)


class CachedHostCSR:
    """A :class:`HostCSR` whose rows ``[0, cache_rows)`` stay on the device after the first
    pass that reads them all from row 0: that pass streams them into the cache
    (:meth:`HostCSR.stream_into`) and reads the rest as any pass does; later passes read
    those rows from device memory (:class:`DeviceRows` views) and stream only the rest. The
    cache is kept once that pass has asked for the chunk after the cached rows' last one (or
    ended); a pass that stops before keeps nothing. :meth:`close` lets the copy and the
    buffers go."""

    def __init__(self, host: HostCSR, cache_rows: int):
        self.host, self.cache_rows = host, int(cache_rows)
        self.indptr, self.indices = host.indptr, host.indices
        self._cache = None

    @property
    def n_vertices(self) -> int:
        return self.host.n_vertices

    @property
    def bytes_copied(self) -> int:
        return self.host.bytes_copied

    def chunks(self, row_begin: int, row_end: int, max_entries: int):
        cut = self.cache_rows
        if self._cache is None and row_begin == 0 and row_end >= cut > 0:
            cp = cupy()
            indptr = cp.empty(cut + 1, dtype=cp.int64)
            cols = cp.empty(int(self.indptr[cut]), dtype=self.indices.dtype)
            yield from self.host.stream_into(0, cut, indptr, cols, max_entries)
            self._cache = DeviceRows(0, indptr, cols, 0)
            if row_end > cut:
                yield from self.host.chunks(cut, row_end, max_entries)
            return
        if self._cache is None:
            yield from self.host.chunks(row_begin, row_end, max_entries)
            return
        yield from self._cache.chunks(row_begin, min(row_end, cut), max_entries)
        if row_end > cut:
            yield from self.host.chunks(max(row_begin, cut), row_end, max_entries)

    def uncached(self) -> HostCSR:
        """The host reader alone, the device copy let go."""
        self._cache = None
        return self.host

    def close(self) -> None:
        self._cache = None
        self.host.close()


def _cupyx():
    import cupyx  # CuPy's companion package: imported with it, on first use

    return cupyx


#: Host CSRs whose entries take at least this many bytes go to the device through
#: :meth:`HostCSR.to_device`'s pinned buffers (one buffer's worth: below it, pinning them
#: costs more than CuPy's pageable copy loses).
STAGED_COPY_MIN_BYTES = 64 << 20


def stage_csr_to_device(indptr, indices):
    """``(indptr, indices)`` of a host CSR copied to the current device through pinned
    buffers (:meth:`HostCSR.to_device`), or None (CuPy's own copy then) when the
    entries take under :data:`STAGED_COPY_MIN_BYTES`: ``CSRGraph.to_device``'s twin.

    R-MAT 26's 4.7 GB took 1.0-1.3 s as a fresh process's first copy against CuPy's
    2.5-3.6 s, and 0.26-0.28 s against 0.47-0.48 s the next time (one H100, device run
    49, 2026-11-26, through the streamed passes' buffers of then).
    """
    if array_namespace(indices) is not np or indices.nbytes < STAGED_COPY_MIN_BYTES:
        return None
    reader = HostCSR(np.ascontiguousarray(indptr, dtype=np.int64), np.ascontiguousarray(indices))
    try:
        return reader.to_device()
    finally:
        reader.close()
