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

import numpy as np

from tricount._threads import load_numba
from tricount._threads import parallel_region

numba = load_numba()  # Numba, started without its BLAS probe (tricount._threads)

__all__ = ["CpuLister", "list_triangles_cpu", "CHUNK_ROWS"]

#: Rows per chunk by default: 2^20 rows are 24 MiB of int64 ids, a Parquet row
#: group of the usual size; a chosen default, not measured.
CHUNK_ROWS = 1 << 20
#: Anchors per parallel block of the count (as :data:`tricount.cpu.bitmap.CHUNK_VERTICES`).
COUNT_BLOCK_VERTICES = 64
#: Edges per parallel block of the write: long enough that a thread meets each anchor
#: about once, short enough to balance a window of 2^20 rows; not measured.
WRITE_BLOCK_EDGES = 256
#: Below this many oriented edges (in the graph for the count, in the window for
#: the write), or with one Numba thread, the kernels run on the calling thread
#: (serial twins, compiled without ``parallel``): a parallel launch cost 12-20 ms
#: on the loaded 2-core development VM (tens of µs when idle), while ca-GrQc
#: (14,484 edges, 48,260 triangles) counts in 0.45 ms and writes in 0.8 ms on one
#: thread (2026-11-25).
PARALLEL_MIN_EDGES = 1 << 16
#: A window of this many rows is written in parallel whatever its edges (R-MAT 18's
#: 2^20-row windows span only about 48,000 edges each).
PARALLEL_MIN_ROWS = 1 << 16


@numba.njit(cache=True, nogil=True)
def _count_rows(indptr, indices, mark, counts, u_begin, u_end):
    """``counts[k]`` for every edge k of the rows ``u_begin .. u_end - 1`` (the byte map
    ``mark`` is clean before and after)."""
    for u in range(u_begin, u_end):
        k_begin = indptr[u]
        k_end = indptr[u + 1]
        if k_end - k_begin < 2:
            for k in range(k_begin, k_end):
                counts[k] = 0  # one out-neighbour closes nothing
            continue
        for k in range(k_begin, k_end):
            mark[indices[k]] = 1
        for k in range(k_begin, k_end):
            v = indices[k]
            found = 0
            for j in range(indptr[v], indptr[v + 1]):
                found += mark[indices[j]]
            counts[k] = found
        for k in range(k_begin, k_end):
            mark[indices[k]] = 0


@numba.njit(parallel=True, cache=True, nogil=True)
def _count_per_edge(indptr, indices, marks, counts):
    """``counts[k]`` = triangles closed by oriented edge k (every entry written), in
    blocks of :data:`COUNT_BLOCK_VERTICES` rows."""
    n = indptr.shape[0] - 1
    for block in numba.prange((n + COUNT_BLOCK_VERTICES - 1) // COUNT_BLOCK_VERTICES):
        u_begin = block * COUNT_BLOCK_VERTICES
        _count_rows(indptr, indices, marks[numba.get_thread_id()], counts, u_begin,
                    min(u_begin + COUNT_BLOCK_VERTICES, n))


@numba.njit(cache=True, nogil=True)
def _write_edges(indptr, rows, indices, offsets, labels, e_begin, e_end, t_begin, t_end, mark,
                 marked, slot, found, out_u, out_v, out_w):
    """Write the triangles of edges ``e_begin .. e_end - 1`` numbered inside
    ``t_begin .. t_end - 1``.

    Row ``t - t_begin`` gets ``labels`` of the three vertices, sorted by
    compact id. ``mark`` holds the marks of anchor ``marked[slot]`` (-1: none)
    and stays so between calls; ``found`` is scratch for one out-list.
    """
    for e in range(e_begin, e_end):
        t = offsets[e]
        n_hits = offsets[e + 1] - t
        if n_hits == 0 or t >= t_end or t + n_hits <= t_begin:
            continue  # nothing of this edge in the window: do not disturb the marks
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
        # Branch-free compaction of N+(v) ∩ N+(u), in increasing id: every w is
        # stored, the cursor moves only past the marked ones (a branch per probe
        # mispredicts).
        k = 0
        for j in range(indptr[v], indptr[v + 1]):
            w = indices[j]
            found[k] = w
            k += mark[w]
        # Rows sorted by compact id; u and v are the same for every hit of the edge,
        # so only the third id is placed, by two comparisons (selects, not branches).
        lo, hi = min(u, v), max(u, v)
        label_lo, label_hi = labels[lo], labels[hi]
        for h in range(max(t_begin - t, 0), min(t_end - t, n_hits)):
            c = found[h]
            label_c = labels[c]
            below_lo, below_hi = c < lo, c < hi
            i = t + h - t_begin
            out_u[i] = label_c if below_lo else label_lo
            out_v[i] = label_lo if below_lo else (label_c if below_hi else label_hi)
            out_w[i] = label_hi if below_hi else label_c


@numba.njit(parallel=True, cache=True, nogil=True)
def _write_window(indptr, rows, indices, offsets, labels, e_begin, e_end, t_begin, t_end,
                  marks, marked, hits, out_u, out_v, out_w):
    """Write the triangles numbered ``t_begin .. t_end - 1`` (edges ``e_begin .. e_end - 1``),
    in blocks of :data:`WRITE_BLOCK_EDGES` edges; each thread slot keeps its marks."""
    n_blocks = (e_end - e_begin + WRITE_BLOCK_EDGES - 1) // WRITE_BLOCK_EDGES
    for block in numba.prange(n_blocks):
        slot = numba.get_thread_id()
        first = e_begin + block * WRITE_BLOCK_EDGES
        _write_edges(indptr, rows, indices, offsets, labels, first,
                     min(first + WRITE_BLOCK_EDGES, e_end), t_begin, t_end, marks[slot], marked,
                     slot, hits[slot], out_u, out_v, out_w)


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
        self._hits = np.zeros((0, max(oriented.max_out_degree, 1)), dtype=oriented.indices.dtype)
        if m:
            self._ensure_marks()
            if m < PARALLEL_MIN_EDGES or numba.get_num_threads() == 1:
                _count_rows(oriented.indptr, oriented.indices, self._marks[0], self.offsets[1:],
                            0, oriented.n_vertices)
            else:
                with parallel_region(1):  # blocks are the work chunks; one loop at a time
                    _count_per_edge(oriented.indptr, oriented.indices, self._marks,
                                    self.offsets[1:])
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
            self._hits = np.concatenate(
                [self._hits, np.zeros((extra, self._hits.shape[1]), dtype=self._hits.dtype)])

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
        small = e1 - e0 < PARALLEL_MIN_EDGES and t_end - t_begin < PARALLEL_MIN_ROWS
        if small or numba.get_num_threads() == 1:
            _write_edges(o.indptr, o.rows, o.indices, self.offsets, self.labels, e0, e1, t_begin,
                         t_end, self._marks[0], self._marked, 0, self._hits[0], out_u, out_v,
                         out_w)
        else:
            with parallel_region(1):  # blocks are the work chunks; one loop at a time
                _write_window(o.indptr, o.rows, o.indices, self.offsets, self.labels, e0, e1,
                              t_begin, t_end, self._marks, self._marked, self._hits, out_u,
                              out_v, out_w)


def list_triangles_cpu(oriented, labels, chunk_size: int = CHUNK_ROWS):
    """Yield every triangle once, as C-contiguous ``(k, 3)`` int64 arrays of ``labels``.

    Every chunk has ``chunk_size`` rows except the last; each row is sorted by
    compact id. ``oriented`` is a degree-oriented CSR of NumPy arrays, or a
    :class:`CpuLister` already counted (``labels`` is then its own).
    """
    lister = oriented if isinstance(oriented, CpuLister) else CpuLister(oriented, labels)
    for t0 in range(0, lister.n_triangles, chunk_size):
        t1 = min(t0 + chunk_size, lister.n_triangles)
        out = np.empty((t1 - t0, 3), dtype=np.int64)
        lister.write(t0, t1, out[:, 0], out[:, 1], out[:, 2])
        yield out
