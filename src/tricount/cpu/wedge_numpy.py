"""CPU counter in NumPy alone: every wedge u -> v -> w closed by a byte map of the anchors' rows.

Counts: distinct triangles. Input: an oriented CSR (NumPy arrays) whose rows are sorted;
the engine passes the degree orientation. Each triangle a < b < c (in the orientation's
order) is the wedge a -> b -> c closed by the edge a -> c, and is counted once: at its
anchor a, through its middle b.

Work is cut into blocks of consecutive edges (so of consecutive anchor rows): a block's
anchors mark their out-lists in one byte map of ``rows x n`` bytes (row = anchor - first
anchor), then every wedge of the block's edges -- for an edge u -> v, each w in N+(v) --
is gathered at once (a ragged gather: ``indices[indptr[v] + k]``), turned into its map
position ``(u - first) * n + w`` and tested by one gather of the map; the marks are then
cleared. A block holds at most :data:`BLOCK_WEDGES` wedges and as many anchors as the map
has rows, so memory stays bounded whatever the graph. The work is the anchor walk's,
Σ d+(v) over the edges (the GPU's ``bitwedge`` with ``anchor`` pairs, Bisson & Fatica's
bitmap test), 10-14 ns a wedge on one core, compiled by nobody: the counter of a first
run, which ``auto`` takes where starting and loading Numba (0.6 s, or 11 s compiling on a
first run) or importing SciPy (0.23 s) costs more than the count.

Blocks are independent, so a graph of several blocks is counted by several threads
(:func:`tricount._threads.thread_count`, the CPU engine's count), each with its own map
and every k-th block: NumPy's gathers, repeats and counts release the GIL, and on the
2-core development machine two threads took soc-Epinions1 from 0.22 to 0.14 s and
blogcatalog from 0.22 to 0.14 s (2026-11-26, ``benchmarks/results/cpu_numpy_threads.md``).
The Python between those calls holds the GIL, so past :data:`MAX_THREADS` more threads
only wait for it.

A graph of at most :data:`DENSE_MAX_CELLS` vertex-edge pairs (n x m) skips the walk: its
out-lists become the rows of an n x n boolean matrix, and each edge u -> v counts the w
marked in both rows u and v, one ``count_nonzero`` over the m gathered row pairs. That is the
same set of wedges, each triangle a -> b -> c found once, at its edge a -> b; in a handful of
NumPy calls instead of the walk's few dozen, whose fixed cost (about 0.11-0.15 ms on the
2-core machine) is the whole count of a graph of a few hundred edges.

Counts are Python ints summed from each block's ``count_nonzero``: exact past 2**32.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

__all__ = ["count_wedges_numpy", "AnchorWalk", "MAX_THREADS"]

#: Wedges gathered per block: 128 K, so a block's temporaries (0.5-1.5 MB) stay in the
#: cache and under the allocator's reuse threshold. With 1 M (4-12 MB each) every block's
#: arrays could come fresh from the kernel, page faults included, depending on what the
#: process had freed before: blogcatalog's count took 0.18-0.24 s after reading its file,
#: 0.13-0.15 s with 128 K either way (2 threads; one thread 0.35 -> 0.22 s; soc-Epinions1
#: 0.16-0.18 -> 0.15-0.16 s; 32 K - 64 K no better; 2-core machine, 2026-11-26).
BLOCK_WEDGES = 1 << 17
#: The byte map's size: enough for :data:`MAP_ROWS` anchor rows, within these bounds
#: (16 MiB: on soc-Epinions1, 2026-11-26, 4 / 8 / 16 / 32 MiB took 0.31 / 0.28 / 0.28 /
#: 0.29 s on one thread and 0.26 / 0.20 / 0.17 / 0.18 s on two, where fewer, larger blocks
#: leave less Python between NumPy's calls). A graph of more than 8 M vertices gets fewer
#: rows per block, so more blocks: the cost model charges them. Each thread has its own.
MIN_MAP_BYTES = 1 << 24
MAX_MAP_BYTES = 1 << 26
MAP_ROWS = 32
#: The threads' maps together stay under this: past it, fewer threads.
MAX_MAPS_BYTES = 1 << 28
#: Wedges a thread must have at least: starting one costs about 0.5 ms (ca-GrQc's 2 blocks,
#: about 0.1 M wedges, took 4.5 ms on one thread and 5.4 on two; email-Enron's 3.8 M wedges
#: 66 and 45 ms).
MIN_THREAD_WEDGES = 1 << 20
#: Threads at most: on the 16 cores of the H100 machine's host (device run 6 of
#: 2026-11-26's last session, ``cpu_numpy_threads.md``) 4 threads counted blogcatalog in
#: 97 ms and soc-Epinions1 in 99 ms, 8 in 135 and 116, 16 in 198 and 170 (1 thread: 194
#: and 229); ca-HepPh 28 ms on 4 against 30 on 16.
MAX_THREADS = 4


#: Graphs of at most this many vertex-edge pairs (n x m) are counted dense (module doc): on
#: the 2-core machine, 2026-11-26, karate 0.114 -> 0.030 ms, football (115 vertices, 613 edges)
#: 0.155 -> 0.066 ms, but jazz (198, 2,742: 543 K pairs) 0.468 -> 0.650 ms.
DENSE_MAX_CELLS = 1 << 17


def map_rows(n_vertices: int) -> int:
    """Anchor rows per block: the byte map holds ``rows x n_vertices`` bytes.

    Never more rows than vertices: a small graph's map is ``n x n`` bytes, not
    :data:`MIN_MAP_BYTES` (zeroing 4 MiB cost karate 0.25 ms of its 0.5 ms count).

    >>> map_rows(34), map_rows(1 << 20), map_rows(1 << 30)
    (34, 32, 1)
    >>> map_rows(75_879)  # soc-Epinions1: 16 MiB of rows
    221
    """
    size = min(MAX_MAP_BYTES, max(MIN_MAP_BYTES, MAP_ROWS * n_vertices))
    return max(1, min(n_vertices, size // max(1, n_vertices)))


def count_wedges_numpy(oriented, *, threads: int | None = None) -> int:
    """Triangles of an oriented CSR (NumPy arrays, rows sorted), in NumPy alone, on
    ``threads`` threads at most (default: the CPU engine's thread count).

    Examples
    --------
    K4 has 4 triangles. Oriented by id, its CSR (row u holds the v > u)::

        u:  0      1     2    3
           [1 2 3] [2 3] [3]  []
        indptr  = 0 3 5 6 6
        indices = 1 2 3 2 3 3

    >>> from tricount.prep.orient import csr_from_sorted
    >>> k4 = csr_from_sorted(np.array([0, 0, 0, 1, 1, 2]), np.array([1, 2, 3, 2, 3, 3]), 4,
    ...                      "id")
    >>> count_wedges_numpy(k4)
    4
    """
    n = oriented.n_vertices
    m = int(oriented.indices.shape[0])
    if m == 0:
        return 0
    if n * m <= DENSE_MAX_CELLS:
        return _count_dense(n, np.asarray(oriented.indptr, dtype=np.int64), oriented.indices)
    walk = AnchorWalk(oriented)
    blocks = walk.blocks()
    if threads is None:
        from tricount._threads import thread_count

        threads = thread_count()
    map_bytes = walk.rows * n
    enough = -(-int(walk.before[-1]) // MIN_THREAD_WEDGES)  # threads with enough wedges
    workers = max(1, min(int(threads), MAX_THREADS, len(blocks), MAX_MAPS_BYTES // map_bytes,
                         enough))
    if workers == 1:
        return walk.count(blocks)
    # Every k-th block to each thread: blocks hold about equal wedges, so the shares match.
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="tricount-numpy") as pool:
        return sum(pool.map(walk.count, [blocks[i::workers] for i in range(workers)]))


def _count_dense(n: int, indptr, indices) -> int:
    """The triangles of a small oriented CSR: out-lists as rows of an n x n boolean matrix,
    and for every edge u -> v the w in both rows (a triangle a -> b -> c at a -> b only)."""
    rows = np.repeat(np.arange(n), np.diff(indptr))
    out = np.zeros((n, n), dtype=np.bool_)
    out[rows, indices] = True
    return int(np.count_nonzero(out[rows] & out[indices]))


class AnchorWalk:
    """The anchor walk of one oriented CSR (NumPy arrays, rows sorted), cut into blocks
    (the module doc); :meth:`walk` gives each block's wedges, :meth:`count` counts the
    closed ones (:mod:`tricount.cpu.walk_numpy` lists them and counts them per vertex)."""

    def __init__(self, oriented):
        n = oriented.n_vertices
        indices = oriented.indices
        # Map positions stay below MAX_MAP_BYTES; indices and ids below 2**31 while they fit.
        ids = np.int32 if indices.shape[0] < 2**31 and n < 2**31 else np.int64
        indptr = np.asarray(oriented.indptr, dtype=np.int64)
        indices = indices.astype(ids, copy=False)
        self.n, self.indptr, self.indices, self.ids = n, indptr, indices, ids
        self.out_degree = np.diff(indptr)
        self.wedges = self.out_degree[indices]  # wedges through each edge u -> v: |N+(v)|
        self.before = np.zeros(indices.shape[0] + 1, dtype=np.int64)  # wedges before each edge
        np.cumsum(self.wedges, out=self.before[1:])
        self.rows = map_rows(n)

    def blocks(self) -> list[tuple[int, int, int, int]]:
        """``(e0, e1, r0, r1)``: edges ``[e0, e1)`` of anchors ``[r0, r1)``, at most
        :data:`BLOCK_WEDGES` wedges (but one edge at least) and ``rows`` anchors each."""
        indptr, before, n, m = self.indptr, self.before, self.n, self.indices.shape[0]
        out, e0 = [], 0
        while e0 < m:
            r0 = int(np.searchsorted(indptr, e0, side="right")) - 1  # the block's first anchor
            e1 = int(np.searchsorted(before, before[e0] + BLOCK_WEDGES, side="right")) - 1
            e1 = min(max(e1, e0 + 1), int(indptr[min(n, r0 + self.rows)]))
            r1 = int(np.searchsorted(indptr, e1 - 1, side="right"))  # one past the last anchor
            out.append((e0, e1, r0, r1))
            e0 = e1
        return out

    def walk(self, blocks):
        """For each block of ``blocks`` that has wedges, ``(e0, e1, at, closed)``: the
        block's wedges in order (by edge ``e0 .. e1 - 1``, then by w along N+(v)),
        ``at[k]`` the position in ``indices`` of wedge k's end w, ``closed[k]`` whether
        the anchor's out-list holds w. One byte map, this call's own; a block's marks
        stay set until the next block is asked for."""
        n, ids, indptr, indices = self.n, self.ids, self.indptr, self.indices
        before, wedges, out_degree = self.before, self.wedges, self.out_degree
        marks = np.zeros(self.rows * n, dtype=np.bool_)
        for e0, e1, r0, r1 in blocks:
            a0, a1 = int(indptr[r0]), int(indptr[r1])
            # The anchors' out-lists, marked at (anchor - r0) * n + neighbour.
            keys = np.repeat(np.arange(0, (r1 - r0) * n, n, dtype=ids), out_degree[r0:r1])
            keys += indices[a0:a1]
            marks[keys] = True
            n_wedges = int(before[e1] - before[e0])
            if n_wedges:
                middle = indices[e0:e1]
                counts = wedges[e0:e1]
                # Wedge k of edge e is indices[indptr[v] + k]: one ragged gather for the block.
                at = np.repeat((indptr[middle] - (before[e0:e1] - before[e0])).astype(ids),
                               counts)
                at += np.arange(n_wedges, dtype=ids)
                ends = indices[at]
                ends += np.repeat(keys[e0 - a0:e1 - a0] - middle, counts)  # the anchor's row
                yield e0, e1, at, marks[ends]
                del at, ends
            marks[keys] = False

    def count(self, blocks) -> int:
        """The triangles anchored in ``blocks``, with a byte map of this call's own."""
        return sum(int(np.count_nonzero(closed)) for *_, closed in self.walk(blocks))
