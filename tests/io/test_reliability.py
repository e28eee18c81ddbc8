"""The cases of issue 23: each gives the right count or a clear error naming the input
(and the line where one applies), at a bounded peak of memory."""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import sys
import threading
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import tricount
from tricount.cli import main
from tricount.errors import GraphFormatError, TricountError
from tricount.io import _parse, load_graph, read_graph, source as _source
from tricount.io.source import open_source

sys.path.insert(0, str(Path(__file__).parent))
from io_support import write_text  # noqa: E402

#: A triangle, a pendant edge and an isolated vertex 9 (declared formats only).
TRIANGLE = [(1, 2), (2, 3), (3, 1), (3, 4)]


def count(path, **kwargs):
    return tricount.count_triangles(load_graph(path, **kwargs), backend="cpu")


def refused(path, line, fragment):
    """Reading ``path`` raises GraphFormatError at ``line`` saying ``fragment``."""
    with pytest.raises(GraphFormatError) as info:
        load_graph(path)
    assert info.value.line == line and fragment in str(info.value)


def lines(pairs, end="\n"):
    return end.join(f"{u} {v}" for u, v in pairs) + end


class TestLineEndings:
    @pytest.mark.parametrize("end", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
    @pytest.mark.parametrize("name", ["g.txt", "g.txt.gz", "g_adj.tsv", "g.mtx", "g.graph"])
    def test_every_format_every_ending(self, tmp_path, end, name):
        if name == "g.mtx":
            text = end.join(["%%MatrixMarket matrix coordinate pattern general", "% c",
                             "4 4 4"]) + end + lines(TRIANGLE, end)
        elif name == "g.graph":
            text = end.join(["% c", "4 4", "2 3", "1 3", "1 2 4", "3"]) + end
        else:
            text = "# c" + end + lines(TRIANGLE, end)
        g = load_graph(write_text(tmp_path / name, text))
        assert (g.n_vertices, g.n_edges) == (4, 4)
        assert tricount.count_triangles(g, backend="cpu") == 1

    def test_mixed_endings_lose_no_line(self, tmp_path):
        path = write_text(tmp_path / "g.txt", "1 2\r2 3\n3 1\r\n3 4\r")
        assert load_graph(path).n_edges == 4 and count(path) == 1

    @pytest.mark.parametrize("end", ["\n", "\r"])
    def test_error_lines_count_every_ending(self, tmp_path, end):
        path = write_text(tmp_path / "g.txt", end.join(["1 2", "# c", "", "2 x"]) + end)
        with pytest.raises(GraphFormatError) as info:
            load_graph(path)
        assert info.value.line == 4


class TestLeadingBlankText:
    @pytest.mark.parametrize("name", ["g.txt", "g.txt.gz", "g.mtx"])
    def test_first_64_kib_blank_is_not_empty(self, tmp_path, name):
        body = (lines(TRIANGLE) if name != "g.mtx" else
                "%%MatrixMarket matrix coordinate pattern general\n4 4 4\n" + lines(TRIANGLE))
        path = write_text(tmp_path / name, " \t\n" * 30_000 + body)
        assert count(path) == 1

    def test_matrix_market_named_txt_after_blank_lines(self, tmp_path):
        path = write_text(tmp_path / "m.txt", "\n\n%%MatrixMarket matrix coordinate pattern "
                                              "general\n4 4 4\n" + lines(TRIANGLE))
        loaded = read_graph(path)
        assert loaded.format == "matrix-market" and loaded.graph.n_vertices == 4

    def test_many_comments_before_the_header(self, tmp_path):
        path = write_text(tmp_path / "g.graph", "% comment\n" * 20_000 + "4 4\n2 3\n1 3\n"
                                                "1 2 4\n3\n")
        assert count(path) == 1


class TestRefusedWithTheLine:
    @pytest.mark.parametrize("text,line,fragment", [
        ("1\t2\t1\n2\t0\t1\n", 2, "vertex id 0 is not a vertex"),
        ("0\t1\t1\n", 1, "1-based"),
    ])
    def test_zero_id_in_graphchallenge(self, tmp_path, text, line, fragment):
        refused(write_text(tmp_path / "g_adj.tsv", text), line, fragment)
        assert count(write_text(tmp_path / "g.tsv", text)) == 0  # 0-based: as an edge list

    @pytest.mark.parametrize("name,text,line", [
        ("u.mtx", "%%MatrixMarket matrix coordinate pattern general\n\u0663 3 1\n1 2\n", 2),
        ("u.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 \u00b2\n1 2\n", 2),
        ("u.graph", "% c\n\u0663 3\n2 3\n1 3\n1 2\n", 2),
        ("u.graph", "3 3 0\u00b9\n2 3\n1 3\n1 2\n", 1),
    ])
    def test_unicode_digits_in_headers(self, tmp_path, capsys, name, text, line):
        path = write_text(tmp_path / name, text)
        with pytest.raises(GraphFormatError) as info:
            load_graph(path)
        assert info.value.line == line and "ASCII digits" in str(info.value)
        assert main(["count", str(path), "--backend", "cpu"]) == 2
        assert "Traceback" not in capsys.readouterr().err

    MTX = "%%MatrixMarket matrix coordinate {field} general\n3 3 2\n"

    @pytest.mark.parametrize("field,entries,fragment", [
        ("integer", "1 2 7\n2 3 1.5\n", "expected an integer value in the third column, found "
                                        "'1.5'"),
        ("integer", "1 2 -7\n2 3 x\n", "found 'x'"),
        ("real", "1 2 1e-3\n2 3 1.2.3\n", "found '1.2.3'"),
        ("real", "1 2 .5\n2 3 1e\n", "found '1e'"),
        ("pattern", "1 2\n2 3 1\n", "expected nothing after the two indices, found '1'"),
        ("real", "1 2 1.0\n2 3 1.0 9\n", "expected nothing after the real value, found '9'"),
    ])
    def test_matrix_market_values_against_the_field(self, tmp_path, field, entries, fragment):
        path = write_text(tmp_path / "v.mtx", self.MTX.format(field=field) + entries)
        with pytest.raises(GraphFormatError) as info:
            load_graph(path)
        assert info.value.line == 4 and fragment in str(info.value)

    def test_matrix_market_values_accepted(self, tmp_path):
        body = "1 2 -3\n2 3 +4\n3 1 0\n"
        assert count(write_text(tmp_path / "i.mtx", self.MTX.replace("3 3 2", "3 3 3")
                                .format(field="integer") + body)) == 1
        body = "1 2 1.5e+2\n2 3 -.5\n3 1 7.\n"
        assert count(write_text(tmp_path / "r.mtx", self.MTX.replace("3 3 2", "3 3 3")
                                .format(field="real") + body)) == 1

    @pytest.mark.parametrize("text,line,fragment", [
        ("3 3 001\n2 1 3 1\n1 1 3 x\n1 1 2 1\n", 3, "expected a weight"),
        ("3 3 010\n5 2 3\n-1 1 3\n5 1 2\n", 3, "expected a weight"),
        ("3 3 001\n2 1.5 3 1\n1 1 3 1\n1 1 2 1\n", 2, "found '1.5'"),
    ])
    def test_metis_weights(self, tmp_path, text, line, fragment):
        refused(write_text(tmp_path / "w.graph", text), line, fragment)

    def test_metis_asymmetric_adjacency(self, tmp_path):
        # 2 m entries, but edge {1, 3} is listed by vertex 1 only and {2, 2}... by 2 only.
        path = write_text(tmp_path / "a.graph", "3 2\n2 3\n1\n2\n")
        with pytest.raises(GraphFormatError, match="not symmetric: 2 of the 3 edges"):
            load_graph(path)


class TestDeclaredSizes:
    def test_huge_matrix_market_is_refused_before_allocating(self, tmp_path):
        path = write_text(tmp_path / "big.mtx", "%%MatrixMarket matrix coordinate pattern "
                                                "general\n3000000000000 3000000000000 1\n1 2\n")
        tracemalloc.start()
        try:
            with pytest.raises(GraphFormatError, match="memory available") as info:
                load_graph(path)
            assert tracemalloc.get_traced_memory()[1] < 64 << 20
        finally:
            tracemalloc.stop()
        assert info.value.line == 2

    def test_metis_with_more_vertices_than_the_file_can_hold(self, tmp_path):
        path = write_text(tmp_path / "big.graph", "1000000 1\n2\n1\n")
        with pytest.raises(GraphFormatError, match="only 4 bytes follow") as info:
            load_graph(path)
        assert info.value.line == 1

    def test_out_of_memory_names_the_input(self, tmp_path, capsys, monkeypatch):
        from tricount.prep import build, canonical

        def no_memory(*args, **kwargs):
            raise MemoryError

        monkeypatch.setattr(build, "build_upper_csr", no_memory)  # either parser's builder
        monkeypatch.setattr(canonical, "upper_csr_of_chunks", no_memory)
        path = write_text(tmp_path / "g.txt", lines(TRIANGLE))
        with pytest.raises(TricountError, match="g.txt: out of memory while reading"):
            load_graph(path)
        assert main(["count", str(path), "--backend", "cpu"]) == 2
        assert "g.txt: out of memory" in capsys.readouterr().err


class TestBombs:
    """A compressed input that expands without bound is read at a bounded peak."""

    def test_gzip_of_one_repeated_edge_is_counted_at_a_bounded_peak(self, tmp_path,
                                                                   monkeypatch):
        monkeypatch.setattr(_parse, "MERGE_MIN_EDGES", 1 << 16)
        monkeypatch.setattr(_source, "CHUNK_BYTES", 1 << 18)  # the parser's own buffers: small
        n = 2_000_000  # 8 MB of text, 16 MB of int32 pairs if every line were kept
        path = tmp_path / "bomb.txt.gz"
        path.write_bytes(gzip.compress(b"0 1\n" * n + b"1 2\n2 0\n", 9))
        assert path.stat().st_size < 20_000
        tracemalloc.start()
        try:
            g = load_graph(path)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert (g.n_edges, g.duplicates_dropped, g.self_loops_dropped) == (3, n - 1, 0)
        assert tricount.count_triangles(g, backend="cpu") == 1
        assert peak < 8 << 20, peak  # keeping every line would take 16 MB

    def test_repeats_and_loops_are_counted_across_merges(self, tmp_path, monkeypatch):
        monkeypatch.setattr(_parse, "MERGE_MIN_EDGES", 64)
        monkeypatch.setattr(_source, "CHUNK_BYTES", 256)
        rng = np.random.default_rng(3)
        pairs = rng.integers(0, 40, (1000, 2))
        pairs[::7, 1] = pairs[::7, 0]  # loops
        text = "".join(f"{u} {v}\n" for u, v in pairs.tolist())
        path = tmp_path / "g.txt.gz"
        path.write_bytes(gzip.compress(text.encode()))
        got = load_graph(path)
        want = tricount.Graph.from_edges(pairs[:, 0], pairs[:, 1])
        assert (got.n_vertices, got.n_edges) == (want.n_vertices, want.n_edges)
        assert got.self_loops_dropped == want.self_loops_dropped
        assert got.duplicates_dropped == want.duplicates_dropped
        np.testing.assert_array_equal(got.indices, want.indices)

    @pytest.mark.parametrize("kind", ["zstd", "xz", "bzip2"])
    def test_a_frame_of_zeros_is_refused_at_a_bounded_peak(self, tmp_path, kind, monkeypatch):
        monkeypatch.setattr(_source, "MAX_LINE_BYTES", 1 << 20)
        monkeypatch.setattr(_source, "ZSTD_FEED", 256)  # at most 256 / 4 * 128 KiB a call
        monkeypatch.setattr(_source, "CHUNK_BYTES", 1 << 20)  # the parser's own buffers
        zeros = b"\0" * (32 << 20)
        if kind == "zstd":
            data = pytest.importorskip("zstandard").ZstdCompressor().compress(zeros)
        else:
            data = {"xz": lzma.compress, "bzip2": bz2.compress}[kind](zeros)
        path = tmp_path / "zeros.txt"
        path.write_bytes(data)
        tracemalloc.start()
        try:
            with pytest.raises(GraphFormatError, match="longer than 1 MiB"):
                load_graph(path)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 16 << 20, peak  # the frame holds 32 MiB

    def test_zstd_checksums_are_checked(self, tmp_path):
        zstandard = pytest.importorskip("zstandard")
        data = bytearray(zstandard.ZstdCompressor(write_checksum=True).compress(
            lines(TRIANGLE).encode() * 50))
        data[-1] ^= 0xFF
        path = tmp_path / "g.txt.zst"
        path.write_bytes(bytes(data))
        with pytest.raises(GraphFormatError, match="corrupt zstd data.*checksum"):
            load_graph(path)

    def test_zstd_written_with_checksums(self, tmp_path):
        zstandard = pytest.importorskip("zstandard")
        path = tmp_path / "g.txt.zst"
        tricount.io.write_graph(path, load_graph(write_text(tmp_path / "g.txt", lines(TRIANGLE))))
        params = zstandard.get_frame_parameters(path.read_bytes())
        assert params.has_checksum
        assert count(path) == 1


class TestNativeSafety:
    def _native(self, tmp_path, seed=1):
        g = tricount.Graph.from_edges(*np.random.default_rng(seed).integers(0, 500, (2, 5000)))
        path = tmp_path / "g.tcsr"
        tricount.io.write_graph(path, g)
        return path, g

    def test_arrays_are_not_mapped_so_truncation_cannot_sigbus(self, tmp_path):
        path, g = self._native(tmp_path)
        loaded = load_graph(path)
        os.truncate(path, 0)  # another process empties the file under the reader
        assert tricount.count_triangles(loaded, backend="cpu") == \
            tricount.count_triangles(g, backend="cpu")

    def test_shrinking_while_read_is_a_clear_error(self, tmp_path, monkeypatch):
        path, _ = self._native(tmp_path)
        real = _source.Source.pread_into

        def shrink_first(self, view, offset):
            os.truncate(path, offset + 10)
            return real(self, view, offset)

        monkeypatch.setattr(_source.Source, "pread_into", shrink_first)
        with pytest.raises(GraphFormatError, match="shrank while it was read"):
            load_graph(path)

    def test_a_mapped_text_file_that_shrinks_is_a_clear_error(self, tmp_path):
        path = write_text(tmp_path / "g.txt", lines(TRIANGLE) * 100)
        with pytest.raises(GraphFormatError, match="the file shrank"):
            with open_source(path) as source:
                for _ in source.chunks(chunk_bytes=64):
                    os.truncate(path, 100)

    def test_a_replaced_file_reads_old_or_new_never_a_mix(self, tmp_path):
        path, old = self._native(tmp_path, 1)
        with open_source(path) as source:
            tricount.io.write_graph(path, tricount.Graph.from_edges([0, 1], [1, 2]))
            from tricount.io.native import read

            got = read(source)  # opened before the rename: the old file, whole
        np.testing.assert_array_equal(got.indices, old.indices)
        assert load_graph(path).n_edges == 2


#: A command's signal handling in a child: an output half written, then a signal.
SIGNAL_CHILD = r"""
import os, signal, sys, time
from tricount.cli.options import signals_end_the_process
from tricount.io.output import atomic_output
with signals_end_the_process():
    with atomic_output(sys.argv[1]) as (f, tmp):
        f.write(b"half")
        f.flush()
        os.kill(os.getpid(), getattr(signal, sys.argv[2]))
        time.sleep(60)
print("not reached")
"""


class TestInterrupts:
    @pytest.mark.parametrize("sig,code,line", [("SIGINT", 130, "tricount: interrupted\n"),
                                               ("SIGTERM", 143, "tricount: terminated\n")])
    def test_a_signal_ends_the_process_and_removes_its_outputs(self, tmp_path, sig, code, line):
        import subprocess

        target = tmp_path / "out.bin"
        target.write_bytes(b"old")
        env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2] / "src"))
        proc = subprocess.run([sys.executable, "-c", SIGNAL_CHILD, str(target), sig], env=env,
                              capture_output=True, timeout=120)
        assert (proc.returncode, proc.stdout, proc.stderr.decode()) == (code, b"", line)
        assert target.read_bytes() == b"old" and sorted(os.listdir(tmp_path)) == ["out.bin"]

    def test_ctrl_c_exits_130_with_one_line(self, capsys, monkeypatch, tmp_path):
        from tricount.cli import info

        def interrupted(args):
            raise KeyboardInterrupt

        monkeypatch.setattr(info, "run", interrupted)
        assert main(["info", str(write_text(tmp_path / "g.txt", "0 1\n"))]) == 130
        assert capsys.readouterr().err == "tricount: interrupted\n"


def test_standard_input_through_the_cli(tmp_path, capfd, monkeypatch):
    data = gzip.compress(lines(TRIANGLE).encode())
    read_end, write_end = os.pipe()
    feeder = threading.Thread(target=lambda: (os.write(write_end, data), os.close(write_end)))
    feeder.start()
    monkeypatch.setattr(sys, "stdin", os.fdopen(read_end, "rb"))
    try:
        assert main(["count", "-", "--backend", "cpu"]) == 0
    finally:
        feeder.join()
        sys.stdin.close()
    out, err = capfd.readouterr()
    assert out == "1\n" and "4 vertices, 4 edges" in err


@pytest.mark.slow
def test_one_megabyte_gzip_bomb_in_a_process(tmp_path):
    """The issue's case at full size: a 1 MB .gz of one repeated edge (about a billion
    lines) is counted, at a peak under 1.5 GB."""
    import json
    import subprocess

    path = tmp_path / "bomb.txt.gz"
    with gzip.open(path, "wb", compresslevel=9) as f:
        block = b"0 1\n" * (1 << 20)
        while path.stat().st_size < 1_000_000:
            for _ in range(64):
                f.write(block)
            f.flush()
    code = ("import json, sys; from tricount.io import load_graph; g = load_graph(sys.argv[1]); "
            "hwm = next(int(l.split()[1]) * 1024 for l in open('/proc/self/status') "
            "if l.startswith('VmHWM:')); "
            "print(json.dumps([g.n_edges, g.duplicates_dropped, hwm]))")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2] / "src"))
    proc = subprocess.run([sys.executable, "-c", code, str(path)], env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    n_edges, duplicates, peak = json.loads(proc.stdout)
    assert n_edges == 1 and duplicates > 10**8
    assert peak < 1.5e9, peak
