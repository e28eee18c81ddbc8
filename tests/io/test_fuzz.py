"""Fuzzing: any bytes give GraphFormatError or the right graph, never another exception.

Edge-list input is judged by a plain Python oracle of the documented line
syntax (:func:`oracle`): the loader must fail exactly where the oracle fails
(same line) and otherwise return the oracle's graph. Other formats, mangled by
truncation and byte flips, must load or raise GraphFormatError. One seeded run
in a separate process (:func:`test_fuzz_in_a_process`) also proves no hang (a
timeout) and a bounded peak of memory.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tricount.errors import GraphFormatError
from tricount.graph import CSRGraph
from tricount.io import _text, load_graph, write_graph, source as _source

sys.path.insert(0, str(Path(__file__).parent))
from io_support import (canonical, write_metis, write_mtx_symmetric,  # noqa: E402
                        write_text)

MAX_ID = 2**63 - 1
FUZZ = settings(max_examples=25, derandomize=True, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])


def oracle(data: bytes):
    """(src, dst) of a SNAP edge list, or the 1-based line of its first error.

    A line ends at LF, CR LF or a lone CR; blanks are spaces and tabs.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    src, dst = [], []
    for number, line in enumerate(re.split(rb"\r\n|\r|\n", data), start=1):
        rest = line.lstrip(b" \t")
        if not rest or rest[:1] in (b"#", b"%"):
            continue
        ids = []
        for _ in range(2):
            if not rest:
                return number  # one column
            token = re.match(rb"[^ \t]*", rest).group()
            if not token.isdigit() or not token.isascii() or int(token) > MAX_ID:
                return number
            ids.append(int(token))
            rest = rest[len(token):].lstrip(b" \t")
        src.append(ids[0])
        dst.append(ids[1])
    return src, dst


FRAGMENTS = st.sampled_from([b"0", b"1", b"7", b"42", b"007", b" ", b"  ", b"\t", b"\r", b"#",
                             b"%", b"-", b"-3", b"x", b"1.5", b"\xff", b"\x00", b"+1",
                             b"9223372036854775807", b"9223372036854775808",
                             b"99999999999999999999999", b"1 2", b"3\t4", b"5 6 7"])
LINES = st.lists(st.lists(FRAGMENTS, max_size=6).map(b"".join), max_size=40)


def check_against_oracle(path, data):
    expected = oracle(data)
    try:
        g = load_graph(path, format="snap")
    except GraphFormatError as exc:
        assert isinstance(expected, int), f"unexpected error {exc}"
        assert exc.line == expected
        return
    assert not isinstance(expected, int), f"missed the error on line {expected}"
    src, dst = expected
    want = CSRGraph.from_edges(np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64))
    for a, b in zip(canonical(g), canonical(want)):
        np.testing.assert_array_equal(a, b)
    assert (g.self_loops_dropped, g.duplicates_dropped) == (want.self_loops_dropped,
                                                            want.duplicates_dropped)


@FUZZ
@given(lines=LINES, end=st.sampled_from([b"", b"\n", b"\r\n"]))
def test_mangled_lines_match_the_oracle(lines, end, tmp_path):
    data = b"\n".join(lines) + end
    check_against_oracle(write_text(tmp_path / "f.txt", data, compress="none"), data)


@FUZZ
@given(lines=LINES)
def test_oracle_holds_across_pieces_and_chunks(lines, tmp_path, monkeypatch):
    monkeypatch.setattr(_source, "CHUNK_BYTES", 32)
    monkeypatch.setattr(_text, "MIN_PIECE_BYTES", 4)
    data = b"\n".join(lines) + b"\n"
    check_against_oracle(write_text(tmp_path / "f.txt", data, compress="none"), data)


@FUZZ
@given(data=st.binary(max_size=300), name=st.sampled_from(
    ["f.txt", "f.txt.gz", "f.mtx", "f.graph", "f.tcsr", "f.npy", "f.npz", "f.bin"]))
def test_random_bytes(data, name, tmp_path):
    path = tmp_path / name
    path.write_bytes(data)
    try:
        load_graph(path)
    except GraphFormatError:
        pass


def _valid_files(tmp_path):
    lo = np.array([0, 0, 0, 1, 1, 2, 3], dtype=np.int64)
    hi = np.array([1, 2, 3, 2, 3, 3, 4], dtype=np.int64)
    files = {}
    for name, writer in (("g.mtx", write_mtx_symmetric), ("g.graph", write_metis)):
        _, text = writer(tmp_path / name, lo, hi, 5)
        files[name] = text.encode()
    files["g.txt.gz"] = gzip.compress(b"".join(b"%d %d\n" % e for e in zip(lo, hi)))
    write_graph(tmp_path / "g.tcsr", CSRGraph.from_edges(lo, hi))
    files["g.tcsr"] = (tmp_path / "g.tcsr").read_bytes()
    return files


@FUZZ
@given(name=st.sampled_from(["g.mtx", "g.graph", "g.txt.gz", "g.tcsr"]),
       cut=st.integers(0, 10_000), flips=st.lists(st.tuples(st.integers(0, 10_000),
                                                            st.integers(1, 255)), max_size=3))
def test_mangled_files(name, cut, flips, tmp_path):
    data = bytearray(_valid_files(tmp_path)[name])
    for pos, bits in flips:
        data[pos % len(data)] ^= bits
    if cut < len(data):
        data = data[:cut]
    path = tmp_path / name
    path.write_bytes(bytes(data))
    try:
        g = load_graph(path)
    except GraphFormatError:
        return
    if name == "g.tcsr" and data:  # checksummed: a change that loads must be no change
        assert bytes(data) == _valid_files(tmp_path)[name]
        assert g.n_edges == 7
    if not data:  # a zero-byte file is the empty graph, whatever its name
        assert g.n_edges == 0


#: Run in a child: seeded random and mangled inputs of every reader, each read once; any
#: exception but GraphFormatError fails. Prints {"inputs", "errors", "peak_bytes"}.
FUZZ_CHILD = r"""
import bz2, gzip, json, lzma, os, random, sys, tempfile
from tricount.errors import GraphFormatError
from tricount.io import load_graph
rng = random.Random(int(sys.argv[1]))
folder = tempfile.mkdtemp()
seeds = [b"0 1\n1 2\r\n2 0\r3 4\n", b"%%MatrixMarket matrix coordinate real general\n"
         b"3 3 2\n1 2 1.5\n2 3 -2\n", b"3 3 001\n2 1 3 1\n1 1 3 1\n1 1 2 1\n",
         b"1\t2\t1\n2\t3\t1\n"]
names = ["f.txt", "f.mtx", "f.graph", "f_adj.tsv", "f.tcsr", "f.npy", "f.npz", "f"]
packers = [lambda b: b, gzip.compress, bz2.compress, lzma.compress]
errors = 0
n = int(sys.argv[2])
for k in range(n):
    if rng.random() < 0.5:
        data = bytes(rng.getrandbits(8) for _ in range(rng.randrange(400)))
    else:
        data = bytearray(rng.choice(seeds) * rng.randrange(1, 4))
        for _ in range(rng.randrange(4)):
            data[rng.randrange(len(data))] = rng.choice(b"0123456789 \t\r\n%#-.x\xff")
        data = bytes(data[: rng.randrange(len(data) + 1)])
    data = rng.choice(packers)(data)
    if rng.random() < 0.2:
        data = data[: rng.randrange(len(data) + 1)]
    path = os.path.join(folder, rng.choice(names))
    with open(path, "wb") as f:
        f.write(data)
    try:
        load_graph(path)
    except GraphFormatError:
        errors += 1
with open("/proc/self/status") as f:
    peak = next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmHWM:"))
print(json.dumps({"inputs": n, "errors": errors, "peak_bytes": peak}))
"""


@pytest.mark.slow  # a fresh process over every mangled file: .ci/run runs it after the suite
def test_fuzz_in_a_process():
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2] / "src"))
    proc = subprocess.run([sys.executable, "-c", FUZZ_CHILD, "2026", "150"], env=env,
                          capture_output=True, text=True, timeout=300)  # a hang fails here
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["inputs"] == 150 and 0 < report["errors"] < 150
    assert report["peak_bytes"] < 1 << 30
