"""Numba kernels that turn edge-list text into id arrays, and id arrays into text.

:func:`parse_chunk` splits a buffer of whole lines into one piece per thread at
line starts and parses the pieces in parallel into scratch arrays, each piece
stopping at its first malformed line and counting the line ends it passed. The
first bad piece in file order decides the error, and its line is the line ends
of the pieces before it plus its own, so the reported line is the one a
sequential reader would report. :func:`gather_pieces` then packs the pieces'
edges into arrays of the final (narrowest) dtype.

A line ends at LF, at CR LF, or at a CR not followed by LF (the buffers never
split a CR LF: :func:`tricount.io.source.line_end`). Accepted lines: blank;
starting (after blanks) with ``#`` or ``%`` (comments); otherwise two
non-negative decimal ids (at most 2**63-1, leading zeros allowed) separated by
spaces or tabs, then, by ``value_kind``:

* ``VALUES_IGNORED`` (edge lists): anything, ignored;
* ``VALUES_NONE`` (Matrix Market ``pattern``): nothing but blanks;
* ``VALUES_INTEGER`` / ``VALUES_REAL`` (Matrix Market ``integer`` / ``real``):
  one value of that kind (``-3``; ``1.5e-3``, ``.5``, ``2``), then nothing.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from tricount._threads import load_numba
from tricount.io._grammar import (ERR_BAD_VALUE, ERR_EXTRA_COLUMN, ERR_MISSING_VALUE,
                                  ERR_NEGATIVE, ERR_NOT_A_NUMBER, ERR_ONE_COLUMN,
                                  ERR_OUT_OF_RANGE, ERR_TOO_LARGE, MAX_ID, OK, VALUES_IGNORED,
                                  VALUES_INTEGER, VALUES_NONE, VALUES_REAL)
from tricount.io._grammar import CR as _CR, DOT as _DOT, HASH as _HASH, LF as _LF
from tricount.io._grammar import MINUS as _MINUS, PERCENT as _PERCENT, PLUS as _PLUS
from tricount.io._grammar import SPACE as _SPACE, TAB as _TAB, ZERO as _ZERO
from tricount.io._swar import short_id

numba = load_numba()  # Numba, started without its BLAS probe (tricount._threads)

#: Pieces smaller than this are parsed by one thread (thread start-up costs more).
MIN_PIECE_BYTES = 1 << 16


@numba.njit(inline="always")
def _is_blank(c):
    return c == _SPACE or c == _TAB


@numba.njit(inline="always")
def _ends_token(c):
    return c == _SPACE or c == _TAB or c == _LF or c == _CR


@numba.njit(cache=True, nogil=True)
def _exact_id(buf, start, end):
    """Slow path for tokens of 19+ digits: (value, error) with leading zeros allowed."""
    value = np.int64(0)
    for i in range(start, end):
        d = np.int64(buf[i]) - _ZERO
        if value > (MAX_ID - d) // 10:
            return 0, ERR_TOO_LARGE
        value = value * 10 + d
    return value, OK


@numba.njit(inline="always")
def _read_id(buf, i, end):
    """Parse the decimal token at ``buf[i]``: (value, next index, error code)."""
    short, k = short_id(buf, i, end)  # 1-7 digits and a separator: eight bytes at once
    if k:
        return short, i + k, OK
    if buf[i] == _MINUS and i + 1 < end and _ZERO <= buf[i + 1] <= _ZERO + 9:
        return 0, i, ERR_NEGATIVE
    start = i
    value = np.int64(0)
    # Up to 18 digits cannot overflow int64; longer tokens take the exact path.
    while i < end:
        c = buf[i]
        if c < _ZERO or c > _ZERO + 9:
            break
        if i - start < 18:
            value = value * 10 + (np.int64(c) - _ZERO)
        i += 1
    if i == start or (i < end and not _ends_token(buf[i])):
        return 0, start, ERR_NOT_A_NUMBER
    if i - start > 18:
        exact, err = _exact_id(buf, start, i)
        if err != OK:
            return 0, start, err
        return exact, i, OK
    return value, i, OK


@numba.njit(inline="always")
def _checked_id(buf, i, end, id_min, id_max):
    """``(value, next index, error, error offset)`` of the id at ``buf[i]``, which must lie
    in ``id_min .. id_max``."""
    value, j, err = _read_id(buf, i, end)
    if err != OK:
        return value, j, err, j
    if value < id_min or value > id_max:
        return value, j, ERR_OUT_OF_RANGE, i
    return value, j, OK, i


@numba.njit(inline="always")
def _plain_line(buf, i, end, id_min, max_src, max_dst):
    """``(u, v, end of v)`` of a line ``u<blanks>v...`` of short in-range ids at ``buf[i]``.

    The end is -1 when the line is anything else; the general loop then reads
    it (and reports its error), so this shortcut never changes a result.
    """
    u, k = short_id(buf, i, end)
    if k == 0:
        return 0, 0, -1
    j = i + k  # short_id saw buf[j], a blank, CR or LF
    if buf[j] != _TAB and buf[j] != _SPACE:
        return 0, 0, -1
    j += 1
    while j < end and _is_blank(buf[j]):
        j += 1
    if j == end:
        return 0, 0, -1
    v, k = short_id(buf, j, end)
    if k == 0 or u < id_min or u > max_src or v < id_min or v > max_dst:
        return 0, 0, -1
    return u, v, j + k


@numba.njit(inline="always")
def _at_line_end(buf, i, end):
    return i == end or buf[i] == _LF or buf[i] == _CR


@numba.njit(inline="always")
def _after_line_end(buf, i, end):
    """Index after the line end at ``buf[i]`` (LF, CR LF or CR); ``i`` when ``i == end``."""
    if i < end:
        if buf[i] == _CR and i + 1 < end and buf[i + 1] == _LF:
            return i + 2
        return i + 1
    return i


@numba.njit(inline="always")
def _starts_line(buf, pos):
    """True when a line starts at ``buf[pos]`` (0 < pos < len): after an LF or a lone CR."""
    c = buf[pos - 1]
    return c == _LF or (c == _CR and buf[pos] != _LF)


@numba.njit(inline="always")
def _digits_end(buf, i, end):
    while i < end and _ZERO <= buf[i] <= _ZERO + 9:
        i += 1
    return i


@numba.njit(cache=True, nogil=True)
def _value_end(buf, i, end, real):
    """End of the integer (or, with ``real``, decimal number) token at ``buf[i]``; -1 if
    the token is not one (``-3``, ``+7``; ``1.5``, ``.5``, ``2.``, ``1e-3``, ``1.5D+2``)."""
    if i < end and (buf[i] == _MINUS or buf[i] == _PLUS):
        i += 1
    start = i
    i = _digits_end(buf, i, end)
    digits = i - start
    if real:
        if i < end and buf[i] == _DOT:
            k = _digits_end(buf, i + 1, end)
            digits += k - i - 1
            i = k
        if digits and i < end and (buf[i] | 32 == 101 or buf[i] | 32 == 100):  # E e D d
            i += 1
            if i < end and (buf[i] == _MINUS or buf[i] == _PLUS):
                i += 1
            k = _digits_end(buf, i, end)
            if k == i:
                return -1
            i = k
    if digits == 0 or not (i == end or _ends_token(buf[i])):
        return -1
    return i


@numba.njit(cache=True, nogil=True)
def parse_piece(buf, start, end, src, dst, out, id_min, max_src, max_dst, value_kind):
    """Parse the lines of ``buf[start:end]`` into ``src[out:]`` and ``dst[out:]``.

    Returns ``(n_edges, error, newlines_before_error, error_offset, max_id)``.
    ``src``/``dst`` need room for one edge per line of the piece.
    """
    i = start
    line = 0
    m = 0
    max_id = np.int64(-1)
    while i < end:
        c = buf[i]
        if value_kind == VALUES_IGNORED and _ZERO <= c <= _ZERO + 9:
            u, v, j = _plain_line(buf, i, end, id_min, max_src, max_dst)
            if j >= 0:  # the common line, read in one go; anything else goes below
                src[out + m] = u
                dst[out + m] = v
                m += 1
                max_id = max(max_id, u, v)
                while j < end and buf[j] != _LF and buf[j] != _CR:  # extra columns
                    j += 1
                i = _after_line_end(buf, j, end)
                line += i > j
                continue
        while c == _SPACE or c == _TAB:
            i += 1
            if i == end:
                break
            c = buf[i]
        if i == end:
            break
        if c == _LF:
            line += 1
            i += 1
            continue
        if c == _CR:
            i = _after_line_end(buf, i, end)
            line += 1
            continue
        if c == _HASH or c == _PERCENT:
            while i < end and buf[i] != _LF and buf[i] != _CR:
                i += 1
            continue
        u, i, err, at = _checked_id(buf, i, end, id_min, max_src)
        if err != OK:
            return m, err, line, at, max_id
        while i < end and _is_blank(buf[i]):
            i += 1
        if _at_line_end(buf, i, end):
            return m, ERR_ONE_COLUMN, line, i, max_id
        v, i, err, at = _checked_id(buf, i, end, id_min, max_dst)
        if err != OK:
            return m, err, line, at, max_id
        if value_kind != VALUES_IGNORED:
            while i < end and _is_blank(buf[i]):
                i += 1
            if value_kind != VALUES_NONE:
                if _at_line_end(buf, i, end):
                    return m, ERR_MISSING_VALUE, line, i, max_id
                j = _value_end(buf, i, end, value_kind == VALUES_REAL)
                if j < 0:
                    return m, ERR_BAD_VALUE, line, i, max_id
                i = j
                while i < end and _is_blank(buf[i]):
                    i += 1
            if not _at_line_end(buf, i, end):
                return m, ERR_EXTRA_COLUMN, line, i, max_id
        src[out + m] = u
        dst[out + m] = v
        m += 1
        if u > max_id:
            max_id = u
        if v > max_id:
            max_id = v
        while i < end and buf[i] != _LF and buf[i] != _CR:  # extra columns
            i += 1
    return m, OK, line, i, max_id


@numba.njit(cache=True, nogil=True)
def _piece_bounds(buf, n_pieces):
    """Split ``buf`` into ``n_pieces`` ranges that start at line starts."""
    n = buf.shape[0]
    bounds = np.empty(n_pieces + 1, dtype=np.int64)
    bounds[0] = 0
    for p in range(1, n_pieces):
        pos = max(p * n // n_pieces, bounds[p - 1], 1)
        while pos < n and not _starts_line(buf, pos):
            pos += 1
        bounds[p] = pos
    bounds[n_pieces] = n
    return bounds


def scratch_size(n_bytes: int, n_pieces: int) -> int:
    """Room :func:`parse_chunk` needs: a line with an edge has at least 4 bytes ("0 0\n")."""
    return n_bytes // 4 + 2 * n_pieces + 2


@numba.njit(parallel=True, nogil=True, cache=True)
def parse_chunk(buf, n_pieces, scratch_src, scratch_dst, id_min, max_src, max_dst,
                value_kind):
    """Parse a buffer of whole lines, one piece per thread, into the scratch arrays.

    Piece ``p`` writes at ``offsets[p]``, room for one edge per 4 bytes, so no
    counting pass is needed; untouched scratch pages are never faulted in.
    Returns ``(offsets, counts, newlines, error, error_line, error_offset, max_id)``
    with ``error_line`` 0-based within the buffer.
    """
    bounds = _piece_bounds(buf, n_pieces)
    offsets = np.zeros(n_pieces + 1, dtype=np.int64)
    for p in range(n_pieces):
        offsets[p + 1] = offsets[p] + (bounds[p + 1] - bounds[p]) // 4 + 2
    counts = np.zeros(n_pieces, dtype=np.int64)
    errs = np.zeros(n_pieces, dtype=np.int64)
    err_lines = np.zeros(n_pieces, dtype=np.int64)
    err_offsets = np.zeros(n_pieces, dtype=np.int64)
    maxes = np.zeros(n_pieces, dtype=np.int64)
    for p in prange(n_pieces):
        m, err, line, offset, mx = parse_piece(buf, bounds[p], bounds[p + 1], scratch_src,
                                               scratch_dst, offsets[p], id_min, max_src,
                                               max_dst, value_kind)
        counts[p] = m
        errs[p] = err
        err_lines[p] = line
        err_offsets[p] = offset
        maxes[p] = mx
    max_id = np.int64(-1)
    newlines = 0  # a piece parsed to its end has counted every newline in it
    for p in range(n_pieces):
        if errs[p] != OK:  # the first bad piece in file order decides
            return (offsets, counts, newlines, errs[p], newlines + err_lines[p],
                    err_offsets[p], max_id)
        newlines += err_lines[p]
        max_id = max(max_id, maxes[p])
    return offsets, counts, newlines, OK, 0, 0, max_id


@numba.njit(parallel=True, nogil=True, cache=True)
def gather_pieces(scratch_src, scratch_dst, offsets, counts, out_src, out_dst):
    """Copy each piece's edges from scratch into ``out`` (narrowing the dtype)."""
    n_pieces = counts.shape[0]
    starts = np.zeros(n_pieces, dtype=np.int64)
    for p in range(1, n_pieces):
        starts[p] = starts[p - 1] + counts[p - 1]
    for p in prange(n_pieces):
        a = offsets[p]
        b = starts[p]
        for j in range(counts[p]):
            out_src[b + j] = scratch_src[a + j]
            out_dst[b + j] = scratch_dst[a + j]


def pieces_for(n_bytes: int) -> int:
    """Pieces to split a buffer into: one per thread, none smaller than MIN_PIECE_BYTES."""
    return max(1, min(numba.get_num_threads(), n_bytes // MIN_PIECE_BYTES))


@numba.njit(cache=True, nogil=True)
def nth_entry_line(buf, k):
    """0-based line of the ``k``-th (0-based) entry line of ``buf``; -1 if fewer.

    An entry line is one that is neither blank nor a comment (as parse_piece reads them).
    """
    n = buf.shape[0]
    i = 0
    line = 0
    seen = 0
    while i < n:
        while i < n and _is_blank(buf[i]):
            i += 1
        if i == n:
            break
        c = buf[i]
        if c != _LF and c != _CR and c != _HASH and c != _PERCENT:
            if seen == k:
                return line
            seen += 1
        while i < n and buf[i] != _LF and buf[i] != _CR:
            i += 1
        if i < n:
            i = _after_line_end(buf, i, n)
            line += 1
    return -1


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

    ``out`` needs 40 bytes per edge (two 19-digit ids, a tab and a newline).
    """
    pos = 0
    for k in range(src.shape[0]):
        pos = _write_id(out, pos, src[k])
        out[pos] = _TAB
        pos = _write_id(out, pos + 1, dst[k])
        out[pos] = _LF
        pos += 1
    return pos
