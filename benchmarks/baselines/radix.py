"""Launcher of ``kernels/radix.cu``: Tirpankar & Sundar's radix-binning count, level by level.

Counts: distinct triangles as |E ∩ E'|, where E holds every undirected edge
once as a sorted 64-bit key (lo << id_bits) | hi, and E' holds one key per
wedge v <- u -> w of the oriented graph (v < w in N+(u)): the pair that would
close it. Each triangle has exactly one wedge at its first vertex.

Algorithm 1: E is sorted (line 2, CUB's radix sort through CuPy), per-edge
pair counts are scanned into exclusive write offsets (lines 8–9), and
``tc_radix_wedges`` writes E' (line 10). E' is produced in batches of edges
whose pairs fit in the memory left over, and each batch is counted on its own.

Algorithm 2, iteratively: segments (buckets with both an E slice and an E'
slice) split on the next ``radix_bits`` bits per level. Kernels count digits
(E by binary search, since sorted E never moves; E' by per-tile histograms),
CuPy scans the counts, buckets empty on either side are dropped, buckets with
at most ``threshold`` keys on either side are counted by binary search, and
the remaining keys move stably to their child bucket for the next level.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from baselines import KERNELS
from tricount.errors import TricountError, UnknownMethodError
from tricount.gpu import device
from tricount.gpu._module import get_kernel
from tricount.gpu.device import (MAX_GRID, ceil_div, cupy, kernel_arrays, launch, read_count,
                                 resident_grid)
from tricount.prep.xp import bits_for

__all__ = ["count_radix", "RadixShape", "RADIX_BITS", "RADIX_THRESHOLD", "RADIX_TILE",
           "wedge_count"]

#: Bits per level: 256 buckets (the paper leaves d open; one byte per pass).
RADIX_BITS = 8
#: Tirpankar & Sundar §III-B: "In our current implementation this is fixed at 1024."
RADIX_THRESHOLD = 1024
#: Keys of E' per tile (one block per tile in the histogram and move kernels).
RADIX_TILE = 4096
RADIX_BLOCK_SIZE = 256
#: At most this many E' keys per batch (2 GiB per buffer).
RADIX_MAX_BATCH = 1 << 28
#: Share of the free memory (after E and the offsets) that the batch buffers may use.
RADIX_MEMORY_SHARE = 0.6
#: Device bytes per E' key in a batch: two key buffers, plus the tile tables.
_BYTES_PER_KEY = 2 * 8 + 4


@dataclass(frozen=True)
class RadixShape:
    """``radix_bits`` per level, buckets of at most ``threshold`` keys counted by
    binary search, ``batch_keys`` E' keys per batch (default: what fits), ``tile``
    E' keys per block in the histogram and move kernels."""

    method: ClassVar[str] = "radix"
    launcher: ClassVar[str] = "baselines.radix:count_radix"

    radix_bits: int = RADIX_BITS  # bits per level
    threshold: int = RADIX_THRESHOLD  # smaller buckets are counted by binary search
    batch_keys: int | None = None  # E' keys per batch; None: what fits
    tile: int = RADIX_TILE  # E' keys per block in the histogram and move kernels
    block_size: int = RADIX_BLOCK_SIZE  # threads per block
    grid_size: int | None = None  # None: blocks that fill the device once

    def __post_init__(self):
        if not (1 <= self.radix_bits <= 12) or self.threshold < 1 or self.tile < 1:
            raise UnknownMethodError(
                f"radix needs 1 <= radix_bits <= 12, threshold >= 1 and tile >= 1; got "
                f"{self.radix_bits}, {self.threshold}, {self.tile}")


SHAPE = RadixShape
DEFAULT_DEFINES = {"radix": {"block_size": RADIX_BLOCK_SIZE, "vertex_t": "int",
                             "radix_bits": RADIX_BITS}}


def wedge_count(oriented) -> int:
    """|E'|: the number of wedges sum over u of C(d+(u), 2) (one key each)."""
    cp = cupy()
    d = cp.diff(cp.asarray(oriented.indptr)).astype(cp.int64)
    return int((d * (d - 1) // 2).sum())


def count_radix(oriented, shape: RadixShape, timed) -> int:
    """Triangles of an oriented CSR.

    The timed region spans both algorithms on the GPU (sort, scan, E'
    generation and every level), with the host waiting inside it.
    """
    cp = cupy()
    radix_bits, threshold, tile = shape.radix_bits, shape.threshold, shape.tile
    block_size, grid_size, batch_keys = shape.block_size, shape.grid_size, shape.batch_keys
    m, n = oriented.n_edges, oriented.n_vertices
    if m == 0:
        return 0
    indptr, rows, cols, vertex = kernel_arrays(oriented)
    device.require_memory(8 * 4 * (m + 1) + _BYTES_PER_KEY * max(oriented.max_out_degree, 1),
                          f"radix on {m} edges (E keys, their sort and the pair offsets)")
    defines = {"block_size": block_size, "vertex_t": vertex, "radix_bits": radix_bits}
    k_wedges, k_split, k_hist, k_move = (
        get_kernel("radix", name, defines, folder=KERNELS)
        for name in ("tc_radix_wedges", "tc_radix_split_e", "tc_radix_histogram", "tc_radix_move"))
    digits = 1 << radix_bits
    id_bits = bits_for(n - 1)
    key_bits = ceil_div(2 * id_bits, radix_bits) * radix_bits  # top digit padded with zeros

    def grid(work_blocks, kernel=None):
        g = resident_grid(kernel, block_size, work_blocks=work_blocks) if kernel is not None \
            else min(max(1, int(work_blocks)), MAX_GRID)
        return g if grid_size is None else max(1, min(g, grid_size))

    result = cp.zeros(1, dtype=cp.uint64)
    with timed(host_syncs=True):
        # Algorithm 1, line 2: E as sorted (lo, hi) keys.
        lo = cp.minimum(rows, cols).astype(cp.uint64)
        hi = cp.maximum(rows, cols).astype(cp.uint64)
        edges = cp.sort((lo << cp.uint64(id_bits)) | hi)
        del lo, hi
        # Lines 6–9: pairs per oriented edge e = u -> v at position e in row u
        # (the later entries of row u), and their exclusive scan.
        pair_offset = cp.zeros(m + 1, dtype=cp.int64)
        cp.cumsum(indptr[rows.astype(cp.int64) + 1] - cp.arange(1, m + 1, dtype=cp.int64),
                  out=pair_offset[1:])
        n_pairs = int(pair_offset[m])
        budget = RADIX_MAX_BATCH if batch_keys is None else int(batch_keys)
        budget = min(budget, int(RADIX_MEMORY_SHARE * device.free_device_bytes()) // _BYTES_PER_KEY)
        budget = max(budget, oriented.max_out_degree, 1)  # one edge's pairs always fit
        device.require_memory(_BYTES_PER_KEY * min(budget, n_pairs), "radix E' batch buffers")
        size = min(budget, n_pairs)
        buffers = (cp.empty(size, dtype=cp.uint64), cp.empty(size, dtype=cp.uint64))
        e0 = 0
        while e0 < m and n_pairs:
            base = int(pair_offset[e0])
            limit = cp.asarray([base + budget], dtype=cp.int64)
            e1 = int(cp.searchsorted(pair_offset, limit, side="right")[0]) - 1
            e1 = min(max(e1, e0 + 1), m)
            n_keys = int(pair_offset[e1]) - base
            if n_keys:
                launch(k_wedges, grid(ceil_div(e1 - e0, block_size // 32), k_wedges), block_size,
                       (indptr, rows, cols, np.int64(e0), np.int64(e1), pair_offset, np.int64(base),
                        np.int32(id_bits), buffers[0]))
                _intersect(buffers, n_keys, edges, key_bits, radix_bits, digits, threshold, tile,
                           block_size, grid, (k_split, k_hist, k_move), result)
            e0 = e1
    return read_count(result)


def _intersect(buffers, n_keys, edges, key_bits, radix_bits, digits, threshold, tile, block_size,
               grid, kernels, result):
    """Algorithm 2 on one batch: E' keys in buffers[0][:n_keys]; adds matches into result."""
    cp = cupy()
    k_split, k_hist, k_move = kernels
    src, dst = buffers
    i64 = cp.int64
    # The root bucket: every key of the batch against all of E.
    seg_pb = cp.zeros(1, dtype=i64)
    seg_pe = cp.full(1, n_keys, dtype=i64)
    seg_eb = cp.zeros(1, dtype=i64)
    seg_ee = cp.full(1, edges.shape[0], dtype=i64)
    n_seg = 1
    level = 0
    while n_seg:
        shift = key_bits - radix_bits * (level + 1)
        if shift < 0:
            raise TricountError("radix: a bucket outlived the last digit (internal error)")
        tiles_per = (seg_pe - seg_pb + (tile - 1)) // tile
        tile_first = cp.cumsum(tiles_per) - tiles_per
        n_tiles = int(tiles_per.sum())
        t_idx = cp.arange(n_tiles, dtype=i64)
        tile_seg = cp.searchsorted(tile_first, t_idx, side="right") - 1
        tile_begin = seg_pb[tile_seg] + (t_idx - tile_first[tile_seg]) * tile
        tile_end = cp.minimum(tile_begin + tile, seg_pe[tile_seg])
        hist = cp.empty((n_tiles, digits), dtype=cp.int32)
        launch(k_hist, grid(n_tiles), block_size,
               (src, tile_begin, tile_end, np.int64(n_tiles), np.int32(shift), hist))
        bounds = cp.empty((n_seg, digits + 1), dtype=i64)
        launch(k_split, grid(ceil_div(n_seg * (digits + 1), block_size)), block_size,
               (edges, src, seg_pb, seg_eb, seg_ee, np.int64(n_seg), np.int32(shift), bounds))
        # INC_SUM_SCAN over tiles, per digit; then per-bucket sizes on both sides.
        cum = cp.cumsum(hist, axis=0, dtype=i64)
        excl = cum - hist
        before = excl[tile_first]
        p_count = cum[tile_first + tiles_per - 1] - before
        e_count = bounds[:, 1:] - bounds[:, :-1]
        live = (p_count > threshold) & (e_count > threshold)
        leaf = (p_count > 0) & (e_count > 0) & ~live
        status = live.astype(cp.int32) * 2 + leaf.astype(cp.int32)
        live_sizes = cp.where(live, p_count, 0).ravel()
        child_out = (cp.cumsum(live_sizes) - live_sizes).reshape(n_seg, digits)
        tile_base = child_out[tile_seg] + excl - before[tile_seg]
        del cum, excl, hist
        launch(k_move, grid(n_tiles), block_size,
               (src, dst, edges, tile_seg, tile_begin, tile_end, np.int64(n_tiles), np.int32(shift),
                status, bounds, tile_base, result))
        live_idx = cp.flatnonzero(live.ravel())
        n_seg = int(live_idx.shape[0])
        if n_seg:
            s, d = live_idx // digits, live_idx % digits
            seg_pb = child_out.ravel()[live_idx]
            seg_pe = seg_pb + p_count.ravel()[live_idx]
            seg_eb = bounds[s, d]
            seg_ee = bounds[s, d + 1]
        src, dst = dst, src
        level += 1
