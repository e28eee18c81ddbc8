"""Edge entries on the device to the rank-oriented DAG, by bucketing (``kernels/rows.cu``).

The GPU twin of :func:`tricount.prep.entries.orient_entries` (same arrays, which
the GPU tests compare). Where the canonical build and the orientation each sort
packed 64-bit keys of every entry (:mod:`.fused`), this route sorts nothing
globally: the raw degrees and the ranks come first, so each entry can go
straight to the row of its end of lower rank (a counting pass, a running sum, a
scatter), and each row is then sorted and made unique on chip, a warp or a block
a row (the kernels' header says why rows are short). Passes over the entries:
three reads of ``src`` and ``dst``, one write and one read of 4 bytes an entry.

:func:`orient_entries` returns None where the route does not apply and the caller
builds the graph instead: ids past 2^31 - 2 or too sparse for arrays over
``0 .. max id``, negative ids (the builder's checks name them), 2^31 entries or
more, a row longer than a block's shared memory can sort (repeats only), or too
little device memory.
"""

from __future__ import annotations

import numpy as np

from tricount.gpu._module import get_kernel
from tricount.gpu.device import (c_type, cupy, device_facts, free_device_bytes, launch,
                                 launch_grid_stride, resident_grid)
from tricount.prep.canonical import DENSE_ID_FACTOR
from tricount.prep.entries import OrientedEntries
from tricount.prep.orient import OrientedCSR, degree_rank

__all__ = ["orient_entries", "rows_defines", "DEFAULT_DEFINES", "WARP_ROW", "MAX_ENTRIES",
           "Buckets", "raw_degrees", "bucket_rows", "unique_rows", "compact_rows"]

#: Threads per block of every kernel of rows.cu.
ROWS_BLOCK_SIZE = 256
#: The longest row one warp sorts in shared memory (4 KiB a warp); longer rows get a block.
WARP_ROW = 1024
#: Entries and ids below this: ranks, row lengths and slots are 32-bit.
MAX_ENTRIES = 2**31 - 1
#: Bytes of device memory the route holds per entry and per id past its input, with
#: room for the rank's argsort: values (4 an entry), the DAG (8 an edge, at most
#: one an entry), and per id the degrees, ranks, lengths, starts and kept lengths.
BYTES_PER_ENTRY, BYTES_PER_ID = 12, 48


def rows_defines(*, vertex_t: str = "int") -> dict:
    """Every define of ``kernels/rows.cu``."""
    return {"block_size": ROWS_BLOCK_SIZE, "vertex_t": vertex_t, "warp_row": WARP_ROW}


#: The defines of the file's ``#ifndef`` defaults (tests/gpu/test_plan.py compares).
DEFAULT_DEFINES = {"rows": rows_defines()}


def _kernel(name: str, vertex_t: str = "int"):
    return get_kernel("rows", name, rows_defines(vertex_t=vertex_t))


def raw_degrees(src, dst, n_vertices: int):
    """``(degree, looped, loops)``: uint32 raw degrees, uint8 marks of the ids with a
    self-loop, and the self-loops counted in a device uint64."""
    cp = cupy()
    degree = cp.zeros(n_vertices, dtype=cp.uint32)
    looped = cp.zeros(n_vertices, dtype=cp.uint8)
    loops = cp.zeros(1, dtype=cp.uint64)
    n_entries = int(src.shape[0])
    launch_grid_stride(_kernel("tc_rows_degrees", c_type(src.dtype)), ROWS_BLOCK_SIZE, n_entries,
                       (src, dst, np.int64(n_entries), degree, looped, loops))
    return degree, looped, loops


class Buckets:
    """Every entry in the row of its end of lower rank: ``values[start[r]:start[r+1]]``
    holds row r's other ends as (rank << 1 | reversed), unsorted, repeats included."""

    def __init__(self, start, values, longest: int):
        self.start, self.values, self.longest = start, values, longest

    @property
    def n_rows(self) -> int:
        return int(self.start.shape[0]) - 1


def bucket_rows(src, dst, rank) -> Buckets:
    """Count each row's entries, sum them into row starts, scatter the entries."""
    cp = cupy()
    n, n_entries, vertex_t = int(rank.shape[0]), int(src.shape[0]), c_type(src.dtype)
    length = cp.zeros(n, dtype=cp.uint32)
    launch_grid_stride(_kernel("tc_rows_lengths", vertex_t), ROWS_BLOCK_SIZE, n_entries,
                       (src, dst, np.int64(n_entries), rank, length))
    start = cp.zeros(n + 1, dtype=cp.int64)
    cp.cumsum(length, dtype=cp.int64, out=start[1:])
    total, longest = (int(v) for v in cp.stack([start[-1], length.max().astype(cp.int64)]).get())
    values = cp.empty(total, dtype=cp.uint32)
    launch_grid_stride(_kernel("tc_rows_scatter", vertex_t), ROWS_BLOCK_SIZE, n_entries,
                       (src, dst, np.int64(n_entries), rank, start, length, values))
    return Buckets(start, values, longest)


def _block_size_cap(longest: int) -> int | None:
    """Values a block sorts for rows of up to ``longest`` entries (a power of 2), or None
    past what a block's shared memory holds."""
    size = 1 << max(0, longest - 1).bit_length()
    room = device_facts().shared_per_block_optin
    return size if 4 * size + 4 * (ROWS_BLOCK_SIZE // 32) <= room else None


def unique_rows(buckets: Buckets):
    """Sort every row and keep each rank once at its front: ``(kept, directed)``, the
    rows' kept lengths (uint32) and the distinct directed lines (a device uint64)."""
    cp = cupy()
    n = buckets.n_rows
    kept = cp.empty(max(n, 1), dtype=cp.uint32)
    directed = cp.zeros(1, dtype=cp.uint64)
    warp = _kernel("tc_rows_unique_warp")
    shared = (ROWS_BLOCK_SIZE // 32) * WARP_ROW * 4
    work_blocks = -(-max(1, n) * 32 // ROWS_BLOCK_SIZE)
    launch(warp, resident_grid(warp, ROWS_BLOCK_SIZE, shared, work_blocks=work_blocks),
           ROWS_BLOCK_SIZE, (buckets.start, np.int64(n), buckets.values, kept, directed), shared)
    if buckets.longest > WARP_ROW:
        size_cap = _block_size_cap(buckets.longest)
        long_rows = cp.flatnonzero(cp.diff(buckets.start) > WARP_ROW)
        block = _kernel("tc_rows_unique_block")
        shared = 4 * size_cap + 4 * (ROWS_BLOCK_SIZE // 32)
        n_long = int(long_rows.shape[0])
        launch(block, min(n_long, resident_grid(block, ROWS_BLOCK_SIZE, shared)), ROWS_BLOCK_SIZE,
               (buckets.start, long_rows, np.int64(n_long), np.int32(size_cap), buckets.values,
                kept, directed), shared)
    return kept[:n], directed


def compact_rows(buckets: Buckets, kept) -> OrientedCSR:
    """The kept ranks of every row, moved together: the DAG as COO+CSR (int32 ids)."""
    cp = cupy()
    n = buckets.n_rows
    indptr = cp.zeros(n + 1, dtype=cp.int64)
    cp.cumsum(kept, dtype=cp.int64, out=indptr[1:])
    m, longest = (int(v) for v in cp.stack([indptr[-1], kept.max().astype(cp.int64)]).get()) \
        if n else (0, 0)
    cols = cp.empty(m, dtype=cp.int32)
    rows = cp.empty(m, dtype=cp.int32)
    if n:
        kernel = _kernel("tc_rows_compact")
        launch(kernel, resident_grid(kernel, ROWS_BLOCK_SIZE,
                                     work_blocks=-(-n * 32 // ROWS_BLOCK_SIZE)),
               ROWS_BLOCK_SIZE, (buckets.start, indptr, np.int64(n), buckets.values, cols, rows))
    return OrientedCSR(indptr, rows, cols, n, m, longest, "rank")


def id_range(src, dst) -> tuple[int, int]:
    """The smallest and the largest id of the entries (one read-back)."""
    cp = cupy()
    return tuple(int(v) for v in cp.stack([cp.minimum(src.min(), dst.min()),
                                           cp.maximum(src.max(), dst.max())]).get())


def applies(n_entries: int, lowest: int, top: int, dtype) -> bool:
    """Whether the route takes entries of these ids (see the module's doc)."""
    return (0 < n_entries <= MAX_ENTRIES and np.dtype(dtype) in (np.int32, np.int64)
            and lowest >= 0 and top < MAX_ENTRIES - 1
            and top < DENSE_ID_FACTOR * 2 * n_entries + 1024
            and BYTES_PER_ENTRY * n_entries + BYTES_PER_ID * (top + 1) <= free_device_bytes())


def orient_entries(src, dst) -> OrientedEntries | None:
    """The rank-oriented DAG of the device entries ``src[i] -> dst[i]`` and the summary's
    facts, as :func:`tricount.prep.entries.orient_entries` gives them, or None where this
    route does not apply (the caller builds the graph)."""
    cp = cupy()
    n_entries = int(src.shape[0])
    if n_entries == 0 or src.dtype != dst.dtype:
        return None
    src, dst = cp.ascontiguousarray(src), cp.ascontiguousarray(dst)
    lowest, top = id_range(src, dst)
    if not applies(n_entries, lowest, top, src.dtype):
        return None
    n = top + 1
    degree, looped, loops = raw_degrees(src, dst, n)
    rank = degree_rank(degree.astype(cp.int64), n, cp.int32)
    buckets = bucket_rows(src, dst, rank)
    del rank
    if buckets.longest > WARP_ROW and _block_size_cap(buckets.longest) is None:
        return None
    kept, directed = unique_rows(buckets)
    oriented = compact_rows(buckets, kept)
    del buckets, kept
    present = cp.count_nonzero((degree > 0) | (looped > 0))
    n_vertices, n_loops, n_directed = (int(v) for v in cp.stack(
        [present.astype(cp.uint64), loops[0], directed[0]]).get())
    return OrientedEntries(oriented, n_vertices, n_loops, n_entries - n_loops - n_directed)
