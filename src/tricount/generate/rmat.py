"""R-MAT / Kronecker edge lists with graph500 parameters, the same on NumPy and CuPy.

Edge i picks, at each of ``scale`` levels, one quadrant of the adjacency
matrix with probabilities a, b, c, d = 1 - a - b - c, using the counter-based
draws of :mod:`tricount.generate._hash` (draw number i * scale + level). Vertex
ids are then permuted by a seeded random permutation, as graph500 does, so that
id order carries no degree information. The output is the raw directed edge
list: it holds self-loops and repeated edges, which graph construction drops.
"""

from __future__ import annotations

import numpy as np

from tricount.errors import InvalidArgumentError
from tricount.generate._common import check_int, check_probability
from tricount.generate._hash import splitmix64, stream_key, uniform

#: graph500 initiator probabilities.
GRAPH500_A, GRAPH500_B, GRAPH500_C = 0.57, 0.19, 0.19
#: Edges generated per batch, bounding temporary memory to a few hundred MB.
BATCH_EDGES = 1 << 22

_EDGE_STREAM, _PERMUTATION_STREAM = 1, 2


def rmat_name(scale: int, edge_factor: int, seed: int) -> str:
    return f"rmat-s{scale}-ef{edge_factor}-seed{seed}"


def rmat(scale: int, edge_factor: int = 16, *, seed: int = 1, a: float = GRAPH500_A,
         b: float = GRAPH500_B, c: float = GRAPH500_C, permute: bool = True, xp=np):
    """Generate an R-MAT edge list as ``(src, dst)`` int64 arrays.

    Parameters
    ----------
    scale : int
        The graph has ``2**scale`` vertex ids.
    edge_factor : int
        ``edge_factor * 2**scale`` edges are drawn (before loops and repeats
        are dropped by graph construction).
    seed : int
        Same seed, same graph, on NumPy and on CuPy (``xp=cupy``).
    a, b, c : float
        Quadrant probabilities (graph500: 0.57, 0.19, 0.19; d = 1 - a - b - c).
    permute : bool
        Relabel vertices by a seeded random permutation (graph500 does).

    Examples
    --------
    >>> src, dst = rmat(4, 2, seed=1)
    >>> src.shape, int(src.max()) < 16
    ((32,), True)
    """
    scale = check_int("scale", scale, high=40)
    edge_factor = check_int("edge_factor", edge_factor)
    seed = check_int("seed", seed, low=None)
    a, b, c = (check_probability(name, p) for name, p in (("a", a), ("b", b), ("c", c)))
    if a + b + c > 1:
        raise InvalidArgumentError(f"a + b + c must be at most 1, got {a} + {b} + {c}")
    n_edges = edge_factor << scale
    src = xp.empty(n_edges, dtype=xp.int64)
    dst = xp.empty(n_edges, dtype=xp.int64)
    key = stream_key(seed, _EDGE_STREAM)
    ab, abc = a + b, a + b + c
    for start in range(0, n_edges, BATCH_EDGES):
        stop = min(start + BATCH_EDGES, n_edges)
        edge = xp.arange(start, stop, dtype=xp.uint64) * xp.uint64(max(scale, 1))
        s = xp.zeros(stop - start, dtype=xp.int64)
        d = xp.zeros(stop - start, dtype=xp.int64)
        for level in range(scale):
            r = uniform(edge + xp.uint64(level), key, xp)
            s |= (r >= ab).astype(xp.int64) << level
            d |= (((r >= a) & (r < ab)) | (r >= abc)).astype(xp.int64) << level
        src[start:stop] = s
        dst[start:stop] = d
    if permute and scale > 0:
        label = random_permutation(1 << scale, seed, xp)
        src, dst = label[src], label[dst]
    return src, dst


def random_permutation(n: int, seed: int, xp=np):
    """A seeded permutation of ``0 .. n-1``, identical on NumPy and CuPy.

    Sorts distinct keys: a random high part with the index in the low bits,
    so there are no ties for the sort to break.
    """
    bits = max(int(n - 1).bit_length(), 1)
    index = xp.arange(n, dtype=xp.uint64)
    high = splitmix64(index, stream_key(seed, _PERMUTATION_STREAM), xp) >> xp.uint64(bits)
    order = xp.argsort((high << xp.uint64(bits)) | index)
    label = xp.empty(n, dtype=xp.int64)
    label[order] = xp.arange(n, dtype=xp.int64)
    return label
