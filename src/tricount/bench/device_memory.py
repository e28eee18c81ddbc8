"""Peak live GPU memory: a CuPy memory hook that follows every pool allocation and free.

It counts the arrays alive (what CuPy's pool hands out, rounded to its
blocks), not the pool's cached free blocks, so ``peak`` is the high-water
mark of what the code held at once. CuPy is imported only when a hook is made.

    with live_memory_hook() as hook:
        ...
    hook.peak        # bytes; hook.reset() starts a new phase from what is alive
"""

from __future__ import annotations

__all__ = ["live_memory_hook"]


def live_memory_hook():
    """A new hook (a context manager): ``live``, ``peak``, ``start`` and ``reset()``."""
    import cupy

    class LiveMemory(cupy.cuda.MemoryHook):
        name = "tricount-live-memory"

        def __init__(self):
            self.live, self.peak, self.start, self.sizes = 0, 0, 0, {}

        def malloc_postprocess(self, device_id, size, mem_size, mem_ptr, pmem_id):
            self.sizes[mem_ptr] = mem_size
            self.live += mem_size
            self.peak = max(self.peak, self.live)

        def free_postprocess(self, device_id, mem_size, mem_ptr, pmem_id):
            self.live -= self.sizes.pop(mem_ptr, mem_size)

        def reset(self):
            """Start a phase: ``peak`` and ``start`` become what is alive now."""
            self.peak = self.start = self.live

    return LiveMemory()
