"""Edge ids for the per-edge and truss kernels, written once for NumPy and CuPy.

The public results are aligned with ``graph.edges()``: undirected edge ``i`` is
``(lo[i], hi[i])``, sorted by ``(lo, hi)``. Kernels see the edges in other
orders (the degree-oriented CSR, the symmetric CSR), so each order comes with
the id of every entry in ``graph.edges()``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tricount.prep.xp import array_namespace, to_host

__all__ = ["edge_keys", "oriented_edge_ids", "oriented_values", "oriented_mask", "Adjacency",
           "adjacency_with_edge_ids", "edge_id_dtype"]


def edge_keys(lo, hi, n_vertices: int):
    """``lo * n + hi`` as uint64: increasing in ``(lo, hi)``, unique per edge."""
    xp = array_namespace(lo, hi)
    return lo.astype(xp.uint64) * xp.uint64(n_vertices) + hi.astype(xp.uint64)


def edge_id_dtype(n_edges: int, xp):
    """int32 while every edge id fits (the CUDA kernels' ``TC_EDGE_T``), else int64."""
    return xp.int32 if n_edges < 2**31 else xp.int64


def oriented_edge_ids(graph, oriented):
    """For each entry of an oriented CSR of ``graph``, its index in ``graph.edges()``."""
    xp = graph.xp
    lo, hi = graph.edges()
    rows, cols = oriented.rows, oriented.indices
    # graph.edges() is sorted by (lo, hi), so its keys are sorted: search them.
    keys = edge_keys(lo, hi, graph.n_vertices)
    return xp.searchsorted(keys, edge_keys(xp.minimum(rows, cols), xp.maximum(rows, cols),
                                           graph.n_vertices))


def _in(xp, a):
    """``a`` as an array of ``xp`` (copied between host and device when it must be)."""
    return to_host(a) if xp is np else xp.asarray(a)


def oriented_values(graph, oriented, values):
    """``values`` (one per edge of ``graph.edges()``) taken at every entry of ``oriented``,
    in the graph's namespace."""
    return _in(graph.xp, values)[oriented_edge_ids(graph, oriented)]


def oriented_mask(graph, oriented, mask):
    """A direction mask per edge of ``graph.edges()`` (bit 0: the arc lo -> hi, bit 1:
    hi -> lo) as the mask of every entry of ``oriented``, relative to the entry: bit 0
    the arc row -> column, bit 1 column -> row (uint8, the graph's namespace)."""
    xp = graph.xp
    mask = oriented_values(graph, oriented, mask)
    flipped = oriented.rows > oriented.indices  # the entry runs hi -> lo
    swapped = ((mask & 1) << 1) | (mask >> 1)
    return xp.where(flipped, swapped, mask).astype(xp.uint8)


@dataclass(frozen=True)
class Adjacency:
    """The symmetric CSR (rows sorted) with the undirected edge id of every entry.

    ``indptr`` is int64; ``cols`` has the graph's index type; ``eid[p]`` is the
    index in ``graph.edges()`` of the edge stored at position ``p`` (each edge
    appears twice, once in each endpoint's row).
    """

    indptr: object
    cols: object
    eid: object


def adjacency_with_edge_ids(graph) -> Adjacency:
    """Build :class:`Adjacency` with one argsort of the 2m directed keys."""
    xp = graph.xp
    lo, hi = graph.edges()
    n, m = graph.n_vertices, graph.n_edges
    keys = xp.concatenate([edge_keys(lo, hi, n), edge_keys(hi, lo, n)])
    # Entries k and k + m are the two directions of edge k: the sort order,
    # taken modulo m, is the edge id of every sorted entry.
    order = xp.argsort(keys)
    keys = keys[order]
    rows = (keys // xp.uint64(n)).astype(lo.dtype)
    cols = (keys % xp.uint64(n)).astype(lo.dtype)
    del keys
    eid = (order % m).astype(edge_id_dtype(m, xp)) if m else order.astype(xp.int32)
    indptr = xp.zeros(n + 1, dtype=xp.int64)
    if m:
        xp.cumsum(xp.bincount(rows, minlength=n), out=indptr[1:])
    return Adjacency(indptr, cols, eid)
