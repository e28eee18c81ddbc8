"""The GPU loader's double buffer, run on the CPU against a NumPy stand-in for CuPy.

The stand-in records every copy and every wait, so these tests check the
bookkeeping a GPU cannot show from outside: each pinned buffer is refilled
only after the copy that last read it was waited on, the device edge list
grows and widens without losing an edge, and the graph built from it equals
the host loader's. Real devices run tests/gpu/test_io_gpu.py.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

import numpy as np
import pytest

import tricount
from tricount.errors import BackendUnavailableError, TricountError
from tricount.io import _text, gpu_stream, load_graph, parse_into, source as _source
from tricount.io.source import open_source

sys.path.insert(0, str(Path(__file__).parent))
from io_support import TEXT_WRITERS, edge_lines, messy_edges, write_text  # noqa: E402


class FakeDeviceArray(np.ndarray):
    """A NumPy array with CuPy's ``set``; checks what a real copy would require."""

    def set(self, arr, stream=None):
        assert isinstance(arr, np.ndarray) and arr.dtype == self.dtype
        assert arr.shape == self.shape and self.flags.c_contiguous
        assert stream is not None  # every copy goes on the loader's own stream
        assert isinstance(arr, PinnedArray)  # only pinned memory copies asynchronously
        self[...] = arr
        stream.copies += 1


class PinnedArray(np.ndarray):
    """What ``cupyx.empty_pinned`` returns: host memory the GPU can copy from directly."""


class FakeEvent:
    def __init__(self):
        self.waited = False

    def synchronize(self):
        self.waited = True


class FakeStream:
    #: The streams whose ``with`` the code is inside now (the innermost last).
    entered: list = []

    def __init__(self, non_blocking=False):
        self.non_blocking = non_blocking
        self.copies = 0
        self.events = []
        self.waits = []

    def __enter__(self):
        FakeStream.entered.append(self)
        return self

    def __exit__(self, *exc):
        FakeStream.entered.pop()
        return False

    def wait_event(self, event):
        self.waits.append(event)

    def synchronize(self):
        pass

    def record(self):
        self.events.append(FakeEvent())
        return self.events[-1]


@pytest.fixture
def fake_gpu(monkeypatch):
    """gpu_stream sees a CuPy made of NumPy; returns the list of streams it made, whose
    ``made_on`` lists, per device allocation, the stream current then (None: the caller's)."""

    class Streams(list):
        made_on: list

    streams = Streams()

    def make_stream(non_blocking=False):
        streams.append(FakeStream(non_blocking))
        return streams[-1]

    def device(a):
        # Where CuPy's pool would file the memory: the stream current at the allocation.
        made_on.append(FakeStream.entered[-1] if FakeStream.entered else None)
        return np.asarray(a).view(FakeDeviceArray)

    made_on = []
    monkeypatch.setattr(FakeStream, "entered", [])

    cuda = types.SimpleNamespace(
        Stream=make_stream, get_current_stream=FakeStream,
        memory=types.SimpleNamespace(OutOfMemoryError=MemoryError))
    cp = types.SimpleNamespace(
        cuda=cuda, int64=np.int64,
        empty=lambda n, dtype: device(np.empty(n, dtype=dtype)),
        zeros=lambda n, dtype: device(np.zeros(n, dtype=dtype)),
        arange=lambda a, b, dtype: device(np.arange(a, b, dtype=dtype)))
    cpx = types.SimpleNamespace(
        empty_pinned=lambda n, dtype: np.empty(n, dtype=dtype).view(PinnedArray))
    monkeypatch.setattr(gpu_stream, "_cupy", lambda: cp)
    monkeypatch.setattr(gpu_stream, "_cupyx", lambda: cpx)
    streams.made_on = made_on
    return streams


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(_source, "CHUNK_BYTES", 512)
    monkeypatch.setattr(_text, "MIN_PIECE_BYTES", 64)


def _loaded_on_fake_gpu(path, fmt):
    with open_source(path) as source:
        return gpu_stream.read_graph_gpu(source, fmt, name="g")


def _parse_into(path, sink):
    with open_source(path) as source:
        parse_into(source, "snap", sink)


def _assert_same_graph(got, want):
    assert (got.n_vertices, got.n_edges) == (want.n_vertices, want.n_edges)
    assert (got.self_loops_dropped, got.duplicates_dropped) == (want.self_loops_dropped,
                                                                want.duplicates_dropped)
    np.testing.assert_array_equal(np.asarray(got.vertex_ids), want.vertex_ids)
    np.testing.assert_array_equal(np.asarray(got.indptr), want.indptr)
    np.testing.assert_array_equal(np.asarray(got.indices), want.indices)
    assert got.indices.dtype == want.indices.dtype


FORMATS = {"snap.txt": "snap", "snap.txt.gz": "snap", "x_adj.tsv": "graphchallenge",
           "sym.mtx": "matrix-market", "real_adj.mmio": "matrix-market", "g.graph": "metis",
           "w.graph": "metis"}


class TestSameGraphAsTheHost:
    @pytest.mark.parametrize("fname", sorted(TEXT_WRITERS))
    def test_every_text_format(self, fname, tmp_path, fake_gpu, small_chunks):
        rng = np.random.default_rng(3)
        n = 300
        lo = rng.integers(0, n - 1, 2000)
        hi = lo + rng.integers(1, 40, 2000)
        keep = hi < n
        lo, hi = lo[keep], hi[keep]
        pairs = np.unique(np.stack([lo, hi], axis=1), axis=0)
        path, text = TEXT_WRITERS[fname](tmp_path / fname, pairs[:, 0], pairs[:, 1], n)
        path = write_text(path, text)
        got, _ = _loaded_on_fake_gpu(path, FORMATS[fname])
        _assert_same_graph(got, load_graph(path))
        assert len(fake_gpu) == 1 and fake_gpu[0].non_blocking

    @pytest.mark.parametrize("id_range", [50, 10**6, 2**40], ids=["dense", "sparse", "huge"])
    def test_loops_repeats_and_ids(self, id_range, tmp_path, fake_gpu, small_chunks):
        path = write_text(tmp_path / "g.txt",
                          "# messy\n" + edge_lines(*messy_edges(1, 3000, id_range)))
        got, _ = _loaded_on_fake_gpu(path, "snap")
        _assert_same_graph(got, load_graph(path))
        assert got.self_loops_dropped > 0 and got.duplicates_dropped > 0

    def test_comments_only_and_matrix_market_without_entries(self, tmp_path, fake_gpu):
        path = write_text(tmp_path / "c.txt", "# nothing\n% here\n")
        got, _ = _loaded_on_fake_gpu(path, "snap")
        assert (got.n_vertices, got.n_edges) == (0, 0)
        path = write_text(tmp_path / "e.mtx",
                          "%%MatrixMarket matrix coordinate pattern general\n4 4 0\n")
        got, _ = _loaded_on_fake_gpu(path, "matrix-market")
        _assert_same_graph(got, load_graph(path))
        assert got.n_vertices == 4 and np.asarray(got.vertex_ids).tolist() == [1, 2, 3, 4]


class TestDoubleBuffer:
    def _many_chunks(self, tmp_path, n_lines=4000):
        return write_text(tmp_path / "g.txt", edge_lines(*messy_edges(2, n_lines, 5000), " "))

    def test_a_buffer_is_refilled_only_after_its_copy(self, tmp_path, fake_gpu, small_chunks):
        path = self._many_chunks(tmp_path)
        got, timings = _loaded_on_fake_gpu(path, "snap")
        events = fake_gpu[0].events
        assert len(events) > 10  # many chunks, each copied once
        # Chunk k reuses chunk k-2's buffer: every copy but the last two was waited on.
        assert all(e.waited for e in events[:-2])
        assert fake_gpu[0].copies == 2 * len(events)  # src and dst of every chunk
        assert timings["copy_wait_s"] >= 0
        _assert_same_graph(got, load_graph(path))

    def test_device_list_grows_past_a_low_estimate(self, tmp_path, fake_gpu, small_chunks,
                                                    monkeypatch):
        # Long first lines make the first chunk predict few edges; short lines follow.
        first = "\n".join(f"{i} {i + 1} {'w' * 60}" for i in range(20))
        rest = "\n".join(f"{i % 97} {i % 89}" for i in range(5000))
        path = write_text(tmp_path / "g.txt", first + "\n" + rest + "\n")
        growths = []
        grow = gpu_stream.grown_capacity
        monkeypatch.setattr(gpu_stream, "grown_capacity",
                            lambda capacity, need: growths.append(capacity) or grow(capacity, need))
        sink = gpu_stream.DeviceEdges(file_bytes=path.stat().st_size)
        _parse_into(path, sink)
        src, dst = sink.take_edges()
        assert src.shape[0] == 5020 and growths
        want_src, want_dst = tricount.io.read_edges(path)
        np.testing.assert_array_equal(src, want_src)
        np.testing.assert_array_equal(dst, want_dst)

    def test_the_device_list_is_made_on_the_callers_stream(self, tmp_path, fake_gpu,
                                                          small_chunks):
        # CuPy's pool gives memory freed on a stream only to later work on that stream: the
        # edge list, freed once the graph is built, was made on the loader's own stream and
        # stayed cached for nobody after every load. It grows and widens on the caller's
        # stream now, and the loader's next copies wait for that stream each time.
        small = "\n".join(f"{i} {i + 1}" for i in range(300))
        big = "\n".join(f"{2**40 + i} {i}" for i in range(3000))
        path = write_text(tmp_path / "g.txt", small + "\n" + big + "\n")
        sink = gpu_stream.DeviceEdges(file_bytes=None)  # no size: the list grows by doubling
        _parse_into(path, sink)
        src, _dst = sink.take_edges()
        assert src.shape[0] == 3300 and sink.dtype == np.int64
        assert fake_gpu.made_on and set(fake_gpu.made_on) == {None}
        assert len(fake_gpu[0].waits) >= 3  # the first list, a growth, the widening

    def test_widens_to_int64_mid_file(self, tmp_path, fake_gpu, small_chunks):
        small = "\n".join(f"{i} {i + 1}" for i in range(300))
        big = "\n".join(f"{2**40 + i} {i}" for i in range(300))
        path = write_text(tmp_path / "g.txt", small + "\n" + big + "\n" + small + "\n")
        sink = gpu_stream.DeviceEdges(file_bytes=path.stat().st_size)
        _parse_into(path, sink)
        assert sink.dtype == np.int64
        src, dst = sink.take_edges()
        want_src, want_dst = tricount.io.read_edges(path)
        np.testing.assert_array_equal(src, want_src)
        np.testing.assert_array_equal(dst, want_dst)

    def test_a_parse_error_keeps_its_line(self, tmp_path, fake_gpu, small_chunks):
        lines = [f"{i} {i + 1}" for i in range(500)]
        lines[321] = "7 x"
        path = write_text(tmp_path / "g.txt", "\n".join(lines) + "\n")
        with pytest.raises(tricount.GraphFormatError) as info:
            _loaded_on_fake_gpu(path, "snap")
        assert info.value.line == 322


def test_capacity_rules():
    assert gpu_stream.plan_capacity(1000, 10_000, 1_000_000) == 110_000
    assert gpu_stream.plan_capacity(1000, 10_000, None) == 4000
    assert gpu_stream.grown_capacity(10, 11) == 20


def test_unknown_device():
    with pytest.raises(TricountError, match="unknown device 'tpu'"):
        load_graph("whatever.txt", device="tpu")


def test_gpu_device_without_a_gpu_says_so(tmp_path):
    from tricount.gpu import probe

    if probe()[0]:
        pytest.skip("a GPU is usable here: tests/gpu/test_io_gpu.py covers device='gpu'")
    path = write_text(tmp_path / "g.txt", "0 1\n")
    with pytest.raises(BackendUnavailableError, match="device='cpu'"):
        load_graph(path, device="gpu")
