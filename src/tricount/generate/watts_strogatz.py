"""Watts–Strogatz small worlds: a ring lattice with each edge's far end rewired with chance p.

The lattice joins every vertex ``u`` to ``u + 1 .. u + k/2`` (mod ``n``), so
each vertex has degree ``k``. Edge ``(u, u + j)`` is then rewired with
probability ``p``: its far end becomes a vertex drawn uniformly from the
``n - 1`` vertices other than ``u`` (Watts & Strogatz, Nature 393, 1998). Each
edge decides on its own, from the counter-based stream, so the whole graph is
drawn in parallel and identically on NumPy and CuPy. A rewired edge may land on
an existing one; the repeat is then dropped by graph construction (NetworkX
redraws instead), so the graph has at most ``n * k / 2`` edges.

With ``p = 0`` the lattice has ``n * h * (h - 1) / 2`` triangles for
``h = k / 2`` whenever ``n > 3h``: a triangle is ``u < u + i < u + i + j`` with
``i + j <= h``, and no triangle can wrap around the ring.
"""

from __future__ import annotations

import numpy as np

from tricount.errors import InvalidArgumentError
from tricount.generate._common import check_int, check_lines, check_probability, check_xp
from tricount.generate._hash import below, bernoulli, stream_key
from tricount.prep.canonical import MAX_VERTICES

_REWIRE_STREAM, _TARGET_STREAM = 31, 32


def watts_strogatz(n: int, k: int, p: float, *, seed: int = 1, xp=np):
    """Generate a Watts–Strogatz edge list.

    Parameters
    ----------
    n : int
        Vertices ``0 .. n-1`` on a ring.
    k : int
        Lattice degree: even, ``0 <= k < n``.
    p : float
        Chance that each lattice edge is rewired, in ``[0, 1]``.
    seed : int
        Same seed, same graph, on NumPy and on CuPy (``xp=cupy``).

    Returns
    -------
    (src, dst) : int64 arrays of length ``n * k / 2``
        Edge ``u * k/2 + (j - 1)`` starts at ``u``; no self-loops, repeats possible.

    Examples
    --------
    With ``p = 0`` the ring lattice with ``k = 4`` on 10 vertices has
    ``10 * 2 * 1 / 2 = 10`` triangles:

    >>> src, dst = watts_strogatz(10, 4, 0.0)
    >>> src.shape
    (20,)
    >>> import tricount
    >>> tricount.count_triangles((src, dst), backend="cpu")
    10
    """
    xp = check_xp(xp)
    n = check_int("n", n, high=MAX_VERTICES)
    k = check_int("k", k)
    p = check_probability("p", p)
    if k % 2 or (k and k >= n):
        raise InvalidArgumentError(f"k must be even and below n = {n}, got k = {k}")
    half = k // 2
    check_lines(n * half, f"WS(n={n}, k={k})", xp)
    edge = xp.arange(n * half, dtype=xp.int64)
    src = edge // max(half, 1)
    dst = (src + edge % max(half, 1) + 1) % max(n, 1)
    if p > 0 and edge.shape[0]:
        counter = edge.astype(xp.uint64)
        rewire = bernoulli(counter, stream_key(seed, _REWIRE_STREAM), p, xp)
        offset = below(counter, stream_key(seed, _TARGET_STREAM), xp.uint64(n - 1), xp)
        other = (src + 1 + offset.astype(xp.int64)) % n  # uniform over vertices != src
        dst = xp.where(rewire, other, dst)
    return src, dst
