"""Canonicalise an edge list too large to build in one piece, in bounded memory.

The result is exactly :meth:`tricount.CSRGraph.from_edges`'s graph, array for
array: every undirected edge once, ``lo < hi``, ids compacted to ``0 .. n-1``
in increasing original order, the strictly upper-triangular CSR of rows in
order, and the same ``self_loops_dropped`` and ``duplicates_dropped`` (a line
repeating a directed line already seen is a duplicate; the reverse of an edge is
not; see :mod:`tricount.prep.canonical`). The input is a *source* of
``(src, dst)`` chunks read twice (:class:`ArrayChunks` slices arrays without
copying them; a generator of chunks, such as
:func:`tricount.generate.rmat.rmat_chunks`, is run twice); the output is the
host CSR, or rows streamed into a *sink* (``tricount.io.write_native_edges``
streams them into a ``.tcsr``).

The scheme, one pass to learn the ids, one to bucket the lines, one sweep per
bucket:

1. **survey** (pass 1): per chunk, count self-loops, mark the ids that occur
   (a byte map over ``0 .. max id`` while ids are dense; the sorted distinct ids
   when they are sparse), and count the non-loop lines in a histogram of their
   smaller end, ``lo >> shift`` (:data:`HIST_BINS` bins, coarsened as larger ids
   appear). The marks give the compact ids; the histogram gives *buckets*,
   contiguous ranges of ``lo`` holding about as many lines as one sort may take
   (:attr:`BuildPlan.bucket_keys`), and each bucket's exact line count;
2. **bucket** (pass 2): per chunk, pack every non-loop line into a 64-bit key
   ``((lo << s | hi) << 1) | reversed`` (ids as they are while dense, compact
   when sparse: either way the order of compact ids) and append it to its
   bucket's region: one array in host memory, or a temporary file when the host
   cannot hold them (R-MAT 28's 4.3 G keys are 34 GB);
3. **sort** (the sweep): per bucket, sort its keys (on the GPU when there is one,
   CuPy's radix sort; else NumPy's sort, buckets on every core), keep each
   distinct pair once, rename its ends to compact ids and write the row entries
   back in place (4 or 8 bytes over the key's 8). Distinct keys are the distinct
   directed lines, so ``duplicates_dropped`` is the non-loop lines less their sum;
4. **emit**: rows come out in bucket order, which is row order: the CSR is the
   buckets' entries end to end (packed in place in host memory), or a stream of
   them into the sink after the row offsets, the sizes known before the first
   entry is written.

A bucket larger than one sort's room (a hub with more lines than the room, or
sparse ids piled into one histogram bin) is split further by key ranges, down
to single pairs if it must be, so memory stays bounded whatever the input.

Peak memory, host: the keys (8 bytes a non-loop line, or none when spilled),
plus the ids' tables (1 byte per id below the largest while marking, 4 per id
for the compact map when ids have gaps, 8 per vertex for the vertex ids, the
row degrees and, for a ``.tcsr``, the column degrees), plus one chunk.
The arrays given are never copied whole.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from tricount.errors import (BackendUnavailableError, InvalidArgumentError, InvalidEdgesError,
                             TricountError, UnsupportedGraphError, check_choice, check_count)
from tricount.prep.accel import lookup
from tricount.prep.canonical import (DENSE_ID_FACTOR, MAX_INT64, check_vertex_count,
                                     validate_edge_arrays)
from tricount.prep.xp import array_namespace, bits_for, index_dtype, to_host

__all__ = ["BuildPlan", "BoundedBuild", "ArrayChunks", "build_bounded", "in_memory_bytes",
           "needs_bounded_build", "available_memory"]

#: Lines per chunk read from arrays: 2^22 lines are 32 MB of keys, a few ms of work.
DEFAULT_CHUNK_EDGES = 1 << 22
#: Bins of the survey's histogram of smaller ends (per thread: 512 KB of int64).
HIST_BINS = 1 << 16
#: Ids are marked in a byte map while the largest is below this many per input line
#: (as canonical.DENSE_ID_FACTOR, with both ends per line) or below DENSE_MIN_IDS.
DENSE_IDS_PER_LINE = 8
DENSE_MIN_IDS = 1 << 26
#: Byte maps and rank tables past 2^31 ids would cost more than the sorted distinct ids.
DENSE_MAX_IDS = 1 << 31
#: Share of the available host memory the build plans to use.
HOST_SHARE = 0.7
#: Share of the device's free memory one bucket's sort plans to use.
DEVICE_SHARE = 0.8
#: Device bytes per key while a bucket is sorted and decoded on the GPU: the key,
#: the sort's double buffer, the pair flags and positions, the decoded and renamed
#: ends (gpu/prepare/outofcore.py), rounded up.
GPU_BYTES_PER_KEY = 40
#: A CPU bucket of at least this many keys (smaller ones cost more in overhead than
#: they gain in balance), at most 1/BUCKETS_PER_THREAD of a thread's share.
MIN_BUCKET_KEYS = 1 << 20
BUCKETS_PER_THREAD = 4
#: Host bytes per input line of the one-piece build beyond the input itself:
#: measured 51.3 B/line with tracemalloc on R-MAT 16 and 18 (2026-11-26),
#: rounded up; plus the byte map and compact map per id.
IN_MEMORY_BYTES_PER_LINE = 56
IN_MEMORY_BYTES_PER_ID = 9
#: The fused GPU build's device bytes per line beyond the input (keys, the sort's
#: double buffer, flags, positions, decoded ends; gpu/prepare/fused.py), rounded up.
FUSED_BYTES_PER_LINE = 40


def available_memory() -> int | None:
    """Bytes of host memory available to a new allocation (Linux MemAvailable), or None."""
    try:
        with open("/proc/meminfo", "rb") as f:
            for line in f:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def _gib(n: float) -> str:
    """Bytes in the unit that reads best (GiB, MiB or KiB)."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20)):
        if n >= size:
            return f"{n / size:.2f} {unit}"
    return f"{n / 2**10:.1f} KiB"


# -- what to build from ---------------------------------------------------------------------------

@dataclass(frozen=True)
class BuildPlan:
    """The bounded build's knobs (private: tests force tiny chunks and buckets).

    ``chunk_edges``: lines per chunk sliced from arrays. ``bucket_keys``: at most
    this many keys per sort (None: from the memory of the host and the device).
    ``host_bytes``: host memory the build may hold (None: a share of what is
    available); keys beyond it go to a temporary file in ``spill_dir`` (None: the
    system's temporary folder), or always (``spill=True``) or never
    (``spill=False``). ``device``: sort on ``"gpu"``, ``"cpu"``, or ``"auto"`` (the
    GPU when CuPy and a device are usable). ``buckets``: at least this many buckets.
    """

    chunk_edges: int = DEFAULT_CHUNK_EDGES
    bucket_keys: int | None = None
    host_bytes: int | None = None
    spill_dir: str | None = None
    spill: bool | None = None
    device: str = "auto"
    buckets: int | None = None

    def __post_init__(self):
        check_count(self.chunk_edges, "chunk_edges", minimum=1)
        if self.bucket_keys is not None:
            check_count(self.bucket_keys, "bucket_keys", minimum=2)
        if self.host_bytes is not None:
            check_count(self.host_bytes, "host_bytes", minimum=0)
        if self.buckets is not None:
            check_count(self.buckets, "buckets", minimum=1)
        check_choice(self.device, "device", ("auto", "cpu", "gpu"))


class ArrayChunks:
    """``(src, dst)`` arrays (NumPy or CuPy) read as slices of ``chunk_edges`` lines.

    The slices are views: an array too large to copy is never copied whole. Each
    pass over the object reads it again.
    """

    def __init__(self, src, dst, chunk_edges: int = DEFAULT_CHUNK_EDGES):
        if array_namespace(src, dst) is np:
            src, dst = np.asarray(src), np.asarray(dst)
        if src.ndim != 1 or dst.ndim != 1:
            raise InvalidEdgesError(
                f"edge arrays must be one-dimensional, got shapes {src.shape} and {dst.shape}")
        if src.shape[0] != dst.shape[0]:
            raise InvalidEdgesError(
                f"src and dst must have the same length, got {src.shape[0]} and {dst.shape[0]}")
        self.src, self.dst = src, dst
        self.chunk_edges = check_count(chunk_edges, "chunk_edges", minimum=1)
        self.n_lines = int(src.shape[0])

    def __iter__(self):
        for a in range(0, self.n_lines, self.chunk_edges):
            yield self.src[a: a + self.chunk_edges], self.dst[a: a + self.chunk_edges]


class _Calls:
    """A callable returning a fresh iterator of chunks, called once per pass."""

    def __init__(self, make):
        self._make = make

    def __iter__(self):
        return iter(self._make())


class _Replay:
    """A one-pass iterator of chunks, kept (copied) on its first pass for the second."""

    def __init__(self, iterator, budget: int):
        self._first, self._kept, self._budget = iterator, [], budget

    def __iter__(self):
        if self._first is None:
            yield from self._kept
            return
        held = 0
        for s, d in self._first:
            xp = array_namespace(s, d)
            s, d = xp.array(s), xp.array(d)
            held += s.nbytes + d.nbytes
            if held > self._budget:
                raise TricountError(
                    f"a one-pass iterator of edge chunks is read twice by the bounded build, "
                    f"and its chunks passed the {_gib(self._budget)} it may keep; pass an "
                    "object that can be iterated twice (a list, ArrayChunks, a generator's "
                    "chunk source)")
            self._kept.append((s, d))
            yield s, d
        self._first = None


def _two_pass(source, budget: int):
    """``source`` as something iterated twice."""
    if callable(source) and not hasattr(source, "__iter__"):
        return _Calls(source)
    if iter(source) is source:  # a generator or another one-pass iterator
        return _Replay(source, budget)
    return source


# -- estimates and routing ----------------------------------------------------------------------

def in_memory_bytes(n_lines: int, max_id: int, *, device: bool = False) -> int:
    """Bytes the one-piece build of ``n_lines`` lines needs beyond its input: host
    memory (:func:`tricount.prep.canonical.canonical_edges`), or device memory for
    the fused GPU build. Ids cost memory only while dense enough to be marked in a
    byte map (below ``DENSE_ID_FACTOR`` per endpoint); sparser ones are sorted."""
    dense = max_id < DENSE_ID_FACTOR * 2 * n_lines + 1024
    if device:
        return FUSED_BYTES_PER_LINE * n_lines + (5 * (max_id + 1) if dense else 0)
    return IN_MEMORY_BYTES_PER_LINE * n_lines + (
        IN_MEMORY_BYTES_PER_ID * (max_id + 1) if dense else 0)


def needs_bounded_build(src, dst, *, max_memory: int | None = None) -> str | None:
    """Why the edge arrays must take the bounded build, or None when one piece fits.

    NumPy arrays are weighed against the host memory available, CuPy arrays against
    the device's free memory; ``max_memory`` (bytes) caps either. Cheap: the
    largest id is read only when the lines alone could not fit.
    """
    xp = array_namespace(src, dst)
    shape = getattr(src, "shape", None)
    if shape is None or len(shape) != 1 or getattr(dst, "shape", None) != shape:
        return None  # sequences, or bad shapes that validation refuses
    m = int(shape[0])
    on_device = xp is not np
    if on_device:
        free_bytes = lookup(xp, "free_bytes")
        room = free_bytes() if free_bytes is not None else None
    else:
        room = available_memory()
    if room is not None:
        room = int((DEVICE_SHARE if on_device else 1.0) * room)
    if max_memory is not None:
        room = max_memory if room is None else min(room, max_memory)
    if room is None or m == 0 or getattr(src.dtype, "kind", "O") not in "iu" \
            or src.dtype != dst.dtype:
        return None  # validation converts (and refuses) other types: the one-piece path
    # Validation widens narrower ids to int64: 16 more bytes a line.
    widened = 0 if src.dtype.itemsize == 8 or on_device else 16 * m
    densest = DENSE_ID_FACTOR * 2 * m + 1023  # the most a byte map can cost
    if in_memory_bytes(m, densest, device=on_device) + widened <= room:
        return None
    need = in_memory_bytes(m, 0, device=on_device) + widened
    if need <= room:  # the lines fit: do the ids? (one read of the arrays)
        top = int(max(int(src.max()), int(dst.max())))
        need = in_memory_bytes(m, top, device=on_device) + widened
        if need <= room:
            return None
    where = "GPU" if on_device else "host"
    return (f"building {m:,} edge lines in one piece needs about {_gib(need)} of {where} "
            f"memory beyond the input, more than the {_gib(room)} {where} memory "
            + ("allowed (max_memory)" if max_memory is not None and room == max_memory
               else "available"))


# -- the result ------------------------------------------------------------------------------

@dataclass(frozen=True)
class BoundedBuild:
    """What :func:`build_bounded` returns: the arguments of
    :meth:`tricount.CSRGraph.from_upper_csr` (host arrays; None when the rows went to a
    sink), the largest degree (computed when a sink asks), and ``note``: how the
    graph was built (buckets, device, spilled bytes, seconds per phase)."""

    indptr: np.ndarray | None
    indices: np.ndarray | None
    n_vertices: int
    n_edges: int
    vertex_ids: np.ndarray | None
    self_loops_dropped: int
    duplicates_dropped: int
    max_degree: int | None = None
    note: dict = field(default_factory=dict)


# -- pass 1: the survey ----------------------------------------------------------------------

def _kernels():
    from tricount.prep import _outofcore_kernels  # Numba: loaded when a bounded build runs

    return _outofcore_kernels


def _threads() -> int:
    import numba

    return numba.get_num_threads()


#: A loop over fewer items than this runs on the calling thread: waking the pool costs
#: milliseconds on a busy machine (as partition.ranked.SERIAL_BELOW), a small loop microseconds.
SERIAL_BELOW = 1 << 16


@contextlib.contextmanager
def _parallel(size: int):
    """Hold the process's one parallel region around a Numba loop over ``size`` items,
    run on this thread alone when it is small."""
    import numba

    from tricount._threads import parallel_region

    with parallel_region():
        threads = numba.get_num_threads()
        if size < SERIAL_BELOW:
            numba.set_num_threads(1)  # this thread's setting only
        try:
            yield
        finally:
            numba.set_num_threads(threads)


def _as_u64(a, xp):
    """A validated id array (int64 or uint64) as uint64, without a copy."""
    return a.view(xp.uint64) if a.dtype == xp.int64 else a


class _Survey:
    """Pass 1's tables for chunks of one namespace (host: per-thread histograms; device:
    one), and what they say at the end: the vertices, the compact map, the histogram."""

    def __init__(self, xp, rows, n_vertices, hints):
        self.xp, self.fixed = xp, n_vertices
        self.hist = xp.zeros((rows, HIST_BINS), dtype=xp.int64)
        self.shift = 0
        self.dense = n_vertices is None
        self.present = xp.zeros(0, dtype=xp.uint8)
        self.pieces, self.merged = [], 0
        self.max_id, self.loops, self.lines = -1, 0, 0
        self.hint_lines, self.hint_max = hints

    def _dense_limit(self, lines: int) -> int:
        lines = max(lines, self.hint_lines or 0)
        return min(DENSE_MAX_IDS, max(DENSE_MIN_IDS, DENSE_IDS_PER_LINE * lines))

    def add(self, s, d, top: int, count) -> None:
        """Survey one chunk (uint64 ids, at least one line, largest ``top``) with
        ``count(s, d, present, hist, shift, mark) -> loops``."""
        xp = self.xp
        if self.fixed is not None and top >= self.fixed:
            raise InvalidEdgesError(
                f"edge endpoint {top} is out of range for a graph of {self.fixed} vertices")
        while (top >> self.shift) >= HIST_BINS:  # coarsen: pairs of bins merge, exactly
            self.hist = self.hist[:, 0::2] + self.hist[:, 1::2]
            self.hist = xp.concatenate([self.hist, xp.zeros_like(self.hist)], axis=1)
            self.shift += 1
        m = int(s.shape[0])
        if self.dense and top >= self._dense_limit(self.lines + m):
            self.pieces, self.merged = [xp.flatnonzero(self.present).astype(xp.uint64)], 0
            self.present, self.dense = xp.zeros(0, dtype=xp.uint8), False
        if self.dense and top >= self.present.shape[0]:
            size = max(top + 1, min(2 * self.present.shape[0], self._dense_limit(0)))
            if self.hint_max is not None and self.hint_max >= top:
                size = max(size, self.hint_max + 1)
            grown = xp.zeros(size, dtype=xp.uint8)
            grown[: self.present.shape[0]] = self.present
            self.present = grown
        mark = self.dense and self.fixed is None
        marks = self.present if mark else xp.zeros(1, dtype=xp.uint8)
        self.loops += int(count(s, d, marks, self.hist, np.uint64(self.shift), mark))
        if not self.dense and self.fixed is None:  # sparse ids: keep the distinct ones
            self.pieces.append(xp.unique(xp.concatenate([s, d])))
            if sum(int(p.shape[0]) for p in self.pieces) > 2 * self.merged + (1 << 20):
                self.pieces = [xp.unique(xp.concatenate(self.pieces))]
                self.merged = int(self.pieces[0].shape[0])
        self.max_id = max(self.max_id, top)
        self.lines += m

    def finish(self):
        """``(vertex_ids, rank, search)`` in this namespace, and the histogram on the host.

        ``rank`` maps table ids (the ids while dense) to compact ids, or is None;
        ``search`` says that pass 2 turns ids into table ids by their positions
        among the sorted distinct ids (sparse ids), else they are table ids.
        """
        xp = self.xp
        hist = to_host(self.hist.sum(axis=0))
        if self.fixed is not None:
            return xp.arange(self.fixed, dtype=xp.int64), None, False, hist
        if self.dense:
            present = self.present[: self.max_id + 1]
            vertex_ids = xp.flatnonzero(present).astype(xp.int64)
            rank = None
            if vertex_ids.shape[0] < present.shape[0]:  # gaps: table ids -> compact ids
                wide = present.shape[0] >= 2**31
                rank = xp.cumsum(present, dtype=xp.int64 if wide else xp.int32) - 1
            self.present = None
            return vertex_ids, rank, False, hist
        ids = xp.unique(xp.concatenate(self.pieces)) if self.pieces else xp.zeros(0, xp.uint64)
        self.pieces = []
        if self.max_id <= MAX_INT64:
            ids = ids.astype(xp.int64)
        return ids, None, True, hist


# -- keys and buckets -----------------------------------------------------------------------

@dataclass(frozen=True)
class _Packing:
    """How a key packs two table ids: by ``shift`` bits (``shift`` > 0) or by ``base``."""

    shift: int
    base: int

    @classmethod
    def for_table(cls, table: int) -> "_Packing":
        bits = bits_for(max(0, table - 1))
        if 2 * bits + 1 <= 64:
            return cls(bits, 1 << bits)
        return cls(0, table)  # table <= MAX_VERTICES: (table * table) << 1 < 2**64

    def row_key(self, row: int) -> int:
        """The least key of table row ``row``."""
        return (row << self.shift if self.shift else row * self.base) << 1


def _plan_buckets(hist, target: int, min_buckets: int, limit_bin: int):
    """Buckets of whole histogram bins, none starting at or past ``limit_bin``:
    ``(first bin of each, its count)``, each count at most ``target`` (lowered to give
    ``min_buckets``) unless one bin holds more; that bin is then a bucket of its own."""
    hist = np.ascontiguousarray(hist, dtype=np.int64)
    total = int(hist.sum())
    if min_buckets > 1:
        target = min(target, max(1, -(-total // min_buckets)))
    return _kernels().plan_cuts(hist, int(target), int(limit_bin))


def _distinct(keys):
    """The distinct keys of ``keys`` (sorted, a copy)."""
    keys = np.sort(keys)
    return keys[: _kernels().unique_sorted(keys)]


@contextlib.contextmanager
def _spilling(folder):
    """Errors of the temporary file of keys as a :class:`TricountError` naming its folder."""
    try:
        yield
    except OSError as exc:
        raise TricountError(
            f"the bounded build could not use its temporary file of edge keys in {folder} "
            f"({exc.strerror or exc}); free space there or pass BuildPlan(spill_dir=...) on "
            "a larger disk") from None


def _pwrite(fd, buffer, offset: int) -> None:
    view = memoryview(buffer).cast("B")
    while len(view):
        done = os.pwrite(fd, view, offset)
        view, offset = view[done:], offset + done


def _pread(fd, buffer, offset: int) -> None:
    view = memoryview(buffer).cast("B")
    while len(view):
        done = os.preadv(fd, [view], offset)
        if done <= 0:
            raise TricountError("a temporary file of edge keys ended early (was it removed?)")
        view, offset = view[done:], offset + done


class _KeyStore:
    """The buckets' keys: regions of one array in host memory, or of a temporary file.

    Region ``b`` starts at ``start[b]`` keys and holds ``fill[b]`` of at most
    ``count[b]``; after its sweep it holds the bucket's row entries in its first
    bytes. The file is unnamed (``O_TMPFILE`` where the system has it) and is gone
    when closed, whatever ends the process.
    """

    def __init__(self, counts, spill_dir=None):
        self.count = np.asarray(counts, dtype=np.int64)
        self.start = np.zeros(self.count.shape[0] + 1, dtype=np.int64)
        np.cumsum(self.count, out=self.start[1:])
        self.fill = np.zeros(self.count.shape[0], dtype=np.int64)
        self.file = None
        self.keys = None
        self.folder = spill_dir
        if spill_dir is None:
            self.keys = np.empty(int(self.start[-1]), dtype=np.uint64)
        else:
            with _spilling(spill_dir):
                self.file = tempfile.TemporaryFile(dir=spill_dir, prefix=".tricount-keys-")

    @property
    def spilled_bytes(self) -> int:
        return 0 if self.file is None else 8 * int(self.start[-1])

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None
        self.keys = None

    def scatter(self, keys, locate, counts=None) -> None:
        """Append a host chunk's keys (loops as DROP) to their buckets, found by
        ``locate`` (``(bounds, bin_bucket, bin_shift)``, see the kernels); ``counts`` per
        thread and bucket, when the caller has them, else counted here."""
        K = _kernels()
        if counts is None:
            counts = np.zeros((_threads(), self.count.shape[0]), dtype=np.int64)
            with _parallel(keys.shape[0]):
                K.route_buckets(keys, *locate, counts, keys, False)
        per = counts.sum(axis=0)
        cursors = np.cumsum(counts, axis=0) - counts  # lines of earlier threads first
        if self.file is None:
            cursors += self.start[:-1] + self.fill
            out = self.keys
        else:
            stage_start = np.cumsum(per) - per
            cursors += stage_start
            out = np.empty(int(per.sum()), dtype=np.uint64)
        with _parallel(keys.shape[0]):
            K.route_buckets(keys, *locate, cursors, out, True)
        if self.file is not None:
            for b in np.flatnonzero(per):
                a = int(stage_start[b])
                with _spilling(self.folder):
                    _pwrite(self.file.fileno(), out[a: a + int(per[b])],
                            8 * int(self.start[b] + self.fill[b]))
        self.fill += per

    def writable(self, b: int, k: int):
        """A host array to put ``k`` more keys of bucket ``b`` in (then :meth:`commit`)."""
        if self.file is None:
            a = int(self.start[b] + self.fill[b])
            return self.keys[a: a + k]
        return np.empty(k, dtype=np.uint64)

    def commit(self, b: int, written) -> None:
        if self.file is not None:
            with _spilling(self.folder):
                _pwrite(self.file.fileno(), written, 8 * int(self.start[b] + self.fill[b]))
        self.fill[b] += written.shape[0]

    def load(self, b: int, a: int = 0, k: int | None = None):
        """Keys ``a .. a+k`` of bucket ``b`` (all of them by default): a view or a copy."""
        k = int(self.fill[b]) - a if k is None else k
        at = int(self.start[b]) + a
        if self.file is None:
            return self.keys[at: at + k]
        out = np.empty(k, dtype=np.uint64)
        with _spilling(self.folder):
            _pread(self.file.fileno(), out, 8 * at)
        return out

    def pieces(self, b: int, room: int):
        """Bucket ``b``'s keys in copies of at most ``room`` keys."""
        fill = int(self.fill[b])
        for a in range(0, fill, room):
            piece = self.load(b, a, min(room, fill - a))
            yield piece if self.file is not None else piece.copy()

    def keep(self, b: int, entries, at: int = 0) -> None:
        """Store row entries of bucket ``b`` from entry ``at`` of its region (the memory
        store's sweep writes them in place)."""
        if self.file is not None:
            with _spilling(self.folder):
                _pwrite(self.file.fileno(), entries,
                        8 * int(self.start[b]) + at * entries.itemsize)

    def entries(self, b: int, k: int, idx):
        """The ``k`` row entries bucket ``b`` kept (type ``idx``)."""
        if self.file is None:
            a = int(self.start[b])
            return self.keys[a: a + int(self.count[b])].view(idx)[:k]
        out = np.empty(k, dtype=idx)
        with _spilling(self.folder):
            _pread(self.file.fileno(), out, 8 * int(self.start[b]))
        return out


# -- the build ------------------------------------------------------------------------------

class _Build:
    """One bounded build: the passes of the module doc, in order."""

    def __init__(self, source, n_vertices, plan, sink, progress):
        self.plan = plan
        self.sink = sink
        self.progress = progress or (lambda phase, done, total: None)
        self.seconds = {}
        self.host_room = plan.host_bytes
        if self.host_room is None:
            avail = available_memory()
            self.host_room = int(HOST_SHARE * avail) if avail is not None else 1 << 62
        self.source = _two_pass(source, self.host_room)
        self.n_vertices = n_vertices
        self.device = _device_twin(plan.device)
        self.on_device = False
        self.hints = (getattr(self.source, "n_lines", None), getattr(self.source, "max_id", None))

    # -- chunks ------------------------------------------------------------------------------

    def _chunks(self):
        """Validated chunks as uint64 ids, with their largest id; on the device when the
        source is CuPy and the twin runs, else on the host."""
        for s, d in self.source:
            xp = array_namespace(s, d)
            if xp is not np and self.device is None:
                s, d, xp = to_host(s), to_host(d), np
            s, d = validate_edge_arrays(s, d)
            if s.shape[0] == 0:
                continue
            if xp is np:
                s, d = np.ascontiguousarray(s), np.ascontiguousarray(d)
                s, d = _as_u64(s, np), _as_u64(d, np)
                with _parallel(s.shape[0]):
                    top = int(_kernels().chunk_max(s, d, _threads()))
            else:
                s, d = _as_u64(s, xp), _as_u64(d, xp)
                top = int(xp.maximum(s.max(), d.max()))
            yield xp, s, d, top

    def _device_guard(self, what: str):
        """Device memory running out in the block as an error naming ``what`` (the
        generator's chunks included), when a GPU takes part."""
        if self.device is None:
            return contextlib.nullcontext()
        return self.device.guard(what)

    def survey(self):
        with self._device_guard("reading the edge chunks (pass 1 of the bounded build)"):
            self._survey()

    def _survey(self):
        t0 = time.perf_counter()
        surveys = {}
        for xp, s, d, top in self._chunks():
            survey = surveys.get(xp.__name__)
            if survey is None:
                rows = _threads() if xp is np else 1
                survey = surveys[xp.__name__] = _Survey(xp, rows, self.n_vertices, self.hints)
            if xp is np:
                def count(s, d, present, hist, shift, mark):
                    with _parallel(s.shape[0]):
                        return _kernels().survey(s, d, present, hist, shift, mark)
            else:
                count = self.device.survey
            survey.add(s, d, top, count)
            self.progress("survey", survey.lines, self.hints[0])
        if len(surveys) > 1:
            raise InvalidArgumentError("edge chunks must all be NumPy or all be CuPy arrays")
        survey = next(iter(surveys.values()), None)
        if survey is None:
            survey = _Survey(np, 1, self.n_vertices, self.hints)
        self.on_device = survey.xp is not np
        ids, rank, search, hist = survey.finish()
        self.loops, self.lines, self.max_id = survey.loops, survey.lines, survey.max_id
        self.survey_shift = survey.shift
        self.vertex_ids = to_host(ids)
        self.n = int(self.vertex_ids.shape[0])
        check_vertex_count(self.n)
        self.rank_dev = rank if self.on_device else None
        self.rank = to_host(rank) if rank is not None else None
        self.ids_dev = ids if self.on_device and search else None
        self.search = search
        self.table = self.n if search or self.n_vertices is not None else self.max_id + 1
        self.packing = _Packing.for_table(self.table)
        self.hist = hist
        self.n_keys = int(hist.sum())  # the non-loop lines
        self.seconds["survey"] = time.perf_counter() - t0

    def sorted_ids(self):
        """The vertex ids as uint64 (a view): what pass 2 searches for sparse ids."""
        ids = self.vertex_ids
        return ids.view(np.uint64) if ids.dtype == np.int64 else ids

    # -- rooms ---------------------------------------------------------------------------

    def _fixed_host_bytes(self) -> int:
        n = self.n
        rank = 0 if self.rank is None else self.rank.nbytes
        columns = 8 * n if self._count_columns() else 0
        return rank + 8 * n + 8 * (n + 1) + columns

    def _count_columns(self) -> bool:
        return self.sink is not None and getattr(self.sink, "needs_max_degree", False)

    def plan_buckets(self):
        plan, K = self.plan, self.n_keys
        fixed = self._fixed_host_bytes()
        graph = 0 if self.sink else 4 * K  # the host CSR's entries, when not packed in place
        self.in_memory = fixed + 8 * K <= self.host_room if plan.spill is None else not plan.spill
        workers = max(1, _threads())
        if self.in_memory:  # every bucket sorts in place: no room to leave
            host_sort_room = load_room = K
        else:  # each worker loads one bucket at a time (8 bytes a key, twice for margin)
            spare = self.host_room - fixed - graph
            if spare <= 0 and plan.bucket_keys is None:
                raise TricountError(
                    f"the bounded build of {self.lines:,} edge lines ({self.n:,} vertices) "
                    f"needs {_gib(fixed + graph)} of host memory for its tables"
                    f"{'' if self.sink else ' and the graph'}, more than the "
                    f"{_gib(self.host_room)} allowed; write the graph to a .tcsr file "
                    "(tricount.io.write_native_edges) or use a machine with more memory")
            host_sort_room = max(2, spare // (16 * workers))
            load_room = max(2, spare // 16)  # the GPU's one bucket at a time, on the host
        room = host_sort_room
        if self.device is not None:
            reserved = (0 if self.rank is None else self.rank.nbytes) + 8 * self.n
            free = self.device.free_bytes()
            room = int(DEVICE_SHARE * free - reserved) // GPU_BYTES_PER_KEY
            if room < 1 << 16:
                raise UnsupportedGraphError(
                    f"sorting buckets on the GPU: {_gib(free)} free holds too few keys "
                    f"({max(room, 0)}); free device memory or pass device='cpu'")
            room = min(room, load_room)
        if plan.bucket_keys is not None:
            room = min(room, plan.bucket_keys)
        self.room = max(2, room)
        self.sort_room = max(2, min(host_sort_room, plan.bucket_keys or host_sort_room))
        target = self.room
        if self.device is None:  # CPU: enough buckets to keep every thread busy
            target = min(target, max(MIN_BUCKET_KEYS, K // (BUCKETS_PER_THREAD * workers)))
        shift = self.survey_shift
        first, counts = _plan_buckets(self.hist, target, plan.buckets or 1,
                                      -(-(self.max_id + 1) >> shift))
        cuts = first.astype(np.uint64) << np.uint64(shift)
        if self.search:  # cuts of original ids -> table (compact) rows
            table_cuts = np.searchsorted(self.sorted_ids(), cuts, side="left")
        else:
            table_cuts = cuts
        self.table_cuts = [int(c) for c in table_cuts]
        bounds = [self.packing.row_key(c) for c in self.table_cuts] + [int(_kernels().DROP)]
        self.bounds = np.array(bounds, dtype=np.uint64)
        # Buckets of whole bins of table ids: a key's bucket is its bin's (no search).
        whole_bins = not self.search and self.packing.shift > 0
        bin_bucket = (np.searchsorted(first, np.arange(HIST_BINS), side="right") - 1
                      ).astype(np.int32) if whole_bins else np.zeros(0, np.int32)
        self.locate = (self.bounds, bin_bucket, np.uint64(self.packing.shift + 1 + shift))
        spill = None if self.in_memory else (plan.spill_dir or tempfile.gettempdir())
        try:
            self.store = _KeyStore(counts, spill)
        except MemoryError:
            raise TricountError(
                f"holding {self.n_keys:,} edge keys ({_gib(8 * self.n_keys)}) in host memory "
                "failed; pass a smaller host_bytes so that they go to a temporary file, or "
                "free memory") from None

    # -- pass 2 --------------------------------------------------------------------------

    def bucket(self):
        with self._device_guard("reading the edge chunks (pass 2 of the bounded build)"):
            self._bucket()

    def _bucket(self):
        t0 = time.perf_counter()
        done = 0
        for xp, s, d, _ in self._chunks():
            if xp is np:
                self.bucket_host(s, d)
            else:
                self.device.bucket_chunk(s, d, self, self.store)
            done += int(s.shape[0])
            self.progress("bucket", done, self.lines)
        self.seconds["bucket"] = time.perf_counter() - t0

    def bucket_host(self, s, d) -> None:
        """Pass 2 on a host chunk (uint64 ids): pack its keys, append them to their buckets."""
        ids = self.sorted_ids() if self.search else np.zeros(1, np.uint64)
        keys = np.empty(s.shape[0], dtype=np.uint64)
        counts = np.zeros((_threads(), self.store.count.shape[0]), dtype=np.int64)
        with _parallel(s.shape[0]):
            _kernels().encode(s, d, self.search, ids, np.uint64(self.packing.shift),
                              np.uint64(self.packing.base), *self.locate, keys, counts)
        self.store.scatter(keys, self.locate, counts)

    # -- the sweep -----------------------------------------------------------------------

    def rows_of(self, b: int) -> tuple[int, int]:
        """Compact rows ``c0 .. c1`` of bucket ``b``."""
        cut = self.table_cuts
        lo, hi = cut[b], cut[b + 1] if b + 1 < len(cut) else self.table
        if self.rank is not None:  # table ids with gaps -> compact rows
            lo, hi = (int(np.searchsorted(self.vertex_ids, x)) for x in (lo, hi))
        return lo, min(hi, self.n)

    def sort_on_host(self, b: int):
        """Sort bucket ``b`` on this thread; keep its row entries; return ``(k, directed)``."""
        K = _kernels()
        if self.store.fill[b] <= self.sort_room or self.store.file is None:
            keys = self.store.load(b)
            keys.sort()
            out = keys.view(self.idx)
            k, directed = K.unique_rows(keys, keys.shape[0], *self._unique_args(), out,
                                        self.degree)
            self.store.keep(b, out[:k])
            return k, directed
        k = directed = 0
        for keys in self._resolve(lambda: self.store.pieces(b, self.sort_room),
                                  int(self.store.fill[b]), int(self.bounds[b]),
                                  int(self.bounds[b + 1])):
            out = keys.view(self.idx)
            pk, pd = K.unique_rows(keys, keys.shape[0], *self._unique_args(), out, self.degree)
            self.store.keep(b, out[:pk], at=k)
            k, directed = k + pk, directed + pd
        return k, directed

    def _unique_args(self):
        use_rank = self.rank is not None
        rank = self.rank if use_rank else np.zeros(1, np.int64)
        return (np.uint64(self.packing.shift), np.uint64(self.packing.base), rank, use_rank)

    def _resolve(self, pieces, count: int, low: int, high: int):
        """Sorted distinct keys of the keys in ``[low, high)`` that ``pieces()`` yields
        (``count`` of them), as arrays in key order, each within the sort room: by
        ranges of keys (even bounds: both directions of a pair stay together), split
        again while a range holds more than the room."""
        K = _kernels()
        if count <= self.sort_room or high - low <= 2:
            # One pair's keys (at most two distinct) may be any number of repeats:
            # each piece shrinks to its distinct keys before they are joined.
            narrow = count > self.sort_room
            parts = [_distinct(p) if narrow else p for p in pieces()]
            keys = np.concatenate(parts or [np.zeros(0, np.uint64)])
            keys.sort()
            yield keys[: K.unique_sorted(keys)]
            return
        width = high - low
        shift = max(1, (width - 1).bit_length() - 12)  # 2^12 bins of even width
        hist = np.zeros((_threads(), ((width - 1) >> shift) + 1), dtype=np.int64)
        for piece in pieces():
            with _parallel(piece.shape[0]):
                K.key_histogram(piece, np.uint64(low), np.uint64(shift), hist)
        first, counts = _plan_buckets(hist.sum(axis=0), self.sort_room, 1,
                                      -(-width >> shift))
        bounds = np.array([low + (int(b) << shift) for b in first] + [high], dtype=np.uint64)
        locate = (bounds, np.zeros(0, np.int32), np.uint64(0))
        small = int(counts.sum()) <= self.sort_room  # fits what one sort may hold anyway
        sub = _KeyStore(counts, None if small else self.plan.spill_dir or tempfile.gettempdir())
        try:
            for piece in pieces():
                sub.scatter(piece, locate)
            for j in range(len(first)):
                yield from self._resolve(lambda j=j: sub.pieces(j, self.sort_room),
                                         int(sub.fill[j]), int(bounds[j]), int(bounds[j + 1]))
        finally:
            sub.close()

    def sweep(self):
        """Sort every bucket; hand each one's row entries to ``emit`` in row order."""
        t0 = time.perf_counter()
        n = self.n
        self.idx = index_dtype(n)
        self.degree = np.zeros(n, dtype=np.int64)
        self.columns = np.zeros(n, dtype=np.int64) if self._count_columns() else None
        n_buckets = self.store.count.shape[0]
        self.kept = np.zeros(n_buckets, dtype=np.int64)
        directed = 0
        if self.device is not None:
            self.device.prepare_sweep(self)
            results = (self.device.sort_bucket(self, b) for b in range(n_buckets))
            pool = None
        else:
            pool = ThreadPoolExecutor(max_workers=max(1, _threads()))
            results = pool.map(self.sort_on_host, range(n_buckets))
        try:
            for b, (k, d) in enumerate(results):
                self.kept[b], directed = k, directed + d
                if self.columns is not None and self.device is None:
                    _kernels().add_counts(self.store.entries(b, k, self.idx), self.columns)
                self._collect(b, k)
                self.progress("sort", b + 1, n_buckets)
        finally:
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)
        if self.device is not None and self.columns is not None:
            self.columns += self.device.column_counts()
        self.n_edges = int(self.kept.sum())
        self.duplicates = self.n_keys - directed
        self.seconds["sort"] = time.perf_counter() - t0

    def _collect(self, b: int, k: int) -> None:
        """Host output: move bucket ``b``'s entries to the end of the CSR built so far."""
        if self.sink is not None:
            return
        if b == 0:
            self.written = 0
            if self.store.file is not None:
                self.indices = np.empty(self.n_keys, dtype=self.idx)  # pages used: m entries
            else:
                self.indices = self.store.keys.view(self.idx)
        entries = self.store.entries(b, k, self.idx)
        # Entries only move left: the packed CSR so far ends at or before region b.
        self.indices[self.written: self.written + k] = entries
        self.written += k

    def output(self) -> BoundedBuild:
        t0 = time.perf_counter()
        indptr = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(self.degree, out=indptr[1:])
        max_degree = None
        if self.columns is not None:
            max_degree = int((self.degree + self.columns).max()) if self.n else 0
        del self.degree, self.columns
        vertex_ids = self.vertex_ids
        indices = None
        if self.sink is not None:
            self.sink.begin(n_vertices=self.n, n_edges=self.n_edges, index_dtype=self.idx,
                            vertex_ids=vertex_ids, self_loops_dropped=self.loops,
                            duplicates_dropped=self.duplicates)
            self.sink.write_indptr(indptr)
            n_buckets = self.store.count.shape[0]
            for b in range(n_buckets):
                if self.kept[b]:
                    self.sink.write_indices(self.store.entries(b, int(self.kept[b]), self.idx))
                self.progress("write", b + 1, n_buckets)
            self.sink.finish(max_degree)
            indptr = vertex_ids = None
        elif self.n_keys == 0:
            indices = np.zeros(0, dtype=self.idx)
        else:
            indices = self._shrink(self.indices, self.n_edges)
        spilled = self.store.spilled_bytes
        self.store.close()
        self.seconds["emit"] = time.perf_counter() - t0
        note = {"path": "bounded", "device": "gpu" if self.device is not None else "cpu",
                "buckets": int(self.kept.shape[0]), "room_keys": int(self.room),
                "keys_in_memory": bool(self.in_memory), "spilled_bytes": spilled,
                "seconds": {k: round(v, 6) for k, v in self.seconds.items()}}
        return BoundedBuild(indptr, indices, self.n, self.n_edges, vertex_ids, self.loops,
                            self.duplicates, max_degree, note)

    def _shrink(self, indices, m: int):
        """``indices[:m]`` owning as little memory as it can (the key buffer shrinks in place)."""
        base = self.store.keys if self.store.file is None else indices
        self.store.keys = None
        self.indices = None
        base_items = -(-m * indices.itemsize // base.itemsize)
        del indices
        base.resize(base_items, refcheck=False)
        return base.view(self.idx)[:m]


def _device_twin(device: str):
    """The GPU twin of the sweep (``gpu/prepare/outofcore.py``), or None for the CPU."""
    if device == "cpu":
        return None
    factory = lookup("cupy", "outofcore")
    twin = factory() if factory is not None else None
    if twin is None and device == "gpu":
        raise BackendUnavailableError(
            "device='gpu' was asked for the bounded build, but no usable GPU was found "
            "(CuPy and a CUDA device are needed); pass device='cpu'")
    return twin


def build_bounded(source, *, n_vertices: int | None = None, plan: BuildPlan | None = None,
                  sink=None, progress=None) -> BoundedBuild:
    """Build the canonical upper CSR of an edge source in bounded memory (see module doc).

    Parameters
    ----------
    source : iterable of ``(src, dst)`` chunks
        Read twice: :class:`ArrayChunks` (arrays sliced into views), a list, a
        generator's chunk source (:func:`tricount.generate.rmat.rmat_chunks`), or a
        callable returning a fresh iterator; a one-pass iterator is kept (copied) on
        its first pass. Chunks are NumPy or CuPy arrays of ids in ``0 .. 2**64-1``.
    n_vertices : int, optional
        Ids are already compact in ``0 .. n_vertices-1`` (isolated ones kept).
    plan : BuildPlan, optional
        Chunks, buckets, memory and device (defaults: from the machine).
    sink : object, optional
        Receives the rows instead of host arrays: ``begin(n_vertices=, n_edges=,
        index_dtype=, vertex_ids=, self_loops_dropped=, duplicates_dropped=)``,
        ``write_indptr(indptr)``, ``write_indices(entries)`` per bucket in row order,
        ``finish(max_degree)``; ``needs_max_degree`` (attribute) asks for the
        largest degree.
    progress : callable, optional
        ``progress(phase, done, total)`` after each chunk or bucket.

    Examples
    --------
    A triangle given in pieces, with a loop and a repeat, equals ``from_edges``:

    >>> import numpy as np
    >>> chunks = [(np.array([1, 2]), np.array([2, 3])), (np.array([3, 2, 5]), np.array([1, 1, 5]))]
    >>> b = build_bounded(chunks, plan=BuildPlan(device="cpu"))
    >>> b.indptr.tolist(), b.indices.tolist(), b.vertex_ids.tolist()
    ([0, 2, 3, 3, 3], [1, 2, 2], [1, 2, 3, 5])
    >>> b.self_loops_dropped, b.duplicates_dropped
    (1, 0)
    """
    plan = plan or BuildPlan()
    if n_vertices is not None:
        n_vertices = check_count(n_vertices, "n_vertices")
    build = _Build(source, n_vertices, plan, sink, progress)
    try:
        build.survey()
        build.plan_buckets()
        try:
            build.bucket()
            build.sweep()
            return build.output()
        finally:
            if getattr(build, "store", None) is not None:
                build.store.close()
    except MemoryError:
        raise TricountError(
            f"out of host memory in the bounded build of {getattr(build, 'lines', 0):,} edge "
            "lines; pass BuildPlan(host_bytes=...) below what is free so that keys go to a "
            "temporary file, or free memory") from None
