"""What every parallel Numba loop shares: work handed out in chunks through one atomic cursor.

Used by the CPU engine's kernels (:mod:`tricount.cpu`) and by the CPU loops of the
preparation (:mod:`tricount.prep._orient_cpu`); it lives here, on the lower floor.

Numba's own ``parallel_chunksize`` (OpenMP-style dynamic scheduling) is honoured
only by its TBB layer (numba/numba#8284): on the OpenMP and workqueue layers a
``prange`` over the vertices is split into one equal range per thread, and on a
skewed graph whose heavy vertices sit together one thread does most of the
work (K_1500 in id order: 2 threads no faster than 1, measured 2026-11-25 on the
2-core development machine). So each kernel's ``prange`` runs one iteration per
worker, and a worker claims the next chunk of items from a shared cursor until
none is left, whatever the layer:

    @numba.njit(parallel=True)
    def kernel(..., cursor, workers):
        for worker in numba.prange(workers):
            begin, end = claim(cursor, n_items, CHUNK)
            while begin < n_items:
                for item in range(begin, end):
                    ...
                begin, end = claim(cursor, n_items, CHUNK)

    run_chunked(kernel, ...)   # a fresh cursor, Numba's thread count, one parallel region

:func:`claimed_chunks` is that ``while`` loop written once, as a generator of the
worker's chunks; the kernels of :mod:`tricount.prep._orient_cpu` iterate it:

    for worker in numba.prange(workers):
        for begin, end in claimed_chunks(cursor, n_items, CHUNK):
            for item in range(begin, end):
                ...

It resumes once per chunk, and the item loop is the same; LLVM's code for the kernels
differs a little all the same (R-MAT 18, one thread, each pass against the loop written
out: from 6% faster to 4% slower, 2026-11-26).

A worker's scratch (a bitmap row, say) is indexed by ``worker``: no two
iterations of one ``prange`` run at once with the same index.
"""

from __future__ import annotations

import numpy as np

from tricount._threads import load_numba
from tricount._threads import parallel_region
from tricount.prep._atomic import atomic_add

numba = load_numba()  # Numba, started without its BLAS probe (tricount._threads)

__all__ = ["claim", "claimed_chunks", "run_chunked", "n_workers", "insertion_sort"]


@numba.njit(inline="always")
def claim(cursor, n_items, chunk):
    """The next chunk ``[begin, end)`` of ``0 .. n_items``; ``begin >= n_items`` when none is left."""
    begin = atomic_add(cursor, 0, 1) * chunk
    return begin, min(begin + chunk, n_items)


@numba.njit(nogil=True)
def claimed_chunks(cursor, n_items, chunk):
    """Yield the chunks ``(begin, end)`` of ``0 .. n_items`` that this worker claims from
    ``cursor``, one at a time, until none is left."""
    begin, end = claim(cursor, n_items, chunk)
    while begin < n_items:
        yield begin, end
        begin, end = claim(cursor, n_items, chunk)


@numba.njit(inline="always")
def insertion_sort(values, begin, end):
    """Sort ``values[begin:end]`` in place by insertion (short runs: few moves, no calls)."""
    for i in range(begin + 1, end):
        x = values[i]
        j = i - 1
        while j >= begin and values[j] > x:
            values[j + 1] = values[j]
            j -= 1
        values[j + 1] = x


def n_workers() -> int:
    """The ``prange`` iterations of a chunked kernel: Numba's thread count."""
    return numba.get_num_threads()


def run_chunked(kernel, *args):
    """``kernel(*args, cursor, workers)`` in one parallel region, with a fresh cursor (one
    int64: the chunks claimed so far) and :func:`n_workers` workers."""
    with parallel_region():
        return kernel(*args, np.zeros(1, dtype=np.int64), n_workers())
