"""The fused preparation: the portable steps of :mod:`tricount.prep`, in few passes.

Each function here returns exactly what its portable twin returns on CuPy
arrays (the GPU tests compare every array), in fewer passes over the edges:

=====================================  =================================================
here                                   portable twin
=====================================  =================================================
:func:`fused_canonical_edges`          :func:`tricount.prep.canonical.canonical_edges`
:func:`orient_by_rank`                 :func:`tricount.prep.orient.orient_by_rank`
:func:`plan_partners`                  :func:`tricount.prep.partners.plan_partners`
:func:`split_tasks`                    :func:`tricount.prep.partners.split_tasks`
:func:`count_ids`                      ``cupy.bincount`` (7 ms of fixed cost on an H100)
=====================================  =================================================

Each is one CuPy sort of packed 64-bit keys (:mod:`.keys`) between kernels of
``kernels/prep.cu``, every kernel one pass that builds keys, flags or decoded
ids without temporaries. The portable code spends several element-wise
passes, each with a temporary array, where these spend one; on R-MAT scale
24 those passes cost more than the sorts (benchmarks/results/gpu_prep_steps_h100.md).
Ids are packed by shifting, so a graph whose ids do not fit (more than 2^31
vertices) takes the portable path.
"""

from __future__ import annotations

import numpy as np

from tricount.gpu.device import c_type, cupy, out_of_memory
from tricount.gpu.prepare.keys import (distinct_pairs, edge_layout, plan_layout, rank_layout,
                                      run_prep)
from tricount.prep import orient as portable_orient
from tricount.prep import partners as portable_partners
from tricount.prep.canonical import (DENSE_ID_FACTOR, CanonicalEdges, check_vertex_count,
                                     check_vertex_range)
from tricount.prep.partners import PartnerPlan, Tasks, plan_from_pairs, tasks_from_starts
from tricount.prep.xp import index_dtype

__all__ = ["fused_canonical_edges", "count_ids", "orient_by_rank", "plan_partners",
           "split_tasks"]

#: Ids below 2^31 - 1: two of them and a direction bit pack into 64 bits, and
#: every id fits the int32 the kernels decode into.
MAX_PACKED_VERTICES = 2**31 - 1
#: count_ids counts in 32 bits below this many ids (no count can overflow): twice
#: as many counters fit the L2 cache that the random atomics hit (uniform random
#: graph, 2^24 vertices: 13.8 ms with 64-bit counters, 8.4 with 32-bit;
#: benchmarks/results/gpu_prep_steps_h100.md).
HISTOGRAM_NARROW_MAX_IDS = 2**32 - 1


def fused_canonical_edges(src, dst, *, n_vertices: int | None = None):
    """:func:`~tricount.prep.canonical.canonical_edges` for CuPy int64 arrays, or None.

    Without ``n_vertices`` the ids stay as they are through the sort, the
    kernels mark the ids they meet in a presence array over ``0 .. max id``,
    and only the distinct edges are renamed to compact ids at the end (the
    renaming keeps the order). None (take the portable path) when there are no
    edges, when the ids are too sparse for a presence array, or when there are
    2^31 - 1 or more of them. Running out of device memory raises
    :class:`~tricount.UnsupportedGraphError`.
    """
    with out_of_memory(f"building a graph of {int(src.shape[0])} edge entries on the GPU"):
        return _canonical_edges(src, dst, n_vertices)


def _canonical_edges(src, dst, n_vertices):
    cp = cupy()
    n_entries = int(src.shape[0])
    if n_entries == 0:
        return None
    src, dst = cp.ascontiguousarray(src), cp.ascontiguousarray(dst)
    if n_vertices is None:
        top = int(max(int(src.max()), int(dst.max())))
        if top >= DENSE_ID_FACTOR * 2 * n_entries + 1024 or top >= MAX_PACKED_VERTICES - 1:
            return None
        present = cp.zeros(top + 1, dtype=cp.uint8)
    else:
        check_vertex_range(src, dst, n_vertices)
        if n_vertices >= MAX_PACKED_VERTICES:
            return None
        top, present = max(0, n_vertices - 1), None
    layout = edge_layout(top)
    mark = present is not None
    keys = cp.empty(n_entries, dtype=cp.uint64)
    run_prep("tc_prep_edge_keys", n_entries,
             (src, dst, np.int64(n_entries), np.int32(layout.high_shift), keys,
              present if mark else keys), mark=mark)
    lo, hi, counts = distinct_pairs(keys, layout, np.int32, present=present)
    del keys
    if mark:
        vertex_ids = cp.flatnonzero(present)
        if vertex_ids.shape[0] < top + 1:  # ids with gaps: rename, keeping the order
            new_id = cp.cumsum(present, dtype=cp.int32) - 1
            lo, hi = new_id[lo], new_id[hi]
    else:
        vertex_ids = cp.arange(n_vertices, dtype=cp.int64)
    n = int(vertex_ids.shape[0])
    check_vertex_count(n)
    idx = index_dtype(n)
    n_directed, n_loops = (int(c) for c in counts.get())
    return CanonicalEdges(lo.astype(idx, copy=False), hi.astype(idx, copy=False),
                          vertex_ids.astype(cp.int64, copy=False), n, n_loops,
                          n_entries - n_loops - n_directed)


def count_ids(ids, n_vertices: int):
    """How often each of ``0 .. n_vertices-1`` occurs in ``ids`` (int64), by one atomic pass
    (32-bit counters while no count can reach 2^32 - 1, then widened)."""
    cp = cupy()
    n_ids = int(ids.shape[0])
    narrow = n_ids < HISTOGRAM_NARROW_MAX_IDS
    counts = cp.zeros(n_vertices, dtype=cp.uint32 if narrow else cp.int64)
    if n_ids:
        if ids.dtype not in (np.int32, np.int64):
            ids = ids.astype(cp.int64)
        run_prep("tc_prep_histogram", n_ids, (cp.ascontiguousarray(ids), np.int64(n_ids), counts),
                 vertex_t=c_type(ids.dtype),
                 hist_t="unsigned int" if narrow else "unsigned long long")
    return counts.astype(cp.int64, copy=False)


def orient_by_rank(lo, hi, n_vertices: int, deg):
    """:func:`~tricount.prep.orient.orient_by_rank` on the GPU: one key per edge,
    one sort, one decode (same arrays as the portable code)."""
    cp = cupy()
    n, m = int(n_vertices), int(lo.shape[0])
    if m == 0 or n >= MAX_PACKED_VERTICES or lo.dtype not in (np.int32, np.int64):
        return portable_orient.orient_by_rank(lo, hi, n_vertices, deg)
    rank = portable_orient.degree_rank(deg, n, lo.dtype)
    layout = rank_layout(n)
    keys = cp.empty(m, dtype=cp.uint64)
    run_prep("tc_prep_rank_keys", m,
             (cp.ascontiguousarray(lo), cp.ascontiguousarray(hi), rank, np.int64(m),
              np.int32(layout.high_shift), keys), vertex_t=c_type(lo.dtype))
    del rank
    keys.sort()
    rows, cols = layout.decode(keys, m, lo.dtype)
    del keys
    return portable_orient.csr_from_sorted(rows, cols, n, "rank")


def plan_partners(oriented) -> PartnerPlan:
    """:func:`~tricount.prep.partners.plan_partners` on the GPU (one key per edge, one
    sort, one decode); ``owners`` has the graph's index type."""
    cp = cupy()
    n, m = oriented.n_vertices, oriented.n_edges
    layout, id_bits, len_bits = plan_layout(n, oriented.max_out_degree)
    rows, cols = oriented.rows, oriented.indices
    if m == 0 or 2 * id_bits + len_bits > 64 or cols.dtype not in (np.int32, np.int64):
        return portable_partners.plan_partners(oriented)
    out_degree = cp.diff(oriented.indptr).astype(cp.int32)
    keys = cp.empty(m, dtype=cp.uint64)
    kept = cp.zeros(1, dtype=cp.uint64)
    run_prep("tc_prep_plan_keys", m,
             (cp.ascontiguousarray(rows), cp.ascontiguousarray(cols), out_degree, np.int64(m),
              np.int32(id_bits), np.int32(len_bits), np.uint64(oriented.max_out_degree), keys,
              kept), vertex_t=c_type(cols.dtype))
    keys.sort()
    n_pairs = int(kept.get()[0])
    owners, partners = layout.decode(keys, n_pairs, cols.dtype)
    del keys
    return plan_from_pairs(owners, partners, out_degree, n)


def split_tasks(plan, out_degree, max_probes: int) -> Tasks:
    """:func:`~tricount.prep.partners.split_tasks` on the GPU: one pass marks where
    tasks begin, from the plan's running sum (same tasks as the portable code)."""
    cp = cupy()
    if plan.n_pairs == 0:
        return portable_partners.split_tasks(plan, out_degree, max_probes)
    starts = cp.empty(plan.n_pairs, dtype=cp.uint8)
    run_prep("tc_prep_task_starts", plan.n_pairs,
             (plan.owners, plan.ptr, plan.running, np.int64(plan.n_pairs),
              np.int64(max(1, int(max_probes))), starts),
             vertex_t=c_type(plan.owners.dtype))
    return tasks_from_starts(plan, starts, out_degree)
