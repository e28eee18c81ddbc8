"""Every bad input is a GraphFormatError naming file, line and what was expected; CLI exits 2.

Each case is run twice: through ``load_graph`` (the message) and through the
CLI in-process (exit code 2, one ``tricount: error:`` line, no traceback).
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import struct
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

from tricount import Graph, count_triangles
from tricount.cli import main
from tricount.errors import GraphFormatError, InvalidArgumentError
from tricount.io import load_graph, write_graph
from tricount.io import source as _source
from tricount.io.native import HEADER

sys.path.insert(0, str(Path(__file__).parent))
from io_support import write_text  # noqa: E402

BANNER = "%%MatrixMarket matrix coordinate pattern general\n"

# (file name, content, expected line or None, message fragment)
TEXT_CASES = {
    "non-numeric": ("g.txt", "1 2\n3 x\n", 2, "expected a non-negative integer vertex id, "
                                              "found 'x'"),
    "float id": ("g.txt", "1 2.0\n", 1, "found '2.0'"),
    "negative": ("g.txt", "# c\n1 -2\n", 2, "vertex ids must be non-negative, found '-2'"),
    "too large": ("g.txt", "9223372036854775808 1\n", 1, "is larger than 2**63-1"),
    "one column": ("g.txt", "1 2\n3\n", 2, "expected two vertex ids (source and target), "
                                         "found one column"),
    "one column CRLF": ("g.txt", "1 2\r\n3 \r\n", 2, "found one column"),
    "mtx no banner": ("g.mtx", "3 3 1\n1 2\n", 1, "missing the Matrix Market banner"),
    "mtx short banner": ("g.mtx", "%%MatrixMarket matrix coordinate pattern\n3 3 0\n", 1,
                         "malformed Matrix Market banner"),
    "mtx bad field": ("g.mtx", "%%MatrixMarket matrix coordinate text general\n1 1 0\n", 1,
                      "field 'text' is unknown"),
    "mtx complex": ("g.mtx", "%%MatrixMarket matrix coordinate complex general\n1 1 0\n", 1,
                    "complex and hermitian matrices are not"),
    "mtx array": ("g.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n0\n0\n1\n", 1,
                  "dense 'array' Matrix Market file"),
    "mtx size line": ("g.mtx", BANNER + "% c\n3 3\n1 2\n", 3, "malformed size line"),
    "mtx not square": ("g.mtx", BANNER + "3 4 1\n1 2\n", 2, "is a 3 x 4 matrix"),
    "mtx beyond size": ("g.mtx", BANNER + "3 3 2\n1 2\n4 1\n", 4,
                        "entry index 4 is outside the declared size 3 x 3"),
    "mtx zero index": ("g.mtx", BANNER + "3 3 1\n0 1\n", 3, "entry index 0 is outside"),
    "mtx fewer": ("g.mtx", BANNER + "3 3 3\n1 2\n2 3\n", 4,
                  "found 2 entries but the size line (line 2) declares 3"),
    "mtx more": ("g.mtx", BANNER + "3 3 1\n1 2\n% c\n2 3\n", 5,
                 "more entries than the 1 declared on the size line (line 2)"),
    "mtx missing value": ("g.mtx", "%%MatrixMarket matrix coordinate real symmetric\n"
                                   "2 2 1\n2 1\n", 3, "expected a real value in the third column"),
    "metis fewer lines": ("g.graph", "% c\n4 3\n2 3\n1 3\n1 2\n", 5,
                          "has 3 adjacency lines but the header (line 2) declares 4 vertices"),
    "metis more lines": ("g.graph", "3 3\n2 3\n1 3\n1 2\n1\n", 5,
                         "more adjacency lines than the 3 vertices"),
    "metis neighbour range": ("g.graph", "3 3\n2 3\n1 4\n1 2\n", 3,
                              "neighbour 4 of vertex 2 is outside 1 .. 3"),
    "metis bad token": ("g.graph", "3 3\n2 3\n1 x\n1 2\n", 3, "expected a neighbour id"),
    "metis edge count": ("g.graph", "3 2\n2 3\n1 3\n1 2\n", None,
                         "declares 2 edges, so 2 x 2 = 4 adjacency entries, but the lines "
                         "hold 6"),
    "metis missing weight": ("g.graph", "2 1 001\n2 5\n1\n", 3,
                             "expected the weights the header's fmt promises"),
    "metis header": ("g.graph", "3 three\n", 1, "malformed METIS header"),
    "metis fmt": ("g.graph", "3 3 2\n", 1, "METIS fmt '2' is invalid"),
    "incidence file": ("A_inc.tsv", "1\t1\t1\n", None, "GraphChallenge incidence file"),
    "npy shape": ("g.npy", None, None, "expected (m, 2) edge rows"),
    "npy negative": ("n.npy", None, None, "negative vertex id"),
    "npz keys": ("k.npz", None, None, "expected 'src' and 'dst'"),
    "npy object": ("o.npy", None, None, "is not a readable NumPy"),
    "npy of text": ("t.npy", "0 1\n1 2\n", None, "or is not NumPy's format at all"),
    "mtx without banner": ("s.mtx", "# c\n\n0 1\n1 2\n", 3,
                           "as the file's first line, found '0 1'"),
    "binary wrong magic": ("g.tcsr", "1 2\n2 3\n", None, "wrong magic number"),
}


def _make(tmp_path, case):
    name, text, _, _ = TEXT_CASES[case]
    path = tmp_path / name
    if case == "npy shape":
        np.save(path, np.zeros((3, 3), dtype=np.int64))
    elif case == "npy negative":
        np.save(path, np.array([[0, 1], [-1, 2]]))
    elif case == "npz keys":
        np.savez(path, a=np.arange(3), b=np.arange(3))
    elif case == "npy object":
        np.save(path, np.array([[0, None]], dtype=object), allow_pickle=True)
    else:
        write_text(path, text)
    return path


def run_cli(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def assert_cli_error(path, fragment, capsys, command="info"):
    argv = [command, str(path)] + (["--backend", "cpu"] if command == "count" else [])
    code, out, err = run_cli(argv, capsys)
    assert code == 2
    assert out == ""
    assert err.startswith("tricount: error: ") and "Traceback" not in err
    assert fragment in err
    assert os.fspath(path) in err


@pytest.mark.parametrize("path", [None, ["g.txt"], True, 2.5])
def test_load_graph_names_what_a_path_is(path):
    with pytest.raises(InvalidArgumentError, match="path must be a file path"):
        load_graph(path)


def test_load_graph_takes_a_bytes_path(tmp_path):
    path = tmp_path / "k3.txt"
    path.write_text("0 1\n1 2\n2 0\n")
    assert load_graph(os.fsencode(path)).n_edges == 3


@pytest.mark.parametrize("case", sorted(TEXT_CASES))
def test_bad_text_and_arrays(case, tmp_path, capsys):
    path = _make(tmp_path, case)
    _, _, line, fragment = TEXT_CASES[case]
    with pytest.raises(GraphFormatError) as info:
        load_graph(path)
    err = info.value
    assert fragment in str(err)
    assert err.path == os.fspath(path)
    assert err.line == line
    if line is not None:
        assert f", line {line}: " in str(err)
    assert_cli_error(path, fragment, capsys, command="count")


def test_largest_id_is_accepted(tmp_path):
    g = load_graph(write_text(tmp_path / "big.txt", "9223372036854775807 0\n"
                                                     "00000000000000000000001 0\n"))
    assert list(g.vertex_ids) == [0, 1, 2**63 - 1]


class TestCompressed:
    PAYLOAD = b"".join(b"%d\t%d\n" % (i, (i * 7 + 1) % 5000) for i in range(20000))

    @pytest.mark.parametrize("kind", ["gzip", "bzip2", "xz", "zstd"])
    def test_truncated(self, kind, tmp_path, capsys):
        if kind == "zstd":
            zstd = pytest.importorskip("zstandard", reason="zstd support is optional")
            data = zstd.ZstdCompressor().compress(self.PAYLOAD)
        else:
            data = {"gzip": gzip.compress, "bzip2": bz2.compress,
                    "xz": lzma.compress}[kind](self.PAYLOAD)
        path = tmp_path / "cut.txt"
        path.write_bytes(data[: len(data) // 2])
        with pytest.raises(GraphFormatError, match=f"truncated {kind} data"):
            load_graph(path)
        assert_cli_error(path, f"truncated {kind} data", capsys)

    def test_corrupt_gzip(self, tmp_path, capsys):
        data = bytearray(gzip.compress(self.PAYLOAD))
        data[len(data) // 2] ^= 0xFF
        path = tmp_path / "bad.txt.gz"
        path.write_bytes(bytes(data))
        with pytest.raises(GraphFormatError, match="corrupt gzip data"):
            load_graph(path)
        assert_cli_error(path, "corrupt gzip data", capsys)

    def test_trailing_garbage_after_gzip(self, tmp_path):
        path = tmp_path / "tail.txt.gz"
        path.write_bytes(gzip.compress(b"0 1\n") + b"not gzip")
        with pytest.raises(GraphFormatError, match="corrupt gzip data"):
            load_graph(path)

    def test_missing_zstandard_is_explained(self, tmp_path, monkeypatch):
        zstd = pytest.importorskip("zstandard", reason="needs zstandard to write the file")
        path = tmp_path / "g.txt.zst"
        path.write_bytes(zstd.ZstdCompressor().compress(b"0 1\n"))
        monkeypatch.setitem(sys.modules, "zstandard", None)  # import now fails
        with pytest.raises(GraphFormatError, match="needs the optional package 'zstandard'"):
            load_graph(path)


class TestNativeBinary:
    @pytest.fixture
    def native(self, tmp_path):
        path = tmp_path / "g.tcsr"
        from tricount.graph import CSRGraph

        g = CSRGraph.from_edges([5, 5, 5, 6, 6, 7], [6, 7, 8, 7, 8, 8], name="K4")
        write_graph(path, g)
        return path

    def _patch(self, path, offset, new: bytes, *, fix_header_crc=False):
        data = bytearray(path.read_bytes())
        data[offset: offset + len(new)] = new
        if fix_header_crc:
            fields = list(HEADER.unpack_from(data))
            head = bytearray(data[: fields[2]])
            head[HEADER.size - 4: HEADER.size] = b"\0\0\0\0"
            struct.pack_into("<I", data, HEADER.size - 4, zlib.crc32(head))
        path.write_bytes(bytes(data))

    def test_round_trip(self, native):
        g = load_graph(native)
        assert (g.n_vertices, g.n_edges, g.name) == (4, 6, "K4")
        assert list(g.vertex_ids) == [5, 6, 7, 8]

    def test_wrong_version(self, native, capsys):
        self._patch(native, 8, struct.pack("<I", 99))
        with pytest.raises(GraphFormatError, match="is native format version 99; this tricount "
                                                   "reads version 1"):
            load_graph(native)
        assert_cli_error(native, "version 99", capsys)

    def test_header_checksum(self, native, capsys):
        self._patch(native, 16, struct.pack("<q", 5))  # n_vertices
        with pytest.raises(GraphFormatError, match="header checksum mismatch"):
            load_graph(native)
        assert_cli_error(native, "header checksum mismatch", capsys)

    def test_payload_checksum(self, native, capsys):
        size = native.stat().st_size
        data = native.read_bytes()
        self._patch(native, size - 3, bytes([data[size - 3] ^ 1]))
        with pytest.raises(GraphFormatError, match="checksum mismatch in bytes"):
            load_graph(native)
        assert_cli_error(native, "checksum mismatch", capsys)

    def test_truncated(self, native, capsys):
        native.write_bytes(native.read_bytes()[:-8])
        with pytest.raises(GraphFormatError, match="is truncated"):
            load_graph(native)
        assert_cli_error(native, "is truncated", capsys)
        native.write_bytes(native.read_bytes()[:20])
        with pytest.raises(GraphFormatError, match="is truncated"):
            load_graph(native)

    def test_crafted_invalid_csr(self, native):
        # A consistent checksum cannot make an out-of-range column id reach a kernel.
        data = bytearray(native.read_bytes())
        fields = HEADER.unpack_from(data)
        header_bytes, n = fields[2], fields[3]
        indices_at = header_bytes + 8 * (n + 1) + (-8 * (n + 1) % 64)
        struct.pack_into("<i", data, indices_at, 1000)
        payload = bytes(data[header_bytes:])
        crc_at = HEADER.size + fields[12]
        struct.pack_into("<I", data, crc_at, zlib.crc32(payload))
        native.write_bytes(bytes(data))
        self._patch(native, 0, b"", fix_header_crc=True)
        with pytest.raises(GraphFormatError, match="the stored CSR is invalid"):
            load_graph(native)


class TestFileSystem:
    def test_missing(self, tmp_path, capsys):
        path = tmp_path / "nope.txt"
        with pytest.raises(GraphFormatError, match="no such file"):
            load_graph(path)
        assert_cli_error(path, "no such file", capsys)

    def test_directory(self, tmp_path, capsys):
        with pytest.raises(GraphFormatError, match="is a directory"):
            load_graph(tmp_path)
        assert_cli_error(tmp_path, "is a directory", capsys)

    def test_unreadable(self, tmp_path, capsys, monkeypatch):
        path = write_text(tmp_path / "secret.txt", "0 1\n")
        if os.geteuid() == 0:  # root reads mode-000 files: simulate the refusal
            def refuse(*args, **kwargs):
                raise PermissionError(13, "Permission denied")
            monkeypatch.setattr(_source, "open", refuse, raising=False)
        else:
            path.chmod(0)
        with pytest.raises(GraphFormatError, match="permission denied"):
            load_graph(path)
        assert_cli_error(path, "permission denied", capsys)

    def test_unknown_format_name(self, tmp_path):
        path = write_text(tmp_path / "g.txt", "0 1\n")
        with pytest.raises(GraphFormatError, match="unknown format 'xml'"):
            load_graph(path, format="xml")


EMPTY_FILES = {
    "empty.txt": b"",
    "blank.txt": b"\n \n\t\r\n",
    "comments.txt": b"# only\n% comments\n",
    "empty.txt.gz": gzip.compress(b""),
    "empty.csv": b"",
}
#: A headed format's file that ends before its header: truncated, as one of zero bytes.
HEADLESS_FILES = {
    "comments.mtx": (b"%%MatrixMarket matrix coordinate pattern general\n% nothing\n",
                     "ends before its size line"),
    "no-banner-comments.mtx": (b"% nothing yet\n", "ends before its Matrix Market banner"),
    "comments.graph": (b"% no graph here\n", "ends before its METIS header"),
}


@pytest.mark.parametrize("name", sorted(HEADLESS_FILES))
def test_headed_files_without_their_header_are_truncated(name, tmp_path, capsys):
    content, message = HEADLESS_FILES[name]
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(GraphFormatError, match=message):
        load_graph(path)
    assert_cli_error(path, message, capsys)


@pytest.mark.parametrize("name", sorted(EMPTY_FILES))
def test_empty_and_comment_only_files_are_the_empty_graph(name, tmp_path, capsys):
    path = tmp_path / name
    path.write_bytes(EMPTY_FILES[name])
    g = load_graph(path)
    assert (g.n_vertices, g.n_edges) == (0, 0)
    code, out, err = run_cli(["count", str(path), "--backend", "cpu"], capsys)
    assert (code, out) == (0, "0\n")
    assert "(the graph is empty)" in err
    code, out, _ = run_cli(["info", str(path)], capsys)
    assert code == 0 and "(the graph is empty)" in out


@pytest.mark.parametrize("name, starts", [
    ("empty.tcsr", "a .tcsr file starts with its header"),
    ("empty.npy", "a NumPy file starts with its header"),
    ("empty.npz", "a NumPy file starts with its header"),
    ("empty.parquet", "a Parquet file starts with its signature"),
    ("empty.arrow", "an Arrow file starts with its signature"),
    ("empty.mtx", "a Matrix Market file starts with its banner line"),
    ("empty.graph", "a METIS file starts with its header line"),
])
def test_no_bytes_in_a_headed_format_is_a_truncated_file(name, starts, tmp_path, capsys):
    """Every writer of these formats writes a header, so no bytes at all is an interrupted
    download or copy: refused, never counted as the empty graph (0 triangles)."""
    path = tmp_path / name
    path.write_bytes(b"")
    with pytest.raises(GraphFormatError, match=f"is empty \\(0 bytes\\), but {starts}"):
        load_graph(path)
    assert_cli_error(path, "is empty (0 bytes)", capsys)


def test_no_bytes_named_native_on_stdin_is_refused(monkeypatch, capsys):
    read_end, write_end = os.pipe()
    os.close(write_end)  # a pipe that ends at once
    monkeypatch.setattr(sys, "stdin", os.fdopen(read_end, "rb"))
    try:
        code, out, err = run_cli(["count", "-", "--format", "native", "--backend", "cpu"],
                                 capsys)
    finally:
        sys.stdin.close()
    assert (code, out) == (2, ""), err
    assert "<stdin>: is empty (0 bytes), but a .tcsr file starts with its header" in err


def test_matrix_market_with_zero_entries(tmp_path):
    g = load_graph(write_text(tmp_path / "z.mtx", BANNER + "4 4 0\n"))
    assert (g.n_vertices, g.n_edges) == (4, 0)


@pytest.mark.parametrize("suffix, to", [(".tcsr.gz", []), (".tcsr.zst", []),
                                        (".bin.gz", ["--to", "native"])])
def test_a_compressed_tcsr_name_is_refused(tmp_path, capsys, suffix, to):
    """--to native under a .gz name wrote uncompressed bytes there."""
    src = tmp_path / "k3.txt"
    src.write_text("0 1\n1 2\n2 0\n")
    target = tmp_path / f"k3{suffix}"
    code, out, err = run_cli(["convert", str(src), str(target), *to], capsys)
    assert code == 2 and "a .tcsr is written uncompressed" in err and not target.exists()


@pytest.mark.parametrize("name", ["g.tcsr", "g.txt", "g.txt.gz"])
def test_an_id_past_what_a_file_holds_is_not_written(name, tmp_path):
    """A graph in memory holds ids up to 2**64 - 1; a .tcsr stored 2**64 - 1 as the int64 -1
    (read back as vertex -1), and SNAP text called it negative. Both are refused, nothing
    is written; 2**63 - 1, the largest id a file holds, round-trips."""
    big = np.array([0, 1, 2**64 - 1], dtype=np.uint64)
    g = Graph.from_edges(big, np.roll(big, 1))
    with pytest.raises(GraphFormatError, match=r"18446744073709551615 is past 2\*\*63-1"):
        write_graph(tmp_path / name, g)
    assert not (tmp_path / name).exists()
    ids = np.array([0, 1, 2**63 - 1], dtype=np.uint64)
    write_graph(tmp_path / name, Graph.from_edges(ids, np.roll(ids, 1)))
    back = load_graph(tmp_path / name)
    assert back.vertex_ids.tolist() == [0, 1, 2**63 - 1]
    assert count_triangles(back, backend="cpu") == 1


def _npy_bytes(header: str, data: bytes) -> bytes:
    """A .npy v1.0 file of ``header`` (the dict's text, written as is) and ``data``."""
    text = header.encode("latin1")
    pad = 64 - (10 + len(text) + 1) % 64
    text += b" " * pad + b"\n"
    return b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text + data


ROWS = np.array([[1, 2], [2, 3], [3, 1]], dtype="<i8").tobytes()
BAD_NUMPY = {
    # np.load refuses it; frombuffer read to the end and reshape inferred the -1: a triangle
    "a negative dimension": ("{'descr': '<i8', 'fortran_order': False, 'shape': (-1, 2), }",
                             ROWS, "declares the shape (-1, 2)"),
    "a dimension past int64": ("{'descr': '<i8', 'fortran_order': False, "
                               "'shape': (99999999999999999999, 2), }", ROWS,
                               "more than the file holds"),
    "more rows than the data": ("{'descr': '<i8', 'fortran_order': False, 'shape': (5, 2), }",
                                ROWS, "more than the file holds"),
    "a header that does not parse": ("{'descr': '<i8', 'fortran_order': False, "
                                     "'shape': (3, 2, }", ROWS, "is not a readable NumPy"),
}


@pytest.mark.parametrize("case", sorted(BAD_NUMPY))
def test_a_malformed_npy_is_refused(case, tmp_path, capsys):
    """Each was a wrong graph (exit 0) or a traceback (OverflowError, TokenError)."""
    header, data, fragment = BAD_NUMPY[case]
    path = tmp_path / "g.npy"
    path.write_bytes(_npy_bytes(header, data))
    assert_cli_error(path, fragment, capsys, command="count")


@pytest.mark.parametrize("damage", ["an unknown compression method", "corrupt deflate data"])
def test_a_damaged_npz_is_refused(damage, tmp_path, capsys):
    """NotImplementedError and zlib.error came out as tracebacks (exit 1)."""
    path = tmp_path / "g.npz"
    np.savez_compressed(path, src=np.arange(1000) % 97, dst=np.arange(1000) % 89)
    data = bytearray(path.read_bytes())
    if damage == "an unknown compression method":
        for signature, offset in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
            at = data.find(signature)
            while at >= 0:
                data[at + offset: at + offset + 2] = (99).to_bytes(2, "little")
                at = data.find(signature, at + 4)
    else:
        start = data.find(b"PK\x03\x04") + 30 + int.from_bytes(data[26:28], "little") \
            + int.from_bytes(data[28:30], "little")
        data[start: start + 16] = b"\xff" * 16
    path.write_bytes(bytes(data))
    assert_cli_error(path, "cannot read the arrays", capsys, command="count")


def test_an_npz_error_names_the_file_once(tmp_path, capsys):
    path = tmp_path / "g.npz"
    np.savez(path, src=np.arange(3), dst=np.arange(2))
    code, out, err = run_cli(["count", str(path)], capsys)
    assert code == 2 and err.count(os.fspath(path)) == 1 and "same length" in err


def test_metis_ncon_0_is_one_weight_a_vertex(tmp_path):
    """METIS 5 reads ncon 0 as 1; it was read as no weight, the weights as neighbours."""
    g = load_graph(write_text(tmp_path / "g.graph", "3 3 10 0\n1 2 3\n1 1 3\n1 1 2\n"))
    assert (g.n_vertices, g.n_edges, count_triangles(g, backend="cpu")) == (3, 3, 1)


def test_an_error_crosses_processes_whole(tmp_path):
    # A Dask worker's or a process pool's error reaches the caller pickled. GraphFormatError
    # could not be unpickled (its message arrived as the path, then the message was missing),
    # so the caller got "TypeError: __init__() missing 1 required positional argument".
    import pickle
    from concurrent.futures import ProcessPoolExecutor

    error = GraphFormatError(tmp_path / "g.txt", "expected two vertex ids", line=3)
    error.hint = "kept"
    again = pickle.loads(pickle.dumps(error))
    assert (type(again), str(again), again.path, again.line, again.reason, again.hint) == (
        GraphFormatError, str(error), str(tmp_path / "g.txt"), 3, "expected two vertex ids",
        "kept")
    path = tmp_path / "bad.txt"
    path.write_text("0 1\n1 2\n2 x\n")
    with ProcessPoolExecutor(1) as pool:
        with pytest.raises(GraphFormatError) as caught:
            pool.submit(load_graph, str(path)).result()
    assert caught.value.path == str(path) and caught.value.line == 3
