"""Pick the array module (NumPy or CuPy) an array belongs to, without importing CuPy."""

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
