"""CPU directed triangles: cycles and feed-forward loops at every vertex, and the triad codes.

Counts, for a directed graph given as its undirected simple graph plus a
direction mask per edge (:mod:`tricount.directed`), over every undirected
triangle {a, b, c}:

- ``cycles[x]``: the directed 3-cycles through x ((A^3)_xx; a triangle with
  all six arcs holds two cycles);
- ``sources[x]``, ``middles[x]``, ``sinks[x]``: the transitive triples
  (feed-forward loops s -> m, m -> t, s -> t) with x as s, m or t
  ((A A A^T)_xx, (A A^T A)_xx and (A^T A A)_xx, Fagiolo 2007);
- ``codes[k]``: the triangles whose six arcs form the 6-bit code k (bit 0
  a -> b, 1 b -> a, 2 a -> c, 3 c -> a, 4 b -> c, 5 c -> b, with a < b < c in
  the orientation order), from which :func:`tricount.directed.triadic_census`
  names the triad types.

Per vertex, cycles + sources + middles + sinks equals the product over the
triangle's three edges of their arc counts (1 or 2), summed over its triangles:
Fagiolo's T_x, half of NetworkX's ``directed_triangles``.
Precondition: the degree-oriented CSR (rows sorted) and ``omask``, the mask of
every oriented entry relative to the orientation: bit 0 is the arc along it
(row -> column), bit 1 the arc against it.
Counted once: a triangle a < b < c in (degree, id) order is found only from
the edge a -> b, as c in both N+(a) and N+(b) (as :mod:`tricount.cpu.bitmap`).
Work: one parallel iteration per anchor u. The thread's byte map holds, for
every c in N+(u), the mask of u -> c (0: not an out-neighbour), so one load
both tests c and gives the arcs between u and c; the walk of N+(v) gives v -> c.
Credits to v and c are atomic adds (other threads credit the same vertices),
u's are summed and added once; the code histogram is per thread, summed at the
end. Anchors go to threads in blocks; small graphs run on the calling thread
(:data:`tricount.cpu.listing.PARALLEL_MIN_EDGES`). Counts are int64.
"""

from __future__ import annotations

import numpy as np

from tricount._threads import load_numba
from tricount._threads import parallel_region
from tricount.prep._atomic import atomic_add
from tricount.cpu.listing import PARALLEL_MIN_EDGES

numba = load_numba()  # Numba, started without its BLAS probe (tricount._threads)

__all__ = ["directed_triangles_cpu", "N_CODES", "COUNT_NAMES"]

#: Anchors per parallel block (as :data:`tricount.cpu.bitmap.CHUNK_VERTICES`).
BLOCK_VERTICES = 64
#: 6 arc bits per triangle.
N_CODES = 64
#: The rows of the per-vertex result, in order.
COUNT_NAMES = ("cycles", "sources", "middles", "sinks")


@numba.njit(cache=True)
def _roles(m_ab, m_ac, m_bc):
    """Cycles through the triangle (each corner lies on all of them), then each corner's
    times as source, middle and sink: (cycles, source_a, source_b, source_c, middle_a,
    ..., sink_c), flat."""
    ab, ba = m_ab & 1, m_ab >> 1
    ac, ca = m_ac & 1, m_ac >> 1
    bc, cb = m_bc & 1, m_bc >> 1
    cycles = (ab & bc & ca) + (ac & cb & ba)
    n_ab, n_ac, n_bc = ab + ba, ac + ca, bc + cb
    return (cycles,
            (ab & ac) * n_bc, (ba & bc) * n_ac, (ca & cb) * n_ab,  # sources
            (ba & ac & bc) + (ca & ab & cb), (ab & bc & ac) + (cb & ba & ca),  # middles
            (ac & cb & ab) + (bc & ca & ba),
            (ba & ca) * n_bc, (ab & cb) * n_ac, (ac & bc) * n_ab)  # sinks


@numba.njit(inline="always")
def _credit(per_vertex, n, x, cycles, source, middle, sink):
    """Add one corner's counts to rows 0..3 of the flat (4 n) per-vertex array."""
    if cycles:
        atomic_add(per_vertex, x, cycles)
    if source:
        atomic_add(per_vertex, n + x, source)
    if middle:
        atomic_add(per_vertex, 2 * n + x, middle)
    if sink:
        atomic_add(per_vertex, 3 * n + x, sink)


@numba.njit(cache=True, nogil=True)
def _directed_rows(indptr, indices, omask, mark, histogram, per_vertex, want_per_vertex,
                   u_begin, u_end):
    """Every triangle anchored at ``u_begin .. u_end - 1``: its code into ``histogram``,
    its roles into ``per_vertex`` (atomically) when wanted. ``mark`` is clean before
    and after."""
    n = indptr.shape[0] - 1
    for u in range(u_begin, u_end):
        k_begin = indptr[u]
        k_end = indptr[u + 1]
        if k_end - k_begin < 2:
            continue  # a triangle needs two out-neighbours at its anchor
        for k in range(k_begin, k_end):
            mark[indices[k]] = omask[k]  # 1..3: never 0 for a stored edge
        u_cycles = u_source = u_middle = u_sink = 0
        for k in range(k_begin, k_end):
            v = indices[k]
            m_ab = omask[k]
            for j in range(indptr[v], indptr[v + 1]):
                w = indices[j]
                m_ac = mark[w]
                if m_ac == 0:
                    continue
                m_bc = omask[j]
                histogram[m_ab | (m_ac << 2) | (m_bc << 4)] += 1
                if want_per_vertex:
                    r = _roles(np.int64(m_ab), np.int64(m_ac), np.int64(m_bc))
                    u_cycles += r[0]
                    u_source += r[1]
                    u_middle += r[4]
                    u_sink += r[7]
                    _credit(per_vertex, n, v, r[0], r[2], r[5], r[8])
                    _credit(per_vertex, n, w, r[0], r[3], r[6], r[9])
        for k in range(k_begin, k_end):
            mark[indices[k]] = 0
        if want_per_vertex:
            _credit(per_vertex, n, u, u_cycles, u_source, u_middle, u_sink)


@numba.njit(parallel=True, cache=True, nogil=True)
def _directed(indptr, indices, omask, marks, per_vertex, codes, want_per_vertex):
    """:func:`_directed_rows` over blocks of :data:`BLOCK_VERTICES` anchors; each thread
    slot has its byte map and its histogram."""
    n = indptr.shape[0] - 1
    for block in numba.prange((n + BLOCK_VERTICES - 1) // BLOCK_VERTICES):
        slot = numba.get_thread_id()
        first = block * BLOCK_VERTICES
        _directed_rows(indptr, indices, omask, marks[slot], codes[slot], per_vertex,
                       want_per_vertex, first, min(first + BLOCK_VERTICES, n))


def directed_triangles_cpu(oriented, omask, *, per_vertex: bool = True):
    """``(counts, codes)``: int64 ``(4, n)`` per-vertex counts (rows :data:`COUNT_NAMES`,
    by compact id; zeros when ``per_vertex`` is False) and the int64 histogram of
    the 64 triangle codes."""
    n = oriented.n_vertices
    counts = np.zeros(4 * n, dtype=np.int64)
    serial = oriented.n_edges < PARALLEL_MIN_EDGES or numba.get_num_threads() == 1
    slots = 1 if serial else numba.get_num_threads()
    codes = np.zeros((slots, N_CODES), dtype=np.int64)
    if oriented.n_edges:
        marks = np.zeros((slots, n), dtype=np.uint8)
        omask = np.ascontiguousarray(omask, dtype=np.uint8)
        if serial:
            _directed_rows(oriented.indptr, oriented.indices, omask, marks[0], codes[0], counts,
                           bool(per_vertex), 0, n)
        else:
            with parallel_region(1):  # blocks are the work chunks; one loop at a time
                _directed(oriented.indptr, oriented.indices, omask, marks, counts, codes,
                          bool(per_vertex))
    return counts.reshape(4, n), codes.sum(axis=0)
