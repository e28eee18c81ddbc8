"""Rows of non-negative integer ids as tab-separated text, formatted in parallel.

Each row ``i`` of the columns becomes ``c0[i] TAB c1[i] ... LF`` in plain
decimal (no sign, no leading zeros), the text every reader of TSV expects.
Two parallel passes over the rows: the byte length of each row, a prefix sum
for where each row starts, then each row's digits written from its last digit
backwards. The output is the same whatever the thread count.
"""

from __future__ import annotations

import numpy as np

from tricount._threads import load_numba

numba = load_numba()  # Numba, started without its BLAS probe (tricount._threads)

__all__ = ["format_rows"]

_TAB, _LF, _ZERO = 9, 10, 48


@numba.njit(inline="always")
def _n_digits(value):
    n = 1
    while value >= 10:
        value //= 10
        n += 1
    return n


@numba.njit(parallel=True, cache=True, nogil=True)
def _row_lengths(columns, lengths):
    n_cols, n_rows = columns.shape
    for i in numba.prange(n_rows):
        length = n_cols  # one separator after each id: TABs and the final LF
        for c in range(n_cols):
            length += _n_digits(columns[c, i])
        lengths[i] = length


@numba.njit(parallel=True, cache=True, nogil=True)
def _write_rows(columns, ends, out):
    n_cols, n_rows = columns.shape
    for i in numba.prange(n_rows):
        pos = ends[i] - 1
        out[pos] = _LF
        for c in range(n_cols - 1, -1, -1):
            value = columns[c, i]
            while True:  # digits from the last: at least one, for 0
                pos -= 1
                out[pos] = _ZERO + value % 10
                value //= 10
                if value == 0:
                    break
            if c:
                pos -= 1
                out[pos] = _TAB


def format_rows(columns) -> np.ndarray:
    """The TSV bytes (uint8 array) of the rows of ``columns``, a ``(n_cols, k)`` array of
    non-negative int64 ids (row ``i`` of the text holds ``columns[:, i]``).

    >>> bytes(format_rows(np.array([[0, 12], [7, 345]], dtype=np.int64)))
    b'0\\t7\\n12\\t345\\n'
    """
    columns = np.asarray(columns, dtype=np.int64)
    if columns.shape[1] and int(columns.min()) < 0:
        raise ValueError("format_rows writes non-negative ids only")
    lengths = np.empty(columns.shape[1], dtype=np.int64)
    _row_lengths(columns, lengths)
    ends = np.cumsum(lengths)
    out = np.empty(int(ends[-1]) if ends.shape[0] else 0, dtype=np.uint8)
    _write_rows(columns, ends, out)
    return out
