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

from baselines import count_by_edges
from tricount.gpu.device import device_facts

#: Polak §III-C found 64 threads per block and 8 blocks per multiprocessor best
#: on NVS 5200M, C2050 and GTX 980. On an H100 (R-MAT scale 21) 64 × 8 took
#: 82.1 ms and 256 × 32 took 41.1 ms, the best of the nine sizes tried
#: (benchmarks/results/gpu_methods_h100.md, its sweep).
MERGE_BLOCK_SIZE = 256
MERGE_BLOCKS_PER_SM = 32


@dataclass(frozen=True)
class MergeShape:
    """Launch shape of ``merge``: Polak's grid of blocks per multiprocessor."""

    method: ClassVar[str] = "merge"
    launcher: ClassVar[str] = "baselines.merge:count_merge"

    block_size: int = MERGE_BLOCK_SIZE  # threads per block
    blocks_per_sm: int = MERGE_BLOCKS_PER_SM  # Polak's grid: blocks per multiprocessor
    grid_size: int | None = None  # None: blocks_per_sm on every multiprocessor


SHAPE = MergeShape
#: The file's ``#ifndef`` defaults.
DEFAULT_DEFINES = {"merge": {"block_size": MERGE_BLOCK_SIZE, "vertex_t": "int"}}


def count_merge(oriented, shape: MergeShape, timed) -> int:
    """Triangles of an oriented CSR on the GPU."""
    return count_by_edges(
        "merge", "tc_merge", oriented, shape, timed,
        grid=lambda _: min(device_facts().sm_count * shape.blocks_per_sm,
                           -(-oriented.n_edges // shape.block_size)))
