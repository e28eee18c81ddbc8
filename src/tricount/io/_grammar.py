"""The names of the edge-line grammar, shared without Numba.

The grammar itself is written out in :mod:`tricount.io._text` (the Numba
parser) and read again, for SNAP edge lists, by :mod:`tricount.io.snap_numpy`
(the NumPy parser). Its error codes (METIS's too) and value kinds live here so that the
messages of :mod:`tricount.io._parse` and the NumPy parser can name them
without importing Numba; and the NumPy parser's cap, which ``import tricount`` reads
(through :mod:`tricount.io`) without loading either parser.
"""

from __future__ import annotations

import numpy as np

OK = 0
ERR_NOT_A_NUMBER = 1
ERR_NEGATIVE = 2
ERR_TOO_LARGE = 3
ERR_ONE_COLUMN = 4
ERR_OUT_OF_RANGE = 5
ERR_MISSING_VALUE = 6
ERR_BAD_VALUE = 7
ERR_EXTRA_COLUMN = 8
#: METIS adjacency lines (:mod:`tricount.io.metis`) add their own.
ERR_NEIGHBOUR_RANGE = 10
ERR_TOO_MANY_LINES = 11
ERR_MISSING_WEIGHT = 12
ERR_BAD_NUMBER = 13
ERR_BAD_WEIGHT = 14

#: What follows the two ids of a line: anything (edge lists), nothing (Matrix Market
#: ``pattern``), one integer or one real (Matrix Market ``integer`` / ``real``).
VALUES_IGNORED, VALUES_NONE, VALUES_INTEGER, VALUES_REAL = 0, 1, 2, 3

#: The largest vertex id a text may hold.
MAX_ID = np.iinfo(np.int64).max

#: The bytes the grammar names.
SPACE, TAB, LF, CR = 32, 9, 10, 13
HASH, PERCENT, MINUS, ZERO, PLUS, DOT = 35, 37, 45, 48, 43, 46

#: Eight text bytes as one little-endian 64-bit word, first byte lowest: the masks of the
#: word-at-a-time digit tests and conversions (:mod:`tricount.io._swar`,
#: :mod:`tricount.io.snap_numpy`).
ASCII_ZEROS = np.uint64(0x3030303030303030)
HIGH_NIBBLES = np.uint64(0xF0F0F0F0F0F0F0F0)
LOW_NIBBLES = np.uint64(0x0F0F0F0F0F0F0F0F)
SIXES = np.uint64(0x0606060606060606)
BIT4 = np.uint64(0x1010101010101010)
PAIRS = np.uint64(0x00FF00FF00FF00FF)
QUADS = np.uint64(0x0000FFFF0000FFFF)

#: Text read with NumPy at most (32 MiB); the rest goes to the Numba parser. Below it,
#: holding every line for the NumPy build stays under about 300 MB (a line is 4 bytes at
#: least, 10-12 in the shared graphs: 3 M lines at 100 bytes each), and the NumPy parse
#: (16 ns a byte: 0.55 s at the cap) costs about what Numba's start (0.56 s) and load
#: (6 kernels, 0.07 s) cost before its parse (6 ns a byte on two threads: 0.2 s); past it,
#: Numba's parse is the faster once started (2-core machine, soc-Epinions1, 2026-11-26).
NUMPY_PARSE_MAX_BYTES = 32 << 20
