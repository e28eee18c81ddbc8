"""Barabási–Albert preferential attachment, Batagelj–Brandes style, resolved in parallel.

The graph starts as a star on vertices ``0 .. m`` (hub 0; NetworkX's seed
graph). Each later vertex ``v = m+1 .. n-1`` then adds ``m`` edges ``(v, t)``;
each target ``t`` is the vertex at a uniformly random endpoint position of the
edges that existed before ``v`` arrived, so a vertex is chosen with chance
proportional to its degree (Batagelj & Brandes, "Efficient generation of large
random networks", Phys. Rev. E 71, 036113, 2005, algorithm for the BA model).

Endpoint positions: edge ``e`` has positions ``2e`` (its source) and ``2e + 1``
(its target). A generated edge's target copies the value at an earlier
position, which may itself be a copy: a forest of pointers that always point to
smaller positions. Instead of filling the positions one by one, all targets are
resolved at once by pointer doubling (``ptr = ptr[ptr]`` until every pointer
reaches a position that holds a vertex), O(m n log depth) work, the same on NumPy
and CuPy. Targets are always earlier vertices, so there are no self-loops; a
vertex that draws the same target twice gets a repeated edge, which graph
construction drops, so a late vertex has between 1 and ``m`` distinct earlier
neighbours (NetworkX redraws instead and always has exactly ``m``).
"""

from __future__ import annotations

import numpy as np

from tricount.generate._common import check_int, check_lines, check_xp
from tricount.generate._hash import below, stream_key
from tricount.prep.canonical import MAX_VERTICES

_TARGET_STREAM = 21


def barabasi_albert(n: int, m: int, *, seed: int = 1, xp=np):
    """Generate a preferential-attachment edge list (``m`` edges per new vertex).

    Parameters
    ----------
    n : int
        Vertices ``0 .. n-1``; ``n > m``.
    m : int
        Edges each new vertex adds (``m >= 1``).
    seed : int
        Same seed, same graph, on NumPy and on CuPy (``xp=cupy``).

    Returns
    -------
    (src, dst) : int64 arrays of length ``m * (n - m)``
        The ``m`` star edges ``(i, 0)``, then for each new vertex ``v`` its
        ``m`` edges ``(v, t)`` with ``t < v``. No self-loops; repeats possible.

    Examples
    --------
    With ``m = 1`` every new vertex hangs off one earlier vertex: a tree.

    >>> src, dst = barabasi_albert(6, 1, seed=1)
    >>> src.tolist(), bool((dst < src).all())
    ([1, 2, 3, 4, 5], True)
    >>> import tricount
    >>> tricount.count_triangles((src, dst), backend="cpu")
    0
    """
    xp = check_xp(xp)
    m = check_int("m", m, low=1)
    n = check_int("n", n, low=m + 1, high=MAX_VERTICES)
    n_edges = check_lines(m * (n - m), f"BA(n={n}, m={m})", xp)
    edge = xp.arange(n_edges, dtype=xp.int64)
    # Edges 0 .. m-1 are the star (i + 1, 0); edge e >= m belongs to vertex
    # v = m + 1 + (e - m) // m, which may copy any position below 2 * first(v).
    src = xp.where(edge < m, edge + 1, m + 1 + (edge - m) // m)
    first_edge_of_src = xp.where(edge < m, 0, m + (src - (m + 1)) * m)
    positions = xp.empty(2 * n_edges, dtype=xp.int64)
    positions[0::2] = src
    positions[1:2 * m:2] = 0  # star targets: the hub
    # ptr[p] == p: position p holds a vertex; otherwise it copies position ptr[p].
    ptr = xp.arange(2 * n_edges, dtype=xp.int64)
    generated = edge[m:]
    if generated.shape[0]:
        bound = (2 * first_edge_of_src[m:]).astype(xp.uint64)
        copy_from = below(generated.astype(xp.uint64), stream_key(seed, _TARGET_STREAM), bound, xp)
        ptr[2 * generated + 1] = copy_from.astype(xp.int64)
    while True:  # pointer doubling: every pointer strictly decreases, so this ends
        nxt = ptr[ptr]
        if not bool((nxt != ptr).any()):
            break
        ptr = nxt
    return src, positions[ptr[1::2]]
