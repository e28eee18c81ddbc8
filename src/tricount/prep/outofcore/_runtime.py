"""The bounded build's Numba loops, loaded lazily, and the one parallel region they run in.

Importing :mod:`tricount.prep.outofcore` must not start Numba (``import
tricount`` stays light): :func:`kernels` imports :mod:`._kernels` at a bounded
build's first loop.
"""

from __future__ import annotations

import contextlib

__all__ = ["kernels", "threads", "parallel", "as_u64", "SERIAL_BELOW"]


def kernels():
    from tricount.prep.outofcore import _kernels  # Numba: loaded when a bounded build runs

    return _kernels


def threads() -> int:
    import numba

    return numba.get_num_threads()


#: A loop over fewer items than this runs on the calling thread: waking the pool costs
#: milliseconds on a busy machine (as partition.ranked.SERIAL_BELOW), a small loop microseconds.
SERIAL_BELOW = 1 << 16


@contextlib.contextmanager
def parallel(size: int):
    """Hold the process's one parallel region around a Numba loop over ``size`` items,
    run on this thread alone when it is small."""
    import numba

    from tricount._threads import parallel_region

    with parallel_region():
        before = numba.get_num_threads()
        if size < SERIAL_BELOW:
            numba.set_num_threads(1)  # this thread's setting only
        try:
            yield
        finally:
            numba.set_num_threads(before)


def as_u64(a, xp):
    """A validated id array (int64 or uint64) as uint64, without a copy."""
    return a.view(xp.uint64) if a.dtype == xp.int64 else a
