"""Launcher of ``kernels/small.cu``: the short route of small graphs.

Counts: distinct triangles of a built graph's upper-triangular CSR on the device,
in four launches on one stream (degrees; the (degree, id) orientation; the
out-lists, placed by a one-pass scan of the out-degrees and a scatter in one
launch; the count, slot by slot for sources with light lists and against a set per
source for the others: a bitmap of n bits per warp where :data:`BITS_MAX_BYTES`
holds them, else a hash table) after one memset. The count kernel's last block
stores the count into a pinned host word, so nothing is copied after it: no host
synchronisation, sort, plan, allocation or copy between the built graph and the
count. The kernel file's header says what each launch does and how each triangle
is counted once.

Everything the kernels need lives in one :class:`Workspace` per device, made
when first needed and grown when a graph needs more, never freed by a call:
one buffer of 32-bit words (:func:`workspace_words`, laid out as
``tc_small_layout`` of the kernel file), one of 64-bit offsets
(:func:`offset_words`) and a pinned host word the count kernel writes. The
kernels are fetched once per (device, column type) and kept in a dict, so a call
costs a few dictionary look-ups and launches of host time.

A graph counted twice (the same device arrays, sizes and workspace, as a
benchmark's trials or a caller's repeated counts see it) is captured the second
time into a CUDA graph of the memset and the four launches, and replayed from
then on: one launch of host time instead of five. A replay reads the arrays as
they are then, so it is exact whatever they hold; captures are kept for the
last :data:`GRAPH_CACHE` keys. A caller that times the kernel (``timer``) or
synchronizes every launch (``TRICOUNT_GPU_SYNC``) gets the launches themselves.

Which graphs take this route, and why, is decided by
:func:`tricount.gpu.plan.choose_short_route`; :func:`tricount.gpu.engine.count`
calls :func:`count_small`.
"""

from __future__ import annotations

import threading

import numpy as np

from tricount.gpu._module import get_kernel
from tricount.gpu.device import (SYNC_EACH_LAUNCH, c_type, ceil_div, cupy, device_facts,
                                  launch, resident_grid)

__all__ = ["count_small", "launches", "workspace_words", "zeroed_words", "offset_words",
           "n_tasks", "bits_bytes", "count_set", "Workspace", "DEFAULT_DEFINES", "KERNELS"]

#: Threads per block of every kernel of the route.
BLOCK_SIZE = 256
#: Out-degrees per thread of the scan in the place kernel: tiles of BLOCK_SIZE x
#: SCAN_ITEMS vertices, one block each (128 tiles at the route's 2^18 vertices).
SCAN_ITEMS = 8
SCAN_TILE = BLOCK_SIZE * SCAN_ITEMS
#: Slots (32-bit words) of a warp's shared hash table: out-lists of up to half as many
#: entries are counted on chip (the five graphs of issue 7 have at most 238 under the
#: (degree, id) order: 2^9 = 512 holds them all), longer ones against a table in
#: global memory built by the scatter.
WARP_SLOTS = 512
#: Tasks of the count kernel per warp of its grid: the m slots of the out-lists are cut into
#: that many tasks of equal slots, each warp taking its tasks strided across the slots.
#: On an H100 (device runs 7-9 of 2026-11-26, with LIGHT_LIST = 8) 2 tasks a warp beat 4
#: and 8 on the five graphs of issue 7 (count kernel 24-67 us against 26-77 and 32-96),
#: and tasks of equal slots matched tasks cut by their wedges (a scan of each slot's cost:
#: two more launches, 16-20 us) in the count.
TASKS_PER_WARP = 2
#: Out-lists up to this long are held in one lane's registers: such a source's slots are
#: counted lane by lane, 32 at a time, instead of one set of N+(u) per source. With 0
#: (every source through a set) soc-Epinions1's count kernel took 182-418 us, with 8
#: 66-69 us, with 16 76-80 us (device run 7, tasks cut by their wedges).
LIGHT_LIST = 8
#: Wedges per lane per round of the count kernel (independent loads in flight).
WEDGE_UNROLL = 4
#: Blocks per multiprocessor that a grid-stride launch asks for at most.
BLOCKS_PER_SM = 8
#: Captured CUDA graphs kept (the most recent keys).
GRAPH_CACHE = 16
#: The header words before the degrees: the count (2), the place kernel's tickets and
#: scanned tiles, the count kernel's finished blocks, three spare.
HEADER_WORDS = 8
#: The kernels of ``small.cu``, in launch order (the last two: one or the other).
KERNELS = ("tc_small_degrees", "tc_small_orient", "tc_small_place", "tc_small_count",
           "tc_small_count_bits")
#: Shared memory of a block of the bitmap count kernel (one n-bit map per warp) at most:
#: past it the hash count kernel runs. 96 KiB: graphs of up to 98,304 vertices, two
#: blocks a multiprocessor at the most. On an H100 (device run 37, 2026-11-26) the bitmap
#: kernel counted blogcatalog in 74 us against the hash kernel's 150, email-Enron 37
#: against 58, ca-HepPh 43-46 against 72-75, ego-Facebook 21-23 against 34-37, and
#: soc-Epinions1 (76 KiB of maps a block) 113 against 138.
BITS_MAX_BYTES = 96 << 10
#: Which count kernel: None (by :data:`BITS_MAX_BYTES`), "hash" or "bits" (benchmarks).
COUNT_SET = None


def kernel_defines(*, vertex_t: str) -> dict:
    """Every define of ``kernels/small.cu`` for columns of C type ``vertex_t``."""
    return {"block_size": BLOCK_SIZE, "vertex_t": vertex_t, "warp_slots": WARP_SLOTS,
            "scan_items": SCAN_ITEMS, "wedge_unroll": WEDGE_UNROLL, "light_list": LIGHT_LIST}


#: The file's ``#ifndef`` defaults.
DEFAULT_DEFINES = {"small": kernel_defines(vertex_t="int")}


def scan_tiles(n_vertices: int) -> int:
    """Tiles of the place kernel's scan (``tc_small_tiles``): at least one."""
    return max(1, ceil_div(n_vertices, SCAN_TILE))


def zeroed_words(n_vertices: int, n_edges: int, *, tables: bool = True) -> int:
    """Words of the workspace that start each count at zero: header, degrees,
    out-degrees, the scan's tile sums and, for the hash count kernel (``tables``), the
    global hash tables (4 words per edge)."""
    return (HEADER_WORDS + 2 * n_vertices + scan_tiles(n_vertices)
            + (4 * n_edges if tables else 0))


def workspace_words(n_vertices: int, n_edges: int) -> int:
    """32-bit words of the workspace: the zeroed part, then COO rows, out-lists and the
    slots' sources (one word per edge each)."""
    return zeroed_words(n_vertices, n_edges) + 3 * n_edges


def offset_words(n_vertices: int) -> int:
    """64-bit words of ``offsets``: one per vertex and one more."""
    return n_vertices + 1


class Workspace:
    """One device's buffers for the short route: ``words`` (int32, :func:`workspace_words`)
    and ``offsets`` (uint64, :func:`offset_words`), ``host`` the pinned word the count
    kernel writes the count into (pinned host memory is the device's to address), and the
    captured graphs of this workspace (:data:`GRAPH_CACHE` at most,
    keyed by the arrays and sizes they were captured for). Grown, never shrunk;
    ``lock`` keeps two threads of one device from using it at once."""

    def __init__(self):
        cp = cupy()
        self.words = self.offsets = None
        self.fitted = None  # (n, m) of the last fit: the buffers hold such a graph
        self.host = np.frombuffer(cp.cuda.alloc_pinned_memory(8), dtype=np.uint64, count=1)
        self.graphs: dict = {}  # key -> None, a captured graph, or False (see _captured)
        self.capture_stream = None  # made at the first capture; False once one failed
        self.lock = threading.Lock()

    def fit(self, n_vertices: int, n_edges: int) -> None:
        """Make room for a graph of this size (allocates only when it is larger than
        any before; a quarter more then, so that growing graphs reallocate rarely)."""
        if (n_vertices, n_edges) == self.fitted:  # the same size as the last count's
            return
        cp = cupy()
        need = workspace_words(n_vertices, n_edges)
        if self.words is None or self.words.size < need:
            self.words = None  # the old buffer goes back to the pool first
            self.graphs.clear()  # captured for the old buffers
            self.words = cp.empty(need + need // 4, dtype=cp.int32)
        need = offset_words(n_vertices)
        if self.offsets is None or self.offsets.size < need:
            self.offsets = None
            self.graphs.clear()
            self.offsets = cp.empty(need + need // 4, dtype=cp.uint64)
        self.fitted = (n_vertices, n_edges)


_WORKSPACES: dict = {}
_KERNELS: dict = {}


def _kernels(device_id: int, index_dtype) -> tuple:
    """The kernels of :data:`KERNELS` for this device and column type, compiled once,
    and the device's multiprocessors."""
    key = (device_id, index_dtype)
    kernels = _KERNELS.get(key)
    if kernels is None:
        defines = kernel_defines(vertex_t=c_type(index_dtype))
        sm_count = device_facts().sm_count
        kernels = tuple(get_kernel("small", name, defines) for name in KERNELS) + (sm_count,)
        _KERNELS[key] = kernels
    return kernels


def bits_bytes(n_vertices: int) -> int:
    """Shared memory of a block of ``tc_small_count_bits``: an n-bit map per warp."""
    return (BLOCK_SIZE // 32) * 4 * ceil_div(max(1, n_vertices), 32)


def count_set(n_vertices: int) -> str:
    """The count kernel's set for a graph of ``n_vertices``: "bits" or "hash"."""
    if COUNT_SET is not None:
        return COUNT_SET
    return "bits" if bits_bytes(n_vertices) <= BITS_MAX_BYTES else "hash"


def n_tasks(count_grid: int, n_edges: int) -> int:
    """Tasks of the count kernel: :data:`TASKS_PER_WARP` per warp of its grid, at most one
    per slot."""
    return max(1, min(count_grid * (BLOCK_SIZE // 32) * TASKS_PER_WARP, n_edges))


def launches(kernels, indptr, indices, n: int, m: int, space: Workspace) -> list:
    """The four launches, in order, as ``(kernel, grid, block, args, shared_bytes)``."""
    degrees, orient, place, count, count_bits, sm_count = kernels
    words, offsets = space.words, space.offsets
    n64, m64 = np.int64(n), np.int64(m)
    # Grid-stride launches: at most BLOCKS_PER_SM blocks per multiprocessor, fewer
    # for a small graph (one item per thread); the place kernel has a block per scan
    # tile at least (tiles <= 128 at the route's 2^18 vertices, below the cap).
    cap = BLOCKS_PER_SM * sm_count
    counting = _count_launch(count, count_bits, n, m, cap)
    tasks = np.int64(n_tasks(counting[1], m))
    host = np.uint64(space.host.ctypes.data)
    return [
        (degrees, min(cap, ceil_div(max(n, m), BLOCK_SIZE)), BLOCK_SIZE,
         (indptr, indices, n64, m64, words), 0),
        (orient, min(cap, ceil_div(m, BLOCK_SIZE)), BLOCK_SIZE,
         (indptr, indices, n64, m64, words), 0),
        (place, max(scan_tiles(n), min(cap, ceil_div(m, BLOCK_SIZE))), BLOCK_SIZE,
         (indices, n64, m64, words, offsets, np.int64(count_set(n) == "hash")), 0),
        counting[:3] + ((n64, m64, words, offsets, tasks, host),) + counting[3:],
    ]


def _count_launch(count, count_bits, n: int, m: int, cap: int) -> tuple:
    """The count kernel, its grid and block, and its shared bytes: the bitmap kernel with
    the blocks that fit the device at once (its maps take most of a multiprocessor's
    shared memory), or the hash one; a warp for every 32 slots at most."""
    warps_per_block = BLOCK_SIZE // 32
    want = ceil_div(ceil_div(m, 32), warps_per_block)
    if count_set(n) == "bits":
        shared = bits_bytes(n)
        key = (count_bits, shared)
        grid = _RESIDENT.get(key)
        if grid is None:
            if shared > 48 * 1024:  # the opt-in the occupancy query needs (never lowered:
                count_bits.max_dynamic_shared_size_bytes = shared  # launch() raises it alike)
            grid = _RESIDENT[key] = resident_grid(count_bits, BLOCK_SIZE, shared)
        return count_bits, min(grid, want), BLOCK_SIZE, shared
    return count, min(cap, want), BLOCK_SIZE, 4 * warps_per_block * WARP_SLOTS


#: Resident blocks of the bitmap kernel per (kernel, shared bytes): the occupancy query
#: is made once, not per count.
_RESIDENT: dict = {}


def _enqueue(kernels, indptr, indices, n: int, m: int, space: Workspace, stream, timed) -> None:
    """The memset and the four launches on ``stream`` (the current stream)."""
    zeroed = zeroed_words(n, m, tables=count_set(n) == "hash")  # the bitmap kernel has none
    cupy().cuda.runtime.memsetAsync(space.words.data.ptr, 0, 4 * zeroed, stream.ptr)
    *prepare, counting = launches(kernels, indptr, indices, n, m, space)
    for step in prepare:
        launch(*step)
    with timed():
        launch(*counting)


def _captured(space: Workspace, key, enqueue):
    """The CUDA graph of ``key``: None the first time a key is seen (the caller
    launches), captured the second time, then kept."""
    graphs = space.graphs  # key -> None (seen once), a graph, or False (capture failed)
    if key not in graphs:
        if len(graphs) >= GRAPH_CACHE:
            del graphs[next(iter(graphs))]  # the oldest key
        graphs[key] = None
        return None
    graph = graphs[key]
    if graph is None and space.capture_stream is not False:
        cp = cupy()
        if space.capture_stream is None:  # capture needs a stream other than the legacy one
            space.capture_stream = cp.cuda.Stream(non_blocking=True)
        stream = space.capture_stream
        # Relaxed: another thread's allocation during the capture stays legal.
        mode = getattr(cp.cuda.runtime, "streamCaptureModeRelaxed", None)
        try:
            with stream:
                stream.begin_capture(*(() if mode is None else (mode,)))
                try:
                    enqueue(stream)
                finally:
                    graph = stream.end_capture()
        except Exception:  # no capture here (an old CuPy or driver): launch, never retry
            graph = space.capture_stream = False
        graphs[key] = graph
    return graph or None


def count_small(indptr, indices, n_vertices: int, n_edges: int, timed, *,
                replay: bool = True) -> int:
    """Triangles of the upper-triangular CSR ``indptr`` (int64) / ``indices`` (int32 or
    int64) on the current device, ``n_edges >= 1``; ``timed()`` wraps the count kernel.

    ``replay`` allows the CUDA graph of a repeated key (the engine passes False when
    the caller times the kernel). Raises CuPy's OutOfMemoryError when the workspace
    cannot grow (the engine turns it into :class:`~tricount.UnsupportedGraphError`).
    """
    cp = cupy()
    n, m = int(n_vertices), int(n_edges)
    if indptr.dtype != np.int64 or not indptr.flags.c_contiguous:
        indptr = cp.ascontiguousarray(indptr, dtype=cp.int64)
    if indices.dtype not in (np.int32, np.int64) or not indices.flags.c_contiguous:
        indices = cp.ascontiguousarray(indices, dtype=cp.int64)
    device_id = cp.cuda.runtime.getDevice()
    space = _WORKSPACES.get(device_id)
    if space is None:
        space = _WORKSPACES[device_id] = Workspace()
    stream = cp.cuda.get_current_stream()

    def enqueue(on_stream):
        _enqueue(_kernels(device_id, indices.dtype), indptr, indices, n, m, space, on_stream,
                 timed)

    with space.lock:
        space.fit(n, m)
        graph = None
        if replay and not SYNC_EACH_LAUNCH:
            # The workspace's buffers are not in the key: a reallocation drops every capture.
            # The count kernel is a function of n, COUNT_SET and BITS_MAX_BYTES (count_set).
            key = (indptr.data.ptr, indices.data.ptr, indices.dtype, n, m, COUNT_SET,
                   BITS_MAX_BYTES)
            graph = _captured(space, key, enqueue)
        if graph is not None:
            graph.launch(stream)
        else:
            enqueue(stream)
        stream.synchronize()  # the count kernel has written space.host
        return int(space.host[0])
