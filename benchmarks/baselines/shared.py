"""Launcher of ``kernels/shared.cu``: Iakovidis's LᵀL kernel with columns in shared memory.

Counts: distinct triangles, as n_T = sum over the entries of L of (LᵀL),
where column i of L is N+(i). One block per group of k consecutive columns;
the block packs columns into shared memory (``capacity`` entries at a time)
and each thread merges one entry's two columns, one of them from shared
memory. k (``columns_per_block``) defaults to enough columns for
:data:`SHARED_ENTRIES_PER_THREAD` entries per thread at the mean out-degree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from baselines import KERNELS
from tricount.errors import UnknownMethodError
from tricount.gpu._module import get_kernel
from tricount.gpu.device import (MAX_GRID, ceil_div, cupy, device_facts, kernel_arrays, launch,
                                 read_count)

#: Iakovidis §9: 128 threads per block.
SHARED_BLOCK_SIZE = 128
#: Entries per thread a group should hold: Iakovidis's k = 27 at 7.3 entries
#: per column with 128 threads is about 1.5; we round to 2.
SHARED_ENTRIES_PER_THREAD = 2
#: Column entries held in shared memory at once (16 KiB of int32): room for
#: several blocks per multiprocessor; longer columns are read from global memory.
SHARED_CAPACITY = 4096


@dataclass(frozen=True)
class SharedShape:
    """Launch shape of ``shared``: columns per block (None: from the mean out-degree)
    and the shared-memory capacity in entries."""

    method: ClassVar[str] = "shared"
    launcher: ClassVar[str] = "baselines.shared:count_shared"

    columns_per_block: int | None = None  # k consecutive columns per block
    capacity: int = SHARED_CAPACITY  # column entries in shared memory at once
    block_size: int = SHARED_BLOCK_SIZE  # threads per block
    grid_size: int | None = None  # None: one block per group of k columns

    def __post_init__(self):
        if (self.columns_per_block is not None and self.columns_per_block < 1) \
                or self.capacity < 1:
            raise UnknownMethodError(f"shared needs columns_per_block >= 1 and capacity >= 1, got "
                                     f"{self.columns_per_block}, {self.capacity}")


SHAPE = SharedShape
DEFAULT_DEFINES = {"shared": {"block_size": SHARED_BLOCK_SIZE, "vertex_t": "int"}}


def default_columns_per_block(oriented, block_size: int = SHARED_BLOCK_SIZE) -> int:
    """k so that a group holds about SHARED_ENTRIES_PER_THREAD entries per thread."""
    mean = oriented.n_edges / max(1, oriented.n_vertices)
    return int(max(1, min(4096, round(SHARED_ENTRIES_PER_THREAD * block_size / max(mean, 1e-9)))))


def count_shared(oriented, shape: SharedShape, timed) -> int:
    """Triangles of an oriented CSR."""
    cp = cupy()
    if oriented.n_edges == 0:
        return 0
    k = shape.columns_per_block or default_columns_per_block(oriented, shape.block_size)
    indptr, rows, cols, vertex = kernel_arrays(oriented)
    shared_bytes = shape.capacity * cols.dtype.itemsize
    if shared_bytes > device_facts().shared_per_block_optin:
        raise UnknownMethodError(f"capacity {shape.capacity} needs {shared_bytes} bytes of shared "
                                 "memory, more than a block can have")
    kernel = get_kernel("shared", "tc_shared", {"block_size": shape.block_size, "vertex_t": vertex},
                        folder=KERNELS)
    grid_size = shape.grid_size or min(ceil_div(oriented.n_vertices, k), MAX_GRID)
    result = cp.zeros(1, dtype=cp.uint64)
    with timed():
        launch(kernel, grid_size, shape.block_size,
               (indptr, rows, cols, np.int64(oriented.n_vertices), np.int64(k),
                np.int64(shape.capacity), result), shared_bytes)
    return read_count(result)
