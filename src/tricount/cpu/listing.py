"""CPU triangle listing: every triangle written once, in chunks of bounded size.

Lists: each triangle {a, b, c} of a simple undirected graph as one row (a, b, c),
a < b < c by compact id (the order of ``graph.vertex_ids``: increasing original
id for a graph built from edge arrays or a file).
Precondition: the graph's upper CSR (``graph.upper()``: every edge once, u -> v
with v > u, rows sorted), or any CSR whose edges point up its ids with rows
sorted; the rows are then in that CSR's ids.
Listed once, by the bitmap counter's owner rule (:mod:`tricount.cpu.bitmap`): a
triangle a < b < c is closed by c, which lies in N+(a) after b and in N+(b). The
pair (a, b) is settled at one end only: at a, by probing every w of N+(b) in a's
marks, or, when N+(b) is longer than the rest of a's row after b, at b, by
probing that rest in b's marks ("deferred" to b). So a pair costs
min(d+(b), #N+(a) after b) probes, not d+(b): 1.5-2.2x fewer than the walk of
the degree orientation on the shared graphs (oregon1_010331 52,836 against
115,586), and no orientation to build. Each such min is at most min(d(a), d(b)),
so the whole walk is within Chiba and Nishizeki's O(arboricity * m) bound in
any vertex order.
Order: by settling anchor x in increasing id; at x, first the pairs it settles
itself (b in row order), then the pairs deferred to it (by increasing a); each
pair's rows by increasing c. Every route below (and the NumPy lister,
:func:`tricount.cpu.walk_numpy.stream_triangles_numpy`) writes that order, for
every chunk size; the GPU lister, :mod:`tricount.gpu.listing`, writes the same
rows in the order of its hash plan's pairs.

*One pass* (:func:`stream_triangles_cpu`), when the caller needs no total up
front and :func:`one_pass` holds (a graph under :data:`PARALLEL_MIN_EDGES`
edges, one Numba thread, or two and a graph under :data:`ONE_PASS_MAX_EDGES`).
The calling thread takes the anchors x in increasing id and marks N+(x) in a
byte map; for each pair (x, v) of its row it either pushes the pair on v's
queue (deferred: v comes later, since v > x) or compacts the marked w of N+(v)
(branch-free) and writes their rows at the chunk's cursor; then it pops x's own
queue, every pair (a, x) deferred to x by an anchor a < x already walked, and
writes the marked w of the rest of a's row. The queues are lists linked through
the pairs (first in, first out: by increasing a). When the chunk is full it
stops, remembering (anchor, phase, pair, rows of that pair already written),
and the next chunk resumes there. A graph whose triangles fit one chunk (the
common case) costs one kernel call, into a first buffer of :data:`FIRST_ROWS`
rows when they fit there. Memory beyond the graph: the byte map, two
positions a vertex and two an edge for the queues, one out-list and the chunk.

*Counted* (:class:`CpuLister`), when the total is wanted first or the one pass
does not hold (a larger graph and more threads, which share the steps): the
pairs of the one pass, numbered, so that the output never has to fit:

1. *plan*: the pairs deferred to each vertex, as the bitmap counter finds them
   (:func:`tricount.cpu.bitmap.deferred_lists`; its parallel placement leaves each
   vertex's list in any order: the count sorts it, by increasing a, first).
   The *pair sequence* lays out, anchor by anchor, the entries of x's row (a
   pair x settles, or a slot that closes nothing: the last entry, a deferred
   pair) and then the pairs deferred to x: ``start[x] = indptr[x] + dptr[x]``.
2. *count*: each vertex's deferred pairs sorted (in parallel), then one iteration
   per block of pairs of the sequence marks each pair's anchor x in the thread's byte
   map (kept from one pair to the next: consecutive pairs mostly share it, and a
   hub's row is shared out among blocks) and stores the triangles the pair closes
   (at most d+(a) - 1, so never near 2^31).
3. *prefix sum*: ``offsets[e]`` (int64, one more than the pairs) numbers the
   triangles globally; triangle t of pair e is number ``offsets[e] + t``.
4. *write*: a window [t0, t1) of triangle numbers covers the pairs
   ``e0 .. e1 - 1``; one parallel iteration per block of pairs of the window
   walks each pair's candidates and writes each hit numbered inside the window at
   row ``number - t0``. A thread keeps its last anchor marked: blocks are
   contiguous runs of pairs, so consecutive pairs mostly share the anchor.

Memory beyond the graph: 8 bytes a pair of offsets (m plus the deferred pairs,
plus one), the deferred pairs' lists, one byte map per thread and the caller's
window buffer.
"""

from __future__ import annotations

import numpy as np

from tricount._threads import load_numba, parallel_region
from tricount.cpu.bitmap import deferred_lists, defers
from tricount.prep._parallel import insertion_sort

numba = load_numba()  # Numba, started without its BLAS probe (tricount._threads)

__all__ = ["CpuLister", "list_triangles_cpu", "stream_triangles_cpu", "one_pass",
           "CHUNK_ROWS"]

#: Rows per chunk by default: 2^20 rows are 24 MiB of int64 ids, a Parquet row
#: group of the usual size; a chosen default, not measured.
CHUNK_ROWS = 1 << 20
#: Parallel blocks a thread of the sort of the deferred pairs: ranges of vertices holding
#: equal numbers of pairs (the id order puts a real graph's hubs, which get most of them,
#: together). Blocks of 16 vertices sorted no faster than one thread: on the H100 host's 16
#: threads soc-Epinions1's 82,581 pairs took 0.84 ms that way, 0.27 in 8 blocks a thread of
#: equal pairs, email-Enron's 0.41 against 0.12, ca-AstroPh's 0.30 against 0.15 (one thread:
#: 2.7, 1.0 and 1.0 ms); level on sbpc-static-5k, ego-Facebook and blogcatalog (device run
#: 6 of 2026-11-27's session 49). On the 2-core machine 0.82 against 0.39 ms (soc-Epinions1).
SORT_BLOCKS_PER_THREAD = 8
#: Pairs per parallel block of the count and of the write: long enough that a thread meets
#: each anchor about once, short enough to balance a window of 2^20 rows and to share out
#: the row of a hub, which the id order puts among the first anchors. On the H100 host's 16
#: threads (2026-11-27) soc-Epinions1's plan and count took 7.2-8.4 ms by blocks of 16 or
#: 64 anchors, 6.6 ms by blocks of pairs (another machine of the kind; the degree-oriented
#: count before them 4.1-4.3 ms); the size itself is not measured.
WRITE_BLOCK_PAIRS = 256
#: Below this many edges (in the graph for the count, pairs in the window for
#: the write), or with one Numba thread, the kernels run on the calling thread
#: (serial twins, compiled without ``parallel``): a parallel launch cost 12-20 ms
#: on the loaded 2-core development VM (tens of µs when idle), while ca-GrQc
#: (14,484 edges, 48,260 triangles) counts in 0.45 ms and writes in 0.8 ms on one
#: thread (2026-11-25, degree-oriented edges then).
PARALLEL_MIN_EDGES = 1 << 16
#: A window of this many rows is written in parallel whatever its pairs (R-MAT 18's
#: 2^20-row windows spanned only about 48,000 edges each).
PARALLEL_MIN_ROWS = 1 << 16
#: With at most this many Numba threads, the one-pass route (see the module doc) also
#: lists graphs from PARALLEL_MIN_EDGES up to ONE_PASS_MAX_EDGES edges. Its one pass
#: costs P + R (walking the out-lists, writing the rows), the counted route's two
#: parallel passes (2P + R) / threads: with two threads at most R / 2 less, and only
#: while both cores are free. On the shared 2-core development VM (2026-11-26, best of
#: 15 round-robin runs, degree-oriented edges then) the one pass won or tied on every
#: graph file at load average 1.6 (soc-Epinions1, 405,740 edges: 56 against 67 ms;
#: blogcatalog, 333,983 edges and 5.6 M triangles: 99 against 95 ms); at load 2 it won
#: on the walk-bound ones and lost on the triangle-richest (ego-Facebook, 1.6 M
#: triangles on 88,234 edges: 14.2 against 11.6 ms). On R-MAT 18 (3.8 M edges, 82.6 M
#: triangles, R about twice P) the two passes won at load 1.8 (3.1 against 4.4 s) and
#: lost at 3-4 (6.9-9.1 against 4.5-4.8 s): past this size they are kept, for the
#: machine whose second core is free.
ONE_PASS_MAX_THREADS = 2
ONE_PASS_MAX_EDGES = 1 << 20


# Ids index arrays as unsigned integers (``_u``): Numba then drops the wrap-around of
# negative indices (a compare and a select per access), 10-20 % of the one pass on the
# graph files (2026-11-26).
_u = np.uint64


@numba.njit(cache=True, nogil=True, inline="always")
def _set_marks(indices, k_begin, k_end, mark, value):
    """``mark[w] = value`` for the out-neighbours ``indices[k_begin:k_end]`` of one anchor."""
    for k in range(k_begin, k_end):
        mark[_u(indices[_u(k)])] = value


@numba.njit(cache=True, nogil=True, inline="always")
def _marked_in(indices, j_begin, j_end, mark, found):
    """Store the marked w of ``indices[j_begin:j_end]`` in ``found[0 ..]``; return how many.

    Branch-free compaction: every w is stored, the cursor moves only past the
    marked ones (a branch per probe mispredicts).
    """
    hits = np.int64(0)
    for j in range(j_begin, j_end):
        w = indices[_u(j)]
        found[_u(hits)] = w
        hits += np.int64(mark[_u(w)])  # int64 in Python too (NumPy keeps uint8)
    return hits


@numba.njit(cache=True, nogil=True, inline="always")
def _candidates(indptr, indices, x, own, pair, a):
    """The pair ``pair`` at anchor ``x``: ``(a, b, begin, end)``, the triangle's two lower
    ids and the candidates ``indices[begin:end]`` for its third. ``own``: the pair
    (x, v) at position ``pair`` of x's row, whose candidates are N+(v); else the pair
    (a, x) deferred to x, named by the position ``pair`` of x in a's row, whose
    candidates are the rest of a's row."""
    if own:
        v = np.int64(indices[_u(pair)])
        return np.int64(x), v, np.int64(indptr[_u(v)]), np.int64(indptr[_u(v) + _u(1)])
    a = np.int64(a)
    return a, np.int64(x), np.int64(pair + 1), np.int64(indptr[_u(a) + _u(1)])


@numba.njit(cache=True, nogil=True, inline="always")
def _put_rows(a, b, found, h_begin, h_end, labels, relabel, out, r):
    """Rows ``r ..`` of ``out``: the triangles (a, b, found[h]) for h in ``h_begin ..
    h_end - 1`` (already sorted: a < b < every found id), ``labels`` of the ids when
    ``relabel``; return the next row."""
    label_a = labels[_u(a)] if relabel else a
    label_b = labels[_u(b)] if relabel else b
    for h in range(h_begin, h_end):
        c = found[_u(h)]
        row = _u(r)
        out[row, 0] = label_a
        out[row, 1] = label_b
        out[row, 2] = labels[_u(c)] if relabel else c
        r += 1
    return r


# -- the one pass --------------------------------------------------------------------------

#: ``position`` of the one pass: the anchor, the phase (own pairs, then deferred ones),
#: the pair (a position in the CSR) and the rows of that pair already written.
_OWN, _DEFERRED = 0, 1


@numba.njit(cache=True, nogil=True, inline="always")
def _stop_at(indices, x_begin, x_end, mark, position, x, phase, pair, take):
    """The chunk is full inside a pair of anchor x: clear x's marks and remember where
    the next call resumes (``take`` rows of the pair written by then)."""
    _set_marks(indices, x_begin, x_end, mark, 0)
    position[0], position[1], position[2], position[3] = x, phase, pair, take


@numba.njit(cache=True, nogil=True)
def _write_next(indptr, indices, labels, relabel, mark, found, ends, pairs, position, out):
    """The one-pass route: write the triangles that follow ``position`` into ``out``, in
    order, until ``out`` is full or the graph ends; return the rows written.

    ``position`` (int64: anchor x, phase, pair, rows of that pair already written)
    is where the last call stopped, ``(-1, _OWN, 0, 0)`` at first (the queues are
    made empty then), ``(n, _OWN, 0, 0)`` at the end. The queues: ``ends[0, v]`` is
    the first pair deferred to v (-1: none), ``ends[1, v]`` the last,
    ``pairs[0, k]`` the pair after pair k; a pair is the position k of v in its
    anchor's row, ``pairs[1, k]``. Row entries are ``labels`` of the
    vertices when ``relabel``, else the compact ids. ``mark`` (a byte per vertex)
    is clean before and after; ``found`` is scratch for one list of candidates.
    """
    n = indptr.shape[0] - 1
    capacity = out.shape[0]
    head, tail, link, owner = ends[0], ends[1], pairs[0], pairs[1]
    x, phase, pair, done = position[0], position[1], position[2], position[3]
    if x < 0:  # the first call
        head[:] = -1
        # The queue's look-ahead reads owner[0] past a queue's end: a vertex id always
        # (anchor 0 owns position 0 whenever it is written).
        owner[0] = 0
        x = 0
    r = np.int64(0)
    while x < n:
        x_begin = indptr[_u(x)]
        x_end = indptr[_u(x) + _u(1)]
        # One out-neighbour closes nothing, and nothing is deferred to x then: a pair
        # (a, x) goes to x only when d+(x) exceeds the rest of a's row after x (>= 1).
        if x_end - x_begin >= 2:
            _set_marks(indices, x_begin, x_end, mark, 1)
            if phase == _OWN:
                # Each pair's candidate bounds (and a deferred pair's next in the queue)
                # are loaded one pair ahead, so that their latency overlaps the walk of
                # the pair before (as the degree-oriented lister did: ca-HepTh's pass
                # 0.54 -> 0.49 ms, 2-core machine, 2026-11-27).
                last = x_end - 1  # the last entry closes nothing
                k = max(pair, x_begin)
                v = indices[_u(min(k, last))]
                v_begin, v_end = indptr[_u(v)], indptr[_u(v) + _u(1)]
                while k < last:
                    v_next = indices[_u(min(k + 1, last))]
                    next_begin, next_end = indptr[_u(v_next)], indptr[_u(v_next) + _u(1)]
                    if v_end - v_begin > last - k:  # defers(): onto v's queue (v > x: to come)
                        owner[_u(k)] = x
                        link[_u(k)] = -1
                        if head[_u(v)] < 0:
                            head[_u(v)] = k
                        else:
                            link[_u(tail[_u(v)])] = k
                        tail[_u(v)] = k
                    else:
                        hits = _marked_in(indices, v_begin, v_end, mark, found)
                        if r + hits - done > capacity:  # out fills inside this pair: stop
                            take = done + capacity - r
                            _stop_at(indices, x_begin, x_end, mark, position, x, _OWN, k, take)
                            return _put_rows(x, v, found, done, take, labels, relabel, out, r)
                        r = _put_rows(x, v, found, done, hits, labels, relabel, out, r)
                        done = 0
                    k += 1
                    v, v_begin, v_end = v_next, next_begin, next_end
                phase, pair = _DEFERRED, head[_u(x)]
            a = owner[_u(max(pair, 0))]  # owner[0] is a vertex id (see above)
            a_end = indptr[_u(a) + _u(1)]
            while pair >= 0:  # the pairs (a, x) deferred to x, by increasing a
                after = link[_u(pair)]
                a_next = owner[_u(max(after, 0))]
                a_next_end = indptr[_u(a_next) + _u(1)]
                hits = _marked_in(indices, pair + 1, a_end, mark, found)
                if r + hits - done > capacity:
                    take = done + capacity - r
                    _stop_at(indices, x_begin, x_end, mark, position, x, _DEFERRED, pair, take)
                    return _put_rows(a, x, found, done, take, labels, relabel, out, r)
                r = _put_rows(a, x, found, done, hits, labels, relabel, out, r)
                done = 0
                pair, a, a_end = after, a_next, a_next_end
            _set_marks(indices, x_begin, x_end, mark, 0)
        x += 1
        phase, pair, done = _OWN, 0, 0
    position[0], position[1], position[2], position[3] = n, _OWN, 0, 0
    return r


#: ``labels`` of a lister that writes compact ids (never read: ``relabel`` is False).
_NO_LABELS = np.zeros(0, dtype=np.int64)


#: Rows of the first buffer of the one-pass route. Its chunk was allocated at the size the
#: graph could fill (up to :data:`CHUNK_ROWS`) and shrunk by ``ndarray.resize`` to the rows
#: written: glibc's realloc of it took 0.19-0.33 ms however few rows were kept, depending
#: on the allocator's state, against 0.03 ms to copy 28,339 rows out of a small buffer
#: (ca-HepTh's listing 0.90 -> 0.63 ms, ca-GrQc's 0.59 -> 0.26; 2-core machine,
#: 2026-11-27). A graph with more triangles moves its rows into a larger buffer each time
#: the last one fills (:func:`_grown_rows`), up to the chunk's size.
FIRST_ROWS = 1 << 16
#: A full first buffer grows to the rows the graph would give at the rate of the edges
#: walked so far, times FIRST_MARGIN, and to at least FIRST_GROWTH times its rows: ppi's
#: 91,461 rows grow into 131,072, sbpc-static-5k's 172,714 into 185,588 (listed 1.06-1.10x
#: faster than through a 2^20-row buffer and a copy), a graph that fills the chunk goes
#: straight to it (growing by 4x made ego-Facebook's and ca-AstroPh's 1.16-1.28x slower:
#: two more copies); 2-core machine, 2026-11-27.
FIRST_GROWTH = 2
FIRST_MARGIN = 1.25
#: Rows that fill at least this share of their last buffer come back as a view of it, not a
#: copy, so a chunk holds at most four times its own memory: ca-GrQc's 48,260 rows listed in
#: 0.156 against 0.187 ms, jazz's 17,899 in 0.052 against 0.063, email-Enron's 727,044 in
#: 6.5-7.0 against 8.2-8.3 ms; 2-core machine, 2026-11-27.
FIRST_VIEW_SHARE = 0.25


def one_pass(n_edges: int) -> bool:
    """Whether a graph of ``n_edges`` edges is listed by the one-pass route when no total
    is wanted first (:data:`PARALLEL_MIN_EDGES`, :data:`ONE_PASS_MAX_EDGES`); the thread
    count is asked only past the first, as asking costs microseconds."""
    if n_edges < PARALLEL_MIN_EDGES:
        return True
    threads = numba.get_num_threads()
    return threads == 1 or (threads <= ONE_PASS_MAX_THREADS and n_edges < ONE_PASS_MAX_EDGES)


def _serial(n_edges: int) -> bool:
    """Whether the counted route counts a graph of ``n_edges`` edges on the calling thread
    (:data:`PARALLEL_MIN_EDGES`)."""
    return n_edges < PARALLEL_MIN_EDGES or numba.get_num_threads() == 1


def _check_upper(csr) -> None:
    """Refuse a CSR whose edges need not point up its ids (the degree orientation)."""
    if csr.order not in ("id", "rank"):
        raise ValueError(f"the CPU lister takes a CSR whose edges point up its ids "
                         f"(graph.upper()), not the {csr.order!r} orientation")


class _OnePass:
    """The one pass's state between chunks: the byte map, the queues and the position."""

    def __init__(self, upper, labels):
        n, m = upper.n_vertices, upper.n_edges
        self.upper = upper
        self.relabel = labels is not None
        self.labels = (np.ascontiguousarray(labels, dtype=np.int64) if self.relabel
                       else _NO_LABELS)
        self.mark = np.zeros(max(n, 1), dtype=np.uint8)
        self.found = np.empty(max(upper.max_out_degree, 1), dtype=upper.indices.dtype)
        # Positions in ``indices`` and vertex ids, two of each a vertex and an edge.
        ids = np.int32 if max(n, m) < 2**31 else np.int64
        self.ends = np.empty((2, max(n, 1)), dtype=ids)
        self.pairs = np.empty((2, max(m, 1)), dtype=ids)
        self.position = np.array([-1, _OWN, 0, 0], dtype=np.int64)

    def write(self, out) -> int:
        u = self.upper
        return _write_next(u.indptr, u.indices, self.labels, self.relabel, self.mark,
                           self.found, self.ends, self.pairs, self.position, out)


def stream_triangles_cpu(upper, labels=None, chunk_size: int = CHUNK_ROWS):
    """Yield every triangle once by the one-pass route, as C-contiguous ``(k, 3)`` int64
    arrays (``labels`` of the vertices, or compact ids for None).

    ``upper``: the graph's upper CSR (see the module doc). Every chunk has
    ``chunk_size`` rows except the last; no total is known before the last. Each
    chunk is found when it is asked for.
    """
    _check_upper(upper)
    state = _OnePass(upper, labels)
    # No pair closes more than max_out_degree - 1 triangles: a chunk is allocated no
    # larger than what may still come, and the last one is trimmed.
    pairs = upper.n_edges
    left = pairs * max(upper.max_out_degree - 1, 0)
    first = True
    while left > 0:
        size = min(chunk_size, left)
        if first:  # most graphs end inside a small first buffer
            out = _write_first(state, size)
        else:
            out = np.empty((size, 3), dtype=np.int64)
            rows = state.write(out)
            if rows < size:
                out.resize((rows, 3), refcheck=False)  # realloc: no copy, no view
        first = False
        if out.shape[0] < size:  # the graph ended inside this chunk
            if out.shape[0]:
                yield out
            return
        yield out
        left -= size


def _grown_rows(state, rows: int, size: int) -> int:
    """Rows of the next buffer of :func:`_write_first` once ``rows`` fill the last one
    (:data:`FIRST_GROWTH`, :data:`FIRST_MARGIN`), at most ``size``. ``position[0]`` is the
    anchor the walk stopped at: the edges of the anchors before it are walked."""
    indptr = state.upper.indptr
    walked = int(indptr[min(int(state.position[0]), indptr.shape[0] - 1)])
    estimate = rows * FIRST_MARGIN * state.upper.n_edges / max(walked, 1)
    # At least one more row than filled, whatever the constants: the caller's loop ends.
    return int(min(size, max(FIRST_GROWTH * rows, estimate, rows + 1)))


def _write_first(state, size: int):
    """The first chunk of :func:`stream_triangles_cpu` (``size`` rows at most): written
    into :data:`FIRST_ROWS` rows, moved into a larger buffer (:func:`_grown_rows`) each
    time those fill, and returned as its rows: the whole buffer, a view of it when they
    fill :data:`FIRST_VIEW_SHARE` of it, else a copy of them."""
    buffer = np.empty((min(size, FIRST_ROWS), 3), dtype=np.int64)
    rows = state.write(buffer)
    while rows == buffer.shape[0] < size:  # full, and the chunk may hold more
        grown = np.empty((_grown_rows(state, rows, size), 3), dtype=np.int64)
        grown[:rows] = buffer
        rows += state.write(grown[rows:])
        buffer = grown
    if rows == buffer.shape[0]:
        return buffer
    if rows >= FIRST_VIEW_SHARE * buffer.shape[0]:
        return buffer[:rows]
    return buffer[:rows].copy()


# -- the counted route ---------------------------------------------------------------------


#: Deferred pairs of one vertex up to which :func:`_sort_run` sorts by insertion (most
#: vertices have a few; a call of NumPy's sort cost more than the whole sort of those:
#: soc-Epinions1's 82,581 pairs in 0.71 against 1.49 ms, 2-core machine, 2026-11-27).
INSERTION_SORT_MAX = 32


@numba.njit(cache=True, nogil=True, inline="always")
def _sort_run(rest_begin, begin, end):
    """``rest_begin[begin:end]`` (one vertex's deferred pairs: the position after the
    vertex in each pair's anchor row, which grows with the anchor) sorted in place."""
    if end - begin > INSERTION_SORT_MAX:
        rest_begin[begin:end].sort()
    else:
        insertion_sort(rest_begin, begin, end)


@numba.njit(cache=True, nogil=True, inline="always")
def _pair_of(indptr, deferred_ptr, rest_begin, x, e):
    """Pair ``e`` of the pair sequence, in anchor x's run: ``(own, position)``, the
    position of v in x's row for a pair x settles (or a slot that closes nothing), else
    the position of x in a's row for a pair (a, x) deferred to x."""
    k = e - deferred_ptr[_u(x)]
    if k < indptr[_u(x) + _u(1)]:
        return True, k
    return False, np.int64(rest_begin[_u(e - indptr[_u(x) + _u(1)])]) - 1


@numba.njit(cache=True, nogil=True)
def _sort_runs_of(deferred_ptr, rest_begin, v_begin, v_end):
    """The deferred pairs of the vertices ``v_begin .. v_end - 1`` by increasing anchor,
    the order the one pass takes them in (the plan's parallel placement leaves them in
    any order)."""
    for v in range(v_begin, v_end):
        _sort_run(rest_begin, deferred_ptr[v], deferred_ptr[v + 1])


@numba.njit(parallel=True, cache=True, nogil=True)
def _sort_runs(deferred_ptr, bounds, rest_begin):
    """:func:`_sort_runs_of` every vertex, block ``b`` the vertices ``bounds[b] ..
    bounds[b + 1] - 1`` (:func:`_sort_bounds`)."""
    for block in numba.prange(bounds.shape[0] - 1):
        _sort_runs_of(deferred_ptr, rest_begin, bounds[block], bounds[block + 1])


def _sort_bounds(deferred_ptr, threads: int) -> np.ndarray:
    """Vertex bounds of :data:`SORT_BLOCKS_PER_THREAD` blocks a thread holding about equal
    numbers of deferred pairs (a vertex's pairs stay in one block); 0 first, n last."""
    n = deferred_ptr.shape[0] - 1
    blocks = max(1, min(n, SORT_BLOCKS_PER_THREAD * threads))
    targets = np.linspace(0, int(deferred_ptr[-1]), blocks + 1).astype(np.int64)
    starts = np.searchsorted(deferred_ptr, targets[1:-1], side="left")
    return np.unique(np.concatenate(([0], starts, [n]))).astype(np.int64)


@numba.njit(cache=True, nogil=True, inline="always")
def _mark_anchor(indptr, indices, x, mark, marked, slot):
    """Make ``mark`` hold the marks of anchor x: ``marked[slot]`` is the anchor whose
    marks it holds (-1: none), kept between calls."""
    if marked[slot] != x:
        old = marked[slot]
        if old >= 0:
            _set_marks(indices, indptr[_u(old)], indptr[_u(old) + _u(1)], mark, 0)
        _set_marks(indices, indptr[_u(x)], indptr[_u(x) + _u(1)], mark, 1)
        marked[slot] = x


@numba.njit(cache=True, nogil=True)
def _count_block(indptr, rows, indices, deferred_ptr, rest_begin, starts, e_begin, e_end,
                 mark, marked, slot, counts):
    """``counts[e]`` for the pairs ``e_begin .. e_end - 1`` of the pair sequence (every
    entry written): a slot of x's row that x settles gets the marked w of N+(v), a
    deferred pair the marked w of the rest of a's row, any other slot 0. ``starts``,
    ``mark``, ``marked`` and ``slot`` as for :func:`_write_pairs`."""
    x = np.int64(np.searchsorted(starts, e_begin, side="right")) - 1
    for e in range(e_begin, e_end):
        while e >= starts[_u(x) + _u(1)]:
            x += 1
        own, pair = _pair_of(indptr, deferred_ptr, rest_begin, x, e)
        last = indptr[_u(x) + _u(1)] - 1
        if own and (pair == last or defers(indptr, _u(indices[_u(pair)]), last - pair)):
            counts[_u(e)] = 0  # closes nothing, or settled at v
            continue
        _mark_anchor(indptr, indices, x, mark, marked, slot)
        _a, _b, begin, end = _candidates(indptr, indices, x, own, pair,
                                         0 if own else rows[_u(pair)])
        hits = np.int64(0)
        for j in range(begin, end):
            hits += np.int64(mark[_u(indices[_u(j)])])
        counts[_u(e)] = hits


@numba.njit(parallel=True, cache=True, nogil=True)
def _count_pairs(indptr, rows, indices, deferred_ptr, rest_begin, starts, marks, marked,
                 counts):
    """``counts[e]`` = triangles of pair e of the pair sequence, in blocks of
    :data:`WRITE_BLOCK_PAIRS` pairs (a hub's row is shared out, as the write's is); each
    thread slot keeps its marks."""
    n_pairs = counts.shape[0]
    for block in numba.prange((n_pairs + WRITE_BLOCK_PAIRS - 1) // WRITE_BLOCK_PAIRS):
        slot = numba.get_thread_id()
        first = block * WRITE_BLOCK_PAIRS
        _count_block(indptr, rows, indices, deferred_ptr, rest_begin, starts, first,
                     min(first + WRITE_BLOCK_PAIRS, n_pairs), marks[slot], marked, slot,
                     counts)


@numba.njit(cache=True, nogil=True)
def _write_pairs(indptr, rows, indices, deferred_ptr, rest_begin, starts, offsets, labels,
                 relabel, e_begin, e_end, t_begin, t_end, mark, marked, slot, found, out_a,
                 out_b, out_c):
    """Write the triangles of pairs ``e_begin .. e_end - 1`` numbered inside ``t_begin ..
    t_end - 1``: row ``t - t_begin`` gets (a, b, c) (``labels`` of them when
    ``relabel``). ``starts[x]`` is the first pair of anchor x; ``mark`` holds the
    marks of anchor ``marked[slot]`` (-1: none) and stays so between calls;
    ``found`` is scratch for one list of candidates."""
    x = np.int64(np.searchsorted(starts, e_begin, side="right")) - 1
    for e in range(e_begin, e_end):
        while e >= starts[_u(x) + _u(1)]:
            x += 1
        t = offsets[_u(e)]
        n_hits = offsets[_u(e) + _u(1)] - t
        if n_hits == 0 or t >= t_end or t + n_hits <= t_begin:
            continue  # nothing of this pair in the window: do not disturb the marks
        _mark_anchor(indptr, indices, x, mark, marked, slot)
        own, pair = _pair_of(indptr, deferred_ptr, rest_begin, x, e)
        a, b, begin, end = _candidates(indptr, indices, x, own, pair,
                                       0 if own else rows[_u(pair)])
        _marked_in(indices, begin, end, mark, found)  # n_hits of them
        label_a = labels[_u(a)] if relabel else a
        label_b = labels[_u(b)] if relabel else b
        for h in range(max(t_begin - t, 0), min(t_end - t, n_hits)):
            c = found[_u(h)]
            i = _u(t + h - t_begin)
            out_a[i] = label_a
            out_b[i] = label_b
            out_c[i] = labels[_u(c)] if relabel else c


@numba.njit(parallel=True, cache=True, nogil=True)
def _write_window(indptr, rows, indices, deferred_ptr, rest_begin, starts, offsets, labels,
                  relabel, e_begin, e_end, t_begin, t_end, marks, marked, found, out_a, out_b,
                  out_c):
    """Write the triangles numbered ``t_begin .. t_end - 1`` (pairs ``e_begin .. e_end -
    1``), in blocks of :data:`WRITE_BLOCK_PAIRS` pairs; each thread slot keeps its marks."""
    n_blocks = (e_end - e_begin + WRITE_BLOCK_PAIRS - 1) // WRITE_BLOCK_PAIRS
    for block in numba.prange(n_blocks):
        slot = numba.get_thread_id()
        first = e_begin + block * WRITE_BLOCK_PAIRS
        _write_pairs(indptr, rows, indices, deferred_ptr, rest_begin, starts, offsets, labels,
                     relabel, first, min(first + WRITE_BLOCK_PAIRS, e_end), t_begin, t_end,
                     marks[slot], marked, slot, found[slot], out_a, out_b, out_c)


class CpuLister:
    """Counted and numbered triangles of one graph, written window by window (the counted
    route of the module doc).

    ``upper``: the graph's upper CSR (see the module doc). ``labels``: None to
    write compact ids, else an int64 array of the id written for each compact
    vertex (``graph.vertex_ids``). Construction plans the pairs, counts them and
    sums; :meth:`write` fills any window. Not thread-safe: one window at a time.
    """

    def __init__(self, upper, labels=None):
        _check_upper(upper)
        self.upper = upper
        self.labels = None if labels is None else np.ascontiguousarray(labels, dtype=np.int64)
        m = upper.n_edges
        self.deferred_ptr, self.rest_begin, _rest_end = deferred_lists(upper)
        # starts[x]: anchor x's first pair in the pair sequence (its row, then its queue).
        self.starts = np.asarray(upper.indptr, dtype=np.int64) + self.deferred_ptr
        n_pairs = int(self.starts[-1])
        self.offsets = np.zeros(n_pairs + 1, dtype=np.int64)
        # Scratch per thread slot, made when a kernel first needs it (see _scratch).
        self._marks = self._marked = self._found = None
        if m:
            u = upper
            arrays = (u.indptr, u.rows, u.indices, self.deferred_ptr, self.rest_begin,
                      self.starts)
            if _serial(m):
                self._scratch(1)
                _sort_runs_of(self.deferred_ptr, self.rest_begin, 0, u.n_vertices)
                _count_block(*arrays, 0, n_pairs, self._marks[0], self._marked, 0,
                             self.offsets[1:])
            else:
                threads = numba.get_num_threads()
                self._scratch(threads)
                bounds = _sort_bounds(self.deferred_ptr, threads)
                with parallel_region(1):  # blocks are the work chunks; one loop at a time
                    _sort_runs(self.deferred_ptr, bounds, self.rest_begin)
                with parallel_region(1):
                    _count_pairs(*arrays, self._marks, self._marked, self.offsets[1:])
            np.cumsum(self.offsets[1:], out=self.offsets[1:])  # int64: any number of triangles
        self.n_triangles = int(self.offsets[-1])

    def _scratch(self, slots: int):
        """At least ``slots`` thread slots of scratch: a clean byte map, the anchor it
        marks (-1: none) and room for one list of candidates each."""
        if self._marks is not None and self._marks.shape[0] >= slots:
            return
        u = self.upper
        have = 0 if self._marks is None else self._marks.shape[0]
        marks = np.zeros((slots, max(u.n_vertices, 1)), dtype=np.uint8)
        marked = np.empty(slots, dtype=np.int64)
        marked.fill(-1)
        found = np.empty((slots, max(u.max_out_degree, 1)), dtype=u.indices.dtype)
        if have:  # keep the slots' marks and anchors
            marks[:have] = self._marks
            marked[:have] = self._marked
        self._marks, self._marked, self._found = marks, marked, found

    def pair_range(self, t_begin: int, t_end: int) -> tuple[int, int]:
        """The pairs ``e0 .. e1 - 1`` holding triangles ``t_begin .. t_end - 1``."""
        e0 = int(np.searchsorted(self.offsets, t_begin, side="right")) - 1
        e1 = int(np.searchsorted(self.offsets, t_end, side="left"))
        return e0, e1

    def write(self, t_begin: int, t_end: int, out_a, out_b, out_c) -> None:
        """Write triangles ``t_begin .. t_end - 1`` into rows ``0 .. t_end - t_begin - 1``."""
        if not 0 <= t_begin <= t_end <= self.n_triangles:
            raise ValueError(f"window {t_begin}..{t_end} outside 0..{self.n_triangles}")
        if t_begin == t_end:
            return
        e0, e1 = self.pair_range(t_begin, t_end)
        u = self.upper
        labels = _NO_LABELS if self.labels is None else self.labels
        relabel = self.labels is not None
        arrays = (u.indptr, u.rows, u.indices, self.deferred_ptr, self.rest_begin, self.starts,
                  self.offsets, labels, relabel, e0, e1, t_begin, t_end)
        small = e1 - e0 < PARALLEL_MIN_EDGES and t_end - t_begin < PARALLEL_MIN_ROWS
        if small or numba.get_num_threads() == 1:
            self._scratch(1)
            _write_pairs(*arrays, self._marks[0], self._marked, 0, self._found[0], out_a, out_b,
                         out_c)
        else:
            self._scratch(numba.get_num_threads())
            with parallel_region(1):  # blocks are the work chunks; one loop at a time
                _write_window(*arrays, self._marks, self._marked, self._found, out_a, out_b,
                              out_c)


def list_triangles_cpu(upper, labels, chunk_size: int = CHUNK_ROWS):
    """Yield every triangle once, as C-contiguous ``(k, 3)`` int64 arrays of ``labels``.

    Every chunk has ``chunk_size`` rows except the last; each row is sorted by
    compact id. ``upper`` is the graph's upper CSR of NumPy arrays (listed by the
    route of :func:`one_pass`), or a :class:`CpuLister` already counted (``labels``
    is then its own); ``labels`` None writes compact ids.
    """
    if not isinstance(upper, CpuLister):
        if one_pass(upper.n_edges):
            yield from stream_triangles_cpu(upper, labels, chunk_size)
            return
        upper = CpuLister(upper, labels)
    lister = upper
    for t0 in range(0, lister.n_triangles, chunk_size):
        t1 = min(t0 + chunk_size, lister.n_triangles)
        out = np.empty((t1 - t0, 3), dtype=np.int64)
        lister.write(t0, t1, out[:, 0], out[:, 1], out[:, 2])
        yield out
