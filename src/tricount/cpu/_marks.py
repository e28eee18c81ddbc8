"""An anchor's marks, as a byte map or a bitmap: one kernel source for both.

The bitmap counters mark the out-neighbours of one anchor and test the candidates
against the marks. A byte a vertex makes a test one load and an add; a bit a vertex
makes it a load, two shifts and a mask, but keeps the map eight times smaller. On
the 2-core development machine (2026-11-27, the count kernel on one thread, every
index unsigned) the byte map was 15-20 % faster from ca-HepPh (12 K vertices) to
R-MAT 18 (174 K), and 2.5 % slower at R-MAT 20-21 (0.65-1.2 M vertices), where the
byte map no longer stays in the core's cache: :func:`new_marks` takes bytes up to
:data:`BYTE_MAP_MAX_VERTICES` and bits past it.

:func:`set_mark`, :func:`clear_mark` and :func:`is_marked` take either map and a
vertex id as an unsigned integer (``np.uint64``: Numba then drops the wrap-around
test of a negative index, which cost the count kernel a third of its time). In a
kernel Numba compiles one specialisation per map, each cached on disk; with
``NUMBA_DISABLE_JIT`` they are plain Python that looks at the map's dtype.
"""

from __future__ import annotations

import numpy as np

from tricount._threads import load_numba

numba = load_numba()  # Numba, started without its BLAS probe (tricount._threads)

__all__ = ["new_marks", "set_mark", "clear_mark", "is_marked", "mark_row", "clear_row",
           "BYTE_MAP_MAX_VERTICES", "SHORT_PROBE"]

#: The most vertices marked by bytes (1 MiB a map); bits past it.
BYTE_MAP_MAX_VERTICES = 1 << 20
#: A probed range of at most this many entries is probed as this many loads, those past
#: its end masked out (the bitmap counter's ``_probe``): no loop whose exit depends on the
#: range's length, which mispredicts on graphs of many short out-lists of varied lengths.
#: The one pass on the 2-core development machine (2026-11-27): the same graph counted 300
#: times, ca-HepTh 0.28 -> 0.12 ms, polblogs 0.22 -> 0.14, ppi 0.75 -> 0.71, but ca-GrQc
#: 0.068 -> 0.076 and oregon1_010331 0.083 -> 0.095 (a predictor trained on one graph);
#: seven small graphs counted in turn, 25 rounds, 3 processes each: 3-10 % faster on six
#: (ca-HepTh 0.39-0.40 -> 0.36 ms), level on jazz. 2 and 8 were worse on ca-HepTh.
SHORT_PROBE = 4

_SIX = np.uint64(6)
_LOW = np.uint64(63)
_ONE = np.uint64(1)


def new_marks(n_vertices: int, maps: int | None = None) -> np.ndarray:
    """Clean marks for ``n_vertices`` vertices: one map, or ``maps`` of them (a 2-D array,
    a row a worker)."""
    if n_vertices <= BYTE_MAP_MAX_VERTICES:
        size, dtype = max(n_vertices, 1), np.uint8
    else:
        size, dtype = -(-n_vertices // 64), np.uint64
    return np.zeros(size if maps is None else (maps, size), dtype=dtype)


def set_mark(marks, w):
    """Mark vertex ``w``."""
    if marks.dtype == np.uint8:
        marks[w] = 1
    else:
        marks[w >> _SIX] |= _ONE << (w & _LOW)


def clear_mark(marks, w):
    """Clear the mark of vertex ``w`` (a bitmap clears ``w``'s whole word: the caller
    clears every mark it set)."""
    if marks.dtype == np.uint8:
        marks[w] = 0
    else:
        marks[w >> _SIX] = 0


def is_marked(marks, w):
    """1 if vertex ``w`` is marked, else 0 (an int64, to be added up)."""
    if marks.dtype == np.uint8:
        return np.int64(marks[w])
    return np.int64((marks[w >> _SIX] >> (w & _LOW)) & _ONE)


if not numba.config.DISABLE_JIT:
    from numba import types
    from numba.extending import overload

    @overload(set_mark, inline="always")
    def _set_mark(marks, w):
        if marks.dtype == types.uint8:
            def mark_byte(marks, w):
                marks[w] = 1

            return mark_byte

        def mark_bit(marks, w):
            marks[w >> _SIX] |= _ONE << (w & _LOW)

        return mark_bit

    @overload(clear_mark, inline="always")
    def _clear_mark(marks, w):
        if marks.dtype == types.uint8:
            def clear_byte(marks, w):
                marks[w] = 0

            return clear_byte

        def clear_word(marks, w):
            marks[w >> _SIX] = 0

        return clear_word

    @overload(is_marked, inline="always")
    def _is_marked(marks, w):
        if marks.dtype == types.uint8:
            return lambda marks, w: np.int64(marks[w])
        return lambda marks, w: np.int64((marks[w >> _SIX] >> (w & _LOW)) & _ONE)


@numba.njit(inline="always")
def mark_row(marks, out, begin, end):
    """Mark ``out[begin:end]``, one anchor's out-neighbours."""
    for k in range(begin, end):
        set_mark(marks, np.uint64(out[np.uint64(k)]))


@numba.njit(inline="always")
def clear_row(marks, out, begin, end):
    """Clear the marks :func:`mark_row` set."""
    for k in range(begin, end):
        clear_mark(marks, np.uint64(out[np.uint64(k)]))
