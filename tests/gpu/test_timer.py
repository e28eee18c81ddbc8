"""KernelTimer's hold: the events time the GPU's work, released by the host's flag.

A one-thread kernel (kernels/timing.cu) holds the stream until the timed
launches and the stop event are enqueued; these tests check that the release
reaches it (not the timeout) for a plain launch and for six methods' timed
launches, and that a region which synchronizes inside ends by the timeout
instead of hanging.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from gpu_support import complete_graph, gpu_count, require_gpu  # noqa: E402

pytestmark = pytest.mark.gpu
require_gpu()

import cupy  # noqa: E402

from tricount.gpu._common import KernelTimer  # noqa: E402


class TestKernelTimer:
    def test_a_launch_is_timed_with_the_stream_held_and_released(self):
        x = cupy.zeros(1 << 20, dtype=cupy.float32)
        x += 1  # compiles the kernel outside the timed region
        with KernelTimer() as timer:
            x += 1
        assert timer.released
        assert 0 < timer.seconds
        assert float(x[0]) == 2.0

    def test_every_count_of_the_engine_is_released(self):
        from tricount.gpu import _common

        timers = []
        original = _common.KernelTimer.__exit__

        def spy(self, *exc):
            timers.append(self)
            return original(self, *exc)

        graph = complete_graph(30)
        gpu_count(graph, "bitwedge", {})  # compiles
        _common.KernelTimer.__exit__ = spy
        try:
            for method in ("merge", "hash", "wedge", "bitwedge", "dynamic", "bitmap"):
                assert gpu_count(graph, method, {}) == 4060
        finally:
            _common.KernelTimer.__exit__ = original
        assert len(timers) == 6 and all(t.released for t in timers)

    def test_without_hold_nothing_is_held(self):
        with KernelTimer(hold=False) as timer:
            cupy.arange(10).sum()
        assert not timer.released
        assert timer.seconds >= 0

    def test_a_region_that_synchronizes_ends_by_the_timeout(self):
        # The hold cannot be released while the host waits on the stream:
        # the timeout ends it, and the timer says the measurement is not clean.
        with KernelTimer() as timer:
            cupy.cuda.get_current_stream().synchronize()
        assert not timer.released
        with KernelTimer() as later:  # the next timer is unaffected
            cupy.arange(10).sum()
        assert later.released
