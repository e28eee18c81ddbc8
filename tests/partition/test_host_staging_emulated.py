"""A host CSR copied to the device through pinned buffers, its offsets included.

The offsets travel with the entries (``HostCSR.stream_into``): pieces of empty rows carry
theirs, a row cut into pieces gets its own from every piece. Checked here, with fake_cupy's
NumPy stand-in, against the host arrays, for every row range of graphs with empty rows at
the start, between chunks and at the end, and rows longer than a chunk; and the order of
the two streams: a chunk is handed out only after the copy of the piece it ends in.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

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
            try:
                ptr, cols = reader.to_device(begin, end)
            finally:
                reader.close()
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


def test_the_first_copies_wait_for_the_callers_queued_work(fake_gpu, monkeypatch):
    # The staging buffers may be memory CuPy's pool took back from kernels still queued on
    # the caller's stream (the passes queue their chunks without waiting): the copy stream's
    # first copy into each buffer waits for an event of the caller's stream recorded then.
    import fake_cupy
    from tricount.gpu import chunks

    recorded, waits = {}, []
    record, wait = fake_cupy.Stream.record, fake_cupy.Stream.wait_event

    def tagged_record(self, event=None):
        made = record(self, event)
        recorded[id(made)] = self
        return made

    def logged_wait(self, event):
        waits.append((self, recorded.get(id(event))))
        return wait(self, event)

    monkeypatch.setattr(fake_cupy.Stream, "record", tagged_record)
    monkeypatch.setattr(fake_cupy.Stream, "wait_event", logged_wait)
    caller = fake_cupy.Stream()
    indptr, indices = _csr([3, 0, 2, 5, 1, 4])
    with caller:
        reader = chunks.HostCSR(indptr, indices, stage_entries=4, stage_rows=3)
        try:
            got = [np.asarray(c.cols).copy() for c in reader.chunks(0, 6, 4)]
        finally:
            reader.close()
    np.testing.assert_array_equal(np.concatenate(got), indices)
    copy_waits = [source for stream, source in waits if stream is reader.copy_stream]
    assert len(copy_waits) >= len(got) and all(s is caller for s in copy_waits)


class TestStreamInto:
    """``HostCSR.stream_into``: the filler copies pieces ahead of the caller, straight to
    where they stay; the caller's stream waits for the piece each chunk ends in."""

    def watch(self, monkeypatch, reader):
        """``(waits, pieces)``: each wait of a stream on an event, and the piece bounds whose
        copies an event ends (the filler's pieces, by the event it returns)."""
        import fake_cupy

        waits, pieces = [], {}
        fill, wait = type(reader)._fill_piece, fake_cupy.Stream.wait_event

        def logged_fill(self, pinned, bound, *args, **kwargs):
            event = fill(self, pinned, bound, *args, **kwargs)
            pieces[id(event)] = bound
            return event

        def logged_wait(self, event):
            waits.append((self, id(event)))
            return wait(self, event)

        monkeypatch.setattr(type(reader), "_fill_piece", logged_fill)
        monkeypatch.setattr(fake_cupy.Stream, "wait_event", logged_wait)
        return waits, pieces

    @pytest.mark.parametrize("pieces", [(1, 1), (3, 2), (7, 3)])
    def test_each_chunk_comes_after_the_copy_of_the_piece_it_ends_in(self, fake_gpu,
                                                                     monkeypatch, pieces):
        import fake_cupy

        indptr, indices = _csr([0, 4, 0, 0, 2, 9, 1, 0, 3, 0])
        reader = _reader(indptr, indices, (4, 3), pieces)
        waits, copied = self.watch(monkeypatch, reader)
        caller = fake_cupy.Stream()
        seen = []
        with caller:
            ptr = fake_gpu.empty(indptr.shape[0], dtype=np.int64)
            cols = fake_gpu.empty(indices.shape[0], dtype=indices.dtype)
            try:
                for chunk in reader.stream_into(0, 10, ptr, cols, 4):
                    mine = [e for stream, e in waits if stream is caller]
                    r0, r1, e0, e1 = copied[mine[-1]]
                    assert r1 >= chunk.r1 and e1 >= chunk.e1, (chunk, copied[mine[-1]])
                    seen.append((chunk.e0, chunk.e1))
                    np.testing.assert_array_equal(np.asarray(chunk.cols),
                                                  indices[chunk.e0:chunk.e1])
            finally:
                reader.close()
        assert seen[0][0] == 0 and seen[-1][1] == indptr[-1] and len(copied) > 1
        np.testing.assert_array_equal(np.asarray(ptr), indptr)
        np.testing.assert_array_equal(np.asarray(cols), indices)

    def test_the_first_copy_waits_for_the_callers_queued_work(self, fake_gpu, monkeypatch):
        import fake_cupy

        recorded = {}
        record = fake_cupy.Stream.record

        def tagged_record(self, event=None):
            made = record(self, event)
            recorded[id(made)] = self
            return made

        monkeypatch.setattr(fake_cupy.Stream, "record", tagged_record)
        indptr, indices = _csr([3, 0, 2, 5, 1, 4])
        reader = _reader(indptr, indices, (4, 3), (2, 2))
        waits, _ = self.watch(monkeypatch, reader)
        caller = fake_cupy.Stream()
        with caller:
            try:
                reader.to_device()
            finally:
                reader.close()
        copy_waits = [recorded.get(e) for stream, e in waits if stream is reader.copy_stream]
        assert copy_waits == [caller]

    def test_a_caller_that_stops_early_stops_the_copy_and_keeps_no_cache(self, fake_gpu,
                                                                         monkeypatch):
        import threading

        import fake_cupy
        from tricount.gpu.chunks import CachedHostCSR

        records = []  # (stream, event id), in order
        record = fake_cupy.Stream.record

        def logged_record(self, event=None):
            made = record(self, event)
            records.append((self, id(made)))
            return made

        monkeypatch.setattr(fake_cupy.Stream, "record", logged_record)
        indptr, indices = _csr([2, 3, 0, 4, 1, 5, 2, 2])
        host = _reader(indptr, indices, (3, 2), (2, 1))
        waits, copied = self.watch(monkeypatch, host)
        ahead, fill = threading.Event(), host._fill_piece

        def fill_and_tell(*args):
            event = fill(*args)
            if len(copied) >= 3:
                ahead.set()
            return event

        host._fill_piece = fill_and_tell
        reader = CachedHostCSR(host, 6)
        caller = fake_cupy.Stream()
        try:
            with caller:
                for _chunk in reader.chunks(0, 8, 3):
                    # The filler runs ahead: pieces past this chunk's are copied too.
                    assert ahead.wait(timeout=60)
                    break  # the generator is closed here: its pieces are cancelled or end
                # The cache's memory may go back to the pool: the caller's stream waits for
                # every copy queued into it first.
                last_copy = [e for stream, e in records if stream is host.copy_stream][-1]
                assert [e for stream, e in waits if stream is caller][-1] == last_copy
                assert reader._cache is None
                got = [(c.r0, c.r1, np.asarray(c.cols).tolist()) for c in reader.chunks(0, 8, 3)]
                assert reader._cache is not None
        finally:
            reader.close()
        assert sum((cols for _r0, _r1, cols in got), []) == indices.tolist()

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
