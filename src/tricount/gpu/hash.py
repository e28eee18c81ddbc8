"""Launcher of ``kernels/hash.cu``: owner-centric hash-set counting (tricount's own method).

Counts: distinct triangles. :func:`tricount.prep.partners.plan_partners`
gives every edge that can close a triangle to the end with the longer
out-list (its *owner*); :func:`~tricount.prep.partners.split_tasks` cuts each
owner's partners into tasks of bounded work (both run as their fused GPU
twins of :mod:`tricount.gpu.prepare`); this launcher orders the tasks —
those with at least ``block_work`` probes, or whose owner is too long for a
warp's table, go to whole blocks, the rest to single warps, heaviest first in
each part — and runs one kernel launch. Plan, tasks and order are
preparation (like orientation): they are in the engine's ``count_s``;
``kernel_s`` is the launch alone.

Tunables: ``block_work`` (probes that earn a task a block), ``warp_slots``
(table slots per warp, a power of two), ``long_list`` (partner lists at least
this long are read by a whole warp), ``block_table_bytes`` (largest table of a
block task; longer out-lists are binary-searched in global memory instead),
``spread`` (slots per key), ``max_task`` (probes per task; default from the
total work and the device's size, at least ``min_task``), ``unroll`` (loads in
flight per lane on long lists) and ``min_blocks`` (resident blocks the
compiler must allow, which caps registers; these two, ``warp_slots``,
``long_list``, ``block_size`` and ``block_table_bytes`` default by graph size),
``batch_bounds`` (fetch 32 lists' bounds per warp at once), ``edge32``
(32-bit edge positions in the kernel when they fit; False forces 64-bit),
``tasks_per_warp`` (tasks per resident warp when cutting owners) and
``by_owner`` (launch tasks in owner order instead of heaviest first).
"""

from __future__ import annotations

import numpy as np

from tricount.errors import UnknownMethodError
from tricount.gpu._common import (KernelTimer, cupy, device_facts, kernel_arrays, launch,
                                  read_count, resident_grid)
from tricount.gpu._module import get_kernel
from tricount.gpu.prepare import plan_partners, split_tasks

__all__ = ["count_hash", "HASH_BLOCK_SIZE", "HASH_WARP_SLOTS", "HASH_LONG_LIST",
           "HASH_SMALL_WARP_SLOTS", "HASH_SMALL_LONG_LIST",
           "HASH_BLOCK_WORK", "HASH_BLOCK_TABLE_BYTES", "HASH_TABLE_SPREAD",
           "HASH_HUGE_BLOCK_SIZE", "HASH_HUGE_BLOCK_TABLE_BYTES"]

#: 256 threads (8 warps) per block, as dynamic.
HASH_BLOCK_SIZE = 256
#: 512 slots per warp: owners with d+ <= 128 fit a warp's table at load <= 1/4.
HASH_WARP_SLOTS = 512
#: Lists of 16 or more are read by a warp (half its lanes busy at worst).
HASH_LONG_LIST = 16
#: Below HASH_LARGE_EDGES, 1,024 slots per warp (owners up to d+ = 256 stay with a
#: warp) and warp reads from 32 entries: R-MAT 18 0.745 ms against 0.895, the
#: real graphs of issue 7 5-15 % faster; at R-MAT 21 the larger tables cost 10 %
#: (H100, runs 9-10 of gpu_notes.md's third session).
HASH_SMALL_WARP_SLOTS = 1024
HASH_SMALL_LONG_LIST = 32
#: An owner with this many probes or more takes a whole block.
HASH_BLOCK_WORK = 1 << 14
#: Tables of block owners up to 32 KiB (out-degree 2,048 with int ids at spread 4).
HASH_BLOCK_TABLE_BYTES = 32 * 1024
#: Table slots >= 4 d+(owner): linear probing at load <= 1/4 (15-20 % faster than
#: 1/2 on R-MAT 18-24, H100, benchmarks/gpu_notes.md).
HASH_TABLE_SPREAD = 4
#: Each lane keeps this many loads of a long list in flight before probing ...
HASH_LONG_UNROLL = 4
#: ... with registers capped for this many blocks per multiprocessor (40 registers:
#: 48 warps per SM; more resident warps keep the issue slots busy, which beats the few spills).
HASH_MIN_BLOCKS = 6
#: From this many edges, 6 loads in flight and 8 blocks (32 registers, 64 warps):
#: R-MAT 21 9.8 ms against 10.9, 24 148 against 154, 25 469 against 472; on R-MAT 18
#: and the small real graphs 4 and 6 were 8-20 % faster (H100, gpu_notes.md, v6).
HASH_LARGE_EDGES = 10_000_000
HASH_LARGE_UNROLL, HASH_LARGE_MIN_BLOCKS = 6, 8
#: From this many edges, blocks of 512 (16 warps per heavy owner; 4 blocks, 64 warps
#: per SM) and block tables up to 64 KiB (owners up to d+ = 4,096 stay on chip,
#: 3 blocks per SM): R-MAT 24 119 ms against 133, 25 319 against 433; at R-MAT 21
#: blocks of 512 were 6 % slower, so the switch sits between 3.2·10^7 and 2.6·10^8
#: edges (not measured in between). Blocks of 1,024, or 64 KiB tables with blocks
#: of 256 (24 warps per SM), were slower (H100, gpu_notes.md's third session).
HASH_HUGE_EDGES = 100_000_000
HASH_HUGE_BLOCK_SIZE, HASH_HUGE_BLOCK_TABLE_BYTES = 512, 64 * 1024
#: A warp fetches the bounds of its next 32 partner lists at once.
HASH_BATCH_BOUNDS = True
#: Owners are cut into tasks of about total / (this × resident warps) probes ...
HASH_TASKS_PER_WARP = 4
#: ... but not below this many (each task rebuilds its owner's table).
HASH_MIN_TASK = 1024


def _pow2_at_least(x: int) -> int:
    return 1 << max(0, int(x) - 1).bit_length()


def order_tasks(tasks, out_degree, *, block_work: int, warp_slots: int, spread: int,
                by_owner: bool = False):
    """Tasks for a block first, then tasks for a warp, each part by decreasing work
    (or, with ``by_owner``, by increasing owner id).

    Returns ``(owner, begin, end, n_block_tasks)`` in launch order. A task goes to
    a block when its work reaches ``block_work`` or its owner's table would not
    fit a warp's ``warp_slots``.
    """
    xp = cupy()
    is_block = ((tasks.work >= block_work)
                | (spread * out_degree[tasks.owner] > warp_slots))
    # Block tasks get 2^62 on top of their work, so they sort before every warp task.
    rank = -tasks.owner.astype(xp.int64) if by_owner else tasks.work
    key = rank + is_block.astype(xp.int64) * (1 << 62)
    order = xp.argsort(-key)
    return (tasks.owner[order], tasks.begin[order], tasks.end[order],
            int(xp.count_nonzero(is_block)))


def task_cap(total_work: int, sm_count: int, min_task: int = HASH_MIN_TASK,
             tasks_per_warp: int = HASH_TASKS_PER_WARP) -> int:
    """Probes per task: about ``tasks_per_warp`` tasks per resident warp, at least ``min_task``."""
    return max(int(min_task), int(total_work) // (tasks_per_warp * 64 * sm_count))


def count_hash(oriented, *, block_work: int = HASH_BLOCK_WORK, warp_slots: int | None = None,
               long_list: int | None = None, block_table_bytes: int | None = None,
               spread: int = HASH_TABLE_SPREAD, max_task: int | None = None,
               min_task: int = HASH_MIN_TASK, unroll: int | None = None,
               min_blocks: int | None = None, batch_bounds: bool = HASH_BATCH_BOUNDS,
               edge32: bool = True, tasks_per_warp: int = HASH_TASKS_PER_WARP,
               by_owner: bool = False,
               block_size: int | None = None, warp_claim: int = 1,
               grid_size: int | None = None):
    """Triangles of an oriented CSR; returns ``(n_triangles, kernel_seconds)``.

    One launch per slice of the plan: the whole plan is one slice, except for a
    graph oriented under a memory budget, whose ``plan_slices`` gives them
    (:mod:`tricount.gpu.sliced`); ``kernel_seconds`` is then the launches' sum.
    """
    cp = cupy()
    large = oriented.n_edges >= HASH_LARGE_EDGES
    if unroll is None:
        unroll = HASH_LARGE_UNROLL if large else HASH_LONG_UNROLL
    if min_blocks is None:
        min_blocks = HASH_LARGE_MIN_BLOCKS if large else HASH_MIN_BLOCKS
    if warp_slots is None:
        warp_slots = HASH_WARP_SLOTS if large else HASH_SMALL_WARP_SLOTS
    if long_list is None:
        long_list = HASH_LONG_LIST if large else HASH_SMALL_LONG_LIST
    huge = oriented.n_edges >= HASH_HUGE_EDGES
    if block_size is None:
        block_size = HASH_HUGE_BLOCK_SIZE if huge else HASH_BLOCK_SIZE
    if block_table_bytes is None:
        block_table_bytes = HASH_HUGE_BLOCK_TABLE_BYTES if huge else HASH_BLOCK_TABLE_BYTES
    if warp_slots < 32 or warp_slots & (warp_slots - 1):
        raise UnknownMethodError(f"hash: warp_slots must be a power of two >= 32, got {warp_slots}")
    if (long_list < 1 or warp_claim < 1 or block_work < 0 or spread not in (2, 4, 8)
            or not 1 <= unroll <= 8 or not 1 <= min_blocks <= 32):
        raise UnknownMethodError("hash: long_list and warp_claim must be >= 1, block_work >= 0, "
                                 "spread 2, 4 or 8, unroll 1 to 8, min_blocks 1 to 32")
    if oriented.n_edges == 0:
        return 0, 0.0
    indptr, _rows, cols, vertex = kernel_arrays(oriented)
    item = cols.dtype.itemsize
    warp_area = (block_size // 32) * warp_slots
    block_slots = max(32, min(_pow2_at_least(spread * oriented.max_out_degree),
                              _pow2_at_least(block_table_bytes // item + 1) // 2))
    shared_bytes = max(block_slots, warp_area) * item
    limit = device_facts()["shared_per_block_optin"]
    if shared_bytes > limit:
        raise UnknownMethodError(
            f"hash: {shared_bytes} bytes of tables per block exceed the device's {limit}; "
            "lower warp_slots, block_size or block_table_bytes")
    min_blocks = min(min_blocks, max(1, 2048 // block_size))  # 2,048 threads per SM at most
    # Every edge position (indptr values, pair positions) below 2^31: 32-bit inside
    # the kernel, which frees registers (more resident warps). A plan never holds
    # more pairs than the graph has edges.
    edge32 = edge32 and oriented.n_edges < 2**31
    edge_dtype = cp.uint32 if edge32 else cp.int64
    kernel = get_kernel("hash", "tc_hash", block_size=block_size, vertex_t=vertex,
                        edge_t="unsigned int" if edge32 else "long long",
                        warp_slots=warp_slots, long_list=long_list, warp_claim=warp_claim,
                        table_spread=spread, long_unroll=unroll, min_blocks=min_blocks,
                        batch_bounds=int(bool(batch_bounds)))
    out_degree = cp.diff(indptr)
    kernel_indptr = indptr.astype(edge_dtype, copy=False)
    result = cp.zeros(1, dtype=cp.uint64)
    kernel_s = 0.0
    # A graph oriented in slices (tricount.gpu.sliced) plans one slice of owners at
    # a time, numbered from its first owner; every other graph is one slice from 0.
    slices = getattr(oriented, "plan_slices", None)
    plans = slices() if slices is not None else [(plan_partners(oriented), 0)]
    for plan, first in plans:
        if plan.n_pairs == 0:
            continue
        owner_degree = out_degree[first:first + plan.ptr.shape[0] - 1]
        probes = max_task
        if probes is None:
            probes = task_cap(int(plan.work.sum()), device_facts()["sm_count"], min_task,
                              max(1, int(tasks_per_warp)))
        tasks = split_tasks(plan, owner_degree, probes)
        owner, begin, end, n_block = order_tasks(tasks, owner_degree, block_work=block_work,
                                                 warp_slots=warp_slots, spread=spread,
                                                 by_owner=by_owner)
        del tasks
        if first:
            owner += first
        n_tasks = int(owner.shape[0])
        grid = grid_size
        if grid is None:
            warp_task_blocks = -(-(n_tasks - n_block) // (block_size // 32))
            grid = resident_grid(kernel, block_size, shared_bytes,
                                 work_blocks=n_block + warp_task_blocks)
        next_task = cp.zeros(2, dtype=cp.uint64)
        args = (kernel_indptr, cols, plan.partners, owner,
                begin.astype(edge_dtype, copy=False), end.astype(edge_dtype, copy=False),
                np.int64(n_block), np.int64(n_tasks), np.int64(block_slots), next_task, result)
        with KernelTimer() as timer:
            launch(kernel, grid, block_size, args, shared_bytes)
        kernel_s += timer.seconds
        del plan, owner, begin, end, args
    return read_count(result), kernel_s
