"""The CPU executor: count a plan's sub-problems one after another, each in parallel (Numba).

Counts: for sub-problem (apex range [lo, hi), anchors a in [row_lo, row_hi)),
Σ over edges a -> b of |N+(a) ∩ N+(b) ∩ [lo, hi)| in the rank-oriented graph:
the triangles whose apex lies in [lo, hi) (the plan's module doc shows each
triangle is met once, in its apex's range). A piece with an owner range
counts only the edges it owns (the plan's module doc: each edge has one).
Preconditions: a :class:`~tricount.partition.ranked.RankedCSR` (rows sorted,
ids are ranks) and the sub-problem's column block (:mod:`.blocks`).
Work: one parallel iteration per anchor a (``_kernels.count_block``); the
thread marks a's block entries in a byte map as wide as the range (not as
the graph: a range of 1/k of the ranks needs 1/k of the map), walks N+(a) up
to its last marked entry and probes each b's block entries with one load.
So a sub-problem does exactly the probes the plan's ``probes`` estimate
counts. Dynamic chunks of :data:`~tricount.partition.ranked.CHUNK_ROWS`
anchors balance skewed rows. Sub-problems run in sequence, each using every
thread: no two blocks are alive at once.
"""

from __future__ import annotations

import time

import numpy as np

from tricount.errors import TricountError
from tricount.partition.blocks import ColumnBlock, column_block, open_source
from tricount.partition.plan import MemoryModel, SubProblem

__all__ = ["count_subproblem", "memory_model", "anchor_work"]


def memory_model(index_bytes: int = 4) -> MemoryModel:
    """What a CPU sub-problem holds beside the graph: its block and one byte map per thread."""
    import numba

    threads = numba.get_num_threads()
    return MemoryModel(entry_bytes=index_bytes, row_bytes=8, apex_bytes=threads,
                       fixed_bytes=threads * MARK_STRIDE)


#: Bytes between two threads' byte maps: a range of the hubs is a few dozen ranks wide,
#: and maps closer than a cache line (two, for the adjacent-line prefetcher) share lines
#: that both threads write. Unpadded, R-MAT 18's narrowest ranges ran 4x slower per probe.
MARK_STRIDE = 128


def _marks(width: int) -> np.ndarray:
    """One zeroed byte map per thread, each ``width`` bytes padded to its own cache lines."""
    import numba

    stride = -(-max(int(width), 1) // MARK_STRIDE) * MARK_STRIDE
    return np.zeros((numba.get_num_threads(), stride), dtype=np.uint8)


def count_subproblem(source, sub: SubProblem, *, block: ColumnBlock | None = None) -> dict:
    """Count one sub-problem on the CPU; ``source`` is a RankedCSR or a ``.tcsr`` path.

    Returns ``{"n_triangles", "index", "rows", "block_s", "count_s", "where"}``
    (plain Python values, so a Dask worker can send it back as it is).
    """
    from tricount.partition import _kernels
    from tricount.partition.ranked import parallel

    t0 = time.perf_counter()
    ranked = open_source(source)
    row_lo, row_hi = sub.rows
    owner_lo, owner_hi = sub.owners
    sub.check(ranked.n_vertices)  # the kernel does not check its bounds
    if block is None:
        block = column_block(ranked, sub.apex_lo, sub.apex_hi)
    elif (block.lo, block.hi) != (sub.apex_lo, sub.apex_hi):
        raise TricountError(f"sub-problem {sub.index} counts apexes {sub.apex_lo}.."
                            f"{sub.apex_hi}; the block given holds {block.lo}..{block.hi}")
    t1 = time.perf_counter()
    with parallel(int(ranked.indptr[row_hi] - ranked.indptr[row_lo])):
        n = _kernels.count_block(ranked.indptr, ranked.indices, block.indptr, block.indices,
                                 block.lo, row_lo, row_hi, owner_lo, owner_hi,
                                 _marks(block.width))
    t2 = time.perf_counter()
    return {"n_triangles": int(n), "index": sub.index, "rows": (row_lo, row_hi),
            "block_s": t1 - t0, "count_s": t2 - t1, "where": "cpu"}


def anchor_work(ranked, block: ColumnBlock) -> np.ndarray:
    """Per anchor below ``block.hi``: its marks plus its probes in this block (int64),
    for :func:`tricount.partition.plan.split_anchors`."""
    from tricount.partition import _kernels
    from tricount.partition.ranked import parallel

    work = np.zeros(block.hi, dtype=np.int64)
    with parallel(int(ranked.indptr[block.hi])):
        _kernels.anchor_work(ranked.indptr, ranked.indices, block.indptr, block.indices, work)
    return work
