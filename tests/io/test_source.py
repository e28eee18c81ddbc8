"""The source: opened once from anything, line-aligned chunks, any line ending."""

from __future__ import annotations

import os
import socket
import sys
import threading
from pathlib import Path

import pytest

from tricount.errors import GraphFormatError
from tricount.io import load_graph, source as _source
from tricount.io.source import line_end, open_source

sys.path.insert(0, str(Path(__file__).parent))
from io_support import write_text  # noqa: E402

LINES = "".join(f"{i}\t{i * 7}\n" for i in range(2000))
TRIANGLE_AND_PATH = b"# c\n0 1\n1 2\n2 0\n2 3\n"


def chunks_of(path, chunk_bytes, **kwargs):
    with open_source(path) as source:
        return [bytes(buf) for buf, _ in source.chunks(chunk_bytes=chunk_bytes, **kwargs)]


@pytest.mark.parametrize("name", ["g.txt", "g.txt.gz"])
def test_chunks_are_whole_lines_and_cover_the_file(name, tmp_path):
    path = write_text(tmp_path / name, LINES + "5 6")  # no final newline
    chunks = chunks_of(path, 1000)
    assert len(chunks) > 10
    assert b"".join(chunks) == (LINES + "5 6").encode()
    assert all(c.endswith(b"\n") for c in chunks[:-1])


@pytest.mark.parametrize("name", ["g.txt", "g.txt.gz"])
@pytest.mark.parametrize("ending", [b"\r\n", b"\r"])
def test_chunks_never_split_a_line_end(name, ending, tmp_path):
    data = LINES.encode().replace(b"\n", ending)
    path = write_text(tmp_path / name, data)
    for size in (7, 64, 999):
        chunks = chunks_of(path, size)
        assert b"".join(chunks) == data
        assert all(c.endswith(ending) for c in chunks[:-1]), size


@pytest.mark.parametrize("tail", ["5 6", "5 6\n", ""])
def test_a_small_compressed_input_is_read_without_a_reader_thread(tail, tmp_path, monkeypatch):
    """Read whole while it was sniffed, it is cut into chunks in the caller's thread, with
    the same bytes (a last line without its end included) as through the reader thread."""
    text = "0 1\n1 2\n2 0\n" + tail
    path = write_text(tmp_path / "g.txt.gz", text)

    def refuse(thread):
        raise AssertionError(f"thread {thread.name} started")

    monkeypatch.setattr(threading.Thread, "start", refuse)
    with open_source(path) as source:
        source.head()
        assert b"".join(bytes(b) for b, _ in source.chunks(chunk_bytes=4)) == text.encode()
    assert load_graph(path).n_edges == 3 + (tail != "")


def test_line_end():
    assert line_end(b"a\nb\r\nc", 0, 6) == 5
    assert line_end(b"a\rb", 0, 3) == 2
    assert line_end(b"a\r\nb", 0, 2) == 3  # the CR's LF lies past the end: take it
    assert line_end(b"ab", 0, 2) == -1


def test_plain_files_are_mapped_compressed_ones_are_not(tmp_path):
    with open_source(write_text(tmp_path / "g.txt", LINES)) as source:
        buf, _ = next(source.chunks(chunk_bytes=1000))
        assert not buf.flags.writeable  # a view of the read-only map
    with open_source(write_text(tmp_path / "g.txt.gz", LINES)) as source:
        buf, _ = next(source.chunks(chunk_bytes=1000))
        assert buf.flags.writeable  # a buffer the reader thread filled


def test_header_lines_then_chunks(tmp_path):
    path = write_text(tmp_path / "g.txt.gz", "head\r\nsecond\rthird\n" + LINES)
    with open_source(path) as source:
        assert [source.readline() for _ in range(3)] == [b"head", b"second", b"third"]
        assert source.line == 3
        seen = []
        data = b"".join(bytes(b) for b, _ in source.chunks(chunk_bytes=500,
                                                            progress=seen.append))
    assert data == LINES.encode()
    assert seen == sorted(seen)


@pytest.mark.parametrize("name", ["g.txt", "g.txt.gz"])
def test_a_line_past_the_limit_is_an_error(name, tmp_path, monkeypatch):
    monkeypatch.setattr(_source, "MAX_LINE_BYTES", 4096)
    path = write_text(tmp_path / name, "1 2\n" + "3 " + "4" * 10_000 + "\n5 6\n")
    with pytest.raises(GraphFormatError, match="longer than"):
        chunks_of(path, 1024)


def test_a_line_past_the_limit_is_named_by_its_number(tmp_path, monkeypatch):
    # Chunks are parsed without counting lines: the error said "line 1" for line 4.
    from tricount.io import load_graph

    monkeypatch.setattr(_source, "MAX_LINE_BYTES", 16)
    path = write_text(tmp_path / "g.txt", "1 2\n2 3\n3 1\n" + "4" * 30 + " 5\n")
    monkeypatch.setattr(_source, "CHUNK_BYTES", 8)
    monkeypatch.setattr(_source, "FIRST_CHUNK_BYTES", 8)
    with pytest.raises(GraphFormatError, match=r"line 4: a line is longer than 16 bytes"):
        load_graph(str(path))


def test_a_long_line_under_the_limit_is_one_chunk(tmp_path):
    long_line = "3 " + "4" * 5000 + "\n"
    chunks = chunks_of(write_text(tmp_path / "g.txt", "1 2\n" + long_line + "5 6\n"), 1024)
    assert any(c.endswith(long_line.encode()) for c in chunks)


class TestReadOnce:
    """Every kind of input is opened once and read front to back (issue 23)."""

    def _count(self, path):
        g = load_graph(path)
        return g.n_vertices, g.n_edges

    def _count_through_a_pipe(self, data, step):
        read_end, write_end = os.pipe()
        writer = threading.Thread(target=_feed, args=(write_end, data, step))
        writer.start()
        try:
            return self._count(f"/dev/fd/{read_end}")
        finally:
            writer.join()
            os.close(read_end)

    def test_a_pipe_past_the_sniffed_bytes(self, tmp_path):
        # The first 64 KiB are blank: once read twice, they were lost (issue 23).
        assert self._count_through_a_pipe(b" \n" * 40_000 + TRIANGLE_AND_PATH, 7) == (4, 4)

    @pytest.mark.parametrize("kind", ["npy", "tcsr", "tcsr.gz"])
    def test_binary_formats_through_a_pipe(self, tmp_path, kind):
        import gzip

        import numpy as np

        from tricount.graph import CSRGraph
        from tricount.io import write_graph

        edges = np.array([[0, 1], [1, 2], [2, 0], [2, 3]])
        if kind == "npy":
            np.save(tmp_path / "g.npy", edges)
            data = (tmp_path / "g.npy").read_bytes()
        else:
            write_graph(tmp_path / "g.tcsr", CSRGraph.from_edges(edges[:, 0], edges[:, 1]))
            data = (tmp_path / "g.tcsr").read_bytes()
            data = gzip.compress(data) if kind.endswith(".gz") else data
        assert self._count_through_a_pipe(data, 5) == (4, 4)

    def test_a_fifo(self, tmp_path):
        fifo = tmp_path / "g.fifo"
        os.mkfifo(fifo)
        writer = threading.Thread(target=lambda: fifo.write_bytes(TRIANGLE_AND_PATH))
        writer.start()
        assert self._count(fifo) == (4, 4)
        writer.join()

    def test_a_unix_socket(self, tmp_path):
        path = str(tmp_path / "g.sock")
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(path)
        server.listen(1)

        def serve():
            conn, _ = server.accept()
            conn.sendall(TRIANGLE_AND_PATH)
            conn.close()

        thread = threading.Thread(target=serve)
        thread.start()
        try:
            assert self._count(path) == (4, 4)
        finally:
            thread.join()
            server.close()


def _feed(fd, data, step):
    try:
        for k in range(0, len(data), step * 997):
            os.write(fd, data[k: k + step * 997])
    finally:
        os.close(fd)

