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

from baselines import check_variant, count_by_edges
from tricount.gpu.device import resident_grid

#: 256 threads per block: CuPy's and CUB's usual default; not tuned.
BINARY_BLOCK_SIZE = 256
BINARY_VARIANTS = ("warp", "thread")
DEFAULT_DEFINES = {"binary": {"block_size": BINARY_BLOCK_SIZE, "vertex_t": "int"}}


@dataclass(frozen=True)
class BinaryShape:
    """Launch shape of ``binary``."""

    method: ClassVar[str] = "binary"
    launcher: ClassVar[str] = "baselines.binary:count_binary"

    variant: str = "warp"  # a warp per edge, or a thread per edge
    block_size: int = BINARY_BLOCK_SIZE  # threads per block
    grid_size: int | None = None  # None: blocks that fill the device once

    def __post_init__(self):
        check_variant("binary", self.variant, BINARY_VARIANTS)


SHAPE = BinaryShape


def count_binary(oriented, shape: BinaryShape, timed) -> int:
    """Triangles of an oriented CSR."""
    per_block = shape.block_size if shape.variant == "thread" else shape.block_size // 32
    return count_by_edges(
        "binary", f"tc_binary_{shape.variant}", oriented, shape, timed,
        grid=lambda kernel: resident_grid(kernel, shape.block_size,
                                          work_blocks=-(-oriented.n_edges // per_block)))
