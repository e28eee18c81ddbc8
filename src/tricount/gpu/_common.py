"""What every GPU launcher shares: device facts, memory checks, launches, timers.

Nothing here imports CuPy at module import; each function imports it when
called, so ``import tricount.gpu.<method>`` works on a machine without CUDA.
"""

from __future__ import annotations

import functools
import itertools
import math
import os

import numpy as np

from tricount.errors import TricountError, UnsupportedGraphError

__all__ = [
    "cupy",
    "device_facts",
    "free_device_bytes",
    "require_memory",
    "kernel_arrays",
    "resident_grid",
    "launch",
    "launch_edge_groups",
    "KernelTimer",
    "read_count",
]

#: Use at most this share of the free device memory for one count; the rest
#: absorbs CuPy's pool rounding and library workspaces (cuSPARSE, CUB).
MEMORY_SAFETY = 0.85
#: Set TRICOUNT_GPU_SYNC=1 to synchronize after every launch (pins an
#: asynchronous fault on the launch that caused it).
SYNC_EACH_LAUNCH = os.environ.get("TRICOUNT_GPU_SYNC", "") not in ("", "0")
#: CUDA's limit on grid.x.
MAX_GRID = 2**31 - 1


def cupy():
    """The CuPy module (imported on first use)."""
    import cupy as cp

    return cp


def device_facts() -> dict:
    """Multiprocessors, shared-memory limits and name of the current device."""
    return _device_facts(cupy().cuda.Device().id)


@functools.lru_cache(maxsize=None)
def _device_facts(device_id: int) -> dict:
    cp = cupy()
    dev = cp.cuda.Device(device_id)
    attrs = dev.attributes
    props = cp.cuda.runtime.getDeviceProperties(dev.id)
    name = props["name"]
    return {
        "id": dev.id,
        "name": name.decode() if isinstance(name, bytes) else str(name),
        "sm_count": int(attrs["MultiProcessorCount"]),
        "shared_per_block": int(attrs["MaxSharedMemoryPerBlock"]),
        "shared_per_block_optin": int(attrs.get("MaxSharedMemoryPerBlockOptin",
                                                attrs["MaxSharedMemoryPerBlock"])),
        "compute_capability": dev.compute_capability,
    }


def free_device_bytes() -> int:
    """Bytes a new allocation can get: free on the device plus CuPy's pooled free blocks."""
    cp = cupy()
    free, _total = cp.cuda.runtime.memGetInfo()
    return int(free) + int(cp.get_default_memory_pool().free_bytes())


def require_memory(need_bytes: int, what: str, *, free_bytes: int | None = None) -> None:
    """Raise :class:`UnsupportedGraphError` before allocating when ``need_bytes`` will not fit.

    ``what`` names the step and the graph so the message says what was too big.
    """
    free = free_device_bytes() if free_bytes is None else int(free_bytes)
    if need_bytes > MEMORY_SAFETY * free:
        raise UnsupportedGraphError(
            f"{what} needs about {need_bytes / 2**30:.2f} GiB of GPU memory, but only "
            f"{free / 2**30:.2f} GiB are free ({MEMORY_SAFETY:.0%} of it usable); "
            "use backend='cpu', a method with less memory (merge), or a larger GPU"
        )


def kernel_arrays(oriented):
    """``(indptr, rows, cols, vertex_type)`` ready for a kernel: contiguous, int64 offsets.

    ``vertex_type`` is the C type of ``rows``/``cols`` for ``-DTC_VERTEX_T``;
    ``rows`` is None for a graph oriented without COO rows (:mod:`tricount.gpu.sliced`).
    """
    cp = cupy()
    indptr = cp.ascontiguousarray(oriented.indptr, dtype=cp.int64)
    dtype = cp.int32 if oriented.indices.dtype == np.int32 else cp.int64
    rows = None if oriented.rows is None else cp.ascontiguousarray(oriented.rows, dtype=dtype)
    cols = cp.ascontiguousarray(oriented.indices, dtype=dtype)
    return indptr, rows, cols, ("int" if dtype == cp.int32 else "long long")


def resident_grid(kernel, block_size: int, shared_bytes: int = 0, *, work_blocks=None) -> int:
    """Blocks that fill the device once (occupancy × multiprocessors).

    Capped at ``work_blocks`` when given, and never below 1.
    """
    cp = cupy()
    sm_count = device_facts()["sm_count"]
    try:
        per_sm = cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(
            kernel.kernel.ptr, block_size, shared_bytes)
    except Exception:  # older CuPy: assume the hardware limit of 2048 threads per SM
        per_sm = max(1, 2048 // block_size)
    grid = max(1, int(per_sm)) * sm_count
    if work_blocks is not None:
        grid = min(grid, max(1, int(work_blocks)))
    return grid


def launch(kernel, grid: int, block: int, args: tuple, shared_bytes: int = 0) -> None:
    """Launch with checked sizes; launch errors raise at once (CuPy checks the return code).

    Faults inside the kernel surface at the next synchronization, which every
    launcher does before returning its count (and after each launch when
    ``TRICOUNT_GPU_SYNC=1``).
    """
    cp = cupy()
    if not (1 <= grid <= MAX_GRID) or not (32 <= block <= 1024):
        raise TricountError(f"invalid launch of {kernel.name}: grid {grid}, block {block}")
    # Past 48 KiB of dynamic plus static shared memory a kernel must opt in.
    static = getattr(kernel, "shared_size_bytes", None)
    if shared_bytes and (static is None or shared_bytes + int(static) > 48 * 1024):
        kernel.max_dynamic_shared_size_bytes = shared_bytes
    kernel((int(grid),), (int(block),), args, shared_mem=int(shared_bytes))
    if SYNC_EACH_LAUNCH:
        cp.cuda.get_current_stream().synchronize()


#: A held stream waits at most this long for the host to finish enqueuing.
HOLD_TIMEOUT_NS = 5_000_000


@functools.lru_cache(maxsize=None)
def _hold_words():
    """Two pinned host words (a NumPy view): [0] releases held streams, [1] is the
    last ticket a hold saw released (not timed out)."""
    import cupyx

    words = cupyx.empty_pinned(2, dtype=np.uint64)
    words[:] = 0
    return words


class KernelTimer:
    """CUDA events around a region on the current stream; ``seconds`` after a sync.

    With ``hold`` (the default) a one-thread kernel (``kernels/timing.cu``)
    holds the stream until the region's launches and its stop event are
    enqueued, so the events time the GPU's work and not the host's: a CuPy
    launch costs 9-20 µs of Python and driver time, as long as the whole kernel
    on the small graphs (benchmarks/gpu_notes.md). Regions that synchronize or
    do host work between launches pass ``hold=False`` and are timed with it.
    """

    _tickets = itertools.count(1)

    def __init__(self, hold: bool = True):
        self.hold = hold and not SYNC_EACH_LAUNCH

    def __enter__(self):
        cp = cupy()
        self._start, self._stop = cp.cuda.Event(), cp.cuda.Event()
        if self.hold:
            from tricount.gpu._module import get_kernel

            self._words = _hold_words()
            self._ticket = next(KernelTimer._tickets)
            address = self._words.ctypes.data
            kernel = get_kernel("timing", "tc_hold_stream", block_size=32)
            kernel((1,), (32,), (np.uint64(address), np.uint64(address + 8),
                                 np.uint64(self._ticket), np.int64(HOLD_TIMEOUT_NS)))
        self._start.record()
        return self

    def __exit__(self, *exc):
        self._stop.record()
        if self.hold:  # release: every launch of the region is enqueued now
            self._words[0] = max(int(self._words[0]), self._ticket)
        return False

    @property
    def seconds(self) -> float:
        cp = cupy()
        self._stop.synchronize()
        return cp.cuda.get_elapsed_time(self._start, self._stop) / 1e3

    @property
    def released(self) -> bool:
        """Whether the hold ended by the host's release, not by its timeout (after a sync);
        False for a timer that did not hold."""
        self._stop.synchronize()
        return self.hold and int(self._words[1]) >= self._ticket


def launch_edge_groups(stem: str, name: str, oriented, out, *, block_size: int, group_size: int,
                       grid_size: int | None = None) -> None:
    """Launch a kernel of the local.cuh schedule (a group of ``group_size`` lanes per
    oriented edge, grid-stride) with arguments ``(indptr, rows, cols, n_edges, out)``.

    A grid of ``None`` fills the device once, capped at one group per edge.
    """
    from tricount.gpu._module import get_kernel

    if not oriented.n_edges:
        return
    indptr, rows, cols, vertex = kernel_arrays(oriented)
    kernel = get_kernel(stem, name, block_size=block_size, group_size=group_size, vertex_t=vertex)
    if grid_size is None:
        grid_size = resident_grid(kernel, block_size,
                                  work_blocks=ceil_div(oriented.n_edges, block_size // group_size))
    launch(kernel, grid_size, block_size, (indptr, rows, cols, np.int64(oriented.n_edges), out))


def read_count(result) -> int:
    """The 64-bit count in a one-element uint64 device array, as a Python int (syncs)."""
    return int(cupy().asnumpy(result)[0])


def ceil_div(a: int, b: int) -> int:
    return -(-int(a) // int(b))


def log2_ceil(x: int) -> int:
    return max(0, math.ceil(math.log2(max(1, x))))
