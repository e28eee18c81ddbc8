"""Oriented CSRs whose COO rows are derived on first use: the id-oriented one of every graph.

A canonical graph is stored once, in the row of each edge's smaller id
(Pearson et al.'s upper-triangular COO + CSR). Loaders produce ``indptr`` and
``indices`` directly (a counting sort, or a memory-mapped ``.tcsr`` file), and
most consumers read only those. The COO ``rows`` array costs a full pass over
the edges and 4 or 8 bytes each, so :class:`UpperCSR` computes it when first
read and keeps it; code that reads ``.rows`` (edge-parallel GPU kernels,
orientation by degree) sees no difference from an eager
:class:`~tricount.prep.orient.OrientedCSR`.

The CPU's degree orientation (:mod:`tricount.prep._orient_cpu`) returns the same
kind of CSR (:class:`LazyRowsCSR`): its kernels read ``indptr`` alone.

Rows from ``indptr``: on the CPU, ``numpy.repeat`` for small graphs and a parallel
Numba loop that writes ``r`` over ``indptr[r] .. indptr[r+1]`` for large ones
(Numba is imported only then, so ``import tricount`` stays light and a small
count compiles nothing); on the GPU each non-empty row marks its first entry
with the distance from the previous non-empty row, and a running sum gives
the row of every entry.
"""

from __future__ import annotations

import functools

from tricount._threads import parallel_region
from tricount.prep.orient import OrientedCSR
from tricount.prep.xp import array_namespace

__all__ = ["LazyRowsCSR", "UpperCSR", "coo_rows", "rows_by_steps", "is_upper_csr"]

#: Entries :func:`is_upper_csr` checks at a time (host or device arrays).
CHECK_WINDOW = 1 << 25

#: Below this many entries ``numpy.repeat`` writes the rows (a few ms per million
#: entries on one core): the parallel loop saves less than loading it costs the first
#: time in a process, Numba's start-up (0.37 s of CPU) or its compilation (1-3 s;
#: 2-core development machine, 2026-11-25).
ROWS_NUMBA_MIN_ENTRIES = 1 << 24


class LazyRowsCSR(OrientedCSR):
    """An :class:`OrientedCSR` built from ``indptr`` and ``indices`` alone; ``rows`` and
    ``max_out_degree`` are computed on first access and cached."""

    def __init__(self, indptr, indices, n_vertices: int, order: str):
        # OrientedCSR is a frozen dataclass: set the fields the way its own __init__ does.
        object.__setattr__(self, "indptr", indptr)
        object.__setattr__(self, "indices", indices)
        object.__setattr__(self, "n_vertices", int(n_vertices))
        object.__setattr__(self, "n_edges", int(indices.shape[0]))
        object.__setattr__(self, "order", order)

    @functools.cached_property
    def rows(self):
        """COO row of every stored entry (the index dtype), computed once."""
        return coo_rows(self.indptr, self.indices.dtype)

    @functools.cached_property
    def max_out_degree(self) -> int:
        xp = array_namespace(self.indptr)
        return int(xp.diff(self.indptr).max()) if self.n_edges else 0

    def __repr__(self) -> str:  # the dataclass repr would materialise rows
        return (f"{type(self).__name__}(n_vertices={self.n_vertices}, n_edges={self.n_edges}, "
                f"order={self.order!r})")


class UpperCSR(LazyRowsCSR):
    """Upper-triangular CSR (row ``u`` holds its neighbours ``v > u``, sorted); ``order``
    is ``"id"``."""

    def __init__(self, indptr, indices, n_vertices: int):
        super().__init__(indptr, indices, n_vertices, "id")


def coo_rows(indptr, dtype):
    """Row id of every entry of a CSR with row offsets ``indptr``, as ``dtype``."""
    xp = array_namespace(indptr)
    n = int(indptr.shape[0]) - 1
    m = int(indptr[-1]) if n >= 0 else 0
    if m == 0:
        return xp.zeros(0, dtype=dtype)
    if xp.__name__ == "numpy" and m < ROWS_NUMBA_MIN_ENTRIES:
        return xp.repeat(xp.arange(n, dtype=dtype), xp.diff(indptr))
    if xp.__name__ == "numpy":
        from tricount.prep._rows_cpu import fill_rows  # Numba: loaded on first use

        rows = xp.empty(m, dtype=dtype)
        with parallel_region():
            fill_rows(indptr, rows)
        return rows
    return rows_by_steps(xp, indptr, m, dtype)


def rows_by_steps(xp, indptr, m: int, dtype):
    """:func:`coo_rows` for any array namespace (the GPU's; tested with NumPy).

    At the first entry of each non-empty row, the step from the previous
    non-empty row's id; a running sum then gives every entry its row. Two
    arrays of the index type: no int64 pass over the entries.

    >>> import numpy as np
    >>> rows_by_steps(np, np.array([0, 0, 2, 2, 3]), 3, np.int32).tolist()
    [1, 1, 3]
    """
    nonempty = xp.flatnonzero(indptr[1:] > indptr[:-1])
    steps = nonempty.copy()
    steps[1:] -= nonempty[:-1]
    marks = xp.zeros(m, dtype=dtype)
    marks[indptr[nonempty]] = steps.astype(dtype)
    return xp.cumsum(marks, dtype=dtype)


def is_upper_csr(indptr, indices, n: int, *, window: int = CHECK_WINDOW) -> bool:
    """Whether the upper CSR ``(indptr, indices)`` of ``n`` vertices (CuPy arrays, or NumPy:
    the code is the same) is well formed: offsets from 0 to ``m`` that never decrease, and
    each row's ids above its vertex, below ``n`` and strictly increasing. The entries are
    checked in windows of ``window``.

    >>> import numpy as np
    >>> is_upper_csr(np.array([0, 2, 3, 3]), np.array([1, 2, 2]), 3)
    True
    >>> is_upper_csr(np.array([0, 2, 3, 3]), np.array([2, 1, 2]), 3)
    False
    """
    xp = array_namespace(indptr)
    m = int(indices.shape[0])
    if int(indptr.shape[0]) != n + 1 or int(indptr[0]) != 0 or int(indptr[n]) != m:
        return False
    if n and bool((indptr[1:] < indptr[:-1]).any()):
        return False
    window = max(2, int(window))
    for e0 in range(0, m, window):
        e1 = min(m, e0 + window)
        # Rows r0 .. r1 - 1 hold the entries e0 .. e1 - 1 (the offsets never decrease).
        r0 = int(xp.searchsorted(indptr, e0, side="right")) - 1
        r1 = int(xp.searchsorted(indptr, e1 - 1, side="right"))
        local = xp.clip(indptr[r0:r1 + 1], e0, e1) - e0
        rows = rows_by_steps(xp, local, e1 - e0, indices.dtype)
        rows += r0
        cols = indices[e0:e1]
        if bool(((cols <= rows) | (cols >= n)).any()):
            return False
        if bool(((cols[1:] <= cols[:-1]) & (rows[1:] == rows[:-1])).any()):
            return False
        # The window's first entry against the last one before it, when both are in row r0.
        if e0 > int(indptr[r0]) and int(indices[e0]) <= int(indices[e0 - 1]):
            return False
    return True
