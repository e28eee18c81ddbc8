"""A host CSR copied to the device through pinned buffers, its offsets included.

The offsets travel with the entries (``HostCSR.stream_into``): pieces of empty rows carry
theirs, each offset once. Checked here, with fake_cupy's NumPy stand-in, against the host
arrays, for every row range of graphs with empty rows at the start, between chunks and at
the end, and rows longer than a chunk; and the order of the two streams, with copies that
run only when the device would have to have run them (``deferred_copies``): a chunk is
handed out only after the copy of the piece it ends in, a pinned buffer refilled only after
its last copy out.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
import emulated_gpu  # noqa: E402

fake_gpu = emulated_gpu.fake_gpu


def _csr(lengths) -> tuple[np.ndarray, np.ndarray]:
    indptr = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    indices = (np.arange(indptr[-1]) % 97).astype(np.int32)
    return indptr, indices


SHAPES = {
    "empty rows first, between and last": [0, 0, 3, 0, 0, 0, 0, 2, 0, 5, 0, 0],
    "a row longer than a chunk": [1, 11, 0, 2, 9, 0],
    "no entries at all": [0, 0, 0],
    "one row": [6],
}


def _reader(indptr, indices, stage, pieces):
    from tricount.gpu.chunks import HostCSR

    return HostCSR(indptr, indices, stage_entries=stage[0], stage_rows=stage[1],
                   piece_entries=pieces[0], piece_rows=pieces[1])


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("stage", [(2, 1), (3, 2), (4, 3), (64, 63)])
@pytest.mark.parametrize("pieces", [(1, 1), (3, 2), (5, 1), (64, 63)])
def test_to_device_brings_the_offsets_of_every_row_range(fake_gpu, shape, stage, pieces):
    indptr, indices = _csr(SHAPES[shape])
    n = indptr.shape[0] - 1
    for begin in range(n + 1):
        for end in range(begin, n + 1):
            reader = _reader(indptr, indices, stage, pieces)
            seen = []
            try:
                ptr, cols = reader.to_device(begin, end, each=lambda c: seen.append(
                    (c.r0, c.r1, c.e0, c.e1, np.asarray(c.indptr).tolist(),
                     np.asarray(c.cols).tolist())))
            finally:
                reader.close()
            assert sum(e1 - e0 for _r0, _r1, e0, e1, _p, _c in seen) == (
                indptr[end] - indptr[begin])
            for r0, r1, e0, e1, p, c in seen:  # each chunk as it came: at most a stage
                assert e1 - e0 <= stage[0] and p == indptr[r0:r1 + 1].tolist()
                assert c == indices[e0:e1].tolist()
            np.testing.assert_array_equal(np.asarray(ptr), indptr[begin:end + 1])
            np.testing.assert_array_equal(np.asarray(cols),
                                          indices[indptr[begin]:indptr[end]])


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("pieces", [(1, 1), (4, 3), (64, 63)])
def test_cached_rows_keep_their_offsets(fake_gpu, shape, pieces):
    from tricount.gpu.chunks import CachedHostCSR

    indptr, indices = _csr(SHAPES[shape])
    n = indptr.shape[0] - 1
    for cut in range(1, n + 1):
        reader = CachedHostCSR(_reader(indptr, indices, (3, 2), pieces), cut)
        try:
            passes = [[(c.r0, c.r1, c.e0, c.e1, np.asarray(c.indptr).tolist(),
                        np.asarray(c.cols).tolist()) for c in reader.chunks(0, n, 3)]
                      for _ in range(2)]  # the second reads the cached rows on the device
        finally:
            reader.close()
        for chunks in passes:
            assert sum(e1 - e0 for _r0, _r1, e0, e1, _p, _c in chunks) == indptr[-1]
            for r0, r1, e0, e1, ptr, cols in chunks:
                assert ptr == indptr[r0:r1 + 1].tolist(), (cut, r0, r1)
                assert cols == indices[e0:e1].tolist()


def _stream_log(monkeypatch) -> list:
    """Every record and wait of a stream from now on, in order: ``(what, stream, event)``
    (the events kept: an id would be reused once one is gone)."""
    import fake_cupy

    log = []
    record, wait = fake_cupy.Stream.record, fake_cupy.Stream.wait_event

    def logged_record(self, event=None):
        made = record(self, event)
        log.append(("record", self, made))
        return made

    def logged_wait(self, event):
        log.append(("wait", self, event))
        return wait(self, event)

    monkeypatch.setattr(fake_cupy.Stream, "record", logged_record)
    monkeypatch.setattr(fake_cupy.Stream, "wait_event", logged_wait)
    return log


def _copy_waits(log, copy_stream) -> list:
    """``(position, stream that recorded the event)`` of each wait of ``copy_stream``."""
    recorded = {id(event): stream for what, stream, event in log if what == "record"}
    return [(at, recorded.get(id(event))) for at, (what, stream, event) in enumerate(log)
            if what == "wait" and stream is copy_stream]


def test_the_first_copies_wait_for_the_callers_queued_work(fake_gpu, monkeypatch):
    # The staging buffers may be memory CuPy's pool took back from kernels still queued on
    # the caller's stream (the passes queue their chunks without waiting): the copy stream's
    # first copy into each buffer waits for an event of the caller's stream recorded then.
    import fake_cupy
    from tricount.gpu import chunks

    log = _stream_log(monkeypatch)
    caller = fake_cupy.Stream()
    indptr, indices = _csr([3, 0, 2, 5, 1, 4])
    with caller:
        reader = chunks.HostCSR(indptr, indices, stage_entries=4, stage_rows=3)
        try:
            got = [np.asarray(c.cols).copy() for c in reader.chunks(0, 6, 4)]
        finally:
            reader.close()
    np.testing.assert_array_equal(np.concatenate(got), indices)
    copy_waits = [source for _at, source in _copy_waits(log, reader.copy_stream)]
    assert len(copy_waits) >= len(got) and all(s is caller for s in copy_waits)


@pytest.fixture
def deferred_copies(fake_gpu, monkeypatch):
    """Copies queued on a copy stream (a non-blocking one) run only once another stream
    waits for an event recorded after them, or the event or the stream is synchronized, and
    read their source then: a wait left out, or a pinned buffer refilled before its copy
    out, hands the caller stale data."""
    import threading

    import fake_cupy

    queue, done, lock = [], [0], threading.Lock()  # queued (dst, src); how many have run

    def run(upto: int) -> None:
        with lock:
            while done[0] < upto:
                dst, src = queue[done[0]]
                np.ndarray.__setitem__(dst, Ellipsis, src)
                done[0] += 1

    class Event(fake_cupy.Event):
        def __init__(self, upto=None):
            self.upto = upto

        def synchronize(self):
            if self.upto is not None:
                run(self.upto)

    init = fake_cupy.Stream.__init__

    def stream_init(self, non_blocking=False, null=False):
        init(self, non_blocking, null)
        self.deferred = bool(non_blocking)

    def record(self, event=None):
        if getattr(self, "deferred", False):
            with lock:
                return Event(len(queue))
        return Event()

    def wait_event(self, event):
        assert isinstance(event, fake_cupy.Event)
        if not getattr(self, "deferred", False) and getattr(event, "upto", None) is not None:
            run(event.upto)

    def synchronize(self):
        if getattr(self, "deferred", False):
            run(len(queue))

    def set_(self, arr, stream=None):
        if getattr(stream, "deferred", False):
            with lock:
                queue.append((self, arr))
        else:
            np.ndarray.__setitem__(self, Ellipsis, arr)

    monkeypatch.setattr(fake_cupy.Stream, "__init__", stream_init)
    monkeypatch.setattr(fake_cupy.Stream, "record", record)
    monkeypatch.setattr(fake_cupy.Stream, "wait_event", wait_event)
    monkeypatch.setattr(fake_cupy.Stream, "synchronize", synchronize)
    monkeypatch.setattr(fake_cupy.FakeArray, "set", set_)
    yield fake_gpu


def _chunk_is_right(chunk, indptr, indices) -> bool:
    return (np.asarray(chunk.indptr).tolist() == indptr[chunk.r0:chunk.r1 + 1].tolist()
            and np.asarray(chunk.cols).tolist() == indices[chunk.e0:chunk.e1].tolist())


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # stand-ins kept between
@given(lengths=st.lists(st.sampled_from([0, 0, 1, 2, 5, 13]), max_size=14),
       wide=st.booleans(), sizes=st.tuples(*[st.integers(1, 8)] * 5), data=st.data())
def test_every_chunk_is_whole_when_handed_out(deferred_copies, lengths, wide, sizes, data):
    from tricount.gpu.chunks import CachedHostCSR

    cp = deferred_copies
    indptr, indices = _csr(lengths)
    if wide:
        indices = (indices.astype(np.int64) << 33) + 5
    n = len(lengths)
    piece_entries, piece_rows, stage_entries, stage_rows, max_entries = sizes
    begin = data.draw(st.integers(0, n))
    end = data.draw(st.integers(begin, n))
    pieces, stage = (piece_entries, piece_rows), (stage_entries, stage_rows)
    reader = _reader(indptr, indices, stage, pieces)
    try:
        ptr = cp.full(end - begin + 1, -1, dtype=np.int64)
        cols = cp.full(int(indptr[end] - indptr[begin]), -1, dtype=indices.dtype)
        seen = 0
        for chunk in reader.stream_into(begin, end, ptr, cols, max_entries):
            assert _chunk_is_right(chunk, indptr, indices), chunk
            seen += chunk.n_entries
        assert seen == indptr[end] - indptr[begin]
        np.testing.assert_array_equal(np.asarray(ptr), indptr[begin:end + 1])
        np.testing.assert_array_equal(np.asarray(cols), indices[indptr[begin]:indptr[end]])
        right = []
        ptr, cols = reader.to_device(begin, end, each=lambda c: right.append(
            _chunk_is_right(c, indptr, indices)))
        assert all(right)
        np.testing.assert_array_equal(np.asarray(ptr), indptr[begin:end + 1])
        np.testing.assert_array_equal(np.asarray(cols), indices[indptr[begin]:indptr[end]])
    finally:
        reader.close()
    if n:
        cached = CachedHostCSR(_reader(indptr, indices, stage, pieces),
                               data.draw(st.integers(1, n)))
        try:
            for _ in range(3):  # the first pass fills the cache, the others read it
                seen = 0
                for chunk in cached.chunks(0, n, max_entries):  # each valid until the next
                    assert _chunk_is_right(chunk, indptr, indices), chunk
                    seen += chunk.n_entries
                assert seen == indptr[-1]
        finally:
            cached.close()


class TestStreamInto:
    """How ``HostCSR.stream_into`` begins and ends: after the caller's queued work, and,
    however it ends, with nothing more copied into the caller's arrays."""

    def test_the_first_copy_waits_for_the_callers_queued_work(self, fake_gpu, monkeypatch):
        import fake_cupy

        log, sets = _stream_log(monkeypatch), []
        real_set = fake_cupy.FakeArray.set

        def logged_set(self, arr, stream=None):
            sets.append(len(log))  # how many records and waits came before this copy
            return real_set(self, arr, stream)

        monkeypatch.setattr(fake_cupy.FakeArray, "set", logged_set)
        indptr, indices = _csr([3, 0, 2, 5, 1, 4])
        reader = _reader(indptr, indices, (4, 3), (2, 2))
        caller = fake_cupy.Stream()
        with caller:
            try:
                reader.to_device()
            finally:
                reader.close()
        copy_waits = _copy_waits(log, reader.copy_stream)
        assert [source for _at, source in copy_waits] == [caller]
        assert sets and copy_waits[0][0] < sets[0]  # before the first copy

    def test_a_caller_that_stops_early_stops_the_copy_and_keeps_no_cache(self, fake_gpu,
                                                                         monkeypatch):
        import threading

        import fake_cupy
        from tricount.gpu import chunks

        log, copied = _stream_log(monkeypatch), []
        real_copy = chunks.copy_into

        def counted_copy(*pairs):
            copied.append(1)
            return real_copy(*pairs)

        monkeypatch.setattr(chunks, "copy_into", counted_copy)
        indptr, indices = _csr([2, 3, 0, 4, 1, 5, 2, 2])
        host = _reader(indptr, indices, (3, 2), (2, 1))
        fill, second, calls = host._fill_piece, threading.Event(), []

        def held_fill(pinned, offsets, entries, outputs, first, after, stop):
            calls.append(entries)  # one filler thread: the pieces in order
            if len(calls) > 2:  # the third piece on waits until the caller has ended
                assert stop.wait(timeout=60)
            event = fill(pinned, offsets, entries, outputs, first, after, stop)
            if len(calls) == 2:
                second.set()
            return event

        host._fill_piece = held_fill
        reader = chunks.CachedHostCSR(host, 6)
        caller = fake_cupy.Stream()
        try:
            with caller:
                for _chunk in reader.chunks(0, 8, 2):  # the first chunk: the first piece's
                    assert second.wait(timeout=60)  # the second piece is copied too
                    break  # the generator is closed here
                assert len(copied) == 2  # the pieces after copied nothing
                # The cache's memory may go back to the pool: the caller's stream waits for
                # everything queued on the copy stream first.
                last_copy = [e for what, stream, e in log
                             if what == "record" and stream is host.copy_stream][-1]
                assert [e for what, stream, e in log
                        if what == "wait" and stream is caller][-1] is last_copy
                assert reader._cache is None
                host._fill_piece = fill
                got = [np.asarray(c.cols).tolist() for c in reader.chunks(0, 8, 3)]
                assert reader._cache is not None
        finally:
            reader.close()
        assert [i for cols in got for i in cols] == indices.tolist()

    def test_a_failing_piece_is_the_callers_error(self, fake_gpu, monkeypatch):
        from tricount.gpu import chunks

        copies = []
        real = chunks.copy_into

        def failing(*pairs):
            copies.append(1)
            if len(copies) == 3:
                raise OSError("the host array went away")
            return real(*pairs)

        monkeypatch.setattr(chunks, "copy_into", failing)
        indptr, indices = _csr([2, 3, 0, 4, 1, 5, 2, 2])
        reader = _reader(indptr, indices, (3, 2), (2, 1))
        try:
            with pytest.raises(OSError, match="went away"):
                reader.to_device(each=lambda chunk: None)
        finally:
            reader.close()

    def test_ctrl_c_while_a_piece_runs_drains_the_copies_first(self, fake_gpu, monkeypatch):
        import concurrent.futures

        synchronized = []
        indptr, indices = _csr([2, 3, 0, 4, 1, 5, 2, 2])
        reader = _reader(indptr, indices, (3, 2), (2, 1))
        interrupted = []
        real_exception = concurrent.futures.Future.exception

        def interrupt_once(self, timeout=None):
            if not interrupted:
                interrupted.append(1)
                raise KeyboardInterrupt
            return real_exception(self, timeout)

        try:
            stream = reader.stream_into(0, 8, fake_gpu.empty(9, dtype=np.int64),
                                        fake_gpu.empty(19, dtype=np.int32), 3)
            next(stream)
            with monkeypatch.context() as patch:
                patch.setattr(reader.copy_stream, "synchronize",
                              lambda: synchronized.append(1))
                patch.setattr(concurrent.futures.Future, "exception", interrupt_once)
                with pytest.raises(KeyboardInterrupt):
                    stream.close()
            assert synchronized and reader._filler is None  # drained before the interrupt
            ptr, cols = reader.to_device()  # a new filler
            np.testing.assert_array_equal(np.asarray(ptr), indptr)
            np.testing.assert_array_equal(np.asarray(cols), indices)
        finally:
            reader.close()
