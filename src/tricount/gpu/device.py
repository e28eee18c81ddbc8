"""What every GPU launcher shares: CuPy, device facts, memory, launches, counts.

Importing this module does not import CuPy; :func:`cupy` does, on first call,
so ``import tricount.gpu.<anything>`` works on a machine without CUDA.
"""

from __future__ import annotations

import functools
import os
import re

import numpy as np

from tricount.errors import TricountError, UnsupportedGraphError
from tricount.gpu.plan import MEMORY_SAFETY, DeviceFacts

__all__ = [
    "cupy",
    "device_facts",
    "free_device_bytes",
    "require_memory",
    "out_of_memory",
    "live_memory_hook",
    "c_type",
    "kernel_arrays",
    "resident_grid",
    "launch",
    "read_count",
    "ceil_div",
]

#: Set TRICOUNT_GPU_SYNC=1 to synchronize after every launch (pins an
#: asynchronous fault on the launch that caused it).
SYNC_EACH_LAUNCH = os.environ.get("TRICOUNT_GPU_SYNC", "") not in ("", "0")
#: CUDA's limit on grid.x.
MAX_GRID = 2**31 - 1
#: What to do when the device is too small, said by every memory error.
ADVICE = ("pass max_memory=BYTES (hash then counts in slices within it), or use "
          "backend='cpu', or a larger GPU")


def cupy():
    """The CuPy module (imported on first use)."""
    import cupy as cp

    return cp


def device_facts() -> DeviceFacts:
    """Multiprocessors, the opt-in shared-memory limit and the name of the current device."""
    return _device_facts(cupy().cuda.Device().id)


@functools.lru_cache(maxsize=None)
def _device_facts(device_id: int) -> DeviceFacts:
    # Asked once per device: the properties query costs about a millisecond.
    cp = cupy()
    attrs = cp.cuda.Device(device_id).attributes
    name = cp.cuda.runtime.getDeviceProperties(device_id)["name"]
    return DeviceFacts(
        sm_count=int(attrs["MultiProcessorCount"]),
        shared_per_block_optin=int(attrs.get("MaxSharedMemoryPerBlockOptin",
                                             attrs["MaxSharedMemoryPerBlock"])),
        name=name.decode() if isinstance(name, bytes) else str(name))


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
            f"{free / 2**30:.2f} GiB are free ({MEMORY_SAFETY:.0%} of it usable); {ADVICE}")


_ALLOCATING = re.compile(r"allocating ([\d,]+) bytes")


def out_of_memory(what, advice: str = ADVICE) -> "_OutOfMemory":
    """A context manager that turns the device running out of memory inside the block
    into :class:`UnsupportedGraphError`, naming ``what`` did not fit (a string, or a
    function that makes it, called only then) and how much it asked for, and ``advice``.

    A small class rather than a generator: the short route enters one per count, and a
    ``contextlib`` generator costs it about a microsecond."""
    return _OutOfMemory(what, advice)


class _OutOfMemory:
    __slots__ = ("what", "advice")

    def __init__(self, what, advice: str):
        self.what, self.advice = what, advice

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, traceback) -> bool:
        if kind is None or not issubclass(kind, cupy().cuda.memory.OutOfMemoryError):
            return False
        what = self.what() if callable(self.what) else self.what
        asked = _ALLOCATING.search(str(exc))
        size = (f" (one allocation of {asked.group(1)} bytes failed: {exc})" if asked
                else f" ({exc})")
        raise UnsupportedGraphError(f"{what} ran out of GPU memory{size}; {self.advice}") from exc


def live_memory_hook(name: str = "tricount-live-memory"):
    """A new CuPy memory hook (a context manager) that follows every pool allocation and free
    of the thread it is entered in: ``live`` and ``peak`` bytes, ``start``, ``reset()``.

    It counts the arrays alive (what CuPy's pool hands out, rounded to its
    blocks), not the pool's cached free blocks, so ``peak`` is the high-water
    mark of what the code held at once. CuPy's hooks are per thread and by
    ``name`` (two of one name cannot be active in one thread): each device
    thread of a partitioned count enters its own, named after its device.

    A free in another thread is not heard: an array whose last reference another
    thread drops (an in-process sampling profiler that held the counting thread's
    frame for a moment, run 64's 172 GB on an 80 GB card) would stay counted. So,
    while CuPy allocates from its default pool, every allocation heard also reads
    that pool's bytes in use on the device, less those in use when the hook first
    heard of the device: that witness hears every thread's frees, and ``live`` is
    the smaller of the two (the witness is the larger where other code allocates on
    the device meanwhile). A free of a block the hook never saw allocated changes
    nothing.
    """
    cp = cupy()
    pool = cp.get_default_memory_pool()
    # Another allocator (a user's pool, managed memory): no witness, the hook alone.
    witness = pool if cp.cuda.get_allocator() == pool.malloc else None

    class LiveMemory(cp.cuda.MemoryHook):
        def __init__(self):
            self.name = name
            self.live, self.peak, self.start = 0, 0, 0
            self.sizes = {}  # pointer -> (device id, bytes) of each block heard allocated
            # Per device: allocations heard less frees heard (a missed free stays in); the
            # pool's bytes in use besides this hook's; what is alive, at most either.
            self.heard, self.base, self.alive = {}, {}, {}

        def malloc_postprocess(self, device_id, size, mem_size, mem_ptr, pmem_id):
            self.sizes[mem_ptr] = (device_id, mem_size)
            heard = self.heard[device_id] = self.heard.get(device_id, 0) + mem_size
            alive = heard
            if witness is not None:  # called on the allocating device: its pool is current
                used = witness.used_bytes()
                base = self.base.setdefault(device_id, used - heard)
                alive = min(heard, max(0, used - base))
            self._set(device_id, alive)
            self.peak = max(self.peak, self.live)

        def free_postprocess(self, device_id, mem_size, mem_ptr, pmem_id):
            device, freed = self.sizes.pop(mem_ptr, (device_id, 0))
            if freed:
                self.heard[device] -= freed
                self._set(device, max(0, min(self.heard[device], self.alive[device] - freed)))

        def _set(self, device, alive):
            self.alive[device] = alive
            self.live = sum(self.alive.values())

        def reset(self):
            """Start a phase: ``peak`` and ``start`` become what is alive now."""
            self.peak = self.start = self.live

    return LiveMemory()


def c_type(dtype) -> str:
    """The C type of an id array for ``-DTC_*_T``: ``int`` for int32, else ``long long``."""
    return "int" if np.dtype(dtype) == np.int32 else "long long"


def kernel_arrays(oriented):
    """``(indptr, rows, cols, vertex_type)`` ready for a kernel: contiguous, int64 offsets.

    ``vertex_type`` is the C type of ``rows``/``cols`` for ``-DTC_VERTEX_T``;
    ``rows`` is None for a graph oriented without COO rows (the sliced preparation).
    """
    cp = cupy()
    indptr = cp.ascontiguousarray(oriented.indptr, dtype=cp.int64)
    dtype = cp.int32 if oriented.indices.dtype == np.int32 else cp.int64
    rows = None if oriented.rows is None else cp.ascontiguousarray(oriented.rows, dtype=dtype)
    cols = cp.ascontiguousarray(oriented.indices, dtype=dtype)
    return indptr, rows, cols, c_type(dtype)


def resident_grid(kernel, block_size: int, shared_bytes: int = 0, *, work_blocks=None) -> int:
    """Blocks that fill the device once (occupancy × multiprocessors).

    Capped at ``work_blocks`` when given, and never below 1.
    """
    cp = cupy()
    sm_count = device_facts().sm_count
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
    if not (1 <= grid <= MAX_GRID) or not (32 <= block <= 1024):
        raise TricountError(f"invalid launch of {kernel.name}: grid {grid}, block {block}")
    # Past 48 KiB of dynamic plus static shared memory a kernel must opt in.
    static = getattr(kernel, "shared_size_bytes", None)
    if shared_bytes and (static is None or shared_bytes + int(static) > 48 * 1024):
        kernel.max_dynamic_shared_size_bytes = shared_bytes
    kernel((int(grid),), (int(block),), args, shared_mem=int(shared_bytes))
    if SYNC_EACH_LAUNCH:
        cupy().cuda.get_current_stream().synchronize()


def launch_grid_stride(kernel, block_size: int, n_items: int, args: tuple) -> None:
    """Launch a grid-stride kernel over ``n_items`` items with a grid that fills the
    device once, capped at one item per thread."""
    grid = resident_grid(kernel, block_size, work_blocks=ceil_div(max(1, n_items), block_size))
    launch(kernel, grid, block_size, args)


def read_count(result) -> int:
    """The 64-bit count in a one-element uint64 device array, as a Python int (syncs)."""
    return int(cupy().asnumpy(result)[0])


def ceil_div(a: int, b: int) -> int:
    return -(-int(a) // int(b))

