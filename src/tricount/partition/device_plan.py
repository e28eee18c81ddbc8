"""How one GPU runs a partitioned count: what stays on the device, and each step's room.

Pure: sizes in, a :class:`DevicePlan` out (no CuPy; tested on the CPU). The
executor (:mod:`tricount.partition.gpu`) asks it once per device, before it
allocates anything, with the device's budget: ``max_memory`` or
:data:`~tricount.gpu.plan.MEMORY_SAFETY` of the free memory, whichever is
smaller (a graph already on the device counts inside it).

What a device holds, in the order the count needs it
(:mod:`tricount.gpu.apex` does the passes):

1. *statistics*: degrees, the (degree, id) rank and every rank's out-degree,
   :data:`STATS_VERTEX_BYTES` per vertex at the peak (the rank's sort);
2. *orientation* (a graph not yet in rank order): the rank-ordered CSR is
   built one slice of sources at a time into device memory (when it will stay
   there) or into host memory; each slice is one pass over the graph, so the
   graph itself is first copied to the device when it fits beside the result
   with room for few slices (``upload_source``). A graph streamed from host
   memory into a CSR that stays on the device is oriented by scattering
   instead (``orient_scatter``): one pass places every edge in its row, then
   the rows are sorted on the device in slices (no pass over the host graph),
   and as much of the graph as the budget leaves beside that stays on the
   device after the first pass reads it (``cache_bytes``), so the statistics'
   second pass and the scatter copy only the rest;
3. *counting*: the rank-ordered CSR stays on the device (``ranked_resident``)
   when it takes at most :data:`RESIDENT_SHARE` of the budget: one copy over
   PCIe, then every pass reads device memory, and the whole apex range needs
   no block of its own (its block is the CSR). Otherwise every pass streams it
   from the host, and the partition plan cuts the ranks so that each block
   fits ``blocks_budget`` under :attr:`DevicePlan.model`.

Whatever is left once a sub-problem's block is built is the *room* for the
transient work: chunks of the pair stream (the room over :data:`PAIR_ENTRY_BYTES`
entries, their plan in batches that fit the room) and of a block's build
(:data:`BLOCK_ENTRY_BYTES`). The planner keeps at least :data:`ROOM_SHARE` of the
budget for it.

The byte counts are upper bounds read off the code of :mod:`tricount.gpu.apex`
(each array a step allocates, at its peak), not measurements; the GPU tests
hold a count to its budget with a memory hook.
"""

from __future__ import annotations

from dataclasses import dataclass

from tricount.errors import UnsupportedGraphError
from tricount.gpu.chunks import STAGE_ENTRIES, STAGE_ROWS, STAGE_SLOTS
from tricount.gpu.plan import MAX_SLICES, ORIENT_BYTES_PER_KEY
from tricount.partition.plan import MemoryModel

__all__ = ["DevicePlan", "plan_device", "size", "csr_bytes", "stage_bytes", "RESIDENT_SHARE",
           "ROOM_SHARE", "PAIR_ENTRY_BYTES", "BLOCK_ENTRY_BYTES", "PASS_ENTRY_BYTES",
           "ANCHOR_ENTRY_BYTES", "CHECK_ENTRY_BYTES"]

#: The rank-ordered CSR stays on the device while it takes at most this share of the
#: budget. Counting from device memory costs one copy over PCIe; streaming it costs one
#: pass per block and one per pair stream (25-50 GB/s against the HBM's 3 TB/s). The rest
#: keeps room for the sorts and the pair chunks (R-MAT 26 at a quarter of the in-memory
#: path's 40 GB: its CSR is 4.7 GB of 10; a prediction, to be measured).
RESIDENT_SHARE = 0.6
#: The planner leaves at least this share of the budget for the transient work, so that
#: pair chunks stay large (few launches and sorts).
ROOM_SHARE = 0.25
#: Statistics, per vertex at the peak: 32-bit degrees and their 64-bit copy, the rank's
#: sort (64-bit keys built from two temporaries, their order and CuPy's sort buffer), the
#: rank and the out-degrees.
STATS_VERTEX_BYTES = 80
#: Kept per vertex from the statistics to the orientation's end: the rank, the out-degrees
#: (int32) and the in-degrees (int64), besides the ids' bytes of the rank.
KEPT_VERTEX_BYTES = 12
#: An orientation slice per key: the key and its sort's buffer (gpu/plan.py's constant).
ORIENT_KEY_BYTES = ORIENT_BYTES_PER_KEY
#: A pair-stream chunk's entries are the room over this: its rows and keys, then the keys'
#: sort and decoding take at most 8 + 3 x 8 B an entry, and what is left (at least half
#: the room) plans the pairs, in batches that fit it (gpu/apex.py's
#: PLAN_PAIR_BYTES and PLAN_TASK_BYTES; one batch unless the owners are many). One H200
#: under a quarter of the in-memory peak (2026-11-28, before the batches, the plan
#: bounded at 96 B an entry): R-MAT 24 0.439 s in 20 chunks, 0.396 s in 10 at 48 B;
#: R-MAT 25 0.854 and 0.781 s.
PAIR_ENTRY_BYTES = 48
#: A block's build per entry of a chunk: the range mask, the kept ids, the running count
#: and CuPy's compaction index.
BLOCK_ENTRY_BYTES = 32
#: A block per row (rank below its range's end): int64 offsets, int32 lengths and the
#: kernel's 32-bit copy of the offsets.
BLOCK_ROW_BYTES = 16
#: The whole CSR as the block: the out-degrees (int32) and the kernel's 32-bit offsets.
WHOLE_BLOCK_VERTEX_BYTES = 8
#: A pass's chunk per entry: its rows (the kernels read the chunk's offsets as stored, so
#: nothing per row). Was 24 with a copy of the offsets per chunk: R-MAT 24 under a quarter
#: of the in-memory peak took 45 chunks a pass over device memory, each a few launches the
#: host queues (one H200, 2026-11-28: the two later passes 35 ms each, their kernels 10).
PASS_ENTRY_BYTES = 8
#: The anchors' work (gpu/apex.py, anchor_work) per entry of its chunks: the rows, two
#: lengths and their minimum, its int64 copy and running sum.
ANCHOR_ENTRY_BYTES = 40
#: A `.tcsr` read straight to the device is checked in windows (io/native_gpu.py), about
#: 20 B an entry of temporaries: its windows take this much of a pass's room an entry.
CHECK_ENTRY_BYTES = 24
#: Passes over device memory take chunks of at most this many entries (R-MAT 28: 32
#: launches per pass), and at most PASS_SHARE of the budget for their temporaries.
DEVICE_PASS_ENTRIES, PASS_SHARE = 1 << 27, 0.05
#: Streamed passes take chunks of at most STAGE_ENTRIES (gpu/chunks.py), in staging
#: buffers of at most STAGE_SHARE of the budget.
STAGE_SHARE = 0.02
#: The least chunk of any pass (small budgets, the tests' many-chunk runs).
MIN_STAGE_ENTRIES = 1 << 12
#: Fewer entries than this per pair chunk: the count would crawl through launches.
MIN_CHUNK_ENTRIES = 1 << 10
#: The orientation copies the graph to the device first when the room left then holds
#: the keys of at most this many slices (each slice rereads the graph).
UPLOAD_MAX_SLICES = 16
#: The scattered orientation per vertex: a cursor per row (uint64) and its check's booleans.
SCATTER_VERTEX_BYTES = 9
#: The streamed graph's rows kept on the device after the first pass (their offsets and ids,
#: gpu/chunks.cached_rows): fewer bytes of cache than this are not kept.
MIN_CACHE_BYTES = 64 << 20


def _clamp(value: int, low: int, high: int) -> int:
    return int(max(low, min(high, value)))


def size(n_bytes: int) -> str:
    """``"2.50 GiB"``, or MiB below one GiB.

    >>> size(5 << 29), size(3 << 19)
    ('2.50 GiB', '1.5 MiB')
    """
    if abs(n_bytes) >= 2**30:
        return f"{n_bytes / 2**30:.2f} GiB"
    return f"{n_bytes / 2**20:.1f} MiB"


def csr_bytes(n_vertices: int, n_edges: int, index_bytes: int) -> int:
    """Bytes of an upper CSR: int64 offsets and the ids."""
    return 8 * (n_vertices + 1) + index_bytes * n_edges


def stage_bytes(index_bytes: int, entries: int = STAGE_ENTRIES, rows: int = STAGE_ROWS) -> int:
    """Device bytes of a host stream's staging buffers (pinned ones mirror them on the host)."""
    return STAGE_SLOTS * (8 * (rows + 1) + index_bytes * entries)


@dataclass(frozen=True)
class DevicePlan:
    """What one device keeps and how much room each step gets (see the module doc).

    ``count_fixed`` is what the count holds besides a block and the room;
    ``blocks_budget`` what the partition planner may give one block. With
    ``orient_scatter``, ``orient_slice_keys`` is the keys of one slice of the row
    sort, whose device passes take chunks of ``sort_entries``.
    """

    budget: int
    ranked_resident: bool
    upload_source: bool
    upload_first: bool
    orient_slice_keys: int
    pass_entries: int
    stage_entries: int
    stage_rows: int
    count_fixed: int
    blocks_budget: int
    model: MemoryModel
    reason: str
    orient_scatter: bool = False
    sort_entries: int = 0
    cache_bytes: int = 0

    def room(self, block_bytes: int) -> int:
        """Bytes left for transient work beside a block of ``block_bytes``."""
        return self.budget - self.count_fixed - int(block_bytes)

    def pass_entries_at(self, per_entry: int) -> int:
        """Entries of a device pass's chunk for a step that takes ``per_entry`` bytes each
        (:data:`ANCHOR_ENTRY_BYTES`, :data:`CHECK_ENTRY_BYTES`), in a pass's room."""
        return max(1, self.pass_entries * PASS_ENTRY_BYTES // int(per_entry))

    def chunk_entries(self, block_bytes: int, per_entry: int) -> int:
        """Entries per chunk of a step that takes ``per_entry`` bytes each, beside a block."""
        room = self.room(block_bytes)
        entries = min(room // per_entry, 2**31 - 1)
        if entries < MIN_CHUNK_ENTRIES:
            raise UnsupportedGraphError(
                f"a block of {size(block_bytes)} leaves {size(max(0, room))} of the "
                f"{size(self.budget)} GPU budget for the pair stream; at least "
                f"{size(MIN_CHUNK_ENTRIES * per_entry)} are needed: pass more partitions, a "
                "larger max_memory, or use backend='cpu'")
        return int(entries)


def plan_device(n_vertices: int, n_edges: int, index_bytes: int, budget: int, *, ranked: bool,
                source_on_device: bool) -> DevicePlan:
    """Decide residency and rooms for a graph of ``n_vertices`` and ``n_edges`` on one device.

    ``ranked``: the graph's ids already are its (degree, id) ranks (no
    orientation). ``source_on_device``: its arrays are on this device already
    (inside ``budget``). Raises :class:`UnsupportedGraphError` when even the
    statistics or the orientation's slices cannot fit.

    >>> p = plan_device(1 << 26, 1 << 30, 4, 10 << 30, ranked=False, source_on_device=False)
    >>> p.ranked_resident, p.upload_source, p.blocks_budget > 0
    (True, False, True)
    """
    n, m, idx, budget = int(n_vertices), int(n_edges), int(index_bytes), int(budget)
    csr = csr_bytes(n, m, idx)
    held = csr if source_on_device else 0  # a graph on the device stays there throughout
    stage_entries = _clamp(int(STAGE_SHARE * budget) // (STAGE_SLOTS * (idx + 2)),
                           MIN_STAGE_ENTRIES, STAGE_ENTRIES)
    # A chunk of r rows sends r + 1 offsets: a power of two when stage_entries is one.
    stage_rows = max(MIN_STAGE_ENTRIES, min(STAGE_ROWS, stage_entries // 4 - 1))
    stage = stage_bytes(idx, stage_entries, stage_rows)
    device_pass = _clamp(int(PASS_SHARE * budget) // PASS_ENTRY_BYTES, MIN_STAGE_ENTRIES,
                         DEVICE_PASS_ENTRIES)
    stream_pass = stage_entries
    stats_need = held + STATS_VERTEX_BYTES * n + (
        device_pass * PASS_ENTRY_BYTES if source_on_device else stage + stream_pass * PASS_ENTRY_BYTES)
    if stats_need > budget:
        raise UnsupportedGraphError(
            f"the statistics of {n} vertices need about {size(stats_need)} of GPU memory, over "
            f"the budget of {size(budget)}; use a larger max_memory, a larger GPU, or "
            "backend='cpu'")
    extra = 0 if (ranked and source_on_device) else csr
    resident = held + extra <= RESIDENT_SHARE * budget
    upload, slice_keys, scatter, cache_bytes = False, 0, False, 0
    if not ranked:
        rank_out = (idx + KEPT_VERTEX_BYTES) * n
        # The target's offsets are built on the device either way (its ids go to the host
        # slice by slice when it does not stay).
        dest = csr if resident else 8 * (n + 1)
        key_bytes = ORIENT_KEY_BYTES + (0 if resident else idx)  # a host target needs a copy
        least = max(1, -(-m // MAX_SLICES))
        room_device = budget - (held or csr) - dest - rank_out - device_pass * PASS_ENTRY_BYTES
        upload = (not source_on_device
                  and room_device // key_bytes >= max(least, -(-m // UPLOAD_MAX_SLICES)))
        if source_on_device or upload:
            room = room_device
        else:
            room = budget - dest - rank_out - stage - stream_pass * PASS_ENTRY_BYTES
        # The later passes read the rows kept on the device in chunks of device_pass.
        pass_need = max(stream_pass, device_pass) * PASS_ENTRY_BYTES
        scatter_need = csr + rank_out + SCATTER_VERTEX_BYTES * n + stage + pass_need
        sort_room = budget - csr - rank_out - device_pass * PASS_ENTRY_BYTES
        scatter = (resident and not source_on_device and not upload
                   and scatter_need <= budget and sort_room // ORIENT_KEY_BYTES >= least)
        if scatter:
            room, key_bytes = sort_room, ORIENT_KEY_BYTES
            stats_streamed = STATS_VERTEX_BYTES * n + stage + pass_need
            cache = budget - max(scatter_need, stats_streamed)
            cache_bytes = cache if cache >= MIN_CACHE_BYTES else 0
        slice_keys = room // key_bytes
        if slice_keys < least:
            raise UnsupportedGraphError(
                f"orienting {m} edges by rank in slices: a GPU budget of {size(budget)} leaves "
                f"room for {max(0, slice_keys)} keys per slice, fewer than the {least} "
                f"that {MAX_SLICES} slices need; use a larger max_memory or backend='cpu'")
    on_device = resident or (ranked and source_on_device)
    # Copied to the device before the statistics too when both fit: their passes then read
    # device memory instead of crossing PCIe twice more.
    upload_first = (not source_on_device and (resident if ranked else upload)
                    and csr + STATS_VERTEX_BYTES * n + device_pass * PASS_ENTRY_BYTES <= budget)
    pass_entries = device_pass if (on_device or upload) else stream_pass
    vertex = WHOLE_BLOCK_VERTEX_BYTES * n
    if ranked and source_on_device:
        count_fixed = held + vertex
    else:
        count_fixed = held + (csr if resident else stage) + vertex
    room_reserve = max(int(ROOM_SHARE * budget), MIN_CHUNK_ENTRIES * PAIR_ENTRY_BYTES)
    blocks_budget = budget - count_fixed - room_reserve
    where = "stays on the device" if on_device else "is streamed from host memory"
    reason = (f"the rank-ordered CSR ({size(csr)}) {where} (budget {size(budget)}, kept up to "
              f"{RESIDENT_SHARE:.0%})")
    if scatter:
        reason += (f"; oriented by one scattering pass, its rows sorted in slices of "
                   f"{slice_keys} keys"
                   + (f", {size(cache_bytes)} of the graph kept on the device after the first "
                      "pass" if cache_bytes else ""))
    elif not ranked:
        reason += (f"; oriented in slices of {slice_keys} keys"
                   + (", the graph copied to the device first" if upload else ""))
    return DevicePlan(budget, on_device, upload, upload_first, int(slice_keys), int(pass_entries),
                      int(stage_entries), int(stage_rows), int(count_fixed), int(blocks_budget),
                      MemoryModel(entry_bytes=idx, row_bytes=BLOCK_ROW_BYTES), reason,
                      orient_scatter=scatter, sort_entries=int(device_pass),
                      cache_bytes=int(cache_bytes))
