"""Parsed edge chunks -> :class:`~tricount.CSRGraph`, in O(lines) time and bounded memory.

This is the loaders' CPU fast path to the same canonical graph that
:func:`tricount.prep.canonical.canonical_edges` builds (a test checks they agree
array for array). Instead of one sort of 64-bit keys it uses a counting sort:

1. compact ids: a rank table over ``0 .. max_id`` when ids are dense, else a
   hash table over the sorted distinct ids (``vertex_ids`` stay increasing);
2. count each non-loop line in the row of its smaller endpoint, one
   histogram per thread over its share of the lines;
3. scatter ``(hi << 1) | reversed`` into those rows; thread ``t`` scans every
   line but writes only rows of its own range, so no two threads touch a row
   and no atomics are needed;
4. sort each row (rows are short: O(lines log max_degree) in all) and keep
   distinct values: distinct ``(hi, reversed)`` are distinct directed lines,
   distinct ``hi`` are the undirected edges, as in ``canonical_edges``;
5. pack the rows into ``indices`` (and the COO ``rows``) of the index dtype.

The parsed chunks are never concatenated: peak memory is the chunks (8 bytes a
line while ids fit in int32) plus the row buffer (4 bytes a line) plus
O(vertices).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from tricount.errors import UnsupportedGraphError
from tricount.graph import CSRGraph
from tricount.prep.canonical import MAX_VERTICES
from tricount.prep.xp import index_dtype

#: Use a rank table over 0..max_id when it has at most this many entries per
#: parsed line (4 bytes an entry), else hash the distinct ids.
DENSE_TABLE_ENTRIES_PER_LINE = 1
#: Below this many ids a rank table is always used (it costs at most 4 MiB).
DENSE_TABLE_MIN = 1 << 20
_EMPTY = -1


def narrow(ids):
    """``ids`` as int32 when every value fits (halves the memory of parsed chunks)."""
    if ids.dtype == np.int32:
        return ids
    if ids.shape[0] == 0 or int(ids.max()) <= np.iinfo(np.int32).max:
        return ids.astype(np.int32)
    return ids


# -- 1. compact ids -----------------------------------------------------------------------

@numba.njit(parallel=True, nogil=True, cache=True)
def _mark(src, dst, table):
    for i in prange(src.shape[0]):
        table[src[i]] = 1  # racing writes store the same value
        table[dst[i]] = 1


@numba.njit(nogil=True, cache=True)
def _rank_in_place(table, vertex_ids):
    """Turn presence flags into ranks (compact ids); fill ``vertex_ids``."""
    n = 0
    for i in range(table.shape[0]):
        if table[i]:
            table[i] = n
            vertex_ids[n] = i
            n += 1


@numba.njit(parallel=True, nogil=True, cache=True)
def _remap_dense(ids, table):
    for i in prange(ids.shape[0]):
        ids[i] = table[ids[i]]


@numba.njit(inline="always")
def _hash(key, mask):
    # splitmix64 finaliser: spreads sequential and strided ids over the table.
    z = np.uint64(key) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return np.int64((z ^ (z >> np.uint64(31))) & np.uint64(mask))


@numba.njit(nogil=True, cache=True)
def _hash_build(vertex_ids, keys, values):
    mask = keys.shape[0] - 1
    for rank in range(vertex_ids.shape[0]):
        key = vertex_ids[rank]
        h = _hash(key, mask)
        while keys[h] != _EMPTY:
            h = (h + 1) & mask
        keys[h] = key
        values[h] = rank


@numba.njit(parallel=True, nogil=True, cache=True)
def _remap_hash(ids, keys, values):
    mask = keys.shape[0] - 1
    for i in prange(ids.shape[0]):
        key = np.int64(ids[i])
        h = _hash(key, mask)
        while keys[h] != key:  # every id is present: the probe ends
            h = (h + 1) & mask
        ids[i] = values[h]


def compact_chunks(chunks, max_id: int):
    """Relabel every chunk in place to ``0 .. n-1``; return ``vertex_ids`` (sorted)."""
    n_lines = sum(s.shape[0] for s, _ in chunks)
    if n_lines == 0:
        return np.zeros(0, dtype=np.int64)
    if max_id + 1 <= max(DENSE_TABLE_MIN, DENSE_TABLE_ENTRIES_PER_LINE * n_lines):
        table = np.zeros(max_id + 1, dtype=np.int32 if max_id < 2**31 else np.int64)
        for s, d in chunks:
            _mark(s, d, table)
        n = int(np.count_nonzero(table))
        vertex_ids = np.empty(n, dtype=np.int64)
        _rank_in_place(table, vertex_ids)
        if n == max_id + 1:  # ids already compact: the identity
            return vertex_ids
        for s, d in chunks:
            _remap_dense(s, table)
            _remap_dense(d, table)
        return vertex_ids
    distinct = [np.unique(np.concatenate([s, d])) for s, d in chunks]
    vertex_ids = np.unique(np.concatenate(distinct)).astype(np.int64)
    del distinct
    size = 1 << max(4, int(2 * vertex_ids.shape[0]).bit_length())
    keys = np.full(size, _EMPTY, dtype=np.int64)
    values = np.empty(size, dtype=np.int32 if vertex_ids.shape[0] < 2**31 else np.int64)
    _hash_build(vertex_ids, keys, values)
    for s, d in chunks:
        _remap_hash(s, keys, values)
        _remap_hash(d, keys, values)
    return vertex_ids


# -- 2. row counts ------------------------------------------------------------------------

@numba.njit(parallel=True, nogil=True, cache=True)
def _count_rows(src, dst, base, counts):
    """Add each non-loop line to ``counts[t, min(u, v)]``; return the loops seen."""
    n_threads = counts.shape[0]
    m = src.shape[0]
    loops = np.zeros(n_threads, dtype=np.int64)
    for t in prange(n_threads):
        for i in range(t * m // n_threads, (t + 1) * m // n_threads):
            u = np.int64(src[i]) - base
            v = np.int64(dst[i]) - base
            if u == v:
                loops[t] += 1
            else:
                counts[t, min(u, v)] += 1
    return loops.sum()


# -- 3. scatter ---------------------------------------------------------------------------

@numba.njit(parallel=True, nogil=True, cache=True)
def _scatter(src, dst, base, cursor, vals):
    """Write ``(hi << 1) | (u > v)`` at ``cursor[t, lo]`` for the lines of thread t.

    Thread t takes the same share of lines as in :func:`_count_rows`, so its
    cursors (offset by the lines earlier threads put in each row) never meet
    another thread's.
    """
    n_threads = cursor.shape[0]
    m = src.shape[0]
    for t in prange(n_threads):
        for i in range(t * m // n_threads, (t + 1) * m // n_threads):
            u = np.int64(src[i]) - base
            v = np.int64(dst[i]) - base
            if u < v:
                vals[cursor[t, u]] = (v << 1)
                cursor[t, u] += 1
            elif v < u:
                vals[cursor[t, v]] = (u << 1) | 1
                cursor[t, v] += 1


# -- 4. sort rows, drop repeats -----------------------------------------------------------

#: Rows up to this long are sorted by insertion (no call, no recursion).
INSERTION_SORT_MAX = 24
#: Rows at least this long are radix sorted (measured on R-MAT scale 20,
#: 2026-11-22: 64-128 beat both quicksort and 256+).
RADIX_SORT_MIN = 96
#: Bits per radix-sort digit: a 2048-entry histogram stays in L1.
RADIX_BITS = 11


@numba.njit(inline="always")
def _insertion_sort(vals, a, b):
    for j in range(a + 1, b):
        x = vals[j]
        k = j - 1
        while k >= a and vals[k] > x:
            vals[k + 1] = vals[k]
            k -= 1
        vals[k + 1] = x


@numba.njit(nogil=True, cache=True)
def _radix_sort(vals, a, b, tmp, count, key_bits):
    """LSD radix sort of ``vals[a:b]`` (keys below 2**key_bits); ``tmp`` holds b - a."""
    n = b - a
    mask = (1 << RADIX_BITS) - 1
    in_vals = True  # which buffer holds the keys now
    shift = 0
    while shift < key_bits:
        count[:] = 0
        if in_vals:
            for j in range(a, b):
                count[(np.int64(vals[j]) >> shift) & mask] += 1
        else:
            for j in range(n):
                count[(np.int64(tmp[j]) >> shift) & mask] += 1
        total = 0
        for k in range(count.shape[0]):
            c = count[k]
            count[k] = total
            total += c
        if in_vals:
            for j in range(a, b):
                x = vals[j]
                digit = (np.int64(x) >> shift) & mask
                tmp[count[digit]] = x
                count[digit] += 1
        else:
            for j in range(n):
                x = tmp[j]
                digit = (np.int64(x) >> shift) & mask
                vals[a + count[digit]] = x
                count[digit] += 1
        in_vals = not in_vals
        shift += RADIX_BITS
    if not in_vals:
        for j in range(n):
            vals[a + j] = tmp[j]


@numba.njit(nogil=True, cache=True)
def _dedupe_range(indptr, vals, degree, first, last, key_bits):
    longest = 0
    for r in range(first, last):
        longest = max(longest, indptr[r + 1] - indptr[r])
    tmp = np.empty(longest if longest >= RADIX_SORT_MIN else 0, dtype=vals.dtype)
    count = np.empty(1 << RADIX_BITS, dtype=np.int64)
    directed = 0
    for r in range(first, last):
        a, b = indptr[r], indptr[r + 1]
        if b - a <= INSERTION_SORT_MAX:
            _insertion_sort(vals, a, b)
        elif b - a >= RADIX_SORT_MIN:
            _radix_sort(vals, a, b, tmp, count, key_bits)
        else:
            vals[a:b].sort()
        k = 0
        prev = -1
        prev_hi = -1
        for j in range(a, b):
            x = np.int64(vals[j])
            if x != prev:  # a new directed line
                directed += 1
                prev = x
            h = x >> 1
            if h != prev_hi:  # a new undirected edge
                vals[a + k] = h
                k += 1
                prev_hi = h
        degree[r] = k
    return directed


@numba.njit(parallel=True, nogil=True, cache=True)
def _dedupe_rows(indptr, vals, degree, row_split, key_bits):
    """Sort each row; keep its distinct ``hi`` at its start; return distinct directed lines.

    Thread t takes the rows of ``row_split[t] .. row_split[t+1]`` (equal lines, not
    equal rows: smaller ids own more lines, since a line lives in its min's row).
    """
    n_parts = row_split.shape[0] - 1
    directed = np.zeros(n_parts, dtype=np.int64)
    for t in prange(n_parts):
        directed[t] = _dedupe_range(indptr, vals, degree, row_split[t], row_split[t + 1],
                                    key_bits)
    return directed.sum()


# -- 5. pack ------------------------------------------------------------------------------

@numba.njit(nogil=True, cache=True)
def _pack_in_place(raw_indptr, vals, indptr):
    """Move each row's distinct ids to ``indptr[r]``: left moves, so one pass in order."""
    n = indptr.shape[0] - 1
    for r in range(n):
        a = raw_indptr[r]
        out = indptr[r]
        if a != out:
            for j in range(indptr[r + 1] - out):
                vals[out + j] = vals[a + j]


@numba.njit(parallel=True, nogil=True, cache=True)
def _fill_rows(indptr, rows):
    """COO row of every stored entry."""
    for r in prange(indptr.shape[0] - 1):
        for j in range(indptr[r], indptr[r + 1]):
            rows[j] = r


def _row_split(indptr, n_threads):
    """Row boundaries giving each thread about the same number of lines."""
    total = int(indptr[-1])
    targets = (np.arange(1, n_threads) * total) // n_threads
    inner = np.searchsorted(indptr, targets, side="left")
    return np.concatenate([[0], inner, [indptr.shape[0] - 1]]).astype(np.int64)


def build_graph(chunks, *, max_id: int, n_vertices: int | None = None, id_base: int = 0,
                name=None) -> CSRGraph:
    """The canonical graph of edge ``chunks`` (a list of ``(src, dst)`` id arrays).

    With ``n_vertices`` the ids are ``id_base .. id_base + n_vertices - 1`` (checked
    by the caller) and every one of them is a vertex, isolated or not; the
    chunks are left untouched. Otherwise the vertices are the ids that occur,
    and the chunks are relabelled in place.
    """
    if n_vertices is None:
        vertex_ids = compact_chunks(chunks, max_id)
        n = int(vertex_ids.shape[0])
        base = 0
    else:
        n = int(n_vertices)
        vertex_ids = np.arange(id_base, id_base + n, dtype=np.int64)
        base = int(id_base)
    if n > MAX_VERTICES:
        raise UnsupportedGraphError(
            f"graph has {n} distinct vertices; at most {MAX_VERTICES} are supported")
    n_threads = numba.get_num_threads()
    counts = np.zeros((n_threads, n), dtype=np.int64)
    n_loops = 0
    for s, d in chunks:
        n_loops += int(_count_rows(s, d, base, counts))
    raw_indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts.sum(axis=0), out=raw_indptr[1:])
    n_lines = int(raw_indptr[-1])
    idx = index_dtype(n)
    # (hi << 1) | reversed needs one bit more than a vertex id; the same buffer
    # later holds the int32 (or int64) column ids.
    vals = np.empty(n_lines, dtype=np.uint32 if idx == np.int32 else np.int64)
    if n_lines:
        # cursor[t, r]: where thread t puts its next line of row r.
        cursor = np.cumsum(counts, axis=0)
        cursor -= counts
        cursor += raw_indptr[:-1]
        del counts
        chunks.reverse()
        while chunks:  # free each chunk once scattered: the caller's lists empty out
            s, d = chunks.pop()
            _scatter(s, d, base, cursor, vals)
            del s, d
        del cursor
    else:
        del counts
    chunks.clear()
    degree = np.zeros(n, dtype=np.int64)
    # Finer parts than threads: rows of hubs make equal-line parts uneven in time.
    parts = _row_split(raw_indptr, 4 * n_threads)
    key_bits = max(1, (2 * n).bit_length())
    n_directed = int(_dedupe_rows(raw_indptr, vals, degree, parts, key_bits)) if n_lines else 0
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(degree, out=indptr[1:])
    del degree
    n_edges = int(indptr[-1])
    # The distinct ids fit in the row buffer itself: pack there, then shrink it.
    _pack_in_place(raw_indptr, vals, indptr)
    del raw_indptr
    vals.resize(n_edges, refcheck=False)
    indices = vals.view(idx)
    rows = np.empty(n_edges, dtype=idx)
    _fill_rows(indptr, rows)
    return CSRGraph(rows, indices, n, vertex_ids=vertex_ids, self_loops_dropped=n_loops,
                    duplicates_dropped=n_lines - n_directed, name=name)
