"""A graph input, opened once and read front to back, whatever it is.

:func:`open_source` accepts a path, ``-`` (standard input), ``/dev/stdin``,
``/dev/fd/N`` (process substitution), a FIFO or a UNIX socket. The input is
opened exactly once; compression is recognised from its first bytes, which
the :class:`Source` keeps and replays to the decompressor, and the first
decompressed bytes are kept too (:meth:`Source.head`, :meth:`Source.peek`),
so detecting the format never reopens or rereads anything: a pipe is read
once like a file.

Compression, by magic number (never by the name):

* gzip ``1f 8b``, bzip2 ``BZh[1-9]``, xz ``fd 37 7a 58 5a 00``: the standard
  library's streaming readers (:class:`gzip.GzipFile`, :class:`bz2.BZ2File`,
  :class:`lzma.LZMAFile`), which read every member of a concatenated file and
  bound their output per call; a stream that ends inside a member is an error
  naming the file (a truncated download).
* zstd ``28 b5 2f fd``: the optional package ``zstandard``. Its decompression
  object is fed :data:`ZSTD_FEED` compressed bytes at a time: a zstd block of
  four bytes can expand to 128 KiB, so one call yields at most
  ``ZSTD_FEED / 4 * 128 KiB`` (128 MiB), never a whole frame (a 64 KiB frame
  of zeros would otherwise become 1.5 GB in one call). Frame checksums are
  verified by libzstd; every frame is read; a frame cut short is an error.

How the bytes are handed out: :meth:`Source.readline` gives header lines
(Matrix Market, METIS), :meth:`Source.chunks` the rest in line-aligned
chunks, :meth:`Source.read_rest` everything left (binary formats). A plain
regular file is memory-mapped and its chunks are views of the page cache (no
copy; measured on a 233 MB edge list, 2026-11-22: parsing took 0.20 s mapped
against 0.27 s copied by a reader thread, which competed with the parser for
the two cores); its size is checked before each chunk, so a file truncated
while it is read is an error rather than a SIGBUS in all but a
microsecond-wide window (the native ``.tcsr`` reader, whose arrays live for
the whole count, copies instead: see :mod:`tricount.io.native`). Anything
else is decompressed or read in a background thread (zlib, bz2, lzma and
zstandard release the GIL) while the caller parses, with at most
:data:`POOL_BUFFERS` chunks alive. Memory stays bounded whatever the size.

A line ends at LF, CR LF, or a CR not followed by LF (old Mac files): chunks
end just after a line end, and never between the CR and the LF of a CR LF.
A UTF-8 byte-order mark at the start is skipped.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import lzma
import mmap
import os
import queue
import socket
import stat
import sys
import threading
import zlib

import numpy as np

from tricount import _std_streams
from tricount.errors import GraphFormatError

#: Decompressed bytes per chunk handed to a parser (16 MiB: 8 MiB per core on the
#: 2-core reference machine, parsed while the next chunk is read).
CHUNK_BYTES = 16 << 20
#: The first streamed chunk's size (256 KiB); each next one doubles, up to ``CHUNK_BYTES``. The
#: parser starts on the first while the reader decompresses the second, so a small
#: compressed file's decompression overlaps its parsing instead of coming before it.
FIRST_CHUNK_BYTES = 1 << 18
#: Bytes read from the input per call.
READ_BYTES = 1 << 20
#: Chunks alive at once: one being filled, one queued, one being parsed.
POOL_BUFFERS = 3
#: A line longer than this is an error rather than an unbounded buffer
#: (a METIS hub with 20 M neighbours still fits).
MAX_LINE_BYTES = 256 << 20
#: Decompressed bytes kept from the start for recognising the format.
SNIFF_BYTES = 1 << 16
#: Compressed bytes given to zstd per call (bounds its output per call, see above).
ZSTD_FEED = 1 << 12
#: Times (of 50 ms) the reader thread is waited for when chunks stop early.
JOIN_TRIES = 20
#: Leading blank bytes examined when looking for the first content (format detection).
MAX_BLANK_PREFIX = 16 << 20

GZIP_MAGIC = b"\x1f\x8b"
BZIP2_MAGIC = b"BZh"
XZ_MAGIC = b"\xfd7zXZ\x00"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
UTF8_BOM = b"\xef\xbb\xbf"
MAGIC_BYTES = 6

COMPRESSION_SUFFIXES = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz", ".zst": "zstd",
                        ".zstd": "zstd"}
#: What ``-`` reads and how errors name it.
STDIN_NAMES = ("-",)
#: Paths that name standard input itself (refused when the process started without it).
STDIN_PATHS = ("/dev/stdin", "/dev/fd/0", "/proc/self/fd/0")
_LF, _CR = 10, 13


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


class _ReadFailure(Exception):
    """An OS error reading the input, carried through a decompressor untouched."""

    def __init__(self, exc: OSError):
        super().__init__(exc.strerror or str(exc))


class _Replay(io.RawIOBase):
    """The raw input with the bytes already read for sniffing put back in front.

    Counts the raw bytes handed out (:attr:`consumed`), for progress bars and
    the bound on how much a compressed input may expand.
    """

    def __init__(self, prefix: bytes, raw):
        self._prefix = prefix
        self._raw = raw
        self.consumed = 0

    def readable(self) -> bool:
        return True

    def readinto(self, view) -> int:
        if self._prefix:
            k = min(len(view), len(self._prefix))
            view[:k] = self._prefix[:k]
            self._prefix = self._prefix[k:]
            self.consumed += k
            return k
        try:
            n = self._raw.readinto(view)
        except OSError as exc:
            raise _ReadFailure(exc) from None
        n = n or 0
        self.consumed += n
        return n


class _ZstdReader(io.RawIOBase):
    """zstd frames decompressed ZSTD_FEED compressed bytes at a time (see module doc)."""

    def __init__(self, raw, zstandard):
        self._raw = raw
        self._zstd = zstandard
        self._dctx = zstandard.ZstdDecompressor()
        self._obj = None
        self._in = b""
        self._out = memoryview(b"")  # the last piece decompressed, handed out from _at
        self._at = 0
        self._eof = False

    def readable(self) -> bool:
        return True

    def readinto(self, view) -> int:
        while self._at >= len(self._out):
            if not self._more():
                return 0
        k = min(len(view), len(self._out) - self._at)
        view[:k] = self._out[self._at: self._at + k]
        self._at += k
        return k

    def _more(self) -> bool:
        """Decompress the next bounded piece into ``_out``; False at the end of the data."""
        while True:
            if not self._in and not self._eof:
                self._in = self._raw.read(READ_BYTES)
                self._eof = not self._in
            if not self._in:
                if self._obj is not None:  # inside a frame, and no more input
                    raise EOFError("the stream ends inside a zstd frame")
                return False
            if self._obj is None:
                if not self._in.strip(b"\x00"):  # zero padding after the last frame
                    self._in = b""
                    continue
                self._obj = self._dctx.decompressobj()
            feed = ZSTD_FEED  # read at call time: tests shrink it
            piece, self._in = self._in[:feed], self._in[feed:]
            out = self._obj.decompress(piece)
            if self._obj.eof:  # a frame ended: the rest of the piece starts the next
                self._in = self._obj.unused_data + self._in
                self._obj = None
            if out:
                self._out = memoryview(out)
                self._at = 0
                return True


def _zstandard(path):
    try:
        import zstandard
    except ImportError:
        raise GraphFormatError(
            path, "is zstd-compressed; reading it needs the optional package 'zstandard' "
                  '(pip install zstandard, or pip install ".[io]" from a tricount clone)') from None
    return zstandard


def _decompressor(kind, replay, path):
    """A streaming reader of ``replay``'s decompressed bytes."""
    if kind == "gzip":
        return gzip.GzipFile(fileobj=replay, mode="rb")
    if kind == "bzip2":
        return bz2.BZ2File(replay, mode="rb")
    if kind == "xz":
        return lzma.LZMAFile(replay, mode="rb", format=lzma.FORMAT_XZ)
    return io.BufferedReader(_ZstdReader(replay, _zstandard(path)), READ_BYTES)


def _display(path) -> str:
    if isinstance(path, int):
        return f"<fd {path}>"
    path = os.fspath(path)
    return "<stdin>" if path in STDIN_NAMES else path


def _open_raw(path):
    """``(file object, stat)`` of the input, opened once; OS failures as GraphFormatError."""
    shown = _display(path)
    try:
        if isinstance(path, int) or os.fspath(path) in STDIN_NAMES:
            if not isinstance(path, int) and (sys.stdin is None
                                              or _std_streams.was_closed(0)):
                raise GraphFormatError(shown, "standard input is closed; give a file, or "
                                              "redirect the graph into it")
            fd = os.dup(path if isinstance(path, int) else sys.stdin.fileno())
            f = open(fd, "rb", buffering=0)
        else:
            path = os.fspath(path)
            if path in STDIN_PATHS and _std_streams.was_closed(0):
                raise GraphFormatError(shown, "standard input is closed; give a file, or "
                                              "redirect the graph into it")
            if os.path.isdir(path):
                raise GraphFormatError(shown, "is a directory, expected a graph file")
            try:
                info = os.stat(path)
            except OSError:
                info = None
            if info is not None and stat.S_ISSOCK(info.st_mode):
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                sock.connect(path)
                f = sock.makefile("rb", buffering=0)
                sock.close()  # the file object keeps the connection
                return f, info
            f = open(path, "rb", buffering=0)
        return f, os.fstat(f.fileno())
    except GraphFormatError:
        raise
    except FileNotFoundError:
        raise GraphFormatError(shown, "no such file") from None
    except PermissionError:
        raise GraphFormatError(shown, "permission denied: cannot read the file") from None
    except (OSError, ValueError) as exc:
        raise GraphFormatError(shown, f"cannot read the file: "
                                      f"{getattr(exc, 'strerror', None) or exc}") from None


def check_readable(path) -> None:
    """Raise the reader's :class:`GraphFormatError` for a path it could not open (missing,
    a folder, not readable), reading nothing: for a file that someone else reads later (a
    Dask worker). Standard input and anything not a regular file (a FIFO would lose what
    an open took) pass unchecked."""
    if isinstance(path, int) or os.fspath(path) in STDIN_NAMES:
        return
    try:
        info = os.stat(path)
    except OSError:
        info = None  # _open_raw says why
    if info is None or stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode):
        f, _ = _open_raw(path)
        f.close()


def _read_full(f, n: int) -> bytes:
    """Up to ``n`` bytes, fewer only at the end (a pipe may hand them one by one)."""
    parts, got = [], 0
    while got < n:
        part = f.read(n - got)
        if not part:
            break
        parts.append(part)
        got += len(part)
    return b"".join(parts)


def line_end(data, start: int, end: int) -> int:
    """Index just past the last line end in ``data[start:end]``, or -1 if none.

    ``data[end]`` (when it exists) decides whether a CR at ``end - 1`` is the
    first half of a CR LF; the caller passes ``end == len(data)`` only at the
    end of the data.
    """
    lf = data.rfind(b"\n", start, end)
    cr = data.rfind(b"\r", max(lf + 1, start), end)
    if cr < 0:
        return lf + 1 if lf >= 0 else -1
    if cr + 1 < end or end >= len(data):  # a lone CR, or the data's last byte
        return cr + 1
    if data[end] == _LF:  # a CR LF split by ``end``: the line ends after the LF
        return end + 1
    return cr + 1


class Source:
    """An input opened once: name, size, compression, and its bytes front to back.

    :func:`open_source` gives it as a context manager (or call :meth:`close`).
    ``path`` is the name errors use (``<stdin>`` for ``-``); ``size`` the bytes of a regular file
    (compressed size when compressed), None for a stream; ``identity`` the
    ``(device, inode)`` pair of what was opened, so outputs can refuse to be it.
    """

    def __init__(self, path):
        self.path = _display(path)
        self._f, info = _open_raw(path)
        self.identity = (info.st_dev, info.st_ino)
        self.regular = stat.S_ISREG(info.st_mode)
        self.size = info.st_size if self.regular else None
        self.line = 0  # line ends consumed by readline
        self._mm = None
        self._buf = bytearray()  # decompressed bytes kept, from stream offset _base
        self._base = 0
        self._pos = 0  # current position in the decompressed data
        self._eof = False
        try:
            self._start()
        except BaseException:
            self.close()
            raise

    def _start(self) -> None:
        try:
            magic = _read_full(self._f, MAGIC_BYTES)
        except OSError as exc:
            raise GraphFormatError(self.path, f"cannot read the file: {exc.strerror or exc}") \
                from None
        self.compression = compression_of(magic)
        self._replay = _Replay(magic, self._f)
        if self.compression is None and self.regular and self.size:
            try:
                self._mm = mmap.mmap(self._f.fileno(), 0, access=mmap.ACCESS_READ)
            except (OSError, ValueError):  # a file system without mmap: stream it
                self._mm = None
        if self._mm is None:
            self._stream = (self._replay if self.compression is None
                            else _decompressor(self.compression, self._replay, self.path))
        if self.peek(3) == UTF8_BOM:
            self._pos = 3

    # -- lifetime ---------------------------------------------------------------------

    def close(self) -> None:
        if self._mm is not None:
            try:
                self._mm.close()
            except BufferError:  # a caller still holds a view: the map goes with it
                pass
            self._mm = None
        if self._f is not None:
            self._f.close()
            self._f = None

    # -- what was read so far ---------------------------------------------------------

    @property
    def consumed(self) -> int:
        """Input bytes read so far (compressed bytes for a compressed input)."""
        return self._pos if self._mm is not None else self._replay.consumed

    @property
    def position(self) -> int:
        """Decompressed bytes before the next unread byte."""
        return self._pos

    def head(self) -> bytes:
        """Up to SNIFF_BYTES decompressed bytes from the start (BOM excluded)."""
        return self.peek(SNIFF_BYTES)

    def peek(self, n: int) -> bytes:
        """Up to ``n`` bytes from the current position, not consumed."""
        if self._mm is not None:
            return self._mm[self._pos: self._pos + n]
        self._fill_to(self._pos + n)
        a = self._pos - self._base
        return bytes(self._buf[a: a + n])

    def first_content(self, n: int = 64) -> bytes:
        """Up to ``n`` bytes after any leading blanks and line ends (for format detection).

        Looks at most MAX_BLANK_PREFIX bytes ahead; nothing is consumed.
        """
        blanks = b" \t\r\n"
        look = SNIFF_BYTES
        while True:
            data = self.peek(look)
            rest = data.lstrip(blanks)
            if rest or len(data) < look or look >= MAX_BLANK_PREFIX:
                return rest[:n]
            look *= 4

    # -- reading ----------------------------------------------------------------------

    def _read_stream(self, view) -> int:
        try:
            return self._stream.readinto(view)
        except _ReadFailure as exc:
            raise GraphFormatError(self.path, f"cannot read the file: {exc}") from None
        except EOFError:
            raise GraphFormatError(
                self.path, f"truncated {self.compression} data: the compressed stream ends "
                           "before its end-of-stream marker (an incomplete download or copy?)"
            ) from None
        except (OSError, zlib.error, lzma.LZMAError, ValueError) as exc:
            raise self._corrupt(exc) from None
        except Exception as exc:  # zstandard.ZstdError
            if type(exc).__module__.startswith("zstandard"):
                raise self._corrupt(exc) from None
            raise

    def _corrupt(self, exc) -> GraphFormatError:
        kind = self.compression or "input"
        return GraphFormatError(self.path, f"corrupt {kind} data ({exc}); expected a valid "
                                           f"{kind} stream")

    def _fill_to(self, stop: int) -> None:
        """Keep decompressed bytes up to offset ``stop`` (or to the end) in ``_buf``."""
        while self._base + len(self._buf) < stop and not self._eof:
            # At least a sniff's worth, not READ_BYTES: a zeroed 1 MiB piece per peek was
            # a third of a small file's load (karate.txt.gz, 2026-11-26).
            want = min(max(stop - self._base - len(self._buf), SNIFF_BYTES), CHUNK_BYTES)
            piece = bytearray(want)
            got = self._read_stream(memoryview(piece))
            if not got:
                self._eof = True
            self._buf += piece[:got]

    def _drop_consumed(self) -> None:
        if self._pos - self._base > (1 << 20):
            del self._buf[: self._pos - self._base]
            self._base = self._pos

    def readline(self):
        """The next line (bytes, without its end) or None at the end; counts :attr:`line`."""
        data, start = (self._mm, self._pos) if self._mm is not None else (None, None)
        if data is None:
            self._drop_consumed()
            look = self._pos + 4096
            while True:
                self._fill_to(look)
                a = self._pos - self._base
                end = _first_line_end(self._buf, a)
                if end >= 0 or self._eof:
                    break
                if len(self._buf) - a > MAX_LINE_BYTES:
                    raise self._long_line()
                look = self._base + 2 * len(self._buf) + 4096
            data, start = self._buf, a
        end = _first_line_end(data, start)
        if end < 0:  # the last line, without an end
            if start >= len(data):
                return None
            end = stop = len(data)
        else:
            crlf = data[end - 1] == _LF and end - 2 >= start and data[end - 2] == _CR
            stop = end - 2 if crlf else end - 1
        if end - start > MAX_LINE_BYTES:
            raise self._long_line()
        line = bytes(data[start:stop])
        self._pos += end - start
        self.line += 1
        return line

    def _long_line(self, line: int | None = None) -> GraphFormatError:
        return GraphFormatError(self.path, f"a line is longer than {_bytes(MAX_LINE_BYTES)}; "
                                           "expected one edge, entry or adjacency list per line",
                                line=self.line + 1 if line is None else line)

    def read_rest(self):
        """Every decompressed byte from the current position on (consumes the source).

        A memoryview of the map for a mapped file (no copy), else bytes.
        """
        if self._mm is not None:
            data = memoryview(self._mm)[self._pos:]
        else:
            self._fill_to(1 << 62)
            data = bytes(self._buf[self._pos - self._base:])
            self._buf = bytearray()
            self._base = self._pos + len(data)
        self._pos += len(data)
        return data

    def skip(self, n: int) -> None:
        """Move ``n`` bytes forward (at most to the end)."""
        if self._mm is None:
            self._fill_to(self._pos + n)
            n = min(n, self._base + len(self._buf) - self._pos)
        else:
            n = min(n, len(self._mm) - self._pos)
        self._pos += n

    def pread_into(self, view, offset: int) -> int:
        """Read a plain regular file's bytes at ``offset`` into ``view`` (not mapped: a file
        truncated meanwhile gives a short count, not SIGBUS). Returns the bytes read."""
        got = 0
        fd = self._f.fileno()
        while got < len(view):
            try:
                n = os.preadv(fd, [view[got:]], offset + got)
            except OSError as exc:
                raise GraphFormatError(self.path, f"cannot read the file: "
                                                  f"{exc.strerror or exc}") from None
            if n == 0:
                break
            got += n
        return got

    @property
    def mapped(self) -> bool:
        """True for a plain regular file (read through a memory map, or by pread_into)."""
        return self._mm is not None

    def chunks(self, *, chunk_bytes: int | None = None, progress=None):
        """Yield ``(array, consumed)`` for each line-aligned chunk from the current position.

        ``array`` is a read-only uint8 NumPy view, valid until the next
        iteration; ``consumed`` the input bytes read so far (for progress bars).
        """
        chunk_bytes = chunk_bytes or CHUNK_BYTES  # read at call time: tests shrink it
        if self._mm is not None:
            yield from self._mapped_chunks(chunk_bytes, progress)
        else:
            yield from self._streamed_chunks(chunk_bytes, progress)

    def _check_size(self) -> None:
        """A mapped file must not have shrunk (reading past its end would be SIGBUS)."""
        try:
            size = os.fstat(self._f.fileno()).st_size
        except OSError:
            size = len(self._mm)
        if size < len(self._mm):
            raise GraphFormatError(self.path, f"the file shrank from {len(self._mm)} to {size} "
                                              "bytes while it was read; read it again once "
                                              "it is complete")

    def _mapped_chunks(self, chunk_bytes, progress):
        """Views of the map. Pages behind the parser are dropped from the process as it
        goes (they stay in the page cache): the resident set grows by about one chunk."""
        mm = self._mm
        size = len(mm)
        data = np.frombuffer(mm, dtype=np.uint8)
        advise = hasattr(mm, "madvise")
        released = 0
        try:
            if advise:
                mm.madvise(mmap.MADV_SEQUENTIAL)  # read ahead further
            while self._pos < size:
                pos = self._pos
                end = min(pos + chunk_bytes, size)
                # Before the map is searched for the chunk's last line end: a file truncated
                # since then would raise SIGBUS on the first page past its new end.
                self._check_size()
                if end < size:
                    cut = line_end(mm, pos, end)
                    if cut < 0:  # one line longer than a chunk: take it whole (bounded)
                        cut = _first_line_end(mm, end)
                        cut = size if cut < 0 else cut
                        if cut - pos > MAX_LINE_BYTES:  # the line that starts at pos
                            raise self._long_line(_lines_before(data, pos) + 1)
                    end = cut
                self._check_size()
                yield data[pos:end], end
                self._pos = end
                if progress is not None:
                    progress(end)
                done = end - end % mmap.PAGESIZE
                if advise and done > released:
                    mm.madvise(mmap.MADV_DONTNEED, released, done - released)
                    released = done
        finally:
            del data

    def _streamed_chunks(self, chunk_bytes, progress):
        pool: queue.Queue = queue.Queue()
        stop = threading.Event()
        for _ in range(POOL_BUFFERS):
            pool.put(None)  # None: allocated on first use, so small inputs stay small
        kept = memoryview(bytes(self._buf[self._pos - self._base:]))
        self._buf = bytearray()
        if self._eof:
            # Everything left is decompressed already (a small input, read whole while it
            # was sniffed): no reader thread, whose start and hand-offs were most of a small
            # file's load (karate.txt.gz: 2.4 of 4.8 ms on the 2-core machine).
            items = self._fill_chunks(kept, chunk_bytes, pool, stop)
        else:
            items = self._read_ahead(kept, chunk_bytes, pool, stop)
        try:
            for buf, n, consumed in items:
                yield np.frombuffer(buf, dtype=np.uint8, count=n), consumed
                self._pos += n
                if progress is not None:
                    progress(consumed)
                pool.put(buf)
        finally:
            items.close()
            self._base = self._pos

    def _read_ahead(self, kept, chunk_bytes, pool, stop):
        """:meth:`_fill_chunks`'s items, produced by a reader thread one chunk ahead (reading
        and decompressing the next chunk while the caller parses this one)."""
        ready: queue.Queue = queue.Queue(maxsize=1)

        def produce():
            try:
                for item in self._fill_chunks(kept, chunk_bytes, pool, stop):
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
                yield item
        finally:
            stop.set()
            # Unblock a producer waiting on a full queue or pool. One blocked reading a
            # silent pipe (Ctrl-C while waiting for input) is left behind: a daemon, it
            # ends with the process or when close() closes its file.
            for _ in range(JOIN_TRIES):
                if not thread.is_alive():
                    break
                try:
                    ready.get_nowait()
                except queue.Empty:
                    pass
                pool.put(None)
                thread.join(timeout=0.05)

    def _fill_chunks(self, kept, chunk_bytes, pool, stop):
        """Yield ``(bytearray, n_valid, consumed)``; each ends after a line end or at EOF.

        ``kept``: bytes already decompressed (by peek), handed out first.
        """
        carry = b""
        target = min(FIRST_CHUNK_BYTES, chunk_bytes)
        while not stop.is_set():
            size = max(target, 2 * len(carry))
            target = min(2 * target, chunk_bytes)
            if self._eof:  # all that is left is in hand: no larger buffer (nor its zeroing)
                size = min(size, len(carry) + len(kept) + 1)
            buf = pool.get()
            if buf is None or len(buf) < size:
                buf = bytearray(size)
            buf[: len(carry)] = carry
            n = len(carry)
            view = memoryview(buf)
            if kept:
                k = min(size - n, len(kept))
                view[n:n + k] = kept[:k]
                kept = kept[k:]
                n += k
            while n < size and not self._eof:
                got = self._read_stream(view[n:size])
                if not got:
                    self._eof = True
                n += got
            del view
            if n < size:  # end of data: the last line may lack its end
                if n:
                    yield buf, n, self._replay.consumed
                return
            cut = line_end(buf, 0, n - 1)  # the last byte decides a CR LF on the next read
            if cut <= 0:  # no line end yet: grow the carried line (bounded)
                if n >= MAX_LINE_BYTES:
                    raise GraphFormatError(
                        self.path, f"a line is longer than {_bytes(MAX_LINE_BYTES)}; expected "
                                   "one edge, entry or adjacency list per line")
                carry = bytes(buf[:n])
                pool.put(buf)
                continue
            carry = bytes(buf[cut:n])
            yield buf, cut, self._replay.consumed


def _first_line_end(data, start: int) -> int:
    """Index just past the first line end at or after ``start``, or -1."""
    lf = data.find(b"\n", start)
    cr = data.find(b"\r", start, lf if lf >= 0 else len(data))
    if cr < 0:
        return lf + 1 if lf >= 0 else -1
    if cr + 1 < len(data) and data[cr + 1] == _LF:
        return cr + 2
    if cr + 1 == len(data):  # unknown yet whether an LF follows
        return -1 if lf < 0 else cr + 1
    return cr + 1


def _bytes(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n} bytes"


def _lines_before(data: np.ndarray, pos: int) -> int:
    """Line ends in ``data[:pos]`` (bytes of a map), counted in pieces: an error's line
    number, where the chunks are parsed without counting lines."""
    step = 1 << 26
    return sum(int(np.count_nonzero(data[a:min(a + step, pos)] == 0x0A))
               for a in range(0, pos, step))


def open_source(path):
    """Open ``path`` (a path, ``-`` for standard input, or a file descriptor) once: a
    context manager giving the :class:`Source`, closed on leaving."""
    return contextlib.closing(Source(path))
