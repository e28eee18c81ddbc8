"""The Numba loops of the bounded-memory build (:mod:`tricount.prep.outofcore`).

Ids arrive as ``uint64`` views (int64 ids are non-negative, so the view keeps
their values and order). A *key* packs one input line as
``(pair << 1) | reversed`` with ``pair = (lo << shift) | hi`` (``shift`` bits
per id) or ``lo * base + hi`` (when two ids do not fit in 63 bits), ``lo < hi``
the line's ends in *table ids* (the ids themselves while they are dense, else
compact ids) and ``reversed = 1`` when the line was written ``hi lo``: the keys
of :mod:`tricount.prep.canonical`. Sorting keys sorts lines by ``(lo, hi)``;
equal keys are repeats of one directed line, equal ``pair`` the two directions
of one undirected edge. A self-loop gets :data:`DROP` (all ones), which no real
key equals (its pair would need ``lo == hi``).

Loops with ``prange`` over threads give thread ``t`` the same share of a chunk
in the counting and the scattering pass, so per-thread cursors never meet.
Every parallel loop runs inside :func:`tricount._threads.parallel_region`
(the caller holds it). :func:`unique_rows` and :func:`add_counts` are serial
and release the GIL: the build runs them on several buckets at once from
Python threads.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from tricount._threads import load_numba

numba = load_numba()  # Numba, started without its BLAS probe (tricount._threads)

#: The key of a self-loop: sorts after every real key and is never stored.
DROP = np.uint64(0xFFFFFFFFFFFFFFFF)


@numba.njit(parallel=True, nogil=True, cache=True)
def chunk_max(src, dst, n_threads):
    """The largest id of a chunk (uint64 views; at least one line)."""
    m = src.shape[0]
    best = np.zeros(n_threads, dtype=np.uint64)
    for t in prange(n_threads):
        top = np.uint64(0)
        for i in range(t * m // n_threads, (t + 1) * m // n_threads):
            top = max(top, src[i], dst[i])
        best[t] = top
    return best.max()


@numba.njit(parallel=True, nogil=True, cache=True)
def survey(src, dst, present, hist, shift, mark):
    """Pass 1 on one chunk: return its self-loops; ``hist[t, lo >> shift] += 1`` for every
    other line of thread ``t``'s share; with ``mark``, ``present[id] = 1`` for both ends.

    ``present`` is shared: a byte is written only while it is 0 (racing stores of
    the same 1), so the hubs' cache lines are read by every thread, not fought over.
    """
    n_threads = hist.shape[0]
    m = src.shape[0]
    loops = np.zeros(n_threads, dtype=np.int64)
    for t in prange(n_threads):
        for i in range(t * m // n_threads, (t + 1) * m // n_threads):
            u, v = src[i], dst[i]
            if mark:
                if present[u] == 0:
                    present[u] = 1
                if present[v] == 0:
                    present[v] = 1
            if u == v:
                loops[t] += 1
            else:
                hist[t, min(u, v) >> shift] += 1
    return loops.sum()


@numba.njit(inline="always")
def _search(sorted_ids, x):
    """The last position whose value is at most ``x`` (``x``'s own, when it is there)."""
    a, b = 0, sorted_ids.shape[0]
    while b - a > 1:
        mid = (a + b) >> 1
        if sorted_ids[mid] <= x:
            a = mid
        else:
            b = mid
    return a


@numba.njit(inline="always")
def _bucket(bounds, bin_bucket, bin_shift, key):
    """The ``b`` with ``bounds[b] <= key < bounds[b + 1]``: looked up by the key's
    histogram bin when buckets are whole bins (``bin_bucket`` not empty), else searched."""
    if bin_bucket.shape[0]:
        return bin_bucket[key >> bin_shift]
    return _search(bounds, key)  # keys stay below the last bound


@numba.njit(parallel=True, nogil=True, cache=True)
def encode(src, dst, search, sorted_ids, shift, base, bounds, bin_bucket, bin_shift, keys,
           counts):
    """Pass 2: ``keys[i]`` for line ``i`` (:data:`DROP` for a loop), and
    ``counts[t, bucket]`` += the keys of thread ``t``'s share in each bucket.

    The ids are table ids, or with ``search`` their positions in ``sorted_ids``.
    ``shift`` > 0 packs by shifting, else by ``base``.
    """
    n_threads = counts.shape[0]
    m = src.shape[0]
    for t in prange(n_threads):
        for i in range(t * m // n_threads, (t + 1) * m // n_threads):
            u, v = src[i], dst[i]
            if u == v:
                keys[i] = DROP
                continue
            if search:
                u, v = np.uint64(_search(sorted_ids, u)), np.uint64(_search(sorted_ids, v))
            lo, hi = min(u, v), max(u, v)
            pair = (lo << shift) | hi if shift > 0 else lo * base + hi
            key = (pair << np.uint64(1)) | np.uint64(u > v)
            keys[i] = key
            counts[t, _bucket(bounds, bin_bucket, bin_shift, key)] += 1


@numba.njit(parallel=True, nogil=True, cache=True)
def route_buckets(keys, bounds, bin_bucket, bin_shift, table, out, write):
    """Over thread ``t``'s share of ``keys`` (loops skipped): count each key in
    ``table[t, bucket]``, or with ``write`` put it at ``out[table[t, bucket]]`` and
    advance that cursor. Both calls split the keys alike, so that cursors set from
    the counts (the lines of earlier threads first) never meet another thread's."""
    n_threads = table.shape[0]
    m = keys.shape[0]
    for t in prange(n_threads):
        for i in range(t * m // n_threads, (t + 1) * m // n_threads):
            k = keys[i]
            if k == DROP:
                continue
            b = _bucket(bounds, bin_bucket, bin_shift, k)
            if write:
                out[table[t, b]] = k
            table[t, b] += 1


@numba.njit(nogil=True, cache=True)
def plan_cuts(hist, target, limit_bin):
    """Buckets of whole bins of ``hist``: ``(first bin of each bucket, its count)``.

    A bucket takes bins while it stays within ``target``; a bin holding more than
    ``target`` is a bucket of its own (so that splitting it again narrows it). No
    bucket starts at or past ``limit_bin``.
    """
    first = np.zeros(hist.shape[0] + 1, dtype=np.int64)
    counts = np.zeros(hist.shape[0] + 1, dtype=np.int64)
    k = 0
    acc = 0
    for b in range(hist.shape[0]):
        h = hist[b]
        if h == 0:
            continue
        if (acc > 0 and acc + h > target) or h > target:
            if first[k] < b < limit_bin:
                counts[k] = acc
                k += 1
                first[k] = b
                acc = 0
        acc += h
        if h > target and first[k] < b + 1 < limit_bin:
            counts[k] = acc
            k += 1
            first[k] = b + 1
            acc = 0
    counts[k] = acc
    return first[: k + 1], counts[: k + 1]


@numba.njit(nogil=True, cache=True)
def unique_rows(keys, count, shift, base, rank, use_rank, out, degree):
    """Sweep one sorted bucket: keep each distinct pair once, as its ``hi``.

    ``keys[:count]`` is sorted. For every distinct pair, in order, ``out[k]`` gets
    its ``hi`` (``rank[hi]`` with ``use_rank``) and ``degree[lo]`` (compact) gains
    one. ``out`` may view the buffer of ``keys``: entry ``k`` is written after key
    ``j >= k`` was read, and lies at or before it. Returns ``(pairs, distinct keys)``:
    the distinct keys are the distinct directed lines.
    """
    mask = (np.uint64(1) << shift) - np.uint64(1)
    pairs = 0
    directed = 0
    prev = DROP
    prev_pair = DROP
    for j in range(count):
        x = keys[j]
        if x == prev:
            continue
        directed += 1
        prev = x
        p = x >> np.uint64(1)
        if p == prev_pair:
            continue
        prev_pair = p
        if shift > 0:
            lo, hi = p >> shift, p & mask
        else:
            lo = p // base
            hi = p - lo * base
        if use_rank:
            lo, hi = np.uint64(rank[lo]), np.uint64(rank[hi])
        out[pairs] = hi
        degree[lo] += 1
        pairs += 1
    return pairs, directed


@numba.njit(nogil=True, cache=True)
def add_counts(ids, counts):
    """``counts[id] += 1`` for every id (serial: one caller at a time per ``counts``)."""
    for i in range(ids.shape[0]):
        counts[ids[i]] += 1


@numba.njit(nogil=True, cache=True)
def unique_sorted(keys):
    """Drop repeats from sorted ``keys`` in place; return how many stay."""
    k = 0
    for j in range(keys.shape[0]):
        if k == 0 or keys[j] != keys[k - 1]:
            keys[k] = keys[j]
            k += 1
    return k


@numba.njit(parallel=True, nogil=True, cache=True)
def key_histogram(keys, low, shift, hist):
    """``hist[t, (key - low) >> shift] += 1`` over thread ``t``'s share (keys >= low)."""
    n_threads = hist.shape[0]
    m = keys.shape[0]
    for t in prange(n_threads):
        for i in range(t * m // n_threads, (t + 1) * m // n_threads):
            hist[t, (keys[i] - low) >> shift] += 1
