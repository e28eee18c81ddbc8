"""Triangles as rows and per vertex, in NumPy alone, for a process that has not started Numba.

What the NumPy counter's anchor walk (:class:`tricount.cpu.wedge_numpy.AnchorWalk`)
gives beyond the count, for a small graph in a process where starting Numba would
cost more than the work:

- *rows* (:func:`stream_triangles_numpy`): each triangle {a, b, c} once, as a row of
  three vertex ids sorted by compact id -- the rows of :mod:`tricount.cpu.listing`, in
  its order (by settling anchor; see there), from the graph's upper CSR;
- *per vertex* (:func:`per_vertex_numpy`): the triangles at every vertex, as
  :func:`tricount.cpu.per_vertex.per_vertex_bitmap` counts them;
- *per edge* (:func:`edge_support_numpy`): the triangles on every oriented edge, as
  :func:`tricount.cpu.edge_support.edge_support_merge` counts them.

Precondition: an oriented CSR with rows sorted by id, edges pointing up an order of
the vertices: the degree orientation for per vertex and per edge, the graph's upper CSR
(id order) for rows. Found once: a triangle a < b < c in that order is the wedge
a -> b -> c closed by the edge a -> c, found only at its anchor a through its middle b;
the walk gives each block's wedges in edge order, each edge's ends w in increasing id,
and each closed wedge credits a, b and c once, and its edges a -> b, b -> c and a -> c
once.

Why: the Numba kernels walk a wedge in about 5 ns, these in 20-50 (rows included), but
Numba's start and the loading of its compiled kernels cost a fresh process about 0.4 s
(11 s compiling on a first run), which is the whole answer of a small graph:
``tricount list small.txt -o out.tsv`` waited 0.62-0.76 s and ``tricount clustering``
0.65 s where ``tricount count`` took 0.21 s (2-core machine, 2026-11-26). :func:`takes`
says when these are the ones: Numba not started, at most :data:`MAX_WEDGES` wedges,
and the process not yet past the break-even of many such calls.

Memory beyond the graph: the walk's per-edge arrays (as the NumPy counter), one block's
wedges, and for rows all of them at once (at most one a closed wedge: they are moved
into the lister's order together).
"""

from __future__ import annotations

import threading

import numpy as np

from tricount._threads import numba_started, renew_in_child

__all__ = ["takes", "stream_triangles_numpy", "per_vertex_numpy", "edge_support_numpy",
           "MAX_WEDGES", "MAX_EDGES", "MAX_VERTICES", "EXTRA_S_PER_WEDGE", "EXTRA_S_PER_CALL"]

#: Wedges (the anchor walk's Σ d+(v) over the edges) up to which a process without
#: Numba walks in NumPy: at 20-50 ns a wedge, 8 M wedges take 0.16-0.4 s, under Numba's
#: start (about 0.4-0.56 s on the 2-core machine; on the H100 machine's 16-core host a
#: clustering through Numba took 2.1-2.5 s for ca-HepPh's 4.6 M wedges, through NumPy
#: 0.7-0.9 s for email-Enron's and ca-AstroPh's 3.8 M, 2026-11-26).
MAX_WEDGES = 1 << 23
#: Oriented edges past which the wedges are not even summed (a gather over every edge).
MAX_EDGES = 1 << 21
#: Vertices at most: the walk's byte map holds at least one row of n bytes.
MAX_VERTICES = 1 << 24
#: What a wedge costs here beyond the Numba kernels (about 5 ns a wedge): 20-33 ns a
#: wedge in NumPy on ca-AstroPh, email-Enron, ca-HepPh and ego-Facebook, rows included
#: (2-core machine, 2026-11-26).
EXTRA_S_PER_WEDGE = 2e-8
#: What a call costs here beyond a warm Numba's, whatever its wedges: 60 µs listing
#: karate's rows (66 against 5.8 µs), 25 µs its triangles per vertex, 30-40 µs its
#: support per edge (2-core machine, 2026-11-27). Without it a process listing a tiny
#: graph over and over lost about 60 µs a call and reached Numba's start only after some
#: 56,000 calls (3.4 s lost for a 0.56 s start; now after some 21,000). The smallest of
#: the three, so the ledger never holds more than was lost.
EXTRA_S_PER_CALL = 2.5e-5

_ledger = {"lost_s": 0.0}  # seconds this process has lost by walking without Numba
_lock = threading.Lock()
renew_in_child(globals(), _lock=threading.Lock)


def takes(oriented, numba_start_s: float) -> bool:
    """Whether ``oriented`` is walked here: Numba has not started in this process, the
    graph has at most :data:`MAX_EDGES` edges, :data:`MAX_VERTICES` vertices and
    :data:`MAX_WEDGES` wedges, and the
    process has not yet lost Numba's start to these walks. Each walk here adds what it
    loses against a warm Numba (:data:`EXTRA_S_PER_CALL` and :data:`EXTRA_S_PER_WEDGE` a
    wedge); once that reaches
    ``numba_start_s`` (the price of starting Numba: the CPU backend passes the cost
    model's), the next call starts it (ski rental, as
    :class:`tricount.backends.costs.WarmUpLedger` rules for counts): a process that lists
    or counts per vertex many small graphs spends at most about twice what it would with
    the best choices."""
    if numba_started() or oriented.n_edges > MAX_EDGES or oriented.n_vertices > MAX_VERTICES:
        return False
    indptr = np.asarray(oriented.indptr, dtype=np.int64)
    wedges = int(np.diff(indptr)[oriented.indices].sum())
    if wedges > MAX_WEDGES:
        return False
    with _lock:
        if _ledger["lost_s"] >= numba_start_s:
            return False
        _ledger["lost_s"] += EXTRA_S_PER_CALL + wedges * EXTRA_S_PER_WEDGE
    return True


def _edge_anchors(oriented) -> np.ndarray:
    """The anchor a of every oriented edge a -> b, by position (int64)."""
    indptr = np.asarray(oriented.indptr, dtype=np.int64)
    return np.repeat(np.arange(oriented.n_vertices, dtype=np.int64), np.diff(indptr))


def _closed_wedges(oriented):
    """The walk's closed wedges a -> b -> c (a -> c an edge), in the rows' order, block by
    block: ``(a, b, c, edge, end)`` arrays, ``edge`` the position of a -> b and ``end`` of
    b -> c in the oriented CSR; blocks without one are skipped."""
    from tricount.cpu.wedge_numpy import AnchorWalk

    walk = AnchorWalk(oriented)
    anchor, indices = _edge_anchors(oriented), walk.indices
    for e0, e1, at, closed in walk.walk(walk.blocks()):
        edge = np.repeat(np.arange(e0, e1), walk.wedges[e0:e1])[closed]
        if edge.shape[0]:
            end = at[closed]
            yield anchor[edge], indices[edge], indices[end], edge, end


def stream_triangles_numpy(upper, labels=None, chunk_size: int = 1 << 20):
    """Yield every triangle once, as C-contiguous ``(k, 3)`` int64 arrays (``labels`` of
    the vertices, or compact ids for None), every chunk ``chunk_size`` rows but the last;
    the same rows, in the same order, as :func:`tricount.cpu.listing.stream_triangles_cpu`
    from the same upper CSR (``graph.upper()``).

    The walk of ``upper`` finds each triangle a < b < c once, as the wedge a -> b -> c
    with a -> b its pair; the rows are then put in the lister's order (its module doc):
    every edge of the CSR is ranked by the lister's order of pairs (the pair (a, b) is
    settled at b when N+(b) is longer than the rest of a's row after b, else at a; by
    settling anchor, its own pairs before those deferred to it, then by position), and
    each edge's rows, found together and by increasing c, move as one run to their
    edge's place in that ranking.
    """
    labels = None if labels is None else np.asarray(labels, dtype=np.int64)
    if upper.n_edges == 0:
        return
    found = [(edge, c) for _a, _b, c, edge, _end in _closed_wedges(upper)]
    if not found:
        return
    # The walk's rows come by edge, each edge's together and by increasing c (its blocks
    # are ranges of edges, in order): putting them in the lister's order moves each
    # edge's run of rows whole, to where its rank puts it. No sort of the rows.
    edge = np.concatenate([e for e, _c in found])
    third = np.concatenate([c for _e, c in found])
    del found
    m = upper.n_edges
    indptr = np.asarray(upper.indptr, dtype=np.int64)
    anchor, target = _edge_anchors(upper), upper.indices.astype(np.int64)
    position = np.arange(m, dtype=np.int64)
    deferred = (indptr[target + 1] - indptr[target]) > (indptr[anchor + 1] - position - 1)
    in_order = np.lexsort((position, deferred, np.where(deferred, target, anchor)))
    rows_of_edge = np.bincount(edge, minlength=m)
    first_in_walk = np.cumsum(rows_of_edge) - rows_of_edge
    ranked = rows_of_edge[in_order]
    first_in_order = np.empty(m, dtype=np.int64)
    first_in_order[in_order] = np.cumsum(ranked) - ranked
    to = first_in_order[edge] + (np.arange(edge.shape[0], dtype=np.int64) - first_in_walk[edge])
    if labels is not None:
        anchor, target, third = labels[anchor], labels[target], labels[third]
    rows = np.empty((edge.shape[0], 3), dtype=np.int64)
    rows[to, 0] = anchor[edge]
    rows[to, 1] = target[edge]
    rows[to, 2] = third
    for start in range(0, rows.shape[0], chunk_size):
        yield np.ascontiguousarray(rows[start:start + chunk_size])


def per_vertex_numpy(oriented) -> np.ndarray:
    """Triangles at every vertex (int64, indexed by compact id): each closed wedge
    a -> b -> c credits a, b and c."""
    per_vertex = np.zeros(oriented.n_vertices, dtype=np.int64)
    if oriented.n_edges == 0:
        return per_vertex
    for a, b, c, _edge, _end in _closed_wedges(oriented):
        for ends in (a, b, c):
            np.add.at(per_vertex, ends, 1)  # memory of the block's triangles, not of n
    return per_vertex


def edge_support_numpy(oriented) -> np.ndarray:
    """Triangles on every edge (int64, indexed by position in the oriented CSR): each
    closed wedge a -> b -> c credits a -> b (its edge), b -> c (the wedge's end) and
    a -> c (found by its key a n + c among the edges' keys: rows are sorted, so the keys
    are; n < 2^24, so they fit)."""
    support = np.zeros(oriented.n_edges, dtype=np.int64)
    if oriented.n_edges == 0:
        return support
    n = np.int64(oriented.n_vertices)
    keys = _edge_anchors(oriented) * n + oriented.indices  # by anchor, then by id in a row
    for a, _b, c, edge, end in _closed_wedges(oriented):
        for hit in (edge, end, np.searchsorted(keys, a * n + c)):
            np.add.at(support, hit, 1)
    return support
