"""Parsed edge chunks -> the canonical upper CSR of a graph, in O(lines) time and bounded memory.

The builder of :mod:`tricount.io` (every text and NumPy reader ends here, but
the NumPy parser's small inputs, built by
:func:`tricount.prep.canonical.upper_csr_of_chunks`, which compiles nothing),
and the loaders' CPU fast path to the same canonical graph that
:func:`tricount.prep.canonical.canonical_edges` builds (a test checks they agree
array for array). Instead of one sort of 64-bit keys it uses a counting sort
by source row, then a short sort of each row:

1. pick a row table: the ids themselves when they are dense (``max_id`` at
   most about the number of lines), ``id - id_base`` when the file declares
   its vertices, else compact ids from a hash table over the sorted distinct
   ids (the chunks are relabelled in place; only very sparse ids take this);
2. one pass over the lines counts each non-loop line in the row of its
   smaller endpoint (one histogram per thread over its share of the lines)
   and, for dense ids, marks the ids that occur (loops included);
3. the marks give the compact ids: ``vertex_ids`` are the marked ids in
   increasing order and ``rank[id]`` their positions (no relabelling pass);
4. scatter ``(hi << 1) | reversed`` into the rows; thread ``t`` takes the
   same share of lines as in step 2 and writes behind its own cursors (the
   lines earlier threads put in each row come first), so no two threads
   touch the same slot and no atomics are needed;
5. sort each row and keep its distinct values (:mod:`tricount.prep.rowsort`):
   distinct ``(hi, reversed)`` are distinct directed lines, distinct ``hi``
   the undirected edges, as in ``canonical_edges``; each row is written packed,
   as compact ids ``rank[hi]``, into ``indices`` in place, and ``indptr`` is the
   running sum of the row sizes of the ids that occur.

The COO row array is not built: :class:`~tricount.CSRGraph` derives it when
something reads it. The parsed chunks are never concatenated: peak memory is
the chunks (8 bytes a line while ids fit in int32) plus the row buffer (4
bytes a line) plus O(row table).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from tricount._threads import load_numba
from tricount.errors import UnsupportedGraphError
from tricount.prep.rowsort import dedupe_rows, pack_parts, row_split
from tricount.prep.canonical import MAX_VERTICES, UpperCSRBuild
from tricount.prep.xp import index_dtype

numba = load_numba()  # Numba, started without its BLAS probe (tricount._threads)

#: Index the rows by the ids themselves when ``max_id + 1`` is at most this many
#: entries per parsed line (4 bytes an entry per thread), else hash the distinct ids.
DENSE_TABLE_ENTRIES_PER_LINE = 1
#: Below this many ids a direct table is always used (it costs at most 4 MiB a thread).
DENSE_TABLE_MIN = 1 << 20
#: Row parts per thread when sorting rows, handed out dynamically: the rows of
#: hubs make parts of equal lines uneven in time, and finer parts even that out.
PARTS_PER_THREAD = 16
_EMPTY = -1


# -- 1. compact ids of very sparse ids: a hash table --------------------------------------

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


def hash_compact(chunks):
    """Relabel every chunk in place to ``0 .. n-1``; return ``vertex_ids`` (sorted)."""
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


# -- 2. row counts and marks --------------------------------------------------------------

@numba.njit(inline="always")
def _ends(src, dst, i, base):
    """``(lo, hi, reversed)`` of line ``i``: its ends ordered, and 1 if written ``hi lo``."""
    u = np.int64(src[i]) - base
    v = np.int64(dst[i]) - base
    # min/max, not a branch on u < v: on shuffled input that branch is a coin
    # toss, and its mispredictions cost more than the loop (2026-11-22).
    return min(u, v), max(u, v), np.int64(u > v)


@numba.njit(parallel=True, nogil=True, cache=True)
def _count_rows(src, dst, base, counts, seen, mark):
    """Add each non-loop line to ``counts[t, min(u, v)]``; return the loops seen.

    With ``mark``, ``seen[t, id] = 1`` for the larger end of every line and
    both ends of a loop (a smaller end is seen through its count). Each thread
    marks its own row of ``seen``: one shared table made the two threads of the
    reference machine fight over its cache lines (4x slower, 2026-11-22).
    """
    n_threads = counts.shape[0]
    m = src.shape[0]
    loops = np.zeros(n_threads, dtype=np.int64)
    for t in prange(n_threads):
        for i in range(t * m // n_threads, (t + 1) * m // n_threads):
            lo, hi, _ = _ends(src, dst, i, base)
            if mark:
                seen[t, hi] = 1
            if lo == hi:
                loops[t] += 1
            else:
                counts[t, lo] += 1
    return loops.sum()


@numba.njit(parallel=True, nogil=True, cache=True)
def _cursors_in_place(counts, raw_indptr):
    """Turn ``counts[t, r]`` into where thread t writes its first line of row r."""
    n_threads = counts.shape[0]
    for r in prange(counts.shape[1]):
        pos = raw_indptr[r]
        for t in range(n_threads):
            c = counts[t, r]
            counts[t, r] = pos
            pos += c


# -- 4. scatter ---------------------------------------------------------------------------

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
            lo, hi, flipped = _ends(src, dst, i, base)
            if lo == hi:
                continue
            vals[cursor[t, lo]] = (hi << 1) | flipped
            cursor[t, lo] += 1


# -- the whole build ----------------------------------------------------------------------

def build_upper_csr(chunks, *, max_id: int, n_vertices: int | None = None, id_base: int = 0,
                    loops_dropped: int = 0, duplicates_dropped: int = 0) -> UpperCSRBuild:
    """The canonical graph of edge ``chunks`` (a list of ``(src, dst)`` id arrays).

    With ``n_vertices`` the ids are ``id_base .. id_base + n_vertices - 1`` (checked
    by the caller) and every one of them is a vertex, isolated or not. Otherwise
    the vertices are the ids that occur. The chunks are consumed: the list is
    emptied, and its arrays may be relabelled in place. ``loops_dropped`` and
    ``duplicates_dropped`` are lines already dropped before the build (repeats
    a reader merged away), added to the graph's counts.
    """
    n_lines_in = sum(int(s.shape[0]) for s, _ in chunks)
    base = 0
    mark = False
    if n_vertices is not None:
        n = table = int(n_vertices)
        vertex_ids = np.arange(id_base, id_base + n, dtype=np.int64)
        base = int(id_base)
    elif max_id + 1 <= max(DENSE_TABLE_MIN, DENSE_TABLE_ENTRIES_PER_LINE * n_lines_in):
        table = max_id + 1  # rows indexed by the ids; compact ids come from the marks
        mark = True
    else:
        vertex_ids = hash_compact(chunks)
        n = table = int(vertex_ids.shape[0])
    if not mark and n > MAX_VERTICES:
        raise UnsupportedGraphError(
            f"graph has {n} distinct vertices; at most {MAX_VERTICES} are supported")
    n_threads = numba.get_num_threads()
    # Cursors reach the number of lines: int32 while that fits halves the tables.
    count_dtype = np.int32 if n_lines_in < 2**31 else np.int64
    counts = np.zeros((n_threads, table), dtype=count_dtype)
    seen = np.zeros((n_threads, table if mark else 0), dtype=np.uint8)
    n_loops = 0
    for s, d in chunks:
        n_loops += int(_count_rows(s, d, base, counts, seen, mark))
    rows_total = counts.sum(axis=0, dtype=np.int64)
    rank = np.zeros(0, dtype=np.int32)
    if mark:
        present = rows_total > 0
        for t in range(n_threads):
            present |= seen[t].view(np.bool_)
        del seen
        vertex_ids = np.flatnonzero(present).astype(np.int64, copy=False)
        n = int(vertex_ids.shape[0])
        if n > MAX_VERTICES:
            raise UnsupportedGraphError(
                f"graph has {n} distinct vertices; at most {MAX_VERTICES} are supported")
        if n < table:  # else the ids already are 0 .. n-1
            rank = np.cumsum(present, dtype=np.int32 if table <= 2**31 else np.int64) - 1
        del present
    raw_indptr = np.zeros(table + 1, dtype=np.int64)
    np.cumsum(rows_total, out=raw_indptr[1:])
    del rows_total
    n_lines = int(raw_indptr[-1])  # lines that are not loops
    idx = index_dtype(n)
    # (hi << 1) | reversed needs one bit more than a vertex id; the same buffer
    # later holds the int32 (or int64) column ids.
    vals = np.empty(n_lines, dtype=np.uint32 if table <= 2**31 else np.int64)
    _cursors_in_place(counts, raw_indptr)
    chunks.reverse()
    while chunks:  # free each chunk once scattered: the caller's list empties out
        s, d = chunks.pop()
        _scatter(s, d, base, counts, vals)
        del s, d
    del counts
    degree = np.zeros(table, dtype=np.int64)
    split = row_split(raw_indptr, PARTS_PER_THREAD * n_threads)
    written = np.zeros(split.shape[0] - 1, dtype=np.int64)
    key_bits = max(1, (2 * table - 1).bit_length())
    with numba.parallel_chunksize(1):  # parts go to whichever thread is free
        n_directed = int(dedupe_rows(raw_indptr, vals, degree, split, key_bits, written,
                                     rank, rank.shape[0] > 0))
    del rank
    n_edges = pack_parts(raw_indptr, vals, split, written)
    del raw_indptr
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(degree[vertex_ids] if mark and n < table else degree, out=indptr[1:])
    del degree
    vals.resize(n_edges, refcheck=False)
    # The keys needed one bit more than a row-table id; the packed ids fit idx.
    indices = vals.view(idx) if vals.itemsize == np.dtype(idx).itemsize else vals.astype(idx)
    return UpperCSRBuild(indptr, indices, n, vertex_ids, n_loops + loops_dropped,
                         n_lines - n_directed + duplicates_dropped)
