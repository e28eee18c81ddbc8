"""CPU triangle listing: every triangle written once, in chunks of bounded size.

Lists: each triangle {a, b, c} of a simple undirected graph as one row of three
vertex ids, the row sorted by compact id (the order of ``graph.vertex_ids``:
increasing original id for a graph built from edge arrays or a file).
Precondition: the degree-oriented CSR of :func:`tricount.prep.orient_by_degree`
(each edge once, from lower to higher (degree, id); rows sorted by id).
Listed once: a triangle a < b < c in (degree, id) order is found only from the
edge a -> b, as c in both N+(a) and N+(b).
Three steps, count -> prefix sum -> write, so that the output never has to fit:

1. *count*: one parallel iteration per anchor u marks N+(u) in the thread's
   byte map (as :mod:`tricount.cpu.bitmap`) and stores, for every edge k = u -> v
   of its row, the number of w in N+(v) that are marked: the triangles that
   edge k closes (at most d+(u) - 1, so never near 2^31).
2. *prefix sum*: ``offsets[k]`` (int64, m + 1 entries) numbers the triangles
   globally; triangle t of edge k (its hits in increasing w) is number
   ``offsets[k] + t``. ``offsets[m]`` is the number of triangles.
3. *write*: a window [t0, t1) of triangle numbers covers the edges
   ``e0 .. e1 - 1``; one parallel iteration per edge of the window walks N+(v)
   and writes each hit numbered inside the window at row ``number - t0``. A
   thread keeps its last anchor marked: work chunks are contiguous edge
   ranges, so consecutive edges mostly share the anchor and its marks.

Each window's rows are written by number, so the output order is fixed: by
oriented edge, then by increasing third vertex; any chunk size gives the same
stream (and the GPU lister, :mod:`tricount.gpu.listing`, gives the same rows in
the same order). Memory beyond the graph: 8 (m + 1) bytes of offsets, one byte
map per thread, and the caller's window buffer.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["CpuLister", "list_triangles_cpu", "CHUNK_ROWS"]

#: Rows per chunk by default: 2^20 rows are 24 MiB of int64 ids, a Parquet row
#: group of the usual size; a chosen default, not measured.
CHUNK_ROWS = 1 << 20
#: Anchors per work chunk of the count (as :data:`tricount.cpu.bitmap.CHUNK_VERTICES`).
COUNT_CHUNK_VERTICES = 64
#: Edges per work chunk of the write: long enough that a thread meets each anchor
#: once per chunk, short enough to balance a window of 2^20 rows; not measured.
WRITE_CHUNK_EDGES = 256
#: Below this many oriented edges (in the graph for the count, in the window for
#: the write), or with one Numba thread, the kernels run on the calling thread
#: (serial twins, compiled without ``parallel``): a parallel launch cost 12-20 ms
#: on the loaded 2-core development VM (tens of µs when idle), while ca-GrQc
#: (14,484 edges, 48,260 triangles) counts in 0.45 ms and writes in 0.8 ms on one
#: thread (2026-11-25).
PARALLEL_MIN_EDGES = 1 << 16


@numba.njit(inline="always")
def _count_row(indptr, indices, mark, counts, u):
    """``counts[k]`` for every edge k of row u (the byte map ``mark`` is clean before and after)."""
    u_begin = indptr[u]
    u_end = indptr[u + 1]
    if u_end - u_begin < 2:
        for k in range(u_begin, u_end):
            counts[k] = 0  # one out-neighbour closes nothing
        return
    for k in range(u_begin, u_end):
        mark[indices[k]] = 1
    for k in range(u_begin, u_end):
        v = indices[k]
        found = 0
        for j in range(indptr[v], indptr[v + 1]):
            found += mark[indices[j]]
        counts[k] = found
    for k in range(u_begin, u_end):
        mark[indices[k]] = 0


@numba.njit(parallel=True, cache=True, nogil=True)
def _count_per_edge(indptr, indices, marks, counts):
    """``counts[k]`` = triangles closed by oriented edge k (every entry written)."""
    for u in numba.prange(indptr.shape[0] - 1):
        _count_row(indptr, indices, marks[numba.get_thread_id()], counts, u)


@numba.njit(cache=True, nogil=True)
def _count_per_edge_serial(indptr, indices, marks, counts):
    """:func:`_count_per_edge` on the calling thread (small graphs: no launch to pay)."""
    for u in range(indptr.shape[0] - 1):
        _count_row(indptr, indices, marks[0], counts, u)


@numba.njit(inline="always")
def _write_edge(indptr, rows, indices, offsets, labels, e, t_begin, t_end, marks, marked, slot,
                out_u, out_v, out_w):
    """Write the triangles of edge e numbered inside ``t_begin .. t_end - 1``.

    Row ``t - t_begin`` gets ``labels`` of the three vertices, sorted by
    compact id. ``marks[slot]`` holds the marks of anchor ``marked[slot]``
    (-1: none) and stays so between calls.
    """
    t = offsets[e]
    if offsets[e + 1] == t:
        return  # closes no triangle: do not disturb the marks
    mark = marks[slot]
    u = rows[e]
    if marked[slot] != u:
        old = marked[slot]
        if old >= 0:
            for k in range(indptr[old], indptr[old + 1]):
                mark[indices[k]] = 0
        for k in range(indptr[u], indptr[u + 1]):
            mark[indices[k]] = 1
        marked[slot] = u
    v = indices[e]
    for j in range(indptr[v], indptr[v + 1]):
        w = indices[j]
        if mark[w]:
            if t >= t_end:
                break
            if t >= t_begin:  # only the window's first edge has hits before t_begin
                # Sort the three compact ids: u < w and v < w need not hold.
                a, b, c = u, v, w
                if a > b:
                    a, b = b, a
                if b > c:
                    b, c = c, b
                if a > b:
                    a, b = b, a
                i = t - t_begin
                out_u[i] = labels[a]
                out_v[i] = labels[b]
                out_w[i] = labels[c]
            t += 1


@numba.njit(parallel=True, cache=True, nogil=True)
def _write_window(indptr, rows, indices, offsets, labels, e_begin, e_end, t_begin, t_end,
                  marks, marked, out_u, out_v, out_w):
    """Write the triangles numbered ``t_begin .. t_end - 1`` (edges ``e_begin .. e_end - 1``)."""
    for e in numba.prange(e_begin, e_end):
        _write_edge(indptr, rows, indices, offsets, labels, e, t_begin, t_end, marks, marked,
                    numba.get_thread_id(), out_u, out_v, out_w)


@numba.njit(cache=True, nogil=True)
def _write_window_serial(indptr, rows, indices, offsets, labels, e_begin, e_end, t_begin,
                         t_end, marks, marked, out_u, out_v, out_w):
    """:func:`_write_window` on the calling thread, in thread slot 0."""
    for e in range(e_begin, e_end):
        _write_edge(indptr, rows, indices, offsets, labels, e, t_begin, t_end, marks, marked, 0,
                    out_u, out_v, out_w)


class CpuLister:
    """Counted and numbered triangles of one oriented graph, written window by window.

    ``labels`` is an int64 array, the id written for each compact vertex
    (``graph.vertex_ids``, or ``arange(n)`` for labels that are not integers).
    Construction runs the count and the prefix sum; :meth:`write` fills any
    window. Not thread-safe: one window at a time.
    """

    def __init__(self, oriented, labels):
        self.oriented = oriented
        self.labels = np.ascontiguousarray(labels, dtype=np.int64)
        m = oriented.n_edges
        self.offsets = np.zeros(m + 1, dtype=np.int64)
        self._marks = np.zeros((0, max(oriented.n_vertices, 1)), dtype=np.uint8)
        self._marked = np.zeros(0, dtype=np.int64)
        if m:
            self._ensure_marks()
            args = (oriented.indptr, oriented.indices, self._marks, self.offsets[1:])
            if m < PARALLEL_MIN_EDGES or numba.get_num_threads() == 1:
                _count_per_edge_serial(*args)
            else:
                with numba.parallel_chunksize(COUNT_CHUNK_VERTICES):
                    _count_per_edge(*args)
            # The byte maps are clean again (every anchor cleared its marks).
            np.cumsum(self.offsets[1:], out=self.offsets[1:])  # int64: any number of triangles
        self.n_triangles = int(self.offsets[-1])

    def _ensure_marks(self):
        """One byte map per thread slot; grows when the Numba thread count did."""
        slots = numba.get_num_threads()
        if self._marks.shape[0] < slots:
            extra = slots - self._marks.shape[0]
            self._marks = np.concatenate(
                [self._marks, np.zeros((extra, self._marks.shape[1]), dtype=np.uint8)])
            self._marked = np.concatenate([self._marked, np.full(extra, -1, dtype=np.int64)])

    def edge_range(self, t_begin: int, t_end: int) -> tuple[int, int]:
        """The oriented edges ``e0 .. e1 - 1`` holding triangles ``t_begin .. t_end - 1``."""
        e0 = int(np.searchsorted(self.offsets, t_begin, side="right")) - 1
        e1 = int(np.searchsorted(self.offsets, t_end, side="left"))
        return e0, e1

    def write(self, t_begin: int, t_end: int, out_u, out_v, out_w) -> None:
        """Write triangles ``t_begin .. t_end - 1`` into rows ``0 .. t_end - t_begin - 1``."""
        if not 0 <= t_begin <= t_end <= self.n_triangles:
            raise ValueError(f"window {t_begin}..{t_end} outside 0..{self.n_triangles}")
        if t_begin == t_end:
            return
        self._ensure_marks()
        e0, e1 = self.edge_range(t_begin, t_end)
        o = self.oriented
        args = (o.indptr, o.rows, o.indices, self.offsets, self.labels, e0, e1, t_begin, t_end,
                self._marks, self._marked, out_u, out_v, out_w)
        if e1 - e0 < PARALLEL_MIN_EDGES or numba.get_num_threads() == 1:
            _write_window_serial(*args)
        else:
            with numba.parallel_chunksize(WRITE_CHUNK_EDGES):
                _write_window(*args)


def list_triangles_cpu(oriented, labels, chunk_size: int = CHUNK_ROWS):
    """Yield every triangle once, as C-contiguous ``(k, 3)`` int64 arrays of ``labels``.

    Every chunk has ``chunk_size`` rows except the last; each row is sorted by
    compact id. ``oriented`` is a degree-oriented CSR of NumPy arrays.
    """
    lister = CpuLister(oriented, labels)
    for t0 in range(0, lister.n_triangles, chunk_size):
        t1 = min(t0 + chunk_size, lister.n_triangles)
        out = np.empty((t1 - t0, 3), dtype=np.int64)
        lister.write(t0, t1, out[:, 0], out[:, 1], out[:, 2])
        yield out
