"""The Numba loop behind :func:`tricount.prep.upper.coo_rows` on the CPU."""

from __future__ import annotations

from numba import prange

from tricount._threads import load_numba

numba = load_numba()  # Numba, started without its BLAS probe (tricount._threads)


@numba.njit(parallel=True, nogil=True, cache=True)
def fill_rows(indptr, rows):
    """``rows[j] = r`` for every ``j`` in ``indptr[r] .. indptr[r+1]`` (rows in parallel)."""
    for r in prange(indptr.shape[0] - 1):
        for j in range(indptr[r], indptr[r + 1]):
            rows[j] = r
