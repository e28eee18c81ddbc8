"""Rows of non-negative integer ids as tab-separated text, in NumPy alone.

The same bytes as the Numba formatters, :func:`tricount.cpu.text_rows.format_rows`
and :func:`tricount.io._text.format_edge_pairs` (``c0[i] TAB c1[i] ... LF`` per row,
plain decimal), for a process that has not started Numba: the triangles of a small
graph's listing, the edges ``tricount generate`` writes. A few hundred thousand rows
cost less here than Numba's start (about 0.4 s): 262,144 rows of three ids below 10^6
took 55 ms on the 2-core machine (2026-11-26), ca-AstroPh's 1.35 M triangles 0.25 s.
Each id's digit count is found by comparing with the powers of ten; a prefix sum of
the row lengths places every row; then the digits are written from each id's last one
backwards, one vectorised pass per digit place over the ids that still have one.
"""

from __future__ import annotations

import numpy as np

__all__ = ["format_rows_numpy", "takes", "MAX_ROWS"]

#: Rows a writer formats here while Numba has not started, at most. 135-190 ns a row of
#: three ids on the 2-core machine: 4 M rows would take about 0.7 s, 1.35 M (ca-AstroPh)
#: 0.25 s, where Numba's start costs about 0.4 s before its own formatter; past it the
#: writer starts Numba (a NumPy lister's graph may have up to
#: :data:`tricount.cpu.walk_numpy.MAX_WEDGES` triangles).
MAX_ROWS = 1 << 22

_TAB, _LF, _ZERO = 9, 10, 48


def takes(rows: int) -> bool:
    """Whether a writer formats here, ``rows`` being the rows written so far and about to
    be: while Numba has not started, up to :data:`MAX_ROWS`."""
    from tricount._threads import numba_started

    return rows <= MAX_ROWS and not numba_started()


def format_rows_numpy(columns) -> bytes:
    """The ``(n_cols, n_rows)`` non-negative integer ``columns`` as TSV bytes.

    >>> format_rows_numpy(np.array([[0, 10], [7, 123]]))
    b'0\\t7\\n10\\t123\\n'
    """
    columns = np.asarray(columns, dtype=np.int64)
    n_cols, n_rows = columns.shape
    if n_rows == 0:
        return b""
    digits = np.ones(columns.shape, dtype=np.int64)
    top, power = int(columns.max()), 10
    while power <= top:  # ids reach 2^63 - 1 < 10^19: at most 18 passes
        digits += columns >= power
        if power > top // 10:
            break
        power *= 10
    row_length = digits.sum(axis=0) + n_cols  # a TAB after each id but the last, then LF
    ends = np.cumsum(row_length)
    text = np.full(int(ends[-1]), _TAB, dtype=np.uint8)
    text[ends - 1] = _LF
    first = ends - row_length  # where the row's next id starts
    for c in range(n_cols):
        position = first + digits[c] - 1  # the id's last digit
        value, left = columns[c].copy(), digits[c].copy()
        while position.shape[0]:
            text[position] = _ZERO + value % 10
            value //= 10
            left -= 1
            more = left > 0
            position, value, left = position[more] - 1, value[more], left[more]
        first = first + digits[c] + 1
    return text.tobytes()
