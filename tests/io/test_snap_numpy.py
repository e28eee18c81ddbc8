"""io's NumPy parser of SNAP edge lists (tricount.io.snap_numpy) against its Numba parser.

The two must give the same graph, array for array (vertex ids, CSR, loops and repeats
dropped), and the same GraphFormatError (file, line, message) on a malformed input,
whatever the chunking and however the input arrives (a file, a compressed file, a pipe).
Texts the NumPy parser reads itself must not reach the Numba parser at all.
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tricount
from tricount.errors import GraphFormatError, TricountError
from tricount.io import (NUMPY_PARSE_FORMATS, _parse, _text, load_graph, read_edges, read_graph,
                         snap_numpy, source as _source)

sys.path.insert(0, str(Path(__file__).parent))
from io_support import feed_pipe, write_text  # noqa: E402

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])
MAX_ID = 2**63 - 1


def assert_same_graph(a, b):
    assert (a.n_vertices, a.n_edges, a.name) == (b.n_vertices, b.n_edges, b.name)
    assert (a.self_loops_dropped, a.duplicates_dropped) == (b.self_loops_dropped,
                                                            b.duplicates_dropped)
    for name in ("indptr", "indices", "vertex_ids"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype, name
        np.testing.assert_array_equal(x, y, err_msg=name)


def outcome(path, parser, **kwargs):
    """The graph, or the error's (type, line, text): what a caller of load_graph sees."""
    try:
        return load_graph(path, parser=parser, **kwargs)
    except GraphFormatError as exc:
        return (type(exc), exc.line, str(exc))


def assert_same_outcome(path, **kwargs):
    a, b = outcome(path, "numpy", **kwargs), outcome(path, "numba", **kwargs)
    if isinstance(b, tuple):
        assert a == b
    else:
        assert not isinstance(a, tuple), a
        assert_same_graph(a, b)
    return b


@pytest.fixture
def numba_calls(monkeypatch):
    """How many times the NumPy parser handed lines to the Numba parser."""
    calls = []
    original = _parse.parse_chunks

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(_parse, "parse_chunks", counting)
    return calls


class TestSharedGraphs:
    def test_same_graph_as_the_numba_parser(self, shared_graphs):
        checked = 0
        for row in shared_graphs:
            if row["edges"] > 30_000 and row["name"] != "soc-Epinions1":
                continue  # the default suite: the small ones, and issue 25's file
            a = read_graph(row["path"], parser="numpy")
            b = read_graph(row["path"], parser="numba")
            assert (a.parser, b.parser) == ("numpy", "numba")
            assert_same_graph(a.graph, b.graph)
            assert tricount.count_triangles(a.graph, backend="cpu") == row["triangles"]
            checked += 1
        assert checked >= 5

    @pytest.mark.slow
    def test_same_graph_as_the_numba_parser_large(self, shared_graphs):
        for row in shared_graphs:
            assert_same_graph(load_graph(row["path"], parser="numpy"),
                              load_graph(row["path"], parser="numba"))


# -- generated texts --------------------------------------------------------------------

IDS = st.one_of(st.integers(0, 40), st.integers(0, MAX_ID),
                st.integers(0, 99).map(lambda v: f"00{v}"),  # leading zeros
                st.sampled_from(["999999999999999999", "1000000000000000000", str(MAX_ID),
                                 "0000000000000000000000042"]))  # 18, 19 and 25 digits
BLANKS = st.sampled_from([" ", "\t", "  ", " \t "])
TAILS = st.sampled_from(["", " ", "\t1.5", " 1234567890 7", " foo bar", " #x", "\t-3", " 2x"])
EDGE = st.builds(lambda lead, u, sep, v, tail: f"{lead}{u}{sep}{v}{tail}",
                 st.sampled_from(["", "", " ", "\t"]), IDS, BLANKS, IDS, TAILS)
COMMENT = st.sampled_from(["# FromNodeId\tToNodeId", "% matrix", "  # indented", "#", "%1 2",
                           "\t% 3 4"])
BLANK = st.sampled_from(["", " ", "\t\t"])
LOOP = st.integers(0, 9).map(lambda v: f"{v} {v}")
GOOD_LINE = st.one_of(EDGE, EDGE, EDGE, LOOP, COMMENT, BLANK)
BAD_LINE = st.sampled_from(["x y", "1", "7 ", "-1 2", "1 -2", "1 2x", "1\x0b2 3", f"{2**63} 1",
                            "1,2", "+1 2", "1 99999999999999999999", "\xff 1", "1\x002 3"])
ENDS = st.sampled_from(["\n", "\r\n", "\r"])


def text_of(lines, ends, final: bool, bom: bool) -> bytes:
    body = "".join(line + ends[k % len(ends)] for k, line in enumerate(lines))
    if not final and lines:
        body = body[: -len(ends[(len(lines) - 1) % len(ends)])]
    return ("\ufeff" if bom else "").encode() + body.encode("latin-1")


DEFAULTS = _source.CHUNK_BYTES, _text.MIN_PIECE_BYTES, snap_numpy.BLOCK_BYTES


def shrink(monkeypatch, chunk, block):
    """Chunks of ``chunk`` bytes, NumPy blocks of ``block`` (None: the defaults), for this
    example only (hypothesis runs every example in one test call)."""
    monkeypatch.setattr(_source, "CHUNK_BYTES", chunk or DEFAULTS[0])
    monkeypatch.setattr(_text, "MIN_PIECE_BYTES", 4 if chunk else DEFAULTS[1])
    monkeypatch.setattr(snap_numpy, "BLOCK_BYTES", block or DEFAULTS[2])


@SETTINGS
@given(lines=st.lists(GOOD_LINE, max_size=60), ends=st.lists(ENDS, min_size=1, max_size=3),
       final=st.booleans(), bom=st.booleans(), chunk=st.sampled_from([None, 16, 64, 300]),
       block=st.sampled_from([None, 8, 50]), gz=st.booleans())
def test_generated_texts_give_the_same_graph(tmp_path, monkeypatch, lines, ends, final, bom,
                                            chunk, block, gz):
    shrink(monkeypatch, chunk, block)
    path = write_text(tmp_path / ("g.txt.gz" if gz else "g.txt"),
                      text_of(lines, ends, final, bom), compress="gzip" if gz else "none")
    assert_same_outcome(path)
    a, b = read_edges(path, parser="numpy"), read_edges(path, parser="numba")
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


@SETTINGS
@given(lines=st.lists(st.one_of(EDGE, LOOP, COMMENT, BLANK), max_size=60),
       crlf=st.booleans(), chunk=st.sampled_from([None, 16, 300]),
       block=st.sampled_from([None, 8, 50]))
def test_what_numpy_reads_never_reaches_numba(tmp_path, monkeypatch, numba_calls, lines, crlf,
                                             chunk, block):
    # LF or CR LF ends, ids of at most 18 digits, well-formed lines: NumPy's own grammar.
    lines = [line for line in lines if all(len(t) <= 18 for t in line.split()[:2])]
    shrink(monkeypatch, chunk, block)
    numba_calls.clear()
    path = write_text(tmp_path / "g.txt", text_of(lines, ["\r\n" if crlf else "\n"], True,
                                                  False), compress="none")
    numpy_graph = load_graph(path, parser="numpy")
    assert numba_calls == []
    assert_same_graph(numpy_graph, load_graph(path, parser="numba"))


@SETTINGS
@given(before=st.lists(GOOD_LINE, max_size=40), bad=BAD_LINE,
       after=st.lists(GOOD_LINE, max_size=5), ends=st.lists(ENDS, min_size=1, max_size=2),
       chunk=st.sampled_from([None, 16, 300]), block=st.sampled_from([None, 8, 50]))
def test_malformed_texts_give_the_same_error(tmp_path, monkeypatch, before, bad, after, ends,
                                            chunk, block):
    shrink(monkeypatch, chunk, block)
    path = write_text(tmp_path / "g.txt", text_of(before + [bad] + after, ends, True, False),
                      compress="none")
    assert_same_outcome(path)


class TestErrors:
    @pytest.mark.parametrize("text, line, fragment", [
        ("1 2\n2 3\nx y\n", 3, "expected a non-negative integer vertex id, found 'x'"),
        ("# c\n1 2\n7\n", 3, "found one column"),
        ("1 2\r\n3 -4\r\n", 2, "must be non-negative, found '-4'"),
        (f"1 2\n{2**63} 1\n", 2, "larger than 2**63-1"),
        ("1 2\n2 3x 9\n", 2, "found '3x'"),
    ])
    def test_file_and_line(self, tmp_path, text, line, fragment):
        path = write_text(tmp_path / "bad.txt", text)
        with pytest.raises(GraphFormatError) as info:
            load_graph(path, parser="numpy")
        assert (info.value.path, info.value.line) == (str(path), line)
        assert fragment in str(info.value)
        assert outcome(path, "numpy") == outcome(path, "numba")

    def test_error_after_many_good_chunks(self, tmp_path, monkeypatch, numba_calls):
        shrink(monkeypatch, 64, 16)
        lines = [f"{i} {i + 1}" for i in range(500)] + ["5 oops"] + ["1 2"] * 10
        path = write_text(tmp_path / "late.txt", "\n".join(lines) + "\n")
        with pytest.raises(GraphFormatError) as info:
            load_graph(path, parser="numpy")
        assert info.value.line == 501
        assert len(numba_calls) == 1  # handed over once, at the chunk that needed it

    def test_unknown_parser(self, tmp_path):
        path = write_text(tmp_path / "g.txt", "1 2\n")
        with pytest.raises(TricountError, match="unknown parser 'fast'"):
            load_graph(path, parser="fast")


class TestHandOver:
    def test_past_the_cap_numba_reads_the_rest(self, tmp_path, monkeypatch, numba_calls):
        shrink(monkeypatch, 64, None)
        monkeypatch.setattr(snap_numpy, "NUMPY_PARSE_MAX_BYTES", 200)
        lines = [f"{i} {(i * 7) % 300}" for i in range(300)]
        path = write_text(tmp_path / "g.txt", "\n".join(lines) + "\n")
        numpy_graph = load_graph(path, parser="numpy")
        assert len(numba_calls) == 1
        assert_same_graph(numpy_graph, load_graph(path, parser="numba"))

    def test_lone_cr_and_long_ids_go_to_numba(self, tmp_path, numba_calls):
        for text in ("1 2\r2 3\r3 1\r", f"1 {MAX_ID}\n{MAX_ID} 2\n2 1\n"):
            path = write_text(tmp_path / "g.txt", text)
            numpy_graph = load_graph(path, parser="numpy")
            assert len(numba_calls) == 1
            assert_same_graph(numpy_graph, load_graph(path, parser="numba"))
            numba_calls.clear()

    def test_formats_without_a_numpy_parser_use_numba(self, tmp_path):
        assert NUMPY_PARSE_FORMATS == ("snap",)
        path = write_text(tmp_path / "g_adj.tsv", "1\t2\t1\n2\t3\t1\n3\t1\t1\n")
        loaded = read_graph(path, parser="numpy")
        assert (loaded.format, loaded.parser) == ("graphchallenge", "numba")

    def test_auto_reads_a_small_edge_list_with_numpy(self, tmp_path):
        path = write_text(tmp_path / "g.txt.gz", "1 2\n2 3\n3 1\n")
        assert read_graph(path).parser == "numpy"
        assert read_graph(path, parser="numba").parser == "numba"


class TestPipes:
    def _through_pipe(self, data, step, parser="numpy"):
        """What load_graph gives for ``data`` written into a pipe ``step`` bytes at a time."""
        read_end, write_end = os.pipe()
        writer = threading.Thread(target=feed_pipe, args=(write_end, data, step))
        writer.start()
        try:
            got = outcome(f"/dev/fd/{read_end}", parser, format="snap")
        finally:
            writer.join()
            os.close(read_end)
        if isinstance(got, tuple):  # the descriptor's number aside
            return got[0], got[1], got[2].split(":", 1)[1]
        got.name = None
        return got

    @pytest.mark.parametrize("step", [1, 7, 4096])
    def test_a_pipe_is_read_once(self, monkeypatch, numba_calls, step):
        shrink(monkeypatch, 64, 16)
        lines = [f"{i}\t{(i * 13) % 97}" for i in range(400)]
        good = ("# piped\n" + "\n".join(lines) + "\n").encode()
        numpy_graph = self._through_pipe(good, step)
        assert numba_calls == []
        assert_same_graph(numpy_graph, self._through_pipe(good, step, "numba"))
        # A malformed line after many chunks: the Numba parser reads on from the pipe.
        bad = good + b"12 x\n" + b"1 2\n" * 50
        got = self._through_pipe(bad, step)
        assert got[1] == 402 and got == self._through_pipe(bad, step, "numba")

    def test_cli_reads_standard_input(self, tmp_path):
        text = b"".join(f"{u} {v}\n".encode() for u, v in ((0, 1), (1, 2), (2, 0), (2, 3),
                                                           (3, 0), (1, 3)))
        env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"))
        out = subprocess.run([sys.executable, "-m", "tricount", "count", "-"], input=text,
                             capture_output=True, env=env, check=True)
        assert out.stdout.decode().strip() == "4"  # K4
        gz = subprocess.run([sys.executable, "-m", "tricount", "count", "-", "--json"],
                            input=gzip.compress(text), capture_output=True, env=env, check=True)
        assert '"triangles": 4' in gz.stdout.decode()


def test_the_gpu_streams_a_text_only_where_numpy_would_not_read_it():
    # tricount.io.streams_to_device: the GPU's stream parses with Numba; a SNAP text the
    # NumPy parser reads is read on the host while Numba has not started, or when asked.
    from types import SimpleNamespace

    from tricount.io import NUMPY_PARSE_MAX_BYTES, streams_to_device

    small, large = SimpleNamespace(size=1000), SimpleNamespace(size=NUMPY_PARSE_MAX_BYTES + 1)
    assert not streams_to_device("auto", "snap", small, numba_started=False)
    assert streams_to_device("auto", "snap", small, numba_started=True)
    assert streams_to_device("auto", "snap", large, numba_started=False)
    assert not streams_to_device("numpy", "snap", small, numba_started=True)
    assert streams_to_device("numba", "snap", small, numba_started=False)
    for fmt in ("matrix-market", "metis", "graphchallenge"):  # no NumPy parser: streamed
        assert streams_to_device("auto", fmt, small, numba_started=False)
    for fmt in ("csv", "parquet", "native"):  # never streamed
        assert not streams_to_device("auto", fmt, small, numba_started=True)
