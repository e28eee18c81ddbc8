"""tricount's native binary graph (``.tcsr``): the canonical CSR, checksummed.

Written by ``tricount convert IN OUT.tcsr`` (or :func:`write_native`); reading
it skips parsing and canonicalisation. Layout, little-endian::

    header   88 bytes (HEADER below), then the graph name (UTF-8), then one
             CRC-32 per BLOCK_BYTES of payload, zero-padded to 64 bytes
    payload  indptr   int64[n_vertices + 1]     zero-padded to 64 bytes
             indices  int32 or int64[n_edges]   zero-padded to 64 bytes
             vertex_ids int64[n_vertices]       only when flag VERTEX_IDS

``indptr``/``indices`` are the strictly upper-triangular CSR of
:class:`~tricount.CSRGraph` (row u holds its neighbours v > u, sorted). The
header carries its own CRC-32 (of the header with that field zeroed).

Writing goes through :func:`tricount.io.output.atomic_output`: a temporary
beside the target, fsynced, renamed over it; a reader holding the old file
keeps reading the old file (its open descriptor), never a mix. Every writer is
:class:`NativeWriter`, which streams: the sizes are known first, the sections
follow in order with their checksums computed as they pass, the header is
written last. :func:`write_native` streams a graph's arrays;
:func:`write_native_edges` streams the rows of the bounded build
(:mod:`tricount.prep.outofcore`) of an edge source too large to build in memory.

Reading checks, in order: the magic number, the version, the header's own
CRC-32, the sizes the header implies against the file and the memory
(truncation, a corrupt size), the CRC-32 of every payload block, and the CSR
structure itself (monotone ``indptr``, sorted in-range rows), so a file that
passes cannot make a kernel read out of bounds.

The payload is *copied* into memory the graph owns, never memory-mapped:
the graph's arrays live for the whole count, and a mapped file truncated
meanwhile (by another process) would kill the reader with SIGBUS when a
kernel touched a vanished page. Reading a plain file is ``preadv`` of each
8 MiB block into place followed by its CRC, the blocks spread over two
threads (both calls release the GIL), so verification costs no extra pass
over memory; a file that shrinks gives a short read, reported as an error.
Measured on R-MAT 20 (73 MB, 2-core EPYC, 2026-11): see
``benchmarks/results/io_load.md``.
"""

from __future__ import annotations

import os
import struct
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from tricount._threads import thread_count
from tricount.errors import GraphFormatError
from tricount.graph import CSRGraph
from tricount.io._limits import available_memory, check_file_ids
from tricount.io.output import atomic_output, check_outputs, is_stream
from tricount.prep.xp import index_dtype, to_host

MAGIC = b"\x89TCSR\r\n\x1a"  # PNG-style: catches text-mode and 7-bit transfers
VERSION = 1
HEADER = struct.Struct("<8sIIqqqqqIIqqII")
#: Checksum granularity: 8 MiB blocks give the two threads balanced work.
BLOCK_BYTES = 8 << 20
ALIGN = 64
FLAG_VERTEX_IDS = 1
#: Largest header accepted (name, 4 KiB at most, and one CRC per 8 MiB block).
MAX_HEADER_BYTES = 1 << 20


def _pad(n: int) -> int:
    return -n % ALIGN


def _layout(n_vertices, n_edges, index_bytes, has_ids):
    """Byte offsets of the payload sections (relative to the payload start) and its size."""
    indptr_bytes = 8 * (n_vertices + 1)
    indices_at = indptr_bytes + _pad(indptr_bytes)
    indices_bytes = index_bytes * n_edges
    ids_at = indices_at + indices_bytes + _pad(indices_bytes)
    size = ids_at + (8 * n_vertices if has_ids else 0)
    return indices_at, ids_at, size


class NativeWriter:
    """Write a native file front to back into ``f``, an open binary file at offset 0.

    The sizes come first, so the layout is known before any array: a zeroed header
    is reserved, the payload sections follow in order (:meth:`write_indptr`, then
    :meth:`write_indices` as many times as there are pieces, then
    :meth:`write_vertex_ids` when the file keeps ids), each block's CRC-32 computed
    as the bytes pass (full 8 MiB blocks on worker threads, while the main thread
    writes), and :meth:`close` writes the header last. Any array of a graph is
    written as it is, never copied into one payload buffer.
    """

    def __init__(self, f, *, n_vertices: int, n_edges: int, index_bytes: int, has_ids: bool,
                 name=None, self_loops_dropped: int = 0, duplicates_dropped: int = 0):
        self.f = f
        self.indices_at, self.ids_at, self.size = _layout(n_vertices, n_edges, index_bytes,
                                                          has_ids)
        self.n_vertices, self.n_edges, self.has_ids = n_vertices, n_edges, has_ids
        self.index_bytes = index_bytes
        # At most 4096 bytes, cut at a character's start ('a' * 4095 + 'é' read back as
        # ending in U+FFFD when cut inside the é).
        self.name = (name or "").encode("utf-8")[:4096].decode("utf-8", "ignore").encode()
        self.crcs = np.zeros(-(-self.size // BLOCK_BYTES), dtype="<u4")
        self.header_bytes = HEADER.size + len(self.name) + self.crcs.nbytes
        self.header_bytes += _pad(self.header_bytes)
        self.fields = [MAGIC, VERSION, self.header_bytes, n_vertices, n_edges,
                       int(self_loops_dropped), int(duplicates_dropped), 0, index_bytes,
                       FLAG_VERTEX_IDS if has_ids else 0, BLOCK_BYTES, self.crcs.shape[0],
                       len(self.name), 0]
        f.write(bytes(self.header_bytes))
        self.pos = 0  # payload bytes written
        self.block_crc = 0  # CRC-32 of the bytes of the current, unfinished block
        self.pool = ThreadPoolExecutor(max_workers=max(1, min(8, os.cpu_count() or 1)))

    def _put(self, data) -> None:
        """Append payload bytes: write them and fold them into the blocks' CRCs."""
        view = memoryview(data).cast("B")
        if self.pos + len(view) > self.size:
            raise ValueError("more payload than the header declares")
        cut = min(len(view), -self.pos % BLOCK_BYTES)  # the rest of the current block
        head, full_end = view[:cut], cut + (len(view) - cut) // BLOCK_BYTES * BLOCK_BYTES
        first = (self.pos + cut) // BLOCK_BYTES
        futures = [self.pool.submit(zlib.crc32, view[a: a + BLOCK_BYTES])
                   for a in range(cut, full_end, BLOCK_BYTES)]
        self.f.write(view)
        if cut:
            self.block_crc = zlib.crc32(head, self.block_crc)
            if (self.pos + cut) % BLOCK_BYTES == 0:
                self.crcs[(self.pos + cut) // BLOCK_BYTES - 1] = self.block_crc
                self.block_crc = 0
        for k, future in enumerate(futures):
            self.crcs[first + k] = future.result()
        if full_end < len(view):
            self.block_crc = zlib.crc32(view[full_end:], self.block_crc)
        self.pos += len(view)

    def _section(self, at: int) -> None:
        """Zero padding up to payload offset ``at``, where a section starts."""
        if self.pos > at:
            raise ValueError("a section of the native file is longer than declared")
        self._put(bytes(at - self.pos))

    def write_indptr(self, indptr) -> None:
        self._section(0)
        self._put(np.ascontiguousarray(indptr, dtype="<i8"))

    def write_indices(self, indices) -> None:
        """The next piece of ``indices`` (int32 or int64 as declared)."""
        if self.pos < self.indices_at:
            self._section(self.indices_at)
        self._put(np.ascontiguousarray(indices, dtype=f"<i{self.index_bytes}"))

    def write_vertex_ids(self, vertex_ids) -> None:
        self._section(self.ids_at)
        self._put(np.ascontiguousarray(vertex_ids, dtype="<i8"))

    def close(self, max_degree: int) -> None:
        """Finish the payload and write the header (sizes, counts, every block's CRC-32)."""
        if not self.has_ids:  # the padding after the indices ends the payload
            self._section(self.size)  # (it may hand the pool whole blocks: before shutdown)
        self.pool.shutdown()
        if self.pos != self.size:
            raise ValueError(f"native file payload is {self.pos} bytes, declared {self.size}")
        if self.pos % BLOCK_BYTES:
            self.crcs[-1] = self.block_crc
        head = bytearray(self.header_bytes)
        self.fields[7] = int(max_degree)
        self.fields[-1] = 0
        HEADER.pack_into(head, 0, *self.fields)
        at = HEADER.size
        head[at: at + len(self.name)] = self.name
        head[at + len(self.name): at + len(self.name) + self.crcs.nbytes] = self.crcs.tobytes()
        self.fields[-1] = zlib.crc32(head)
        HEADER.pack_into(head, 0, *self.fields)
        self.f.seek(0)
        self.f.write(head)


def _stored_ids(path, ids, n: int):
    """``(int64 ids, kept)``: the ids to store, and whether the file keeps them (not
    when they are ``0 .. n-1``)."""
    if ids is None:
        return None, False
    ids = to_host(ids)
    if ids.dtype == object or ids.dtype.kind not in "iu":
        raise GraphFormatError(path, "the graph's vertex labels are not integers; the "
                                     "native format stores integer ids only")
    check_file_ids(path, ids)  # stored as int64
    ids = np.ascontiguousarray(ids, dtype=np.int64)
    return ids, not np.array_equal(ids, np.arange(n, dtype=np.int64))


def write_native(path, graph: CSRGraph, *, inputs=()) -> None:
    """Write ``graph`` as a native binary file, whole or not at all.

    ``inputs``: paths the output must not be (refused before writing).
    """
    path = os.fspath(path)
    check_outputs([path], inputs)
    indptr = np.ascontiguousarray(to_host(graph.indptr), dtype=np.int64)
    indices = np.ascontiguousarray(to_host(graph.indices))
    if indices.dtype not in (np.int32, np.int64):
        indices = indices.astype(index_dtype(graph.n_vertices))
    ids, has_ids = _stored_ids(path, graph.vertex_ids, graph.n_vertices)
    with atomic_output(path, seekable=True) as (f, _):  # the header is written last
        writer = NativeWriter(f, n_vertices=graph.n_vertices, n_edges=graph.n_edges,
                              index_bytes=indices.dtype.itemsize, has_ids=has_ids,
                              name=graph.name, self_loops_dropped=graph.self_loops_dropped,
                              duplicates_dropped=graph.duplicates_dropped)
        writer.write_indptr(indptr)
        writer.write_indices(indices)
        if has_ids:
            writer.write_vertex_ids(ids)
        writer.close(graph.max_degree)


class _NativeSink:
    """Rows of :func:`tricount.prep.outofcore.build_bounded` into a :class:`NativeWriter`."""

    needs_max_degree = True  # the header records it

    def __init__(self, path, f, name):
        self.path, self.f, self.name = path, f, name
        self.writer = self.ids = None

    def begin(self, *, n_vertices, n_edges, index_dtype, vertex_ids, self_loops_dropped,
              duplicates_dropped) -> None:
        self.ids, has_ids = _stored_ids(self.path, vertex_ids, n_vertices)
        self.writer = NativeWriter(self.f, n_vertices=n_vertices, n_edges=n_edges,
                                   index_bytes=np.dtype(index_dtype).itemsize, has_ids=has_ids,
                                   name=self.name, self_loops_dropped=self_loops_dropped,
                                   duplicates_dropped=duplicates_dropped)

    def write_indptr(self, indptr) -> None:
        self.writer.write_indptr(indptr)

    def write_indices(self, entries) -> None:
        self.writer.write_indices(entries)

    def finish(self, max_degree) -> None:
        if self.writer.has_ids:
            self.writer.write_vertex_ids(self.ids)
        self.writer.close(max_degree)


def write_native_edges(path, source, *, name=None, n_vertices=None, plan=None, inputs=(),
                       progress=None):
    """Write the canonical graph of an edge source as a native file, in bounded memory.

    ``source`` is what :func:`tricount.prep.outofcore.build_bounded` reads (chunks of
    ``(src, dst)``, read twice; e.g. :func:`tricount.generate.rmat_chunks`). The
    rows stream into the temporary beside ``path``, which is renamed over it once
    whole; keys that do not fit in memory spill to an unnamed temporary file in the
    same folder (for ``-`` or another stream, the system's temporary folder) unless
    ``plan.spill_dir`` says otherwise. The file is byte for byte
    what :func:`write_native` writes for ``CSRGraph.from_edges`` of the same edges.
    Returns the :class:`~tricount.prep.outofcore.BoundedBuild` (its arrays None).
    """
    import dataclasses

    from tricount.prep.outofcore import BuildPlan, build_bounded

    path = os.fspath(path)
    check_outputs([path], inputs)
    plan = plan or BuildPlan()
    if plan.spill_dir is None and path != "-" and not is_stream(path):
        # Beside the target (its file system has room for the graph); a stream's own folder
        # (/proc/PID/fd for /dev/stdout on a pipe) is none: the system's temporary folder.
        folder = os.path.dirname(os.path.abspath(os.path.realpath(path)))
        plan = dataclasses.replace(plan, spill_dir=folder)
    with atomic_output(path, seekable=True) as (f, _):  # the header is written last
        return build_bounded(source, n_vertices=n_vertices, plan=plan,
                             sink=_NativeSink(path, f, name), progress=progress)


#: Entries checked per task by :func:`csr_is_valid` (64 MiB of int32 ids): large enough that
#: a task's NumPy calls cost more than their dispatch, small enough for every thread to get work.
CHECK_ENTRIES = 1 << 24


def csr_is_valid(indptr: np.ndarray, indices: np.ndarray, n: int) -> bool:
    """Whether ``indptr``/``indices`` form a sorted strictly upper-triangular CSR of ``n`` rows.

    NumPy, in tasks of :data:`CHECK_ENTRIES` entries on :func:`thread_count` threads (NumPy
    releases the GIL), so reading a ``.tcsr`` starts no Numba: a GPU count or the NumPy
    counter would pay its import (about 0.5 s) for this check alone. ``indptr`` must run
    from 0 to ``len(indices)`` (the caller checks the ends).
    """
    m = int(indices.shape[0])
    if n == 0 or m == 0:
        return bool(n == 0 or (indptr >= 0).all() and (indptr <= m).all()
                    and (np.diff(indptr) >= 0).all())
    with ThreadPoolExecutor(max_workers=thread_count()) as pool:
        if not all(pool.map(lambda a: _rows_ordered(indptr, a, min(a + CHECK_ENTRIES, n)),
                            range(0, n, CHECK_ENTRIES))):
            return False
        return all(pool.map(lambda a: _entries_ordered(indptr, indices, n, a,
                                                       min(a + CHECK_ENTRIES, m)),
                            range(0, m, CHECK_ENTRIES)))


def _rows_ordered(indptr, r0: int, r1: int) -> bool:
    """``indptr[r0 .. r1]`` never decreases (so every offset lies in ``[0, m]``)."""
    return bool((np.diff(indptr[r0:r1 + 1]) >= 0).all())


def _entries_ordered(indptr, indices, n: int, a: int, b: int) -> bool:
    """Entries ``[a, b)`` each above the one before it in its row, each row's first above its
    row and its last below ``n``: then every entry lies in ``(row, n)`` without a pass of its
    own (two NumPy reads of the ids per task, one boolean written)."""
    # Entry j against entry j - 1, for j in [max(a, 1), b); a row's first entry is exempt.
    lo = max(a, 1)
    step = np.less(indices[lo - 1:b - 1], indices[lo:b])
    first = np.searchsorted(indptr, lo, side="left")
    last = np.searchsorted(indptr, b, side="left")  # rows whose first entry lies in [lo, b)
    step[indptr[first:last] - lo] = True
    if not step.all():
        return False
    # Each non-empty row r starting in [a, b): its first entry above r, its last below n.
    r0 = int(np.searchsorted(indptr, a, side="left"))
    r1 = int(np.searchsorted(indptr, b, side="left"))
    starts = indptr[r0:r1 + 1]
    rows = np.flatnonzero(np.diff(starts) > 0)  # rows r0 + i with entries
    if not (indices[starts[rows]] > rows + r0).all():
        return False
    ends = indptr[r0 + rows + 1] - 1  # their last entries (perhaps beyond b: still checked)
    return bool((indices[ends] < n).all())


def _not_native(path) -> GraphFormatError:
    return GraphFormatError(path, "is not a tricount binary graph (wrong magic number); "
                                  "expected a .tcsr file written by 'tricount convert'")


def read_header(path, head: bytes, file_size: int | None):
    """The checked header fields of a native file (magic, version, header CRC, sizes).

    ``head`` holds the file's first bytes (at least the whole header when the
    file has one); ``file_size`` is the file's size when known.
    """
    if len(head) < HEADER.size:
        if head[: len(MAGIC)] != MAGIC[: len(head)] or len(head) < len(MAGIC):
            raise _not_native(path)
        raise GraphFormatError(path, f"is truncated: {len(head)} bytes, shorter than the "
                                     f"{HEADER.size}-byte header")
    fields = list(HEADER.unpack_from(head))
    (magic, version, header_bytes, n, m, loops, dups, max_degree, index_bytes, flags,
     block_bytes, n_blocks, name_len, header_crc) = fields
    if magic != MAGIC:
        raise _not_native(path)
    if version != VERSION:
        raise GraphFormatError(path, f"is native format version {version}; this tricount reads "
                                     f"version {VERSION} (rewrite it with 'tricount convert')")
    if not (HEADER.size <= header_bytes <= len(head)):
        raise GraphFormatError(path, f"is truncated or corrupt: header of {header_bytes} bytes, "
                                     f"{len(head)} bytes read")
    crc_head = bytearray(head[:header_bytes])
    crc_head[HEADER.size - 4: HEADER.size] = b"\x00\x00\x00\x00"
    if zlib.crc32(crc_head) != header_crc:
        raise GraphFormatError(path, "header checksum mismatch: the file is corrupt")
    if (n < 0 or m < 0 or index_bytes not in (4, 8) or block_bytes <= 0
            or HEADER.size + name_len + 4 * n_blocks > header_bytes):
        raise GraphFormatError(path, "header fields are inconsistent: the file is corrupt")
    has_ids = bool(flags & FLAG_VERTEX_IDS)
    indices_at, ids_at, size = _layout(n, m, index_bytes, has_ids)
    if n_blocks != -(-size // block_bytes):
        raise GraphFormatError(path, "header fields are inconsistent: the file is corrupt")
    expected = header_bytes + size
    if file_size is not None and file_size < expected:
        raise GraphFormatError(path, f"is truncated: {file_size} bytes, expected {expected} "
                                     "(an incomplete copy?)")
    if file_size is not None and file_size > expected:
        raise GraphFormatError(path, f"has {file_size - expected} unexpected bytes after the "
                                     "graph: the file is corrupt")
    avail = available_memory()
    if avail is not None and size > avail:
        raise GraphFormatError(path, f"holds a graph of {size / 2**30:.1f} GiB, more than the "
                                     f"{avail / 2**30:.1f} GiB of memory available")
    name = head[HEADER.size: HEADER.size + name_len].decode("utf-8", errors="replace")
    crcs = np.frombuffer(head[HEADER.size + name_len: HEADER.size + name_len + 4 * n_blocks],
                         dtype="<u4")
    return dict(header_bytes=header_bytes, n=n, m=m, loops=loops, dups=dups,
                max_degree=max_degree, index_bytes=index_bytes, has_ids=has_ids,
                block_bytes=block_bytes, crcs=crcs, name=name or None,
                indices_at=indices_at, ids_at=ids_at, size=size)


@dataclass(frozen=True)
class NativeFile:
    """The checked header of a plain native file: what a reader of its payload needs
    (:mod:`tricount.io.native_gpu` reads it straight into device memory)."""

    path: str
    header: dict

    @property
    def n_vertices(self) -> int:
        return int(self.header["n"])

    @property
    def n_edges(self) -> int:
        return int(self.header["m"])

    @property
    def stored_index_dtype(self) -> np.dtype:
        return np.dtype(np.int32 if self.header["index_bytes"] == 4 else np.int64)

    @property
    def summary(self) -> dict:
        """The graph's facts, as a :class:`~tricount.CSRGraph` read from the file states them."""
        from tricount.io import graph_name

        h = self.header
        return {"graph": h["name"] or graph_name(self.path), "vertices": self.n_vertices,
                "edges": self.n_edges, "self_loops_dropped": h["loops"],
                "duplicates_dropped": h["dups"]}


def native_file(path) -> NativeFile | None:
    """The header of ``path`` when it is a plain (uncompressed, regular) native file, checked
    as :func:`read` checks it; None for any other input (those are read by :func:`read`)."""
    from tricount.io.source import open_source

    if not isinstance(path, (str, os.PathLike)) or os.fspath(path) == "-":
        return None
    with open_source(path) as source:
        if not source.mapped or source.peek(len(MAGIC)) != MAGIC:
            return None
        return NativeFile(source.path, _peek_header(source))


def _peek_header(source) -> dict:
    """:func:`read_header` of ``source``'s first bytes, not consumed."""
    head = source.peek(HEADER.size)
    if len(head) >= HEADER.size and head[: len(MAGIC)] == MAGIC:
        header_bytes = HEADER.unpack_from(head)[2]
        if HEADER.size <= header_bytes <= MAX_HEADER_BYTES:
            head = source.peek(header_bytes)
    return read_header(source.path, bytes(head), source.size if source.mapped else None)


def _read_payload(source, h):
    """The payload, read into memory the graph owns and checked block by block.

    A plain file: each worker ``preadv``\\s its blocks into place and checksums
    them. A stream (pipe, compressed): the rest of it, then the checksums.
    """
    path, size, block_bytes, crcs = source.path, h["size"], h["block_bytes"], h["crcs"]
    starts = range(0, size, block_bytes)
    payload = np.empty(size, dtype=np.uint8)
    view = memoryview(payload)
    if source.mapped:
        base = h["header_bytes"]

        def block(a):
            part = view[a: a + block_bytes]
            if source.pread_into(part, base + a) < len(part):
                raise GraphFormatError(path, "is truncated: the file shrank while it was read "
                                             "(read it again once it is complete)")
            return zlib.crc32(part)
    else:
        rest = source.read_rest()
        if len(rest) != size:
            raise GraphFormatError(path, f"is truncated: {h['header_bytes'] + len(rest)} bytes, "
                                         f"expected {h['header_bytes'] + size}"
                                   if len(rest) < size else
                                   f"has {len(rest) - size} unexpected bytes after the graph: "
                                   "the file is corrupt")
        view[:] = rest
        del rest

        def block(a):
            return zlib.crc32(view[a: a + block_bytes])

    if len(starts) > 1:
        with ThreadPoolExecutor(max_workers=thread_count()) as pool:
            got = list(pool.map(block, starts))
    else:
        got = [block(a) for a in starts]
    for k, (a, want) in enumerate(zip(starts, crcs)):
        if got[k] != int(want):
            raise GraphFormatError(path, f"checksum mismatch in bytes {a} .. "
                                         f"{min(a + block_bytes, size) - 1} of the graph: the "
                                         "file is corrupt")
    return payload


def read(source, *, timings=None) -> CSRGraph:
    """Load a native binary graph from ``source``, verified, into memory it owns.

    ``timings`` (a dict) receives ``load_s`` (read and verify) and ``build_s``
    (wrapping the arrays as a CSRGraph; its COO rows are derived only when read).
    """
    import time

    t0 = time.perf_counter()
    path = source.path
    h = _peek_header(source)
    source.skip(h["header_bytes"])
    payload = _read_payload(source, h)
    n, m = h["n"], h["m"]
    idx = np.int32 if h["index_bytes"] == 4 else np.int64
    indptr = payload[: 8 * (n + 1)].view(np.int64)
    indices = payload[h["indices_at"]: h["indices_at"] + h["index_bytes"] * m].view(idx)
    if indptr[0] != 0 or indptr[n] != m or not csr_is_valid(indptr, indices, n):
        raise GraphFormatError(path, "the stored CSR is invalid (unsorted or out-of-range "
                                     "entries): the file is corrupt")
    if idx != index_dtype(n):
        indices = indices.astype(index_dtype(n))
    if h["has_ids"]:
        vertex_ids = payload[h["ids_at"]: h["ids_at"] + 8 * n].view(np.int64)
    else:
        vertex_ids = np.arange(n, dtype=np.int64)
    t1 = time.perf_counter()
    g = CSRGraph.from_upper_csr(indptr, indices, n, vertex_ids=vertex_ids,
                                self_loops_dropped=h["loops"], duplicates_dropped=h["dups"],
                                name=h["name"], check=False)
    if timings is not None:
        timings["load_s"] = t1 - t0
        timings["build_s"] = time.perf_counter() - t1
    return g
