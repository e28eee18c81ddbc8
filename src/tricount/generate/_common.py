"""Helpers shared by the generators: argument checks and pair unranking.

Everything here is integer arithmetic written once against ``xp`` (NumPy or
CuPy), so a generator that uses it gives bit-identical arrays on both.
"""

from __future__ import annotations

import numpy as np

from tricount.errors import (BackendUnavailableError, InvalidArgumentError,
                             UnsupportedGraphError, check_count, import_failure)


def check_int(name: str, value, *, low: int | None = 0, high: int | None = None) -> int:
    """``value`` as a Python int in ``[low, high]`` (None: unbounded), or
    :class:`~tricount.InvalidArgumentError` naming it."""
    value = check_count(value, name, minimum=None)
    if (low is not None and value < low) or (high is not None and value > high):
        bound = (f"{low} .. {high}" if low is not None and high is not None
                 else f">= {low}" if low is not None else f"<= {high}")
        raise InvalidArgumentError(f"{name} must be {bound}, got {value}")
    return value


#: The most edge lines any generator makes: 2**44, graph500's largest class (R-MAT scale
#: 40, edge factor 16); 256 TiB as int64 pairs. A request past it is refused with its size
#: (NumPy's own refusal of an array past 2**63 bytes was a traceback).
MAX_LINES = 1 << 44


def check_lines(lines: int, what: str, xp=np) -> int:
    """``lines`` (edges a generator is asked for), or an error before anything is allocated:
    :class:`~tricount.InvalidArgumentError` past :data:`MAX_LINES`, and
    :class:`~tricount.UnsupportedGraphError` when the host's available memory cannot hold
    the edge arrays themselves (16 bytes a line). A host that overcommits memory let NumPy
    allocate 91 TiB and would have been killed filling it; CuPy's pool refuses at once."""
    if lines > MAX_LINES:
        raise InvalidArgumentError(f"{what} has {lines:,} edges; a generator makes at most "
                                   f"2**44 = {MAX_LINES:,} (graph500's largest class)")
    if xp is np:
        from tricount.prep.outofcore.memory import available_memory, gib

        avail = available_memory()
        if avail is not None and 16 * lines > avail:
            raise UnsupportedGraphError(
                f"out of memory: {what} has {lines:,} edges, whose arrays alone need "
                f"{gib(16 * lines)} and {gib(avail)} is available; generate a smaller graph "
                "(R-MAT to a .tcsr is built in bounded memory)")
    return lines


def check_probability(name: str, value) -> float:
    """``value`` as a float in ``[0, 1]``, or :class:`~tricount.InvalidArgumentError` naming it."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"{name} must be a number in [0, 1], got {value!r}") from None
    if not 0.0 <= value <= 1.0:
        raise InvalidArgumentError(f"{name} must be in [0, 1], got {value}")
    return value


def n_pairs(n: int) -> int:
    """Unordered pairs of distinct vertices among ``n``: C(n, 2)."""
    return n * (n - 1) // 2


def unrank_pairs(rank, xp=np):
    """Map pair ranks to ``(lo, hi)`` int64 arrays with ``lo < hi``.

    Pairs are ranked in colex order: ``rank = hi * (hi - 1) / 2 + lo``, so
    ranks ``0 .. C(n, 2) - 1`` are exactly the pairs of ``0 .. n-1``. ``hi`` is
    first estimated with a float square root, then corrected with exact integer
    comparisons until ``T(hi) <= rank < T(hi + 1)``; the result is therefore the
    exact integer on any device, whatever the square root rounds to.
    """
    rank = rank.astype(xp.uint64)
    # estimate: hi = floor((1 + sqrt(1 + 8 rank)) / 2); float64 handles ranks past 2**53
    est = xp.floor((1.0 + xp.sqrt(1.0 + 8.0 * rank.astype(xp.float64))) / 2.0)
    hi = xp.maximum(est, 1.0).astype(xp.uint64)
    one, two = xp.uint64(1), xp.uint64(2)
    while True:  # the estimate is off by at most one or two; loop until exact
        too_big = hi * (hi - one) // two > rank
        too_small = (hi + one) * hi // two <= rank
        if not bool(too_big.any()) and not bool(too_small.any()):
            break
        hi = hi - too_big.astype(xp.uint64) + too_small.astype(xp.uint64)
    lo = rank - hi * (hi - one) // two
    return lo.astype(xp.int64), hi.astype(xp.int64)


def check_xp(xp):
    """The array module a generator draws with: NumPy or CuPy, given as the module or its
    name (``"numpy"``, ``"cupy"``)."""
    if isinstance(xp, str) and xp in ("numpy", "cupy"):
        if xp == "numpy":
            return np
        try:
            import cupy
        except ImportError as exc:
            raise BackendUnavailableError(f"xp='cupy' needs CuPy: "
                                          f"{import_failure(exc, 'CuPy', 'cupy')} (pip install "
                                          "\".[cuda13]\" from a tricount clone)") from None
        return cupy
    if getattr(xp, "__name__", None) in ("numpy", "cupy"):
        return xp
    raise InvalidArgumentError(f"xp must be numpy or cupy (the module or its name), got {xp!r}")
