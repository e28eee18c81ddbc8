"""CPU bitmap counter: N+(x) as a bitmap, probed by the shorter candidate list of every edge.

Counts: distinct triangles of a simple undirected graph.
Precondition: an oriented CSR whose edges point up the ids (every u -> v has
v > u) with rows sorted: the rank orientation of
:func:`tricount.prep.orient.orient_upper` (vertices renamed by (degree, id),
as GAPBS relabels them), or the id orientation.
Counted once: a triangle a < b < c is closed by c, which lies in N+(a) after b
and in N+(b). The pair (a, b) is settled at one end only: at a, by probing
every w of N+(b) in a's bitmap (d+(b) probes), or, when a has fewer
candidates after b than b has out-neighbours, at b, by probing the rest of
N+(a) after b in b's bitmap. So the probes are Σ min(d+(b), #N+(a) after b)
over the edges instead of Σ d+(b): R-MAT scale 18, 203 M instead of 659 M.
This is the owner rule of the GPU's hash method (the longer list is the set,
the shorter is probed), with the candidates cut at b because the rows are
sorted, and with the pairs "deferred" to b found by one counting pass.
Work: a plan pass counts, then places, the deferred pairs of every vertex
(the start and end of the rest of the anchor's row: two ids a pair); then
per anchor x (handed out in chunks, :mod:`tricount.cpu._common`) the worker
sets N+(x) in its own n-bit bitmap (one L1- or L2-resident word array per
worker), probes its own pairs and its deferred ones, and clears the words it
set. Counts are int64 per worker and in the sum.
Measured (R-MAT 18, 2-core development machine, 2026-11-25): see
benchmarks/results/cpu_vs_gapbs.md.
Which ids: the rows need only point up the ids and be sorted, so the graph's own
upper CSR (id order) can be counted as it is, with no orientation at all, where
renaming by rank would cost more than it saves. :func:`counts_in_id_order` decides
from the probes the id order would take (:func:`probes`, one pass without
atomics): the owner rule above keeps them near the rank order's on most real
graphs (1.1-2.5x on the shared graphs), while the rank orientation costs 20-30 ns
an edge on two threads, as much as the count itself there.
Sources: Bisson & Fatica's bitmaps (the set), GAPBS's relabelling by degree,
and the hash method's owner rule (docs/gpu.md).
"""

from __future__ import annotations

import numpy as np

from tricount._threads import load_numba
from tricount.cpu._common import CHUNK_VERTICES, claim, n_workers, run_chunked
from tricount.cpu.id_order import id_order_limit
from tricount.prep._atomic import atomic_add
from tricount.prep._parallel import claimed_chunks

numba = load_numba()  # Numba, started without its BLAS probe (tricount._threads)

__all__ = ["count_bitmap", "counts_in_id_order", "probes"]


@numba.njit(inline="always")
def defers(out_ptr, v, rest):
    """Whether the pair (x, v) goes to v: v has more out-neighbours than x's row has
    entries after v (``rest``)."""
    return out_ptr[v + 1] - out_ptr[v] > rest


@numba.njit(parallel=True, nogil=True, cache=True)
def _deferred_pairs(out_ptr, out, n_deferred, deferred_ptr, rest_begin, rest_end, place, cursor,
                    workers):
    """The pairs (x, v) settled at v: counted (``place`` False: ``n_deferred[v]``, atomic),
    or placed (the range of x's row after v, at the next free slot of v's list, with
    ``n_deferred`` as the fill cursors)."""
    n = out_ptr.shape[0] - 1
    for _worker in numba.prange(workers):
        begin, end = claim(cursor, n, CHUNK_VERTICES)
        while begin < n:
            for x in range(begin, end):
                x_end = out_ptr[x + 1]
                for k in range(out_ptr[x], x_end - 1):  # the last entry closes nothing
                    v = out[k]
                    if defers(out_ptr, v, x_end - k - 1):
                        slot = atomic_add(n_deferred, v, 1)
                        if place:
                            rest_begin[deferred_ptr[v] + slot] = k + 1
                            rest_end[deferred_ptr[v] + slot] = x_end
            begin, end = claim(cursor, n, CHUNK_VERTICES)


@numba.njit(inline="always")
def _probe(bits, out, begin, end):
    """How many of ``out[begin:end]`` are set in ``bits``."""
    found = np.int64(0)
    for j in range(begin, end):
        w = out[j]
        found += np.int64((bits[w >> 6] >> np.uint64(w & 63)) & np.uint64(1))
    return found


@numba.njit(nogil=True, cache=True)
def count_range(out_ptr, out, deferred_ptr, rest_begin, rest_end, bits, begin, end):
    """Triangles settled at the anchors ``begin .. end - 1`` (``bits`` all zero before and
    after): each one's own pairs that stay, and the pairs deferred to it. One call per
    claimed chunk, not per anchor: a call costs about 0.1 us (seven arrays passed), as much
    as a sparse anchor's work (the power grid: 565 -> 235 us for its 4,941 anchors, one
    thread). Not inlined: Numba's parfor pass fails on this body inlined into the
    parallel loop (a recursion in its reduction search)."""
    found = np.int64(0)
    for x in range(begin, end):
        x_begin = out_ptr[x]
        x_end = out_ptr[x + 1]
        # One out-neighbour closes nothing, and nothing is deferred to x then: a pair
        # (w, x) goes to x only when d+(x) exceeds the entries after x in w's row (>= 1).
        if x_end - x_begin < 2:
            continue
        for k in range(x_begin, x_end):
            w = out[k]
            bits[w >> 6] |= np.uint64(1) << np.uint64(w & 63)
        for k in range(x_begin, x_end - 1):
            v = out[k]
            if not defers(out_ptr, v, x_end - k - 1):
                found += _probe(bits, out, out_ptr[v], out_ptr[v + 1])
        for q in range(deferred_ptr[x], deferred_ptr[x + 1]):
            found += _probe(bits, out, rest_begin[q], rest_end[q])
        for k in range(x_begin, x_end):
            bits[out[k] >> 6] = 0
    return found


@numba.njit(parallel=True, nogil=True, cache=True)
def _count_bitmap(out_ptr, out, deferred_ptr, rest_begin, rest_end, bitmaps, cursor, workers):
    n = out_ptr.shape[0] - 1
    total = np.int64(0)
    for worker in numba.prange(workers):
        bits = bitmaps[worker]
        local = np.int64(0)
        begin, end = claim(cursor, n, CHUNK_VERTICES)
        while begin < n:
            local += count_range(out_ptr, out, deferred_ptr, rest_begin, rest_end, bits, begin,
                                 end)
            begin, end = claim(cursor, n, CHUNK_VERTICES)
        total += local
    return total


@numba.njit(parallel=True, nogil=True, cache=True)
def _probes(out_ptr, out, cursor, workers):
    """The probes a count takes: Σ over the pairs (x, v) of min(d+(v), the entries of x's
    row after v), the pair settled at whichever end probes fewer (:func:`defers`)."""
    n = out_ptr.shape[0] - 1
    total = np.int64(0)
    for _worker in numba.prange(workers):
        local = np.int64(0)
        for begin, end in claimed_chunks(cursor, n, CHUNK_VERTICES):
            for x in range(begin, end):
                x_end = out_ptr[x + 1]
                for k in range(out_ptr[x], x_end - 1):
                    local += min(out_ptr[out[k] + 1] - out_ptr[out[k]], x_end - k - 1)
        total += local
    return total


def probes(oriented) -> int:
    """How many bitmap tests a count of ``oriented`` (NumPy arrays, rows sorted) takes."""
    if oriented.n_edges == 0:
        return 0
    return int(run_chunked(_probes, oriented.indptr, oriented.indices))


def counts_in_id_order(upper) -> bool:
    """Whether to count the graph's upper CSR ``upper`` as it is rather than its rank
    orientation (:func:`tricount.cpu.id_order.id_order_limit` on :func:`probes`; the threads
    are those the count will run on)."""
    m = upper.n_edges
    if m == 0:
        return True
    return probes(upper) <= id_order_limit(m, n_workers()) * m


def count_bitmap(oriented) -> int:
    """Triangles of an oriented CSR whose edges point up the ids (NumPy arrays, rows
    sorted), by per-worker bitmaps (see the module doc)."""
    n, m = oriented.n_vertices, oriented.n_edges
    if m == 0:
        return 0
    out_ptr, out = oriented.indptr, oriented.indices
    position = np.int32 if m < 2**31 else np.int64  # pairs hold positions in ``out``
    n_deferred = np.zeros(n, dtype=position)
    deferred_ptr = np.zeros(n + 1, dtype=np.int64)
    unused = np.zeros(0, dtype=position)
    run_chunked(_deferred_pairs, out_ptr, out, n_deferred, deferred_ptr, unused, unused, False)
    np.cumsum(n_deferred, out=deferred_ptr[1:])
    n_pairs = int(deferred_ptr[-1])
    rest_begin = np.empty(n_pairs, dtype=position)
    rest_end = np.empty(n_pairs, dtype=position)
    n_deferred[:] = 0  # now the fill cursors
    run_chunked(_deferred_pairs, out_ptr, out, n_deferred, deferred_ptr, rest_begin, rest_end,
                True)
    del n_deferred
    bitmaps = np.zeros((n_workers(), -(-n // 64)), dtype=np.uint64)
    return int(run_chunked(_count_bitmap, out_ptr, out, deferred_ptr, rest_begin, rest_end,
                           bitmaps))
