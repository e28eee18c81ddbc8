"""SNAP edge lists: read and write.

One edge per line: a source id, blanks (spaces or tabs), a target id, then
anything (SNAP's timestamps, a weight) which is ignored. Lines starting with
``#`` or ``%`` are comments, anywhere in the file; blank lines are accepted;
a line ends at LF, CR LF or CR. Ids are any non-negative 64-bit integers,
0- or 1-based or sparse; ``vertex_ids`` keeps them.

Directedness is never taken from the file's comments (SNAP writes "Directed
graph" on undirected graphs): every line is an undirected edge.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import lzma
import os

import numpy as np

from tricount.errors import GraphFormatError, InvalidEdgesError
from tricount.io import text_numpy
from tricount.io._limits import check_file_ids
from tricount.io.output import atomic_output, check_outputs

#: Edges formatted per call when writing; bounds the text buffer to 40 MiB.
WRITE_CHUNK_EDGES = 1 << 20


def read(source, out, *, progress=None):
    """Parse a SNAP edge list into ``out`` (an ``EdgeText``); the vertices are the ids used."""
    from tricount.io._parse import Declared, parse_edge_text  # Numba loads on first use

    parse_edge_text(source, out, progress=progress)
    return Declared()


@contextlib.contextmanager
def compressed_writer(f, name: str):
    """``f`` wrapped in the compressor ``name``'s suffix asks for (.gz .bz2 .xz .zst)."""
    name = os.fspath(name).lower()
    if name.endswith(".gz"):
        w = gzip.GzipFile(fileobj=f, mode="wb", compresslevel=6, mtime=0)
    elif name.endswith(".bz2"):
        w = bz2.BZ2File(f, mode="wb")
    elif name.endswith(".xz"):
        w = lzma.LZMAFile(f, mode="wb", format=lzma.FORMAT_XZ)
    elif name.endswith((".zst", ".zstd")):
        try:
            import zstandard
        except ImportError:
            raise GraphFormatError(name, "writing .zst needs the optional package 'zstandard' "
                                         "(pip install zstandard)") from None
        # Frame checksums, so a reader detects corruption.
        w = zstandard.ZstdCompressor(write_checksum=True).stream_writer(f, closefd=False)
    else:
        yield f
        return
    try:
        yield w
    finally:
        w.close()  # writes the trailer; the file itself stays open


def write_snap(path, src, dst, *, comments=(), inputs=()) -> None:
    """Write edges as SNAP text: ``#`` comment lines, then ``src<TAB>dst`` lines.

    Whole or not at all (:mod:`tricount.io.output`); ``-`` is standard output.
    A path ending in ``.gz``, ``.bz2``, ``.xz`` or ``.zst`` is compressed.
    ``inputs``: paths the output must not be.
    """
    check_outputs([path], inputs)
    if np.asarray(src).dtype.kind not in "iu":  # vertex names
        _write_names(path, src, dst, comments)
        return
    check_file_ids(path, np.asarray(src))
    check_file_ids(path, np.asarray(dst))
    src = np.ascontiguousarray(src, dtype=np.int64)
    dst = np.ascontiguousarray(dst, dtype=np.int64)
    if src.shape[0] and min(int(src.min()), int(dst.min())) < 0:
        raise InvalidEdgesError(f"{path}: a negative vertex id cannot be written to an edge "
                                "list (SNAP ids are non-negative)")
    # While Numba has not started, a small graph's lines are formatted by NumPy (the same
    # bytes): `tricount generate` of a small graph then costs no Numba start.
    if text_numpy.takes(src.shape[0]):
        def lines(a, b):
            return text_numpy.format_rows_numpy(np.stack((a, b)))
    else:
        from tricount.io._text import format_edge_pairs

        out = np.empty(40 * min(max(src.shape[0], 1), WRITE_CHUNK_EDGES), dtype=np.uint8)

        def lines(a, b):
            return out[:format_edge_pairs(a, b, out)]
    with atomic_output(path) as (f, _), compressed_writer(f, path) as w:
        for line in comments:
            w.write(f"# {line}\n".encode())
        for start in range(0, src.shape[0], WRITE_CHUNK_EDGES):
            stop = start + WRITE_CHUNK_EDGES
            w.write(lines(src[start:stop], dst[start:stop]))


def _write_names(path, src, dst, comments) -> None:
    """SNAP text of named vertices: a ``source<TAB>target`` header, then ``name<TAB>name``
    lines. The header keeps a first row of names such as ``src dst`` from being read back
    as one; a name that would not read back as itself is refused: a blank in it (two
    names), a comment mark first, a quote or a comma or semicolon (the reader's
    delimiters), or the look of a number (``007`` would read back as the id 7)."""
    from tricount.io._columns import looks_numeric

    src, dst = np.asarray(src, dtype=object).tolist(), np.asarray(dst, dtype=object).tolist()
    for name in (*src, *dst):
        text = str(name)
        if not text or any(c.isspace() or c in '",;' for c in text) or text[0] in "#%" \
                or looks_numeric(text):
            raise GraphFormatError(path, f"vertex name {text!r} cannot be written to an edge "
                                         "list (a blank, a quote, a comma or semicolon, a "
                                         "comment mark first, or the look of a number: it "
                                         "would not read back as itself); write a CSV table "
                                         "or Parquet instead")
    with atomic_output(path) as (f, _), compressed_writer(f, path) as w:
        for line in comments:
            w.write(f"# {line}\n".encode())
        w.write(b"source\ttarget\n")
        for start in range(0, len(src), WRITE_CHUNK_EDGES):
            rows = zip(src[start:start + WRITE_CHUNK_EDGES], dst[start:start + WRITE_CHUNK_EDGES])
            w.write("".join(f"{u}\t{v}\n" for u, v in rows).encode())
