"""Launcher of ``kernels/truss.cu``: one frontier of the truss peeling on the GPU.

Computes: the support updates of removing one frontier of edges, every edge of
which has support ``level``; edges that fall to ``level`` form the next
frontier (see :mod:`tricount.local._truss`, which drives the levels, and
:mod:`tricount.cpu.truss`, the CPU twin with the same signature). A group of
lanes takes each frontier edge (u, v), binary-searches the shorter of N(u),
N(v) in the longer, and lowers the supports of the surviving edges of each
destroyed triangle with atomics; one launch per frontier, so every frontier is
processed in parallel.
"""

from __future__ import annotations

import numpy as np

from tricount.gpu._local import local_defines
from tricount.gpu._module import get_kernel
from tricount.gpu.device import c_type, ceil_div, cupy, launch, resident_grid

__all__ = ["peel_frontier", "TRUSS_BLOCK_SIZE", "TRUSS_GROUP_SIZE"]

#: 256 threads per block: CuPy's and CUB's usual default; not tuned.
TRUSS_BLOCK_SIZE = 256
#: Lanes per frontier edge: a full warp, because the symmetric lists are longer
#: than oriented ones (hubs keep all their neighbours); not yet measured.
TRUSS_GROUP_SIZE = 32
#: The file's ``#ifndef`` defaults.
DEFAULT_DEFINES = {"truss": local_defines(block_size=TRUSS_BLOCK_SIZE, group_size=TRUSS_GROUP_SIZE,
                                          vertex_t="int", edge_t="int")}


def peel_frontier(adjacency, edge_lo, edge_hi, curr, level, support, in_curr, removed,
                  next_buf, next_count, *, block_size: int = TRUSS_BLOCK_SIZE,
                  group_size: int = TRUSS_GROUP_SIZE) -> int:
    """Remove the frontier ``curr`` at ``level``; returns how many edges ``next_buf`` holds.

    CuPy arrays: ``adjacency`` is ``(indptr, cols, eid)``; ``support`` (int32)
    is updated in place; ``next_count`` (one int64) is reset here. Synchronizes
    to read the count.
    """
    cp = cupy()
    adj_indptr, adj_cols, adj_eid = adjacency
    next_count.fill(0)
    n_curr = int(curr.shape[0])
    if n_curr == 0:
        return 0
    kernel = get_kernel("truss", "tc_truss_peel", local_defines(
        block_size=block_size, group_size=group_size, vertex_t=c_type(adj_cols.dtype),
        edge_t=c_type(adj_eid.dtype)))
    grid = resident_grid(kernel, block_size, work_blocks=ceil_div(n_curr, block_size // group_size))
    curr = cp.ascontiguousarray(curr, dtype=adj_eid.dtype)
    launch(kernel, grid, block_size,
           (adj_indptr, adj_cols, adj_eid, edge_lo, edge_hi, curr, np.int64(n_curr),
            np.int32(level), support, in_curr, removed, next_buf, next_count))
    return int(next_count.get()[0])
