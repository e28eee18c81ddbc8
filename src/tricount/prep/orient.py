"""Degree orientation (Polak §II-B, the *forward* algorithm), for NumPy and CuPy.

Each undirected edge {u, v} is kept once, pointing from the end of lower degree
to the end of higher degree, ties broken by the smaller compact id. The order
(degree, id) is a strict total order, so every triangle {a, b, c} with
a < b < c in that order appears exactly once: as the edge a -> b with c in both
out-lists. Out-degrees are then at most sqrt(2m).

The result keeps the edge list as COO (``rows``, ``indices``) and CSR
(``indptr``) at once, as Pearson et al. do: edge-parallel kernels read ``rows``,
vertex-parallel kernels read ``indptr``. Rows are sorted by column id.
"""

from __future__ import annotations

from dataclasses import dataclass

from tricount._threads import numba_started
from tricount.prep.xp import array_namespace

#: :func:`orient_upper` orients a NumPy graph with the parallel counting sort of
#: :mod:`tricount.prep._orient_cpu` from this many edges, where NumPy's sort of
#: packed keys costs more than starting Numba (0.37 s of CPU) and loading the
#: loops; below it only when Numba has started in this process anyway and the
#: graph has at least ``PARALLEL_STARTED_MIN_EDGES``. R-MAT scale 18 (3.8 M
#: edges), 2-core development machine, 2026-11-25: 0.59 s with NumPy; see
#: benchmarks/results/cpu_vs_gapbs.md for the parallel pass.
PARALLEL_MIN_EDGES = 1 << 21
PARALLEL_STARTED_MIN_EDGES = 1 << 14


@dataclass(frozen=True)
class OrientedCSR:
    """A DAG of the graph's edges; each undirected edge stored once.

    ``indptr`` is int64 (length ``n_vertices + 1``), ``rows`` and ``indices``
    have the graph's index type; row ``u`` lists the out-neighbours of ``u``
    in increasing id order. ``order`` names the orientation ("degree" or "id").
    """

    indptr: object
    rows: object
    indices: object
    n_vertices: int
    n_edges: int
    max_out_degree: int
    order: str

    @property
    def xp(self):
        return array_namespace(self.indptr)


def degrees(lo, hi, n_vertices: int):
    """Degree of every vertex of a simple graph given as ``lo < hi`` pairs (int64)."""
    xp = array_namespace(lo, hi)
    deg = xp.bincount(lo, minlength=n_vertices).astype(xp.int64)
    deg += xp.bincount(hi, minlength=n_vertices)
    return deg


def row_starts(rows, n_vertices: int):
    """int64 offsets (``n_vertices + 1``) of each row in the sorted id array ``rows``.

    Row u starts where the first id >= u would be inserted: a binary search per
    row, faster than bincount + cumsum over the entries.
    """
    xp = array_namespace(rows)
    needle_dtype = rows.dtype if n_vertices < xp.iinfo(rows.dtype).max else xp.int64
    boundaries = xp.arange(n_vertices + 1, dtype=needle_dtype)
    return xp.searchsorted(rows, boundaries).astype(xp.int64)


#: The most vertices whose (degree, id) order one int64 key ``degree * n + id`` holds
#: (a simple graph's degrees are below n, so the key is below n * n <= 2**63 - 1).
KEY_MAX_VERTICES = 3_037_000_499


def degree_rank(deg, n_vertices: int, dtype):
    """``rank[v]``: the position of v in the order (degree, id), as ``dtype``."""
    xp = array_namespace(deg)
    n = n_vertices
    if n <= KEY_MAX_VERTICES:  # degree * n + id < n * n fits int64: one key
        order = xp.argsort(deg * n + xp.arange(n, dtype=xp.int64))
    else:  # a stable sort of the degrees keeps equal degrees in id order
        order = xp.argsort(deg, kind="stable")
    rank = xp.empty(n, dtype=dtype)
    rank[order] = xp.arange(n, dtype=dtype)
    return rank


def csr_from_sorted(rows, cols, n_vertices: int, order: str) -> OrientedCSR:
    """Wrap COO pairs already sorted by (row, col) as an :class:`OrientedCSR`."""
    xp = array_namespace(rows, cols)
    indptr = row_starts(rows, n_vertices)
    max_out = int(xp.diff(indptr).max()) if rows.shape[0] else 0
    return OrientedCSR(indptr, rows, cols, n_vertices, int(rows.shape[0]), max_out, order)


def orient_by_degree(lo, hi, n_vertices: int, deg=None) -> OrientedCSR:
    """Orient each edge from lower (degree, id) to higher; rows sorted by id."""
    xp = array_namespace(lo, hi)
    if deg is None:
        deg = degrees(lo, hi, n_vertices)
    # lo < hi, so on equal degrees the id tie-break keeps lo -> hi.
    forward = deg[lo] <= deg[hi]
    src = xp.where(forward, lo, hi)
    dst = xp.where(forward, hi, lo)
    del forward
    key = pair_keys(src, dst, n_vertices)
    del src, dst
    rows, cols = split_keys(xp.sort(key), n_vertices, lo.dtype)
    return csr_from_sorted(rows, cols, n_vertices, "degree")


def pair_keys(rows, cols, n_vertices: int, *, low_bits: int = 0):
    """Keys of ``(rows, cols)`` pairs (ids below ``n_vertices``) in (row, col) order, with
    ``low_bits`` zero bits below them for the caller's flags (the build's direction bit).

    Packed by shifts, ``(row << b | col) << low_bits`` with ``b`` the bits of ``n - 1``,
    where they fit 63 bits (uint32 keys where they fit 32), else ``(row * n + col) <<
    low_bits`` (uint64): the same order either way, the shifts without a multiply, and
    :func:`split_keys` then without a division or a remainder per pair (soc-Epinions1's
    orientation, 406 K pairs: 30 -> 21 ms; its build's key 9.5 -> 4.5 ms, 2026-11-26).
    """
    xp = array_namespace(rows, cols)
    bits = _key_bits(n_vertices, low_bits)
    if bits is None:
        key = rows.astype(xp.uint64) * xp.uint64(n_vertices) + cols.astype(xp.uint64)
        return key << xp.uint64(low_bits) if low_bits else key
    # 32-bit keys where two ids fit them (graphs of up to 65,536 vertices, 32,768 with a
    # flag bit): half the bytes to sort (blogcatalog's orientation, 334 K pairs: 16 -> 11 ms,
    # 2026-11-26).
    key = rows.astype(xp.uint32 if 2 * bits + low_bits <= 32 else xp.int64) << bits
    key |= cols.astype(key.dtype, copy=False)
    if low_bits:
        key <<= low_bits
    return key


def split_keys(keys, n_vertices: int, dtype):
    """The ``(rows, cols)`` of :func:`pair_keys`' keys (their low bits shifted out), as
    ``dtype``."""
    bits = _key_bits(n_vertices)
    if bits is None:
        xp = array_namespace(keys)
        n = xp.uint64(n_vertices)
        return (keys // n).astype(dtype), (keys % n).astype(dtype)
    return (keys >> bits).astype(dtype), (keys & ((1 << bits) - 1)).astype(dtype)


def _key_bits(n_vertices: int, low_bits: int = 0):
    """Bits of a column in :func:`pair_keys`' shifted keys, or None where two of them and
    ``low_bits`` do not fit 63 (one more low bit never changes the answer: 2b is even)."""
    bits = max(1, (n_vertices - 1).bit_length())
    return bits if 2 * bits + low_bits <= 63 else None


def orient_upper(upper: OrientedCSR, deg, order: str = "degree", *,
                 parallel: bool | None = None) -> OrientedCSR:
    """:func:`orient_by_degree` (``order="degree"``) or :func:`orient_by_rank`
    (``order="rank"``) of a graph given as its upper (id-oriented) CSR.

    The same arrays either way. On NumPy, ``parallel`` (default: from the size, see
    :data:`PARALLEL_MIN_EDGES`) takes the parallel counting sort of
    :mod:`tricount.prep._orient_cpu`, whose result derives its COO rows only when
    they are read.
    """
    m = upper.n_edges
    if parallel is None:
        parallel = m >= PARALLEL_MIN_EDGES or (numba_started() and m >= PARALLEL_STARTED_MIN_EDGES)
    if parallel and array_namespace(upper.indptr).__name__ == "numpy":
        from tricount.prep import _orient_cpu  # Numba
        from tricount.prep.upper import LazyRowsCSR

        orient = (_orient_cpu.orient_upper_by_rank if order == "rank"
                  else _orient_cpu.orient_upper_by_degree)
        indptr, indices = orient(upper.indptr, upper.indices, deg)
        return LazyRowsCSR(indptr, indices, upper.n_vertices, order)
    by = orient_by_rank if order == "rank" else orient_by_degree
    return by(upper.rows, upper.indices, upper.n_vertices, deg)


def orient_by_id(lo, hi, n_vertices: int) -> OrientedCSR:
    """Keep each edge as lo -> hi (Pearson et al.'s upper-triangular COO+CSR)."""
    return csr_from_sorted(lo, hi, n_vertices, "id")


def orient_by_rank(lo, hi, n_vertices: int, deg=None) -> OrientedCSR:
    """Relabel every vertex by its (degree, id) rank, then orient each edge up the ranks.

    The DAG is :func:`orient_by_degree`'s with vertex v renamed rank(v), so
    every count is the same; what changes is the memory layout: vertices of
    equal degree sit together, and an out-list holds only larger ids
    (GroupTC's "rid" step). Vertex ids of the result are ranks, not the
    graph's ids: use it for totals, not for per-vertex results.
    """
    xp = array_namespace(lo, hi)
    if deg is None:
        deg = degrees(lo, hi, n_vertices)
    n = n_vertices
    rank = degree_rank(deg, n, lo.dtype)
    a, b = rank[lo], rank[hi]
    del rank
    key = pair_keys(xp.minimum(a, b), xp.maximum(a, b), n)
    del a, b
    rows, cols = split_keys(xp.sort(key), n, lo.dtype)
    return csr_from_sorted(rows, cols, n, "rank")
