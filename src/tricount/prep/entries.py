"""Edge entries straight to the rank-oriented DAG: a count from edge arrays.

A count from ``(src, dst)`` needs neither compact ids nor the canonical CSR
(:mod:`tricount.prep.canonical`): only the DAG a method counts. This is that
route, for NumPy and CuPy (the GPU builds the same arrays by bucketing,
:mod:`tricount.gpu.prepare.entries`, and its tests compare every array with
these):

1. the *raw degree* of every id in ``0 .. max id``: the entries at it, self-loops
   excluded, repeats and both directions included;
2. every vertex renamed by its rank in the order (raw degree, id), a strict
   total order;
3. each entry kept as the pair (lower rank, higher rank), and each distinct pair
   once, sorted: rows by rank, each row by rank.

Every triangle {a, b, c} with ranks a < b < c is counted once, from the edge
a -> b with c in both out-lists, as for :func:`~tricount.prep.orient.orient_by_rank`;
the order differs from that of the simple graph's degrees only where repeats
change a degree, which changes no count. Ids that appear in no entry stay as
empty rows (the lowest ranks). Out-lists are short for the same reason as
there: a row of L distinct pairs goes to ends of raw degree at least L.

What the graph's summary reports is counted on the way: the ids in an entry
(self-loops included), the self-loops, and the repeats (entries past the first
of each directed line, as the canonical build counts them).
"""

from __future__ import annotations

from dataclasses import dataclass

from tricount.prep.orient import OrientedCSR, csr_from_sorted, degree_rank
from tricount.prep.xp import array_namespace, index_dtype

__all__ = ["OrientedEntries", "orient_entries", "raw_degrees"]


@dataclass(frozen=True)
class OrientedEntries:
    """The rank-oriented DAG of some edge entries, and the facts a summary reports."""

    oriented: OrientedCSR
    n_vertices: int
    self_loops_dropped: int
    duplicates_dropped: int

    def summary(self, name=None) -> dict:
        """:meth:`tricount.CSRGraph.summary`'s facts (the largest degree is not known)."""
        return {"graph": name, "vertices": self.n_vertices, "edges": self.oriented.n_edges,
                "max_degree": None, "self_loops_dropped": self.self_loops_dropped,
                "duplicates_dropped": self.duplicates_dropped}


def raw_degrees(src, dst, n_vertices: int):
    """int64 entries at every id of ``0 .. n_vertices - 1``, self-loops excluded."""
    xp = array_namespace(src, dst)
    keep = src != dst
    deg = xp.bincount(src[keep], minlength=n_vertices).astype(xp.int64)
    deg += xp.bincount(dst[keep], minlength=n_vertices)
    return deg


def orient_entries(src, dst) -> OrientedEntries:
    """The rank-oriented DAG of the entries ``src[i] -> dst[i]`` (non-negative integer
    ids, fewer than about 3 * 10^9 of them), with the summary's facts."""
    xp = array_namespace(src, dst)
    n_entries = int(src.shape[0])
    n = int(max(int(src.max()), int(dst.max()))) + 1 if n_entries else 0
    loop = src == dst
    deg = raw_degrees(src, dst, n)
    looped = xp.zeros(n, dtype=bool)
    looped[src[loop]] = True
    idx = index_dtype(n)
    rank = degree_rank(deg, n, xp.int64)
    a, b = rank[src[~loop]], rank[dst[~loop]]
    lo, hi = xp.minimum(a, b), xp.maximum(a, b)
    n_directed = int(xp.unique((lo * n + hi) * 2 + (a > b)).shape[0])
    key = xp.unique(lo * n + hi)
    oriented = csr_from_sorted((key // n).astype(idx), (key % n).astype(idx), n, "rank")
    n_loops = int(xp.count_nonzero(loop))
    return OrientedEntries(oriented, int(xp.count_nonzero((deg > 0) | looped)), n_loops,
                           n_entries - n_loops - n_directed)
