"""What the local computations' launchers share: the schedule of ``kernels/local.cuh``.

A group of lanes takes one oriented edge (or frontier edge) at a time,
striding over the grid; :mod:`.per_vertex`, :mod:`.edge_support` and
:mod:`.truss` launch their kernels through it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tricount.gpu._module import get_kernel
from tricount.gpu.device import ceil_div, cupy, kernel_arrays, launch, resident_grid

__all__ = ["LocalKernel", "local_defines"]


def local_defines(*, block_size: int, group_size: int, vertex_t: str, edge_t: str) -> dict:
    """Every define of a kernel file built on ``local.cuh`` (per vertex, edge support, truss)."""
    return {"block_size": block_size, "group_size": group_size, "vertex_t": vertex_t,
            "edge_t": edge_t}


@dataclass(frozen=True)
class LocalKernel:
    """A kernel of the group-per-edge schedule with arguments ``(indptr, rows, cols,
    n_edges, out)``: ``out`` holds a 64-bit counter per vertex, or per edge
    (``per_edge``); ``block_size`` and ``group_size`` are its defaults."""

    stem: str
    name: str
    per_edge: bool
    block_size: int
    group_size: int

    @property
    def default_defines(self) -> dict:
        """The file's ``#ifndef`` defaults (tests/gpu/test_kernel_defines.py compares)."""
        return {self.stem: local_defines(block_size=self.block_size, group_size=self.group_size,
                                         vertex_t="int", edge_t="int")}

    def counts(self, oriented, *, block_size: int | None = None, group_size: int | None = None,
               grid_size: int | None = None):
        """Run the kernel on an oriented CSR and return its counters (CuPy int64).

        A grid of ``None`` fills the device once, capped at one group per edge.
        """
        cp = cupy()
        block_size = block_size or self.block_size
        group_size = group_size or self.group_size
        out = cp.zeros(oriented.n_edges if self.per_edge else oriented.n_vertices,
                       dtype=cp.uint64)
        if oriented.n_edges:
            indptr, rows, cols, vertex = kernel_arrays(oriented)
            edge_t = "int" if oriented.n_edges < 2**31 else "long long"
            kernel = get_kernel(self.stem, self.name, local_defines(
                block_size=block_size, group_size=group_size, vertex_t=vertex, edge_t=edge_t))
            if grid_size is None:
                grid_size = resident_grid(kernel, block_size, work_blocks=ceil_div(
                    oriented.n_edges, block_size // group_size))
            launch(kernel, grid_size, block_size,
                   (indptr, rows, cols, np.int64(oriented.n_edges), out))
        return out.view(cp.int64)
