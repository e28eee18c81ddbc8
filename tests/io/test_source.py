"""Chunked reading: plain files are mapped, compressed ones streamed; chunks end at line ends."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tricount.errors import GraphFormatError
from tricount.io import _source

sys.path.insert(0, str(Path(__file__).parent))
from io_support import write_text  # noqa: E402

LINES = "".join(f"{i}\t{i * 7}\n" for i in range(2000))


@pytest.mark.parametrize("name", ["g.txt", "g.txt.gz"])
def test_chunks_are_whole_lines_and_cover_the_file(name, tmp_path):
    path = write_text(tmp_path / name, LINES + "5 6")  # no final newline
    chunks = [bytes(buf) for buf, _ in _source.stream_chunks(path, chunk_bytes=1000)]
    assert len(chunks) > 10
    assert b"".join(chunks) == (LINES + "5 6").encode()
    assert all(c.endswith(b"\n") for c in chunks[:-1])


def test_plain_files_are_mapped_compressed_ones_are_not(tmp_path):
    plain = write_text(tmp_path / "g.txt", LINES)
    packed = write_text(tmp_path / "g.txt.gz", LINES)
    buf, _ = next(_source.stream_chunks(plain, chunk_bytes=1000))
    assert not buf.flags.writeable  # a view of the read-only map
    buf, _ = next(_source.stream_chunks(packed, chunk_bytes=1000))
    assert buf.flags.writeable  # a buffer the reader thread filled


def test_skip_and_progress(tmp_path):
    path = write_text(tmp_path / "g.txt", "header line\n" + LINES)
    seen = []
    data = b"".join(bytes(b) for b, _ in _source.stream_chunks(path, skip=12, chunk_bytes=500,
                                                               progress=seen.append))
    assert data == LINES.encode()
    assert seen == sorted(seen) and seen[-1] == len(LINES) + 12


@pytest.mark.parametrize("name", ["g.txt", "g.txt.gz"])
def test_a_line_past_the_limit_is_an_error(name, tmp_path, monkeypatch):
    monkeypatch.setattr(_source, "MAX_LINE_BYTES", 4096)
    path = write_text(tmp_path / name, "1 2\n" + "3 " + "4" * 10_000 + "\n5 6\n")
    with pytest.raises(GraphFormatError, match="longer than"):
        for _ in _source.stream_chunks(path, chunk_bytes=1024):
            pass


def test_a_long_line_under_the_limit_is_one_chunk(tmp_path):
    long_line = "3 " + "4" * 5000 + "\n"
    path = write_text(tmp_path / "g.txt", "1 2\n" + long_line + "5 6\n")
    chunks = [bytes(b) for b, _ in _source.stream_chunks(path, chunk_bytes=1024)]
    assert long_line.encode() in b"".join(chunks)
    assert any(c.endswith(long_line.encode()) for c in chunks)
