"""The GPU engine's contract: names, options, reasons, timings, memory checks, imports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from gpu_support import complete_graph, cpu_count, require_gpu  # noqa: E402

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


def _flat_graph(extra_pairs=()):
    """G(2^17, 2^21) (out-lists of at most 53 in id order, 5,682 triangles) plus ``extra_pairs``."""
    import numpy as np

    from tricount.generate import erdos_renyi

    src, dst = erdos_renyi(1 << 17, 1 << 21, seed=5)
    if len(extra_pairs):
        extra = np.asarray(extra_pairs, dtype=np.int64).reshape(-1, 2)
        src, dst = np.concatenate([src, extra[:, 0]]), np.concatenate([dst, extra[:, 1]])
    return tricount.CSRGraph.from_edges(src, dst)


def test_auto_counts_a_flat_graph_in_id_order():
    g = _flat_graph()
    assert g.n_vertices > engine.AUTO_BITWEDGE_ON_CHIP_VERTICES
    assert g.upper().max_out_degree <= engine.AUTO_ID_MAX_OUT_DEGREE
    expected = cpu_count(g)
    out = engine.count(g, method="auto")
    assert out.n_triangles == expected
    assert out.method == "wedge" and "id order" in out.method_reason
    # Named orientations are kept: rank, then auto's cost model.
    ranked = engine.count(g, method="auto", orientation="rank")
    assert ranked.n_triangles == expected and "id order" not in ranked.method_reason
    # A named method keeps the rank orientation under the default.
    assert engine.count(g, method="merge").n_triangles == expected


def test_auto_orders_by_rank_when_the_id_order_has_a_hub():
    # Vertex 0 gains 200 out-neighbours in id order; its rank puts it last.
    g = _flat_graph([(0, v) for v in range(1, 201)])
    assert g.upper().max_out_degree > engine.AUTO_ID_MAX_OUT_DEGREE
    out = engine.count(g, method="auto")
    assert out.n_triangles == cpu_count(g)
    assert "id order" not in out.method_reason


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
