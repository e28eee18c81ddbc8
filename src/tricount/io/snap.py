"""SNAP edge lists and GraphChallenge ``*_adj.tsv``: read and write.

One edge per line: a source id, blanks (spaces or tabs), a target id, then
anything (GraphChallenge's weight column, SNAP's timestamps) which is ignored.
Lines starting with ``#`` or ``%`` are comments, anywhere in the file; blank
lines and CRLF line ends are accepted. Ids are any non-negative 64-bit
integers, 0- or 1-based or sparse; ``vertex_ids`` keeps them.

Directedness is never taken from the file's comments (SNAP writes "Directed
graph" on undirected graphs): every line is an undirected edge.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os

import numpy as np

from tricount.errors import GraphFormatError

#: Edges formatted per call when writing; bounds the text buffer to 40 MiB.
WRITE_CHUNK_EDGES = 1 << 20


def read_snap(path, *, progress=None, out=None):
    """Parse a SNAP or GraphChallenge TSV edge list (any compression) into an ``EdgeText``.

    ``out``: the ``EdgeText`` (or a subclass) to fill, else a new one.
    """
    from tricount.io._parse import parse_edge_text  # Numba loads on first use, not on import

    return parse_edge_text(path, progress=progress, out=out)


def open_for_writing(path):
    """Open ``path`` for writing bytes, compressed by its suffix (.gz .bz2 .xz .zst)."""
    path = os.fspath(path)
    if path.endswith(".gz"):
        return gzip.open(path, "wb", compresslevel=6)
    if path.endswith(".bz2"):
        return bz2.open(path, "wb")
    if path.endswith(".xz"):
        return lzma.open(path, "wb")
    if path.endswith((".zst", ".zstd")):
        try:
            import zstandard
        except ImportError:
            raise GraphFormatError(
                path, "writing .zst needs the optional package 'zstandard' "
                      "(pip install zstandard)") from None
        return zstandard.open(path, "wb")
    return open(path, "wb")


def write_snap(path, src, dst, *, comments=()) -> None:
    """Write edges as SNAP text: ``#`` comment lines, then ``src<TAB>dst`` lines.

    A path ending in ``.gz``, ``.bz2``, ``.xz`` or ``.zst`` is compressed.
    """
    from tricount.io._text import format_edge_pairs

    src = np.ascontiguousarray(src, dtype=np.int64)
    dst = np.ascontiguousarray(dst, dtype=np.int64)
    out = np.empty(40 * min(max(src.shape[0], 1), WRITE_CHUNK_EDGES), dtype=np.uint8)
    with open_for_writing(path) as f:
        for line in comments:
            f.write(f"# {line}\n".encode())
        for start in range(0, src.shape[0], WRITE_CHUNK_EDGES):
            stop = start + WRITE_CHUNK_EDGES
            n = format_edge_pairs(src[start:stop], dst[start:stop], out)
            f.write(out[:n].tobytes())
