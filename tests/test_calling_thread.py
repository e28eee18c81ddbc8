"""Small graphs on the calling thread (tricount.prep._parallel.on_calling_thread).

The CPU engine runs a graph under ``SERIAL_MAX_EDGES`` edges (four times that for the bitmap
counter on two threads or fewer: ``tricount._threads.serial_bound``) through each parallel
kernel's serial twin (the same source compiled without ``parallel=True``), and the bitmap
counter through its one pass (``tricount.cpu.bitmap.count_one_pass``). Both ways must give
the reference's count, and the switch must really take the twin or the one pass.
"""

from __future__ import annotations

import numpy as np
import pytest

import tricount
from tricount.cpu import bitmap, engine, one_region
from tricount.generate import rmat
from tricount.prep import _parallel
from tricount.reference import count_triangles

hypothesis = pytest.importorskip("hypothesis")
st = hypothesis.strategies


def _graph(pairs):
    src, dst = (np.array(c, dtype=np.int64) for c in zip(*pairs)) if pairs else (
        np.zeros(0, np.int64), np.zeros(0, np.int64))
    return tricount.Graph.from_edges(src, dst)


@pytest.mark.parametrize("method", ["bitmap", "merge"])
@pytest.mark.parametrize("cap", [0, 1 << 40])  # never / always on the calling thread
def test_both_ways_count_the_reference(method, cap, monkeypatch):
    monkeypatch.setattr(engine, "SERIAL_MAX_EDGES", cap)
    for scale in (5, 8, 10):
        g = tricount.Graph.from_edges(*rmat(scale, 8, seed=scale))
        want = count_triangles(*g.edges())
        assert engine.count(g, method=method).n_triangles == want


@hypothesis.settings(max_examples=40, deadline=None)
@hypothesis.given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), max_size=200))
def test_random_graphs_on_the_calling_thread(pairs):
    g = _graph(pairs)
    want = count_triangles(*g.edges()) if g.n_edges else 0
    assert g.n_edges < engine.SERIAL_MAX_EDGES
    for method in ("bitmap", "merge"):
        assert engine.count(g, method=method).n_triangles == want


def _one_passes(monkeypatch):
    """A list that gets an entry each time the bitmap counter's one pass runs."""
    calls = []
    one_pass = bitmap._count_one_pass
    monkeypatch.setattr(bitmap, "_count_one_pass",
                        lambda *args: calls.append(args) or one_pass(*args))
    return calls


def test_the_serial_twin_runs_and_not_the_parallel_kernel(monkeypatch):
    if _parallel.numba.config.DISABLE_JIT:
        pytest.skip("NUMBA_DISABLE_JIT: every kernel is its own plain-Python twin")
    calls = []
    twin_of = _parallel.serial_twin

    def spy(kernel):
        calls.append(kernel)
        return twin_of(kernel)

    monkeypatch.setattr(_parallel, "serial_twin", spy)
    one_passes = _one_passes(monkeypatch)
    g = tricount.Graph.from_edges(*rmat(6, 8, seed=1))
    assert g.n_edges < engine.SERIAL_MAX_EDGES
    engine.count(g, method="merge")
    assert calls  # merge's count kernel at least
    twin = twin_of(calls[0])
    assert twin is not calls[0] and twin is twin_of(calls[0])  # made once
    assert not getattr(twin, "targetoptions", {}).get("parallel", False)
    calls.clear()
    # The bitmap counter's one pass: no twin, no parallel region.
    result = engine.count(g, method="bitmap")
    assert "one pass" in result.method_reason
    assert len(one_passes) == 1 and not calls
    monkeypatch.setattr(engine, "SERIAL_MAX_EDGES", 0)  # in parallel regions
    one_passes.clear()
    for method in ("merge", "bitmap"):
        engine.count(g, method=method)
    assert not calls and not one_passes
    with _parallel.on_calling_thread():
        assert _parallel.n_workers() == 1


@pytest.mark.parametrize("threads, bitmap_on_caller", [(1, True), (2, True), (16, False)])
def test_bitmap_between_the_bounds_follows_its_threads(monkeypatch, threads, bitmap_on_caller):
    # 18,013 edges, between SERIAL_MAX_EDGES and twice it: the bitmap count runs on the
    # calling thread with two threads or fewer and in parallel regions with more
    # (tricount._threads.serial_bound); merge in parallel regions either way. The one
    # region, which may take such a graph on two threads or more, is tested apart
    # (tests/test_bitmap_order.py) and kept out here.
    if _parallel.numba.config.DISABLE_JIT:
        pytest.skip("NUMBA_DISABLE_JIT: every kernel is its own plain-Python twin")
    monkeypatch.setattr(one_region, "ONE_REGION_MAX_EDGES", 0)
    g = tricount.Graph.from_edges(*rmat(11, 12, seed=1))
    assert engine.SERIAL_MAX_EDGES <= g.n_edges < 2 * engine.SERIAL_MAX_EDGES
    want = count_triangles(*g.edges())
    calls = []
    twin_of = _parallel.serial_twin
    monkeypatch.setattr(_parallel, "serial_twin", lambda k: calls.append(k) or twin_of(k))
    one_passes = _one_passes(monkeypatch)
    monkeypatch.setattr(engine, "thread_count", lambda: threads)
    assert engine.count(g, method="bitmap").n_triangles == want
    assert bool(one_passes) == bitmap_on_caller
    assert engine.count(g, method="merge").n_triangles == want
    assert not calls


def test_nesting_keeps_the_outer_choice():
    with _parallel.on_calling_thread():
        with _parallel.on_calling_thread(False):
            assert _parallel.n_workers() == 1
    with _parallel.on_calling_thread(False):
        assert _parallel.n_workers() >= 1


def test_the_cost_model_sees_the_twins():
    # After a small count the kernels it ran on the calling thread are compiled in this
    # process, and the model's groups for the calling thread say so
    # (tricount.backends.facts); the twins' disk cache is named apart.
    if _parallel.numba.config.DISABLE_JIT:
        pytest.skip("NUMBA_DISABLE_JIT: nothing is compiled")
    from tricount.backends import facts

    g = tricount.Graph.from_edges(*rmat(6, 8, seed=2))
    for method in ("bitmap", "merge"):
        engine.count(g, method=method)
        for relative, name in facts.KERNEL_GROUPS[f"{method}_serial"]:
            assert name.endswith("_serial") == (method == "merge")
            assert facts.kernel_state(relative, name) == facts.LOADED
