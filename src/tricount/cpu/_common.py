"""What every CPU kernel shares: the chunk size, and the chunk cursor of :mod:`tricount.prep._parallel`.

Each kernel's ``prange`` runs one iteration per worker, and a worker claims the
next chunk of items from a shared atomic cursor until none is left (Numba's own
dynamic scheduling works only on its TBB layer; :mod:`tricount.prep._parallel`
says why and shows the pattern). The cursor lives in ``prep`` because the
preparation's CPU loops use it too.
"""

from __future__ import annotations

from tricount._threads import load_numba
from tricount.prep._parallel import claim, n_workers, run_chunked

numba = load_numba()  # Numba, started without its BLAS probe (tricount._threads)

__all__ = ["CHUNK_VERTICES", "claim", "run_chunked", "n_workers", "next_common"]

#: Vertices per chunk in the vertex-parallel kernels: small, so that a few heavy rows of a
#: skewed graph cannot hold back the end of a count. A chosen default; for the bitmap
#: count's first and placing passes, chunks of 16 or 4 vertices or of equal edges were no
#: faster on the H100 host's 16 threads (benchmarks/results/cpu_vs_gapbs_16_h100.md,
#: 2026-11-27).
CHUNK_VERTICES = 64


@numba.njit(inline="always")
def next_common(indices, a, a_end, b, b_end):
    """The two-pointer merge of the sorted runs ``indices[a:a_end]`` and
    ``indices[b:b_end]``, advanced to their next common id: ``(a, b)`` with
    ``indices[a] == indices[b]``, or ``(a_end, b)`` when none is left."""
    while a < a_end and b < b_end:
        x = indices[a]
        y = indices[b]
        if x == y:
            return a, b
        if x < y:
            a += 1
        else:
            b += 1
    return a_end, b
