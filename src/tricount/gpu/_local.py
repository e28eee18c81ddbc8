"""What the local computations' launchers share: the schedule of ``kernels/local.cuh``.

A group of lanes takes one oriented edge (or frontier edge) at a time,
striding over the grid; :mod:`.per_vertex`, :mod:`.edge_support` and
:mod:`.truss` launch their kernels through it.
"""

from __future__ import annotations

import numpy as np

from tricount.gpu._module import get_kernel
from tricount.gpu.device import ceil_div, cupy, kernel_arrays, launch, resident_grid

__all__ = ["local_defines", "edge_group_counts"]


def local_defines(*, block_size: int, group_size: int, vertex_t: str, edge_t: str) -> dict:
    """Every define of a kernel file built on ``local.cuh`` (per vertex, edge support, truss)."""
    return {"block_size": block_size, "group_size": group_size, "vertex_t": vertex_t,
            "edge_t": edge_t}


def edge_group_counts(stem: str, name: str, oriented, size: int, *, block_size: int,
                      group_size: int, grid_size: int | None = None):
    """Run a kernel of the local.cuh schedule (a group of ``group_size`` lanes per
    oriented edge, grid-stride) with arguments ``(indptr, rows, cols, n_edges, out)``
    and return ``out``: ``size`` 64-bit counters, zeroed first, as int64.

    A grid of ``None`` fills the device once, capped at one group per edge.
    """
    cp = cupy()
    out = cp.zeros(size, dtype=cp.uint64)
    if oriented.n_edges:
        indptr, rows, cols, vertex = kernel_arrays(oriented)
        edge_t = "int" if oriented.n_edges < 2**31 else "long long"
        kernel = get_kernel(stem, name, local_defines(block_size=block_size, group_size=group_size,
                                                      vertex_t=vertex, edge_t=edge_t))
        if grid_size is None:
            grid_size = resident_grid(kernel, block_size,
                                      work_blocks=ceil_div(oriented.n_edges, block_size // group_size))
        launch(kernel, grid_size, block_size, (indptr, rows, cols, np.int64(oriented.n_edges), out))
    return out.view(cp.int64)
