"""Launcher of ``kernels/merge.cu``: Polak's forward algorithm, one thread per edge.

Counts: distinct triangles. Input: an oriented COO+CSR with CuPy arrays. Each
oriented edge u -> v adds |N+(u) ∩ N+(v)|, merged with two pointers and one
read per step; a triangle a < b < c is found only from edge a -> b. The grid
is Polak's shape: a fixed number of blocks per multiprocessor, each thread
striding over edges (thread i takes edges i, i + T, ...). Polak's 64 × 8 is
``block_size=64, blocks_per_sm=8``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from baselines import KERNELS
from tricount.gpu._module import get_kernel
from tricount.gpu.device import cupy, device_facts, kernel_arrays, launch, read_count

#: Polak §III-C found 64 threads per block and 8 blocks per multiprocessor best
#: on NVS 5200M, C2050 and GTX 980. On an H100 (R-MAT scale 21) 64 × 8 took
#: 82.1 ms and 256 × 32 took 41.1 ms, the best of the nine sizes tried
#: (benchmarks/results/gpu_methods_h100.md, its sweep).
MERGE_BLOCK_SIZE = 256
MERGE_BLOCKS_PER_SM = 32


@dataclass(frozen=True)
class MergeShape:
    method: ClassVar[str] = "merge"
    launcher: ClassVar[str] = "baselines.merge:count_merge"

    block_size: int = MERGE_BLOCK_SIZE
    blocks_per_sm: int = MERGE_BLOCKS_PER_SM
    grid_size: int | None = None


SHAPE = MergeShape


def kernel_defines(shape, *, vertex_t: str) -> dict:
    return {"block_size": shape.block_size, "vertex_t": vertex_t}


DEFAULT_DEFINES = {"merge": kernel_defines(MergeShape(), vertex_t="int")}


def count_merge(oriented, shape: MergeShape, timed) -> int:
    """Triangles of an oriented CSR on the GPU."""
    cp = cupy()
    if oriented.n_edges == 0:
        return 0
    indptr, rows, cols, vertex = kernel_arrays(oriented)
    kernel = get_kernel("merge", "tc_merge", kernel_defines(shape, vertex_t=vertex),
                        folder=KERNELS)
    grid_size = shape.grid_size
    if grid_size is None:
        grid_size = min(device_facts().sm_count * shape.blocks_per_sm,
                        -(-oriented.n_edges // shape.block_size))
    result = cp.zeros(1, dtype=cp.uint64)
    with timed():
        launch(kernel, grid_size, shape.block_size,
               (indptr, rows, cols, np.int64(oriented.n_edges), result))
    return read_count(result)
