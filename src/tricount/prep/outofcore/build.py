"""One bounded build: the passes of :mod:`tricount.prep.outofcore`, in order, and their result.

:class:`_Build` surveys (:mod:`.survey`), sizes the buckets to the memory it may
use, buckets the keys (:mod:`.keys`), sorts each bucket on the GPU twin
(``gpu/prepare/outofcore.py``) or on every core, and emits the rows: packed in
place into the host CSR, or streamed into a sink.
"""

from __future__ import annotations

import contextlib
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from tricount.errors import (BackendUnavailableError, InvalidArgumentError, TricountError,
                             UnsupportedGraphError, check_choice, check_count)
from tricount.prep.accel import lookup
from tricount.prep.canonical import check_vertex_count, validate_edge_arrays
from tricount.prep.outofcore._runtime import as_u64, kernels, parallel, threads
from tricount.prep.outofcore.keys import KeyStore, Packing, cut_buckets, distinct_keys
from tricount.prep.outofcore.memory import DEVICE_SHARE, HOST_SHARE, available_memory, gib
from tricount.prep.outofcore.sources import DEFAULT_CHUNK_EDGES, two_pass
from tricount.prep.outofcore.survey import HIST_BINS, Survey
from tricount.prep.xp import array_namespace, index_dtype, to_host

__all__ = ["BuildPlan", "BoundedBuild", "build_bounded"]

#: Device bytes per key while a bucket is sorted and decoded on the GPU: the key,
#: the sort's double buffer, the pair flags and positions, the decoded and renamed
#: ends (gpu/prepare/outofcore.py), rounded up.
GPU_BYTES_PER_KEY = 40
#: A CPU bucket of at least this many keys (smaller ones cost more in overhead than
#: they gain in balance), at most 1/BUCKETS_PER_THREAD of a thread's share.
MIN_BUCKET_KEYS = 1 << 20
BUCKETS_PER_THREAD = 4


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


# -- the build ------------------------------------------------------------------------------

#: Odd multipliers of a chunk's fingerprint (any two distinct odd 64-bit constants).
_MIX_SRC, _MIX_DST = 0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F


def _fingerprint(xp, s, d, top) -> tuple:
    """What pass 2 compares a chunk with: its lines, its largest id and a 64-bit sum of
    its lines (in any order), ``s`` and ``d`` uint64."""
    mixed = (s * xp.uint64(_MIX_SRC)) ^ (d * xp.uint64(_MIX_DST))
    return int(s.shape[0]), int(top), int(mixed.sum(dtype=xp.uint64))


def _changed_source(chunk: int) -> TricountError:
    return TricountError(
        f"the edge source gave other lines on its second pass than on its first (chunk "
        f"{chunk + 1}): a bounded build reads its source twice; pass arrays, a list, or a "
        "callable that returns the same chunks each time")


class _Build:
    """One bounded build: the passes of :mod:`tricount.prep.outofcore`, in order."""

    def __init__(self, source, n_vertices, plan, sink, progress):
        self.plan = plan
        self.sink = sink
        self.progress = progress or (lambda phase, done, total: None)
        self.seconds = {}
        self.host_room = plan.host_bytes
        if self.host_room is None:
            avail = available_memory()
            self.host_room = int(HOST_SHARE * avail) if avail is not None else 1 << 62
        self.source = two_pass(source, self.host_room)
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
                s, d = as_u64(s, np), as_u64(d, np)
                with parallel(s.shape[0]):
                    top = int(kernels().chunk_max(s, d, threads()))
            else:
                s, d = as_u64(s, xp), as_u64(d, xp)
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
        self.fingerprints = []  # one a chunk: pass 2 must read the same lines
        for xp, s, d, top in self._chunks():
            self.fingerprints.append(_fingerprint(xp, s, d, top))
            survey = surveys.get(xp.__name__)
            if survey is None:
                rows = threads() if xp is np else 1
                survey = surveys[xp.__name__] = Survey(xp, rows, self.n_vertices, self.hints)
            if xp is np:
                def count(s, d, present, hist, shift, mark):
                    with parallel(s.shape[0]):
                        return kernels().survey(s, d, present, hist, shift, mark)
            else:
                count = self.device.survey
            survey.add(s, d, top, count)
            self.progress("survey", survey.lines, self.hints[0])
        if len(surveys) > 1:
            raise InvalidArgumentError("edge chunks must all be NumPy or all be CuPy arrays")
        survey = next(iter(surveys.values()), None)
        if survey is None:
            survey = Survey(np, 1, self.n_vertices, self.hints)
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
        self.packing = Packing.for_table(self.table)
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
        workers = max(1, threads())
        if self.in_memory:  # every bucket sorts in place: no room to leave
            host_sort_room = load_room = K
        else:  # each worker loads one bucket at a time (8 bytes a key, twice for margin)
            spare = self.host_room - fixed - graph
            if spare <= 0 and plan.bucket_keys is None:
                raise TricountError(
                    f"the bounded build of {self.lines:,} edge lines ({self.n:,} vertices) "
                    f"needs {gib(fixed + graph)} of host memory for its tables"
                    f"{'' if self.sink else ' and the graph'}, more than the "
                    f"{gib(self.host_room)} allowed; "
                    + ("use a machine with more memory" if self.sink else
                       "write the graph to a .tcsr file (tricount.io.write_native_edges) or "
                       "use a machine with more memory"))
            host_sort_room = max(2, spare // (16 * workers))
            load_room = max(2, spare // 16)  # the GPU's one bucket at a time, on the host
        room = host_sort_room
        if self.device is not None:
            reserved = (0 if self.rank is None else self.rank.nbytes) + 8 * self.n
            free = self.device.free_bytes()
            room = int(DEVICE_SHARE * free - reserved) // GPU_BYTES_PER_KEY
            if room < 1 << 16:
                raise UnsupportedGraphError(
                    f"sorting buckets on the GPU: {gib(free)} free holds too few keys "
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
        first, counts = cut_buckets(self.hist, target, plan.buckets or 1,
                                      -(-(self.max_id + 1) >> shift))
        cuts = first.astype(np.uint64) << np.uint64(shift)
        if self.search:  # cuts of original ids -> table (compact) rows
            table_cuts = np.searchsorted(self.sorted_ids(), cuts, side="left")
        else:
            table_cuts = cuts
        self.table_cuts = [int(c) for c in table_cuts]
        bounds = [self.packing.row_key(c) for c in self.table_cuts] + [int(kernels().DROP)]
        self.bounds = np.array(bounds, dtype=np.uint64)
        # Buckets of whole bins of table ids: a key's bucket is its bin's (no search).
        whole_bins = not self.search and self.packing.shift > 0
        bin_bucket = (np.searchsorted(first, np.arange(HIST_BINS), side="right") - 1
                      ).astype(np.int32) if whole_bins else np.zeros(0, np.int32)
        self.locate = (self.bounds, bin_bucket, np.uint64(self.packing.shift + 1 + shift))
        spill = None if self.in_memory else (plan.spill_dir or tempfile.gettempdir())
        try:
            self.store = KeyStore(counts, spill)
        except MemoryError:
            raise TricountError(
                f"holding {self.n_keys:,} edge keys ({gib(8 * self.n_keys)}) in host memory "
                "failed; pass a smaller host_bytes so that they go to a temporary file, or "
                "free memory") from None

    # -- pass 2 --------------------------------------------------------------------------

    def bucket(self):
        with self._device_guard("reading the edge chunks (pass 2 of the bounded build)"):
            self._bucket()

    def _bucket(self):
        t0 = time.perf_counter()
        done, seen = 0, 0
        for xp, s, d, top in self._chunks():
            # Checked before the chunk is placed: a bucket sized by pass 1 would overflow
            # into its neighbour (a heap corruption) if the source now gave other lines.
            if seen >= len(self.fingerprints) or \
                    _fingerprint(xp, s, d, top) != self.fingerprints[seen]:
                raise _changed_source(seen)
            seen += 1
            if xp is np:
                self.bucket_host(s, d)
            else:
                self.device.bucket_chunk(s, d, self, self.store)
            done += int(s.shape[0])
            self.progress("bucket", done, self.lines)
        if seen != len(self.fingerprints):
            raise _changed_source(seen)
        self.seconds["bucket"] = time.perf_counter() - t0

    def bucket_host(self, s, d) -> None:
        """Pass 2 on a host chunk (uint64 ids): pack its keys, append them to their buckets."""
        ids = self.sorted_ids() if self.search else np.zeros(1, np.uint64)
        keys = np.empty(s.shape[0], dtype=np.uint64)
        counts = np.zeros((threads(), self.store.count.shape[0]), dtype=np.int64)
        with parallel(s.shape[0]):
            kernels().encode(s, d, self.search, ids, np.uint64(self.packing.shift),
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
        K = kernels()
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
        K = kernels()
        if count <= self.sort_room or high - low <= 2:
            # One pair's keys (at most two distinct) may be any number of repeats:
            # each piece shrinks to its distinct keys before they are joined.
            narrow = count > self.sort_room
            parts = [distinct_keys(p) if narrow else p for p in pieces()]
            keys = np.concatenate(parts or [np.zeros(0, np.uint64)])
            keys.sort()
            yield keys[: K.unique_sorted(keys)]
            return
        width = high - low
        shift = max(1, (width - 1).bit_length() - 12)  # 2^12 bins of even width
        hist = np.zeros((threads(), ((width - 1) >> shift) + 1), dtype=np.int64)
        for piece in pieces():
            with parallel(piece.shape[0]):
                K.key_histogram(piece, np.uint64(low), np.uint64(shift), hist)
        first, counts = cut_buckets(hist.sum(axis=0), self.sort_room, 1,
                                      -(-width >> shift))
        bounds = np.array([low + (int(b) << shift) for b in first] + [high], dtype=np.uint64)
        locate = (bounds, np.zeros(0, np.int32), np.uint64(0))
        small = int(counts.sum()) <= self.sort_room  # fits what one sort may hold anyway
        sub = KeyStore(counts, None if small else self.plan.spill_dir or tempfile.gettempdir())
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
            pool = ThreadPoolExecutor(max_workers=max(1, threads()))
            results = pool.map(self.sort_on_host, range(n_buckets))
        try:
            for b, (k, d) in enumerate(results):
                self.kept[b], directed = k, directed + d
                if self.columns is not None and self.device is None:
                    kernels().add_counts(self.store.entries(b, k, self.idx), self.columns)
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
    """Build the canonical upper CSR of an edge source in bounded memory (the package doc).

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
