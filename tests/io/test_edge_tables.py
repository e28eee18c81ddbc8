"""Files as users have them: CSV with a header and any delimiter, vertex names, Parquet and
Arrow edge tables; and the one CSV text tricount writes, with or without pyarrow.

Every file is the bowtie below (or its names), checked on paper; every reader
(pyarrow, polars, Python's csv module) must give the same graph; random edge
lists written every way must give NetworkX's triangles keyed by the names.

    alice     dave
     |  \\   /  |        triangles {alice, bob, carol}, {carol, dave, erin}
     |  carol  |
     |  /   \\  |
    bob      erin
"""

from __future__ import annotations

import builtins
import csv
import gzip
import os
import re

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tricount
from tricount.cli import main
from tricount.io import read_edges
from tricount.io.delimited import sniff
from tricount.io.tables import write_table

PAIRS = [("alice", "bob"), ("alice", "carol"), ("bob", "carol"), ("carol", "dave"),
         ("carol", "erin"), ("dave", "erin")]
PER_NAME = {"alice": 1, "bob": 1, "carol": 2, "dave": 1, "erin": 1}
IDS = {name: i * 3 + 1 for i, name in enumerate(sorted(PER_NAME))}  # 1, 4, 7, 10, 13
PER_ID = {IDS[k]: v for k, v in PER_NAME.items()}


def text(pairs, *, delimiter=",", header=None, comments=(), quote=False) -> str:
    rows = [f"# {c}" for c in comments]
    if header:
        rows.append(delimiter.join(header))
    for u, v in pairs:
        u, v = (f'"{x}"' if quote else str(x) for x in (u, v))
        rows.append(f"{u}{delimiter}{v}")
    return "\n".join(rows) + "\n"


ID_PAIRS = [(IDS[u], IDS[v]) for u, v in PAIRS]
FILES = {
    # name: (file name, content, expected per vertex)
    "csv names header": ("g.csv", text(PAIRS, header=["source", "target"]), PER_NAME),
    "csv names no header": ("g.csv", text(PAIRS), PER_NAME),
    "csv ids header": ("g.csv", text(ID_PAIRS, header=["src", "dst"]), PER_ID),
    "csv ids no header": ("g.csv", text(ID_PAIRS), PER_ID),
    "txt comma ids": ("g.txt", text(ID_PAIRS, comments=["from SNAP"]), PER_ID),
    "semicolon header": ("g.txt", text(ID_PAIRS, delimiter=";", header=["from", "to"]), PER_ID),
    "tab header": ("g.tsv", text(ID_PAIRS, delimiter="\t", header=["u", "v"]), PER_ID),
    "space names": ("g.txt", text(PAIRS, delimiter=" "), PER_NAME),
    "space header ids": ("g.edges", text(ID_PAIRS, delimiter=" ", header=["Source", "Target"]),
                         PER_ID),
    "quoted names": ("g.csv", text(PAIRS, quote=True, header=["Source", "Target"]), PER_NAME),
    "weight column": ("g.csv", "source,target,weight\n" + "".join(
        f"{u},{v},0.5\n" for u, v in PAIRS), PER_NAME),
    "target first": ("g.csv", "weight,target,source\n" + "".join(
        f"2,{v},{u}\n" for u, v in PAIRS), PER_NAME),
}


def _blocking(*modules):
    real = builtins.__import__

    def fake(name, *args, **kwargs):
        if name.split(".")[0] in modules:
            raise ImportError(f"blocked {name}")
        return real(name, *args, **kwargs)

    return fake


READERS = {"pyarrow": (), "polars": ("pyarrow",), "python": ("pyarrow", "polars")}


@pytest.fixture(params=["small", "large"], autouse=True)
def names_route(request, monkeypatch):
    """Every test twice: names ranked the way a small table's are (NumPy's ``unique``), and
    the way a large one's are (pyarrow's dictionary encoding, polars' ``unique``)."""
    from tricount.io import _columns

    if request.param == "large":
        monkeypatch.setattr(_columns, "ARROW_NAMES_MIN_ROWS", 0)
    return request.param


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("name", sorted(FILES))
def test_every_file_every_reader(name, reader, tmp_path, monkeypatch):
    blocked = READERS[reader]
    if reader != "python":
        pytest.importorskip(reader)
    file_name, content, want = FILES[name]
    path = tmp_path / file_name
    path.write_text(content)
    monkeypatch.setattr(builtins, "__import__", _blocking(*blocked))
    g = tricount.load_graph(path)
    assert tricount.triangles(g, output="dict", backend="cpu") == want
    assert (g.n_vertices, g.n_edges) == (5, 6)


FILL = "".join(f"{i},{i + 1}\n" for i in range(100, 160))  # past the sniffer's 50 lines
#: Texts every reader must read alike, as docs/io.md says: (bytes, (triangles, vertices,
#: edges)) or (bytes, a fragment of the error). Found by a differential fuzz of the readers.
AGREEING = {
    "unicode digits are names": (b"12,5\n\xd9\xa1\xd9\xa2,6\n5,6\n", (0, 4, 3)),
    "a first row of numbers is data": (b"1.0,2\n2,3\n3,1\n", (1, 3, 3)),
    "a negative first row is refused": (b"-4,1\n1,2\n2,3\n", "holds -4"),
    "a form feed in a comment": (b"# note\x0c\n1,2\n2,3\n3,1\n", (1, 3, 3)),
    "U+2028 in a comment": ("# a\u2028b\n1,2\n2,3\n3,1\n".encode(), (1, 3, 3)),
    "a late comment": ((FILL + "# 100,102\n").encode(), (0, 61, 60)),
    "late blank lines": ((FILL + "\n\n").encode(), (0, 61, 60)),
    "blanks around a name": (b"a,b\nb, c\nc,a\n", (1, 3, 3)),
    "blanks around a header cell": (b"weight,src ,dst\n5,1,2\n5,2,3\n5,3,1\n", (1, 3, 3)),
    "a header naming a column twice": (b"a,a\n1,2\n2,3\n3,1\n", "names two columns 'a'"),
    "lone CR line ends": (b"1,2\r2,3\r3,1\r", (1, 3, 3)),
    "a blank line before the header": (b"\nsrc,dst\n1,2\n2,3\n3,1\n", (1, 3, 3)),
    "a ragged row": (b"1,2\n2,3,5\n3,1\n", (1, 3, 3)),
    "a NUL byte": (b"1,2\n2,3\n3,1\x00\n", "NUL byte"),
    "bytes that are not UTF-8": (b"\xff,a\n\xfe,b\na,b\n", "is not UTF-8 text"),
    "an id past 2**63 - 1": (b"1,2\n2,3\n3,9223372036854775808\n", "2**63"),
    "a superscript digit": ((FILL + "\u00b2,1\n").encode(), (0, 63, 61)),
    "one row of names, no line end": (b"a,b", (0, 2, 1)),
    # Only a space or a tab is a blank: Python's reader cut U+00A0 (and U+3000, U+2028, a
    # form feed ...) too, and counted a triangle the others did not
    "a no-break space after a name": ("source,target\na,b\nb,c\nc,a\u00a0\n".encode(),
                                      (0, 4, 3)),
    "and a blank after it": ("source,target\na,b\nb, c\nc,a\u3000 \n".encode(), (0, 4, 3)),
    "one row of ids, no line end": (b"1;2", (0, 2, 1)),
    "3.0 among ids past 2**53": (b"s,t\n9007199254740992,9007199254740993\n"
                                 b"9007199254740993,7\n7,9007199254740992\n3.0,7\n",
                                 (1, 4, 4)),
    "3.0 among ids past 2**53, no header": (b"9007199254740992,9007199254740993\n"
                                            b"9007199254740993,7\n7,9007199254740992\n"
                                            b"3.0,7\n", (1, 4, 4)),
}


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("case", sorted(AGREEING))
def test_every_reader_reads_alike(case, reader, tmp_path, monkeypatch):
    if reader != "python":
        pytest.importorskip(reader)
    data, want = AGREEING[case]
    path = tmp_path / "g.txt"
    path.write_bytes(data)
    monkeypatch.setattr(builtins, "__import__", _blocking(*READERS[reader]))
    if isinstance(want, str):
        with pytest.raises(tricount.GraphFormatError, match=re.escape(want)):
            tricount.load_graph(path)
        return
    g = tricount.load_graph(path)
    assert (tricount.count_triangles(g, backend="cpu"), g.n_vertices, g.n_edges) == want


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("where", ["head", "tail"])
def test_a_number_cell_reads_the_same_anywhere(reader, where, tmp_path, monkeypatch):
    """``3.0`` or ``-4`` among integer ids: once read as names near the head (3.0 and 3 two
    vertices, no triangle) and as a number near the tail. One reading now: numbers."""
    blocked = READERS[reader]
    if reader != "python":
        pytest.importorskip(reader)
    monkeypatch.setattr(builtins, "__import__", _blocking(*blocked))
    path = _filler_around(tmp_path / "float.csv", "1,2\n2,3\n3.0,1\n", where)
    assert tricount.count_triangles(str(path), backend="cpu") == 1
    path = _filler_around(tmp_path / "neg.csv", "1,2\n2,3\n-4,1\n", where)
    with pytest.raises(tricount.GraphFormatError, match="holds -4, not a non-negative"):
        tricount.load_graph(path)
    path = _filler_around(tmp_path / "half.csv", "1,2\n2,3\n3.5,1\n", where)
    with pytest.raises(tricount.GraphFormatError, match="holds 3.5, not an integer"):
        tricount.load_graph(path)


def _filler_around(path, rows: str, where: str):
    filler = "".join(f"{i},{i + 1}\n" for i in range(100, 3100))  # past a reader's first block
    path.write_text(rows + filler if where == "head" else filler + rows)
    return path


def test_sniffing():
    assert sniff(b"1 2\n2 3\n") is None  # SNAP: the Numba parser
    assert sniff(b"# c\n1\t2\n") is None
    d = sniff(b"# c\nsource,target\n1,2\n")
    assert (d.delimiter, d.header, d.names, d.skip) == (",", True, False, 1)
    d = sniff(b"alice bob\nbob carol\n")
    assert (d.delimiter, d.header, d.names) == (" ", False, True)
    assert sniff(b"a  b\nb c\n").simple is False  # runs of blanks: Python splits them
    assert sniff(b"x,y\n1,2\n").header and not sniff(b"x,y\nz,w\n").header


def test_compressed_and_stdin_like(tmp_path):
    path = tmp_path / "g.csv.gz"
    path.write_bytes(gzip.compress(text(PAIRS, header=["source", "target"]).encode()))
    g = tricount.load_graph(path)
    assert tricount.triangles(g, output="dict", backend="cpu") == PER_NAME


def test_parquet_and_arrow(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.feather as feather
    import pyarrow.parquet as pq

    names = pa.table({"weight": [1.0] * 6, "source": [u for u, _ in PAIRS],
                      "target": [v for _, v in PAIRS]})
    ids = pa.table({"src": [u for u, _ in ID_PAIRS], "dst": [v for _, v in ID_PAIRS]})
    for table, want in ((names, PER_NAME), (ids, PER_ID)):
        pq.write_table(table, tmp_path / "g.parquet")
        feather.write_feather(table, tmp_path / "g.arrow")
        pq.write_table(table, tmp_path / "misnamed.txt")  # the magic number decides
        for f in ("g.parquet", "g.arrow", "misnamed.txt"):
            g = tricount.load_graph(tmp_path / f)
            assert tricount.triangles(g, output="dict", backend="cpu") == want, f


def test_every_arrow_text_type_holds_names(tmp_path):
    # polars writes String columns as string_view and categoricals as dictionaries of
    # string_view, which Arrow cannot cast in one step; binary kinds hold names too.
    pa = pytest.importorskip("pyarrow")
    import pyarrow.feather as feather
    import pyarrow.parquet as pq

    src, dst = [u for u, _ in PAIRS], [v for _, v in PAIRS]
    kinds = {"string_view": lambda x: pa.array(x, type=pa.string_view()),
             "large_binary": lambda x: pa.array([s.encode() for s in x], type=pa.large_binary()),
             "binary_view": lambda x: pa.array([s.encode() for s in x], type=pa.binary_view()),
             "dictionary of string_view": lambda x: pa.array(
                 x, type=pa.string_view()).dictionary_encode()}
    for kind, make in kinds.items():
        table = pa.table({"source": make(src), "target": make(dst)})
        feather.write_feather(table, tmp_path / "g.arrow")
        files = ["g.arrow"]
        if "dictionary" not in kind:
            pq.write_table(table, tmp_path / "g.parquet")
            files.append("g.parquet")
        for f in files:
            g = tricount.load_graph(tmp_path / f)
            got = tricount.triangles(g, output="dict", backend="cpu")
            assert {k.decode() if isinstance(k, bytes) else k: v for k, v in got.items()} == \
                PER_NAME, (kind, f)


def test_polars_arrow_files_of_names(tmp_path):
    pl = pytest.importorskip("polars")
    src, dst = [u for u, _ in PAIRS], [v for _, v in PAIRS]
    for dtype in (pl.String, pl.Categorical):
        frame = pl.DataFrame({"source": pl.Series(src, dtype=dtype),
                              "target": pl.Series(dst, dtype=dtype)})
        frame.write_ipc(tmp_path / "g.arrow")
        frame.write_ipc_stream(tmp_path / "s.arrow")
        for f in ("g.arrow", "s.arrow"):
            g = tricount.load_graph(tmp_path / f)
            assert tricount.triangles(g, output="dict", backend="cpu") == PER_NAME, (dtype, f)


def test_names_round_trip_through_every_output(tmp_path):
    path = tmp_path / "g.csv"
    path.write_text(text(PAIRS, header=["source", "target"]))
    src, dst = read_edges(path)
    assert list(zip(src.tolist(), dst.tolist())) == PAIRS
    rows = np.concatenate(list(tricount.list_triangles(str(path), backend="cpu")))
    assert sorted(map(tuple, rows.tolist())) == [("alice", "bob", "carol"),
                                                 ("carol", "dave", "erin")]
    D = tricount.clustering(str(path), directed=True, output="dict", backend="cpu")
    assert D == nx.clustering(nx.DiGraph(PAIRS))
    truss = tricount.truss_decomposition(str(path), output="dict", backend="cpu")
    assert truss[("alice", "bob")] == 3


HARD_NAMES = [("src", "dst"), ("dst", "#x"), ("#x", "src"), ("%y", "cr\rz"), ("cr\rz", "src"),
              ("%y", "src")]  # header words, comment marks, a lone carriage return


def test_hard_names_read_back_from_every_table_tricount_writes(tmp_path):
    path = tmp_path / "g.csv"  # quoted: an unquoted line starting with # or % is a comment
    with open(path, "w", newline="") as f:
        csv.writer(f, quoting=csv.QUOTE_ALL).writerows([("source", "target"), *HARD_NAMES])
    G = nx.Graph(HARD_NAMES)
    want = nx.triangles(G)
    assert tricount.triangles(str(path), output="dict", backend="cpu") == want
    assert main(["count", str(path), "--per-edge", str(tmp_path / "pe.csv")]) == 0
    assert main(["ktruss", str(path), "--k", "2", "--edges", str(tmp_path / "k.csv")]) == 0
    assert main(["count", str(path), "--per-vertex", str(tmp_path / "pv.csv")]) == 0
    for table in ("pe.csv", "k.csv"):  # edge tables: the same graph back
        assert tricount.triangles(str(tmp_path / table), output="dict", backend="cpu") == want
    with open(tmp_path / "pv.csv", newline="") as f:
        rows = list(csv.reader(f))[1:]
    assert {name: int(t) for name, t in rows} == want
    simple = tmp_path / "simple.csv"  # header words alone: SNAP text writes a header first
    simple.write_text("source,target\nsrc,dst\ndst,u\nu,src\n")
    assert main(["convert", str(simple), str(tmp_path / "s.txt")]) == 0
    assert tricount.count_triangles(str(tmp_path / "s.txt"), backend="cpu") == 1


@pytest.mark.parametrize("name", ["007", "-1", "1e3", '"q"', "a,b"])
def test_names_snap_text_cannot_hold_are_refused(tmp_path, capsys, name):
    path = tmp_path / "g.csv"
    with open(path, "w", newline="") as f:
        csv.writer(f).writerows([("source", "target"), ("a", name), (name, "b"), ("b", "a")])
    assert main(["convert", str(path), str(tmp_path / "g.txt")]) == 2
    assert "would not read back as itself" in capsys.readouterr().err
    assert not (tmp_path / "g.txt").exists()


@pytest.mark.parametrize("name", ["c\"d", "t\tx", "new\nline"])
def test_triangles_with_names_tsv_cannot_hold_are_refused(tmp_path, capsys, name):
    path = tmp_path / "g.csv"
    with open(path, "w", newline="") as f:
        csv.writer(f).writerows([("source", "target"), ("a", name), (name, "b"), ("b", "a")])
    for out in (str(tmp_path / "t.tsv"), "-"):
        assert main(["list", str(path), "-o", out]) == 2
        err = capsys.readouterr().err
        assert "which a TSV line cannot hold" in err and "Traceback" not in err
    if _has("pyarrow"):
        assert main(["list", str(path), "-o", str(tmp_path / "t.parquet")]) == 0


def test_errors_name_the_file(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("source,target\n1,2\n3,\n")
    with pytest.raises(tricount.GraphFormatError, match="bad.csv"):
        tricount.load_graph(bad)
    bad.write_text("source,target\nx,y\nz,\n")
    with pytest.raises(tricount.GraphFormatError, match="empty vertex cell"):
        tricount.load_graph(bad)
    big = tmp_path / "big.csv"  # pyarrow reads a column past int64 as doubles
    big.write_text("source,target\n0,1\n1,2\n2,0\n0,18446744073709551615\n")
    with pytest.raises(tricount.GraphFormatError, match=r"big.csv.*2\*\*63"):
        tricount.load_graph(big)
    ragged = tmp_path / "ragged.csv"  # a row of more cells: the extra ones are ignored
    ragged.write_text("source,target\n0,1\n1,2\n3,1,5\n2,0\n")
    assert tricount.load_graph(ragged).n_edges == 4  # 3-1 is an edge
    ragged.write_text("source,target\n0,1\n1,2\n2,0,5\n")
    assert tricount.count_triangles(str(ragged), backend="cpu") == 1
    one = tmp_path / "one.csv"
    one.write_text("a\nb\n")
    with pytest.raises(tricount.GraphFormatError, match="two vertex columns"):
        tricount.load_graph(one)


def test_csv_text_is_the_same_without_pyarrow(tmp_path, monkeypatch):
    columns = {"vertex": np.array(["a", "b,c", 'q"'], dtype=object),
               "clustering": np.array([0.15, 1 / 3, 1e-05]), "triangles": np.array([1, 2, 3])}
    write_table(tmp_path / "with.csv", columns)
    monkeypatch.setattr(builtins, "__import__", _blocking("pyarrow"))
    write_table(tmp_path / "without.csv", columns)
    want = 'vertex,clustering,triangles\na,0.15,1\n"b,c",0.3333333333333333,2\n"q""",1e-05,3\n'
    assert (tmp_path / "with.csv").read_text() == (tmp_path / "without.csv").read_text() == want


names = st.text(alphabet="abcdefghij", min_size=1, max_size=3)


@settings(max_examples=25, deadline=None)
@given(pairs=st.lists(st.tuples(names, names), min_size=1, max_size=60),
       delimiter=st.sampled_from([",", ";", "\t", " "]), header=st.booleans())
def test_random_name_files_match_networkx(pairs, delimiter, header, tmp_path_factory):
    path = tmp_path_factory.mktemp("names") / "g.csv"
    path.write_text(text(pairs, delimiter=delimiter,
                         header=["source", "target"] if header else None))
    G = nx.Graph(pairs)
    G.remove_edges_from(list(nx.selfloop_edges(G)))
    G.add_nodes_from(v for p in pairs for v in p)
    assert tricount.triangles(str(path), output="dict", backend="cpu") == nx.triangles(G)


@pytest.mark.parametrize("kind", ["int8", "uint16", "int32", "int64", "uint64", "float32",
                                  "float64"])
def test_numbers_read_from_arrow_buffers(kind):
    # Integer and float columns are copied out of their buffers (pyarrow's own conversion
    # imports pandas): chunks, sliced chunks (an offset into their buffer) and empty ones
    # give what pyarrow gives, as one writable array.
    pa = pytest.importorskip("pyarrow")
    from tricount.io._columns import _arrow_numbers

    whole = pa.array(list(range(20)), type=kind)
    column = pa.chunked_array([whole.slice(3, 7), pa.array([], type=kind), whole.slice(15),
                               whole], type=kind)
    got = _arrow_numbers(column)
    np.testing.assert_array_equal(got, column.to_numpy())
    assert got.dtype == column.to_numpy().dtype and got.flags.writeable
    assert _arrow_numbers(pa.chunked_array([], type=kind)).shape == (0,)
    assert _arrow_numbers(pa.chunked_array([pa.array(["a"])])) is None


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def test_an_open_file_descriptor(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("0 1\n1 2\n2 0\n")
    fd = os.open(path, os.O_RDONLY)
    try:
        assert tricount.count_triangles(tricount.load_graph(fd), backend="cpu") == 1
    finally:
        os.close(fd)


def test_blanks_in_parquet_names_are_data(tmp_path):
    # Only a CSV's blanks around a cell are layout; in Parquet " c" is its own name.
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"source": ["a", "b", " c"], "target": ["b", "c", "a"]}),
                   tmp_path / "g.parquet")
    g = tricount.load_graph(tmp_path / "g.parquet")
    assert (g.n_vertices, tricount.count_triangles(g, backend="cpu")) == (4, 0)


@pytest.mark.parametrize("pair", tricount._frame_columns.COLUMN_PAIRS, ids="/".join)
@pytest.mark.parametrize("where", ["csv", "parquet", "pandas"])
def test_every_named_pair_is_the_edge_whatever_column_comes_first(pair, where, tmp_path):
    """``weight,from,to`` took the weight and ``from`` for the edge (the header word made the
    row a header, but only three pairs named columns): the bowtie counted 0, no error."""
    source, target = pair[0].upper(), pair[1].capitalize()  # names are compared lowercased
    edges = [(IDS[a], IDS[b]) for a, b in PAIRS]
    columns = {"weight": [9] * len(edges), target: [b for _, b in edges],
               source: [a for a, _ in edges]}
    if where == "csv":
        path = tmp_path / "g.csv"
        rows = zip(*columns.values())
        path.write_text(",".join(columns) + "\n" + "".join(",".join(map(str, r)) + "\n"
                                                           for r in rows))
        graph = str(path)
    else:
        pd = pytest.importorskip("pandas")
        graph = pd.DataFrame(columns)
        if where == "parquet":
            pytest.importorskip("pyarrow")
            graph.to_parquet(tmp_path / "g.parquet")
            graph = str(tmp_path / "g.parquet")
    assert tricount.triangles(graph, output="dict", backend="cpu") == PER_ID
    arcs = tricount.directed_triangle_counts(graph)
    # Every arc runs from the pair's first column to its second (a < b in every row): each
    # triangle is transitive, its lowest id the source (read the other way, the sink).
    assert (arcs.n_cycles, arcs.n_transitive) == (0, 2)
    sources = dict(zip(arcs.vertex_ids.tolist(), arcs.sources.tolist()))
    assert sources[IDS["alice"]] == 1 and sources[IDS["erin"]] == 0
