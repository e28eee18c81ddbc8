"""Read a short decimal token eight bytes at a time (SWAR: SIMD within a register).

The edge-list parser spends most of its time on ids of a few digits.
:func:`short_id` loads the eight bytes at ``buf[i]`` as one little-endian
word (the first byte lowest), finds the first byte that is not a digit, and,
when the token has 1 to 7 digits, converts them with three multiply-add
steps that pair digits, then pairs of pairs, then quads (the byte, 16-bit and
32-bit lanes never carry into each other: 9*10+9, 99*100+99 and 9999*10000+9999
fit their lanes). Anything else (a token of 8+ digits, a sign, fewer than 8
bytes left) returns "not handled" and the byte-by-byte reader decides, so the
fast path can never change what the parser accepts or reports.

No step overflows 64 bits or borrows across bytes, so the same code runs as
plain Python under ``NUMBA_DISABLE_JIT=1`` (where NumPy warns on overflow),
with a Python stand-in for the trailing-zero count.
"""

from __future__ import annotations

import numpy as np

from tricount._threads import load_numba
from tricount.io._grammar import ASCII_ZEROS as _ASCII_ZEROS
from tricount.io._grammar import BIT4 as _BIT4
from tricount.io._grammar import HIGH_NIBBLES as _HIGH_NIBBLES
from tricount.io._grammar import LOW_NIBBLES as _LOW_NIBBLES
from tricount.io._grammar import PAIRS as _PAIRS
from tricount.io._grammar import QUADS as _QUADS
from tricount.io._grammar import SIXES as _SIXES

numba = load_numba()  # Numba, started without its BLAS probe (tricount._threads)

_U = np.uint64
_LOW7 = _U(0x7F7F7F7F7F7F7F7F)
_HIGH_BITS = _U(0x8080808080808080)
_OCTS = _U(0x00000000FFFFFFFF)

if numba.config.DISABLE_JIT:

    def _trailing_zeros(x):
        """Index of the lowest set bit of a non-zero word (plain Python)."""
        x = int(x)
        return (x & -x).bit_length() - 1

else:
    from numba.cpython.unsafe.numbers import trailing_zeros as _trailing_zeros


@numba.njit(inline="always")
def _load_word(buf, i):
    """``buf[i:i+8]`` as a little-endian uint64 (LLVM fuses this into one load)."""
    return (_U(buf[i]) | (_U(buf[i + 1]) << _U(8)) | (_U(buf[i + 2]) << _U(16))
            | (_U(buf[i + 3]) << _U(24)) | (_U(buf[i + 4]) << _U(32))
            | (_U(buf[i + 5]) << _U(40)) | (_U(buf[i + 6]) << _U(48))
            | (_U(buf[i + 7]) << _U(56)))


@numba.njit(inline="always")
def _digit_run(word):
    """Number of leading bytes (0..8) of ``word`` that are ASCII digits."""
    # A byte is a digit when its high nibble is 3 and its low nibble + 6 stays below 16.
    odd = ((word & _HIGH_NIBBLES) ^ _ASCII_ZEROS) | (((word & _LOW_NIBBLES) + _SIXES) & _BIT4)
    flags = (((odd & _LOW7) + _LOW7) | odd) & _HIGH_BITS  # bit 7 of each non-digit byte
    if flags == _U(0):
        return 8
    return np.int64(_trailing_zeros(flags)) >> 3


@numba.njit(inline="always")
def _digits_value(word, k):
    """Value of the first ``k`` (1..7) digit bytes of ``word``."""
    v = (word & _LOW_NIBBLES) << _U(8 * (8 - k))  # the digits, first one in byte 8 - k
    v = (v * _U(10) + (v >> _U(8))) & _PAIRS
    v = (v * _U(100) + (v >> _U(16))) & _QUADS
    v = (v * _U(10000) + (v >> _U(32))) & _OCTS
    return np.int64(v)


@numba.njit(inline="always")
def short_id(buf, i, end):
    """``(value, length)`` of the 1-7 digit token at ``buf[i]``; length 0 if not handled.

    Handled only when 8 bytes are readable and the digits are followed, within
    them, by a blank, CR or LF.
    """
    if i + 8 > end:
        return 0, 0
    word = _load_word(buf, i)
    k = _digit_run(word)
    if k == 0 or k == 8:
        return 0, 0
    after = buf[i + k]
    if after != 32 and after != 9 and after != 10 and after != 13:
        return 0, 0
    return _digits_value(word, k), k
