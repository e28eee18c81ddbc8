"""A plain ``.tcsr`` file straight into the current GPU's memory, no copy of it in host memory.

What :func:`tricount.io.native.read` does into host memory, done into device memory, for a
count that copies the graph to the device whole anyway (the partitioned count's plan with
``upload_first``, :mod:`tricount.partition.gpu`). Read into host memory first, R-MAT 28's
17.6 GB file cost a fresh 17.6 GB host array (its pages faulted in, then copied again into
the pinned staging buffers), and each Dask worker of a host paid that at once.

How it reads:

- The payload is cut into *chunks* of :data:`CHUNK_BLOCKS` of the file's own checksum
  blocks (8 MiB each), so every chunk holds whole blocks. :data:`READ_THREADS` threads each
  claim the next chunk from a shared counter, read it (``Source.pread_into``: ``preadv``)
  into one of their two pinned
  buffers, check every block's CRC-32 against the header, and queue the chunk's bytes of
  ``indptr`` and ``indices`` to the device on a stream of their own. A pinned buffer is
  refilled only after the event recorded behind its last copy. ``preadv``, ``crc32`` and
  the copies release the GIL, so the threads read, check and copy at once.
- A short read (the file truncated meanwhile) or a checksum mismatch is a
  :class:`~tricount.GraphFormatError` naming the file, as from :func:`read`.
- The vertex ids (a file written with original ids) are not read: a count needs none.
- Then the CSR is checked on the device as :func:`~tricount.io.native.csr_is_valid` checks
  it on the host: offsets from 0 to ``m`` that never decrease, each row's ids above its
  vertex, below ``n`` and strictly increasing. A file that passes cannot make a kernel read
  out of bounds.

CuPy is imported only when this runs; this module never imports :mod:`tricount.gpu` (a
higher floor), as :mod:`tricount.io.gpu_stream`.
"""

from __future__ import annotations

import itertools
import os
import threading
import zlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from tricount.errors import GraphFormatError
from tricount.io.source import open_source
from tricount.prep.upper import is_upper_csr as csr_is_valid_on_device

__all__ = ["read_to_device", "csr_is_valid_on_device", "READ_THREADS", "CHUNK_BLOCKS"]

#: Threads reading, checking and copying at once. One thread copies from the page cache at
#: about 10 GB/s; a PCIe 5 link takes 50 (benchmarks/results/partition_gpu_h100x4.md, the
#: host link's floor: pageable to pinned copies 10.1 / 31.1 / 48.1 GiB/s on 1 / 4 / 8
#: threads of an H100 host).
READ_THREADS = min(8, os.cpu_count() or 1)
#: Checksum blocks per chunk: 2 of 8 MiB, so the threads' pinned buffers take 2 x 16 MiB each
CHUNK_BLOCKS = 2
#: Entries per window of the device check (about 20 bytes an entry of temporaries).
CHECK_ENTRIES = 1 << 25


def _cupy():
    import cupy
    import cupyx

    return cupy, cupyx


def read_to_device(native, *, threads: int = READ_THREADS, chunk_blocks: int = CHUNK_BLOCKS,
                   check_entries: int = CHECK_ENTRIES):
    """``(indptr, indices)`` of the :class:`~tricount.io.native.NativeFile` ``native``, read
    into CuPy arrays on the current device, every block checksummed and the CSR checked
    (see the module doc). ``indices`` keeps the file's index type."""
    cp, cupyx = _cupy()
    h = native.header
    n, m = native.n_vertices, native.n_edges
    block = int(h["block_bytes"])
    indptr = cp.empty(n + 1, dtype=cp.int64)
    indices = cp.empty(m, dtype=native.stored_index_dtype)
    indices_end = h["indices_at"] + indices.nbytes
    # (first byte, end, the device bytes it goes to), payload offsets
    targets = [(0, indptr.nbytes, indptr.view(cp.uint8)),
               (h["indices_at"], indices_end, indices.view(cp.uint8))]
    # The arrays may be memory the pool took back from work still queued on this stream:
    # every reader's copies wait for that work.
    allocated = cp.cuda.get_current_stream().record()
    # Whole blocks up to the last one holding an index; the vertex ids' blocks after it are
    # not read.
    end = min(-(-indices_end // block) * block, h["size"])
    chunk = max(1, int(chunk_blocks)) * block
    starts = range(0, end, chunk)
    claims = itertools.count()  # next() of a count is atomic under the GIL
    failed = threading.Event()  # one reader's error stops the others' claims
    device = cp.cuda.Device()
    base, crcs = h["header_bytes"], h["crcs"]

    def reader() -> None:
        with device:
            stream = cp.cuda.Stream(non_blocking=True)
            stream.wait_event(allocated)
            buffers, copied = [], [None, None]
            try:
                for turn in itertools.count():
                    j = next(claims)
                    if j >= len(starts) or failed.is_set():
                        break
                    a = starts[j]
                    b = min(a + chunk, end)
                    slot = turn % 2
                    if len(buffers) <= slot:
                        buffers.append(cupyx.empty_pinned(min(chunk, end), dtype=np.uint8))
                    if copied[slot] is not None:
                        copied[slot].synchronize()  # its last copy to the device is done
                    buf = buffers[slot][: b - a]
                    if source.pread_into(buf, base + a) < len(buf):
                        raise GraphFormatError(native.path, "is truncated: the file shrank "
                                               "while it was read (read it again once it "
                                               "is complete)")
                    for i in range(a // block, -(-b // block)):
                        lo = i * block - a
                        if zlib.crc32(buf[lo: lo + block]) != int(crcs[i]):
                            raise GraphFormatError(
                                native.path, f"checksum mismatch in bytes {i * block} .. "
                                f"{min((i + 1) * block, h['size']) - 1} of the graph: the "
                                "file is corrupt")
                    for lo, hi, dst in targets:
                        s, e = max(a, lo), min(b, hi)
                        if s < e:
                            dst[s - lo: e - lo].set(buf[s - a: e - a], stream=stream)
                    copied[slot] = stream.record()
            except BaseException:
                failed.set()
                raise
            finally:
                stream.synchronize()  # no copy outlives its pinned buffer

    with open_source(native.path) as source:  # pread_into: positional reads, any thread
        workers = max(1, min(int(threads), len(starts)))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="tricount-tcsr") as pool:
            futures = [pool.submit(reader) for _ in range(workers)]
            for future in futures:
                future.result()
    if not csr_is_valid_on_device(indptr, indices, n, window=check_entries):
        raise GraphFormatError(native.path, "the stored CSR is invalid (unsorted or "
                                            "out-of-range entries): the file is corrupt")
    return indptr, indices
