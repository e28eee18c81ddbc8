"""The benchmark's GPU timer: CUDA events around the kernel launches, the stream held meanwhile.

:class:`KernelTimer` is the ``timer`` that the benchmarks pass to the GPU
engine (:func:`tricount.gpu.engine.count`), which wraps it around every
kernel launch; production counts never run it. CUDA events start timing when
they are recorded, and the GPU then idles while Python builds and submits the
launch: 9-20 µs on an H100, as long as the whole kernel on the small graphs.
So a one-thread kernel (``kernels/timing.cu``) holds the stream until the
region's launches and its stop event are enqueued, and the events time the
GPU's own work (NVBench's method; the events still include the GPU's launch
latency, about 3 µs). A region in which the host waits on the GPU cannot be
held (the hold would wait for the host that waits for it): those are timed
without it (``host_syncs=True``). CuPy is imported when a timer is used.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from tricount.gpu._module import get_kernel
from tricount.gpu.device import SYNC_EACH_LAUNCH, cupy

__all__ = ["KernelTimer", "HOLD_TIMEOUT_NS", "DEFAULT_DEFINES"]

#: A held stream waits at most this long for the host to finish enqueuing.
HOLD_TIMEOUT_NS = 5_000_000
#: One warp holds the stream (one thread of it polls).
HOLD_BLOCK_SIZE = 32
#: ``kernels/timing.cu``'s ``#ifndef`` defaults.
DEFAULT_DEFINES = {"timing": {"block_size": HOLD_BLOCK_SIZE, "vertex_t": "int"}}


@functools.lru_cache(maxsize=None)
def _hold_words():
    """Two pinned host words (a NumPy view): [0] releases held streams, [1] is the
    last ticket a hold saw released (not timed out)."""
    import cupyx  # CuPy's companion package: imported with it, on first use

    words = cupyx.empty_pinned(2, dtype=np.uint64)
    words[:] = 0
    return words


class KernelTimer:
    """CUDA events around a region on the current stream; ``seconds`` after a sync.

    ``host_syncs`` says that the host waits on the GPU inside the region, which
    is then timed without holding the stream.
    """

    _tickets = itertools.count(1)

    def __init__(self, *, host_syncs: bool = False):
        self.hold = not host_syncs and not SYNC_EACH_LAUNCH

    def __enter__(self):
        cp = cupy()
        self._start, self._stop = cp.cuda.Event(), cp.cuda.Event()
        if self.hold:
            self._words = _hold_words()
            self._ticket = next(KernelTimer._tickets)
            address = self._words.ctypes.data
            kernel = get_kernel("timing", "tc_hold_stream", DEFAULT_DEFINES["timing"])
            kernel((1,), (HOLD_BLOCK_SIZE,), (np.uint64(address), np.uint64(address + 8),
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
