"""The device passes of a partitioned count: statistics, rank orientation, column blocks, pairs.

Counts, for one sub-problem of :mod:`tricount.partition.plan` (apex range
``[lo, hi)``, anchors ``[row_lo, row_hi)``), Σ over the edges a -> b of the
rank-ordered CSR with ``row_lo <= a < row_hi`` of |R(a) ∩ R(b)|, where
R(u) = N+(u) ∩ [lo, hi) is row u's slice in the range: the triangles whose
apex lies in the range, each once (the plan's module doc has the argument).

Every pass reads a CSR chunk by chunk (:mod:`tricount.gpu.chunks`: views of
device arrays, or host arrays through pinned buffers on a copy stream), so
the graph never has to be on the device whole, and each step holds at most
the room its caller gives it:

1. :func:`degrees` (one pass) and, unless the ids already are in (degree, id)
   order, :func:`degree_rank` and :func:`oriented_degrees` (one pass): every
   rank's out- and in-degree, the plan's statistics;
2. :func:`orient`: the rank-ordered CSR, written into device or host arrays
   one slice of sources at a time (one pass per slice: the keys of the edges
   whose oriented source lies in the slice are appended, sorted and decoded
   by the sliced preparation's kernels, ``kernels/slice.cu``). A graph streamed
   from host memory into a CSR that stays on the device takes
   :func:`scatter_oriented` instead: one pass places every edge in its row, then
   :func:`sort_rows` sorts the rows on the device, slice by slice. Several devices
   orienting one graph together use :func:`rank_keys_by_share` instead: one
   pass over a device's share of the rows groups its keys by the device whose
   ranks they belong to;
3. :func:`column_block`: the lists R(u) for every u below ``hi``, by one pass
   over those rows of the rank-ordered CSR (a row's entries in the range are
   one contiguous run, kept in order: no sort). For ``[0, n)`` the block is the
   CSR itself;
4. :func:`count_pairs`: one pass over the anchors' rows; per chunk, the
   kernel ``tc_slice_block_pairs`` appends the plan keys of the pairs
   (owner = the end with the longer list), one sort orders them, and the hash
   method's unchanged kernel (:func:`tricount.gpu.methods.hash.launch_plan`)
   counts them against the block's lists. A pair needs no other pair of its
   owner, so chunks are planned and launched one at a time. A piece of owners
   (several devices sharing the whole range) reads every row with
   ``tc_slice_csr_pairs`` instead (from the offsets, no row per entry) and keeps
   its owners' pairs; :func:`owner_work` (one pass of ``tc_slice_owner_work``)
   gives the plan each owner's work and pairs.

Every count a step can check it checks before use: each orientation slice's
keys against its histogram, each pair chunk's keys against an independent
count of the same predicate (a piece of owners: all its keys against the
plan's count of its pairs), each block's entries against the plan's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tricount.errors import TricountError, UnsupportedGraphError
from tricount.gpu.device import c_type, cupy, device_facts
from tricount.gpu.methods.hash import hash_kernel, launch_plan
from tricount.gpu.plan import HashShape
from tricount.gpu.prepare.fused import HISTOGRAM_NARROW_MAX_IDS
from tricount.gpu.prepare.keys import KeyLayout, rank_layout, run_prep, run_slice
from tricount.gpu.prepare.sliced import slice_bounds, sorted_keys
from tricount.prep.orient import degree_rank
from tricount.prep.partners import plan_from_pairs
from tricount.prep.xp import bits_for

#: Owners per window of pair keys at most (the keys' owner field allows 2^(64 - id bits -
#: length bits); tests lower it to run several windows on small graphs).
MAX_OWNER_WINDOW = 1 << 62
#: The plan of a batch of a chunk's sorted pairs (:func:`_launch_pairs`) at its peak, per
#: pair and per task, read off the code (upper bounds, not measurements): per pair the
#: owners' heads and numbering, the plan's running sum and its temporaries, CuPy's
#: compaction scan; per task (an owner's table, or a piece of a heavy owner's partners)
#: the plan's offsets and work, the tasks' bounds, owners and work, their launch order's
#: keys and CuPy's argsort buffers, and the ordered copies. The pairs' owners and partners
#: themselves are held besides (:func:`pair_batch`). Measured on one H200 (2026-11-28, a
#: review's probe: 4 M pairs, an owner each): the peak was 0.91-0.98 of 24 B a pair and
#: 100 a task with int32 ids or the default order, 1.04 with int64 ids ordered by owner
#: (the order's int64 key copy), so a task counts 112.
PLAN_PAIR_BYTES = 24
PLAN_TASK_BYTES = 112

__all__ = ["Block", "degrees", "degree_rank", "oriented_degrees", "in_degrees", "orient",
           "scatter_oriented", "sort_rows",
           "rank_keys_by_share", "orient_received",
           "column_block", "whole_block", "count_pairs", "anchor_work", "owner_work", "offsets"]


def offsets(counts):
    """int64 exclusive running sum of ``counts`` (``n + 1`` entries)."""
    cp = cupy()
    ptr = cp.zeros(counts.shape[0] + 1, dtype=cp.int64)
    cp.cumsum(counts, dtype=cp.int64, out=ptr[1:])
    return ptr


def _histogram(ids, counts) -> None:
    """``counts[ids[i]] += 1`` (``counts`` uint32)."""
    if ids.shape[0]:
        run_prep("tc_prep_histogram", int(ids.shape[0]), (ids, np.int64(ids.shape[0]), counts),
                 vertex_t=c_type(ids.dtype), hist_t="unsigned int")


def degree_counters(n: int):
    """Zeroed degree counters of ``n`` vertices (uint32), for :func:`add_degrees`."""
    if n >= HISTOGRAM_NARROW_MAX_IDS:
        raise UnsupportedGraphError(f"{n} vertices: the partitioned count's degree counters "
                                    "are 32-bit")
    return cupy().zeros(n, dtype=cupy().uint32)


def add_degrees(chunk, deg) -> None:
    """Add what a chunk of an upper CSR gives each vertex's degree: its rows' lengths and its
    columns' histogram."""
    run_slice("tc_slice_row_lengths", chunk.r1 - chunk.r0,
              chunk.offset_args() + (np.int64(chunk.r0), deg), c_type(chunk.cols.dtype))
    _histogram(chunk.cols, deg)


def degrees(csr, n: int, max_entries: int):
    """Degree of every vertex of an upper CSR (uint32): row lengths plus the column histogram."""
    deg = degree_counters(n)
    for chunk in csr.chunks(0, n, max_entries):
        add_degrees(chunk, deg)
    return deg


def oriented_degrees(csr, n: int, rank, max_entries: int):
    """Out-degree (int32) of every rank in the rank orientation of an upper CSR (one pass)."""
    cp = cupy()
    out = cp.zeros(n, dtype=cp.int32)
    for chunk in csr.chunks(0, n, max_entries):
        cols = chunk.cols
        run_slice("tc_slice_out_degree", chunk.n_entries,
                  (chunk.rows(cols.dtype), cols, rank, np.int64(chunk.n_entries), out),
                  c_type(cols.dtype))
    return out


def in_degrees(deg, out_degree, rank=None):
    """In-degree (int64) of every rank: its degree less its out-degree (``rank`` renames the
    degrees of the source's ids; None when the ids are ranks)."""
    cp = cupy()
    if rank is None:
        in_degree = deg.astype(cp.int64)
    else:
        in_degree = cp.empty(deg.shape[0], dtype=cp.int64)
        in_degree[rank] = deg
    in_degree -= out_degree
    return in_degree


def orient(csr, n: int, m: int, rank, out_degree, *, slice_keys: int, max_entries: int,
           out=None, ranks=None):
    """The rank-ordered CSR of an upper CSR: ``(indptr, indices)``, each row sorted.

    Built one slice of sources at a time, at most ``slice_keys`` keys each (one
    pass over ``csr`` per slice). ``out`` is a pair of host arrays to write into
    (``indptr`` of ``n + 1``, ``indices`` of ``m``); by default device arrays.
    ``ranks = (first, end)`` writes only the rows of those ranks (``indptr`` is
    whole): several devices each orient a share and exchange them.
    """
    cp = cupy()
    idx = rank.dtype
    vertex_t = c_type(idx)
    indptr = offsets(out_degree)
    cols = cp.empty(m, dtype=idx) if out is None else out[1]
    layout = rank_layout(n)
    lo, hi = (0, n) if ranks is None else (int(ranks[0]), int(ranks[1]))
    slices = ([(lo + a, lo + b) for a, b in slice_bounds(indptr[lo:hi + 1], slice_keys)]
              if m and hi > lo else [])
    for first, end in slices:
        begin, stop = int(indptr[first]), int(indptr[end])
        chunk_args = ((c.n_entries, (c.rows(idx), c.cols, rank, np.int64(c.n_entries),
                                     np.int32(layout.high_shift), np.int64(first),
                                     np.int64(end)))
                      for c in csr.chunks(0, n, max_entries))
        keys = sorted_keys("tc_slice_rank_keys", stop - begin, chunk_args, vertex_t,
                           what="partitioned count")
        target = cols[begin:stop] if out is None else cp.empty(stop - begin, dtype=idx)
        run_slice("tc_slice_low_ids", stop - begin,
                  (keys, np.int64(stop - begin), np.uint64(layout.low_mask), target), vertex_t)
        del keys
        if out is not None:
            target.get(out=cols[begin:stop])
    if out is None:
        return indptr, cols
    indptr.get(out=out[0])
    return out


def scatter_oriented(csr, n: int, m: int, rank, out_degree, *, max_entries: int):
    """The rank-ordered CSR of an upper CSR on the device, as :func:`orient` builds it but
    with its rows unsorted (:func:`sort_rows` sorts them), by one pass over ``csr``
    instead of one per slice: ``(indptr, indices)``.

    The pass places every oriented edge in its source's row (``tc_slice_scatter``:
    a cursor per rank, started at the row's offset); every row must then end
    exactly where the next begins, which is checked. For a graph streamed from
    host memory this reads it once where :func:`orient` reads it once per slice.
    """
    cp = cupy()
    idx = rank.dtype
    vertex_t = c_type(idx)
    indptr = offsets(out_degree)
    cols = cp.empty(m, dtype=idx)
    cursor = indptr[:-1].astype(cp.uint64)
    for c in csr.chunks(0, n, max_entries):
        run_slice("tc_slice_scatter", c.n_entries,
                  (c.rows(idx), c.cols, rank, np.int64(c.n_entries), cursor, cols), vertex_t)
    if not bool(cp.array_equal(cursor.view(cp.int64), indptr[1:])):
        raise TricountError("partitioned count: the scattered orientation did not fill every "
                            "row to its out-degree; refusing to count")
    return indptr, cols


def sort_rows(indptr, cols, n: int, *, sort_keys: int, max_entries: int) -> None:
    """Sort every row of a device CSR whose ids are ranks, in place: one slice of rows of at
    most ``sort_keys`` entries at a time (a longer row is the caller's to rule out), by
    sorting their (row, id) keys; device passes in chunks of ``max_entries``."""
    from tricount.gpu.chunks import DeviceCSR

    cp = cupy()
    vertex_t = c_type(cols.dtype)
    layout = rank_layout(n)
    rows_csr = DeviceCSR(indptr, cols)
    for first, end in slice_bounds(indptr, sort_keys) if cols.shape[0] else []:
        begin, stop = int(indptr[first]), int(indptr[end])
        keys = cp.empty(stop - begin, dtype=cp.uint64)
        for c in rows_csr.chunks(first, end, max_entries):
            run_slice("tc_slice_row_keys", c.n_entries,
                      (c.rows(cols.dtype), c.cols, np.int64(c.n_entries),
                       np.int32(layout.high_shift), keys[c.e0 - begin:c.e1 - begin]), vertex_t)
        keys.sort()
        run_slice("tc_slice_low_ids", stop - begin,
                  (keys, np.int64(stop - begin), np.uint64(layout.low_mask), cols[begin:stop]),
                  vertex_t)
        del keys


def rank_keys_by_share(csr, n: int, rank, bounds, counts, max_entries: int):
    """The rank keys of ``csr``'s entries (:func:`orient`'s, unsorted), grouped by the share of
    ranks their oriented source lies in, for several devices orienting one graph together.

    ``bounds``: the ``d + 1`` rank bounds of the shares; ``counts``: how many keys each
    share must receive (the share's oriented out-degrees in ``csr``). Returns ``(keys,
    starts)``: share j's keys are ``keys[starts[j]:starts[j] + counts[j]]``. Each group's
    number of keys is checked against ``counts`` before anything uses it.
    """
    cp = cupy()
    idx = rank.dtype
    counts = [int(c) for c in counts]
    starts = np.zeros(len(counts), dtype=np.int64)
    np.cumsum(counts[:-1], out=starts[1:])
    keys = cp.empty(sum(counts), dtype=cp.uint64)
    cursors = cp.zeros(len(counts), dtype=cp.uint64)
    on_device = (cp.asarray(np.asarray(bounds, dtype=np.int64)), cp.asarray(starts))
    shift = np.int32(rank_layout(n).high_shift)
    for c in csr.chunks(0, n, max_entries):
        run_slice("tc_slice_rank_keys_by_share", c.n_entries,
                  (c.rows(idx), c.cols, rank, np.int64(c.n_entries), shift, on_device[0],
                   np.int32(len(counts)), on_device[1], keys, cursors), c_type(idx))
    appended = [int(a) for a in cursors.get()]
    if appended != counts:
        raise TricountError(f"partitioned count: the keys by share were {appended} where the "
                            f"oriented degrees gave {counts}; refusing to count")
    return keys, [int(s) for s in starts]


def orient_received(keys, n: int, m: int, out_degree, entries: tuple[int, int], dtype):
    """A device's share of the rank-ordered CSR from the keys it received by
    :func:`rank_keys_by_share`: ``(indptr, indices)`` of the whole graph's size, with
    ``indices[begin:stop]`` (``entries``) written and the rest left for the other
    devices' shares. ``keys`` is sorted in place."""
    cp = cupy()
    begin, stop = int(entries[0]), int(entries[1])
    if keys.shape[0] != stop - begin:
        raise TricountError(f"partitioned count: {keys.shape[0]} keys received for the "
                            f"{stop - begin} entries of a share; refusing to count")
    keys.sort()
    indptr = offsets(out_degree)
    cols = cp.empty(m, dtype=dtype)
    run_slice("tc_slice_low_ids", stop - begin,
              (keys, np.int64(stop - begin), np.uint64(rank_layout(n).low_mask),
               cols[begin:stop]), c_type(dtype))
    return indptr, cols


@dataclass(frozen=True)
class Block:
    """The column block of apex range ``[lo, hi)``: for every rank u below ``hi`` the list
    R(u) = N+(u) ∩ [lo, hi), ``cols[indptr[u]:indptr[u+1]]`` (sorted), and its length
    ``lengths[u]`` (int32); ``entries`` in all, the longest ``max_length``."""

    lo: int
    hi: int
    indptr: object
    cols: object
    lengths: object
    entries: int
    max_length: int


def whole_block(indptr, cols, out_degree) -> Block:
    """The block of ``[0, n)``: the rank-ordered CSR on the device itself."""
    n = int(out_degree.shape[0])
    return Block(0, n, indptr, cols, out_degree, int(cols.shape[0]),
                 int(out_degree.max()) if n else 0)


def column_block(csr, lo: int, hi: int, entries: int, max_entries: int) -> Block:
    """The column block of ``[lo, hi)`` from the rank-ordered CSR ``csr`` (rows below ``hi``).

    ``entries`` is the plan's count of the block's entries (the in-degrees of
    ``lo .. hi-1``); the block built must hold exactly that many.
    """
    cp = cupy()
    lengths = cp.zeros(hi, dtype=cp.int32)
    cols = None
    at = 0
    for chunk in csr.chunks(0, hi, max_entries):
        keep = (chunk.cols >= lo) & (chunk.cols < hi)
        kept = chunk.cols[keep]  # a row's entries in the range, in order
        if cols is None:
            cols = cp.empty(entries, dtype=chunk.cols.dtype)
        if at + kept.shape[0] > entries:
            raise TricountError(f"partitioned count: the block of ranks {lo}..{hi} holds more "
                                f"than the {entries} entries the plan counted; refusing to count")
        cols[at:at + kept.shape[0]] = kept
        # Kept entries per row: differences of the running count at the rows' bounds.
        running = cp.zeros(chunk.n_entries + 1, dtype=cp.int64)
        cp.cumsum(keep, dtype=cp.int64, out=running[1:])
        local = chunk.local_indptr()
        per_row = running[local[1:]] - running[local[:-1]]
        if int(per_row.sum()) != int(kept.shape[0]):
            raise TricountError("partitioned count: a block chunk's rows do not add up to its "
                                "kept entries; refusing to count")
        lengths[chunk.r0:chunk.r1] += per_row.astype(cp.int32)
        at += int(kept.shape[0])
        del keep, kept, running, local, per_row
    if at != entries:
        raise TricountError(f"partitioned count: the block of ranks {lo}..{hi} holds {at} "
                            f"entries where the plan counted {entries}; refusing to count")
    if cols is None:
        cols = cp.empty(0, dtype=getattr(csr.indices, "dtype", np.int32))
    return Block(lo, hi, offsets(lengths), cols, lengths, entries,
                 int(lengths.max()) if hi else 0)


def _pair_layout(hi: int, max_length: int) -> tuple[int, int, int]:
    """``(id_bits, len_bits, max_bits)`` of the pair keys of a block: a partner below ``hi``,
    the bit length of a list (at most ``max_bits``), and what is left for the owner."""
    id_bits = bits_for(max(0, hi - 1))
    max_bits = max(1, int(max_length).bit_length())
    len_bits = bits_for(max_bits)
    if id_bits + len_bits > 63:  # no bit left for an owner
        raise UnsupportedGraphError(f"pair keys of {hi} ranks leave no bit for the owner")
    return id_bits, len_bits, max_bits


def count_pairs(csr, block: Block, row_lo: int, row_hi: int, shape: HashShape, result,
                timed, max_entries: int, room: int, owners: tuple[int, int] | None = None,
                pairs: int = -1) -> None:
    """Count the pairs of anchors ``[row_lo, row_hi)`` against ``block`` into ``result``.

    ``csr`` is the rank-ordered CSR (its rows ``row_lo .. row_hi`` are read, in
    chunks of at most ``max_entries``); ``room`` is the device bytes the count may
    hold beside the block at once: each chunk's sorted pairs are planned and
    launched in batches that fit it (:func:`pair_batch`; one batch unless the
    chunk's owners are many). ``shape`` a resolved hash shape whose ``long_list``
    is a power of two (the pair keys order lists by bit length); ``timed()`` wraps
    every launch.
    ``owners = (lo, hi)``: only the pairs whose owner lies in that rank range
    (:func:`tricount.partition.plan.split_owners`). ``pairs`` >= 0: how many
    pairs the planner counted for them (:func:`owner_work`); the keys are then
    read from the CSR's offsets (``tc_slice_csr_pairs``, no row per entry) and
    their number is checked against it, once for all chunks and before the
    count is read, instead of against a count of each chunk.
    """
    cp = cupy()
    long_list = int(shape.long_list)
    if long_list & (long_list - 1):
        raise TricountError(f"the partitioned count orders lists by bit length, so hash's "
                            f"long_list must be a power of two, got {long_list}")
    lo, hi = block.lo, block.hi
    owner_lo, owner_hi = (0, hi) if owners is None else (int(owners[0]), min(int(owners[1]), hi))
    if block.entries == 0 or row_hi <= row_lo or owner_hi <= owner_lo:
        return
    idx = block.cols.dtype
    vertex_t = c_type(idx)
    id_bits, len_bits, max_bits = _pair_layout(hi, block.max_length)
    window = min(1 << min(64 - id_bits - len_bits, 62), MAX_OWNER_WINDOW)
    prepared = hash_kernel(shape, block.cols, block.entries, block.max_length)
    lists = (block.indptr.astype(prepared[1], copy=False), block.cols)
    layout = KeyLayout(id_bits + len_bits, id_bits)
    counted = pairs >= 0
    appended = 0
    for chunk in csr.chunks(row_lo, row_hi, max_entries):
        rows = None if counted else chunk.rows(idx)
        for first in range(owner_lo, owner_hi, window):
            end = min(owner_hi, first + window)
            keys = cp.empty(chunk.n_entries, dtype=cp.uint64)
            # [0]: the keys' cursor; [1]: the independent count of the same pairs. Both are
            # read at once (one wait for the device per chunk).
            counters = cp.zeros(2, dtype=cp.uint64)
            window_args = (block.lengths, np.int64(lo), np.int64(hi), np.int32(id_bits),
                           np.int32(len_bits), np.uint64(max_bits), np.int64(first),
                           np.int64(end), keys, counters[:1])
            if counted:
                indptr, n_rows, e0, e1 = chunk.offset_args()
                run_slice("tc_slice_csr_pairs", chunk.n_entries,
                          (indptr, chunk.cols, n_rows, e0, e1, np.int64(chunk.r0))
                          + window_args, vertex_t)
            else:
                run_slice("tc_slice_block_pairs", chunk.n_entries,
                          (rows, chunk.cols, np.int64(chunk.n_entries)) + window_args, vertex_t)
                run_slice("tc_slice_block_pair_count", chunk.n_entries,
                          (rows, chunk.cols, np.int64(chunk.n_entries), block.lengths,
                           np.int64(lo), np.int64(hi), np.int64(first), np.int64(end),
                           counters[1:]), vertex_t)
            del window_args
            if end >= owner_hi:  # the chunk's last window: its rows are read
                rows = None
            n_pairs, expected = (int(c) for c in counters.get())
            appended += n_pairs
            if counted:
                _check_pairs(appended <= pairs, appended, pairs, owner_lo, owner_hi)
            elif n_pairs != expected:
                raise TricountError(f"partitioned count: {n_pairs} pair keys appended where "
                                    f"{expected} pairs qualify; refusing to count")
            if n_pairs:
                keys = keys[:n_pairs]
                keys.sort()
                pair_owners, partners = layout.decode(keys, n_pairs, idx)
                del keys  # the keys' only reference: their memory goes back before planning
                held = sum(a.nbytes for a in (rows, pair_owners, partners) if a is not None)
                batch = _plan_batch(pair_owners, shape, room - held)
                for a in range(0, n_pairs, batch):
                    _launch_pairs(pair_owners[a:a + batch], partners[a:a + batch], first,
                                  block, idx, prepared, lists, shape, result, timed)
                del pair_owners, partners
            else:
                del keys
    if counted:
        _check_pairs(appended == pairs, appended, pairs, owner_lo, owner_hi)


def _check_pairs(ok: bool, appended: int, pairs: int, owner_lo: int, owner_hi: int) -> None:
    if not ok:
        raise TricountError(f"partitioned count: {appended} pair keys appended for owners "
                            f"{owner_lo}..{owner_hi} where the plan counted {pairs}; refusing "
                            "to count")


def pair_batch(n_pairs: int, n_owners: int, extra_tasks: int, room: int) -> int:
    """Pairs per plan batch of a chunk's ``n_pairs`` sorted pairs of ``n_owners`` owners, so
    that a batch's plan takes at most ``room`` bytes: :data:`PLAN_PAIR_BYTES` a pair and
    :data:`PLAN_TASK_BYTES` a task. A batch has at most as many tasks as pairs, and at most
    ``n_owners + extra_tasks`` (its owners, each cut into pieces of at least the task cap:
    :func:`_task_cuts` bounds the cuts in all).

    >>> pair_batch(1000, 10, 0, 24 * 1000 + 112 * 10)
    1000
    >>> pair_batch(1000, 1000, 0, 136 * 250)
    250
    >>> pair_batch(1000, 10, 0, 24 * 500 + 112 * 10)
    500
    """
    tasks = n_owners + extra_tasks
    if PLAN_PAIR_BYTES * n_pairs + PLAN_TASK_BYTES * min(n_pairs, tasks) <= room:
        return n_pairs
    if room >= (PLAN_PAIR_BYTES + PLAN_TASK_BYTES) * tasks:  # batches hold more pairs than tasks
        batch = (room - PLAN_TASK_BYTES * tasks) // PLAN_PAIR_BYTES
    else:
        batch = room // (PLAN_PAIR_BYTES + PLAN_TASK_BYTES)
    if batch < 1:
        raise UnsupportedGraphError(
            f"planning the pairs of a chunk: {max(0, room)} bytes of GPU memory are left, "
            f"fewer than one pair needs; pass more partitions, a larger max_memory, or use "
            "backend='cpu'")
    return int(batch)


def _task_cuts(shape: HashShape, sm_count: int) -> int | None:
    """At most how many cuts a plan's owners get beyond one task each, or None (a fixed
    ``max_task``: any number). :func:`tricount.gpu.methods.hash.plan_tasks` cuts owner x
    into at most probes(x) // cap + 1 tasks, so the cuts are at most total // cap, with the
    cap max(min_task, total // K) for K tasks per warp times the resident warps: below
    K + K // min_task + 1."""
    if shape.max_task is not None:
        return None
    k = max(1, int(shape.tasks_per_warp)) * 64 * int(sm_count)
    return k + k // max(1, int(shape.min_task)) + 1


def _plan_batch(owners, shape: HashShape, room: int) -> int:
    """:func:`pair_batch` for sorted pair owners on the device; their owners are counted
    (one wait for the device) only when the pairs might not fit as one batch."""
    cp = cupy()
    n_pairs = int(owners.shape[0])
    if (PLAN_PAIR_BYTES + PLAN_TASK_BYTES) * n_pairs <= room:
        return n_pairs
    cuts = _task_cuts(shape, device_facts().sm_count)
    n_owners = 1 + int(cp.count_nonzero(owners[1:] != owners[:-1]))
    return pair_batch(n_pairs, n_owners, n_pairs if cuts is None else cuts, room)


def _launch_pairs(owners, partners, first: int, block: Block, idx, prepared, lists, shape,
                  result, timed) -> None:
    """Plan sorted pairs (owners local to a window from ``first``) and count them."""
    cp = cupy()
    n_pairs = int(owners.shape[0])
    # Owners renumbered 0 .. (in order) for the plan; owner_ids names them in the block.
    head = cp.empty(n_pairs, dtype=cp.bool_)
    head[0] = True
    cp.not_equal(owners[1:], owners[:-1], out=head[1:])
    dense = cp.cumsum(head, dtype=cp.int32)
    dense -= 1
    owner_ids = owners[cp.flatnonzero(head)]
    del head, owners
    if first:
        owner_ids += first
    owner_length = block.lengths[owner_ids]
    plan = plan_from_pairs(dense, partners, block.lengths, int(owner_ids.shape[0]),
                           owner_out_degree=owner_length)
    del dense, partners
    launch_plan((prepared, lists), shape, plan, owner_length, owner_ids, result, timed)


#: What one entry of an anchor's row costs a piece beyond its probes (its pair key, sort and
#: plan, the kernel's work per pair, the anchor's table), in probes. Measured on four H100s
#: at R-MAT 26 (device run 26): sixteen pieces of equal probes took 0.043-0.246 s, about
#: 1 ps per probe plus 0.52 ns per entry; the piece of the 31 M lowest ranks held 423 M
#: entries, the last one 23 M.
ENTRY_PROBES = 512


def anchor_work(csr, out_degree, n: int, max_entries: int, rows=None):
    """Per anchor a (int64, on the device): Σ over its edges a -> b of min(d+(a), d+(b)), the
    hash probes of the whole graph's sub-problem, plus :data:`ENTRY_PROBES` per entry of its
    row: what cuts a range's anchors into pieces of about equal time for several devices.
    ``rows = (first, end)``: those anchors' only (``end - first`` values)."""
    cp = cupy()
    first, end = (0, n) if rows is None else (int(rows[0]), int(rows[1]))
    work = cp.zeros(end - first, dtype=cp.int64)
    for chunk in csr.chunks(first, end, max_entries):
        rows_of = chunk.rows(chunk.cols.dtype)
        probes = cp.minimum(out_degree[rows_of], out_degree[chunk.cols]).astype(cp.int64)
        running = cp.zeros(chunk.n_entries + 1, dtype=cp.int64)
        cp.cumsum(probes, out=running[1:])
        local = chunk.local_indptr()
        work[chunk.r0 - first:chunk.r1 - first] += running[local[1:]] - running[local[:-1]]
        del rows_of, probes, running, local
    work += ENTRY_PROBES * out_degree[first:end].astype(cp.int64)
    return work


def owner_work(csr, out_degree, n: int, max_entries: int, rows=None):
    """``(work, pairs)`` per owner o (int64, on the device, ``n`` values each): the pairs o
    owns in the whole graph's sub-problem, and their work, Σ min(d+(a), d+(b)) (the hash
    probes) plus :data:`ENTRY_PROBES` a pair: what cuts the owners into pieces of about
    equal time (:func:`tricount.partition.plan.split_owners`) and what each piece's pair
    keys must number. ``rows = (first, end)``: only the edges of those anchors, for a
    device's share (the shares' results add up).

    One pass of ``tc_slice_owner_work`` per chunk (atomic sums per owner; a pair is an
    edge a -> b with d+(b) >= 1 and d+(a) >= 2, given to a when d+(a) >= d+(b), else to
    b: the predicate of ``tc_slice_block_pairs`` for the whole block, written out again
    in that kernel, so that the keys' number is checked against an independent count).
    """
    cp = cupy()
    first, end = (0, n) if rows is None else (int(rows[0]), int(rows[1]))
    work = cp.zeros(n, dtype=cp.uint64)
    pairs = cp.zeros(n, dtype=cp.uint64)
    for chunk in csr.chunks(first, end, max_entries):
        indptr, n_rows, e0, e1 = chunk.offset_args()
        run_slice("tc_slice_owner_work", chunk.n_entries,
                  (indptr, chunk.cols, n_rows, e0, e1, np.int64(chunk.r0), out_degree,
                   np.int64(ENTRY_PROBES), work, pairs), c_type(chunk.cols.dtype))
    return work.view(cp.int64), pairs.view(cp.int64)
