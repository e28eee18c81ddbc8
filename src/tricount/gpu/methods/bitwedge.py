"""Launcher of ``kernels/bitwedge.cu``: pairs cut into tasks of equal cost, wedges closed by bit tests.

Counts: distinct triangles. Input: an oriented COO+CSR with CuPy arrays.
The launcher lists *pairs* (x, y), one per edge that can close a triangle,
grouped by x, with the running sum of their wedges (the entries of N+(y));
cuts the pairs into tasks of about equal cost (wedges, pairs and changes of
x, see :func:`pair_costs`), one per resident warp by default; and the
kernel's warps test their wedges against a bitmap of N+(x). Two ways to pair:

- ``"owner"`` (the default): hash's plan
  (:func:`tricount.gpu.prepare.plan_partners`): each edge goes to the end
  with the longer out-list and the other end's list is probed,
  Σ min(d+(u), d+(v)) wedges, for one sort of the edges.
- ``"anchor"``: the edges u -> v as they lie in the CSR (x = u, y = v),
  skipping edges that cannot close a triangle (u's last out-neighbour when
  the orientation follows the ids, out-degree below two otherwise):
  Σ d+(v) wedges, 1.1-1.7 times as many on the small real graphs, and no sort.

Bitmaps of n bits per warp live in shared memory or in per-warp slices of a
global array, as the plan says (:class:`~tricount.gpu.plan.BitwedgeShape`);
the global ones stay in the caches while the tested ids crowd into few words
(R-MAT scale 18) and not when they spread (scale 21). Pairs, costs and tasks
are counting work; the timed region is the launch alone.
"""

from __future__ import annotations

import numpy as np

from tricount.gpu._module import get_kernel
from tricount.gpu.device import (ceil_div, cupy, free_device_bytes, kernel_arrays, launch,
                                 read_count, require_memory, resident_grid)
from tricount.gpu.plan import (GLOBAL_BITMAP_MEMORY_SHARE, ID_ORDERED, BitwedgeShape,
                               bitmap_bytes)
from tricount.gpu.prepare import plan_partners

__all__ = ["count_bitwedge", "wedge_pairs", "kernel_defines", "DEFAULT_DEFINES"]


def kernel_defines(shape: BitwedgeShape, *, vertex_t: str, edge_t: str, wedge_t: str) -> dict:
    """Every define of ``kernels/bitwedge.cu`` for a resolved shape and the arrays' types."""
    return {"block_size": shape.block_size, "vertex_t": vertex_t, "unroll": shape.unroll,
            "min_blocks": shape.min_blocks, "on_chip": int(shape.bitmaps == "shared"),
            "set_batch": shape.set_batch, "edge_t": edge_t, "wedge_t": wedge_t}


#: The file's ``#ifndef`` defaults: the plan's shape with bitmaps on chip, general types.
DEFAULT_DEFINES = {"bitwedge": kernel_defines(BitwedgeShape().resolve(0), vertex_t="int",
                                              edge_t="long long", wedge_t="unsigned long long")}


def wedge_pairs(oriented, pairs: str = "owner"):
    """``(table, probe, before)``: the pairs (x, y) grouped by x, every one with at
    least one wedge, and the exclusive running sum of their wedges (int64,
    n_pairs + 1 entries; ``before[-1]`` is the total)."""
    cp = cupy()
    indptr, rows, cols = oriented.indptr, oriented.rows, oriented.indices
    if pairs == "owner":
        plan = plan_partners(oriented)
        if plan.n_pairs == 0:
            return cols[:0], cols[:0], cp.zeros(1, dtype=cp.int64)
        return plan.owners, plan.partners, plan.running
    out_degree = cp.diff(indptr)
    work = out_degree[cols]
    if oriented.order in ID_ORDERED:
        # N+(u) is sorted in the orientation's order, so a w closing u -> v comes
        # after v in N+(u): u's last edge closes nothing (nor does a lone one).
        work[indptr[1:][out_degree > 0] - 1] = 0
    else:
        work[out_degree[rows] < 2] = 0
    keep = cp.flatnonzero(work)
    before = cp.zeros(keep.shape[0] + 1, dtype=cp.int64)
    cp.cumsum(work[keep], out=before[1:])
    return rows[keep], cols[keep], before


def pair_costs(table, before, out_degree, pair_cost: int, anchor_cost: int):
    """Exclusive running sum (int64, n_pairs + 1 entries) of every pair's cost in
    wedges: its work, ``pair_cost``, and where the table vertex x changes,
    ``anchor_cost`` plus d+(x) (the bitmap is cleared and set again)."""
    cp = cupy()
    n_pairs = int(table.shape[0])
    changes = cp.ones(n_pairs, dtype=cp.bool_)
    changes[1:] = table[1:] != table[:-1]
    cost = cp.diff(before) + int(pair_cost)
    cost += changes * (int(anchor_cost) + out_degree[table])
    running = cp.zeros(n_pairs + 1, dtype=cp.int64)
    cp.cumsum(cost, out=running[1:])
    return running


def task_starts(running_cost, n_tasks: int):
    """``n_tasks + 1`` pair positions cutting the pairs into tasks of about equal cost
    (every cost is positive, so the last position is the number of pairs)."""
    cp = cupy()
    targets = cp.arange(n_tasks + 1, dtype=cp.int64) * int(running_cost[-1]) // n_tasks
    return cp.searchsorted(running_cost, targets, side="left")


def count_bitwedge(oriented, shape: BitwedgeShape, timed) -> int:
    """Triangles of an oriented CSR; ``timed()`` wraps the launch."""
    cp = cupy()
    n, m = oriented.n_vertices, oriented.n_edges
    if m == 0:
        return 0
    idx = oriented.indices.dtype.itemsize
    # Per edge at the peak: the plan's keys and their sort buffer (16), its table and
    # probe ids, the running sums of wedges and of costs (16), a cost gather (8).
    require_memory(m * (2 * idx + 40), f"bitwedge: pairs of {m} edges")
    indptr, _rows, cols, vertex = kernel_arrays(oriented)
    table, probe, before = wedge_pairs(oriented, shape.pairs)
    n_pairs = int(table.shape[0])
    total = int(before[-1]) if n_pairs else 0
    if total == 0:
        return 0
    n_words = ceil_div(n, 32)
    warp_bytes = bitmap_bytes(n)
    block_size = shape.block_size
    warps_per_block = block_size // 32
    on_chip = shape.bitmaps == "shared"
    shared_bytes = shape.shared_bytes(n)
    edge32 = shape.edge32 and m < 2**31 and n_pairs < 2**31
    edge_dtype = cp.uint32 if edge32 else cp.int64
    wedge32 = shape.wedge32 and total < 2**31  # windows run up to 256 wedges past the total
    wedge_dtype = cp.uint32 if wedge32 else cp.uint64
    kernel = get_kernel("bitwedge", "tc_bitwedge", kernel_defines(
        shape, vertex_t=vertex, edge_t="unsigned int" if edge32 else "long long",
        wedge_t="unsigned int" if wedge32 else "unsigned long long"))
    grid_size = shape.grid_size
    if grid_size is None:
        grid_size = resident_grid(kernel, block_size, shared_bytes)
        if not on_chip:
            budget = int(GLOBAL_BITMAP_MEMORY_SHARE * free_device_bytes())
            grid_size = max(1, min(grid_size, budget // (warps_per_block * warp_bytes)))
    out_degree = cp.diff(indptr)
    cost = pair_costs(table, before, out_degree, shape.pair_cost, shape.anchor_cost)
    n_tasks = max(1, min(grid_size * warps_per_block * int(shape.tasks_per_warp),
                         int(cost[-1]) // int(shape.min_task)))
    task_first = task_starts(cost, n_tasks).astype(edge_dtype)
    grid_size = max(1, min(grid_size, ceil_div(n_tasks, warps_per_block)))
    if on_chip:
        global_bits = cp.zeros(1, dtype=cp.uint32)
    else:
        need = grid_size * warps_per_block * warp_bytes
        require_memory(need, f"bitwedge: {grid_size * warps_per_block} bitmaps of {n} bits")
        global_bits = cp.zeros(need // 4, dtype=cp.uint32)
    result = cp.zeros(1, dtype=cp.uint64)
    args = (indptr.astype(edge_dtype, copy=False), cols, table, probe,
            before.astype(wedge_dtype), task_first, np.int64(n_tasks), np.int64(n_words),
            global_bits, result)
    with timed():
        launch(kernel, grid_size, block_size, args, shared_bytes)
    return read_count(result)
