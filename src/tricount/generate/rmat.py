"""R-MAT / Kronecker edge lists with graph500 parameters, the same on NumPy and CuPy.

Edge i picks, at each of ``scale`` levels, one quadrant of the adjacency
matrix with probabilities a, b, c, d = 1 - a - b - c, using the counter-based
draws of :mod:`tricount.generate._hash` (draw number i * scale + level). Vertex
ids are then permuted by a seeded random permutation, as graph500 does, so that
id order carries no degree information. The output is the raw directed edge
list: it holds self-loops and repeated edges, which graph construction drops.
Edge i depends on i alone, so any range of edges is generated on its own:
:func:`rmat_chunks` yields the same edges a chunk at a time.
"""

from __future__ import annotations

import numpy as np

from tricount.errors import InvalidArgumentError, TricountError
from tricount.generate._common import (MAX_LINES, check_int, check_lines, check_probability,
                                       check_xp)
from tricount.generate._hash import splitmix64, stream_key, uniform

#: graph500 initiator probabilities.
GRAPH500_A, GRAPH500_B, GRAPH500_C = 0.57, 0.19, 0.19
#: Edges generated per batch, bounding temporary memory to a few hundred MB.
BATCH_EDGES = 1 << 22
#: Edges per chunk of :func:`rmat_chunks`: 2^24 lines are 256 MB of int64 pairs, and
#: on the GPU few enough launches per level to keep it busy.
CHUNK_EDGES = 1 << 24

_EDGE_STREAM, _PERMUTATION_STREAM = 1, 2


def rmat_name(scale: int, edge_factor: int, seed: int) -> str:
    return f"rmat-s{scale}-ef{edge_factor}-seed{seed}"


#: Edges drawn at most (edge factor × 2**scale): graph500's largest class, scale 40 with edge
#: factor 16. Past it an edge's number times the scale overflows no counter yet, but no disk
#: holds the result; a request for 10**20 edges ran on without a word (a bounded build).


def _checked(scale, edge_factor, seed, a, b, c):
    """The arguments of :func:`rmat`, checked: ``(scale, edge_factor, seed, a, b, c)``."""
    scale = check_int("scale", scale, high=40)
    edge_factor = check_int("edge_factor", edge_factor)
    if edge_factor << scale > MAX_LINES:
        raise InvalidArgumentError(
            f"edge_factor {edge_factor} at scale {scale} asks for {edge_factor << scale:,} "
            f"edges; R-MAT draws at most 2**44 = {MAX_LINES:,} (graph500's largest class, "
            "scale 40 with edge factor 16)")
    seed = check_int("seed", seed, high=2**64 - 1)
    a, b, c = (check_probability(name, p) for name, p in (("a", a), ("b", b), ("c", c)))
    # d = 1 - a - b - c may be 0: 0.33 + 0.56 + 0.11 is 1.0000000000000002 in floats.
    if a + b + c > 1 + 1e-12:
        raise InvalidArgumentError(f"a + b + c must be at most 1, got {a} + {b} + {c}")
    return scale, edge_factor, seed, a, b, c


def _draw(start: int, stop: int, scale: int, key: int, a: float, b: float, c: float, xp):
    """Edges ``start .. stop-1`` before the permutation, as int64 ``(src, dst)``."""
    ab, abc = a + b, a + b + c
    edge = xp.arange(start, stop, dtype=xp.uint64) * xp.uint64(max(scale, 1))
    s = xp.zeros(stop - start, dtype=xp.int64)
    d = xp.zeros(stop - start, dtype=xp.int64)
    for level in range(scale):
        r = uniform(edge + xp.uint64(level), key, xp)
        s |= (r >= ab).astype(xp.int64) << level
        d |= (((r >= a) & (r < ab)) | (r >= abc)).astype(xp.int64) << level
    return s, d


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

    See :func:`rmat_chunks` for the same edges a chunk at a time.

    Examples
    --------
    >>> src, dst = rmat(4, 2, seed=1)
    >>> src.shape, int(src.max()) < 16
    ((32,), True)
    """
    xp = check_xp(xp)
    scale, edge_factor, seed, a, b, c = _checked(scale, edge_factor, seed, a, b, c)
    n_edges = check_lines(edge_factor << scale, f"R-MAT scale {scale}, edge factor "
                                                f"{edge_factor}", xp)
    src = xp.empty(n_edges, dtype=xp.int64)
    dst = xp.empty(n_edges, dtype=xp.int64)
    key = stream_key(seed, _EDGE_STREAM)
    for start in range(0, n_edges, BATCH_EDGES):
        stop = min(start + BATCH_EDGES, n_edges)
        src[start:stop], dst[start:stop] = _draw(start, stop, scale, key, a, b, c, xp)
    if permute and scale > 0:
        label = random_permutation(1 << scale, seed, xp)
        src, dst = label[src], label[dst]
    return src, dst


def _rmat_chunks(scale, edge_factor, seed, a, b, c, permute, chunk_edges, xp_name):
    return RmatChunks(scale, edge_factor, seed=seed, a=a, b=b, c=c, permute=permute,
                      chunk_edges=chunk_edges, xp=xp_name)


class RmatChunks:
    """The edges of :func:`rmat`, ``chunk_edges`` at a time, generated on demand.

    Each pass over the object generates the chunks again: draws are counter-based,
    so chunk ``i`` is the same every time and the chunks end to end are exactly
    :func:`rmat`'s arrays. Only one chunk (and the permutation, ``2**scale`` ids)
    is held at once. ``n_lines`` and ``max_id`` (a bound: ``2**scale - 1``) tell a
    consumer the sizes before the first chunk.
    """

    def __init__(self, scale: int, edge_factor: int = 16, *, seed: int = 1,
                 a: float = GRAPH500_A, b: float = GRAPH500_B, c: float = GRAPH500_C,
                 permute: bool = True, chunk_edges: int = CHUNK_EDGES, xp=np):
        self.scale, self.edge_factor, self.seed, self.a, self.b, self.c = _checked(
            scale, edge_factor, seed, a, b, c)
        self.permute = bool(permute)
        self.chunk_edges = check_int("chunk_edges", chunk_edges, low=1)
        self.xp = check_xp(xp)
        self.n_lines = self.edge_factor << self.scale
        self.max_id = (1 << self.scale) - 1

    def __reduce__(self):
        # By the array module's name: a module cannot be pickled (a process pool, deepcopy).
        return _rmat_chunks, (self.scale, self.edge_factor, self.seed, self.a, self.b, self.c,
                              self.permute, self.chunk_edges, self.xp.__name__)

    def __iter__(self):
        xp, scale = self.xp, self.scale
        key = stream_key(self.seed, _EDGE_STREAM)
        label = self._permutation() if self.permute and scale > 0 else None
        for start in range(0, self.n_lines, self.chunk_edges):
            stop = min(start + self.chunk_edges, self.n_lines)
            s, d = _draw(start, stop, scale, key, self.a, self.b, self.c, xp)
            yield (label[s], label[d]) if label is not None else (s, d)

    def _permutation(self):
        """The ids' seeded permutation (``2**scale`` int64 ids, held while chunks are drawn)."""
        n = 1 << self.scale
        try:
            return random_permutation(n, self.seed, self.xp)
        except MemoryError:  # CuPy's OutOfMemoryError too
            where = "host" if self.xp is np else "device"
            raise TricountError(
                f"R-MAT scale {self.scale}: the permutation of its 2**{self.scale} vertex ids "
                f"({8 * n / 2**30:,.1f} GiB, with as much again to draw it) does not fit in "
                f"{where} memory; choose a smaller scale, or no permutation (permute=False, "
                "--no-permute)") from None


def rmat_chunks(scale: int, edge_factor: int = 16, *, seed: int = 1, a: float = GRAPH500_A,
                b: float = GRAPH500_B, c: float = GRAPH500_C, permute: bool = True,
                chunk_edges: int = CHUNK_EDGES, xp=np) -> RmatChunks:
    """:func:`rmat`'s edges as a source of chunks (:class:`RmatChunks`), for a graph whose
    edge list is too large to hold: ``tricount.io.write_native_edges(path,
    rmat_chunks(28, xp=cupy))`` writes R-MAT 28 without its 69 GB of edges.

    >>> chunks = rmat_chunks(4, 2, seed=1, chunk_edges=10)
    >>> [int(s.shape[0]) for s, _ in chunks]
    [10, 10, 10, 2]
    """
    return RmatChunks(scale, edge_factor, seed=seed, a=a, b=b, c=c, permute=permute,
                      chunk_edges=chunk_edges, xp=xp)


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
