"""SNAP-style edge lists: read and write, plain or gzip-compressed."""

from __future__ import annotations

import gzip
import os
import zlib

import numpy as np

from tricount.errors import GraphFormatError

GZIP_MAGIC = b"\x1f\x8b"
UTF8_BOM = b"\xef\xbb\xbf"
#: Edges formatted per call when writing; bounds the text buffer to ~44 MB.
WRITE_CHUNK_EDGES = 1 << 20

_MESSAGES = {
    1: "expected a non-negative integer vertex id, found {token!r}",
    2: "vertex ids must be non-negative, found {token!r}",
    3: "vertex id {token!r} is larger than 2**63-1",
    4: "expected two vertex ids (source and target), found one column",
}


def read_bytes(path) -> bytes:
    """The file's bytes, gunzipped when it starts with the gzip magic number."""
    path = os.fspath(path)
    if os.path.isdir(path):
        raise GraphFormatError(path, "is a directory, expected a graph file")
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise GraphFormatError(path, "no such file") from None
    except PermissionError:
        raise GraphFormatError(path, "permission denied: cannot read the file") from None
    except OSError as exc:
        raise GraphFormatError(path, f"cannot read the file: {exc.strerror or exc}") from None
    if data[:2] == GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (EOFError, OSError, zlib.error) as exc:
            raise GraphFormatError(path, f"corrupt or truncated gzip data ({exc})") from None
    return data


def parse_snap(data: bytes, path=None):
    """Parse SNAP edge-list bytes into ``(src, dst)`` int64 arrays."""
    from tricount.io._text import parse_edge_pairs

    if data.startswith(UTF8_BOM):
        data = data[len(UTF8_BOM):]
    buf = np.frombuffer(data, dtype=np.uint8)
    capacity = int(np.count_nonzero(buf == 10)) + 1
    src = np.empty(capacity, dtype=np.int64)
    dst = np.empty(capacity, dtype=np.int64)
    m, err, line, offset = parse_edge_pairs(buf, src, dst)
    if err:
        token = _token_at(data, offset)
        raise GraphFormatError(path, _MESSAGES[err].format(token=token), line=line)
    return src[:m].copy(), dst[:m].copy()


def _token_at(data: bytes, offset: int) -> str:
    end = offset
    while end < len(data) and end - offset < 40 and data[end] not in b" \t\r\n":
        end += 1
    return data[offset:end].decode("utf-8", errors="replace")


def read_snap(path):
    """Read a SNAP edge list (plain or .gz) into ``(src, dst)`` int64 arrays."""
    return parse_snap(read_bytes(path), path)


def write_snap(path, src, dst, *, comments=()) -> None:
    """Write edges as SNAP text: ``#`` comment lines, then ``src<TAB>dst`` lines.

    A path ending in ``.gz`` is gzip-compressed.
    """
    from tricount.io._text import format_edge_pairs

    src = np.ascontiguousarray(src, dtype=np.int64)
    dst = np.ascontiguousarray(dst, dtype=np.int64)
    path = os.fspath(path)
    opener = gzip.open if path.endswith(".gz") else open
    out = np.empty(42 * min(max(src.shape[0], 1), WRITE_CHUNK_EDGES), dtype=np.uint8)
    with opener(path, "wb") as f:
        for line in comments:
            f.write(f"# {line}\n".encode())
        for start in range(0, src.shape[0], WRITE_CHUNK_EDGES):
            stop = start + WRITE_CHUNK_EDGES
            n = format_edge_pairs(src[start:stop], dst[start:stop], out)
            f.write(out[:n].tobytes())
