"""Materialise a sub-problem: the column block of an apex range, from memory or from a file.

A :class:`~tricount.partition.plan.SubProblem` names an apex range
``[lo, hi)`` and the anchor rows it streams. What it needs is

- the *pair stream*: rows of the rank-oriented CSR (:class:`RankedCSR`),
  read front to back; only entries below ``hi`` can matter;
- the *column block*: for every rank u below ``hi``, the slice of N+(u) that
  lies in ``[lo, hi)``. Rows are sorted, so the slice is contiguous and two
  binary searches find it; :func:`column_block` finds them for all rows in
  parallel, sums the lengths into the block's offsets and copies the slices.

Every executor materialises its sub-problems here. Whoever counts a sub-problem
opens the graph itself (:func:`open_source`): an in-memory graph is used as
it is, a ``.tcsr`` path is read by the counting process itself
(:func:`tricount.io.load_graph`), so a Dask worker cuts its own blocks from
the file and nothing large travels through the scheduler.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from tricount._threads import renew_in_child
from tricount.partition.ranked import RankedCSR, open_ranked

__all__ = ["ColumnBlock", "column_block", "open_source"]

_OPEN_LOCK = threading.Lock()
renew_in_child(globals(), _OPEN_LOCK=threading.Lock)


@dataclass(frozen=True)
class ColumnBlock:
    """Rows ``0 .. hi-1`` of the rank-oriented CSR, each cut to its entries in ``[lo, hi)``.

    ``indptr`` is int64 (``hi + 1``), ``indices`` hold ranks (the CSR's type).
    For the whole range ``[0, n)`` these are the CSR's own arrays (no copy).
    """

    indptr: np.ndarray
    indices: np.ndarray
    lo: int
    hi: int

    @property
    def n_entries(self) -> int:
        return int(self.indices.shape[0])

    @property
    def width(self) -> int:
        return self.hi - self.lo


def column_block(ranked: RankedCSR, lo: int, hi: int) -> ColumnBlock:
    """The column block ``[lo, hi)`` of a ranked CSR (parallel binary searches, one copy)."""
    from tricount.partition import _kernels
    from tricount.partition.ranked import parallel

    lo, hi = int(lo), int(hi)
    if lo == 0 and hi == ranked.n_vertices:
        return ColumnBlock(ranked.indptr, ranked.indices, 0, hi)
    lengths = np.empty(hi, dtype=np.int64)
    size = int(ranked.indptr[hi])  # the entries of the rows searched
    with parallel(size):
        _kernels.block_lengths(ranked.indptr, ranked.indices, lo, hi, lengths)
    indptr = np.zeros(hi + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    del lengths
    indices = np.empty(int(indptr[-1]), dtype=ranked.indices.dtype)
    with parallel(size):
        _kernels.block_fill(ranked.indptr, ranked.indices, lo, indptr, indices)
    return ColumnBlock(indptr, indices, lo, hi)


def open_source(source) -> RankedCSR:
    """The ranked CSR a sub-problem counts: ``source`` itself, or the ``.tcsr`` it names.

    A path is read once per process (cached by the file's identity,
    :func:`~tricount.partition.worker_cache.file_key`: size, times and inode), so the
    sub-problems one worker counts share one copy. Size and modification time alone kept a
    replacement of the same size whose time was kept (``cp -p``, ``rsync -t``) as the old
    graph: a wrong count.
    """
    from tricount.partition.worker_cache import file_key

    if isinstance(source, RankedCSR):
        return source
    with _OPEN_LOCK:  # threads of one worker read a file once, not once each
        return _open_cached(file_key(source))


@lru_cache(maxsize=4)
def _open_cached(key) -> RankedCSR:
    return open_ranked(key[0])
