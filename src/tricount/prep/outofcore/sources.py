"""What a bounded build reads: ``(src, dst)`` chunks, twice.

:class:`ArrayChunks` slices arrays into views; :func:`two_pass` turns any other
source (a list, a callable returning a fresh iterator, a one-pass iterator kept
on its first pass) into something the build can iterate twice.
"""

from __future__ import annotations

import numpy as np

from tricount.errors import InvalidEdgesError, TricountError, check_count
from tricount.prep.outofcore.memory import gib
from tricount.prep.xp import array_namespace

__all__ = ["ArrayChunks", "two_pass", "DEFAULT_CHUNK_EDGES"]

#: Lines per chunk read from arrays: 2^22 lines are 32 MB of keys, a few ms of work.
DEFAULT_CHUNK_EDGES = 1 << 22


class ArrayChunks:
    """``(src, dst)`` arrays (NumPy or CuPy) read as slices of ``chunk_edges`` lines.

    The slices are views: an array too large to copy is never copied whole. Each
    pass over the object reads it again.
    """

    def __init__(self, src, dst, chunk_edges: int = DEFAULT_CHUNK_EDGES):
        if array_namespace(src, dst) is np:
            src, dst = np.asarray(src), np.asarray(dst)
        if src.ndim != 1 or dst.ndim != 1:
            raise InvalidEdgesError(
                f"edge arrays must be one-dimensional, got shapes {src.shape} and {dst.shape}")
        if src.shape[0] != dst.shape[0]:
            raise InvalidEdgesError(
                f"src and dst must have the same length, got {src.shape[0]} and {dst.shape[0]}")
        self.src, self.dst = src, dst
        self.chunk_edges = check_count(chunk_edges, "chunk_edges", minimum=1)
        self.n_lines = int(src.shape[0])

    def __iter__(self):
        for a in range(0, self.n_lines, self.chunk_edges):
            yield self.src[a: a + self.chunk_edges], self.dst[a: a + self.chunk_edges]


class _Calls:
    """A callable returning a fresh iterator of chunks, called once per pass."""

    def __init__(self, make):
        self._make = make

    def __iter__(self):
        return iter(self._make())


class _Replay:
    """A one-pass iterator of chunks, kept (copied) on its first pass for the second."""

    def __init__(self, iterator, budget: int):
        self._first, self._kept, self._budget = iterator, [], budget

    def __iter__(self):
        if self._first is None:
            yield from self._kept
            return
        held = 0
        for s, d in self._first:
            xp = array_namespace(s, d)
            s, d = xp.array(s), xp.array(d)
            held += s.nbytes + d.nbytes
            if held > self._budget:
                raise TricountError(
                    f"a one-pass iterator of edge chunks is read twice by the bounded build, "
                    f"and its chunks passed the {gib(self._budget)} it may keep; pass an "
                    "object that can be iterated twice (a list, ArrayChunks, a generator's "
                    "chunk source)")
            self._kept.append((s, d))
            yield s, d
        self._first = None


def two_pass(source, budget: int):
    """``source`` as something iterated twice."""
    if callable(source) and not hasattr(source, "__iter__"):
        return _Calls(source)
    if iter(source) is source:  # a generator or another one-pass iterator
        return _Replay(source, budget)
    return source
