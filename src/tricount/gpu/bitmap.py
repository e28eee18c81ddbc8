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

import numpy as np

from tricount.errors import UnknownMethodError
from tricount.gpu import _common
from tricount.gpu._common import (KernelTimer, ceil_div, cupy, device_facts, kernel_arrays, launch,
                                  read_count, require_memory, resident_grid)
from tricount.gpu._module import get_kernel

__all__ = ["count_bitmap", "BITMAP_BLOCK_SIZE", "BITMAP_SHARED_MAX_BYTES"]

#: 128 threads (4 warps) per block: most anchors have few out-neighbours.
BITMAP_BLOCK_SIZE = 128
#: Shared bitmaps up to 48 KiB (393,216 vertices), the limit without opt-in,
#: leave room for several blocks per multiprocessor.
BITMAP_SHARED_MAX_BYTES = 48 * 1024
#: Global bitmaps may take at most this share of the free device memory.
BITMAP_GLOBAL_MEMORY_SHARE = 0.25
BITMAP_VARIANTS = ("auto", "shared", "global")


def count_bitmap(oriented, *, variant: str = "auto", block_size: int = BITMAP_BLOCK_SIZE,
                 grid_size: int | None = None):
    """Triangles of an oriented CSR; returns ``(n_triangles, kernel_seconds)``."""
    cp = cupy()
    if variant not in BITMAP_VARIANTS:
        raise UnknownMethodError(
            f"bitmap variant {variant!r} is unknown; choose one of {', '.join(BITMAP_VARIANTS)}")
    if oriented.n_edges == 0:
        return 0, 0.0
    indptr, _rows, cols, vertex = kernel_arrays(oriented)
    n_words = ceil_div(oriented.n_vertices, 32)
    shared_bytes = 4 * n_words
    if variant == "auto":
        variant = "shared" if shared_bytes <= BITMAP_SHARED_MAX_BYTES else "global"
    if variant == "shared" and shared_bytes > device_facts()["shared_per_block_optin"]:
        raise UnknownMethodError(
            f"a shared bitmap of {oriented.n_vertices} vertices needs {shared_bytes} bytes, more "
            "than a block can have; use variant='global'")
    n = oriented.n_vertices
    kernel = get_kernel("bitmap", f"tc_bitmap_{variant}", block_size=block_size, vertex_t=vertex)
    next_anchor = cp.zeros(1, dtype=cp.uint64)
    result = cp.zeros(1, dtype=cp.uint64)
    if variant == "shared":
        if grid_size is None:
            grid_size = resident_grid(kernel, block_size, shared_bytes, work_blocks=n)
        args = (indptr, cols, np.int64(n), np.int64(n_words), next_anchor, result)
        dynamic_shared = shared_bytes
    else:
        if grid_size is None:
            budget = int(BITMAP_GLOBAL_MEMORY_SHARE * _common.free_device_bytes()) // shared_bytes
            grid_size = max(1, min(resident_grid(kernel, block_size, work_blocks=n), budget))
        require_memory(grid_size * shared_bytes, f"bitmap: {grid_size} bitmaps of "
                       f"{oriented.n_vertices} bits")
        bitmaps = cp.zeros(grid_size * n_words, dtype=cp.uint32)
        args = (indptr, cols, np.int64(n), np.int64(n_words), bitmaps, next_anchor, result)
        dynamic_shared = 0
    with KernelTimer() as timer:
        launch(kernel, grid_size, block_size, args, dynamic_shared)
    return read_count(result), timer.seconds
