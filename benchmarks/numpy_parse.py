"""A prototype of the parse that io could offer without Numba: SNAP text to edge arrays in NumPy.

Not part of tricount: the io package owns parsing (``tricount.io._text``, a Numba kernel
that compiles in 5-10 s on first use). This file shows what a NumPy path would give a
first run after installation, where nothing is compiled yet, and a small file, where
Numba's start-up (0.7 s of CPU on the development machine) costs more than the parse:

    python benchmarks/numpy_parse.py FILE...       # times it beside io's reader, checks both agree

It reads the whole decompressed text into memory (fine for the small files it is
meant for; io would pick it below a size), finds the digit runs with vectorised
comparisons, keeps the first two per line, and raises :class:`Fallback` on anything
it does not handle exactly (a character that is not a digit, blank or newline outside
comment lines; a line with one column; an id of 19 digits or more), where io's own
parser would take over and report the error with its line number. Comment lines start
with ``#`` or ``%``.
"""

from __future__ import annotations

import sys
import time

import numpy as np

__all__ = ["Fallback", "parse_edges_numpy", "read_text"]

_DIGIT = np.zeros(256, dtype=np.bool_)
_DIGIT[48:58] = True
_BLANK = np.zeros(256, dtype=np.bool_)
_BLANK[[9, 10, 13, 32]] = True


class Fallback(Exception):
    """The text needs the full parser (or is malformed: the full parser says where)."""


def read_text(path) -> bytes:
    """The whole decompressed file (gzip, bzip2, xz or plain, by suffix)."""
    import bz2
    import gzip
    import lzma

    opener = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}.get(
        str(path)[str(path).rfind("."):], open)
    with opener(path, "rb") as f:
        return f.read()


def parse_edges_numpy(data: bytes):
    """``(src, dst)`` as int64 arrays of a SNAP edge list's first two columns."""
    buf = np.frombuffer(data, dtype=np.uint8)
    empty = np.zeros(0, dtype=np.int64)
    if buf.size == 0:
        return empty, empty
    is_digit = _DIGIT[buf]
    step = np.diff(is_digit.view(np.int8), prepend=np.int8(0), append=np.int8(0))
    starts, ends = np.flatnonzero(step == 1), np.flatnonzero(step == -1)
    del step
    newlines = np.flatnonzero(buf == 10)
    line_starts = np.concatenate(([0], newlines + 1))
    first = buf[line_starts[line_starts < buf.size]]
    comments = np.flatnonzero((first == 35) | (first == 37))
    others = np.flatnonzero(~(is_digit | _BLANK[buf]))
    del is_digit
    line = np.searchsorted(newlines, starts)
    if others.size and not np.isin(np.searchsorted(newlines, others), comments).all():
        raise Fallback("a character other than digits and blanks outside comments")
    if comments.size:
        keep = ~np.isin(line, comments)
        starts, ends, line = starts[keep], ends[keep], line[keep]
    if starts.size == 0:
        return empty, empty
    new_line = np.empty(starts.size, dtype=np.bool_)
    new_line[0] = True
    np.not_equal(line[1:], line[:-1], out=new_line[1:])
    first_token = np.flatnonzero(new_line)
    if (np.diff(first_token, append=starts.size) < 2).any():
        raise Fallback("a line with one column")
    if 2 * first_token.size != starts.size:  # extra columns: keep the first two
        take = np.empty(2 * first_token.size, dtype=np.int64)
        take[0::2], take[1::2] = first_token, first_token + 1
        starts, ends = starts[take], ends[take]
    length = ends - starts
    longest = int(length.max())
    if longest > 18:
        raise Fallback("an id of 19 digits or more")
    value = buf[starts].astype(np.int64) - 48
    for k in range(1, longest):
        live = np.flatnonzero(length > k)
        value[live] = value[live] * 10 + (buf[starts[live] + k].astype(np.int64) - 48)
    return value[0::2].copy(), value[1::2].copy()


def main(paths) -> int:
    import tricount

    for path in paths:
        data = read_text(path)
        t0 = time.process_time()
        src, dst = parse_edges_numpy(data)
        t1 = time.process_time()
        mine = tricount.Graph.from_edges(src, dst)
        t2 = time.process_time()
        theirs = tricount.load_graph(path)
        same = (np.array_equal(mine.indptr, theirs.indptr)
                and np.array_equal(mine.indices, theirs.indices)
                and np.array_equal(mine.vertex_ids, theirs.vertex_ids))
        print(f"{path}: {len(data)} bytes, {src.size} lines: parse {t1 - t0:.3f} s, "
              f"build {t2 - t1:.3f} s of CPU; same graph as io's: {same}")
        if not same:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
