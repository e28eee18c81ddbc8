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

Small work runs on the calling thread: inside :func:`on_calling_thread`,
:func:`run_chunked` calls the kernel's *serial twin* (:func:`serial_twin`: the
same Python source compiled without ``parallel=True``, so its ``prange`` is a
plain loop) with one worker. Entering a parallel region costs about 0.1 ms even
with one thread, and a bitmap count enters six: karate's count took 0.66 ms, 0.15 ms
on the calling thread (2-core machine, 2026-11-26;
:data:`tricount._threads.SERIAL_MAX_EDGES` says where the threads start to win).
"""

from __future__ import annotations

import contextlib
import threading
import types

import numpy as np

from tricount._threads import SERIAL_TWIN_SUFFIX, load_numba, parallel_region
from tricount.prep._atomic import atomic_add

numba = load_numba()  # Numba, started without its BLAS probe (tricount._threads)

__all__ = ["claim", "claimed_chunks", "run_chunked", "n_workers", "insertion_sort",
           "on_calling_thread", "serial_twin"]

_CALLING_THREAD = threading.local()
#: The twins made in this process, by (module, qualified name): what serial_twin keeps and
#: tricount.backends.facts reads to tell a twin compiled in memory.
TWINS: dict = {}


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
    """The ``prange`` iterations of a chunked kernel: Numba's thread count (one inside
    :func:`on_calling_thread`)."""
    return 1 if getattr(_CALLING_THREAD, "active", False) else numba.get_num_threads()


@contextlib.contextmanager
def on_calling_thread(active: bool = True):
    """While active, :func:`run_chunked` in this thread runs each kernel's serial twin on
    the calling thread, with no parallel region (nested: active if any level is)."""
    before = getattr(_CALLING_THREAD, "active", False)
    _CALLING_THREAD.active = before or bool(active)
    try:
        yield
    finally:
        _CALLING_THREAD.active = before


def serial_twin(kernel):
    """``kernel`` (a ``parallel=True`` Numba kernel) compiled without ``parallel``: the same
    source, a plain loop for its ``prange``. Cached on disk apart from the parallel
    kernel (its own qualified name: Numba's cache files are named by it)."""
    source = getattr(kernel, "py_func", None)
    if source is None:  # NUMBA_DISABLE_JIT: already plain Python
        return kernel
    key = (source.__module__, source.__qualname__ + SERIAL_TWIN_SUFFIX)
    twin = TWINS.get(key)
    if twin is None:
        copy = types.FunctionType(source.__code__, source.__globals__, source.__name__,
                                  source.__defaults__, source.__closure__)
        copy.__module__, copy.__qualname__, copy.__doc__ = *key, source.__doc__
        twin = TWINS.setdefault(key, numba.njit(nogil=True, cache=True)(copy))
    return twin


def run_chunked(kernel, *args):
    """``kernel(*args, cursor, workers)`` in one parallel region, with a fresh cursor (one
    int64: the chunks claimed so far) and :func:`n_workers` workers; inside
    :func:`on_calling_thread`, its serial twin with one worker and no region."""
    cursor = np.zeros(1, dtype=np.int64)
    if getattr(_CALLING_THREAD, "active", False):
        return serial_twin(kernel)(*args, cursor, n_workers())
    with parallel_region():
        return kernel(*args, cursor, n_workers())
