"""CPU triangle listing: every triangle written once, in chunks of bounded size.

Lists: each triangle {a, b, c} of a simple undirected graph as one row of three
vertex ids, the row sorted by compact id (the order of ``graph.vertex_ids``:
increasing original id for a graph built from edge arrays or a file).
Precondition: the degree-oriented CSR of :func:`tricount.prep.orient_by_degree`
(each edge once, from lower to higher (degree, id); rows sorted by id).
Listed once: a triangle a < b < c in (degree, id) order is found only from the
edge a -> b, as c in both N+(a) and N+(b).
Order: by oriented edge (anchor u, then v in N+(u)), then by increasing third
vertex. Both routes below write that order, for every chunk size (the GPU
lister, :mod:`tricount.gpu.listing`, writes the same rows in the order of its
hash plan's pairs).

*One pass* (:func:`stream_triangles_cpu`), when the caller needs no total up
front and :func:`one_pass` holds (a graph under :data:`PARALLEL_MIN_EDGES`
oriented edges, one Numba thread, or two and a graph under
:data:`ONE_PASS_MAX_EDGES`). The calling thread takes the anchors u in order,
marks N+(u) in a byte map and, for each edge u -> v of its row, compacts the
marked w of N+(v) (branch-free) and writes their rows at the chunk's cursor.
When the chunk is full it stops, remembering (anchor, edge, rows of that edge
already written), and the next chunk resumes there: every out-list is walked
once in all (the one a chunk ends inside, twice). A graph whose triangles fit
one chunk (the common case) costs one kernel call, into a first buffer of
:data:`FIRST_ROWS` rows when they fit there. Memory beyond the graph: the byte
map, one out-list and the chunk.

*Counted* (:class:`CpuLister`), when the total is wanted first or the one pass
does not hold (a larger graph and more threads, which share the steps): three
steps, so that the output never has to fit:

1. *count*: one iteration per anchor u (parallel: one block of anchors per
   iteration) marks N+(u) in the thread's byte map (as :mod:`tricount.cpu.bitmap`)
   and stores, for every edge k = u -> v of its row, the number of w in N+(v)
   that are marked: the triangles edge k closes (at most d+(u) - 1, so never
   near 2^31).
2. *prefix sum*: ``offsets[k]`` (int64, m + 1 entries) numbers the triangles
   globally; triangle t of edge k (its hits in increasing w) is number
   ``offsets[k] + t``. ``offsets[m]`` is the number of triangles.
3. *write*: a window [t0, t1) of triangle numbers covers the edges
   ``e0 .. e1 - 1``; one parallel iteration per block of edges of the window
   walks N+(v) and writes each hit numbered inside the window at row
   ``number - t0``. A thread keeps its last anchor marked: blocks are
   contiguous edge ranges, so consecutive edges mostly share the anchor and
   its marks.

Memory beyond the graph: 8 (m + 1) bytes of offsets, one byte map per thread,
and the caller's window buffer.
"""

from __future__ import annotations

import numpy as np

from tricount._threads import load_numba, parallel_region

numba = load_numba()  # Numba, started without its BLAS probe (tricount._threads)

__all__ = ["CpuLister", "list_triangles_cpu", "stream_triangles_cpu", "one_pass",
           "CHUNK_ROWS"]

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
#: With at most this many Numba threads, the one-pass route (see the module doc) also
#: lists graphs from PARALLEL_MIN_EDGES up to ONE_PASS_MAX_EDGES oriented edges. Its
#: one pass costs P + R (walking the out-lists, writing the rows), the counted
#: route's two parallel passes (2P + R) / threads: with two threads at most R / 2
#: less, and only while both cores are free. On the shared 2-core development VM
#: (2026-11-26, best of 15 round-robin runs) the one pass won or tied on every graph
#: file at load average 1.6 (soc-Epinions1, 405,740 edges: 56 against 67 ms;
#: blogcatalog, 333,983 edges and 5.6 M triangles: 99 against 95 ms); at load 2 it won
#: on the walk-bound ones and lost on the triangle-richest (ego-Facebook, 1.6 M
#: triangles on 88,234 edges: 14.2 against 11.6 ms). On R-MAT 18
#: (3.8 M edges, 82.6 M triangles, R about twice P) the two passes won at load 1.8
#: (3.1 against 4.4 s) and lost at 3-4 (6.9-9.1 against 4.5-4.8 s): past this size
#: they are kept, for the machine whose second core is free.
ONE_PASS_MAX_THREADS = 2
ONE_PASS_MAX_EDGES = 1 << 20


# Ids index arrays as unsigned integers: Numba then drops the wrap-around of negative
# indices (a compare and a select per access), 10-20 % of the one pass on the graph
# files (2026-11-26).


@numba.njit(cache=True, nogil=True, inline="always")
def _set_marks(indices, k_begin, k_end, mark, value):
    """``mark[w] = value`` for the out-neighbours ``indices[k_begin:k_end]`` of one anchor."""
    for k in range(k_begin, k_end):
        mark[np.uint64(indices[k])] = value


@numba.njit(cache=True, nogil=True, inline="always")
def _marked_out_neighbours(indptr, indices, v, mark, found):
    """Store the marked w of N+(v) in ``found[0 ..]``, in increasing id; return how many."""
    v = np.uint64(v)
    return _marked_in(indices, indptr[v], indptr[v + np.uint64(1)], mark, found)


@numba.njit(cache=True, nogil=True, inline="always")
def _marked_in(indices, j_begin, j_end, mark, found):
    """Store the marked w of ``indices[j_begin:j_end]`` in ``found[0 ..]``; return how many.

    Branch-free compaction: every w is stored, the cursor moves only past the
    marked ones (a branch per probe mispredicts).
    """
    hits = 0
    for j in range(j_begin, j_end):
        w = indices[j]
        found[hits] = w
        hits += np.int64(mark[np.uint64(w)])  # int64 in Python too (NumPy keeps uint8)
    return hits


@numba.njit(cache=True, nogil=True, inline="always")
def _put_rows(u, v, found, h_begin, h_end, labels, relabel, out, r):
    """Rows ``r ..`` of ``out``: the triangles {u, v, found[h]} for h in ``h_begin ..
    h_end - 1``, each sorted by compact id (``labels`` of the ids when ``relabel``);
    return the next row."""
    # u and v are the same for every hit of the edge, so only the third id is
    # placed, by two comparisons (selects, not branches).
    lo, hi = min(u, v), max(u, v)
    label_lo = labels[np.uint64(lo)] if relabel else lo
    label_hi = labels[np.uint64(hi)] if relabel else hi
    for h in range(h_begin, h_end):
        c = found[h]
        label_c = labels[np.uint64(c)] if relabel else c
        below_lo, below_hi = c < lo, c < hi
        out[r, 0] = label_c if below_lo else label_lo
        out[r, 1] = label_lo if below_lo else (label_c if below_hi else label_hi)
        out[r, 2] = label_hi if below_hi else label_c
        r += 1
    return r


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
        _set_marks(indices, k_begin, k_end, mark, 1)
        for k in range(k_begin, k_end):
            v = np.uint64(indices[k])
            found = 0
            for j in range(indptr[v], indptr[v + np.uint64(1)]):
                found += np.int64(mark[np.uint64(indices[j])])
            counts[k] = found
        _set_marks(indices, k_begin, k_end, mark, 0)


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
def _write_next(indptr, indices, labels, relabel, mark, found, position, out):
    """The one-pass route: write the triangles that follow ``position`` into ``out``, in
    order, until ``out`` is full or the graph ends; return the rows written.

    ``position`` (int64: anchor u, its oriented edge k, rows of edge k already
    written) is where the last call stopped, ``(0, 0, 0)`` at first; it is moved
    on, to ``(n, m, 0)`` at the end. Row entries are ``labels`` of the vertices
    when ``relabel``, else the compact ids. ``mark`` (a byte per vertex) is
    clean before and after; ``found`` is scratch for one out-list.
    """
    n = indptr.shape[0] - 1
    capacity = out.shape[0]
    u0, k0, done = position[0], position[1], position[2]
    r = 0
    if done > 0:  # the last call stopped inside edge k0: write the rest of its rows
        _set_marks(indices, indptr[u0], indptr[u0 + 1], mark, 1)
        v = indices[k0]
        hits = _marked_out_neighbours(indptr, indices, v, mark, found)
        end = min(hits, done + capacity)
        r = _put_rows(u0, v, found, done, end, labels, relabel, out, r)
        _set_marks(indices, indptr[u0], indptr[u0 + 1], mark, 0)
        if end < hits:  # and out is full again
            position[2] = end
            return r
        k0 += 1
    # k0 <= indptr[u0 + 1] <= indptr[u] for every later anchor u: max() resumes only u0.
    for u in range(u0, n):
        k_begin = indptr[u]
        k_end = indptr[u + 1]
        if k_end - k_begin < 2:
            continue  # one out-neighbour closes nothing
        _set_marks(indices, k_begin, k_end, mark, 1)
        # The next edge's list bounds are loaded before this edge's list is walked, so
        # that their latency overlaps the walk (ca-HepTh's pass 0.54 -> 0.49 ms, 2-core
        # machine, 2026-11-27).
        k = max(k_begin, k0)
        v = indices[k] if k < k_end else 0
        j_begin, j_end = indptr[np.uint64(v)], indptr[np.uint64(v) + np.uint64(1)]
        while k < k_end:
            v_next = indices[k + 1] if k + 1 < k_end else v
            next_begin = indptr[np.uint64(v_next)]
            next_end = indptr[np.uint64(v_next) + np.uint64(1)]
            hits = _marked_in(indices, j_begin, j_end, mark, found)
            if r + hits > capacity:  # out fills inside edge k: stop there
                take = capacity - r
                r = _put_rows(u, v, found, 0, take, labels, relabel, out, r)
                _set_marks(indices, k_begin, k_end, mark, 0)
                position[0], position[1], position[2] = u, k, take
                return r
            r = _put_rows(u, v, found, 0, hits, labels, relabel, out, r)
            k += 1
            v, j_begin, j_end = v_next, next_begin, next_end
        _set_marks(indices, k_begin, k_end, mark, 0)
    position[0], position[1], position[2] = n, indptr[n], 0
    return r


@numba.njit(cache=True, nogil=True)
def _write_edges(indptr, rows, indices, offsets, labels, relabel, e_begin, e_end, t_begin,
                 t_end, mark, marked, slot, found, out_u, out_v, out_w):
    """Write the triangles of edges ``e_begin .. e_end - 1`` numbered inside
    ``t_begin .. t_end - 1``.

    Row ``t - t_begin`` gets the three vertices (``labels`` of them when
    ``relabel``, else compact ids), sorted by compact id. ``mark`` holds the
    marks of anchor ``marked[slot]`` (-1: none) and stays so between calls;
    ``found`` is scratch for one out-list.
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
                _set_marks(indices, indptr[old], indptr[old + 1], mark, 0)
            _set_marks(indices, indptr[u], indptr[u + 1], mark, 1)
            marked[slot] = u
        v = indices[e]
        _marked_out_neighbours(indptr, indices, v, mark, found)  # n_hits of them
        # Rows sorted by compact id; u and v are the same for every hit of the edge,
        # so only the third id is placed, by two comparisons (selects, not branches).
        lo, hi = min(u, v), max(u, v)
        label_lo = labels[np.uint64(lo)] if relabel else lo
        label_hi = labels[np.uint64(hi)] if relabel else hi
        for h in range(max(t_begin - t, 0), min(t_end - t, n_hits)):
            c = found[h]
            label_c = labels[np.uint64(c)] if relabel else c
            below_lo, below_hi = c < lo, c < hi
            i = t + h - t_begin
            out_u[i] = label_c if below_lo else label_lo
            out_v[i] = label_lo if below_lo else (label_c if below_hi else label_hi)
            out_w[i] = label_hi if below_hi else label_c


@numba.njit(parallel=True, cache=True, nogil=True)
def _write_window(indptr, rows, indices, offsets, labels, relabel, e_begin, e_end, t_begin,
                  t_end, marks, marked, hits, out_u, out_v, out_w):
    """Write the triangles numbered ``t_begin .. t_end - 1`` (edges ``e_begin .. e_end - 1``),
    in blocks of :data:`WRITE_BLOCK_EDGES` edges; each thread slot keeps its marks."""
    n_blocks = (e_end - e_begin + WRITE_BLOCK_EDGES - 1) // WRITE_BLOCK_EDGES
    for block in numba.prange(n_blocks):
        slot = numba.get_thread_id()
        first = e_begin + block * WRITE_BLOCK_EDGES
        _write_edges(indptr, rows, indices, offsets, labels, relabel, first,
                     min(first + WRITE_BLOCK_EDGES, e_end), t_begin, t_end, marks[slot], marked,
                     slot, hits[slot], out_u, out_v, out_w)


#: ``labels`` of a lister that writes compact ids (never read: ``relabel`` is False).
_NO_LABELS = np.zeros(0, dtype=np.int64)


#: Rows of the first buffer of the one-pass route. Its chunk was allocated at the size the
#: graph could fill (up to :data:`CHUNK_ROWS`) and shrunk by ``ndarray.resize`` to the rows
#: written: glibc's realloc of it took 0.19-0.33 ms however few rows were kept, depending
#: on the allocator's state, against 0.03 ms to copy 28,339 rows out of a small buffer
#: (ca-HepTh's listing 0.90 -> 0.63 ms, ca-GrQc's 0.59 -> 0.26; 2-core machine,
#: 2026-11-27). A graph with more triangles copies its first 65,536 rows once.
FIRST_ROWS = 1 << 16


def one_pass(n_edges: int) -> bool:
    """Whether a graph of ``n_edges`` oriented edges is listed by the one-pass route when
    no total is wanted first (:data:`PARALLEL_MIN_EDGES`, :data:`ONE_PASS_MAX_EDGES`);
    the thread count is asked only past the first, as asking costs microseconds."""
    if n_edges < PARALLEL_MIN_EDGES:
        return True
    threads = numba.get_num_threads()
    return threads == 1 or (threads <= ONE_PASS_MAX_THREADS and n_edges < ONE_PASS_MAX_EDGES)


def _serial(n_edges: int) -> bool:
    """Whether the counted route counts a graph of ``n_edges`` oriented edges on the
    calling thread (:data:`PARALLEL_MIN_EDGES`)."""
    return n_edges < PARALLEL_MIN_EDGES or numba.get_num_threads() == 1


def stream_triangles_cpu(oriented, labels=None, chunk_size: int = CHUNK_ROWS):
    """Yield every triangle once by the one-pass route, as C-contiguous ``(k, 3)`` int64
    arrays (``labels`` of the vertices, or compact ids for None).

    Every chunk has ``chunk_size`` rows except the last; no total is known before
    the last. Each chunk is found when it is asked for.
    """
    o = oriented
    relabel = labels is not None
    labels = np.ascontiguousarray(labels, dtype=np.int64) if relabel else _NO_LABELS
    mark = np.zeros(max(o.n_vertices, 1), dtype=np.uint8)
    found = np.empty(max(o.max_out_degree, 1), dtype=o.indices.dtype)
    position = np.zeros(3, dtype=np.int64)
    # No edge closes more than max_out_degree - 1 triangles: a chunk is allocated no
    # larger than what may still come, and the last one is trimmed.
    left = o.n_edges * max(o.max_out_degree - 1, 0)
    first = True
    while left > 0:
        size = min(chunk_size, left)
        if first and size > FIRST_ROWS:  # most graphs end inside a small first buffer
            out = _write_first(o, labels, relabel, mark, found, position, size)
        else:
            out = np.empty((size, 3), dtype=np.int64)
            rows = _write_next(o.indptr, o.indices, labels, relabel, mark, found, position,
                               out)
            if rows < size:
                out.resize((rows, 3), refcheck=False)  # realloc: no copy, no view
        first = False
        if out.shape[0] < size:  # the graph ended inside this chunk
            if out.shape[0]:
                yield out
            return
        yield out
        left -= size


def _write_first(o, labels, relabel, mark, found, position, size: int):
    """The first chunk of :func:`stream_triangles_cpu` (``size`` rows at most): written
    into :data:`FIRST_ROWS` rows, moved to a buffer of ``size`` only when those fill, and
    returned as an array of its rows that owns exactly them (a copy, or the whole buffer)."""
    small = np.empty((FIRST_ROWS, 3), dtype=np.int64)
    rows = _write_next(o.indptr, o.indices, labels, relabel, mark, found, position, small)
    if rows < FIRST_ROWS:  # the graph ended: its rows alone, not the buffer
        return small[:rows].copy()
    out = np.empty((size, 3), dtype=np.int64)
    out[:FIRST_ROWS] = small
    rows += _write_next(o.indptr, o.indices, labels, relabel, mark, found, position,
                        out[FIRST_ROWS:])
    return out if rows == size else out[:rows].copy()


class CpuLister:
    """Counted and numbered triangles of one oriented graph, written window by window
    (the counted route of the module doc).

    ``labels``: None to write compact ids, else an int64 array of the id written
    for each compact vertex (``graph.vertex_ids``). Construction runs the count
    and the prefix sum; :meth:`write` fills any window. Not thread-safe: one
    window at a time.
    """

    def __init__(self, oriented, labels=None):
        self.oriented = oriented
        self.labels = None if labels is None else np.ascontiguousarray(labels, dtype=np.int64)
        m = oriented.n_edges
        self.offsets = np.zeros(m + 1, dtype=np.int64)
        # Scratch per thread slot, made when a kernel first needs it (see _scratch).
        self._marks = self._marked = self._hits = None
        if m:
            if _serial(m):
                self._scratch(1)
                _count_rows(oriented.indptr, oriented.indices, self._marks[0], self.offsets[1:],
                            0, oriented.n_vertices)
            else:
                self._scratch(numba.get_num_threads())
                with parallel_region(1):  # blocks are the work chunks; one loop at a time
                    _count_per_edge(oriented.indptr, oriented.indices, self._marks,
                                    self.offsets[1:])
            # The byte maps are clean again (every anchor cleared its marks).
            np.cumsum(self.offsets[1:], out=self.offsets[1:])  # int64: any number of triangles
        self.n_triangles = int(self.offsets[-1])

    def _scratch(self, slots: int):
        """At least ``slots`` thread slots of scratch: a clean byte map, the anchor it
        marks (-1: none) and room for one out-list each."""
        if self._marks is not None and self._marks.shape[0] >= slots:
            return
        o = self.oriented
        have = 0 if self._marks is None else self._marks.shape[0]
        marks = np.zeros((slots, max(o.n_vertices, 1)), dtype=np.uint8)
        marked = np.empty(slots, dtype=np.int64)
        marked.fill(-1)
        hits = np.empty((slots, max(o.max_out_degree, 1)), dtype=o.indices.dtype)
        if have:  # keep the slots' marks and anchors
            marks[:have] = self._marks
            marked[:have] = self._marked
        self._marks, self._marked, self._hits = marks, marked, hits

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
        e0, e1 = self.edge_range(t_begin, t_end)
        o = self.oriented
        labels = _NO_LABELS if self.labels is None else self.labels
        relabel = self.labels is not None
        small = e1 - e0 < PARALLEL_MIN_EDGES and t_end - t_begin < PARALLEL_MIN_ROWS
        if small or numba.get_num_threads() == 1:
            self._scratch(1)
            _write_edges(o.indptr, o.rows, o.indices, self.offsets, labels, relabel, e0, e1,
                         t_begin, t_end, self._marks[0], self._marked, 0, self._hits[0], out_u,
                         out_v, out_w)
        else:
            self._scratch(numba.get_num_threads())
            with parallel_region(1):  # blocks are the work chunks; one loop at a time
                _write_window(o.indptr, o.rows, o.indices, self.offsets, labels, relabel, e0,
                              e1, t_begin, t_end, self._marks, self._marked, self._hits, out_u,
                              out_v, out_w)


def list_triangles_cpu(oriented, labels, chunk_size: int = CHUNK_ROWS):
    """Yield every triangle once, as C-contiguous ``(k, 3)`` int64 arrays of ``labels``.

    Every chunk has ``chunk_size`` rows except the last; each row is sorted by
    compact id. ``oriented`` is a degree-oriented CSR of NumPy arrays (listed by
    the route of :func:`one_pass`), or a :class:`CpuLister` already counted
    (``labels`` is then its own); ``labels`` None writes compact ids.
    """
    if not isinstance(oriented, CpuLister):
        if one_pass(oriented.n_edges):
            yield from stream_triangles_cpu(oriented, labels, chunk_size)
            return
        oriented = CpuLister(oriented, labels)
    lister = oriented
    for t0 in range(0, lister.n_triangles, chunk_size):
        t1 = min(t0 + chunk_size, lister.n_triangles)
        out = np.empty((t1 - t0, 3), dtype=np.int64)
        lister.write(t0, t1, out[:, 0], out[:, 1], out[:, 2])
        yield out
