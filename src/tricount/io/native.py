"""tricount's native binary graph (``.tcsr``): the canonical CSR, memory-mapped on load.

Written by ``tricount convert IN OUT.tcsr`` (or :func:`write_native`); reading
it skips parsing and canonicalisation. Layout, little-endian::

    header   88 bytes (HEADER below), then the graph name (UTF-8), then one
             CRC-32 per BLOCK_BYTES of payload, zero-padded to 64 bytes
    payload  indptr   int64[n_vertices + 1]     zero-padded to 64 bytes
             indices  int32 or int64[n_edges]   zero-padded to 64 bytes
             vertex_ids int64[n_vertices]       only when flag VERTEX_IDS

``indptr``/``indices`` are the strictly upper-triangular CSR of
:class:`~tricount.CSRGraph` (row u holds its neighbours v > u, sorted).

Reading checks, in order: the magic number, the version, the header's own
CRC-32, the file size the header implies (truncation), the CRC-32 of every
payload block (computed on two threads: zlib releases the GIL), and the CSR
structure itself (monotone ``indptr``, sorted in-range rows), so a file that
passes cannot make a kernel read out of bounds.
"""

from __future__ import annotations

import mmap
import os
import struct
import zlib
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np
from numba import prange

from tricount.errors import GraphFormatError
from tricount.graph import CSRGraph
from tricount.io._source import open_binary, read_all, sniff
from tricount.prep.xp import index_dtype, to_host

MAGIC = b"\x89TCSR\r\n\x1a"  # PNG-style: catches text-mode and 7-bit transfers
VERSION = 1
HEADER = struct.Struct("<8sIIqqqqqIIqqII")
#: Checksum granularity: 8 MiB blocks give the two threads balanced work.
BLOCK_BYTES = 8 << 20
ALIGN = 64
FLAG_VERTEX_IDS = 1
SUFFIX = ".tcsr"


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


def write_native(path, graph: CSRGraph) -> None:
    """Write ``graph`` as a native binary file (atomically: a temp file, then rename)."""
    path = os.fspath(path)
    indptr = np.ascontiguousarray(to_host(graph.indptr), dtype=np.int64)
    indices = np.ascontiguousarray(to_host(graph.indices))
    if indices.dtype not in (np.int32, np.int64):
        indices = indices.astype(index_dtype(graph.n_vertices))
    ids = graph.vertex_ids
    ids = to_host(ids) if ids is not None else None
    has_ids = False
    if ids is not None:
        if ids.dtype == object or ids.dtype.kind not in "iu":
            raise GraphFormatError(path, "the graph's vertex labels are not integers; the "
                                         "native format stores integer ids only")
        ids = np.ascontiguousarray(ids, dtype=np.int64)
        has_ids = not np.array_equal(ids, np.arange(graph.n_vertices, dtype=np.int64))
    n, m = graph.n_vertices, graph.n_edges
    indices_at, ids_at, size = _layout(n, m, indices.dtype.itemsize, has_ids)
    payload = np.zeros(size, dtype=np.uint8)
    payload[: 8 * (n + 1)] = indptr.view(np.uint8)
    payload[indices_at: indices_at + indices.nbytes] = indices.view(np.uint8)
    if has_ids:
        payload[ids_at:] = ids.view(np.uint8)
    view = memoryview(payload)
    crcs = np.array([zlib.crc32(view[a: a + BLOCK_BYTES]) for a in range(0, size, BLOCK_BYTES)],
                    dtype="<u4")
    name = (graph.name or "").encode("utf-8")[:4096]
    header_bytes = HEADER.size + len(name) + crcs.nbytes
    header_bytes += _pad(header_bytes)
    fields = [MAGIC, VERSION, header_bytes, n, m, graph.self_loops_dropped,
              graph.duplicates_dropped, graph.max_degree, indices.dtype.itemsize,
              FLAG_VERTEX_IDS if has_ids else 0, BLOCK_BYTES, crcs.shape[0], len(name), 0]
    head = bytearray(header_bytes)
    HEADER.pack_into(head, 0, *fields)
    head[HEADER.size: HEADER.size + len(name)] = name
    head[HEADER.size + len(name): HEADER.size + len(name) + crcs.nbytes] = crcs.tobytes()
    fields[-1] = zlib.crc32(head)
    HEADER.pack_into(head, 0, *fields)
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            f.write(head)
            f.write(view)
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise GraphFormatError(path, f"cannot write: {exc.strerror or exc}") from None


@numba.njit(parallel=True, nogil=True, cache=True)
def _check_csr(indptr, indices, n):
    """0 if ``indptr``/``indices`` form a sorted strictly upper-triangular CSR, else 1 + bad row."""
    bad = np.zeros(n, dtype=np.int64)
    for r in prange(n):
        a, b = indptr[r], indptr[r + 1]
        if a > b or a < 0 or b > indices.shape[0]:
            bad[r] = 1
            continue
        prev = r
        for j in range(a, b):
            c = np.int64(indices[j])
            if c <= prev or c >= n:
                bad[r] = 1
                break
            prev = c
    for r in range(n):
        if bad[r]:
            return r + 1
    return 0


def _map(path):
    """The file's bytes: memory-mapped (copy-on-write) when plain, else decompressed."""
    if sniff(path).compression is not None:
        return np.frombuffer(bytearray(read_all(path)), dtype=np.uint8), None
    with open_binary(path) as f:
        size = os.fstat(f.fileno()).st_size
        if size == 0:
            return np.zeros(0, dtype=np.uint8), None
        try:
            mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
        except (OSError, ValueError) as exc:
            raise GraphFormatError(path, f"cannot map the file: {exc}") from None
    return np.frombuffer(mm, dtype=np.uint8), mm


def read_header(path, data):
    """The checked header fields of a native file (magic, version, header CRC, size)."""
    if data.shape[0] < HEADER.size:
        if bytes(data[: len(MAGIC)]) != MAGIC[: data.shape[0]] or data.shape[0] < len(MAGIC):
            raise GraphFormatError(path, "is not a tricount binary graph (wrong magic number); "
                                         "expected a .tcsr file written by 'tricount convert'")
        raise GraphFormatError(path, f"is truncated: {data.shape[0]} bytes, shorter than the "
                                     f"{HEADER.size}-byte header")
    fields = list(HEADER.unpack_from(bytes(data[: HEADER.size])))
    (magic, version, header_bytes, n, m, loops, dups, max_degree, index_bytes, flags,
     block_bytes, n_blocks, name_len, header_crc) = fields
    if magic != MAGIC:
        raise GraphFormatError(path, "is not a tricount binary graph (wrong magic number); "
                                     "expected a .tcsr file written by 'tricount convert'")
    if version != VERSION:
        raise GraphFormatError(path, f"is native format version {version}; this tricount reads "
                                     f"version {VERSION} (rewrite it with 'tricount convert')")
    if not (HEADER.size <= header_bytes <= data.shape[0]):
        raise GraphFormatError(path, f"is truncated or corrupt: header of {header_bytes} bytes, "
                                     f"file of {data.shape[0]}")
    head = bytearray(data[:header_bytes])
    head[HEADER.size - 4: HEADER.size] = b"\x00\x00\x00\x00"
    if zlib.crc32(head) != header_crc:
        raise GraphFormatError(path, "header checksum mismatch: the file is corrupt")
    if (n < 0 or m < 0 or index_bytes not in (4, 8) or block_bytes <= 0
            or HEADER.size + name_len + 4 * n_blocks > header_bytes):
        raise GraphFormatError(path, "header fields are inconsistent: the file is corrupt")
    has_ids = bool(flags & FLAG_VERTEX_IDS)
    indices_at, ids_at, size = _layout(n, m, index_bytes, has_ids)
    if n_blocks != -(-size // block_bytes):
        raise GraphFormatError(path, "header fields are inconsistent: the file is corrupt")
    expected = header_bytes + size
    if data.shape[0] < expected:
        raise GraphFormatError(path, f"is truncated: {data.shape[0]} bytes, expected {expected} "
                                     "(an incomplete copy?)")
    if data.shape[0] > expected:
        raise GraphFormatError(path, f"has {data.shape[0] - expected} unexpected bytes after the "
                                     "graph: the file is corrupt")
    name = bytes(data[HEADER.size: HEADER.size + name_len]).decode("utf-8", errors="replace")
    crcs = np.frombuffer(bytes(data[HEADER.size + name_len: HEADER.size + name_len + 4 * n_blocks]),
                         dtype="<u4")
    return dict(header_bytes=header_bytes, n=n, m=m, loops=loops, dups=dups,
                max_degree=max_degree, index_bytes=index_bytes, has_ids=has_ids,
                block_bytes=block_bytes, crcs=crcs, name=name or None,
                indices_at=indices_at, ids_at=ids_at, size=size)


def _verify_blocks(path, payload, block_bytes, crcs):
    view = memoryview(payload)
    starts = range(0, payload.shape[0], block_bytes)

    def crc(a):
        return zlib.crc32(view[a: a + block_bytes])

    if len(starts) > 1:
        with ThreadPoolExecutor(max_workers=numba.get_num_threads()) as pool:
            got = list(pool.map(crc, starts))
    else:
        got = [crc(a) for a in starts]
    for k, (a, want) in enumerate(zip(starts, crcs)):
        if got[k] != int(want):
            raise GraphFormatError(path, f"checksum mismatch in bytes {a} .. "
                                         f"{min(a + block_bytes, payload.shape[0]) - 1} of the "
                                         "graph: the file is corrupt")


def read_native(path, *, timings=None) -> CSRGraph:
    """Load a native binary graph, verified, with arrays memory-mapped from the file.

    ``timings`` (a dict) receives ``load_s`` (map and verify) and ``build_s``
    (wrapping the arrays as a CSRGraph; its COO rows are derived only when read).
    """
    import time

    t0 = time.perf_counter()
    data, _mm = _map(path)  # the arrays keep the mapping alive
    h = read_header(path, data)
    payload = data[h["header_bytes"]:]
    _verify_blocks(path, payload, h["block_bytes"], h["crcs"])
    n, m = h["n"], h["m"]
    idx = np.int32 if h["index_bytes"] == 4 else np.int64
    indptr = payload[: 8 * (n + 1)].view(np.int64)
    indices = payload[h["indices_at"]: h["indices_at"] + h["index_bytes"] * m].view(idx)
    if indptr[0] != 0 or indptr[n] != m or _check_csr(indptr, indices, n):
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
                                name=h["name"])
    if timings is not None:
        timings["load_s"] = t1 - t0
        timings["build_s"] = time.perf_counter() - t1
    return g
