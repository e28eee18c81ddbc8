"""Launcher of the wedge method: wedge-parallel counting over chunks of edges.

Counts: distinct triangles. Input: an oriented COO+CSR with CuPy arrays.
Each warp claims ``chunk`` consecutive edges at a time and its lanes walk
the wedges (u -> v, w in N+(v)) of 32 edges together, binary-searching each
w in N+(u): in a shared-memory copy of the chunk's anchor lists when they
fit ``span_slots``, else in global memory. When the orientation follows the
ids (``"rank"`` or ``"id"``), only the part of N+(u) after v is searched.

Two layouts of the same walk (the plan picks one, :class:`~tricount.gpu.plan.WedgeShape`):

- ``"csr"`` (``kernels/wedge.cu``): N+(v) read as 4-byte ids through
  indptr. No extra memory.
- ``"fingerprint"`` (``kernels/wedge_fp.cu``, :mod:`.fingerprints`): N+(v)
  read as aligned 16-bit fingerprints found through a meta word per edge,
  about half the DRAM traffic; a bitmap filter per anchor skips most
  searches, and a fingerprint match is confirmed on the full ids. Costs a
  layout pass (counting work, outside the timed launch) and about 2 bytes per
  padded entry plus 4 per edge. A chunk whose anchors have filters is walked
  a lane per edge (``lanes="edges"``): each lane tests its own edge's list 32
  fingerprints per step. The kernel then waits on DRAM: one list per edge at
  a random place, which the H100 serves at 23-32 G reads per second
  (``benchmarks/results/random_reads_h100.md``).

Made for flat graphs, whose out-lists are short (uniform random graphs,
meshes, road networks). On skewed graphs its work, Σ d+(v) over the edges, is
several times hash's Σ min(d+(u), d+(v)).
"""

from __future__ import annotations

import numpy as np

from tricount.gpu._module import get_kernel
from tricount.gpu.device import ceil_div, cupy, kernel_arrays, launch, read_count, resident_grid
from tricount.gpu.methods.fingerprints import fingerprint_lists
from tricount.gpu.plan import ID_ORDERED, GraphStats, WedgeShape

__all__ = ["count_wedge", "kernel_defines", "DEFAULT_DEFINES"]


def kernel_defines(shape: WedgeShape, *, vertex_t: str, edge_t: str, id_order: int,
                   len_bits: int = 8, meta_t: str = "unsigned int") -> dict:
    """Every define of ``kernels/wedge.cu`` (layout "csr") or ``kernels/wedge_fp.cu``
    (layout "fingerprint", with the layout's ``len_bits`` and ``meta_t``)."""
    defines = {"block_size": shape.block_size, "vertex_t": vertex_t, "edge_t": edge_t,
               "chunk": shape.chunk, "id_order": int(id_order), "unroll": shape.unroll,
               "min_blocks": shape.min_blocks, "span_slots": shape.span_slots}
    if shape.fingerprint:
        defines.update(align=shape.align, len_bits=len_bits, meta_t=meta_t,
                       filter_anchors=shape.filter_anchors, filter_bits=shape.filter_bits,
                       edge_lanes=int(shape.lanes == "edges"))
    return defines


def _default_defines(layout: str) -> dict:
    tiny = GraphStats(1, 1, 4, True, 1 << 40, max_out_degree=1)
    shape = WedgeShape(layout=layout).resolve(tiny)
    return kernel_defines(shape, vertex_t="int", edge_t="long long", id_order=0)


#: The files' ``#ifndef`` defaults: the plan's shape of each layout, general types
#: and any orientation.
DEFAULT_DEFINES = {"wedge": _default_defines("csr"), "wedge_fp": _default_defines("fingerprint")}


def count_wedge(oriented, shape: WedgeShape, timed) -> int:
    """Triangles of an oriented CSR; ``timed()`` wraps the launch."""
    cp = cupy()
    if oriented.n_edges == 0:
        return 0
    indptr, rows, cols, vertex = kernel_arrays(oriented)
    indptr = indptr.astype(cp.uint32 if shape.edge32 else cp.int64, copy=False)
    shared_bytes = shape.shared_bytes(cols.dtype.itemsize)
    block_size = shape.block_size
    types = dict(vertex_t=vertex, edge_t="unsigned int" if shape.edge32 else "long long",
                 id_order=int(oriented.order in ID_ORDERED))
    next_chunk = cp.zeros(1, dtype=cp.uint64)
    result = cp.zeros(1, dtype=cp.uint64)
    if shape.fingerprint:
        lists = fingerprint_lists(oriented, indptr, rows, cols, align=shape.align,
                                  defines=lambda **layout: kernel_defines(shape, **types, **layout))
        kernel = get_kernel("wedge_fp", "tc_wedge_fp", kernel_defines(
            shape, **types, len_bits=lists.len_bits, meta_t=lists.meta_type))
        args = (indptr, rows, cols, lists.fp, lists.meta, np.int32(lists.shift),
                np.int64(oriented.n_edges), next_chunk, result)
    else:
        kernel = get_kernel("wedge", "tc_wedge", kernel_defines(shape, **types))
        args = (indptr, rows, cols, np.int64(oriented.n_edges), next_chunk, result)
    grid_size = shape.grid_size
    if grid_size is None:
        n_chunks = ceil_div(oriented.n_edges, shape.chunk)
        grid_size = resident_grid(kernel, block_size, shared_bytes,
                                  work_blocks=ceil_div(n_chunks, block_size // 32))
    with timed():
        launch(kernel, grid_size, block_size, args, shared_bytes)
    return read_count(result)
