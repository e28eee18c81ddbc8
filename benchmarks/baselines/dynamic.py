"""Launcher of ``kernels/dynamic.cu``: Pearson et al.'s dynamic kernel (Algorithm 2).

Counts: distinct triangles. Persistent warps (a grid that fills the device
once) take 32 edges at a time from an atomic counter and, per group, choose
one thread per edge merging, or the whole warp binary-searching one edge at a
time, by comparing summed costs: linear d+(u) + d+(v) against
``sf`` · min · log2(max). A larger ``sf`` favours the linear path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from baselines import KERNELS
from tricount.errors import UnknownMethodError
from tricount.gpu._module import get_kernel
from tricount.gpu.device import cupy, kernel_arrays, launch, read_count, resident_grid

#: Pearson et al. §II-F, Fig. 2: "we select a scale factor of 2".
DYNAMIC_SCALE_FACTOR = 2.0
#: 256 threads (8 warps) per block; not tuned.
DYNAMIC_BLOCK_SIZE = 256


@dataclass(frozen=True)
class DynamicShape:
    method: ClassVar[str] = "dynamic"
    launcher: ClassVar[str] = "baselines.dynamic:count_dynamic"

    sf: float = DYNAMIC_SCALE_FACTOR
    block_size: int = DYNAMIC_BLOCK_SIZE
    grid_size: int | None = None

    def __post_init__(self):
        if not (self.sf >= 0 and np.isfinite(self.sf)):
            raise UnknownMethodError(f"dynamic needs a finite scale factor sf >= 0, got {self.sf}")


SHAPE = DynamicShape
DEFAULT_DEFINES = {"dynamic": {"block_size": DYNAMIC_BLOCK_SIZE, "vertex_t": "int"}}


def count_dynamic(oriented, shape: DynamicShape, timed) -> int:
    """Triangles of an oriented CSR."""
    cp = cupy()
    if oriented.n_edges == 0:
        return 0
    indptr, rows, cols, vertex = kernel_arrays(oriented)
    kernel = get_kernel("dynamic", "tc_dynamic",
                        {"block_size": shape.block_size, "vertex_t": vertex}, folder=KERNELS)
    grid_size = shape.grid_size
    if grid_size is None:
        grid_size = resident_grid(kernel, shape.block_size,
                                  work_blocks=-(-oriented.n_edges // shape.block_size))
    next_edge = cp.zeros(1, dtype=cp.uint64)
    result = cp.zeros(1, dtype=cp.uint64)
    with timed():
        launch(kernel, grid_size, shape.block_size,
               (indptr, rows, cols, np.int64(oriented.n_edges), np.float32(shape.sf), next_edge,
                result))
    return read_count(result)
