"""Launcher of ``kernels/hash.cu``: owner-centric hash-set counting (tricount's own method).

Counts: distinct triangles. :func:`tricount.prep.partners.plan_partners`
gives every edge that can close a triangle to the end with the longer
out-list (its *owner*); :func:`~tricount.prep.partners.split_tasks` cuts each
owner's partners into tasks of bounded work (both run as their fused GPU
twins of :mod:`tricount.gpu.prepare`); this launcher orders the tasks —
those with at least ``block_work`` probes, or whose owner is too long for a
warp's table, go to whole blocks, the rest to single warps, heaviest first in
each part — and runs one kernel launch. Plan, tasks and order are
preparation (like orientation): they are in the engine's ``count_s``; the
timed region (``kernel_s`` when the caller times) is the launch alone. A graph
oriented in slices (:mod:`tricount.gpu.prepare.sliced`) gets one plan, and
one launch, per slice of owners, all adding into one counter.

The launch shape is a resolved :class:`~tricount.gpu.plan.HashShape`.
"""

from __future__ import annotations

import numpy as np

from tricount.gpu._module import get_kernel
from tricount.gpu.device import (c_type, cupy, device_facts, kernel_arrays, launch, read_count,
                                 resident_grid)
from tricount.gpu.plan import HashShape, task_cap
from tricount.gpu.prepare import plan_partners, split_tasks

__all__ = ["count_hash", "hash_kernel", "launch_plan", "plan_tasks", "task_grid", "order_tasks",
           "kernel_defines", "DEFAULT_DEFINES"]


def kernel_defines(shape: HashShape, *, vertex_t: str, edge_t: str) -> dict:
    """Every define of ``kernels/hash.cu`` for a resolved shape and the arrays' types."""
    return {"block_size": shape.block_size, "vertex_t": vertex_t, "edge_t": edge_t,
            "warp_slots": shape.warp_slots, "long_list": shape.long_list,
            "warp_claim": shape.warp_claim, "table_spread": shape.spread,
            "long_unroll": shape.unroll, "min_blocks": shape.min_blocks,
            "batch_bounds": int(bool(shape.batch_bounds))}


#: The file's ``#ifndef`` defaults: the plan's shape below 10^7 edges, general types.
DEFAULT_DEFINES = {"hash": kernel_defines(HashShape().resolve(0), vertex_t="int",
                                          edge_t="long long")}


def order_tasks(tasks, out_degree, *, block_work: int, warp_slots: int, spread: int,
                by_owner: bool = False):
    """Tasks for a block first, then tasks for a warp, each part by decreasing work
    (or, with ``by_owner``, by increasing owner id).

    Returns ``(owner, begin, end, n_block_tasks)`` in launch order. A task goes to
    a block when its work reaches ``block_work`` or its owner's table would not
    fit a warp's ``warp_slots``.
    """
    cp = cupy()
    is_block = ((tasks.work >= block_work)
                | (spread * out_degree[tasks.owner] > warp_slots))
    # Block tasks get 2^62 on top of their work, so they sort before every warp task.
    rank = -tasks.owner.astype(cp.int64) if by_owner else tasks.work
    key = rank + is_block.astype(cp.int64) * (1 << 62)
    order = cp.argsort(-key)
    return (tasks.owner[order], tasks.begin[order], tasks.end[order],
            int(cp.count_nonzero(is_block)))


def hash_kernel(shape: HashShape, cols, n_edges: int, max_out_degree: int, *,
                stem: str = "hash", name: str = "tc_hash"):
    """``(kernel, edge_dtype, block_slots, shared_bytes)`` for lists ``cols`` of
    ``n_edges`` entries, the longest ``max_out_degree`` long: ``name`` of
    ``kernels/<stem>.cu`` (the count, or listing.cu's kernels on the same sets)."""
    cp = cupy()
    block_slots, shared_bytes = shape.tables(max_out_degree, cols.dtype.itemsize)
    # Every edge position (indptr values, pair positions) below 2^31: 32-bit inside
    # the kernel, which frees registers (more resident warps). A plan never holds
    # more pairs than the graph has edges.
    edge32 = shape.edge32 and n_edges < 2**31
    defines = kernel_defines(shape, vertex_t=c_type(cols.dtype),
                             edge_t="unsigned int" if edge32 else "long long")
    if stem != "hash":
        del defines["batch_bounds"]  # listing.cu reads each list's bounds alone
    kernel = get_kernel(stem, name, defines)
    edge_dtype = cp.uint32 if edge32 else cp.int64
    if (stem, name) == ("hash", "tc_hash") and kernel not in _LAUNCHED:
        _first_launch(kernel, shape, cols.dtype, edge_dtype, block_slots, shared_bytes)
    return kernel, edge_dtype, block_slots, shared_bytes


#: The count kernels launched once in this process (:func:`_first_launch`).
_LAUNCHED: set = set()


def _first_launch(kernel, shape: HashShape, vertex_dtype, edge_dtype, block_slots: int,
                  shared_bytes: int) -> None:
    """Launch a count kernel once on no tasks (it adds 0 to a counter of its own) before its
    first real launch. Measured, not explained: on an H100 (device runs 73-76, 2026-11-26,
    R-MAT 26 from its .tcsr in fresh processes) the first real launch of a kernel variant
    took 1.1 s longer on the GPU than the next ones (count phase 2.04-2.07 s against 0.90,
    every launch synchronized: the kernel's launch 2.00 s against 0.94), whatever ran
    before it in the process (a count of R-MAT 20 or 24, the pool's memory written or
    handed back); launched once on no tasks first, the first count phase took 0.97 s and
    the whole first count 2.75-3.06 s against 4.13. The empty launch takes 0.1 ms."""
    cp = cupy()
    e, v = cp.zeros(2, dtype=edge_dtype), cp.zeros(1, dtype=vertex_dtype)
    args = (e, v, v, v, e, e, np.int64(0), np.int64(0), np.int64(block_slots),
            cp.zeros(2, dtype=cp.uint64), cp.zeros(1, dtype=cp.uint64))
    launch(kernel, 1, shape.block_size, args, shared_bytes)
    _LAUNCHED.add(kernel)


def plan_tasks(shape: HashShape, plan, owner_degree, owner_ids, edge_dtype):
    """``(owner, begin, end, n_block_tasks)``: one plan's owners cut into tasks and
    ordered for launch (block tasks first); ``begin`` and ``end`` as ``edge_dtype``.

    The plan's owners are numbered ``0 ..``, with lengths ``owner_degree``, and
    ``owner_ids`` names them in the lists: an int (the first owner of a slice of
    consecutive owners) or an array.
    """
    probes = shape.max_task
    if probes is None:
        probes = task_cap(int(plan.work.sum()), device_facts().sm_count, shape.min_task,
                          max(1, int(shape.tasks_per_warp)))
    tasks = split_tasks(plan, owner_degree, probes)
    owner, begin, end, n_block = order_tasks(tasks, owner_degree, block_work=shape.block_work,
                                             warp_slots=shape.warp_slots, spread=shape.spread,
                                             by_owner=shape.by_owner)
    del tasks
    if isinstance(owner_ids, int):
        if owner_ids:
            owner += owner_ids
    else:
        owner = owner_ids[owner]
    return (owner, begin.astype(edge_dtype, copy=False), end.astype(edge_dtype, copy=False),
            n_block)


def task_grid(kernel, shape: HashShape, n_tasks: int, n_block: int, shared_bytes: int) -> int:
    """Blocks of one launch: the shape's grid, else those that fill the device once
    (no more than the tasks can use)."""
    if shape.grid_size is not None:
        return shape.grid_size
    warp_task_blocks = -(-(n_tasks - n_block) // (shape.block_size // 32))
    return resident_grid(kernel, shape.block_size, shared_bytes,
                         work_blocks=n_block + warp_task_blocks)


def launch_plan(launch_args, shape: HashShape, plan, owner_degree, owner_ids, result,
                timed) -> None:
    """Count one plan of pairs into ``result``: its owners cut into tasks, ordered, one launch.

    ``launch_args`` is :func:`hash_kernel`'s answer and the lists
    ``(kernel_indptr, cols)``; ``owner_degree`` and ``owner_ids`` as :func:`plan_tasks`.
    """
    cp = cupy()
    (kernel, edge_dtype, block_slots, shared_bytes), (kernel_indptr, cols) = launch_args
    owner, begin, end, n_block = plan_tasks(shape, plan, owner_degree, owner_ids, edge_dtype)
    n_tasks = int(owner.shape[0])
    grid = task_grid(kernel, shape, n_tasks, n_block, shared_bytes)
    next_task = cp.zeros(2, dtype=cp.uint64)
    args = (kernel_indptr, cols, plan.partners, owner, begin, end, np.int64(n_block),
            np.int64(n_tasks), np.int64(block_slots), next_task, result)
    with timed():
        launch(kernel, grid, shape.block_size, args, shared_bytes)


def count_hash(oriented, shape: HashShape, timed) -> int:
    """Triangles of an oriented CSR; ``timed()`` wraps each launch.

    One launch per slice of the plan: the whole plan is one slice, except for a
    graph oriented under a memory budget, whose ``plan_slices`` gives them.
    """
    cp = cupy()
    if oriented.n_edges == 0:
        return 0
    indptr, _rows, cols, _vertex = kernel_arrays(oriented)
    prepared = hash_kernel(shape, cols, oriented.n_edges, oriented.max_out_degree)
    out_degree = cp.diff(indptr)
    lists = (indptr.astype(prepared[1], copy=False), cols)
    result = cp.zeros(1, dtype=cp.uint64)
    # A graph oriented in slices plans one slice of owners at a time, numbered from
    # its first owner; every other graph is one slice from 0.
    slices = getattr(oriented, "plan_slices", None)
    plans = slices() if slices is not None else [(plan_partners(oriented), 0)]
    for plan, first in plans:
        if plan.n_pairs == 0:
            continue
        owner_degree = out_degree[first:first + plan.ptr.shape[0] - 1]
        launch_plan((prepared, lists), shape, plan, owner_degree, first, result, timed)
        del plan
    return read_count(result)
