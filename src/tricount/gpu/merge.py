"""Launcher of ``kernels/merge.cu``: Polak's forward algorithm, one thread per edge.

Counts: distinct triangles. Input: an oriented COO+CSR with CuPy arrays
(degree orientation by default, see :mod:`tricount.gpu.engine`). Each
oriented edge u -> v adds |N+(u) ∩ N+(v)|, merged with two pointers and one
read per step; a triangle a < b < c is found only from edge a -> b.
The grid is Polak's shape: a fixed number of blocks per multiprocessor, each
thread striding over edges (thread i takes edges i, i + T, ...); the sizes
are re-measured on an H100 (Polak's 64 × 8 is ``block_size=64,
blocks_per_sm=8``).
"""

from __future__ import annotations

import numpy as np

from tricount.gpu._common import KernelTimer, cupy, device_facts, kernel_arrays, launch, read_count
from tricount.gpu._module import get_kernel

__all__ = ["count_merge", "MERGE_BLOCK_SIZE", "MERGE_BLOCKS_PER_SM"]

#: Polak §III-C found 64 threads per block and 8 blocks per multiprocessor best
#: on NVS 5200M, C2050 and GTX 980. On an H100 (R-MAT scale 21, 2026-11-22,
#: benchmarks/gpu_notes.md) 64 × 8 took 82.1 ms and 256 × 32 took 41.4 ms,
#: the best of the nine sizes tried.
MERGE_BLOCK_SIZE = 256
MERGE_BLOCKS_PER_SM = 32


def count_merge(oriented, *, block_size: int = MERGE_BLOCK_SIZE,
                blocks_per_sm: int = MERGE_BLOCKS_PER_SM, grid_size: int | None = None):
    """Triangles of an oriented CSR on the GPU; returns ``(n_triangles, kernel_seconds)``."""
    cp = cupy()
    if oriented.n_edges == 0:
        return 0, 0.0
    indptr, rows, cols, vertex = kernel_arrays(oriented)
    kernel = get_kernel("merge", "tc_merge", block_size=block_size, vertex_t=vertex)
    if grid_size is None:
        grid_size = min(device_facts()["sm_count"] * blocks_per_sm,
                        -(-oriented.n_edges // block_size))
    result = cp.zeros(1, dtype=cp.uint64)
    with KernelTimer() as timer:
        launch(kernel, grid_size, block_size, (indptr, rows, cols, np.int64(oriented.n_edges), result))
    return read_count(result), timer.seconds
