"""Raw edge arrays -> the undirected simple graph, written once for NumPy and CuPy.

Input: two equal-length arrays of non-negative vertex ids (any order, one or both
directions, self-loops, repeated edges). Output: every undirected edge once, as
``lo < hi`` in compact ids ``0 .. n-1``, sorted by ``(lo, hi)``, plus the map
back to the original ids and how many self-loops and duplicates were dropped.

The one expensive step is a single sort of 64-bit keys
``((lo * n + hi) << 1) | reversed`` over the non-loop input edges (packed by shifts,
``lo << (b + 1) | hi << 1 | reversed`` with ``b`` the bits of ``n - 1``, while
``2b + 1 <= 63``, in 32 bits while ``2b + 1 <= 32``: the same order without a multiply
or a division, :func:`tricount.prep.orient.pair_keys`): distinct full
keys are the distinct directed edges, distinct keys with the low bit shifted out
are the distinct undirected edges. ``duplicates_dropped`` counts input edges that
repeat a directed edge already seen; listing an edge in both directions is the
normal way to write an undirected graph and is not counted as a duplicate.
On the GPU a fused twin (registered in :mod:`tricount.prep.accel`) returns the
same arrays from the same sort with fewer passes around it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tricount.errors import InvalidEdgesError, UnsupportedGraphError, check_count
from tricount.prep.accel import lookup
from tricount.prep.orient import pair_keys, split_keys
from tricount.prep.xp import array_namespace, index_dtype

MAX_INT64 = np.iinfo(np.int64).max
# Keys pack (lo * n + hi) << 1 into 64 bits: n * n * 2 must stay below 2**64.
MAX_VERTICES = 3_037_000_499
# Use a presence array instead of a sort to compact ids when max id is at most
# this many times the number of endpoints (memory stays O(m)).
DENSE_ID_FACTOR = 4


@dataclass(frozen=True)
class CanonicalEdges:
    """Each undirected edge once, ``lo < hi``, sorted; ids compact."""

    lo: object
    hi: object
    vertex_ids: object  # vertex_ids[i] is the original id of compact vertex i
    n_vertices: int
    self_loops_dropped: int
    duplicates_dropped: int


@dataclass(frozen=True)
class UpperCSRBuild:
    """What the builders of parsed chunks return (:func:`upper_csr_of_chunks`,
    :func:`tricount.prep.build.build_upper_csr`): the arguments of
    :meth:`tricount.CSRGraph.from_upper_csr` (which wraps it as a graph)."""

    indptr: np.ndarray
    indices: np.ndarray
    n_vertices: int
    vertex_ids: np.ndarray
    self_loops_dropped: int
    duplicates_dropped: int


def validate_edge_arrays(src, dst):
    """Check edge endpoint arrays and convert them to one integer type of the same namespace.

    Ids are any integers in ``0 .. 2**64-1``: both arrays come back as int64,
    or as uint64 when an id is above 2**63-1 (ids are compacted, so their size
    costs nothing later). Floating-point ids must be whole and below 2**63.
    Raises :class:`InvalidEdgesError` for mismatched lengths, non-1-D input,
    non-numeric or boolean values, negative or larger ids, and fractions: a
    value is never truncated or wrapped.
    """
    xp = array_namespace(src, dst)
    src = xp.asarray(src) if xp is not np else _as_numpy(src, "src")
    dst = xp.asarray(dst) if xp is not np else _as_numpy(dst, "dst")
    if src.ndim != 1 or dst.ndim != 1:
        raise InvalidEdgesError(
            f"edge arrays must be one-dimensional, got shapes {src.shape} and {dst.shape}"
        )
    if src.shape[0] != dst.shape[0]:
        raise InvalidEdgesError(
            f"src and dst must have the same length, got {src.shape[0]} and {dst.shape[0]}"
        )
    src, dst = _to_ids(src, "src", xp), _to_ids(dst, "dst", xp)
    if src.dtype != dst.dtype:  # one holds ids above 2**63-1: both unsigned (all are >= 0)
        src, dst = src.astype(xp.uint64), dst.astype(xp.uint64)
    return src, dst


def _as_numpy(a, name):
    """``a`` as a NumPy array whose dtype holds every value exactly (see :func:`_exact_ids`)."""
    try:
        arr = np.asarray(a)
    except (OverflowError, ValueError, TypeError) as exc:
        raise InvalidEdgesError(f"{name} is not an array of vertex ids: {exc}") from None
    if arr.ndim != 1:
        return arr  # refused by the caller
    if arr.dtype == object:
        return _exact_ids(arr.tolist(), name)
    if arr.dtype.kind == "f" and not isinstance(a, np.ndarray):
        return _exact_ids(list(a), name)  # NumPy reads Python ints past 2**63 as floats
    return arr


def _exact_ids(values: list, name):
    """An array of Python values: int64 or uint64 when every value is an integer (or a
    whole float beside an integer past 2**53: converted value by value, :func:`_whole`),
    else NumPy's own reading (floats are checked for fractions by :func:`_to_ids`)."""
    if any(isinstance(v, (bool, np.bool_)) for v in values):
        raise InvalidEdgesError(f"{name} must hold integer vertex ids, got a boolean")
    ints = [isinstance(v, (int, np.integer)) for v in values]
    if all(ints):
        return _integer_array(values, name)
    # NumPy reads a list of numbers holding a float as float64, which rounds an integer
    # past 2**53 (2**53 + 1 became 2**53: two vertices one).
    if any(i and abs(int(v)) >= 2**53 for i, v in zip(ints, values)):
        return _integer_array([_whole(v, name) for v in values], name)
    arr = np.asarray(values)
    if arr.dtype.kind not in "if":
        raise InvalidEdgesError(f"{name} holds values that are not vertex ids in 0 .. 2**64-1")
    return arr


def _integer_array(values: list, name):
    """Python integers as int64, else uint64 (ids past 2**63 - 1), else refused."""
    for dtype in (np.int64, np.uint64):
        try:
            return np.array(values, dtype=dtype)
        except OverflowError:
            continue
    raise InvalidEdgesError(f"{name} holds values that are not vertex ids in 0 .. 2**64-1")


def _whole(value, name) -> int:
    """A list's value as an exact integer id: an integer as is, a whole float converted."""
    if isinstance(value, (int, np.integer)):
        return int(value)
    if not isinstance(value, (float, np.floating)):
        raise InvalidEdgesError(f"{name} holds values that are not vertex ids in 0 .. 2**64-1")
    if not np.isfinite(value):
        raise InvalidEdgesError(f"{name} holds NaN or infinite values; expected integer ids")
    if value != np.floor(value):
        raise InvalidEdgesError(
            f"{name} holds a fractional vertex id ({float(value)}); expected whole numbers")
    return int(value)


def _to_ids(a, name, xp):
    """int64 ids, or uint64 when some id needs the 64th bit; refuse anything inexact."""
    kind = a.dtype.kind
    if a.size == 0:
        return a.astype(xp.int64)
    if kind == "b" or kind not in "iuf":
        raise InvalidEdgesError(
            f"{name} must hold integer vertex ids, got dtype {a.dtype}"
        )
    if kind == "f":
        if not bool(xp.isfinite(a).all()):
            raise InvalidEdgesError(f"{name} holds NaN or infinite values; expected integer ids")
        if bool((a != xp.floor(a)).any()):
            bad = float(a[a != xp.floor(a)][0])
            raise InvalidEdgesError(
                f"{name} holds a fractional vertex id ({bad}); expected whole numbers"
            )
        if bool((a < 0).any()):
            raise InvalidEdgesError(f"{name} holds a negative vertex id ({float(a.min())})")
        # Past 2**(mantissa bits + 1) a float skips integers: an id there may be another
        # id rounded (float64(2**53 + 1) is 2**53), so two vertices would count as one.
        # (float128's 2**64 is past what int64 holds: 2**63 bounds it.)
        exact = min(2 ** (int(np.finfo(a.dtype).nmant) + 1), 2**63)
        if bool((a >= exact).any()):
            raise InvalidEdgesError(
                f"{name} holds a floating-point vertex id of 2**{exact.bit_length() - 1} or "
                f"more ({float(a.max()):.17g}); {a.dtype} ids are read only below it "
                "(past it floats skip integers, or pass int64's end): pass the ids as "
                "integers (int64 or uint64)")
        return a.astype(xp.int64)
    if kind == "u":
        if a.dtype.itemsize == 8 and int(a.max()) > MAX_INT64:
            return a
        return a.astype(xp.int64)
    lowest = int(a.min())  # one reduction, no temporary mask
    if lowest < 0:
        raise InvalidEdgesError(f"{name} holds a negative vertex id ({lowest})")
    return a.astype(xp.int64, copy=False)


def compact_ids(src, dst):
    """Map the ids that occur to ``0 .. n-1`` in increasing original order.

    Returns ``(vertex_ids, src_compact, dst_compact)``: the ids that occur, sorted, in the
    input's dtype (int64 or uint64), and the compact ids as int64.
    """
    xp = array_namespace(src, dst)
    if src.shape[0] == 0:
        empty = xp.zeros(0, dtype=xp.int64)
        return empty, empty, empty
    max_id = int(max(int(src.max()), int(dst.max())))
    if max_id < DENSE_ID_FACTOR * 2 * src.shape[0] + 1024:
        present = xp.zeros(max_id + 1, dtype=xp.bool_)
        present[src] = True
        present[dst] = True
        vertex_ids = xp.flatnonzero(present).astype(xp.int64)
        if vertex_ids.shape[0] == max_id + 1:  # already compact: identity map
            return vertex_ids, src, dst
        new_id = xp.cumsum(present, dtype=xp.int64) - 1
        return vertex_ids, new_id[src], new_id[dst]
    ends = xp.concatenate([src, dst])
    order = xp.argsort(ends)
    ends_sorted = ends[order]
    first = xp.ones(ends_sorted.shape[0], dtype=xp.bool_)
    first[1:] = ends_sorted[1:] != ends_sorted[:-1]
    vertex_ids = ends_sorted[first]
    rank_sorted = xp.cumsum(first, dtype=xp.int64) - 1
    compact = xp.empty_like(rank_sorted)
    compact[order] = rank_sorted
    m = src.shape[0]
    return vertex_ids, compact[:m], compact[m:]


def check_vertex_range(src, dst, n_vertices: int) -> None:
    """Raise :class:`InvalidEdgesError` when an endpoint is not below ``n_vertices``."""
    if src.shape[0]:
        top = int(max(int(src.max()), int(dst.max())))
        if top >= n_vertices:
            raise InvalidEdgesError(
                f"edge endpoint {top} is out of range for a graph of {n_vertices} vertices")


def check_vertex_count(n: int) -> None:
    """Raise :class:`UnsupportedGraphError` when ``n`` vertices cannot be packed in keys."""
    if n > MAX_VERTICES:
        raise UnsupportedGraphError(
            f"graph has {n} distinct vertices; at most {MAX_VERTICES} are supported"
        )


def canonical_edges(src, dst, *, n_vertices: int | None = None,
                    fused: bool = True) -> CanonicalEdges:
    """Build the undirected simple graph of an edge list (see module doc).

    ``src`` and ``dst`` must already be validated (:func:`validate_edge_arrays`: int64, or
    uint64 for ids past 2**63-1; NumPy or CuPy).
    With ``n_vertices`` the ids are taken as already compact: the graph has
    exactly the vertices ``0 .. n_vertices-1``, isolated ones included. On
    arrays whose namespace has a registered twin (:mod:`tricount.prep.accel`)
    the twin computes the same result unless ``fused`` is False.
    """
    xp = array_namespace(src, dst)
    if n_vertices is not None:
        n_vertices = check_count(n_vertices, "n_vertices")
    # The twins take int64 ids; uint64 ids (past 2**63-1) take the portable path.
    twin = lookup(xp, "canonical_edges") if fused and src.dtype == xp.int64 else None
    if twin is not None:
        canon = twin(src, dst, n_vertices=n_vertices)
        if canon is not None:
            return canon
    loop = src == dst
    n_loops = int(xp.count_nonzero(loop))
    if n_vertices is None:
        vertex_ids, src_c, dst_c = compact_ids(src, dst)
    else:
        check_vertex_range(src, dst, n_vertices)
        vertex_ids, src_c, dst_c = xp.arange(n_vertices, dtype=xp.int64), src, dst
    n = int(vertex_ids.shape[0])
    check_vertex_count(n)
    if n_loops:
        keep = ~loop
        src_c, dst_c = src_c[keep], dst_c[keep]
    n_lines = int(src_c.shape[0])
    idx = index_dtype(n)
    if n_lines == 0:
        empty = xp.zeros(0, dtype=idx)
        return CanonicalEdges(empty, empty, vertex_ids, n, n_loops, 0)
    # Keys (lo, hi, direction) packed by shifts where they fit (pair_keys).
    key = pair_keys(xp.minimum(src_c, dst_c), xp.maximum(src_c, dst_c), n, low_bits=1)
    key |= (src_c > dst_c).astype(key.dtype)
    key = xp.sort(key)
    n_directed = 1 + int(xp.count_nonzero(key[1:] != key[:-1]))
    pair = key >> key.dtype.type(1)
    del key
    lo, hi = split_keys(pair[_firsts(xp, pair)], n, idx)
    return CanonicalEdges(lo, hi, vertex_ids, n, n_loops, n_lines - n_directed)


def _firsts(xp, sorted_keys):
    """True where a sorted key differs from the one before it (and at 0)."""
    first = xp.empty(sorted_keys.shape[0], dtype=xp.bool_)
    first[:1] = True
    xp.not_equal(sorted_keys[1:], sorted_keys[:-1], out=first[1:])
    return first


def concatenate(chunks):
    """All ``(src, dst)`` chunks as two int64 arrays."""
    if not chunks:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return (np.concatenate([s for s, _ in chunks]).astype(np.int64, copy=False),
            np.concatenate([d for _, d in chunks]).astype(np.int64, copy=False))


def upper_csr_of_chunks(chunks, *, max_id: int, n_vertices: int | None = None,
                        id_base: int = 0, loops_dropped: int = 0,
                        duplicates_dropped: int = 0) -> UpperCSRBuild:
    """:func:`tricount.prep.build.build_upper_csr`'s graph, array for array, with NumPy alone.

    The chunks (NumPy ``(src, dst)`` id arrays; the list is emptied) are joined
    and canonicalised by :func:`canonical_edges` (one sort of 64-bit keys), so
    nothing is compiled: the builder of a first run's small input. It holds
    every line at once (40-100 bytes a line), where ``build_upper_csr`` holds 12.
    ``max_id`` is not needed (the signature is ``build_upper_csr``'s).
    """
    from tricount.prep.orient import row_starts

    src, dst = concatenate(chunks)
    chunks.clear()
    if n_vertices is not None and id_base:
        src -= id_base  # owned: a concatenation is a new array
        dst -= id_base
    canon = canonical_edges(src, dst, n_vertices=n_vertices, fused=False)
    del src, dst
    n = canon.n_vertices
    indptr = row_starts(canon.lo, n)  # canon.lo is sorted
    vertex_ids = canon.vertex_ids if n_vertices is None else \
        np.arange(id_base, id_base + n, dtype=np.int64)
    return UpperCSRBuild(indptr, canon.hi, n, vertex_ids,
                         canon.self_loops_dropped + loops_dropped,
                         canon.duplicates_dropped + duplicates_dropped)
