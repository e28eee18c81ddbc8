"""Launcher of ``kernels/binary.cu``: binary-search intersections (Pearson et al. §II-D.2).

Counts: distinct triangles. For each oriented edge u -> v, each element of
the shorter of N+(u), N+(v) is sought in the longer one (min·log2(max)
reads). ``variant="thread"`` gives each edge to one thread; ``"warp"`` gives
each edge to a warp whose lanes split the shorter list. Both stride over the
edges with a grid that fills the device once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from baselines import KERNELS
from tricount.errors import UnknownMethodError
from tricount.gpu._module import get_kernel
from tricount.gpu.device import cupy, kernel_arrays, launch, read_count, resident_grid

#: 256 threads per block: CuPy's and CUB's usual default; not tuned.
BINARY_BLOCK_SIZE = 256
BINARY_VARIANTS = ("warp", "thread")


@dataclass(frozen=True)
class BinaryShape:
    method: ClassVar[str] = "binary"
    launcher: ClassVar[str] = "baselines.binary:count_binary"

    variant: str = "warp"
    block_size: int = BINARY_BLOCK_SIZE
    grid_size: int | None = None

    def __post_init__(self):
        if self.variant not in BINARY_VARIANTS:
            raise UnknownMethodError(f"binary variant {self.variant!r} is unknown; choose one of "
                                     f"{', '.join(BINARY_VARIANTS)}")


SHAPE = BinaryShape
DEFAULT_DEFINES = {"binary": {"block_size": BINARY_BLOCK_SIZE, "vertex_t": "int"}}


def count_binary(oriented, shape: BinaryShape, timed) -> int:
    """Triangles of an oriented CSR."""
    cp = cupy()
    if oriented.n_edges == 0:
        return 0
    indptr, rows, cols, vertex = kernel_arrays(oriented)
    kernel = get_kernel("binary", f"tc_binary_{shape.variant}",
                        {"block_size": shape.block_size, "vertex_t": vertex}, folder=KERNELS)
    per_block = shape.block_size if shape.variant == "thread" else shape.block_size // 32
    grid_size = shape.grid_size
    if grid_size is None:
        grid_size = resident_grid(kernel, shape.block_size,
                                  work_blocks=-(-oriented.n_edges // per_block))
    result = cp.zeros(1, dtype=cp.uint64)
    with timed():
        launch(kernel, grid_size, shape.block_size,
               (indptr, rows, cols, np.int64(oriented.n_edges), result))
    return read_count(result)
