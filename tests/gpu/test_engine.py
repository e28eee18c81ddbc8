"""The GPU engine's contract: names, options, reasons, timings, memory checks, imports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from gpu_support import complete_graph, require_gpu  # noqa: E402

pytestmark = pytest.mark.gpu
require_gpu()

import tricount  # noqa: E402
from tricount.errors import UnknownMethodError, UnsupportedGraphError  # noqa: E402
from tricount.gpu import GPU_METHODS, engine  # noqa: E402


def test_unknown_method_lists_the_gpu_methods():
    with pytest.raises(UnknownMethodError) as info:
        engine.count(complete_graph(4), method="nonesuch")
    for name in GPU_METHODS:
        assert name in str(info.value)


def test_unknown_option_is_named():
    with pytest.raises(UnknownMethodError, match="'blocks'"):
        engine.count(complete_graph(4), method="merge", blocks=3)


def test_auto_takes_no_method_options():
    with pytest.raises(UnknownMethodError):
        engine.count(complete_graph(4), method="auto", sf=2.0)


def test_bad_orientation():
    with pytest.raises(UnknownMethodError, match="orientation"):
        engine.count(complete_graph(4), method="merge", orientation="random")


@pytest.mark.parametrize("method", GPU_METHODS)
def test_result_reports_method_and_timings(method):
    out = engine.count(complete_graph(10), method=method)
    assert out.n_triangles == 120
    assert out.method == method and out.method_reason == "requested"
    for key in ("preprocess_s", "count_s", "kernel_s", "gpu_s"):
        assert out.timings[key] >= 0.0
    assert out.timings["kernel_s"] <= out.timings["count_s"] + 1e-3
    assert out.timings["gpu_s"] >= out.timings["count_s"]


def test_auto_records_why():
    out = engine.count(complete_graph(10), method="auto")
    assert out.method in GPU_METHODS
    assert out.method_reason.startswith("auto:")


def test_api_reaches_the_gpu_engine():
    res = tricount.count(complete_graph(5), backend="gpu", method="merge")
    assert res.n_triangles == 10 and res.backend == "gpu"
    assert {"kernel_s", "gpu_s", "count_s"} <= set(res.timings)


def test_too_large_graph_is_refused_before_allocating(monkeypatch):
    import tricount.gpu._common as common

    monkeypatch.setattr(common, "free_device_bytes", lambda: 1024)
    with pytest.raises(UnsupportedGraphError, match="GiB"):
        engine.count(complete_graph(50), method="merge")


def test_spgemm_row_blocks_shrink_to_fit(monkeypatch):
    import tricount.gpu._common as common

    # 4 MiB: enough for K300 and its orientation, not for its 4.5 M products at once.
    monkeypatch.setattr(common, "free_device_bytes", lambda: 4 << 20)
    assert engine.count(complete_graph(300), method="spgemm").n_triangles == 4_455_100
    assert engine.count(complete_graph(300), method="spgemm",
                        max_products=50_000).n_triangles == 4_455_100


def test_radix_batches_shrink_to_fit(monkeypatch):
    import tricount.gpu._common as common

    # E' of K300 has C(300, 3) = 4,455,100 keys (36 MB); with 4 MiB "free" the
    # batches shrink to about 125,000 keys and the count must not change.
    monkeypatch.setattr(common, "free_device_bytes", lambda: 4 << 20)
    assert engine.count(complete_graph(300), method="radix").n_triangles == 4_455_100


def test_import_tricount_does_not_import_cupy():
    code = "import sys, tricount, tricount.gpu.engine; assert 'cupy' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
