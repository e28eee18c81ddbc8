"""Launcher of ``kernels/edge_support.cu``: the triangles on every edge on the GPU.

Counts: ``support[e]``, the triangles containing edge e, indexed by position
in the oriented CSR (sums to 3 × the triangles). Input: an oriented COO+CSR
with CuPy arrays, degree orientation. A group of lanes takes each oriented
edge u -> v and binary-searches the shorter out-list in the longer; a common
out-neighbour c credits u -> c and v -> c at the positions where it was found,
and u -> v once with the number found. A triangle a < b < c is found only from
a -> b. The caller maps positions to the graph's edge order.
"""

from __future__ import annotations

from tricount.gpu._local import LocalKernel
from tricount.gpu.per_vertex import PER_VERTEX_BLOCK_SIZE, PER_VERTEX_GROUP_SIZE

__all__ = ["edge_support_counts", "EDGE_SUPPORT_BLOCK_SIZE", "EDGE_SUPPORT_GROUP_SIZE"]

#: The per-vertex kernel's schedule, not measured apart.
EDGE_SUPPORT_BLOCK_SIZE, EDGE_SUPPORT_GROUP_SIZE = PER_VERTEX_BLOCK_SIZE, PER_VERTEX_GROUP_SIZE
KERNEL = LocalKernel("edge_support", "tc_edge_support", per_edge=True,
                     block_size=EDGE_SUPPORT_BLOCK_SIZE, group_size=EDGE_SUPPORT_GROUP_SIZE)


def edge_support_counts(oriented, **launch):
    """Support of every edge of an oriented CSR (CuPy int64 array, by position); ``launch``
    as :func:`~tricount.gpu.per_vertex.per_vertex_counts` takes it."""
    return KERNEL.counts(oriented, **launch)


#: The file's ``#ifndef`` defaults.
DEFAULT_DEFINES = KERNEL.default_defines
