"""Launcher of ``kernels/directed.cu``: directed cycles, feed-forward loops and triad codes.

Counts: the same as :mod:`tricount.cpu.directed`, per vertex (cycles, and
times as source, middle and sink of a feed-forward loop) and the histogram of
the 64 arc codes of the triangles. Input: a degree-oriented COO+CSR of CuPy
arrays and the mask of every entry relative to its orientation. A group of
lanes takes each oriented edge u -> v, binary-searches the shorter out-list in
the longer, and for every common out-neighbour c reads the three masks and
credits the corners; a triangle a < b < c is found only from a -> b.
"""

from __future__ import annotations

import numpy as np

from tricount.gpu._triangles import (BLOCK_SIZE, GROUP_SIZE, default_defines,
                                     get_triangle_kernel, launch_edge_range)
from tricount.gpu.device import cupy, kernel_arrays

__all__ = ["directed_triangles_gpu"]

#: The ``#ifndef`` defaults of ``kernels/directed.cu`` (tests/gpu/test_kernel_defines.py).
DEFAULT_DEFINES = default_defines("directed")

#: 6 arc bits per triangle (``TC_N_CODES`` in the kernel).
N_CODES = 64


def directed_triangles_gpu(oriented, omask, *, per_vertex: bool = True,
                           block_size: int = BLOCK_SIZE, group_size: int = GROUP_SIZE):
    """``(counts, codes)`` as CuPy int64 arrays: ``(4, n)`` per-vertex counts (zeros when
    ``per_vertex`` is False) and the 64-entry code histogram."""
    cp = cupy()
    n = oriented.n_vertices
    counts = cp.zeros(4 * n, dtype=cp.uint64)
    codes = cp.zeros(N_CODES, dtype=cp.uint64)
    if oriented.n_edges:
        indptr, rows, cols, vertex = kernel_arrays(oriented)
        kernel = get_triangle_kernel("directed", "tc_directed", oriented, block_size=block_size,
                                     group_size=group_size, vertex_t=vertex)
        omask = cp.ascontiguousarray(omask, dtype=cp.uint8)
        target = counts if per_vertex else np.uint64(0)  # null: codes only
        launch_edge_range(kernel, oriented.n_edges,
                          (indptr, rows, cols, omask, np.int64(oriented.n_edges), np.int64(n),
                           target, codes),
                          block_size=block_size, group_size=group_size)
    return counts.view(cp.int64).reshape(4, n), codes.view(cp.int64)
