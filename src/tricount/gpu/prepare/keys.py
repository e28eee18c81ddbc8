"""What the fused and the sliced preparation share: packed keys, their kernels, their decoding.

Both preparations sort 64-bit keys that pack two ids by shifting, the first
above the second, so that sorting keys sorts the pairs lexicographically and
decoding a key gives back exactly its pair:

- edge keys ``((lo << s | hi) << 1) | reversed`` (the canonical build, fused only);
- rank keys ``(source << s) | target``, the rank-oriented edges in row order;
- plan keys ``(owner << (i + l)) | ((max_out - shorter) << i) | partner``, the
  hash plan's owners with their partners longest first.

A :class:`KeyLayout` says where the two ids sit; :meth:`KeyLayout.decode`
(``tc_prep_unpack``) is the one decoder. The fused preparation writes one key
per edge and sorts them all (``kernels/prep.cu``); the sliced one appends the
keys of one slice of vertices and sorts those (``kernels/slice.cu``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tricount.gpu._module import get_kernel
from tricount.gpu.device import c_type, cupy, launch_grid_stride
from tricount.prep.xp import bits_for

__all__ = ["KeyLayout", "edge_layout", "rank_layout", "plan_layout", "distinct_pairs",
           "run_prep", "run_slice",
           "prep_defines", "slice_defines", "DEFAULT_DEFINES", "PREP_BLOCK_SIZE"]

#: Threads per block of every preparation kernel: grid-stride passes, not tuned.
PREP_BLOCK_SIZE = 256
#: prep.cu's histogram counters: 64-bit unless the caller knows none can overflow 32.
WIDE_HISTOGRAM = "unsigned long long"


def prep_defines(*, vertex_t: str = "int", mark: bool = False, gather: bool = False,
                 hist_t: str = WIDE_HISTOGRAM) -> dict:
    """Every define of ``kernels/prep.cu``."""
    return {"block_size": PREP_BLOCK_SIZE, "vertex_t": vertex_t, "mark": int(mark),
            "gather": int(gather), "hist_t": hist_t}


def slice_defines(*, vertex_t: str = "int") -> dict:
    """Every define of ``kernels/slice.cu``."""
    return {"block_size": PREP_BLOCK_SIZE, "vertex_t": vertex_t}


#: The defines of the files' ``#ifndef`` defaults (tests/gpu/test_plan.py compares).
DEFAULT_DEFINES = {"prep": prep_defines(), "slice": slice_defines()}


def run_prep(name: str, n_items: int, args: tuple, **defines) -> None:
    """Launch a grid-stride kernel of prep.cu over ``n_items`` items."""
    launch_grid_stride(get_kernel("prep", name, prep_defines(**defines)), PREP_BLOCK_SIZE,
                       n_items, args)


def run_slice(name: str, n_items: int, args: tuple, vertex_t: str) -> None:
    """Launch a grid-stride kernel of slice.cu over ``n_items`` items."""
    launch_grid_stride(get_kernel("slice", name, slice_defines(vertex_t=vertex_t)),
                       PREP_BLOCK_SIZE, n_items, args)


@dataclass(frozen=True)
class KeyLayout:
    """Two ids in a key: the high one at ``high_shift`` bits (after dropping
    ``drop_bits``), the low one in the ``low_bits`` below."""

    high_shift: int
    low_bits: int
    drop_bits: int = 0

    @property
    def low_mask(self) -> int:
        return (1 << self.low_bits) - 1

    def decode(self, keys, count: int, dtype, *, positions=None, present=None):
        """Decode ``keys`` (or ``keys[positions]``) into (high, low) arrays of ``dtype``,
        marking both ids in ``present`` when given."""
        cp = cupy()
        high = cp.empty(count, dtype=dtype)
        low = cp.empty(count, dtype=dtype)
        if count:
            gather, mark = positions is not None, present is not None
            run_prep("tc_prep_unpack", count,
                     (keys, positions if gather else keys, np.int64(count),
                      np.int32(self.drop_bits), np.int32(self.high_shift),
                      np.uint64(self.low_mask), high, low, present if mark else keys),
                     vertex_t=c_type(dtype), gather=gather, mark=mark)
        return high, low


def distinct_pairs(keys, layout: KeyLayout, dtype, *, present=None):
    """Sort edge keys in place and decode each distinct pair once, in order:
    ``(lo, hi, counts)``, ``counts`` (on the device) holding the distinct keys (the
    distinct directed lines) and the dropped ones (``tc_prep_pair_flags``)."""
    cp = cupy()
    n = int(keys.shape[0])
    keys.sort()
    first_pair = cp.empty(n, dtype=cp.uint8)
    counts = cp.zeros(2, dtype=cp.uint64)
    run_prep("tc_prep_pair_flags", n, (keys, np.int64(n), first_pair, counts))
    positions = cp.flatnonzero(first_pair)
    del first_pair
    lo, hi = layout.decode(keys, int(positions.shape[0]), dtype, positions=positions,
                           present=present)
    return lo, hi, counts


def edge_layout(top: int) -> KeyLayout:
    """Edge keys of ids up to ``top``, with their direction bit."""
    shift = bits_for(top)
    return KeyLayout(shift, shift, drop_bits=1)


def rank_layout(n_vertices: int) -> KeyLayout:
    """Rank keys of ``n_vertices`` renamed vertices."""
    shift = bits_for(max(0, n_vertices - 1))
    return KeyLayout(shift, shift)


def plan_layout(n_vertices: int, max_out_degree: int) -> tuple[KeyLayout, int, int]:
    """Plan keys: the layout of (owner, partner) and the bits of a partner id and of
    a list length; ``64 - high_shift`` bits are left for the owner."""
    id_bits, len_bits = bits_for(n_vertices - 1), bits_for(max_out_degree)
    return KeyLayout(id_bits + len_bits, id_bits), id_bits, len_bits
