"""Peak live GPU memory: a CuPy memory hook that follows every pool allocation and free.

It counts the arrays alive (what CuPy's pool hands out, rounded to its
blocks), not the pool's cached free blocks, so ``peak`` is the high-water
mark of what the code held at once. CuPy is imported only when a hook is made.
The hook lives in :mod:`tricount.gpu.device` (the partitioned count reports it
per device); the benchmarks import it from here.

    with live_memory_hook() as hook:
        ...
    hook.peak        # bytes; hook.reset() starts a new phase from what is alive
"""

from __future__ import annotations

from tricount.gpu.device import live_memory_hook

__all__ = ["live_memory_hook"]
