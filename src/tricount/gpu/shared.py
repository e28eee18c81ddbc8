"""Launcher of ``kernels/shared.cu``: Iakovidis's LᵀL kernel with columns in shared memory.

Counts: distinct triangles, as n_T = sum over the entries of L of (LᵀL),
where column i of L is N+(i). One block per group of k consecutive columns;
the block packs columns into shared memory (``capacity`` entries at a time)
and each thread merges one entry's two columns, one of them from shared
memory. k (``columns_per_block``) defaults to enough columns for
:data:`SHARED_ENTRIES_PER_THREAD` entries per thread at the mean out-degree.
"""

from __future__ import annotations

import numpy as np

from tricount.errors import UnknownMethodError
from tricount.gpu._common import (KernelTimer, MAX_GRID, ceil_div, cupy, device_facts, kernel_arrays,
                                  launch, read_count)
from tricount.gpu._module import get_kernel

__all__ = ["count_shared", "SHARED_BLOCK_SIZE", "SHARED_CAPACITY", "SHARED_ENTRIES_PER_THREAD"]

#: Iakovidis §9: 128 threads per block.
SHARED_BLOCK_SIZE = 128
#: Entries per thread a group should hold: Iakovidis's k = 27 at 7.3 entries
#: per column with 128 threads is about 1.5; we round to 2.
SHARED_ENTRIES_PER_THREAD = 2
#: Column entries held in shared memory at once (16 KiB of int32): room for
#: several blocks per multiprocessor; longer columns are read from global memory.
SHARED_CAPACITY = 4096


def default_columns_per_block(oriented, block_size: int = SHARED_BLOCK_SIZE) -> int:
    """k so that a group holds about SHARED_ENTRIES_PER_THREAD entries per thread."""
    mean = oriented.n_edges / max(1, oriented.n_vertices)
    return int(max(1, min(4096, round(SHARED_ENTRIES_PER_THREAD * block_size / max(mean, 1e-9)))))


def count_shared(oriented, *, columns_per_block: int | None = None, capacity: int = SHARED_CAPACITY,
                 block_size: int = SHARED_BLOCK_SIZE, grid_size: int | None = None):
    """Triangles of an oriented CSR; returns ``(n_triangles, kernel_seconds)``."""
    cp = cupy()
    if oriented.n_edges == 0:
        return 0, 0.0
    k = default_columns_per_block(oriented, block_size) if columns_per_block is None else int(columns_per_block)
    if k < 1 or capacity < 1:
        raise UnknownMethodError(f"shared needs columns_per_block >= 1 and capacity >= 1, got {k}, {capacity}")
    indptr, rows, cols, vertex = kernel_arrays(oriented)
    shared_bytes = capacity * cols.dtype.itemsize
    if shared_bytes > device_facts()["shared_per_block_optin"]:
        raise UnknownMethodError(f"capacity {capacity} needs {shared_bytes} bytes of shared memory, "
                                 "more than a block can have")
    kernel = get_kernel("shared", "tc_shared", block_size=block_size, vertex_t=vertex)
    if grid_size is None:
        grid_size = min(ceil_div(oriented.n_vertices, k), MAX_GRID)
    result = cp.zeros(1, dtype=cp.uint64)
    with KernelTimer() as timer:
        launch(kernel, grid_size, block_size,
               (indptr, rows, cols, np.int64(oriented.n_vertices), np.int64(k), np.int64(capacity),
                result), shared_bytes)
    return read_count(result), timer.seconds
