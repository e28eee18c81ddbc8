"""The Numba loop behind :func:`tricount.prep.upper.coo_rows` on the CPU."""

from __future__ import annotations

import numba
from numba import prange


@numba.njit(parallel=True, nogil=True, cache=True)
def fill_rows(indptr, rows):
    """``rows[j] = r`` for every ``j`` in ``indptr[r] .. indptr[r+1]`` (rows in parallel)."""
    for r in prange(indptr.shape[0] - 1):
        for j in range(indptr[r], indptr[r + 1]):
            rows[j] = r
