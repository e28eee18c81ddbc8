"""Pass 1 of the bounded build: the ids that occur and a histogram of the lines' smaller ends.

Per chunk: count self-loops, mark the ids that occur (a byte map over
``0 .. max id`` while ids are dense; the sorted distinct ids when they are
sparse), and count the non-loop lines in a histogram of ``lo >> shift``
(:data:`HIST_BINS` bins, coarsened as larger ids appear, pairs of bins merging
exactly). At the end the marks give the compact ids and the histogram the buckets.
"""

from __future__ import annotations

import numpy as np

from tricount.errors import InvalidEdgesError
from tricount.prep.canonical import MAX_INT64
from tricount.prep.xp import to_host

__all__ = ["Survey", "HIST_BINS"]

#: Bins of the survey's histogram of smaller ends (per thread: 512 KB of int64).
HIST_BINS = 1 << 16  # a power of two: coarsening merges pairs of bins
#: Ids are marked in a byte map while the largest is below this many per input line
#: (as canonical.DENSE_ID_FACTOR, with both ends per line) or below DENSE_MIN_IDS.
DENSE_IDS_PER_LINE = 8
DENSE_MIN_IDS = 1 << 26
#: Byte maps and rank tables past 2^31 ids would cost more than the sorted distinct ids.
DENSE_MAX_IDS = 1 << 31


class Survey:
    """Pass 1's tables for chunks of one namespace (host: per-thread histograms; device:
    one), and what they say at the end: the vertices, the compact map, the histogram."""

    def __init__(self, xp, rows, n_vertices, hints):
        self.xp, self.fixed = xp, n_vertices
        self.hist = xp.zeros((rows, HIST_BINS), dtype=xp.int64)
        self.shift = 0
        self.dense = n_vertices is None
        self.present = xp.zeros(0, dtype=xp.uint8)
        self.pieces, self.merged = [], 0
        self.max_id, self.loops, self.lines = -1, 0, 0
        self.hint_lines, self.hint_max = hints

    def _dense_limit(self, lines: int) -> int:
        lines = max(lines, self.hint_lines or 0)
        return min(DENSE_MAX_IDS, max(DENSE_MIN_IDS, DENSE_IDS_PER_LINE * lines))

    def add(self, s, d, top: int, count) -> None:
        """Survey one chunk (uint64 ids, at least one line, largest ``top``) with
        ``count(s, d, present, hist, shift, mark) -> loops``."""
        xp = self.xp
        if self.fixed is not None and top >= self.fixed:
            raise InvalidEdgesError(
                f"edge endpoint {top} is out of range for a graph of {self.fixed} vertices")
        while (top >> self.shift) >= HIST_BINS:  # coarsen: pairs of bins merge, exactly
            self.hist = self.hist[:, 0::2] + self.hist[:, 1::2]
            self.hist = xp.concatenate([self.hist, xp.zeros_like(self.hist)], axis=1)
            self.shift += 1
        m = int(s.shape[0])
        if self.dense and top >= self._dense_limit(self.lines + m):
            self.pieces, self.merged = [xp.flatnonzero(self.present).astype(xp.uint64)], 0
            self.present, self.dense = xp.zeros(0, dtype=xp.uint8), False
        if self.dense and top >= self.present.shape[0]:
            size = max(top + 1, min(2 * self.present.shape[0], self._dense_limit(0)))
            if self.hint_max is not None and self.hint_max >= top:
                size = max(size, self.hint_max + 1)
            grown = xp.zeros(size, dtype=xp.uint8)
            grown[: self.present.shape[0]] = self.present
            self.present = grown
        mark = self.dense and self.fixed is None
        marks = self.present if mark else xp.zeros(1, dtype=xp.uint8)
        self.loops += int(count(s, d, marks, self.hist, np.uint64(self.shift), mark))
        if not self.dense and self.fixed is None:  # sparse ids: keep the distinct ones
            self.pieces.append(_distinct(xp, xp.concatenate([s, d])))
            if sum(int(p.shape[0]) for p in self.pieces) > 2 * self.merged + (1 << 20):
                self.pieces = [_distinct(xp, xp.concatenate(self.pieces))]
                self.merged = int(self.pieces[0].shape[0])
        self.max_id = max(self.max_id, top)
        self.lines += m

    def finish(self):
        """``(vertex_ids, rank, search)`` in this namespace, and the histogram on the host.

        ``rank`` maps table ids (the ids while dense) to compact ids, or is None;
        ``search`` says that pass 2 turns ids into table ids by their positions
        among the sorted distinct ids (sparse ids), else they are table ids.
        """
        xp = self.xp
        hist = to_host(self.hist.sum(axis=0))
        if self.fixed is not None:
            return xp.arange(self.fixed, dtype=xp.int64), None, False, hist
        if self.dense:
            present = self.present[: self.max_id + 1]
            vertex_ids = xp.flatnonzero(present).astype(xp.int64)
            rank = None
            if vertex_ids.shape[0] < present.shape[0]:  # gaps: table ids -> compact ids
                wide = present.shape[0] >= 2**31
                rank = xp.cumsum(present, dtype=xp.int64 if wide else xp.int32) - 1
            self.present = None
            return vertex_ids, rank, False, hist
        ids = _distinct(xp, xp.concatenate(self.pieces)) if self.pieces else xp.zeros(0, xp.uint64)
        self.pieces = []
        if self.max_id <= MAX_INT64:
            ids = ids.astype(xp.int64)
        return ids, None, True, hist


def _distinct(xp, a):
    """The distinct values of ``a``, sorted: a sort and a mask. NumPy 2's ``unique`` hashes
    uint64 instead, 2.5 s for 2 M sparse ids against 0.17 s (a bounded build of 2 M lines
    with ids below 2**62 took 11.3 s, 10.2 of them here, against from_edges' 1.1 s)."""
    a = xp.sort(a)
    if a.shape[0] < 2:
        return a
    keep = xp.empty(a.shape[0], dtype=xp.bool_)
    keep[0] = True
    xp.not_equal(a[1:], a[:-1], out=keep[1:])
    return a[keep]
