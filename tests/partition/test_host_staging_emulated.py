"""A host CSR copied to the device through the pinned staging buffers, its offsets included.

The offsets travel with the chunks (``tricount.gpu.chunks._DeviceOffsets``): rows in no
chunk (the empty ones) get theirs from the next chunk or the range's end, a row cut into
pieces gets its own from every piece. Checked here, with fake_cupy's NumPy stand-in, against
the host arrays, for every row range of graphs with empty rows at the start, between
chunks and at the end, and rows longer than a chunk.
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


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("stage", [(2, 1), (3, 2), (4, 3), (64, 63)])
def test_to_device_brings_the_offsets_of_every_row_range(fake_gpu, shape, stage):
    from tricount.gpu.chunks import HostCSR

    indptr, indices = _csr(SHAPES[shape])
    n = indptr.shape[0] - 1
    for begin in range(n + 1):
        for end in range(begin, n + 1):
            reader = HostCSR(indptr, indices, stage_entries=stage[0], stage_rows=stage[1])
            try:
                ptr, cols = reader.to_device(begin, end)
            finally:
                reader.close()
            np.testing.assert_array_equal(np.asarray(ptr), indptr[begin:end + 1])
            np.testing.assert_array_equal(np.asarray(cols),
                                          indices[indptr[begin]:indptr[end]])


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_cached_rows_keep_their_offsets(fake_gpu, shape):
    from tricount.gpu.chunks import CachedHostCSR, HostCSR

    indptr, indices = _csr(SHAPES[shape])
    n = indptr.shape[0] - 1
    for cut in range(1, n + 1):
        reader = CachedHostCSR(HostCSR(indptr, indices, stage_entries=3, stage_rows=2), cut)
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
