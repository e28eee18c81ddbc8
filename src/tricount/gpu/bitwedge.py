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
  Σ d+(v) wedges, 1.1-1.7 times as many on the real graphs of issue 7, and
  no sort.

Bitmaps of n bits per warp live in shared memory while that leaves room for
32 warps per multiprocessor (``bitmaps="auto"``: up to 7 KiB, 57,344
vertices), else in per-warp slices of a global array, which the caches hold
well while the tested ids crowd into few words (R-MAT scale 18) and badly
when they do not (scale 21: 15.1 ms against hash's 8.3; H100, run 69 of
benchmarks/gpu_notes.md). Pairs, costs and tasks are preparation (in
``count_s``); ``kernel_s`` is the launch alone.

Tunables: ``pairs``, ``bitmaps`` ("auto", "shared" or "global"), ``unroll``
(windows of 32 wedges whose loads are in flight together), ``tasks_per_warp``
and ``min_task`` (tasks per resident warp, and the least cost of a task),
``pair_cost`` and ``anchor_cost`` (the cost model's weights, in wedges),
``min_blocks`` (resident blocks the compiler must allow, which caps
registers), ``edge32`` and ``wedge32`` (32-bit positions in the kernel when
they fit), ``block_size`` and ``grid_size``.
"""

from __future__ import annotations

import numpy as np

from tricount.errors import UnknownMethodError
from tricount.gpu import _common
from tricount.gpu._common import (
    KernelTimer,
    ceil_div,
    cupy,
    device_facts,
    kernel_arrays,
    launch,
    read_count,
    require_memory,
    resident_grid,
)
from tricount.gpu._module import get_kernel
from tricount.gpu.wedge import ID_ORDERED

__all__ = ["count_bitwedge", "wedge_pairs", "BITWEDGE_BLOCK_SIZE", "BITWEDGE_SHARED_MAX_BYTES"]

#: H100, runs 66-67 of benchmarks/gpu_notes.md (kernel ms, owner pairs): blocks of
#: 256 were the best overall: on the real graphs of issue 7 as fast as 128 or
#: faster (soc-Epinions1 0.038 against 0.042), where 512 was up to 32 % slower
#: (0.050); on R-MAT 18 512 was 4 % faster (0.625 against 0.648; 128: 0.659).
BITWEDGE_BLOCK_SIZE = 256
#: "auto" keeps the bitmaps in shared memory while one warp's n bits take at most
#: this many bytes: 4 blocks of 8 warps per multiprocessor. soc-Epinions1 (9.5 KiB
#: per warp, 16 warps on chip) took 0.038 ms in shared and 0.035 in global memory
#: (run 67).
BITWEDGE_SHARED_MAX_BYTES = 7 * 1024
#: 4 windows in flight: 6 and 8 were within 10 % either way, 2 up to 36 % slower
#: (runs 65-67).
BITWEDGE_UNROLL = 4
#: One task per resident warp: 2 and 4 were as fast or up to 40 % slower (runs 65-66).
BITWEDGE_TASKS_PER_WARP = 1
#: Tasks cost at least this many wedges (see pair_costs).
BITWEDGE_MIN_TASK = 256
#: Costs in wedges of a pair's own reads, and of changing the bitmap's vertex (on
#: top of its out-degree). Tasks of equal wedges alone left some warps 20-40 times
#: the mean work (a task of many light tables: soc-Epinions1 0.48 ms, run 64);
#: anchor costs of 64 or 1,024 were up to 60 % slower than 256 (runs 65-66).
BITWEDGE_PAIR_COST = 8
BITWEDGE_ANCHOR_COST = 256
PAIRINGS = ("anchor", "owner")
BITMAP_PLACES = ("auto", "shared", "global")
#: Global bitmaps may take at most this share of the free device memory.
GLOBAL_BITMAP_MEMORY_SHARE = 0.25


def wedge_pairs(oriented, pairs: str = "owner"):
    """``(table, probe, before)``: the pairs (x, y) grouped by x, every one with at
    least one wedge, and the exclusive running sum of their wedges (int64,
    n_pairs + 1 entries; ``before[-1]`` is the total)."""
    cp = cupy()
    indptr, rows, cols = oriented.indptr, oriented.rows, oriented.indices
    if pairs == "owner":
        from tricount.gpu.prepare import plan_partners

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


def count_bitwedge(oriented, *, pairs: str = "owner", bitmaps: str = "auto",
                   unroll: int = BITWEDGE_UNROLL, tasks_per_warp: int = BITWEDGE_TASKS_PER_WARP,
                   min_task: int = BITWEDGE_MIN_TASK, pair_cost: int = BITWEDGE_PAIR_COST,
                   anchor_cost: int = BITWEDGE_ANCHOR_COST, min_blocks: int = 1,
                   edge32: bool = True, wedge32: bool = True,
                   block_size: int = BITWEDGE_BLOCK_SIZE, grid_size: int | None = None):
    """Triangles of an oriented CSR; returns ``(n_triangles, kernel_seconds)``."""
    cp = cupy()
    if pairs not in PAIRINGS or bitmaps not in BITMAP_PLACES or not 1 <= unroll <= 8 \
            or tasks_per_warp < 1 or min_task < 1 or pair_cost < 1 or anchor_cost < 0 \
            or not 1 <= min_blocks <= 32 or block_size % 32:
        raise UnknownMethodError(
            f"bitwedge: pairs must be one of {', '.join(PAIRINGS)}, bitmaps one of "
            f"{', '.join(BITMAP_PLACES)}, unroll 1 to 8, tasks_per_warp, min_task and "
            "pair_cost >= 1, anchor_cost >= 0, min_blocks 1 to 32, block_size a multiple of 32")
    n, m = oriented.n_vertices, oriented.n_edges
    if m == 0:
        return 0, 0.0
    idx = oriented.indices.dtype.itemsize
    # Per edge at the peak: the plan's keys and their sort buffer (16), its table and
    # probe ids, the running sums of wedges and of costs (16), a cost gather (8).
    require_memory(m * (2 * idx + 40), f"bitwedge: pairs of {m} edges")
    indptr, _rows, cols, vertex = kernel_arrays(oriented)
    table, probe, before = wedge_pairs(oriented, pairs)
    n_pairs = int(table.shape[0])
    total = int(before[-1]) if n_pairs else 0
    if total == 0:
        return 0, 0.0
    n_words = ceil_div(n, 32)
    warp_bytes = 4 * n_words
    warps_per_block = block_size // 32
    if bitmaps == "auto":
        bitmaps = "shared" if warp_bytes <= BITWEDGE_SHARED_MAX_BYTES else "global"
    on_chip = bitmaps == "shared"
    shared_bytes = warps_per_block * warp_bytes if on_chip else 0
    limit = device_facts()["shared_per_block_optin"]
    if shared_bytes > limit:
        raise UnknownMethodError(
            f"bitwedge: {warps_per_block} bitmaps of {n} vertices need {shared_bytes} bytes of "
            f"shared memory, a block can have {limit}; use bitmaps='global' or smaller blocks")
    edge32 = edge32 and m < 2**31 and n_pairs < 2**31
    edge_dtype = cp.uint32 if edge32 else cp.int64
    wedge32 = wedge32 and total < 2**31  # windows run up to 256 wedges past the total
    wedge_dtype = cp.uint32 if wedge32 else cp.uint64
    kernel = get_kernel("bitwedge", "tc_bitwedge", block_size=block_size, vertex_t=vertex,
                        unroll=unroll, min_blocks=min(min_blocks, max(1, 2048 // block_size)),
                        on_chip=int(on_chip), edge_t="unsigned int" if edge32 else "long long",
                        wedge_t="unsigned int" if wedge32 else "unsigned long long")
    if grid_size is None:
        grid_size = resident_grid(kernel, block_size, shared_bytes)
        if not on_chip:
            budget = int(GLOBAL_BITMAP_MEMORY_SHARE * _common.free_device_bytes())
            grid_size = max(1, min(grid_size, budget // (warps_per_block * warp_bytes)))
    out_degree = cp.diff(indptr)
    cost = pair_costs(table, before, out_degree, pair_cost, anchor_cost)
    n_tasks = max(1, min(grid_size * warps_per_block * int(tasks_per_warp),
                         int(cost[-1]) // int(min_task)))
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
    with KernelTimer() as timer:
        launch(kernel, grid_size, block_size, args, shared_bytes)
    return read_count(result), timer.seconds
