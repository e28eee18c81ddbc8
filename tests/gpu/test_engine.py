"""The GPU engine's contract: names, plans, reasons, timings, memory checks, imports.

Nothing here reads a duration: timings are checked for their keys, never for
their values.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from gpu_support import complete_graph, cpu_count, require_gpu  # noqa: E402

pytestmark = pytest.mark.gpu
require_gpu()

import cupy  # noqa: E402

import tricount  # noqa: E402
from tricount.bench.gpu_timer import KernelTimer  # noqa: E402
from tricount.errors import UnknownMethodError, UnsupportedGraphError  # noqa: E402
from tricount.gpu import GPU_METHODS, engine  # noqa: E402
from tricount.gpu import plan as gp  # noqa: E402
from tricount.gpu.plan import Plan, tuned  # noqa: E402

PHASES = {"transfer_s", "preprocess_s", "count_s", "gpu_s"}


def test_unknown_method_lists_the_gpu_methods():
    with pytest.raises(UnknownMethodError) as info:
        engine.count(complete_graph(4), method="nonesuch")
    for name in GPU_METHODS:
        assert name in str(info.value)


def test_lab_methods_are_not_public_names():
    with pytest.raises(UnknownMethodError, match="unknown GPU method 'merge'"):
        engine.count(complete_graph(4), method="merge")


def test_unknown_option_is_named():
    with pytest.raises(UnknownMethodError, match="'blocks'"):
        engine.count(complete_graph(4), method="hash", blocks=3)


def test_auto_takes_no_method_options():
    with pytest.raises(UnknownMethodError):
        engine.count(complete_graph(4), method="auto", sf=2.0)
    with pytest.raises(UnknownMethodError, match="auto"):
        engine.count(complete_graph(4), plan=Plan(shape=gp.HashShape()))


def test_bad_orientation():
    with pytest.raises(UnknownMethodError, match="orientation"):
        engine.count(complete_graph(4), method="hash", orientation="random")


@pytest.mark.parametrize("method", GPU_METHODS)
def test_result_reports_method_and_phases(method):
    out = engine.count(complete_graph(10), method=method)
    assert out.n_triangles == 120
    assert out.method == method and out.method_reason == "requested"
    assert set(out.timings) == PHASES  # no kernel_s: production counts time no kernel


@pytest.mark.parametrize("method", GPU_METHODS)
def test_a_timer_adds_the_kernel_time(method):
    out = engine.count(complete_graph(10), method=method, timer=KernelTimer)
    assert out.n_triangles == 120
    assert set(out.timings) == PHASES | {"kernel_s"}
    assert isinstance(out.timings["kernel_s"], float)


@pytest.mark.parametrize("method", GPU_METHODS)
def test_every_launch_runs_inside_the_timer(method, monkeypatch):
    # The launchers wrap their counting launches in the timer's regions: a region
    # that records what is launched inside it sees every one.
    from tricount.gpu import device

    launched, inside = [], []

    class Region:
        seconds = 0.0

        def __init__(self, *, host_syncs=False):
            assert not host_syncs

        def __enter__(self):
            inside.append(True)
            return self

        def __exit__(self, *exc):
            inside.pop()

    def spy(*args, **kwargs):
        launched.append(bool(inside))
        return device.launch(*args, **kwargs)

    # A hash kernel variant's first use in a process launches it once on no tasks
    # (methods/hash._first_launch), outside the timer: not a counting launch. Count once
    # first, so that the spy sees only counting launches whatever ran before in this worker.
    engine.count(complete_graph(30), method=method)
    monkeypatch.setattr(f"tricount.gpu.methods.{method}.launch", spy)
    out = engine.count(complete_graph(30), method=method, timer=Region)
    assert out.n_triangles == 4060 and out.timings["kernel_s"] == 0.0
    assert launched and all(launched)


def test_a_production_count_records_no_cuda_event(monkeypatch):
    def no_events(*args, **kwargs):
        raise AssertionError("a CUDA event in a production count")

    g = complete_graph(30)
    for method in GPU_METHODS:
        engine.count(g, method=method)  # compiles outside the check
    monkeypatch.setattr(cupy.cuda, "Event", no_events)
    for method in GPU_METHODS + ("auto",):
        assert engine.count(g, method=method).n_triangles == 4060


def test_auto_records_why():
    out = engine.count(complete_graph(10), method="auto")
    assert out.method == gp.SHORT_ROUTE_METHOD  # small: the short route (test_small_route.py)
    assert out.method_reason.startswith("auto:")
    out = engine.count(complete_graph(10), method="auto", plan=Plan())
    assert out.method in GPU_METHODS
    assert out.method_reason.startswith("auto:")


def test_a_graph_without_edges_counts_zero_by_a_production_method():
    g = tricount.CSRGraph.from_edges([], [], n_vertices=5)
    out = engine.count(g)
    assert out.n_triangles == 0 and out.method in GPU_METHODS


def test_a_plan_sets_the_launch_shape():
    g = complete_graph(40)
    out = engine.count(g, plan=tuned("hash", warp_slots=32, long_list=1))
    assert out.n_triangles == 9880 and out.method == "hash"
    with pytest.raises(UnknownMethodError, match="disagrees"):
        engine.count(g, method="wedge", plan=tuned("hash"))


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
    assert g.n_vertices > gp.AUTO_BITWEDGE_ON_CHIP_VERTICES
    assert g.upper().max_out_degree <= gp.AUTO_ID_MAX_OUT_DEGREE
    expected = cpu_count(g)
    # An empty plan asks for the planned route (the graph is small enough for the short one).
    out = engine.count(g, method="auto", plan=Plan())
    assert out.n_triangles == expected
    assert out.method == "wedge" and "id order" in out.method_reason
    # Named orientations are kept: rank, then auto's cost model.
    ranked = engine.count(g, method="auto", orientation="rank")
    assert ranked.n_triangles == expected and "id order" not in ranked.method_reason
    # A named method keeps the rank orientation under the default.
    assert engine.count(g, method="hash").n_triangles == expected


def test_auto_orders_by_rank_when_the_id_order_has_a_hub():
    # Vertex 0 gains out-neighbours in id order past the bound of small graphs (the larger
    # of the two bounds); its rank puts it last.
    g = _flat_graph([(0, v) for v in range(1, gp.AUTO_SMALL_ID_MAX_OUT_DEGREE + 201)])
    assert g.upper().max_out_degree > gp.AUTO_SMALL_ID_MAX_OUT_DEGREE >= gp.AUTO_ID_MAX_OUT_DEGREE
    out = engine.count(g, method="auto", plan=Plan())
    assert out.n_triangles == cpu_count(g)
    assert "id order" not in out.method_reason


def test_api_reaches_the_gpu_engine():
    res = tricount.count(complete_graph(5), backend="gpu", method="hash")
    assert res.n_triangles == 10 and res.backend == "gpu"
    assert {"gpu_s", "count_s"} <= set(res.timings) and "kernel_s" not in res.timings


def test_too_large_graph_is_refused_before_allocating(monkeypatch):
    monkeypatch.setattr(engine, "free_device_bytes", lambda: 1024)
    with pytest.raises(UnsupportedGraphError, match="GiB"):
        engine.count(complete_graph(50), method="wedge")


def test_running_out_of_memory_is_an_unsupported_graph(monkeypatch):
    # An allocation that fails after the plan said yes (another process took the
    # memory, an estimate was low) is reported like a refusal, naming the step.
    from tricount.gpu.prepare import fused

    def exhausted(*args, **kwargs):
        raise cupy.cuda.memory.OutOfMemoryError(1 << 40, 1 << 30)

    monkeypatch.setattr(fused, "run_prep", exhausted)
    with pytest.raises(UnsupportedGraphError, match="orienting .* ran out of GPU memory") as info:
        engine.count(complete_graph(50), method="hash")
    assert "1,099,511,627,776 bytes" in str(info.value) and "backend='cpu'" in str(info.value)
    with pytest.raises(UnsupportedGraphError, match="building a graph .* ran out of GPU memory"):
        tricount.CSRGraph.from_edges(cupy.arange(4), cupy.arange(1, 5))


def test_import_tricount_does_not_import_cupy():
    code = ("import sys, tricount, tricount.gpu.engine, tricount.gpu.plan; "
            "assert 'cupy' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)
