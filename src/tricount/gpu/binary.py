"""Launcher of ``kernels/binary.cu``: binary-search intersections (Pearson et al. §II-D.2).

Counts: distinct triangles. For each oriented edge u -> v, each element of
the shorter of N+(u), N+(v) is sought in the longer one (min·log2(max)
reads). ``variant="thread"`` gives each edge to one thread; ``"warp"`` gives
each edge to a warp whose lanes split the shorter list. Both stride over the
edges with a grid that fills the device once.
"""

from __future__ import annotations

import numpy as np

from tricount.errors import UnknownMethodError
from tricount.gpu._common import KernelTimer, cupy, kernel_arrays, launch, read_count, resident_grid
from tricount.gpu._module import get_kernel

__all__ = ["count_binary", "BINARY_BLOCK_SIZE", "BINARY_VARIANTS"]

#: 256 threads per block: CuPy's and CUB's usual default; not tuned.
BINARY_BLOCK_SIZE = 256
BINARY_VARIANTS = ("warp", "thread")
#: Default variant (measured in benchmarks/gpu_notes.md).
BINARY_DEFAULT_VARIANT = "warp"


def count_binary(oriented, *, variant: str = BINARY_DEFAULT_VARIANT,
                 block_size: int = BINARY_BLOCK_SIZE, grid_size: int | None = None):
    """Triangles of an oriented CSR; returns ``(n_triangles, kernel_seconds)``."""
    cp = cupy()
    if variant not in BINARY_VARIANTS:
        raise UnknownMethodError(
            f"binary variant {variant!r} is unknown; choose one of {', '.join(BINARY_VARIANTS)}")
    if oriented.n_edges == 0:
        return 0, 0.0
    indptr, rows, cols, vertex = kernel_arrays(oriented)
    kernel = get_kernel("binary", f"tc_binary_{variant}", block_size=block_size, vertex_t=vertex)
    per_block = block_size if variant == "thread" else block_size // 32
    if grid_size is None:
        grid_size = resident_grid(kernel, block_size, work_blocks=-(-oriented.n_edges // per_block))
    result = cp.zeros(1, dtype=cp.uint64)
    with KernelTimer() as timer:
        launch(kernel, grid_size, block_size, (indptr, rows, cols, np.int64(oriented.n_edges), result))
    return read_count(result), timer.seconds
