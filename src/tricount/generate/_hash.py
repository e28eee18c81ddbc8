"""Counter-based random numbers that NumPy and CuPy compute bit for bit alike.

A stream is a 64-bit seed; the i-th draw is splitmix64(seed_key + i). Only
64-bit integer arithmetic (wrapping) and an exact conversion to float64 are
used, so the same seed gives the same numbers on the CPU and the GPU.
"""

from __future__ import annotations

import numpy as np

_GOLDEN = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB
_MASK64 = (1 << 64) - 1


def splitmix64_scalar(x: int) -> int:
    """One splitmix64 step on a Python int (used to derive stream keys)."""
    z = (x + _GOLDEN) & _MASK64
    z = ((z ^ (z >> 30)) * _MIX1) & _MASK64
    z = ((z ^ (z >> 27)) * _MIX2) & _MASK64
    return z ^ (z >> 31)


def stream_key(seed: int, stream: int) -> int:
    """A 64-bit key for an independent stream ``stream`` of ``seed`` (``0 .. 2**64 - 1``:
    any other int wrapped onto one of those, -1 giving 2**64 - 1's graph under another
    name, so every generator's seed is checked here)."""
    from tricount.generate._common import check_int

    seed = check_int("seed", seed, high=_MASK64)
    return splitmix64_scalar(splitmix64_scalar(seed) ^ (stream * _GOLDEN & _MASK64))


def splitmix64(counter, key: int, xp=np):
    """splitmix64 of ``key + counter`` for a uint64 array ``counter``."""
    z = counter + xp.uint64((key + _GOLDEN) & _MASK64)
    z = (z ^ (z >> xp.uint64(30))) * xp.uint64(_MIX1)
    z = (z ^ (z >> xp.uint64(27))) * xp.uint64(_MIX2)
    return z ^ (z >> xp.uint64(31))


def uniform(counter, key: int, xp=np):
    """Uniform float64 in [0, 1) from the top 53 bits of each draw (exact)."""
    return (splitmix64(counter, key, xp) >> xp.uint64(11)).astype(xp.float64) * (2.0 ** -53)


def below(counter, key: int, bound, xp=np):
    """Integers in ``[0, bound)`` (uint64), as ``splitmix64 % bound``.

    Integer-only, so NumPy and CuPy agree. The modulo bias is below
    ``bound / 2**64`` (under 1e-9 for every bound below 2**34: Barabási–Albert's
    and Watts–Strogatz's bounds are vertex counts), far under any statistic a
    benchmark graph is judged by; G(n, m)'s bound, C(n, 2), nears 2**62, and it
    skips the uneven tail instead (:func:`~tricount.generate.erdos_renyi.first_distinct`).
    """
    return splitmix64(counter, key, xp) % bound


def bernoulli(counter, key: int, p: float, xp=np):
    """Booleans that are True with probability ``p``, compared as integers.

    The draw's top 53 bits are compared with ``round(p * 2**53)``, an exact
    integer, so no floating-point rounding can differ between NumPy and CuPy.
    """
    threshold = int(round(float(p) * (1 << 53)))
    return (splitmix64(counter, key, xp) >> xp.uint64(11)) < xp.uint64(threshold)
