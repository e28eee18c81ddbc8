"""Pick the array module (NumPy or CuPy) an array belongs to, without importing CuPy; the few
array helpers written once for both.

CuPy's ``nonzero`` family and ``cupyx.empty_pinned`` import ``cupyx``, which imports SciPy:
0.33-0.48 s of a process's first GPU count on an H100 host (device run 68, 2026-11-26:
``flatnonzero``'s first call 0.33-0.44 s, its second 0.4 ms). :func:`flatnonzero` and
:func:`pinned_empty` give the same arrays without that import.
"""

from __future__ import annotations

import numpy as np


def array_namespace(*arrays):
    """Return ``cupy`` if any argument is a CuPy array, else ``numpy``.

    CuPy is looked up through the array's type module, so this never imports
    CuPy for NumPy inputs.
    """
    for a in arrays:
        module = type(a).__module__
        if module.startswith("cupy"):
            import cupy

            return cupy
    return np


def flatnonzero(a):
    """``numpy.flatnonzero(a)`` for a NumPy or CuPy array; on the GPU by the preparation's
    own compaction (:func:`tricount.gpu.prepare.keys.positions`, found through
    :mod:`tricount.prep.accel`), which imports neither cupyx nor SciPy."""
    xp = array_namespace(a)
    if xp is not np:
        from tricount.prep.accel import lookup

        twin = lookup(xp, "flatnonzero")
        if twin is not None:
            return twin(a)
    return xp.flatnonzero(a)


def pinned_empty(cupy, count: int, dtype) -> np.ndarray:
    """A NumPy array of ``count`` elements of ``dtype`` in page-locked host memory from
    CuPy's pinned pool (what ``cupyx.empty_pinned`` returns, without importing cupyx)."""
    dtype = np.dtype(dtype)
    memory = cupy.cuda.alloc_pinned_memory(max(1, int(count)) * dtype.itemsize)
    return np.ndarray((int(count),), dtype=dtype, buffer=memory)


def to_host(a):
    """Return a NumPy copy of ``a`` (no copy when it already is one)."""
    if isinstance(a, np.ndarray):
        return a
    get = getattr(a, "get", None)
    return get() if get is not None else np.asarray(a)


def index_dtype(n_vertices: int):
    """Column-index type: int32 while every compact id fits, else int64."""
    return np.int32 if n_vertices <= np.iinfo(np.int32).max else np.int64


def bits_for(value: int) -> int:
    """Bits to hold every integer in 0 .. value (at least 1)."""
    return max(1, int(value).bit_length())
