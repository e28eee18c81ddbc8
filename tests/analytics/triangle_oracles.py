"""Naive oracles for the triangles-as-data tests, from Python sets and dense matrices.

Test modules import it by path (pytest runs with --import-mode=importlib).
Nothing here shares code with the kernels: triangles come from
:func:`tricount.reference.neighbour_sets`, directed counts from powers of the
dense adjacency matrix.
"""

from __future__ import annotations

import numpy as np

from tricount.reference import neighbour_sets


def triangle_set(src, dst) -> set:
    """Every triangle once, as a sorted tuple of original ids."""
    adj = neighbour_sets(src, dst)
    return {(u, v, w) for u in adj for v in adj[u] if v > u for w in adj[u] & adj[v] if w > v}


def rows_of(chunks) -> np.ndarray:
    """The chunks of a listing stacked into one ``(T, 3)`` array (``(0, 3)`` for none)."""
    chunks = list(chunks)
    return np.concatenate(chunks) if chunks else np.zeros((0, 3), dtype=np.int64)


def dense_arcs(src, dst, n) -> np.ndarray:
    """The 0/1 int64 adjacency matrix of the arcs among ``0 .. n-1``, loops dropped."""
    a = np.zeros((n, n), dtype=np.int64)
    a[np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)] = 1
    np.fill_diagonal(a, 0)
    return a


def directed_roles(a) -> dict:
    """Fagiolo's four patterns at each vertex from matrix powers of the arcs ``a``."""
    return {"cycles": np.diag(a @ a @ a), "sources": np.diag(a @ a @ a.T),
            "middles": np.diag(a @ a.T @ a), "sinks": np.diag(a.T @ a @ a)}
