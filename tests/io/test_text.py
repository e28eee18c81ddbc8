"""The edge-list parser: what a line may hold, and exact line numbers across pieces and chunks."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from tricount.errors import GraphFormatError
from tricount.io import _text, load_graph, read_edges, source as _source

sys.path.insert(0, str(Path(__file__).parent))
from io_support import write_text  # noqa: E402


@pytest.fixture
def tiny_chunks(monkeypatch):
    """Chunks of 256 bytes split into pieces of 16: every boundary case, on small files."""
    monkeypatch.setattr(_source, "CHUNK_BYTES", 256)
    monkeypatch.setattr(_text, "MIN_PIECE_BYTES", 16)


class TestLines:
    def test_separators_comments_crlf_extra_columns(self, tmp_path):
        text = ("\ufeff# SNAP header\r\n"
                "0\t1\r\n"
                "  1   2   1.0  extra\n"
                "% a comment mid-file\n"
                "\n"
                "\t2 0 1\n"
                "   # indented comment\n"
                "3 3")  # a self-loop, no final newline
        src, dst = read_edges(write_text(tmp_path / "g.txt", text))
        assert src.tolist() == [0, 1, 2, 3] and dst.tolist() == [1, 2, 0, 3]
        g = load_graph(tmp_path / "g.txt")
        assert (g.n_edges, g.self_loops_dropped) == (3, 1)

    def test_sparse_and_huge_ids(self, tmp_path):
        big = 2**63 - 1
        g = load_graph(write_text(tmp_path / "g.txt", f"{big} 7\n7 10000000000\n10000000000 {big}\n"))
        assert g.vertex_ids.tolist() == [7, 10**10, big]
        assert g.n_edges == 3

    def test_duplicates_and_both_directions(self, tmp_path):
        g = load_graph(write_text(tmp_path / "g.txt", "1 2\n2 1\n1 2\n2 3\n2 3\n2 3\n"))
        # (2, 1) is the other direction, not a duplicate; repeats of (1, 2) and (2, 3) are.
        assert (g.n_edges, g.duplicates_dropped) == (2, 3)


class TestAcrossChunks:
    def _lines(self, n, bad_at=None, bad="x y"):
        out = []
        for i in range(1, n + 1):
            if i == bad_at:
                out.append(bad)
            elif i % 17 == 0:
                out.append("# comment")
            elif i % 23 == 0:
                out.append("")
            else:
                out.append(f"{i}\t{(i * 31) % 997}")
        return out

    @pytest.mark.parametrize("bad_at", [1, 16, 17 * 5 + 1, 999, 1000])
    def test_error_line_is_exact(self, bad_at, tmp_path, tiny_chunks):
        path = write_text(tmp_path / "g.txt", "\r\n".join(self._lines(1000, bad_at)) + "\r\n")
        with pytest.raises(GraphFormatError) as info:
            load_graph(path)
        assert info.value.line == bad_at

    def test_same_graph_whatever_the_chunking(self, tmp_path, monkeypatch):
        path = write_text(tmp_path / "g.txt.gz", "\n".join(self._lines(1000)))
        whole = load_graph(path)
        monkeypatch.setattr(_source, "CHUNK_BYTES", 300)
        monkeypatch.setattr(_text, "MIN_PIECE_BYTES", 8)
        pieces = load_graph(path)
        np.testing.assert_array_equal(whole.indices, pieces.indices)
        np.testing.assert_array_equal(whole.vertex_ids, pieces.vertex_ids)
        assert whole.duplicates_dropped == pieces.duplicates_dropped

    def test_line_longer_than_a_chunk(self, tmp_path, tiny_chunks):
        long_line = "5 6 " + "w" * 5000
        path = write_text(tmp_path / "g.txt", f"1 2\n{long_line}\n3 4\n9\n")
        with pytest.raises(GraphFormatError) as info:
            load_graph(path)
        assert info.value.line == 4
        assert read_edges(write_text(tmp_path / "ok.txt", f"1 2\n{long_line}\n"))[0].tolist() == [1, 5]

    def test_metis_across_chunks(self, tmp_path, tiny_chunks):
        n = 300
        adj = [[(v + 1) % n + 1, (v - 1) % n + 1] for v in range(n)]  # a cycle
        lines = [f"{n} {n}"] + [" ".join(map(str, a)) for a in adj]
        lines.insert(100, "% a comment between vertices")
        g = load_graph(write_text(tmp_path / "c.graph", "\n".join(lines) + "\n"))
        assert (g.n_vertices, g.n_edges) == (n, n)
