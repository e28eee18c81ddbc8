"""The lab methods of benchmarks/baselines run through the GPU engine like production plans.

Their counts on every graph are in the graph, kernel and boundary tests (the
method variants of gpu_support); here: what the engine reports for them, their
options, and the memory limits that shrink radix's batches and spgemm's row
blocks.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from gpu_support import complete_graph, require_gpu  # noqa: E402

pytestmark = pytest.mark.gpu
require_gpu()

import baselines  # noqa: E402  (gpu_support put benchmarks/ on the path)
from tricount.bench.gpu_timer import KernelTimer  # noqa: E402
from tricount.errors import UnknownMethodError  # noqa: E402
from tricount.gpu import device, engine  # noqa: E402


@pytest.mark.parametrize("method", baselines.METHODS)
def test_result_reports_method_and_timings(method):
    out = baselines.count(complete_graph(10), method, timer=KernelTimer)
    assert out.n_triangles == 120
    assert out.method == method and out.method_reason == "requested"
    assert set(out.timings) == {"transfer_s", "preprocess_s", "count_s", "gpu_s", "kernel_s"}


@pytest.mark.parametrize("method", baselines.METHODS)
def test_other_orientations(method):
    for orientation in ("degree", "id"):
        assert baselines.count(complete_graph(12), method, orientation=orientation).n_triangles \
            == 220


def test_unknown_option_is_named():
    with pytest.raises(UnknownMethodError, match="'blocks'"):
        baselines.count(complete_graph(4), "merge", blocks=3)
    with pytest.raises(UnknownMethodError, match="binary variant 'nope'"):
        baselines.count(complete_graph(4), "binary", variant="nope")


@pytest.fixture
def four_mib_free(monkeypatch):
    """4 MiB "free": enough for K300 and its orientation, not for its 4.5 M products
    or wedge keys at once."""
    for module in (device, engine):
        monkeypatch.setattr(module, "free_device_bytes", lambda: 4 << 20)


def test_spgemm_row_blocks_shrink_to_fit(four_mib_free):
    assert baselines.count(complete_graph(300), "spgemm").n_triangles == 4_455_100
    assert baselines.count(complete_graph(300), "spgemm",
                           max_products=50_000).n_triangles == 4_455_100


def test_radix_batches_shrink_to_fit(four_mib_free):
    # E' of K300 has C(300, 3) = 4,455,100 keys (36 MB); with 4 MiB "free" the
    # batches shrink to about 125,000 keys and the count must not change.
    assert baselines.count(complete_graph(300), "radix").n_triangles == 4_455_100
