"""Erdős–Rényi G(n, m): exactly ``m`` distinct edges, uniform over all such graphs.

Every unordered pair of distinct vertices has a rank in ``0 .. C(n, 2) - 1``
(colex order, :func:`~tricount.generate._common.unrank_pairs`). The generator
reads an endless stream of ranks, draw i being ``splitmix64(key + i) % C(n, 2)``
(a draw at or past the largest multiple of C(n, 2) below 2**64 skipped, so that
every rank is equally likely), and keeps the first ``m`` *distinct* ones, in
draw order: that is sequential sampling without replacement, so every m-subset
of pairs is equally likely. The stream is
read in parallel: draw a block, sort (rank, draw index) pairs, keep each rank's
first draw, and draw a longer block if fewer than ``m`` ranks were distinct. The
answer depends only on the stream, not on the block size.

When ``m`` exceeds half of ``C(n, 2)`` the same procedure picks the
``C(n, 2) - m`` pairs to leave *out*, which bounds the draws by about 1.4 times
the pairs picked. There are no self-loops and no repeated edges; vertices with
no edge may exist, and are then absent from a graph built from the edge list
unless ``n_vertices=n`` is passed to :meth:`~tricount.CSRGraph.from_edges`.
"""

from __future__ import annotations

import math

import numpy as np

from tricount.errors import InvalidArgumentError
from tricount.generate._common import check_int, check_lines, check_xp, n_pairs, unrank_pairs
from tricount.generate._hash import splitmix64, stream_key
from tricount.prep.canonical import MAX_VERTICES

_RANK_STREAM = 11
#: Spare draws on top of the expected number, so one block nearly always suffices.
DRAW_SLACK = 1.05


def erdos_renyi(n: int, m: int, *, seed: int = 1, xp=np):
    """Generate a uniform random graph with ``n`` vertices and exactly ``m`` edges.

    Parameters
    ----------
    n : int
        Vertex ids ``0 .. n-1`` (at most 3,037,000,499).
    m : int
        Distinct undirected edges, at most ``n * (n - 1) / 2``.
    seed : int
        Same seed, same graph, on NumPy and on CuPy (``xp=cupy``).

    Returns
    -------
    (src, dst) : int64 arrays of length ``m``
        Each edge once with ``src < dst``; no loops, no repeats.

    Examples
    --------
    >>> src, dst = erdos_renyi(10, 45, seed=3)   # every pair: K10
    >>> len(set(zip(src.tolist(), dst.tolist()))), bool((src < dst).all())
    (45, True)
    >>> import tricount
    >>> tricount.count_triangles((src, dst), backend="cpu")  # C(10, 3)
    120
    """
    xp = check_xp(xp)
    n = check_int("n", n, high=MAX_VERTICES)
    pairs = n_pairs(n)
    m = check_int("m", m)
    if m > pairs:
        raise InvalidArgumentError(
            f"G(n, m) with n = {n} has at most {pairs} edges, got m = {m}; lower m or raise n"
        )
    # 16 bytes a kept edge bound the dense case's byte a pair too (pairs < 2 m there).
    check_lines(m, f"G(n={n}, m={m})", xp)
    key = stream_key(seed, _RANK_STREAM)
    if 2 * m <= pairs:
        ranks = first_distinct(m, pairs, key, xp)
    else:
        # Dense: choose the pairs to leave out, keep the rest in rank order.
        keep = xp.ones(pairs, dtype=xp.bool_)
        keep[first_distinct(pairs - m, pairs, key, xp).astype(xp.int64)] = False
        ranks = xp.flatnonzero(keep).astype(xp.uint64)
    return unrank_pairs(ranks, xp)


def first_distinct(k: int, bound: int, key: int, xp=np):
    """The first ``k`` distinct values of the stream ``splitmix64(i, key) % bound``, in
    draw order, the draws in the modulo's uneven tail skipped.

    ``k`` must be at most ``bound / 2`` (the expected number of draws is then
    at most ``k * 2 ln 2``). Returns uint64.
    """
    if k == 0:
        return xp.zeros(0, dtype=xp.uint64)
    expected = bound * math.log(bound / (bound - k)) if k < bound else 2.0 * k
    draws = max(int(expected * DRAW_SLACK) + 64, k)
    # Draws at or past the largest multiple of ``bound`` that 64 bits hold are skipped: the
    # rest take every value equally often. (``splitmix64 % bound`` alone drew the first
    # 2**64 mod bound values 5/4 as often as the others when C(n, 2) neared 2**62: the
    # vertices above 2.35e9 of G(2.8e9, m) had 17 % fewer edges.)
    limit = (2**64 // bound) * bound  # 2**64 when bound divides it: nothing skipped
    while True:
        index = xp.arange(draws, dtype=xp.uint64)
        raw = splitmix64(index, key, xp)
        value = raw % xp.uint64(bound)
        if limit < 2**64:
            value[raw >= xp.uint64(limit)] = bound  # after every value: never first
        # (value, index) pairs are all distinct, so this order is unique: no
        # reliance on sort stability, which NumPy and CuPy need not share.
        order = xp.lexsort(xp.stack([index, value]))
        sorted_value = value[order]
        first = sorted_value < xp.uint64(bound)
        first[1:] &= sorted_value[1:] != sorted_value[:-1]
        first_index = xp.sort(index[order][first])
        if first_index.shape[0] >= k:
            return value[first_index[:k].astype(xp.int64)]
        draws *= 2
