"""How the GPU engine counts one graph, and why: statistics in, a :class:`Plan` out.

Every decision of ``method="auto"`` lives in this module, as a named constant
with the measurement behind it and a pure function of a few statistics
(:class:`GraphStats`), so "why did auto pick this?" has one answer here. It
imports no CuPy and touches no device: the rules run and are tested on the
CPU (``tests/gpu/test_plan.py``).

A count is planned in three steps, each when its statistics exist; the engine
(:mod:`tricount.gpu.engine`) calls them in this order:

1. :func:`plan_memory`, before anything is copied or allocated: the
   preparation. The fused one (:mod:`tricount.gpu.prepare`) holds the graph,
   its oriented copy and one sort of 64-bit keys per edge; when that does not
   fit ``max_memory`` or the free memory, ``hash`` counts with the orientation
   and its plan built in slices, or the count is refused.
2. :func:`plan_orientation`, with the graph on the device: the order of the
   vertices. ``"auto"`` is the rank order by (degree, id), except that method
   ``auto`` counts a flat graph in the id order it was built in, by wedge
   (:func:`choose_id_order`); a sliced preparation gets its slice capacity.
3. :func:`plan_method`, after orienting: the method (:func:`choose_method`,
   the cost model) and its launch shape (:class:`HashShape`,
   :class:`WedgeShape`, :class:`BitwedgeShape`), with the size-dependent
   defaults resolved and checked against the device.

A caller may pass a partial plan (a method, an orientation, a shape with some
fields set): each step keeps what is set and fills the rest, so the tuning
knobs of a benchmark are fields of a shape, not keywords of the API. A plan
the steps made passes through them again unchanged, except its preparation,
which is always planned from the memory free at the call.

Thresholds were measured on one NVIDIA H100 80GB HBM3 (132 SMs, CUDA runtime
13.2, CuPy 14.2.0) on 2026-11-22; kernel times are medians after a warm-up,
the tables named beside each constant are in ``benchmarks/results/``, and
``docs/gpu.md`` walks through them.

>>> stats = GraphStats(n_vertices=1 << 24, n_edges=16 << 24, index_bytes=4, on_device=True,
...                    free_bytes=80 << 30, max_out_degree=30)
>>> choose_method(stats)[0]  # uniform random: flat
'wedge'
>>> choose_method(GraphStats(1_245_329, 31_771_938, 4, True, 80 << 30, max_out_degree=824))[0]
'hash'
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import ClassVar

from tricount.errors import UnknownMethodError, UnsupportedGraphError

__all__ = [
    "GPU_METHODS", "ORIENTATIONS", "DeviceFacts", "GraphStats", "Preparation", "Plan",
    "HashShape", "WedgeShape", "BitwedgeShape", "request", "plan_memory", "plan_orientation",
    "plan_method", "make_plan", "make_shape", "tuned", "choose_method", "choose_id_order",
    "wants_id_order_degree", "small_work", "slice_capacity", "task_cap", "choose_short_route",
    "fits_short_route",
    "SHORT_ROUTE_METHOD",
]

#: The methods ``auto`` can pick, the GPU backend's public names.
GPU_METHODS = ("hash", "wedge", "bitwedge")
#: "rank": by (degree, id) after renaming the vertices by that rank; "degree":
#: the same order on the graph's own ids; "id": by id, the built graph as it is.
ORIENTATIONS = ("auto", "degree", "id", "rank")
#: Orientations whose order is the ids' (every edge u -> v has v > u).
ID_ORDERED = ("rank", "id")

# -- memory ---------------------------------------------------------------------------------

#: Use at most this share of the free device memory for one count; the rest
#: absorbs CuPy's pool rounding and library workspaces (CUB's sort).
MEMORY_SAFETY = 0.85
#: Device bytes per key of a slice at its peak: the key and the sort's second
#: buffer (16), or after the sort the owner, partner, the plan's running sum
#: and the gather that feeds it (20) ...
SLICE_PAIR_BYTES = 20
#: ... plus the slice's per-owner arrays (the plan's offsets, probes and work,
#: and the offsets' search temporaries) over at most one owner per
#: SLICE_KEYS_PER_OWNER keys of capacity.
SLICE_OWNER_BYTES, SLICE_KEYS_PER_OWNER = 36, 8
SLICE_BYTES_PER_KEY = SLICE_PAIR_BYTES + -(-SLICE_OWNER_BYTES // SLICE_KEYS_PER_OWNER)
#: The orientation's slices hold only the key and the sort's buffer (and the
#: sort's small workspace), so they take this many bytes per key of the same room.
ORIENT_BYTES_PER_KEY = 17
#: Each slice rereads the whole edge list, so a budget that would need more
#: slices than this is refused rather than crawled through.
MAX_SLICES = 1024

# -- auto's rules (benchmarks/results/gpu_issue7_h100.md, the final table) --------------------

#: Bitwedge's bitmaps (n bits per warp) stay in shared memory while one takes at
#: most this many bytes: 4 blocks of 8 warps per multiprocessor. soc-Epinions1
#: (9.5 KiB per warp, 16 warps on chip) took 0.038 ms in shared and 0.035 in
#: global memory (gpu_bitwedge_tuning_h100.md).
BITWEDGE_SHARED_MAX_BYTES = 7 * 1024
#: Graphs whose bitwedge bitmaps fit in shared memory take bitwedge: on the five
#: real graphs of gpu_issue7_h100.md it took 0.013-0.037 ms against merge's
#: 0.027-0.094 and hash's 0.033-0.063; on G(2^15, 2^19), 0.027 against wedge's
#: 0.032 (gpu_issue7_wedge_edges_h100.md).
AUTO_BITWEDGE_ON_CHIP_VERTICES = 8 * BITWEDGE_SHARED_MAX_BYTES
#: Skewed graphs up to this many vertices also take bitwedge, whose global
#: bitmaps stay in the caches while the tested ids crowd into the hubs' words:
#: R-MAT 18 (173,963 vertices) 0.653 ms against hash's 0.729; R-MAT 19 (335,328)
#: 1.83 against 1.66 and R-MAT 21 15.1 against 8.3. Flat graphs spread their
#: tests over every word: G(2^18, 2^22) took 1.23 ms against wedge's 0.147
#: (gpu_bitwedge_tuning_h100.md).
AUTO_BITWEDGE_MAX_VERTICES = 1 << 18
#: Larger graphs whose largest out-degree is at least this many times the mean
#: degree m / n are skewed: hash, the fastest kernel on every larger R-MAT graph
#: (21: 8.37 ms, max/mean 32; 24: 120; 25: 320). Flat ones go to wedge (uniform
#: random, 2^24 vertices: 9.9 ms with its fingerprint layout and a lane per edge,
#: against hash's 37.7; max/mean 1.9; gpu_issue7_h100.md).
AUTO_SKEW_FOR_HASH = 4.0
#: wedge reads out-lists as 16-bit fingerprints while the largest out-degree is
#: at most this, so that nearly every chunk's anchors fit shared memory. Longer
#: lists send chunks to the full-id path: R-MAT 21 53.9 ms against 46.7 in the
#: plain layout, ca-HepPh 0.314 against 0.256; the uniform random graph went
#: from 16.4 to 10.5 ms (gpu_wedge_fp_tuning_h100.md).
FINGERPRINT_MAX_OUT_DEGREE = 64
#: Larger graphs whose id order already gives out-lists of at most this many
#: (wedge's fingerprint layout) are counted by wedge in that order: the rank
#: orientation (a sort of every edge, and the degrees) is skipped, and wedge's
#: kernel costs about the same. Kernel / from the built graph, ms: uniform
#: random 2^24 9.91 / 18.4 against 9.82 / 59.6 in rank order; G(2^21, 2^25)
#: 1.58 / 1.74 against 0.96 / 5.60; G(2^18, 2^22) 0.115 / 0.60 against
#: 0.110 / 1.47 (docs/gpu.md, "Flat graphs in id order"). A skewed graph's hubs
#: have long id-order out-lists.
AUTO_ID_MAX_OUT_DEGREE = FINGERPRINT_MAX_OUT_DEGREE
#: Graphs of at most AUTO_BITWEDGE_MAX_VERTICES vertices whose work, edges times mean
#: out-degree (m^2 / n), is at most this take wedge, by its count's total: kernel and the
#: method's own preparation. bitwedge's kernel is the fastest on them (the five real
#: graphs: 0.013-0.037 ms against wedge's 0.045-0.237), but its preparation (hash's owner
#: plan, a sort of every edge, and the pairs' costs) costs 1.2-1.8 ms against wedge's
#: 0.15-0.21, so wedge's count was the smallest on every one: 0.24-0.43 ms against
#: bitwedge's 1.19-1.79 and hash's 1.70-2.41; G(2^15, 2^19) 0.50 against 1.21; soc-Epinions1
#: 0.31 against 1.79. On R-MAT 18 (work 8.3e7) bitwedge's kernel won it back: 2.63 against
#: 3.03 (gpu_issue7_h100.md, "count ms"). The difference, linear in the work between
#: blogcatalog (1.1e7: +1.31 ms for wedge) and R-MAT 18 (-0.40), crosses zero near 6.6e7.
AUTO_WEDGE_SMALL_WORK = 6e7
#: Small graphs (AUTO_WEDGE_SMALL_WORK) are counted in id order while their id-order
#: out-lists are at most this long. On the five real graphs, whose id-order lists are
#: 438-3,853 long (their hubs come first), wedge in id order gave the smallest count from a
#: built graph on every one: ego-Facebook 0.80 ms against 1.46 in rank order, ca-HepPh 1.03
#: against 1.76, email-Enron 1.17 against 1.28, soc-Epinions1 1.40 against 1.57, blogcatalog
#: 1.56 against 1.75 (its kernel is slower, the rank orientation it skips costs more;
#: gpu_user_time_h100.md, table 1). The bound stays near the longest list measured, so that
#: a graph with a larger hub is oriented by rank.
AUTO_SMALL_ID_MAX_OUT_DEGREE = 4096

# -- hash (gpu_hash_*_tuning_h100.md; docs/gpu.md, "hash") ---------------------------------------

#: 256 threads (8 warps) per block.
HASH_BLOCK_SIZE = 256
#: Below HASH_LARGE_EDGES, 1,024 slots per warp (owners up to d+ = 256 stay with a
#: warp) and warp reads from lists of 32: R-MAT 18 0.745 ms against 0.895, the
#: real graphs 5-15 % faster; at R-MAT 21 the larger tables cost 10 %
#: (gpu_hash_small_tuning_h100.md).
HASH_SMALL_WARP_SLOTS = 1024
HASH_SMALL_LONG_LIST = 32
#: From HASH_LARGE_EDGES, 512 slots per warp (owners with d+ <= 128 fit a warp's
#: table at load <= 1/4) and warp reads from lists of 16 (half the lanes busy at worst).
HASH_WARP_SLOTS = 512
HASH_LONG_LIST = 16
#: An owner with this many probes or more takes a whole block.
HASH_BLOCK_WORK = 1 << 14
#: Tables of block owners up to 32 KiB (out-degree 2,048 with int ids at spread 4).
HASH_BLOCK_TABLE_BYTES = 32 * 1024
#: Table slots >= 4 d+(owner): linear probing at load <= 1/4, 15-20 % faster than
#: 1/2 on R-MAT 18-24.
HASH_TABLE_SPREAD = 4
#: Each lane keeps this many loads of a long list in flight before probing ...
HASH_LONG_UNROLL = 4
#: ... with registers capped for this many blocks per multiprocessor (40 registers:
#: 48 warps per SM; more resident warps keep the issue slots busy, which beats the few spills).
HASH_MIN_BLOCKS = 6
#: From this many edges, 6 loads in flight and 8 blocks (32 registers, 64 warps):
#: R-MAT 21 9.8 ms against 10.9, 24 148 against 154, 25 469 against 472; on R-MAT 18
#: and the small real graphs 4 and 6 were 8-20 % faster.
HASH_LARGE_EDGES = 10_000_000
HASH_LARGE_UNROLL, HASH_LARGE_MIN_BLOCKS = 6, 8
#: From this many edges, blocks of 512 (16 warps per heavy owner; 4 blocks, 64 warps
#: per SM) and block tables up to 64 KiB (owners up to d+ = 4,096 stay on chip,
#: 3 blocks per SM): R-MAT 24 119 ms against 133, 25 319 against 433; at R-MAT 21
#: blocks of 512 were 6 % slower, so the switch sits between 3.2·10^7 and 2.6·10^8
#: edges (not measured in between). Blocks of 1,024, or 64 KiB tables with blocks
#: of 256 (24 warps per SM), were slower (gpu_hash_tables_tuning_h100.md).
HASH_HUGE_EDGES = 100_000_000
HASH_HUGE_BLOCK_SIZE, HASH_HUGE_BLOCK_TABLE_BYTES = 512, 64 * 1024
#: A warp fetches the bounds of its next 32 partner lists at once.
HASH_BATCH_BOUNDS = True
#: Warp tasks taken per atomic.
HASH_WARP_CLAIM = 1
#: Owners are cut into tasks of about total / (this × resident warps) probes ...
HASH_TASKS_PER_WARP = 4
#: ... but not below this many (each task rebuilds its owner's table).
HASH_MIN_TASK = 1024

# -- wedge (gpu_wedge_tuning_h100.md, gpu_wedge_fp_tuning_h100.md, gpu_wedge_edges_tuning_h100.md)

WEDGE_BLOCK_SIZE = 256
#: Edges per claim: two batches of 32 per atomic (32: 20 % slower on the uniform
#: random graph, 128: no faster).
WEDGE_CHUNK = 64
#: 256 slots (1 KiB) per warp hold a chunk of 64 edges plus the rest of its
#: anchors' lists while out-degrees stay below about 96.
WEDGE_SPAN_SLOTS = 256
#: Loads in flight per lane, plain layout (2: 6 % slower, 8: 50 % slower on the
#: uniform graph) and fingerprints (3: 10.47 ms; 4 spills registers at 8 blocks
#: per SM: 12.86 ms; 2: 11.82 ms).
WEDGE_UNROLL = 4
WEDGE_FP_UNROLL = 3
#: Registers capped for 8 blocks of 256 per SM (64 warps): 3 % faster than 6.
WEDGE_MIN_BLOCKS = 8
#: "fingerprint" (kernels/wedge_fp.cu), "csr" (kernels/wedge.cu, no extra memory)
#: or "auto": fingerprints while the largest out-degree is at most
#: FINGERPRINT_MAX_OUT_DEGREE and the layout fits the free memory.
WEDGE_LAYOUT = "auto"
LAYOUTS = ("auto", "fingerprint", "csr")
#: With fingerprints, a chunk whose anchors are at most this many consecutive
#: vertices gets a filter per anchor: a bitmap of its fingerprints' low bits
#: (filter_bits each), tested before the binary search.
WEDGE_FILTER_ANCHORS = 8
WEDGE_FILTER_BITS = 2048
FILTER_BITS_CHOICES = tuple(2**k for k in range(5, 17))
#: Who walks a filtered chunk's wedges (fingerprint layout): "wedges", the
#: warp's lanes together over the flattened lists, or "edges", a lane per edge
#: over its own list, 32 fingerprints per step: 40 % fewer instructions on the
#: uniform random graph, 9.56-9.74 ms against 10.47-10.48, with 6 blocks per SM
#: (its 39 registers).
WEDGE_LANES = "edges"
LANES = ("wedges", "edges")
WEDGE_EDGE_LANES_MIN_BLOCKS = 6
#: Fingerprint lists start at multiples of 16 entries (32 bytes: one sector).
WEDGE_ALIGN = 16

# -- bitwedge (gpu_bitwedge_tuning_h100.md) ---------------------------------------------------

#: Blocks of 256 were the best overall: on the real graphs as fast as 128 or
#: faster (soc-Epinions1 0.038 against 0.042), where 512 was up to 32 % slower
#: (0.050); on R-MAT 18 512 was 4 % faster (0.625 against 0.648; 128: 0.659).
BITWEDGE_BLOCK_SIZE = 256
#: 4 windows in flight: 6 and 8 were within 10 % either way, 2 up to 36 % slower.
BITWEDGE_UNROLL = 4
#: One task per resident warp: 2 and 4 were as fast or up to 40 % slower.
BITWEDGE_TASKS_PER_WARP = 1
#: Tasks cost at least this many wedges (see the launcher's pair_costs).
BITWEDGE_MIN_TASK = 256
#: Costs in wedges of a pair's own reads, and of changing the bitmap's vertex (on
#: top of its out-degree). Tasks of equal wedges alone left some warps 20-40 times
#: the mean work (soc-Epinions1 0.48 ms); anchor costs of 64 or 1,024 were up to
#: 60 % slower than 256.
BITWEDGE_PAIR_COST = 8
BITWEDGE_ANCHOR_COST = 256
#: Resident blocks the compiler must allow: no cap on registers.
BITWEDGE_MIN_BLOCKS = 1
#: List entries per lane loaded together when setting a bitmap's bits.
BITWEDGE_SET_BATCH = 4
PAIRINGS = ("anchor", "owner")
BITMAP_PLACES = ("auto", "shared", "global")
#: Global bitmaps may take at most this share of the free device memory.
GLOBAL_BITMAP_MEMORY_SHARE = 0.25

#: Threads a multiprocessor holds: caps every shape's min_blocks × block_size.
THREADS_PER_SM = 2048

#: The short route (:mod:`tricount.gpu.small`): method ``auto`` counts a graph of at most
#: this many vertices and edges there, from the built graph to the count in four launches
#: (the last writes the count to pinned host memory), with no host synchronisation,
#: planning or sort between them.
#: Vertices: its scan takes one block per tile of 2,048 (128 tiles, one wave, at 2^18).
#: Edges: measured on R-MAT (edge factor 16, seed 1) on an H100, device run 2 of this
#: route (benchmarks/results/gpu_small_route_h100.md): the short route beat the planned
#: one at scale 17 (1,864,286 edges: 1.80 against 2.52 ms) and lost at scale 18
#: (3,805,744 edges: 4.59 against 3.50 ms), where the planned route's sorted, tuned
#: kernels win back more than its ~1 ms of host work.
SHORT_ROUTE_MAX_VERTICES = 1 << 18
SHORT_ROUTE_MAX_EDGES = 1 << 21
#: The name a count by the short route reports (not a method one can request).
SHORT_ROUTE_METHOD = "small"


# -- statistics in --------------------------------------------------------------------------


@dataclass(frozen=True)
class DeviceFacts:
    """What the plan needs to know about the device (``tricount.gpu.device.device_facts``)."""

    sm_count: int
    shared_per_block_optin: int
    name: str = ""


@dataclass(frozen=True)
class GraphStats:
    """Cheap statistics of one graph where the count runs.

    ``index_bytes`` is the size of one column id (4 or 8); ``free_bytes`` what a
    new device allocation can get now. The rest is filled as the count goes:
    ``max_out_degree_id`` (the largest row of the built graph, in id order) and
    ``max_degree`` when a step asks for them, ``max_out_degree`` and
    ``n_slices`` (orientation slices of a sliced preparation) after orienting.
    """

    n_vertices: int
    n_edges: int
    index_bytes: int
    on_device: bool
    free_bytes: int
    device: DeviceFacts | None = None
    max_out_degree_id: int | None = None
    max_degree: int | None = None
    max_out_degree: int | None = None
    n_slices: int = 0
    name: str = ""


@dataclass(frozen=True)
class Preparation:
    """``kind`` "fused" (the whole graph at once) or "sliced" (orientation and hash plan
    in slices of at most ``capacity`` keys); ``need_bytes`` is the fused preparation's
    estimate and ``budget_bytes`` what the count may hold, the graph's arrays included."""

    kind: str
    need_bytes: int
    budget_bytes: int
    capacity: int | None = None

    @property
    def sliced(self) -> bool:
        return self.kind == "sliced"


# -- launch shapes ----------------------------------------------------------------------------


def _check(ok: bool, method: str, what: str) -> None:
    if not ok:
        raise UnknownMethodError(f"{method}: {what}")


def _check_block(method: str, block_size: int) -> None:
    _check(block_size % 32 == 0 and 32 <= block_size <= 1024, method,
           f"block_size must be a multiple of 32 from 32 to 1024, got {block_size}")


def _unset_or(value, low: int, high: int | None) -> bool:
    """Whether a knob is unset (None: the plan decides) or within ``low .. high``."""
    return value is None or (value >= low and (high is None or value <= high))


def _cap_min_blocks(min_blocks: int, block_size: int) -> int:
    return min(min_blocks, max(1, THREADS_PER_SM // block_size))


def _pow2_at_least(x: int) -> int:
    return 1 << max(0, int(x) - 1).bit_length()


@dataclass(frozen=True)
class HashShape:
    """Launch shape of ``hash`` (``kernels/hash.cu``); None: by graph size (:meth:`resolve`)."""

    method: ClassVar[str] = "hash"
    launcher: ClassVar[str] = "tricount.gpu.methods.hash:count_hash"

    block_size: int | None = None  # threads per block
    warp_slots: int | None = None  # table slots per warp, a power of two
    block_table_bytes: int | None = None  # largest block table; longer owners are searched
    spread: int = HASH_TABLE_SPREAD  # table slots per key
    long_list: int | None = None  # partner lists this long are read by a whole warp
    unroll: int | None = None  # loads in flight per lane on long lists
    batch_bounds: bool = HASH_BATCH_BOUNDS  # a warp fetches 32 lists' bounds at once
    min_blocks: int | None = None  # resident blocks the compiler must allow (caps registers)
    edge32: bool = True  # 32-bit edge positions in the kernel when they fit
    block_work: int = HASH_BLOCK_WORK  # probes that earn a task a whole block
    max_task: int | None = None  # probes per task; None: task_cap of the work
    min_task: int = HASH_MIN_TASK  # ... but at least this many
    tasks_per_warp: int = HASH_TASKS_PER_WARP  # ... about this many per resident warp
    by_owner: bool = False  # tasks in owner order instead of heaviest first
    warp_claim: int = HASH_WARP_CLAIM  # warp tasks taken per atomic
    grid_size: int | None = None  # None: blocks that fill the device once

    def __post_init__(self):
        ws = self.warp_slots
        _check(ws is None or (ws >= 32 and not ws & (ws - 1)), "hash",
               f"warp_slots must be a power of two >= 32, got {ws}")
        _check(_unset_or(self.long_list, 1, None) and self.warp_claim >= 1
               and self.block_work >= 0 and self.spread in (2, 4, 8)
               and _unset_or(self.unroll, 1, 8) and _unset_or(self.min_blocks, 1, 32), "hash",
               "long_list and warp_claim must be >= 1, block_work >= 0, spread 2, 4 or 8, "
               "unroll 1 to 8, min_blocks 1 to 32")
        if self.block_size is not None:
            _check_block("hash", self.block_size)

    def resolve(self, n_edges: int) -> "HashShape":
        """The shape with its size-dependent defaults filled for ``n_edges`` edges."""
        large, huge = n_edges >= HASH_LARGE_EDGES, n_edges >= HASH_HUGE_EDGES
        block_size = self.block_size or (HASH_HUGE_BLOCK_SIZE if huge else HASH_BLOCK_SIZE)
        return dataclasses.replace(
            self, block_size=block_size,
            warp_slots=self.warp_slots or (HASH_WARP_SLOTS if large else HASH_SMALL_WARP_SLOTS),
            long_list=self.long_list or (HASH_LONG_LIST if large else HASH_SMALL_LONG_LIST),
            block_table_bytes=self.block_table_bytes or (HASH_HUGE_BLOCK_TABLE_BYTES if huge
                                                         else HASH_BLOCK_TABLE_BYTES),
            unroll=self.unroll or (HASH_LARGE_UNROLL if large else HASH_LONG_UNROLL),
            min_blocks=_cap_min_blocks(
                self.min_blocks or (HASH_LARGE_MIN_BLOCKS if large else HASH_MIN_BLOCKS),
                block_size))

    def tables(self, max_out_degree: int, item_bytes: int) -> tuple[int, int]:
        """``(block_slots, shared_bytes)`` of a resolved shape: the slots of a block
        task's table (a power of two, at least 32) and the shared memory per block."""
        warp_area = (self.block_size // 32) * self.warp_slots
        block_slots = max(32, min(_pow2_at_least(self.spread * max_out_degree),
                                  _pow2_at_least(self.block_table_bytes // item_bytes + 1) // 2))
        return block_slots, max(block_slots, warp_area) * item_bytes


@dataclass(frozen=True)
class WedgeShape:
    """Launch shape of ``wedge``; None: by layout (:meth:`resolve`). The layouts are
    "csr" (``kernels/wedge.cu``) and "fingerprint" (``kernels/wedge_fp.cu``)."""

    method: ClassVar[str] = "wedge"
    launcher: ClassVar[str] = "tricount.gpu.methods.wedge:count_wedge"

    layout: str = WEDGE_LAYOUT  # "auto", "fingerprint" or "csr"
    chunk: int = WEDGE_CHUNK  # edges a warp claims at once
    span_slots: int = WEDGE_SPAN_SLOTS  # shared slots per warp for the anchors' lists
    align: int = WEDGE_ALIGN  # fingerprint lists start at multiples of this many entries
    filter_anchors: int = WEDGE_FILTER_ANCHORS  # chunks of at most so many anchors get filters
    filter_bits: int = WEDGE_FILTER_BITS  # bits of each anchor's filter
    lanes: str = WEDGE_LANES  # filtered chunks: "edges" (a lane per edge) or "wedges"
    unroll: int | None = None  # wedge loads in flight per lane
    min_blocks: int | None = None  # resident blocks the compiler must allow (caps registers)
    edge32: bool = True  # 32-bit positions in the kernel when they fit
    block_size: int = WEDGE_BLOCK_SIZE  # threads per block
    grid_size: int | None = None  # None: blocks that fill the device once

    def __post_init__(self):
        _check(self.layout in LAYOUTS and self.chunk >= 1 and 1 <= self.span_slots <= 65535
               and _unset_or(self.unroll, 1, 8) and _unset_or(self.min_blocks, 1, 32)
               and 1 <= self.align <= 1024 and 0 <= self.filter_anchors <= 255
               and self.filter_bits in FILTER_BITS_CHOICES and self.lanes in LANES
               and not (self.layout == "fingerprint" and self.span_slots > 4095), "wedge",
               f"layout must be one of {', '.join(LAYOUTS)}, chunk >= 1, span_slots 1 to "
               "65535 (to 4095 with fingerprints), unroll 1 to 8, min_blocks 1 to 32, align 1 "
               "to 1024, filter_anchors 0 to 255, filter_bits a power of two from 32 to 65536, "
               f"lanes one of {', '.join(LANES)}")
        _check_block("wedge", self.block_size)

    @property
    def fingerprint(self) -> bool:
        return self.layout == "fingerprint"

    def resolve(self, stats: GraphStats) -> "WedgeShape":
        """The layout for the oriented graph and the free memory, then that layout's
        defaults, and 32-bit positions where they fit."""
        layout = self.layout
        if layout == "auto":
            flat = stats.max_out_degree <= FINGERPRINT_MAX_OUT_DEGREE
            layout = "fingerprint" if flat else "csr"
        n, m = stats.n_vertices, stats.n_edges
        if layout == "fingerprint" and \
                fingerprint_layout_bytes(n, m, self.align) > MEMORY_SAFETY * stats.free_bytes:
            layout = "csr"  # the same count without the layout's arrays
        fingerprint = layout == "fingerprint"
        min_blocks = self.min_blocks or (WEDGE_EDGE_LANES_MIN_BLOCKS
                                         if fingerprint and self.lanes == "edges"
                                         else WEDGE_MIN_BLOCKS)
        # Positions in cols and in the (padded) fingerprints: 32-bit when all fit, and the
        # wedges of a warp's batch too (edge_t holds their running sum: up to 32 lists of
        # the longest, plus a round of look-ahead; 2**28 wedges of a hub in id order
        # wrapped to 0 and the batch's triangles were lost).
        positions = m + n * self.align if fingerprint else m
        unroll = self.unroll or (WEDGE_FP_UNROLL if fingerprint else WEDGE_UNROLL)
        batch_wedges = 32 * (stats.max_out_degree + unroll)
        return dataclasses.replace(
            self, layout=layout, unroll=unroll,
            min_blocks=_cap_min_blocks(min_blocks, self.block_size),
            edge32=self.edge32 and positions + self.chunk < 2**31 and batch_wedges < 2**31)

    def shared_bytes(self, index_bytes: int) -> int:
        """Shared memory per block of a resolved shape: per warp the anchors' span
        (fingerprint: 2-byte slots, two positions per lane and the filters)."""
        if self.fingerprint:
            position_bytes = 4 if self.edge32 else 8
            per_warp = (-(-2 * self.span_slots // 8) * 8 + 2 * 32 * position_bytes
                        + self.filter_anchors * self.filter_bits // 8)
        else:
            per_warp = self.span_slots * index_bytes
        return (self.block_size // 32) * per_warp


@dataclass(frozen=True)
class BitwedgeShape:
    """Launch shape of ``bitwedge`` (``kernels/bitwedge.cu``); the bitmaps' place "auto"
    is decided by :meth:`resolve`."""

    method: ClassVar[str] = "bitwedge"
    launcher: ClassVar[str] = "tricount.gpu.methods.bitwedge:count_bitwedge"

    pairs: str = "owner"  # "owner": hash's plan, Σ min(d+) wedges; "anchor": the edges as they lie
    bitmaps: str = "auto"  # "shared", "global" or "auto"
    tasks_per_warp: int = BITWEDGE_TASKS_PER_WARP  # tasks per resident warp
    min_task: int = BITWEDGE_MIN_TASK  # the least cost of a task, in wedges
    pair_cost: int = BITWEDGE_PAIR_COST  # the cost model's weight of a pair ...
    anchor_cost: int = BITWEDGE_ANCHOR_COST  # ... and of a change of table vertex
    unroll: int = BITWEDGE_UNROLL  # windows of 32 wedges whose loads are in flight together
    set_batch: int = BITWEDGE_SET_BATCH  # list entries per lane loaded together to set bits
    min_blocks: int = BITWEDGE_MIN_BLOCKS  # resident blocks the compiler must allow
    edge32: bool = True  # 32-bit pair and list positions when they fit
    wedge32: bool = True  # 32-bit wedge positions when they fit
    block_size: int = BITWEDGE_BLOCK_SIZE  # threads per block
    grid_size: int | None = None  # None: blocks that fill the device once

    def __post_init__(self):
        _check(self.pairs in PAIRINGS and self.bitmaps in BITMAP_PLACES
               and 1 <= self.unroll <= 8 and self.tasks_per_warp >= 1 and self.min_task >= 1
               and self.pair_cost >= 1 and self.anchor_cost >= 0 and 1 <= self.min_blocks <= 32
               and self.set_batch >= 1 and self.block_size % 32 == 0, "bitwedge",
               f"pairs must be one of {', '.join(PAIRINGS)}, bitmaps one of "
               f"{', '.join(BITMAP_PLACES)}, unroll 1 to 8, tasks_per_warp, min_task, pair_cost "
               "and set_batch >= 1, anchor_cost >= 0, min_blocks 1 to 32, block_size a "
               "multiple of 32")
        _check_block("bitwedge", self.block_size)

    def resolve(self, n_vertices: int) -> "BitwedgeShape":
        """Bitmaps in shared memory while one warp's n bits take at most
        BITWEDGE_SHARED_MAX_BYTES (``"auto"``), else in global memory."""
        bitmaps = self.bitmaps
        if bitmaps == "auto":
            fits = bitmap_bytes(n_vertices) <= BITWEDGE_SHARED_MAX_BYTES
            bitmaps = "shared" if fits else "global"
        return dataclasses.replace(self, bitmaps=bitmaps,
                                   min_blocks=_cap_min_blocks(self.min_blocks, self.block_size))

    def shared_bytes(self, n_vertices: int) -> int:
        """Dynamic shared memory per block of a resolved shape."""
        if self.bitmaps != "shared":
            return 0
        return (self.block_size // 32) * bitmap_bytes(n_vertices)


#: The shape of each method auto can pick.
SHAPES = {"hash": HashShape, "wedge": WedgeShape, "bitwedge": BitwedgeShape}


@dataclass(frozen=True)
class Plan:
    """How one graph is counted: method, orientation, preparation, launch shape, and why.

    ``shape`` is the method's launch shape (its class names the launcher); a lab
    method of ``benchmarks/baselines`` brings its own shape class. Fields left at
    "auto" or None are filled by the planning steps.
    """

    method: str = "auto"
    orientation: str = "auto"
    shape: object = None
    preparation: Preparation | None = None
    reason: str = ""


def make_shape(shape_class, **options):
    """``shape_class(**options)``, naming the method and its options when one is unknown."""
    names = [field.name for field in dataclasses.fields(shape_class)]
    unknown = sorted(set(options) - set(names))
    if unknown:
        raise UnknownMethodError(
            f"GPU method {shape_class.method!r} has no option {', '.join(map(repr, unknown))}; "
            f"its options: {', '.join(names)} (and orientation)")
    return shape_class(**options)


def tuned(method: str, *, orientation: str = "auto", **options) -> Plan:
    """A partial plan: ``method`` with the launch-shape fields ``options`` set (the
    benchmarks' variants, the tests' launches), the rest left to the planner."""
    if method == "auto" and options:
        raise UnknownMethodError(f"method 'auto' takes no method options (got "
                                 f"{', '.join(sorted(options))}); name a method to tune it")
    if method not in SHAPES and method != "auto":
        raise UnknownMethodError(f"unknown GPU method {method!r}; GPU methods: "
                                 f"{', '.join(GPU_METHODS)} (or auto)")
    shape = make_shape(SHAPES[method], **options) if options else None
    return Plan(method=method, orientation=orientation, shape=shape)


# -- sizes ------------------------------------------------------------------------------------


def graph_device_bytes(n_vertices: int, n_edges: int, index_bytes: int) -> int:
    """Device bytes of a built graph's arrays there: ``indptr``, COO rows and
    columns, degrees."""
    return 16 * n_vertices + 8 + 2 * index_bytes * n_edges


def fused_bytes(n_vertices: int, n_edges: int, index_bytes: int, on_device: bool) -> int:
    """Device bytes to copy the graph (unless it is there) and orient it: degrees,
    the forward mask, both ends, the keys and their sort's buffer, rows and
    columns, indptr."""
    n, m, idx = n_vertices, n_edges, index_bytes
    resident = 0 if on_device else 8 * (n + 1) + 2 * idx * m
    return resident + 24 * n + m * (1 + 2 * idx + 16 + 2 * idx) + 8 * (n + 1)


def fingerprint_layout_bytes(n_vertices: int, n_edges: int, align: int) -> int:
    """The fingerprint layout's memory at most: fp, 64-bit meta words, and six
    per-vertex int64 temporaries (offsets, degrees, padding, vertex words)."""
    return 2 * (n_edges + n_vertices * (align - 1)) + 8 * n_edges + 48 * (n_vertices + 1)


def bitmap_bytes(n_vertices: int) -> int:
    """One warp's bitmap of n bits, in 32-bit words."""
    return 4 * -(-int(n_vertices) // 32)


def sliced_resident_bytes(n_vertices: int, n_edges: int, index_bytes: int) -> int:
    """Bytes the sliced path holds besides the graph and the slices: the oriented
    ``indices`` and 52 B per vertex: the orientation's offsets, rank and
    out-degrees (16), the hash launcher's degrees and 32-bit offsets (12), the
    plan's owner offsets (8) and 16 to spare. (Ranking the vertices by degree
    takes up to about 56 B per vertex for its sort, but before the oriented
    ``indices`` exist: within budget while the graph has a few edges per vertex.)"""
    return index_bytes * n_edges + 52 * (n_vertices + 1)


def slice_capacity(budget_bytes: int, graph_bytes: int, n_vertices: int, n_edges: int,
                   index_bytes: int, max_degree: int) -> int:
    """Keys per slice that keep the count within ``budget_bytes`` (the graph's own
    ``graph_bytes`` included), or :class:`UnsupportedGraphError` when too few fit:
    a slice must hold every pair of one owner (at most ``max_degree``) and there
    may be at most :data:`MAX_SLICES` slices."""
    held = graph_bytes + sliced_resident_bytes(n_vertices, n_edges, index_bytes)
    capacity = (budget_bytes - held) // SLICE_BYTES_PER_KEY
    least = max(1, int(max_degree), -(-int(n_edges) // MAX_SLICES))
    if capacity < least:
        raise UnsupportedGraphError(
            f"a budget of {budget_bytes / 2**30:.3f} GiB leaves room for {max(0, capacity)} keys "
            f"per slice after the graph and its oriented copy ({held / 2**30:.3f} GiB); at least "
            f"{least} are needed: use a larger budget or a larger GPU")
    return int(min(capacity, max(1, n_edges)))


def task_cap(total_work: int, sm_count: int, min_task: int = HASH_MIN_TASK,
             tasks_per_warp: int = HASH_TASKS_PER_WARP) -> int:
    """hash's probes per task: about ``tasks_per_warp`` tasks per resident warp
    (64 per multiprocessor), at least ``min_task``."""
    return max(int(min_task), int(total_work) // (tasks_per_warp * 64 * sm_count))


# -- the rules --------------------------------------------------------------------------------


def small_work(stats: GraphStats) -> bool:
    """Whether a graph is small enough for wedge to win on its total (preparation
    included): :data:`AUTO_WEDGE_SMALL_WORK`."""
    n, m = stats.n_vertices, stats.n_edges
    return 0 < m and n <= AUTO_BITWEDGE_MAX_VERTICES and m * m / n <= AUTO_WEDGE_SMALL_WORK


def choose_method(stats: GraphStats) -> tuple[str, str]:
    """``auto``: a method from n, m and the largest out-degree after orienting, and why."""
    n, m, d = stats.n_vertices, stats.n_edges, stats.max_out_degree
    if m == 0:
        return "hash", "auto: no edges, nothing to intersect"
    if small_work(stats):
        return "wedge", (f"auto: {n} vertices and work m^2/n = {m * m / n:.3g} <= "
                         f"{AUTO_WEDGE_SMALL_WORK:.3g}: small, so wedge, whose preparation "
                         "(0.15-0.21 ms) costs less than bitwedge's kernel saves")
    if n <= AUTO_BITWEDGE_ON_CHIP_VERTICES:
        return "bitwedge", (f"auto: {n} vertices <= {AUTO_BITWEDGE_ON_CHIP_VERTICES}: bit tests "
                            "against per-warp bitmaps of n bits in shared memory")
    skew = d / (m / n)
    if skew >= AUTO_SKEW_FOR_HASH and n <= AUTO_BITWEDGE_MAX_VERTICES:
        return "bitwedge", (f"auto: {n} vertices <= {AUTO_BITWEDGE_MAX_VERTICES}, largest "
                            f"out-degree {d} = {skew:.1f} x the mean degree "
                            f"(>= {AUTO_SKEW_FOR_HASH:g}): skewed and small, so bit tests against "
                            "per-warp bitmaps, which stay in cache")
    if skew >= AUTO_SKEW_FOR_HASH:
        return "hash", (f"auto: {m} edges, largest out-degree {d} = {skew:.1f} x the mean "
                        f"degree (>= {AUTO_SKEW_FOR_HASH:g}): skewed, so hash sets for the longer "
                        "list of every edge")
    return "wedge", (f"auto: {m} edges, largest out-degree {d} = {skew:.1f} x the mean degree "
                     f"(< {AUTO_SKEW_FOR_HASH:g}): flat, so wedge-parallel lanes over short lists")


def _wedge_graph(stats: GraphStats) -> bool:
    """Whether method ``auto`` counts the graph by wedge whatever its order: past bitwedge's
    on-chip size (flat or skewed, the order decides), or small (:func:`small_work`)."""
    return stats.n_vertices > AUTO_BITWEDGE_ON_CHIP_VERTICES or small_work(stats)


def choose_short_route(n_vertices: int, n_edges: int, *, method: str = "auto",
                       orientation: str = "auto", plan: Plan | None = None,
                       max_memory: int | None = None) -> str | None:
    """Why the engine counts this graph by the short route, or None (the planned route).

    Only a bare ``method="auto"`` takes it: a named method or orientation, or any
    ``plan`` (even an empty ``Plan()``), asks for the planned route, and so does a
    ``max_memory`` budget (the route keeps its workspace, about 24 bytes per edge,
    between calls: a budget is planned by :func:`plan_memory` instead). The graph
    must have an edge and at most :data:`SHORT_ROUTE_MAX_VERTICES` vertices and
    :data:`SHORT_ROUTE_MAX_EDGES` edges.

    >>> choose_short_route(36_692, 183_831) is not None  # email-Enron
    True
    >>> choose_short_route(36_692, 183_831, method="hash") is None
    True
    """
    if method != "auto" or orientation != "auto" or plan is not None or max_memory is not None:
        return None
    n, m = int(n_vertices), int(n_edges)
    if not fits_short_route(n, m):
        return None
    return _short_route_reason(n, m, SHORT_ROUTE_MAX_VERTICES, SHORT_ROUTE_MAX_EDGES)


@functools.lru_cache(maxsize=64)
def _short_route_reason(n: int, m: int, max_vertices: int, max_edges: int) -> str:
    """The short route's reason (kept: a graph counted again gets the same string)."""
    return (f"auto: short route: {n} vertices <= {max_vertices} and {m} edges <= {max_edges}: "
            "small, so degrees, the (degree, id) orientation and a set-based count in four "
            "launches, with no host synchronisation before the count")


def fits_short_route(n_vertices: int, n_edges: int) -> bool:
    """Whether a graph is within the short route's bounds: at least one edge, at most
    :data:`SHORT_ROUTE_MAX_VERTICES` vertices and :data:`SHORT_ROUTE_MAX_EDGES` edges (the
    engine's choice and the cost model's prediction both ask here).

    >>> fits_short_route(34, 78), fits_short_route(34, 0)
    (True, False)
    >>> fits_short_route(1, SHORT_ROUTE_MAX_EDGES + 1)
    False
    """
    return 0 < n_edges <= SHORT_ROUTE_MAX_EDGES and n_vertices <= SHORT_ROUTE_MAX_VERTICES


def wants_id_order_degree(plan: Plan, stats: GraphStats) -> bool:
    """Whether :func:`plan_orientation` needs ``stats.max_out_degree_id`` for ``plan``:
    only auto's orientation of a graph that wedge may count in id order asks."""
    prep = plan.preparation
    return (plan.method == "auto" and plan.orientation == "auto"
            and not (prep is not None and prep.sliced) and stats.n_edges > 0
            and _wedge_graph(stats))


def choose_id_order(stats: GraphStats) -> str | None:
    """``auto``'s orientation: why to count the graph in the id order it was built in,
    by wedge, or None (orient by rank and let :func:`choose_method` pick)."""
    n = stats.n_vertices
    if stats.n_edges == 0 or not _wedge_graph(stats):
        return None
    d = stats.max_out_degree_id
    small = small_work(stats)
    bound = AUTO_SMALL_ID_MAX_OUT_DEGREE if small else AUTO_ID_MAX_OUT_DEGREE
    if d is None or d > bound:  # unknown, or a hub's list
        return None
    size = "small" if small else f"{n} vertices > {AUTO_BITWEDGE_ON_CHIP_VERTICES}"
    return (f"auto: {size} and largest out-degree {d} <= {bound} in id order: "
            "flat as it is, so wedge on the id order, without the rank orientation")


# -- the steps --------------------------------------------------------------------------------


def request(method: str = "auto", orientation: str = "auto", plan: Plan | None = None) -> Plan:
    """The plan a call asks for: ``plan`` (or an empty one) with the keywords merged in.

    Raises :class:`UnknownMethodError` for an unknown method or orientation, a shape
    that belongs to another method, or ``auto`` with a shape. A method outside
    :data:`GPU_METHODS` is accepted only with its own shape (the benchmarks' lab
    methods, ``benchmarks/baselines``).
    """
    plan = plan or Plan()
    for name, given, planned in (("method", method, plan.method),
                                 ("orientation", orientation, plan.orientation)):
        if given != "auto" and planned not in ("auto", given):
            raise UnknownMethodError(f"{name}={given!r} disagrees with the plan's {planned!r}")
    plan = dataclasses.replace(plan, method=plan.method if method == "auto" else method,
                               orientation=(plan.orientation if orientation == "auto"
                                            else orientation))
    shape = plan.shape
    if plan.method == "auto" and shape is not None:
        raise UnknownMethodError("method 'auto' takes no launch shape; name a method to tune it")
    own_shape = shape is not None and getattr(shape, "method", None) == plan.method
    if plan.method not in GPU_METHODS + ("auto",) and not own_shape:
        raise UnknownMethodError(f"unknown GPU method {plan.method!r}; GPU methods: "
                                 f"{', '.join(GPU_METHODS)} (or auto)")
    if shape is not None and not own_shape:
        raise UnknownMethodError(f"a {type(shape).__name__} does not launch method "
                                 f"{plan.method!r}; its shape is {SHAPES[plan.method].__name__}")
    if plan.orientation not in ORIENTATIONS:
        raise UnknownMethodError(f"orientation {plan.orientation!r} is unknown; choose one of "
                                 f"{', '.join(ORIENTATIONS)}")
    return plan


def plan_memory(stats: GraphStats, plan: Plan, max_memory: int | None = None) -> Plan:
    """Step 1, before any allocation: the preparation, fused or sliced, or a refusal.

    The budget is ``max_memory`` (the graph's device arrays included, copied or
    not) or what is free, whichever is smaller. The fused preparation is taken
    when its estimate fits; otherwise hash counts in slices when it may (method
    ``auto`` or ``hash``, orientation ``auto`` or ``rank``), else
    :class:`UnsupportedGraphError`.
    """
    n, m, idx = stats.n_vertices, stats.n_edges, stats.index_bytes
    resident = graph_device_bytes(n, m, idx)
    on_device = resident if stats.on_device else 0
    free = int(MEMORY_SAFETY * stats.free_bytes) + on_device
    budget = free if max_memory is None else min(free, int(max_memory))
    need = fused_bytes(n, m, idx, stats.on_device) + on_device
    if need <= budget:
        return dataclasses.replace(plan, preparation=Preparation("fused", need, budget))
    if plan.method in ("auto", "hash") and plan.orientation in ("auto", "rank"):
        reason = "requested" if plan.method == "hash" else \
            "auto: hash is the method that counts in slices"
        return dataclasses.replace(plan, method="hash", orientation="rank", reason=reason,
                                   preparation=Preparation("sliced", need, budget))
    name = f"graph {stats.name} " if stats.name else "graph "
    raise UnsupportedGraphError(
        f"{name}with {n} vertices and {m} edges needs about {need / 2**30:.2f} GiB of GPU memory "
        f"for method {plan.method!r}, over the budget of {budget / 2**30:.2f} GiB; only method "
        "'hash' (or 'auto') with orientation 'rank' counts in slices under a smaller budget (or "
        "use backend='cpu', or a larger GPU)")


def plan_orientation(stats: GraphStats, plan: Plan) -> Plan:
    """Step 2, the graph on the device: the orientation, and a sliced preparation's
    capacity (from ``stats.max_degree``).

    ``"auto"`` is ``"rank"``, except that method ``auto`` counts a flat graph by
    wedge in its id order (:func:`choose_id_order`, from ``stats.max_out_degree_id``,
    which :func:`wants_id_order_degree` says when to measure).
    """
    prep = plan.preparation
    if prep.sliced:
        capacity = slice_capacity(prep.budget_bytes,
                                  graph_device_bytes(stats.n_vertices, stats.n_edges,
                                                     stats.index_bytes),
                                  stats.n_vertices, stats.n_edges, stats.index_bytes,
                                  stats.max_degree)
        return dataclasses.replace(plan, preparation=dataclasses.replace(prep, capacity=capacity))
    if plan.orientation != "auto":
        return plan
    why = choose_id_order(stats) if wants_id_order_degree(plan, stats) else None
    if why:
        return dataclasses.replace(plan, orientation="id", method="wedge", reason=why)
    return dataclasses.replace(plan, orientation="rank")


def plan_method(stats: GraphStats, plan: Plan) -> Plan:
    """Step 3, after orienting (``stats.max_out_degree`` set): the method and its
    launch shape, resolved for the graph and checked against the device."""
    method, reason = plan.method, plan.reason or "requested"
    if method == "auto":
        method, reason = choose_method(stats)
    prep = plan.preparation
    if prep is not None and prep.sliced:
        reason += (f"; counted in slices under a budget of {prep.budget_bytes / 2**30:.2f} GiB "
                   f"(the standard preparation needs more): {stats.n_slices} orientation slices "
                   f"of at most {prep.capacity} keys")
    shape = plan.shape
    if method in SHAPES:
        shape = _resolve(shape or SHAPES[method](), stats)
    return dataclasses.replace(plan, method=method, reason=reason, shape=shape)


def _resolve(shape, stats: GraphStats):
    """A production shape filled for the oriented graph; its shared memory checked
    against the device (a graph without edges launches nothing)."""
    limit = stats.device.shared_per_block_optin if stats.device else None
    if isinstance(shape, HashShape):
        shape = shape.resolve(stats.n_edges)
        need = shape.tables(stats.max_out_degree, stats.index_bytes)[1]
        _check(not stats.n_edges or limit is None or need <= limit, "hash",
               f"{need} bytes of tables per block exceed the device's {limit}; lower "
               "warp_slots, block_size or block_table_bytes")
    elif isinstance(shape, WedgeShape):
        shape = shape.resolve(stats)
        need = shape.shared_bytes(stats.index_bytes)
        _check(not stats.n_edges or limit is None or need <= limit, "wedge",
               f"{shape.block_size // 32} warps need {need} bytes of shared memory, the "
               f"device has {limit}")
    else:
        shape = shape.resolve(stats.n_vertices)
        need = shape.shared_bytes(stats.n_vertices)
        _check(not stats.n_edges or limit is None or need <= limit, "bitwedge",
               f"{shape.block_size // 32} bitmaps of {stats.n_vertices} vertices need {need} "
               f"bytes of shared memory, a block can have {limit}; use bitmaps='global' or "
               "smaller blocks")
    return shape


def make_plan(stats: GraphStats, plan: Plan | None = None, *, method: str = "auto",
              orientation: str = "auto", max_memory: int | None = None) -> Plan:
    """All three steps at once, for statistics that hold every field (tests, reports):
    ``max_out_degree`` serves as the oriented graph's whichever order is chosen.

    >>> facts = DeviceFacts(sm_count=132, shared_per_block_optin=227 * 1024)
    >>> plan = make_plan(GraphStats(4039, 88_234, 4, True, 80 << 30, device=facts,
    ...                             max_out_degree=70))  # ego-Facebook
    >>> plan.method, plan.orientation, plan.shape.layout
    ('wedge', 'rank', 'csr')
    """
    plan = plan_memory(stats, request(method, orientation, plan), max_memory)
    plan = plan_orientation(stats, plan)
    return plan_method(stats, plan)
