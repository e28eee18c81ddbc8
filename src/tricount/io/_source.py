"""Open a graph file and stream its (decompressed) bytes in line-aligned chunks.

Compression is recognised by its magic number, never by the file name alone:
gzip ``1f 8b``, bzip2 ``BZh``, xz ``fd 37 7a 58 5a 00`` and zstd
``28 b5 2f fd``. gzip, bzip2 and xz use the standard library; zstd needs the
optional package ``zstandard`` and says so when it is missing.

:func:`stream_chunks` hands out line-aligned chunks: each ends just after a
newline (or at the end of the data), so no line is ever split between two
chunks. A plain (uncompressed) regular file is memory-mapped and its chunks
are views of the page cache: no copy, and the kernel reads ahead (measured on
a 233 MB edge list, 2026-11-22: parsing took 0.20 s mapped against 0.27 s
copied by a reader thread, which competed with the parser for the two cores).
A compressed stream is decompressed in a background thread (zlib, bz2, lzma
and zstandard all release the GIL), overlapping parsing in the caller, and
only ``POOL_BUFFERS`` chunks exist at once. Either way memory stays bounded
whatever the file size.
"""

from __future__ import annotations

import bz2
import lzma
import mmap
import os
import queue
import stat
import threading
import zlib
from dataclasses import dataclass

import numpy as np

from tricount.errors import GraphFormatError

#: Decompressed bytes per chunk handed to a parser (16 MiB: 8 MiB per core on the
#: 2-core reference machine, parsed while the next chunk is read).
CHUNK_BYTES = 16 << 20
#: Compressed bytes read per call when decompressing.
READ_BYTES = 1 << 20
#: Chunks alive at once: one being filled, one queued, one being parsed.
POOL_BUFFERS = 3
#: A line longer than this is an error rather than an unbounded buffer
#: (a METIS hub with 20 M neighbours still fits).
MAX_LINE_BYTES = 256 << 20
#: Bytes examined to recognise compression and format.
SNIFF_BYTES = 1 << 16

GZIP_MAGIC = b"\x1f\x8b"
BZIP2_MAGIC = b"BZh"
XZ_MAGIC = b"\xfd7zXZ\x00"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
UTF8_BOM = b"\xef\xbb\xbf"

COMPRESSION_SUFFIXES = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz", ".zst": "zstd",
                        ".zstd": "zstd"}


def compression_of(head: bytes) -> str | None:
    """The compression whose magic number starts ``head``, or None."""
    if head.startswith(GZIP_MAGIC):
        return "gzip"
    if head.startswith(BZIP2_MAGIC) and len(head) > 3 and head[3:4] in b"123456789":
        return "bzip2"
    if head.startswith(XZ_MAGIC):
        return "xz"
    if head.startswith(ZSTD_MAGIC):
        return "zstd"
    return None


def open_binary(path):
    """Open ``path`` for reading bytes, turning OS failures into GraphFormatError."""
    path = os.fspath(path)
    if os.path.isdir(path):
        raise GraphFormatError(path, "is a directory, expected a graph file")
    try:
        return open(path, "rb")
    except FileNotFoundError:
        raise GraphFormatError(path, "no such file") from None
    except PermissionError:
        raise GraphFormatError(path, "permission denied: cannot read the file") from None
    except OSError as exc:
        raise GraphFormatError(path, f"cannot read the file: {exc.strerror or exc}") from None


def _zstd_module(path):
    try:
        import zstandard
    except ImportError:
        raise GraphFormatError(
            path, "is zstd-compressed; reading it needs the optional package 'zstandard' "
                  "(pip install zstandard, or pip install 'tricount[zstd]')"
        ) from None
    return zstandard


class _Stream:
    """A readable stream of decompressed bytes with ``fill(view) -> n``.

    ``fill`` returns fewer bytes than asked only at the end of the data. A
    compressed stream that ends inside a member raises (truncated download).
    Output per call is bounded, so a highly compressed file cannot blow up
    memory.
    """

    #: Compressed bytes fed to zstd per call (its output per call is unbounded).
    ZSTD_FEED = 1 << 16

    def __init__(self, f, path):
        self.f = f
        self.path = path
        first = _read(f, path, 8)
        self.kind = compression_of(first)
        self.pending = b""
        self.pos = 0
        if self.kind is None:
            self._unread = first
            return
        self._unread = b""
        self._obj = None
        self._in = first
        self._in_member = False
        self._eof = False
        if self.kind == "zstd":
            self._zstd = _zstd_module(path)

    # -- decompression ---------------------------------------------------------------

    def _new(self):
        if self.kind == "gzip":
            return zlib.decompressobj(wbits=31)
        if self.kind == "bzip2":
            return bz2.BZ2Decompressor()
        if self.kind == "xz":
            return lzma.LZMADecompressor(format=lzma.FORMAT_XZ)
        return self._zstd.ZstdDecompressor().decompressobj()

    def _more(self) -> bytes:
        """Decompress the next bounded piece; b"" at the end of the data."""
        limit = READ_BYTES * 4
        while True:
            if not self._in:
                if self._eof:
                    break
                self._in = _read(self.f, self.path, READ_BYTES)
                if not self._in:
                    self._eof = True
                    break
            if self._obj is None:
                if not self._in.strip(b"\x00"):  # zero padding after the last member
                    self._in = b""
                    continue
                self._obj = self._new()
                self._in_member = True
            try:
                out = self._decompress(limit)
            except self._errors() as exc:
                raise GraphFormatError(
                    self.path, f"corrupt {self.kind} data ({exc}); expected a valid "
                               f"{self.kind} stream") from None
            if self._obj.eof:
                self._in = self._obj.unused_data + self._in
                self._obj = None
                self._in_member = False
            if out:
                return out
        if self._in_member:
            raise GraphFormatError(
                self.path, f"truncated {self.kind} data: the compressed stream ends before its "
                           "end-of-stream marker (an incomplete download or copy?)")
        return b""

    def _decompress(self, limit: int) -> bytes:
        obj, data = self._obj, self._in
        if self.kind == "gzip":
            out = obj.decompress(data, limit)
            self._in = obj.unconsumed_tail
            return out
        if self.kind in ("bzip2", "xz"):
            if obj.needs_input:
                self._in = b""
            else:
                data = b""  # it still holds output for the input already given
            return obj.decompress(data, limit)
        piece, self._in = data[: self.ZSTD_FEED], data[self.ZSTD_FEED:]
        return obj.decompress(piece)

    def _errors(self):
        errors = (zlib.error, OSError, EOFError, lzma.LZMAError, ValueError)
        if self.kind == "zstd":
            errors = errors + (self._zstd.ZstdError,)
        return errors

    # -- reading -----------------------------------------------------------------------

    def fill(self, view) -> int:
        """Copy up to ``len(view)`` bytes into ``view``; fewer only at the end."""
        n = 0
        want = len(view)
        if self._unread:
            k = min(want, len(self._unread))
            view[:k] = self._unread[:k]
            self._unread = self._unread[k:]
            n = k
        while n < want:
            if self.kind is None:
                got = _readinto(self.f, self.path, view[n:])
                if not got:
                    break
                n += got
                continue
            if self.pos >= len(self.pending):
                self.pending = self._more()
                self.pos = 0
                if not self.pending:
                    break
            k = min(want - n, len(self.pending) - self.pos)
            view[n:n + k] = self.pending[self.pos:self.pos + k]
            self.pos += k
            n += k
        return n

    def skip(self, count: int) -> None:
        scratch = bytearray(min(count, READ_BYTES))
        while count > 0:
            got = self.fill(memoryview(scratch)[: min(count, len(scratch))])
            if not got:
                return
            count -= got


@dataclass
class Source:
    """An opened graph file: its path, size, compression and first decompressed bytes."""

    path: str
    size: int
    compression: str | None
    head: bytes


def sniff(path) -> Source:
    """Compression and up to SNIFF_BYTES decompressed bytes of ``path``."""
    path = os.fspath(path)
    with open_binary(path) as f:
        size = _size(f)
        stream = _Stream(f, path)
        head = bytearray(SNIFF_BYTES)
        n = stream.fill(memoryview(head))  # a short truncated file raises here
        return Source(path, size, stream.kind, bytes(head[:n]))


def _size(f) -> int:
    try:
        return os.fstat(f.fileno()).st_size
    except OSError:
        return 0


def _read(f, path, n: int) -> bytes:
    try:
        return f.read(n)
    except OSError as exc:
        raise GraphFormatError(path, f"cannot read the file: {exc.strerror or exc}") from None


def _readinto(f, path, view) -> int:
    try:
        return f.readinto(view)
    except OSError as exc:
        raise GraphFormatError(path, f"cannot read the file: {exc.strerror or exc}") from None


def _tell(f) -> int:
    try:
        return f.tell()
    except OSError:
        return 0


def read_all(path) -> bytes:
    """Every decompressed byte of ``path`` (for small files)."""
    path = os.fspath(path)
    parts = []
    with open_binary(path) as f:
        stream = _Stream(f, path)
        while True:
            buf = bytearray(CHUNK_BYTES)
            n = stream.fill(memoryview(buf))
            parts.append(bytes(buf[:n]))
            if n < len(buf):
                return b"".join(parts)


def _chunk_iter(path, skip, chunk_bytes, pool, stop):
    """Yield ``(bytearray, n_valid, consumed)``; chunks end after a newline or at EOF."""
    with open_binary(path) as f:
        stream = _Stream(f, path)
        stream.skip(skip)
        carry = b""
        while not stop.is_set():
            size = max(chunk_bytes, 2 * len(carry))
            buf = pool.get()
            if buf is None or len(buf) < size:
                buf = bytearray(size)
            buf[: len(carry)] = carry
            n = len(carry)
            n += stream.fill(memoryview(buf)[n:size])
            if n < size:  # end of data: the last line may lack its newline
                if n:
                    yield buf, n, _tell(f)
                return
            cut = buf.rfind(b"\n", 0, n) + 1
            if cut == 0:  # no newline yet: grow the carried line (bounded)
                if n >= MAX_LINE_BYTES:
                    raise GraphFormatError(
                        path, f"a line is longer than {MAX_LINE_BYTES >> 20} MiB; expected one "
                              "edge, entry or adjacency list per line")
                carry = bytes(buf[:n])
                pool.put(buf)
                continue
            carry = bytes(buf[cut:n])
            yield buf, cut, _tell(f)


def _map_plain(path):
    """A read-only map of ``path`` when it is a plain, non-empty regular file, else None."""
    with open_binary(path) as f:
        try:
            info = os.fstat(f.fileno())
        except OSError:
            return None
        if not stat.S_ISREG(info.st_mode) or info.st_size == 0:
            return None
        if compression_of(_read(f, path, 8)) is not None:
            return None
        try:
            return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError):  # a file system without mmap: read it instead
            return None


def _mapped_chunks(path, mm, skip, chunk_bytes, progress):
    """Line-aligned views of a mapped file, from byte ``skip`` on.

    Pages of chunks already parsed are unmapped from the process as it goes
    (they stay in the page cache), so the resident set grows by about one
    chunk, not by the file.
    """
    size = len(mm)
    data = np.frombuffer(mm, dtype=np.uint8)
    advise = hasattr(mm, "madvise")
    released = 0  # bytes before this are no longer mapped in
    try:
        if advise:
            mm.madvise(mmap.MADV_SEQUENTIAL)  # read ahead further
        pos = min(skip, size)
        while pos < size:
            end = min(pos + chunk_bytes, size)
            if end < size:
                cut = mm.rfind(b"\n", pos, end)
                if cut < 0:  # one line longer than a chunk: take it whole (bounded)
                    cut = mm.find(b"\n", end, min(size, pos + MAX_LINE_BYTES))
                    if cut < 0 and size - pos >= MAX_LINE_BYTES:
                        raise GraphFormatError(
                            path, f"a line is longer than {MAX_LINE_BYTES >> 20} MiB; expected "
                                  "one edge, entry or adjacency list per line")
                end = cut + 1 if cut >= 0 else size
            yield data[pos:end], end
            if progress is not None:
                progress(end)
            done = end - end % mmap.PAGESIZE  # whole pages behind the parser
            if advise and done > released:
                mm.madvise(mmap.MADV_DONTNEED, released, done - released)
                released = done
            pos = end
    finally:
        del data
        try:
            mm.close()
        except BufferError:  # the caller still holds a view: the map closes when it goes
            pass


def stream_chunks(path, *, skip: int = 0, chunk_bytes: int | None = None, progress=None):
    """Yield ``(array, consumed)`` for each line-aligned chunk of decompressed bytes.

    ``array`` is a read-only uint8 NumPy view, valid until the next iteration;
    ``consumed`` is the position in the (compressed) file, for progress bars.
    The first ``skip`` decompressed bytes are left out (a header already
    parsed). A plain file is memory-mapped; a compressed one is decompressed in
    a background thread, so that overlaps the caller's parsing.
    """
    path = os.fspath(path)
    chunk_bytes = chunk_bytes or CHUNK_BYTES  # read at call time: tests shrink it
    mm = _map_plain(path)
    if mm is not None:
        yield from _mapped_chunks(path, mm, skip, chunk_bytes, progress)
        return
    ready: queue.Queue = queue.Queue(maxsize=1)
    pool: queue.Queue = queue.Queue()
    stop = threading.Event()
    for _ in range(POOL_BUFFERS):
        pool.put(None)  # None: allocated on first use, so small files stay small

    def produce():
        try:
            for item in _chunk_iter(path, skip, chunk_bytes, pool, stop):
                ready.put(item)
            ready.put(None)
        except BaseException as exc:  # handed to the consumer, which re-raises it
            ready.put(exc)

    thread = threading.Thread(target=produce, name="tricount-reader", daemon=True)
    thread.start()
    try:
        while True:
            item = ready.get()
            if item is None:
                return
            if isinstance(item, BaseException):
                raise item
            buf, n, consumed = item
            yield np.frombuffer(buf, dtype=np.uint8, count=n), consumed
            if progress is not None:
                progress(consumed)
            pool.put(buf)
    finally:
        stop.set()
        while thread.is_alive():  # unblock a producer waiting on a full queue or pool
            try:
                ready.get_nowait()
            except queue.Empty:
                pass
            pool.put(None)
            thread.join(timeout=0.05)


def head_bytes(path, n: int) -> bytes:
    """Up to ``n`` decompressed bytes from the start of ``path``."""
    path = os.fspath(path)
    with open_binary(path) as f:
        stream = _Stream(f, path)
        buf = bytearray(n)
        got = stream.fill(memoryview(buf))
        return bytes(buf[:got])
