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


@pytest.fixture
def narrowing(monkeypatch):
    """int64 ids narrowed, as once Numba has started."""
    from tricount import _threads

    monkeypatch.setattr(_threads, "numba_started", lambda: True)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(1, 40), chunk=st.integers(1, 9), wide_at=st.integers(0, 39),
       wide=st.sampled_from([2**31, 2**31 + 5, 2**40, 2**63 - 1, -1, -(2**31)]),
       seed=st.integers(0, 2**32 - 1))
def test_int64_ids_past_int32_widen_what_went_narrow(fake_gpu, narrowing, n, chunk, wide_at,
                                                      wide, seed):
    """int64 chunks go as int32 until one holds an id outside 0 .. 2**31 - 1: that chunk
    and the rest go wide and the device widens what it holds, every id as given."""
    rng = np.random.default_rng(seed)
    src = rng.integers(0, 2**31, n, dtype=np.int64)
    dst = rng.integers(0, 2**31, n, dtype=np.int64)
    (src if seed % 2 else dst)[wide_at % n] = wide
    s, d = upload_edges(src, dst, chunk_lines=chunk)
    assert s.dtype == d.dtype == np.int64
    np.testing.assert_array_equal(np.asarray(s), src)
    np.testing.assert_array_equal(np.asarray(d), dst)


def _narrowed_kinds(monkeypatch):
    from tricount.gpu import chunks

    kinds = []
    real = chunks.narrow_into
    monkeypatch.setattr(chunks, "narrow_into", lambda *arrays: kinds.append(
        tuple(a.dtype.name for a in arrays)) or real(*arrays))
    return kinds


def test_int64_ids_that_fit_int32_are_copied_as_int32(fake_gpu, narrowing, monkeypatch):
    """Half the bytes go to the device: the pinned buffers and the device arrays are int32
    until the build widens them."""
    kinds = _narrowed_kinds(monkeypatch)
    src = np.arange(2**31 - 50, 2**31, dtype=np.int64)
    s, d = upload_edges(src, src[::-1].copy(), chunk_lines=16)
    assert kinds == [("int32", "int32", "int64", "int64")] * 4  # 4 chunks
    np.testing.assert_array_equal(np.asarray(s), src)
    np.testing.assert_array_equal(np.asarray(d), src[::-1])


def test_what_is_narrowed(fake_gpu, monkeypatch):
    """int64 arrays read in order, once Numba has started; the strided columns of an (m, 2)
    array, narrower types and a process without Numba go as they are."""
    from tricount import _threads

    kinds = _narrowed_kinds(monkeypatch)
    ids = np.arange(40, dtype=np.int64)
    rows = np.stack((ids, ids[::-1]), axis=1)
    pairs = ((ids, ids[::-1].copy()), (rows[:, 0], rows[:, 1]),
             (ids.astype(np.int32), ids.astype(np.int32)))
    for started in (False, True):
        monkeypatch.setattr(_threads, "numba_started", lambda: started)
        assert [host_edges.narrows(*pair) for pair in pairs] == [started, False, False]
        for pair in pairs:
            s, _d = upload_edges(*pair, chunk_lines=16)
            np.testing.assert_array_equal(np.asarray(s), ids)
    assert kinds == [("int32", "int32", "int64", "int64")] * 3  # the first pair, started


@pytest.mark.parametrize("ids, fits", [
    ([0, 1, 2**31 - 1], True), ([2**31], False), ([-1], False), ([0, 2**62], False),
    ([-(2**63)], False), ([], True)])
def test_narrow_into_checks_every_id(monkeypatch, ids, fits):
    from tricount.gpu import chunks

    monkeypatch.setattr(chunks, "COPY_PIECE_BYTES", 16)  # ranges of 2 rows on the threads
    src = np.array([5, 6, 7] + ids + [8], dtype=np.int64)
    dst = np.arange(src.shape[0], dtype=np.int64)[::-1].copy()
    out = np.zeros((2, src.shape[0]), dtype=np.int32)
    assert chunks.narrow_into(out[0], out[1], src, dst) is fits
    assert chunks.narrow_into(out[0], out[1], dst, src) is fits
    if fits:
        np.testing.assert_array_equal(out, [dst, src])


def test_arrays_and_tables_of_ids_reach_the_gpu_as_their_id_columns():
    """count() reads an (m, 2) array or a table of integer ids as the pair of its columns,
    so a GPU count copies and builds them as it does a (src, dst) pair; what is built on
    the host stays so."""
    import pandas as pd

    rows = np.arange(2 * M, dtype=np.int64).reshape(M, 2) % 1000
    for graph in (rows, pd.DataFrame({"source": rows[:, 0], "target": rows[:, 1]})):
        pair, steps = api._countable(graph)
        assert steps is None and len(pair) == 2 and builds_on_device(*pair, 1 << 60)
        assert np.shares_memory(pair[0], rows) == (graph is rows)
    built, steps = api._countable([(0, 1), (1, 2)])
    assert built.n_edges == 2 and steps is not None


@pytest.mark.parametrize("wide_at", [None, 70])
def test_a_widening_that_does_not_fit_leaves_the_lines_to_the_host(fake_gpu, narrowing,
                                                                   monkeypatch, wide_at):
    """Narrowed ids are widened on the device, at the end (16 B a line beside the int32) or
    when a later chunk holds a wide id: out of memory there is the loader's error, so the
    host builds the arrays, as for any upload that does not fit."""
    from tricount.errors import UnsupportedGraphError

    def no_room(self, dtype, *args, **kwargs):
        if np.dtype(dtype) == np.int64 and self.dtype != np.int64:
            raise fake_cupy.OutOfMemoryError("no room to widen")
        return np.ndarray.astype(self, dtype, *args, **kwargs)

    monkeypatch.setattr(fake_cupy.FakeArray, "astype", no_room)
    src = np.arange(M, dtype=np.int64) % 1000
    if wide_at is not None:
        src[wide_at] = 2**40
    with pytest.raises(UnsupportedGraphError, match="does not fit in GPU memory"):
        upload_edges(src, src, chunk_lines=64)
    monkeypatch.setattr(host_edges, "UPLOAD_CHUNK_LINES", 64)
    pair = (src, src)
    assert edges_for_device(pair) is pair
