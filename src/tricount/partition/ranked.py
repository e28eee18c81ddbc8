"""The graph every partitioned count reads: renamed by rank, so that id order *is* the orientation.

Vertex ``v`` is renamed ``rank(v)``, its position in (degree, id) order, and
each undirected edge is stored once, in the row of its lower rank. The result
is at the same time

- the degree orientation of :func:`tricount.prep.orient.orient_by_rank` (row
  ``r`` is N+(r), the out-neighbours of rank ``r``, sorted), and
- a strictly upper-triangular CSR of an isomorphic graph, which is exactly what
  a ``.tcsr`` file stores. A file written in rank order (:func:`write_ranked`)
  therefore needs no preparation when it is counted again: its degrees are
  non-decreasing in id order, which :func:`ranked_from_upper` checks in one
  pass and then uses the arrays the file was read into as they are.

Rank orientation here is CPU-parallel (Numba) and never holds the edge list
twice or as 64-bit keys: one atomic pass counts every rank's out-degree, one
writes each edge at its row's cursor, one sorts each row. Beyond the output
(``indptr`` and ``indices``, the size of the input) it needs four arrays of n
integers (degree, rank, cursor, counts). The input may be a memory-mapped
``.tcsr``, and the output any writable arrays (e.g. a mapping of the file it is
being written to).
"""

from __future__ import annotations

import contextlib
import os
import threading
from dataclasses import dataclass, replace

import numpy as np

from tricount._threads import renew_in_child
from tricount.prep.xp import index_dtype, to_host

__all__ = ["RankedCSR", "rank_graph", "ranked_from_upper", "open_ranked", "write_ranked",
           "in_degrees", "apex_probes"]


@dataclass(frozen=True, eq=False)  # arrays inside: == would be ambiguous
class RankedCSR:
    """A graph relabelled by (degree, id) rank, each edge in the row of its lower rank.

    ``indptr`` (int64, n + 1) and ``indices`` (int32 while n fits, else int64)
    are NumPy arrays (possibly a file's mapping); row ``r`` lists the ranks above
    ``r`` adjacent to ``r``, sorted. ``rank[v]`` is the rank of the source
    graph's compact vertex ``v``, or None when the source already was in rank
    order (identity). ``path`` is the ``.tcsr`` file the arrays map, if any.
    ``in_degree`` (int64, by rank), when known, saves :func:`in_degrees` a pass.
    """

    indptr: np.ndarray
    indices: np.ndarray
    n_vertices: int
    n_edges: int
    rank: np.ndarray | None = None
    path: str | None = None
    in_degree: np.ndarray | None = None
    #: What the source graph's report says beyond its sizes (largest degree, loops and
    #: repeats dropped), when the CSR was ranked from a graph in memory or a text file.
    source_facts: dict | None = None
    #: ``path``'s :func:`~tricount.partition.worker_cache.file_key` when the arrays were read
    #: from it (None: unknown, the file changed during the read). Workers given the path
    #: must find this same file there: a file rewritten since holds another graph.
    file_key: tuple | None = None

    @property
    def out_degree(self) -> np.ndarray:
        return np.diff(self.indptr)


def _kernels():
    from tricount.partition import _kernels

    return _kernels


#: Rows per dynamic chunk of every parallel loop here; the CPU kernels' default
#: (``tricount.cpu.bitmap.CHUNK_VERTICES``), not tuned separately.
CHUNK_ROWS = 64
#: A loop over fewer entries than this runs on the calling thread alone: waking the
#: other threads cost 2-9 ms per launch on this 2-core machine under load, one thread
#: 0.05 ms (2026-11-25), and a sub-problem makes three launches.
SERIAL_BELOW = 1 << 16


_LOCK = threading.RLock()
renew_in_child(globals(), _LOCK=threading.RLock)


def _region(chunk: int = 0):
    """One parallel loop at a time per process, with ``chunk`` iterations per dynamic chunk
    (0: Numba's equal split). Also held around code that calls other modules' loops.

    Where tricount has its process-wide region (``tricount._threads``, issue 23: Numba's
    fork-safe workqueue layer aborts on two loops launched at once) every loop takes
    that lock; before it exists, a lock of this package's.
    """
    try:
        from tricount._threads import parallel_region
    except ImportError:
        import numba

        return _locked(numba.parallel_chunksize(chunk))
    return parallel_region(chunk)


@contextlib.contextmanager
def _locked(inner):
    with _LOCK, inner:
        yield


@contextlib.contextmanager
def parallel(size: int):
    """Run the Numba loops inside on every thread, in dynamic chunks of
    :data:`CHUNK_ROWS`, or on this thread alone when ``size`` (entries) is small;
    one such block at a time per process (:func:`_region`)."""
    import numba

    with _region(CHUNK_ROWS):
        threads = numba.get_num_threads()
        if size < SERIAL_BELOW:
            numba.set_num_threads(1)  # a per-thread setting: other threads are not affected
        try:
            yield
        finally:
            numba.set_num_threads(threads)


def ranked_from_upper(indptr, indices, n_vertices: int, *, path=None, out=None) -> RankedCSR:
    """Rank-orient a strictly upper-triangular CSR (a canonical graph's, or a ``.tcsr``'s).

    When the degrees are already non-decreasing in id order the CSR is returned
    as it is (no copy). Otherwise the oriented arrays are written into ``out``
    (a pair ``(indptr, indices)`` of the right sizes, e.g. a writable mapping)
    or into new arrays.
    """
    k = _kernels()
    indptr = np.asarray(indptr)
    n, m = int(n_vertices), int(indices.shape[0])
    col = np.zeros(n, dtype=np.int64)
    with parallel(m):
        k.column_counts(indptr, indices, col)
    deg = col + np.diff(indptr)
    if k.is_nondecreasing(deg):
        # (degree, id) order is id order: the upper CSR is the oriented one, and the
        # column counts are the in-degrees.
        return RankedCSR(indptr, indices, n, m, None, path, col)
    del col
    dtype = index_dtype(n)
    rank = np.empty(n, dtype=dtype)
    k.rank_by_degree(deg, rank)
    counts = np.zeros(n, dtype=np.int64)
    with parallel(m):
        k.oriented_counts(indptr, indices, rank, counts)
    if out is None:
        out = (np.empty(n + 1, dtype=np.int64), np.empty(m, dtype=dtype))
    out_indptr, out_indices = out
    out_indptr[0] = 0
    np.cumsum(counts, out=out_indptr[1:])
    cursor = counts  # reused: row starts, advanced as edges are written
    cursor[:] = out_indptr[:-1]
    with parallel(m):
        k.oriented_fill(indptr, indices, rank, cursor, out_indices)
        k.sort_rows(out_indptr, out_indices)
    del cursor
    in_degree = np.empty(n, dtype=np.int64)  # by rank: the degree less the out-degree
    in_degree[rank] = deg
    in_degree -= np.diff(out_indptr)
    return RankedCSR(out_indptr, out_indices, n, m, rank, None, in_degree)


def rank_graph(graph) -> RankedCSR:
    """The rank-ordered CSR of a :class:`~tricount.CSRGraph` (arrays moved to the host)."""
    indptr = np.ascontiguousarray(to_host(graph.indptr), dtype=np.int64)
    indices = np.ascontiguousarray(to_host(graph.indices))
    return ranked_from_upper(indptr, indices, graph.n_vertices)


def open_ranked(path) -> RankedCSR:
    """Read a ``.tcsr`` file (verified, by :func:`tricount.io.load_graph`) and rank it.

    A file in rank order (:func:`write_ranked`) is used as read; any other
    is rank-oriented into memory. The read holds the process's parallel region
    (:func:`_region`): the reader's own Numba loops then never meet another
    thread's.
    """
    from tricount.io import load_graph
    from tricount.partition.worker_cache import file_key

    before = _key_or_none(path, file_key)
    with _region():
        g = load_graph(path)
    key = before if before is not None and _key_or_none(path, file_key) == before else None
    ranked = ranked_from_upper(g.indptr, g.indices, g.n_vertices, path=os.fspath(path))
    return replace(with_facts(ranked, g), file_key=key)


def _key_or_none(path, file_key):
    try:
        return file_key(path)
    except OSError:
        return None


def with_facts(ranked: RankedCSR, graph) -> RankedCSR:
    """``ranked`` carrying its source graph's report beyond the sizes (a count in parts
    reports what was dropped, and the name a file holds, as a count in one piece does).
    The largest degree comes from the ranking's own degrees (in- plus out-degree of each
    rank), not another pass over the edges."""
    degree = in_degrees(ranked) + ranked.out_degree
    facts = {"max_degree": int(degree.max()) if ranked.n_vertices else 0,
             "self_loops_dropped": graph.self_loops_dropped,
             "duplicates_dropped": graph.duplicates_dropped}
    if getattr(graph, "name", None):
        facts["graph"] = graph.name
    return replace(ranked, source_facts=facts)


def write_ranked(ranked: RankedCSR, path, *, vertex_ids=None, name=None) -> None:
    """Write a ranked CSR as a ``.tcsr`` file in rank order (whole or not at all).

    ``vertex_ids`` (int64, by source compact id) are carried over, permuted to
    rank order, so that the file still names the original vertices.
    """
    from tricount.graph import CSRGraph
    from tricount.io import write_native

    n = ranked.n_vertices
    ids = np.arange(n, dtype=np.int64) if vertex_ids is None else to_host(vertex_ids)
    if ranked.rank is not None:
        by_rank = np.empty_like(ids)
        by_rank[ranked.rank] = ids
        ids = by_rank
    g = CSRGraph.from_upper_csr(ranked.indptr, ranked.indices, n, vertex_ids=ids, name=name,
                                check=False)
    write_native(path, g)


def in_degrees(ranked: RankedCSR) -> np.ndarray:
    """In-degree (edges from lower ranks) of every rank, int64."""
    if ranked.in_degree is not None:
        return ranked.in_degree
    counts = np.zeros(ranked.n_vertices, dtype=np.int64)
    with parallel(ranked.n_edges):
        _kernels().column_counts(ranked.indptr, ranked.indices, counts)
    return counts


def apex_probes(ranked: RankedCSR, in_degree=None) -> np.ndarray:
    """Per apex ``c``, the two-paths ``a -> b -> c`` (int64): the bitmap count's probes on ``c``."""
    if in_degree is None:
        in_degree = in_degrees(ranked)
    probes = np.zeros(ranked.n_vertices, dtype=np.int64)
    with parallel(ranked.n_edges):
        _kernels().apex_probes(ranked.indptr, ranked.indices, in_degree, probes)
    return probes
