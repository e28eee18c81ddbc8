"""Launcher of the wedge method: wedge-parallel counting over chunks of edges.

Counts: distinct triangles. Input: an oriented COO+CSR with CuPy arrays.
Each warp claims ``chunk`` consecutive edges at a time and its lanes walk
the wedges (u -> v, w in N+(v)) of 32 edges together, binary-searching each
w in N+(u): in a shared-memory copy of the chunk's anchor lists when they
fit ``span_slots``, else in global memory. When the orientation follows the
ids (``"rank"`` or ``"id"``, the two the engine's default picks from), only
the part of N+(u) after v is searched.

Two layouts of the same walk:

- ``"csr"`` (``kernels/wedge.cu``): N+(v) read as 4-byte ids through
  indptr. No extra memory; ``count_s`` is the launch and the read-back.
- ``"fingerprint"`` (``kernels/wedge_fp.cu``, :mod:`tricount.gpu.fingerprints`):
  N+(v) read as aligned 16-bit fingerprints found through a meta word per
  edge, about half the DRAM traffic; a bitmap filter per anchor skips most
  searches, and a fingerprint match is confirmed on the full ids. Costs a
  layout pass (in ``count_s``) and about 2 bytes per padded entry plus 4 per
  edge. A chunk whose anchors have filters is walked a lane per edge
  (``lanes="edges"``, the default): each lane tests its own edge's list 32
  fingerprints per step, with 40 % fewer instructions than lanes walking the
  flattened wedges together (``lanes="wedges"``). The kernel then waits on
  DRAM: one list per edge at a random place, which the H100 serves at 23-32 G
  reads per second (``benchmarks/results/random_reads_h100.md``).
- ``"auto"`` (the default): fingerprints while the largest out-degree is at
  most :data:`FINGERPRINT_MAX_OUT_DEGREE`, else csr; csr also when the
  layout does not fit the free memory.

Made for flat graphs, whose out-lists are short (uniform random graphs,
meshes, road networks). On skewed graphs its work, Σ d+(v) over the edges, is
several times hash's Σ min(d+(u), d+(v)).

Tunables: ``layout``, ``chunk`` (edges per claim), ``span_slots`` (shared
slots per warp for the anchors' lists), ``unroll`` (wedge loads in flight per
lane; default by layout), ``min_blocks`` (resident blocks the compiler must
allow, which caps registers; default by layout and lanes), ``align``
(fingerprint lists start at multiples of this many entries),
``filter_anchors`` and ``filter_bits`` (filters for chunks of at most that
many anchors, that many bits each; 0 anchors: no filter), ``lanes``
(``"wedges"``: a filtered chunk's wedges walked by the warp's lanes together;
``"edges"``: a lane per edge over its own list), ``edge32`` (32-bit positions
in the kernel when they fit), ``block_size`` and ``grid_size``.
"""

from __future__ import annotations

import numpy as np

from tricount.errors import UnknownMethodError
from tricount.gpu._common import (KernelTimer, ceil_div, cupy, device_facts, kernel_arrays, launch,
                                  read_count, resident_grid)
from tricount.gpu._module import get_kernel
from tricount.gpu.fingerprints import fingerprint_lists, layout_fits

__all__ = ["count_wedge", "WEDGE_BLOCK_SIZE", "WEDGE_CHUNK", "WEDGE_SPAN_SLOTS", "WEDGE_UNROLL",
           "WEDGE_MIN_BLOCKS"]

WEDGE_BLOCK_SIZE = 256
#: Edges per claim: two batches of 32 per atomic (32: 20 % slower on the uniform
#: random graph, 128: 60 % slower; H100, benchmarks/gpu_notes.md).
WEDGE_CHUNK = 64
#: 256 slots (1 KiB) per warp hold a chunk of 64 edges plus the rest of its
#: anchors' lists while out-degrees stay below about 96.
WEDGE_SPAN_SLOTS = 256
#: Loads in flight per lane, plain layout (2: 6 % slower, 8: 50 % slower on the
#: uniform graph) and fingerprints (3: 10.47 ms; 4 spills registers at 8 blocks
#: per SM: 12.86 ms; 2: 11.82 ms; H100 run 56).
WEDGE_UNROLL = 4
WEDGE_FP_UNROLL = 3
#: Registers capped for 8 blocks of 256 per SM (64 warps): 3 % faster than 6.
WEDGE_MIN_BLOCKS = 8
#: "fingerprint" (kernels/wedge_fp.cu), "csr" (kernels/wedge.cu, no extra memory)
#: or "auto": fingerprints while the largest out-degree is at most
#: FINGERPRINT_MAX_OUT_DEGREE, so that nearly every chunk's anchors fit shared
#: memory. On the H100 (run 59) fingerprints took the uniform random graph from
#: 16.4 to 10.4 ms, but were slower on R-MAT (scale 21: 53.9 against 46.7 ms) and
#: on the skewed real graphs (ca-HepPh 0.314 against 0.256 ms), whose long lists
#: send chunks to the full-id path.
WEDGE_LAYOUT = "auto"
LAYOUTS = ("auto", "fingerprint", "csr")
FINGERPRINT_MAX_OUT_DEGREE = 64
#: With fingerprints, a chunk whose anchors are at most this many consecutive
#: vertices gets a filter per anchor: a bitmap of its fingerprints' low bits
#: (filter_bits each), tested before the binary search.
WEDGE_FILTER_ANCHORS = 8
WEDGE_FILTER_BITS = 2048
#: Who walks a filtered chunk's wedges (fingerprint layout): "wedges", the
#: warp's lanes together over the flattened lists, or "edges", a lane per edge
#: over its own list, 32 fingerprints per step: 40 % fewer instructions on the
#: uniform random graph, 9.56-9.74 ms against 10.47-10.48 with 6 blocks per SM
#: (its 39 registers; H100 runs 93-96).
WEDGE_LANES = "edges"
LANES = ("wedges", "edges")
WEDGE_EDGE_LANES_MIN_BLOCKS = 6
FILTER_BITS_CHOICES = tuple(2**k for k in range(5, 17))
#: Fingerprint lists start at multiples of 16 entries (32 bytes: one sector).
WEDGE_ALIGN = 16
#: Orientations whose order is the ids' (every edge u -> v has v > u).
ID_ORDERED = ("rank", "id")


def count_wedge(oriented, *, layout: str = WEDGE_LAYOUT, chunk: int = WEDGE_CHUNK,
                span_slots: int = WEDGE_SPAN_SLOTS, unroll: int | None = None,
                min_blocks: int | None = None, align: int = WEDGE_ALIGN,
                filter_anchors: int = WEDGE_FILTER_ANCHORS,
                filter_bits: int = WEDGE_FILTER_BITS, lanes: str = WEDGE_LANES,
                edge32: bool = True,
                block_size: int = WEDGE_BLOCK_SIZE, grid_size: int | None = None):
    """Triangles of an oriented CSR; returns ``(n_triangles, kernel_seconds)``."""
    cp = cupy()
    if layout not in LAYOUTS or chunk < 1 or not 1 <= span_slots <= 65535 \
            or not 1 <= (unroll or 1) <= 8 or not 1 <= (min_blocks or 1) <= 32 \
            or not 1 <= align <= 1024 \
            or not 0 <= filter_anchors <= 255 or filter_bits not in FILTER_BITS_CHOICES \
            or lanes not in LANES or (layout == "fingerprint" and span_slots > 4095):
        raise UnknownMethodError(f"wedge: layout must be one of {', '.join(LAYOUTS)}, chunk >= 1, "
                                 "span_slots 1 to 65535 (to 4095 with fingerprints), unroll 1 to "
                                 "8, min_blocks 1 to 32, align 1 to 1024, filter_anchors 0 to "
                                 "255, filter_bits a power of two from 32 to 65536, lanes one "
                                 f"of {', '.join(LANES)}")
    if oriented.n_edges == 0:
        return 0, 0.0
    if layout == "auto":
        flat = oriented.max_out_degree <= FINGERPRINT_MAX_OUT_DEGREE
        layout = "fingerprint" if flat else "csr"
    if layout == "fingerprint" and not layout_fits(oriented, align):
        # Same count without the extra arrays (unroll keeps the caller's choice).
        return count_wedge(oriented, layout="csr", chunk=chunk, span_slots=span_slots,
                           unroll=unroll, min_blocks=min_blocks, edge32=edge32,
                           block_size=block_size, grid_size=grid_size)
    fingerprint = layout == "fingerprint"
    if min_blocks is None:
        min_blocks = (WEDGE_EDGE_LANES_MIN_BLOCKS if fingerprint and lanes == "edges"
                      else WEDGE_MIN_BLOCKS)
    if unroll is None:
        unroll = WEDGE_FP_UNROLL if fingerprint else WEDGE_UNROLL
    indptr, rows, cols, vertex = kernel_arrays(oriented)
    # Positions in cols and (padded) fp: 32-bit in the kernel when all fit.
    positions = oriented.n_edges + oriented.n_vertices * align if fingerprint else oriented.n_edges
    edge32 = edge32 and positions + chunk < 2**31
    indptr = indptr.astype(cp.uint32 if edge32 else cp.int64, copy=False)
    if fingerprint:  # per warp: 2-byte slots, two positions per lane, the filters
        per_warp = (ceil_div(2 * span_slots, 8) * 8 + 2 * 32 * indptr.dtype.itemsize
                    + filter_anchors * filter_bits // 8)
    else:
        per_warp = span_slots * cols.dtype.itemsize
    shared_bytes = (block_size // 32) * per_warp
    limit = device_facts()["shared_per_block_optin"]
    if shared_bytes > limit:
        raise UnknownMethodError(f"wedge: {block_size // 32} warps x {per_warp} bytes need "
                                 f"{shared_bytes} bytes of shared memory, the device has {limit}")
    edge_type = "unsigned int" if edge32 else "long long"
    min_blocks = min(min_blocks, max(1, 2048 // block_size))
    common = dict(block_size=block_size, vertex_t=vertex, edge_t=edge_type, chunk=chunk,
                  id_order=int(oriented.order in ID_ORDERED), unroll=unroll,
                  min_blocks=min_blocks)
    next_chunk = cp.zeros(1, dtype=cp.uint64)
    result = cp.zeros(1, dtype=cp.uint64)
    if fingerprint:
        lists = fingerprint_lists(oriented, indptr, rows, cols, vertex, align=align)
        kernel = get_kernel("wedge_fp", "tc_wedge_fp", align=align, len_bits=lists.len_bits,
                            meta_t=lists.meta_type, span_slots=span_slots,
                            filter_anchors=filter_anchors, filter_bits=filter_bits,
                            edge_lanes=int(lanes == "edges"), **common)
        args = (indptr, rows, cols, lists.fp, lists.meta, np.int32(lists.shift),
                np.int64(oriented.n_edges), next_chunk, result)
    else:
        kernel = get_kernel("wedge", "tc_wedge", span_slots=span_slots, **common)
        args = (indptr, rows, cols, np.int64(oriented.n_edges), next_chunk, result)
    n_chunks = ceil_div(oriented.n_edges, chunk)
    if grid_size is None:
        grid_size = resident_grid(kernel, block_size, shared_bytes,
                                  work_blocks=ceil_div(n_chunks, block_size // 32))
    with KernelTimer() as timer:
        launch(kernel, grid_size, block_size, args, shared_bytes)
    return read_count(result), timer.seconds
