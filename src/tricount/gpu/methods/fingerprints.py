"""The fingerprint layout of an oriented CSR, which ``kernels/wedge_fp.cu`` counts from.

Two arrays beside the CSR, written by one pass over the edges
(``tc_wedge_fp_layout``):

- ``fp``: every out-list again, each entry ``w`` as ``w >> shift`` in 16 bits
  (``shift`` makes the largest id fit, so 0 below 65,536 vertices), each list
  starting at a multiple of ``align`` entries. Fingerprints keep the lists'
  order, so they can be binary-searched; a match is a candidate that the
  kernel confirms on the full ids unless ``shift`` is 0.
- ``meta``: for each edge ``u -> v``, ``(start of N+(v) in fp / align) <<
  len_bits | d+(v)`` in one 32-bit word when that fits, else 64-bit.

Why: the wedge kernel reads N+(v) once per edge at a random place. With the
layout it reads the edge's meta word in order and about 1.2 aligned sectors of
fingerprints, where the plain CSR costs v's indptr sector and about 2.2
sectors of 4-byte ids (uniform random graph, 2^24 vertices;
``benchmarks/results/wedge_traffic_er22.md``). Memory: 2 bytes per padded
entry plus 4 (or 8) bytes per edge (:func:`tricount.gpu.plan.fingerprint_layout_bytes`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tricount.gpu._module import get_kernel
from tricount.gpu.device import ceil_div, cupy, launch, require_memory, resident_grid
from tricount.prep.xp import bits_for

__all__ = ["FingerprintLists", "fingerprint_lists", "FINGERPRINT_BITS", "LAYOUT_BLOCK_SIZE"]

FINGERPRINT_BITS = 16
#: Threads per block of the layout pass (grid-stride, not tuned).
LAYOUT_BLOCK_SIZE = 256


@dataclass(frozen=True)
class FingerprintLists:
    """``fp`` (uint16) and ``meta`` (uint32 or uint64) of one oriented graph."""

    fp: object
    meta: object
    shift: int
    align: int
    len_bits: int

    @property
    def meta_type(self) -> str:
        return "unsigned int" if self.meta.dtype == np.uint32 else "unsigned long long"


def fingerprint_lists(oriented, indptr, rows, cols, *, align: int,
                      defines) -> FingerprintLists:
    """Build the layout from the kernel-ready arrays of ``oriented`` (see the module).

    ``defines(len_bits=..., meta_t=...)`` gives wedge_fp.cu's defines for the
    layout's word sizes; the layout pass runs in blocks of LAYOUT_BLOCK_SIZE.
    """
    cp = cupy()
    n, m = oriented.n_vertices, oriented.n_edges
    starts = cp.asarray(indptr, dtype=cp.int64)
    out_degree = cp.diff(starts)
    fp_start = cp.zeros(n + 1, dtype=cp.int64)
    cp.cumsum((out_degree + (align - 1)) // align * align, out=fp_start[1:])
    padded = int(fp_start[-1])
    len_bits = bits_for(oriented.max_out_degree)
    meta_dtype = cp.uint32 if ceil_div(padded, align) < 2 ** (32 - len_bits) else cp.uint64
    require_memory(2 * padded + np.dtype(meta_dtype).itemsize * (m + n) + 8 * n,
                   f"wedge: the fingerprint layout of {m} edges")
    padding = fp_start[:-1] - starts[:-1]
    vertex_meta = ((fp_start[:-1] // align).astype(meta_dtype) << meta_dtype(len_bits)) \
        | out_degree.astype(meta_dtype)
    del fp_start, out_degree
    fp = cp.empty(padded, dtype=cp.uint16)
    meta = cp.empty(m, dtype=meta_dtype)
    shift = max(0, bits_for(n - 1) - FINGERPRINT_BITS)
    lists = FingerprintLists(fp, meta, shift, align, len_bits)
    kernel = get_kernel("wedge_fp", "tc_wedge_fp_layout",
                        dict(defines(len_bits=len_bits, meta_t=lists.meta_type),
                             block_size=LAYOUT_BLOCK_SIZE))
    grid = resident_grid(kernel, LAYOUT_BLOCK_SIZE, work_blocks=ceil_div(m, LAYOUT_BLOCK_SIZE))
    launch(kernel, grid, LAYOUT_BLOCK_SIZE,
           (rows, cols, padding, vertex_meta, np.int64(m), np.int32(shift), fp, meta))
    return lists
