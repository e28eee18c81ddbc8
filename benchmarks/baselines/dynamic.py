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

from baselines import count_by_edges
from tricount.errors import UnknownMethodError
from tricount.gpu.device import cupy, resident_grid

#: Pearson et al. §II-F, Fig. 2: "we select a scale factor of 2".
DYNAMIC_SCALE_FACTOR = 2.0
#: 256 threads (8 warps) per block; not tuned.
DYNAMIC_BLOCK_SIZE = 256
DEFAULT_DEFINES = {"dynamic": {"block_size": DYNAMIC_BLOCK_SIZE, "vertex_t": "int"}}


@dataclass(frozen=True)
class DynamicShape:
    """Launch shape of ``dynamic``, with Pearson et al.'s scale factor."""

    method: ClassVar[str] = "dynamic"
    launcher: ClassVar[str] = "baselines.dynamic:count_dynamic"

    sf: float = DYNAMIC_SCALE_FACTOR  # weight of the binary search's cost
    block_size: int = DYNAMIC_BLOCK_SIZE  # threads per block
    grid_size: int | None = None  # None: blocks that fill the device once

    def __post_init__(self):
        if not (self.sf >= 0 and np.isfinite(self.sf)):
            raise UnknownMethodError(f"dynamic needs a finite scale factor sf >= 0, got {self.sf}")


SHAPE = DynamicShape


def count_dynamic(oriented, shape: DynamicShape, timed) -> int:
    """Triangles of an oriented CSR."""
    next_edge = cupy().zeros(1, dtype=np.uint64)
    return count_by_edges(
        "dynamic", "tc_dynamic", oriented, shape, timed, extra=(np.float32(shape.sf), next_edge),
        grid=lambda kernel: resident_grid(kernel, shape.block_size,
                                          work_blocks=-(-oriented.n_edges // shape.block_size)))
