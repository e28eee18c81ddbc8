"""Launcher of ``kernels/small.cu``: the short route of small graphs.

Counts: distinct triangles of a built graph's upper-triangular CSR on the device,
in four launches on one stream (degrees; the (degree, id) orientation with the
out-degree scan in its last block; the scatter of the out-lists; the hash-set
count) after one memset, and one 8-byte read: no host synchronisation, sort,
plan or allocation between the built graph and the count. The kernel file's
header says what each launch does and how each triangle is counted once.

Everything the kernels need lives in one :class:`Workspace` per device, made
when first needed and grown when a graph needs more, never freed by a call:
one buffer of 32-bit words (:func:`workspace_words`, laid out as
``tc_small_layout`` of the kernel file) and one of ``n + 1`` 64-bit offsets. The
kernels are fetched once per (device, column type) and kept in a dict, so a call
costs a few dictionary look-ups and launches of host time.

Which graphs take this route, and why, is decided by
:func:`tricount.gpu.plan.choose_short_route`; :func:`tricount.gpu.engine.count`
calls :func:`count_small`.
"""

from __future__ import annotations

import numpy as np

from tricount.gpu._module import get_kernel
from tricount.gpu.device import ceil_div, cupy, device_facts, launch

__all__ = ["count_small", "workspace_words", "Workspace", "DEFAULT_DEFINES", "KERNELS"]

#: Threads per block of the degree, scatter and count kernels.
BLOCK_SIZE = 256
#: Threads of the orientation kernel's blocks; its last block scans the out-degrees.
SCAN_BLOCK = 1024
#: Slots (32-bit words) of a warp's shared hash table: out-lists of up to half as many
#: entries are counted on chip (the five graphs of issue 7 have at most 238 under the
#: (degree, id) order: 2^9 = 512 holds them all), longer ones against a table in
#: global memory built by the scatter.
WARP_SLOTS = 512
#: Blocks per multiprocessor that a grid-stride launch asks for at most.
BLOCKS_PER_SM = 8
#: The header words before the degrees: the count (2), kernel 2's finished blocks, one spare.
HEADER_WORDS = 4
#: The kernels of ``small.cu``, in launch order.
KERNELS = ("tc_small_degrees", "tc_small_orient", "tc_small_scatter", "tc_small_count")


def kernel_defines(*, vertex_t: str) -> dict:
    """Every define of ``kernels/small.cu`` for columns of C type ``vertex_t``."""
    return {"block_size": BLOCK_SIZE, "vertex_t": vertex_t, "warp_slots": WARP_SLOTS,
            "scan_block": SCAN_BLOCK}


#: The file's ``#ifndef`` defaults.
DEFAULT_DEFINES = {"small": kernel_defines(vertex_t="int")}


def zeroed_words(n_vertices: int, n_edges: int) -> int:
    """Words of the workspace that start each count at zero: header, degrees,
    out-degrees and the global hash tables (4 words per edge)."""
    return HEADER_WORDS + 2 * n_vertices + 4 * n_edges


def workspace_words(n_vertices: int, n_edges: int) -> int:
    """32-bit words of the workspace: the zeroed part, then COO rows and out-lists
    (one word per edge each) and one owner per task (at most m / 32 + min(n, m) + 1)."""
    return (zeroed_words(n_vertices, n_edges) + 2 * n_edges
            + n_edges // 32 + min(n_vertices, n_edges) + 1)


class Workspace:
    """One device's buffers for the short route: ``words`` (int32) and ``offsets``
    (uint64, one per vertex and one more), with ``result`` the count's two words
    seen as one uint64. Grown, never shrunk."""

    def __init__(self):
        self.words = self.offsets = self.result = None

    def fit(self, n_vertices: int, n_edges: int) -> None:
        """Make room for a graph of this size (allocates only when it is larger than
        any before; a quarter more then, so that growing graphs reallocate rarely)."""
        cp = cupy()
        need = workspace_words(n_vertices, n_edges)
        if self.words is None or self.words.size < need:
            self.words = self.result = None  # the old buffer goes back to the pool first
            self.words = cp.empty(need + need // 4, dtype=cp.int32)
            self.result = self.words[:2].view(cp.uint64)
        if self.offsets is None or self.offsets.size < n_vertices + 1:
            self.offsets = None
            self.offsets = cp.empty(n_vertices + 1 + (n_vertices + 1) // 4, dtype=cp.uint64)


_WORKSPACES: dict = {}
_KERNELS: dict = {}


def _kernels(device_id: int, index_dtype) -> tuple:
    """The four kernels for this device and column type, compiled once."""
    key = (device_id, index_dtype)
    kernels = _KERNELS.get(key)
    if kernels is None:
        vertex_t = "int" if index_dtype == np.int32 else "long long"
        defines = kernel_defines(vertex_t=vertex_t)
        sm_count = device_facts().sm_count
        kernels = tuple(get_kernel("small", name, defines) for name in KERNELS) + (sm_count,)
        _KERNELS[key] = kernels
    return kernels


def count_small(indptr, indices, n_vertices: int, n_edges: int, timed) -> int:
    """Triangles of the upper-triangular CSR ``indptr`` (int64) / ``indices`` (int32 or
    int64) on the current device, ``n_edges >= 1``; ``timed()`` wraps the count kernel.

    Raises CuPy's OutOfMemoryError when the workspace cannot grow (the engine
    turns it into :class:`~tricount.UnsupportedGraphError`).
    """
    cp = cupy()
    n, m = int(n_vertices), int(n_edges)
    if indptr.dtype != np.int64 or not indptr.flags.c_contiguous:
        indptr = cp.ascontiguousarray(indptr, dtype=cp.int64)
    if indices.dtype not in (np.int32, np.int64) or not indices.flags.c_contiguous:
        indices = cp.ascontiguousarray(indices, dtype=cp.int64)
    device_id = cp.cuda.runtime.getDevice()
    degrees, orient, scatter, count, sm_count = _kernels(device_id, indices.dtype)
    space = _WORKSPACES.get(device_id)
    if space is None:
        space = _WORKSPACES[device_id] = Workspace()
    space.fit(n, m)
    words, offsets = space.words, space.offsets
    stream = cp.cuda.get_current_stream()
    cp.cuda.runtime.memsetAsync(words.data.ptr, 0, 4 * zeroed_words(n, m), stream.ptr)
    n64, m64 = np.int64(n), np.int64(m)
    # Grid-stride launches: at most BLOCKS_PER_SM blocks per multiprocessor, fewer
    # for a small graph (one item per thread).
    cap = BLOCKS_PER_SM * sm_count
    launch(degrees, min(cap, ceil_div(max(n, m), BLOCK_SIZE)), BLOCK_SIZE,
           (indptr, indices, n64, m64, words))
    launch(orient, min(cap * BLOCK_SIZE // SCAN_BLOCK, ceil_div(m, SCAN_BLOCK)), SCAN_BLOCK,
           (indptr, indices, n64, m64, words, offsets))
    launch(scatter, min(cap, ceil_div(m, BLOCK_SIZE)), BLOCK_SIZE,
           (indices, n64, m64, words, offsets))
    # One warp per task: at most m / 32 + min(n, m) tasks.
    warps_per_block = BLOCK_SIZE // 32
    tasks = m // 32 + min(n, m)
    with timed():
        launch(count, min(cap, ceil_div(tasks, warps_per_block)), BLOCK_SIZE,
               (n64, m64, words, offsets), 4 * warps_per_block * WARP_SLOTS)
    return int(space.result.get()[0])
