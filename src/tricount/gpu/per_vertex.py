"""Launcher of ``kernels/per_vertex.cu``: the triangles at every vertex on the GPU.

Counts: ``per_vertex[x]``, the triangles containing x (sums to 3 × the
triangles). Input: an oriented COO+CSR with CuPy arrays, degree orientation.
A group of lanes takes each oriented edge u -> v, binary-searches the shorter
out-list in the longer, credits every common out-neighbour c as it is found
and u and v once with the number found; a triangle a < b < c is found only
from a -> b. The grid fills the device once and strides over the edges.
"""

from __future__ import annotations

from tricount.gpu._local import LocalKernel

__all__ = ["per_vertex_counts", "PER_VERTEX_BLOCK_SIZE", "PER_VERTEX_GROUP_SIZE"]

#: 256 threads per block: CuPy's and CUB's usual default; not tuned.
PER_VERTEX_BLOCK_SIZE = 256
#: Lanes per edge. Degree-oriented out-lists of R-MAT graphs are mostly short,
#: so a quarter warp; to be measured on the GPU suite (benchmarks/local_peers.py --gpu).
PER_VERTEX_GROUP_SIZE = 8
KERNEL = LocalKernel("per_vertex", "tc_per_vertex", per_edge=False,
                     block_size=PER_VERTEX_BLOCK_SIZE, group_size=PER_VERTEX_GROUP_SIZE)
DEFAULT_DEFINES = KERNEL.default_defines


def per_vertex_counts(oriented, **launch):
    """Triangles at every vertex of an oriented CSR (CuPy int64 array, by compact id).

    ``launch``: ``block_size``, ``group_size`` (lanes per edge) and ``grid_size``.
    """
    return KERNEL.counts(oriented, **launch)
