"""Launcher of ``kernels/dynamic.cu``: Pearson et al.'s dynamic kernel (Algorithm 2).

Counts: distinct triangles. Persistent warps (a grid that fills the device
once) take 32 edges at a time from an atomic counter and, per group, choose
one thread per edge merging, or the whole warp binary-searching one edge at a
time, by comparing summed costs: linear d+(u) + d+(v) against
``sf`` · min · log2(max). A larger ``sf`` favours the linear path.
"""

from __future__ import annotations

import numpy as np

from tricount.errors import UnknownMethodError
from tricount.gpu._common import KernelTimer, cupy, kernel_arrays, launch, read_count, resident_grid
from tricount.gpu._module import get_kernel

__all__ = ["count_dynamic", "DYNAMIC_SCALE_FACTOR", "DYNAMIC_BLOCK_SIZE"]

#: Pearson et al. §II-F, Fig. 2: "we select a scale factor of 2".
DYNAMIC_SCALE_FACTOR = 2.0
#: 256 threads (8 warps) per block; not tuned.
DYNAMIC_BLOCK_SIZE = 256


def count_dynamic(oriented, *, sf: float = DYNAMIC_SCALE_FACTOR,
                  block_size: int = DYNAMIC_BLOCK_SIZE, grid_size: int | None = None):
    """Triangles of an oriented CSR; returns ``(n_triangles, kernel_seconds)``."""
    cp = cupy()
    if not (sf >= 0 and np.isfinite(sf)):
        raise UnknownMethodError(f"dynamic needs a finite scale factor sf >= 0, got {sf}")
    if oriented.n_edges == 0:
        return 0, 0.0
    indptr, rows, cols, vertex = kernel_arrays(oriented)
    kernel = get_kernel("dynamic", "tc_dynamic", block_size=block_size, vertex_t=vertex)
    if grid_size is None:
        grid_size = resident_grid(kernel, block_size,
                                  work_blocks=-(-oriented.n_edges // block_size))
    next_edge = cp.zeros(1, dtype=cp.uint64)
    result = cp.zeros(1, dtype=cp.uint64)
    with KernelTimer() as timer:
        launch(kernel, grid_size, block_size,
               (indptr, rows, cols, np.int64(oriented.n_edges), np.float32(sf), next_edge, result))
    return read_count(result), timer.seconds
