"""The sliced preparation: the rank orientation and hash's plan, one slice of vertices at a time.

The fused preparation (:mod:`.fused`) sorts one 64-bit key per edge for the
rank orientation and again for the hash plan, holding the keys, the sort's
second buffer and COO arrays at once: 37 B per edge at R-MAT 24 counted from a
built graph (``benchmarks/results/gpu_memory_steps_h100.md``). Here both are
built in slices (``kernels/slice.cu``), with the same keys (:mod:`.keys`):

1. one pass counts every vertex's out-degree in the rank orientation, so the
   oriented CSR's ``indptr`` is known before any edge is placed;
2. for each slice of rows whose edges fit the slice room, one pass over
   the built graph's edge list appends the keys of the edges whose oriented
   source lies in the slice, one sort orders them, and their targets are
   written straight into the slice's part of ``indices``;
3. one pass counts every owner's plan pairs; for each slice of owners holding
   at most ``capacity`` pairs, one pass appends their keys (owners local to
   the slice), one sort orders them, and the slice's plan is built from them.

So what stays alive is the built graph, the oriented ``indices`` (no COO rows:
the hash kernel reads none) and a few per-vertex arrays, plus one slice's keys
and sort buffer. Each slice rereads the whole edge list: fewer, larger slices
are faster, so ``capacity`` comes from the budget (:func:`tricount.gpu.plan.slice_capacity`).

Each slice's key count is checked against the count its histogram predicted
before it is used: a mismatch raises instead of counting a wrong graph.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tricount.errors import TricountError, UnsupportedGraphError
from tricount.gpu.device import c_type, cupy
from tricount.gpu.plan import ORIENT_BYTES_PER_KEY, SLICE_BYTES_PER_KEY, SLICE_KEYS_PER_OWNER
from tricount.gpu.prepare.keys import plan_layout, rank_layout, run_slice
from tricount.prep.orient import OrientedCSR, degree_rank
from tricount.prep.partners import plan_from_pairs

__all__ = ["SlicedCSR", "slice_bounds", "sorted_keys", "orient_by_rank_sliced", "plan_slices"]


@dataclass(frozen=True)
class SlicedCSR(OrientedCSR):
    """A rank-oriented CSR built in slices: ``rows`` is None, and the hash plan comes in
    slices too (:meth:`plan_slices`, read by the hash launcher).

    ``lo``/``hi`` are the built graph's edges, ``rank`` renames them, ``out_degree``
    (int32) is every row's length, ``capacity`` the keys per slice and
    ``n_slices`` the orientation's slices.
    """

    lo: object = None
    hi: object = None
    rank: object = None
    out_degree: object = None
    capacity: int = 0
    n_slices: int = 0

    def plan_slices(self):
        """``(plan, first_owner)`` for each slice of owners (see :func:`plan_slices`)."""
        return plan_slices(self.lo, self.hi, self.rank, self, self.out_degree, self.capacity)


def slice_bounds(ptr, capacity: int, max_span: int | None = None) -> list[tuple[int, int]]:
    """Consecutive vertex ranges ``[first, end)`` whose items ``ptr[end] - ptr[first]``
    are at most ``capacity`` (one vertex with more is a range of its own, which the
    caller must rule out) and that span at most ``max_span`` vertices.

    ``ptr`` is an int64 offset array of ``n + 1`` entries on the GPU; ranges with
    no items are skipped."""
    cp = cupy()
    n = int(ptr.shape[0]) - 1
    span = n if max_span is None else int(max_span)
    bounds, first = [], 0
    while first < n:
        limit = int(ptr[first]) + int(capacity)
        end = int(cp.searchsorted(ptr, limit, side="right")) - 1
        end = min(max(end, first + 1), first + span, n)
        if int(ptr[end]) > int(ptr[first]):
            bounds.append((first, end))
        first = end
    return bounds


def _offsets(counts):
    """int64 exclusive running sum of ``counts``, ``n + 1`` entries."""
    cp = cupy()
    ptr = cp.zeros(counts.shape[0] + 1, dtype=cp.int64)
    cp.cumsum(counts, dtype=cp.int64, out=ptr[1:])
    return ptr


def sorted_keys(name: str, expected: int, launches, vertex_t: str, *,
                what: str = "sliced preparation"):
    """Append keys with kernel ``name`` over ``launches`` (``(n_items, args)`` pairs; the
    keys and the cursor follow the args), check their number, sort them."""
    cp = cupy()
    keys = cp.empty(expected, dtype=cp.uint64)
    cursor = cp.zeros(1, dtype=cp.uint64)
    for n_items, args in launches:
        run_slice(name, n_items, args + (keys, cursor), vertex_t)
        del args  # a launch's arrays go before the next one's are made
    appended = int(cursor.get()[0])
    if appended != expected:
        raise TricountError(f"{what}: {name} appended {appended} keys where the histogram gave "
                            f"{expected}; refusing to count")
    keys.sort()
    return keys


def orient_by_rank_sliced(lo, hi, n_vertices: int, deg, capacity: int):
    """The rank orientation of :func:`tricount.gpu.prepare.orient_by_rank`, in slices
    that fit the room of ``capacity`` plan keys, as a :class:`SlicedCSR`.

    Its ``rows`` is None (only ``indptr`` and ``indices`` are built); the rest
    equals the fused orientation's.
    """
    cp = cupy()
    n, m = int(n_vertices), int(lo.shape[0])
    vertex_t = c_type(lo.dtype)
    rank = degree_rank(deg, n, lo.dtype)
    out_degree = cp.zeros(n, dtype=cp.int32)
    lo, hi = cp.ascontiguousarray(lo), cp.ascontiguousarray(hi)
    if m:
        run_slice("tc_slice_out_degree", m, (lo, hi, rank, np.int64(m), out_degree), vertex_t)
    indptr = _offsets(out_degree)
    max_out = int(out_degree.max()) if n else 0
    cols = cp.empty(m, dtype=lo.dtype)
    layout = rank_layout(n)
    per_slice = capacity * SLICE_BYTES_PER_KEY // ORIENT_BYTES_PER_KEY
    bounds = slice_bounds(indptr, per_slice) if m else []
    for first, end in bounds:
        begin, stop = int(indptr[first]), int(indptr[end])
        keys = sorted_keys("tc_slice_rank_keys", stop - begin,
                           [(m, (lo, hi, rank, np.int64(m), np.int32(layout.high_shift),
                                 np.int64(first), np.int64(end)))], vertex_t)
        run_slice("tc_slice_low_ids", stop - begin,
                  (keys, np.int64(stop - begin), np.uint64(layout.low_mask), cols[begin:stop]),
                  vertex_t)
        del keys
    return SlicedCSR(indptr, None, cols, n, m, max_out, "rank", lo=lo, hi=hi, rank=rank,
                     out_degree=out_degree, capacity=int(capacity), n_slices=len(bounds))


def plan_slices(lo, hi, rank, oriented, out_degree, capacity: int):
    """The hash plan of :func:`tricount.gpu.prepare.plan_partners`, one slice of owners
    at a time: yields ``(plan, first_owner)`` with the slice's owners numbered from 0
    (owner ``first_owner + x`` is the plan's ``x``) and at most ``capacity`` pairs.

    A caller must drop each slice's plan before asking for the next (only one
    slice is meant to be alive). Together the slices hold exactly the pairs of
    the fused plan, each owner's partners in the same order.
    """
    cp = cupy()
    n, m = oriented.n_vertices, int(lo.shape[0])
    if m == 0:
        return
    vertex_t = c_type(lo.dtype)
    layout, id_bits, len_bits = plan_layout(n, oriented.max_out_degree)
    owner_bits = 64 - layout.high_shift
    if owner_bits < 1:
        raise UnsupportedGraphError(
            f"the hash plan packs (owner, length, partner) in 64 bits; {n} vertices with "
            f"out-degrees up to {oriented.max_out_degree} leave no bit for the owner")
    pairs = cp.zeros(n, dtype=cp.int32)
    run_slice("tc_slice_owner_pairs", m, (lo, hi, rank, out_degree, np.int64(m), pairs),
              vertex_t)
    ptr = _offsets(pairs)
    del pairs
    max_span = min(1 << min(owner_bits, 62), max(1, capacity // SLICE_KEYS_PER_OWNER))
    for first, end in slice_bounds(ptr, capacity, max_span=max_span):
        count = int(ptr[end]) - int(ptr[first])
        keys = sorted_keys("tc_slice_plan_keys", count,
                           [(m, (lo, hi, rank, out_degree, np.int64(m), np.int32(id_bits),
                                 np.int32(len_bits), np.uint64(oriented.max_out_degree),
                                 np.int64(first), np.int64(end)))], vertex_t)
        owners, partners = layout.decode(keys, count, lo.dtype)
        del keys
        plan = plan_from_pairs(owners, partners, out_degree, end - first,
                               owner_out_degree=out_degree[first:end])
        del owners, partners
        yield plan, first
        del plan
