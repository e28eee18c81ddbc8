"""Numba kernels that turn edge-list text into id arrays and back.

The parser reads one byte at a time and stops at the first malformed line,
reporting an error code, the 1-based line number and the byte offset of the
offending token, so the caller can raise a message naming file and line.
Accepted lines: blank; starting (after blanks) with '#' or '%' (comments);
otherwise two non-negative decimal ids separated by spaces or tabs, then
anything (extra columns are ignored). CR before LF is tolerated.
"""

from __future__ import annotations

import numba
import numpy as np

OK = 0
ERR_NOT_A_NUMBER = 1
ERR_NEGATIVE = 2
ERR_TOO_LARGE = 3
ERR_ONE_COLUMN = 4

_SPACE, _TAB, _LF, _CR = 32, 9, 10, 13
_HASH, _PERCENT, _MINUS, _ZERO = 35, 37, 45, 48
_MAX_ID = np.iinfo(np.int64).max


@numba.njit(inline="always")
def _is_blank(c):
    return c == _SPACE or c == _TAB


@numba.njit(inline="always")
def _ends_token(c):
    return c == _SPACE or c == _TAB or c == _LF or c == _CR


@numba.njit(inline="always")
def _read_id(buf, i, n):
    """Parse the decimal token at ``buf[i]``; return (value, next index, error code)."""
    c = buf[i]
    if c == _MINUS:
        return 0, i, ERR_NEGATIVE
    value = np.int64(0)
    start = i
    while i < n:
        c = buf[i]
        if _ends_token(c):
            break
        d = np.int64(c) - _ZERO
        if d < 0 or d > 9:
            return 0, start, ERR_NOT_A_NUMBER
        if value > (_MAX_ID - d) // 10:
            return 0, start, ERR_TOO_LARGE
        value = value * 10 + d
        i += 1
    return value, i, OK


@numba.njit(cache=True, nogil=True)
def parse_edge_pairs(buf, src, dst):
    """Fill ``src``/``dst`` from edge-list bytes.

    Returns ``(n_edges, error_code, error_line, error_offset)``; on error the
    arrays hold the edges before the bad line. ``src`` and ``dst`` must have
    room for one edge per line.
    """
    n = buf.shape[0]
    i = 0
    line = 1
    m = 0
    while i < n:
        while i < n and _is_blank(buf[i]):
            i += 1
        if i >= n:
            break
        c = buf[i]
        if c == _LF:
            line += 1
            i += 1
            continue
        if c == _CR:
            i += 1
            continue
        if c == _HASH or c == _PERCENT:
            while i < n and buf[i] != _LF:
                i += 1
            continue
        u, i, err = _read_id(buf, i, n)
        if err != OK:
            return m, err, line, i
        while i < n and _is_blank(buf[i]):
            i += 1
        if i >= n or buf[i] == _LF or buf[i] == _CR:
            return m, ERR_ONE_COLUMN, line, i
        v, i, err = _read_id(buf, i, n)
        if err != OK:
            return m, err, line, i
        src[m] = u
        dst[m] = v
        m += 1
        while i < n and buf[i] != _LF:  # extra columns
            i += 1
    return m, OK, line, i


@numba.njit(inline="always")
def _write_id(out, pos, value):
    if value == 0:
        out[pos] = _ZERO
        return pos + 1
    digits = 0
    v = value
    while v > 0:
        digits += 1
        v //= 10
    end = pos + digits
    v = value
    for k in range(end - 1, pos - 1, -1):
        out[k] = _ZERO + v % 10
        v //= 10
    return end


@numba.njit(cache=True, nogil=True)
def format_edge_pairs(src, dst, out):
    """Write ``src[i]<TAB>dst[i]<LF>`` lines into ``out``; return bytes written.

    ``out`` needs 42 bytes per edge (two 19-digit ids, a tab and a newline).
    """
    pos = 0
    for k in range(src.shape[0]):
        pos = _write_id(out, pos, src[k])
        out[pos] = _TAB
        pos = _write_id(out, pos + 1, dst[k])
        out[pos] = _LF
        pos += 1
    return pos
