"""Host edge arrays for the GPU: which go to the device to be built there, and the copy.

The build itself is the device build every CuPy input takes (tests/gpu/test_inputs_gpu.py
holds it to the host's, array for array, and the counts to the CPU's, on a GPU). Here,
without one: the decision of :func:`builds_on_device` at its memory bound, the copy of
:func:`upload_edges` through fake_cupy's stand-in for every chunk size and id type, which
inputs :func:`edges_for_device` hands over, and that a GPU count takes that route.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tricount import api
from tricount.gpu import host_edges
from tricount.gpu.host_edges import (DEVICE_BUILD_MIN_LINES, builds_on_device, edges_for_device,
                                     upload_edges)
from tricount.prep.outofcore.memory import DEVICE_SHARE, in_memory_bytes

sys.path.insert(0, str(Path(__file__).parent / "partition"))
import emulated_gpu  # noqa: E402
import fake_cupy  # noqa: E402

fake_gpu = emulated_gpu.fake_gpu

M = DEVICE_BUILD_MIN_LINES


def _room(m: int, itemsize: int) -> int:
    """The free bytes at which ``m`` lines of ``itemsize`` ids just fit."""
    copied = 0 if itemsize == 8 else 2 * itemsize * m
    return int(np.ceil((copied + 16 * m + in_memory_bytes(m, 0, device=True)) / DEVICE_SHARE))


class TestBuildsOnDevice:
    @pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint32, np.int8])
    def test_at_the_memory_bound(self, dtype):
        a = np.zeros(M, dtype=dtype)
        room = _room(M, a.itemsize)
        assert builds_on_device(a, a, room)
        assert not builds_on_device(a, a, room - a.itemsize * 64)

    def test_narrower_ids_need_their_widening_too(self):
        wide, narrow = np.zeros(M, dtype=np.int64), np.zeros(M, dtype=np.int32)
        room = _room(M, 8)
        assert builds_on_device(wide, wide, room)
        assert not builds_on_device(narrow, narrow, room)

    @pytest.mark.parametrize("why, src, dst", [
        ("fewer lines than the bound", np.zeros(M - 1, np.int64), np.zeros(M - 1, np.int64)),
        ("uint64: ids past 2**63 - 1 are the host's", np.zeros(M, np.uint64),
         np.zeros(M, np.uint64)),
        ("floats are validated on the host", np.zeros(M, np.float64), np.zeros(M, np.float64)),
        ("two types", np.zeros(M, np.int64), np.zeros(M, np.int32)),
        ("masked: the host refuses hidden entries", np.ma.array(np.zeros(M, np.int64)),
         np.ma.array(np.zeros(M, np.int64))),
        ("byte-swapped", np.zeros(M, np.dtype(np.int64).newbyteorder()),
         np.zeros(M, np.dtype(np.int64).newbyteorder())),
        ("two lengths", np.zeros(M, np.int64), np.zeros(M + 1, np.int64)),
        ("not one-dimensional", np.zeros((M, 2), np.int64), np.zeros((M, 2), np.int64)),
        ("lists", [0] * M, [1] * M),
    ])
    def test_what_stays_on_the_host(self, why, src, dst):
        assert not builds_on_device(src, dst, 1 << 60), why

    def test_no_device(self):
        a = np.zeros(M, dtype=np.int64)
        assert not builds_on_device(a, a, None)


_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32]


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(0, 40), chunk=st.integers(1, 9), dtype=st.sampled_from(_DTYPES),
       seed=st.integers(0, 2**32 - 1))
def test_upload_edges_copies_every_line(fake_gpu, n, chunk, dtype, seed):
    rng = np.random.default_rng(seed)
    top = min(np.iinfo(dtype).max, 1000)
    src = rng.integers(0, top + 1, n).astype(dtype)
    dst = rng.integers(0, top + 1, n).astype(dtype)
    s, d = upload_edges(src, dst, chunk_lines=chunk)
    assert s.dtype == d.dtype == np.int64
    assert type(s).__module__ == type(d).__module__ == fake_gpu.ndarray.__module__
    np.testing.assert_array_equal(np.asarray(s), src.astype(np.int64))
    np.testing.assert_array_equal(np.asarray(d), dst.astype(np.int64))


def test_the_device_arrays_are_sized_once(fake_gpu, monkeypatch):
    sizes = []
    empty = fake_gpu.empty

    def counted(size, dtype=float):
        sizes.append(size)
        return empty(size, dtype=dtype)

    monkeypatch.setattr(fake_gpu, "empty", counted, raising=False)
    src = np.arange(50, dtype=np.int64)
    s, _d = upload_edges(src, src[::-1].copy(), chunk_lines=7)
    assert sizes == [50, 50]  # both ends, once, at the first chunk
    np.testing.assert_array_equal(np.asarray(s), src)


def test_edges_for_device_hands_over_plain_host_ids(fake_gpu):
    src = np.arange(M, dtype=np.int32) % 1000
    dst = (src * 7 + 1) % 1000
    s, d = edges_for_device((src, dst))
    assert type(s) is type(d) is fake_gpu.ndarray and s.dtype == np.int64
    np.testing.assert_array_equal(np.asarray(d), dst)
    names = np.array([f"v{i}" for i in range(1000)])
    for graph in ((src[:-1], dst[:-1]),  # too few lines
                  (names[src], names[dst]),  # names: the host maps them to ids
                  (list(src), list(dst)),
                  (src, dst, np.ones(M)),  # a triple
                  src):
        assert edges_for_device(graph) is graph


def test_what_does_not_fit_one_piece_takes_the_bounded_build(fake_gpu, monkeypatch):
    bounded = []
    monkeypatch.setattr(host_edges, "build_bounded_on_device",
                        lambda s, d: bounded.append(len(s)) or "built in buckets")
    src = np.zeros(M, dtype=np.int64)
    monkeypatch.setitem(fake_cupy.FREE_BYTES, "free", _room(M, 8) // 2)
    assert edges_for_device((src, src)) == "built in buckets" and bounded == [M]
    monkeypatch.setitem(fake_cupy.FREE_BYTES, "free", _room(M, 8))
    s, _d = edges_for_device((src, src))  # fits again: one piece
    assert type(s) is fake_gpu.ndarray and bounded == [M]
    graph = (src.astype(np.uint64), src.astype(np.uint64))  # the host's, whatever the room
    assert edges_for_device(graph) is graph and bounded == [M]


def test_a_gpu_count_builds_host_edges_through_edges_for_device(monkeypatch):
    """The GPU engine's and executor's inputs go through :func:`edges_for_device` (the GPU
    tests count what it hands over); the CPU's do not."""
    handed = []

    def record(graph):
        handed.append(graph)
        return graph  # built on the host here: there is no device

    monkeypatch.setattr(host_edges, "edges_for_device", record)
    pair = (np.array([0, 0, 1]), np.array([1, 2, 2]))
    g, _ = api._loaded(pair, "gpu")
    assert handed == [pair] and g.n_edges == 3
    g, _ = api._loaded(pair, "cpu")
    g, _ = api._built_for(pair, "cpu", None)
    assert handed == [pair] and g.n_edges == 3


def test_a_ctrl_c_while_waiting_for_the_copies_returns_after_every_copy(monkeypatch):
    """The copies write into pinned buffers that the caller frees or refills once it has the
    exception: a Ctrl-C during the wait is raised only after the last copy."""
    import threading

    from tricount.gpu import chunks

    done, release = [], threading.Event()

    def slow_copy(dst, src):
        if threading.current_thread() is not threading.main_thread():
            release.wait(10)
            done.append(len(src))
        dst[...] = src

    real_wait = chunks.wait
    interrupts = []

    def interrupted_wait(futures):
        if not interrupts:
            interrupts.append(1)
            release.set()  # the copies finish while the interrupt goes up
            raise KeyboardInterrupt
        return real_wait(futures)

    monkeypatch.setattr(chunks, "np", type("np", (), {"copyto": staticmethod(slow_copy)}))
    monkeypatch.setattr(chunks, "wait", interrupted_wait)
    monkeypatch.setattr(chunks, "COPY_PIECE_BYTES", 8)
    monkeypatch.setattr(chunks, "COPY_THREADS", 8)  # eight pieces of 8 ids, seven on the pool
    src = np.arange(64, dtype=np.int64)
    dst = np.zeros_like(src)
    with pytest.raises(KeyboardInterrupt):
        chunks.copy_into((dst, src))
    assert interrupts == [1] and sorted(done) == [8] * 7  # every pool copy ended first
    np.testing.assert_array_equal(dst, src)


def test_a_device_build_that_does_not_fit_is_built_on_the_host(monkeypatch):
    """The upload fitted but the build did not (UnsupportedGraphError): the host builds the
    user's arrays; an error of the host's own build still reaches the user."""
    from tricount import inputs
    from tricount.errors import UnsupportedGraphError

    on_device = ("device", "arrays")
    monkeypatch.setattr(host_edges, "edges_for_device", lambda graph: on_device)
    real = inputs.as_graph

    def as_graph(graph, **kw):
        if graph is on_device:
            raise UnsupportedGraphError("the fused build does not fit")
        return real(graph, **kw)

    monkeypatch.setattr(inputs, "as_graph", as_graph)
    pair = (np.array([0, 0, 1]), np.array([1, 2, 2]))
    g, steps = api._loaded(pair, "gpu")
    assert g.xp is np and g.n_edges == 3 and steps["build_s"] >= 0
    monkeypatch.setattr(host_edges, "edges_for_device", lambda graph: graph)
    monkeypatch.setattr(inputs, "as_graph", lambda graph, **kw: (_ for _ in ()).throw(
        UnsupportedGraphError("the host's own")))
    with pytest.raises(UnsupportedGraphError, match="the host's own"):
        api._loaded(pair, "gpu")
