"""What every CPU kernel shares: work handed out in chunks through one atomic cursor.

Numba's own ``parallel_chunksize`` (OpenMP-style dynamic scheduling) is honoured
only by its TBB layer (numba/numba#8284): on the OpenMP and workqueue layers a
``prange`` over the vertices is split into one equal range per thread, and on a
skewed graph whose heavy vertices sit together one thread does most of the
work (K_1500 in id order: 2 threads no faster than 1, measured 2026-11-25 on the
2-core development machine). So each kernel's ``prange`` runs one iteration per
worker, and a worker claims the next chunk of items from a shared cursor until
none is left, whatever the layer:

    cursor = new_cursor()
    for worker in numba.prange(n_workers()):
        begin, end = claim(cursor, n_items, CHUNK)
        while begin < n_items:
            for item in range(begin, end):
                ...
            begin, end = claim(cursor, n_items, CHUNK)

A worker's scratch (a bitmap row, say) is indexed by ``worker``: no two
iterations of one ``prange`` run at once with the same index.
"""

from __future__ import annotations

import numba
import numpy as np

from tricount.cpu._atomic import atomic_add

__all__ = ["claim", "new_cursor", "n_workers"]


@numba.njit(inline="always")
def claim(cursor, n_items, chunk):
    """The next chunk ``[begin, end)`` of ``0 .. n_items``; ``begin >= n_items`` when none is left."""
    begin = atomic_add(cursor, 0, 1) * chunk
    return begin, min(begin + chunk, n_items)


def new_cursor() -> np.ndarray:
    """A fresh cursor (one int64, 0): the chunks claimed so far."""
    return np.zeros(1, dtype=np.int64)


def n_workers() -> int:
    """The ``prange`` iterations of a chunked kernel: Numba's thread count."""
    return numba.get_num_threads()
