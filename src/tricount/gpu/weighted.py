"""Launcher of ``kernels/weighted.cu``: per-vertex sums over triangles of edge-factor products.

Computes the same S(x) as :mod:`tricount.cpu.weighted`: for every vertex, the
sum over its triangles of the product of the three edge factors (cube roots
of normalised weights for NetworkX's weighted clustering). Input: a
degree-oriented COO+CSR of CuPy arrays and the factor of every entry. A group
of lanes takes each oriented edge u -> v, binary-searches the shorter out-list
in the longer, and adds each found triangle's term to its three corners; a
triangle a < b < c is found only from a -> b.
"""

from __future__ import annotations

import numpy as np

from tricount.gpu._triangles import (BLOCK_SIZE, GROUP_SIZE, default_defines,
                                     get_triangle_kernel, launch_edge_range)
from tricount.gpu.device import cupy, kernel_arrays

__all__ = ["weighted_triangle_sums_gpu"]

#: The ``#ifndef`` defaults of ``kernels/weighted.cu`` (tests/gpu/test_kernel_defines.py).
DEFAULT_DEFINES = default_defines("weighted")


def weighted_triangle_sums_gpu(oriented, ow, *, block_size: int = BLOCK_SIZE,
                               group_size: int = GROUP_SIZE):
    """S(x) for every vertex (CuPy float64, by compact id), entry factors ``ow``."""
    cp = cupy()
    sums = cp.zeros(oriented.n_vertices, dtype=cp.float64)
    if oriented.n_edges:
        indptr, rows, cols, vertex = kernel_arrays(oriented)
        kernel = get_triangle_kernel("weighted", "tc_weighted", oriented, block_size=block_size,
                                     group_size=group_size, vertex_t=vertex)
        launch_edge_range(kernel, oriented.n_edges,
                          (indptr, rows, cols, cp.ascontiguousarray(ow, dtype=cp.float64),
                           np.int64(oriented.n_edges), sums),
                          block_size=block_size, group_size=group_size)
    return sums
