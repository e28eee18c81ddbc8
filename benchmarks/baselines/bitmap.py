"""Launcher of ``kernels/bitmap.cu``: Bisson & Fatica's bitmap intersection (Iakovidis §8).

Counts: distinct triangles. A block takes one anchor vertex u at a time
(a few at a time from an atomic counter), marks N+(u) in an n-bit bitmap,
probes every w in N+(v) for v in N+(u) with one bit test, and clears what it
set. Anchors with fewer than two out-neighbours are skipped in the kernel.

``variant="shared"`` keeps the bitmap in shared memory (zeroed once per
block); ``"global"`` gives every resident block its own n-bit slice of a
global array; ``"auto"`` takes shared when n bits fit in
:data:`BITMAP_SHARED_MAX_BYTES`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from baselines import KERNELS, check_variant
from tricount.errors import UnknownMethodError
from tricount.gpu import device
from tricount.gpu._module import get_kernel
from tricount.gpu.device import ceil_div, cupy, kernel_arrays, launch, read_count, resident_grid

#: 128 threads (4 warps) per block: most anchors have few out-neighbours.
BITMAP_BLOCK_SIZE = 128
#: Anchors per claim: fewer atomics, still fine-grained.
BITMAP_CLAIM = 16
#: Shared bitmaps up to 48 KiB (393,216 vertices), the limit without opt-in,
#: leave room for several blocks per multiprocessor.
BITMAP_SHARED_MAX_BYTES = 48 * 1024
#: Global bitmaps may take at most this share of the free device memory.
BITMAP_GLOBAL_MEMORY_SHARE = 0.25
BITMAP_VARIANTS = ("auto", "shared", "global")


@dataclass(frozen=True)
class BitmapShape:
    """Launch shape of ``bitmap``: where the bitmaps live (``variant``)."""

    method: ClassVar[str] = "bitmap"
    launcher: ClassVar[str] = "baselines.bitmap:count_bitmap"

    variant: str = "auto"  # "shared", "global" or "auto"
    block_size: int = BITMAP_BLOCK_SIZE  # threads per block
    grid_size: int | None = None  # None: blocks that fill the device once

    def __post_init__(self):
        check_variant("bitmap", self.variant, BITMAP_VARIANTS)


SHAPE = BitmapShape


def kernel_defines(shape, *, vertex_t: str) -> dict:
    return {"block_size": shape.block_size, "bitmap_claim": BITMAP_CLAIM, "vertex_t": vertex_t}


DEFAULT_DEFINES = {"bitmap": kernel_defines(BitmapShape(), vertex_t="int")}


def count_bitmap(oriented, shape: BitmapShape, timed) -> int:
    """Triangles of an oriented CSR."""
    cp = cupy()
    if oriented.n_edges == 0:
        return 0
    indptr, _rows, cols, vertex = kernel_arrays(oriented)
    n = oriented.n_vertices
    n_words = ceil_div(n, 32)
    shared_bytes = 4 * n_words
    variant = shape.variant
    if variant == "auto":
        variant = "shared" if shared_bytes <= BITMAP_SHARED_MAX_BYTES else "global"
    if variant == "shared" and shared_bytes > device.device_facts().shared_per_block_optin:
        raise UnknownMethodError(
            f"a shared bitmap of {n} vertices needs {shared_bytes} bytes, more than a block can "
            "have; use variant='global'")
    block_size, grid_size = shape.block_size, shape.grid_size
    kernel = get_kernel("bitmap", f"tc_bitmap_{variant}", kernel_defines(shape, vertex_t=vertex),
                        folder=KERNELS)
    next_anchor = cp.zeros(1, dtype=cp.uint64)
    result = cp.zeros(1, dtype=cp.uint64)
    if variant == "shared":
        if grid_size is None:
            grid_size = resident_grid(kernel, block_size, shared_bytes, work_blocks=n)
        args = (indptr, cols, np.int64(n), np.int64(n_words), next_anchor, result)
        dynamic_shared = shared_bytes
    else:
        if grid_size is None:
            budget = int(BITMAP_GLOBAL_MEMORY_SHARE * device.free_device_bytes()) // shared_bytes
            grid_size = max(1, min(resident_grid(kernel, block_size, work_blocks=n), budget))
        device.require_memory(grid_size * shared_bytes, f"bitmap: {grid_size} bitmaps of {n} bits")
        bitmaps = cp.zeros(grid_size * n_words, dtype=cp.uint32)
        args = (indptr, cols, np.int64(n), np.int64(n_words), bitmaps, next_anchor, result)
        dynamic_shared = 0
    with timed():
        launch(kernel, grid_size, block_size, args, dynamic_shared)
    return read_count(result)
