"""The benchmark's KernelTimer: who ends the hold on the stream, never how long anything took.

A one-thread kernel (kernels/timing.cu) holds the stream until the host raises
a flag after enqueuing the timed launches and the stop event, or until a
timeout. These tests make the outcome independent of the machine's speed: a
timeout of a minute, so that only the host's flag can end a hold, or a region
in which the host waits on the stream, which only the timeout can end.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from gpu_support import complete_graph, require_gpu  # noqa: E402

pytestmark = pytest.mark.gpu
require_gpu()

import cupy  # noqa: E402

from tricount.bench import gpu_timer  # noqa: E402
from tricount.bench.gpu_timer import KernelTimer  # noqa: E402
from tricount.gpu import GPU_METHODS, engine  # noqa: E402

MINUTE_NS = 60 * 10**9


@pytest.fixture
def long_hold(monkeypatch):
    monkeypatch.setattr(gpu_timer, "HOLD_TIMEOUT_NS", MINUTE_NS)


class TestKernelTimer:
    def test_a_launch_is_timed_with_the_stream_held_and_released(self, long_hold):
        x = cupy.zeros(1 << 20, dtype=cupy.float32)
        x += 1  # loads the kernel first: a module load inside a hold waits for the hold
        with KernelTimer() as timer:
            x += 1
        assert timer.released
        assert isinstance(timer.seconds, float)
        assert float(x[0]) == 2.0

    def test_every_count_of_the_engine_is_released(self, long_hold):
        timers = []

        def recording(**kwargs):
            timers.append(KernelTimer(**kwargs))
            return timers[-1]

        graph = complete_graph(30)
        for method in GPU_METHODS:
            assert engine.count(graph, method=method, timer=recording).n_triangles == 4060
        assert len(timers) == len(GPU_METHODS)
        assert all(t.hold and t.released for t in timers)

    def test_a_region_with_host_syncs_is_not_held(self):
        with KernelTimer(host_syncs=True) as timer:
            cupy.arange(10).sum().get()
        assert not timer.hold and not timer.released
        assert isinstance(timer.seconds, float)

    def test_a_region_that_synchronizes_ends_by_the_timeout(self, monkeypatch):
        # The host cannot raise the flag while it waits on the stream, so only the
        # timeout ends this hold, however fast or slow the machine.
        monkeypatch.setattr(gpu_timer, "HOLD_TIMEOUT_NS", 1_000_000)
        with KernelTimer() as timer:
            cupy.cuda.get_current_stream().synchronize()
        assert not timer.released
        monkeypatch.setattr(gpu_timer, "HOLD_TIMEOUT_NS", MINUTE_NS)
        with KernelTimer() as later:  # the next timer is unaffected
            cupy.arange(10).sum()
        assert later.released
