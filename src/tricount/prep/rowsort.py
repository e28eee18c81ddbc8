"""Sort the rows of a bucketed edge list and keep each row's distinct neighbours.

Input: ``vals[indptr[r]:indptr[r+1]]`` holds row ``r``'s lines as keys
``(hi << 1) | reversed`` in any order (``reversed`` says the line was written
``hi lo``). Output, per row: its distinct ``hi`` values, increasing, written
left-packed as ``rank[hi]`` (the compact id) or ``hi`` itself when there is no
rank table (each part of rows packs its rows one after another from the
part's first position), the row's distinct count in ``degree[r]``, and the
number of distinct keys, which are the distinct directed lines. ``rank`` is
increasing, so it keeps the order; looking it up here, in sorted order, costs
less than at scatter time, in random order.

Which sort a row gets depends on its length ``L`` (rows of a power-law graph
range from one entry to a large share of all lines):

* ``L <= INSERTION_SORT_MAX``: insertion sort, in place;
* up to ``RADIX_SORT_MIN``: NumPy's introsort on the slice;
* longer: least-significant-digit radix sort between the row and a scratch
  buffer, with ``SMALL_DIGIT_BITS`` digits below ``LARGE_DIGIT_MIN`` entries (their
  histograms cost little to clear and scan) and ``LARGE_DIGIT_BITS`` above.

Distinct keys and distinct ``hi`` are then counted in the same scan of the
sorted row, which writes the distinct ``hi`` straight to their packed place:
rows only move left, so packing in place never overwrites an unread entry.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from tricount._threads import load_numba
from tricount.prep._parallel import insertion_sort

numba = load_numba()  # Numba, started without its BLAS probe (tricount._threads)

#: Rows up to this long are sorted by insertion (no call, no recursion).
INSERTION_SORT_MAX = 32
#: Rows at least this long are radix sorted. Measured on R-MAT scale 20
#: (2026-11-22, 2-core Xeon; thresholds 24-64 all within 7% of each other):
#: 7-bit digits beat introsort from about 48 entries.
RADIX_SORT_MIN = 48
#: Digit widths: a 128-entry histogram for rows below LARGE_DIGIT_MIN entries
#: (three passes over 21-bit keys), a 2048-entry one, still in L1, above.
SMALL_DIGIT_BITS = 7
LARGE_DIGIT_BITS = 11
LARGE_DIGIT_MIN = 4096


@numba.njit(inline="always")
def _radix_pass(src, s0, dst, d0, n, shift, mask, count):
    """Stable scatter of ``src[s0:s0+n]`` into ``dst[d0:d0+n]`` by digit ``(x >> shift) & mask``."""
    count[: mask + 1] = 0
    for j in range(s0, s0 + n):
        count[(np.int64(src[j]) >> shift) & mask] += 1
    total = 0
    for k in range(mask + 1):
        c = count[k]
        count[k] = total
        total += c
    for j in range(s0, s0 + n):
        x = src[j]
        digit = (np.int64(x) >> shift) & mask
        dst[d0 + count[digit]] = x
        count[digit] += 1


@numba.njit(nogil=True, cache=True)
def _radix_sort(vals, a, b, tmp, count, key_bits):
    """LSD radix sort of ``vals[a:b]`` (keys below ``2**key_bits``).

    Returns True when the sorted keys ended in ``tmp[:b - a]`` (an odd number
    of passes), False when they are back in ``vals[a:b]``.
    """
    n = b - a
    bits = SMALL_DIGIT_BITS if n < LARGE_DIGIT_MIN else LARGE_DIGIT_BITS
    mask = (1 << bits) - 1
    in_tmp = False
    shift = 0
    while shift < key_bits:
        if in_tmp:
            _radix_pass(tmp, 0, vals, a, n, shift, mask, count)
        else:
            _radix_pass(vals, a, tmp, 0, n, shift, mask, count)
        in_tmp = not in_tmp
        shift += bits
    return in_tmp


@numba.njit(inline="always")
def _emit_distinct(src, a, b, vals, w, rank, use_rank):
    """Scan sorted keys ``src[a:b]``; write distinct ``hi`` (``rank[hi]`` with
    ``use_rank``) to ``vals[w:]``.

    Returns ``(distinct hi, distinct keys)``. With ``src`` being ``vals``,
    ``w <= a`` keeps every write at or behind the read.
    """
    k = 0
    directed = 0
    prev = -1
    prev_hi = -1
    for j in range(a, b):
        x = np.int64(src[j])
        if x != prev:  # a new directed line
            directed += 1
            prev = x
            h = x >> 1
            if h != prev_hi:  # a new undirected edge
                vals[w + k] = rank[h] if use_rank else h
                k += 1
                prev_hi = h
    return k, directed


@numba.njit(nogil=True, cache=True)
def _dedupe_part(indptr, vals, degree, first, last, key_bits, rank, use_rank):
    """Rows ``first .. last-1``: sort, keep distinct, pack from ``indptr[first]``.

    Returns ``(entries written, distinct directed lines)``.
    """
    longest = 0
    for r in range(first, last):
        longest = max(longest, indptr[r + 1] - indptr[r])
    tmp = np.empty(longest if longest >= RADIX_SORT_MIN else 0, dtype=vals.dtype)
    count = np.empty(1 << LARGE_DIGIT_BITS, dtype=np.int64)
    directed = 0
    w = indptr[first]
    for r in range(first, last):
        a, b = indptr[r], indptr[r + 1]
        if b - a >= RADIX_SORT_MIN and _radix_sort(vals, a, b, tmp, count, key_bits):
            k, d = _emit_distinct(tmp, 0, b - a, vals, w, rank, use_rank)
        else:
            if b - a <= INSERTION_SORT_MAX:
                insertion_sort(vals, a, b)
            elif b - a < RADIX_SORT_MIN:
                vals[a:b].sort()
            k, d = _emit_distinct(vals, a, b, vals, w, rank, use_rank)
        degree[r] = k
        directed += d
        w += k
    return w - indptr[first], directed


@numba.njit(parallel=True, nogil=True, cache=True)
def dedupe_rows(indptr, vals, degree, row_split, key_bits, written, rank, use_rank):
    """Sort and dedupe every row; part ``p`` (rows ``row_split[p] .. row_split[p+1]``)
    packs its distinct ``hi`` from ``indptr[row_split[p]]`` and says how many in
    ``written[p]``. Returns the distinct directed lines.
    """
    n_parts = row_split.shape[0] - 1
    directed = np.zeros(n_parts, dtype=np.int64)
    for p in prange(n_parts):
        k, d = _dedupe_part(indptr, vals, degree, row_split[p], row_split[p + 1], key_bits,
                            rank, use_rank)
        written[p] = k
        directed[p] = d
    return directed.sum()


def row_split(indptr, n_parts):
    """Row boundaries giving each part about the same number of entries."""
    total = int(indptr[-1])
    targets = (np.arange(1, n_parts) * total) // n_parts
    inner = np.searchsorted(indptr, targets, side="left")
    return np.concatenate([[0], inner, [indptr.shape[0] - 1]]).astype(np.int64)


def pack_parts(indptr, vals, split, written) -> int:
    """Move each part's packed block left so that the blocks abut; return the total."""
    out = 0
    for p in range(split.shape[0] - 1):
        start, k = int(indptr[split[p]]), int(written[p])
        if start != out and k:
            vals[out: out + k] = vals[start: start + k]  # NumPy copies overlaps safely
        out += k
    return out
