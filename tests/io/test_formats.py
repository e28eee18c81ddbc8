"""Every format round-trips the shared graphs to their verified triangle counts."""

from __future__ import annotations

import bz2
import gzip
import lzma
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import tricount
from tricount.io import load_graph, read_graph, write_graph

sys.path.insert(0, str(Path(__file__).parent))
from io_support import TEXT_WRITERS, canonical, count, shared_rows, write_text  # noqa: E402

SMALL = ["karate", "lesmis", "dolphins", "ca-GrQc"]
MEDIUM = ["email-Enron"]


@pytest.fixture(scope="module", params=SMALL)
def shared(request):
    (row,) = shared_rows([request.param])
    graph = load_graph(row["path"])
    return row, graph


@pytest.mark.parametrize("name", SMALL + MEDIUM)
def test_snap_gz_as_shipped_and_native(name, tmp_path):
    (row,) = shared_rows([name])
    graph = load_graph(row["path"])
    assert graph.n_edges == row["edges"]
    assert count(graph) == row["triangles"]
    write_graph(tmp_path / "g.tcsr", graph)
    assert count(load_graph(tmp_path / "g.tcsr")) == row["triangles"]


class TestSharedGraphs:
    @pytest.mark.parametrize("fname", sorted(TEXT_WRITERS))
    def test_text_formats(self, shared, fname, tmp_path):
        row, graph = shared
        lo, hi = (np.asarray(a) for a in graph.edges())
        path, text = TEXT_WRITERS[fname](tmp_path / fname, lo, hi, graph.n_vertices)
        g = load_graph(write_text(path, text))
        assert g.n_edges == row["edges"]
        assert count(g) == row["triangles"]

    def test_numpy(self, shared, tmp_path):
        row, graph = shared
        lo, hi = (np.asarray(a) for a in graph.edges())
        np.save(tmp_path / "rows.npy", np.stack([lo, hi], axis=1))
        np.save(tmp_path / "cols.npy", np.stack([hi, lo]).astype(np.uint32))
        np.savez(tmp_path / "pair.npz", src=lo, dst=hi)
        np.savez_compressed(tmp_path / "edges.npz", edges=np.stack([lo, hi], axis=1))
        n = graph.n_vertices
        sp.save_npz(tmp_path / "csr.npz", sp.csr_matrix((np.ones(lo.shape[0]), (lo, hi)),
                                                        shape=(n, n)))
        for name in ("rows.npy", "cols.npy", "pair.npz", "edges.npz", "csr.npz"):
            g = load_graph(tmp_path / name)
            assert count(g) == row["triangles"], name
            assert g.n_edges == row["edges"], name

    def test_numpy_ids_past_int64_and_stored_zeros(self, tmp_path):
        # A file's ids are int64, as every reader's: 2**63 + 5 is refused, exactly named.
        np.save(tmp_path / "u.npy", np.array([[0, 1], [1, 2], [2**63 + 5, 1]], dtype=np.uint64))
        with pytest.raises(tricount.GraphFormatError, match=str(2**63 + 5)):
            load_graph(tmp_path / "u.npy")
        # A stored zero of a saved SciPy matrix is an edge, as in the matrix itself.
        m = sp.csr_matrix((np.array([1.0, 1.0, 0.0]), (np.array([0, 1, 0]),
                                                        np.array([1, 2, 2]))), shape=(3, 3))
        sp.save_npz(tmp_path / "z.npz", m)
        assert count(load_graph(tmp_path / "z.npz")) == count(tricount.Graph.from_scipy(m)) == 1
        # Two sets of edge keys are two readings of one file: refused, not picked.
        np.savez(tmp_path / "two.npz", src=[0, 1, 2], dst=[1, 2, 0], row=[0], col=[1])
        with pytest.raises(tricount.GraphFormatError, match="src/dst and row/col"):
            load_graph(tmp_path / "two.npz")

    def test_native(self, shared, tmp_path):
        row, graph = shared
        path = tmp_path / "g.tcsr"
        write_graph(path, graph)
        loaded = read_graph(path)
        g = loaded.graph
        assert loaded.format == "native"
        assert g.name == graph.name
        assert (g.n_vertices, g.n_edges) == (graph.n_vertices, graph.n_edges)
        assert (g.self_loops_dropped, g.duplicates_dropped) == (graph.self_loops_dropped,
                                                               graph.duplicates_dropped)
        np.testing.assert_array_equal(g.indptr, graph.indptr)
        np.testing.assert_array_equal(g.indices, graph.indices)
        np.testing.assert_array_equal(g.vertex_ids, graph.vertex_ids)
        assert count(g) == row["triangles"]
        assert set(loaded.timings) == {"load_s", "build_s"}

    def test_snap_text_round_trip_keeps_ids(self, shared, tmp_path):
        row, graph = shared
        path = tmp_path / "back.txt.gz"
        write_graph(path, graph)
        g = load_graph(path)
        for a, b in zip(canonical(g), canonical(graph)):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", SMALL)
@pytest.mark.parametrize("suffix", [".txt.bz2", ".txt.xz", ".txt.zst"])
def test_compressed_snap(name, suffix, tmp_path):
    (row,) = shared_rows([name])
    if suffix == ".txt.zst":
        pytest.importorskip("zstandard", reason="zstd support is optional (zstandard)")
    path = tmp_path / f"g{suffix}"
    write_graph(path, load_graph(row["path"]))
    loaded = read_graph(path)
    assert loaded.compression == {".bz2": "bzip2", ".xz": "xz", ".zst": "zstd"}[path.suffix]
    assert count(loaded.graph) == row["triangles"]


class TestApiAndDetection:
    def test_count_from_path_and_native(self, tmp_path):
        (row,) = shared_rows(["lesmis"])
        path = tmp_path / "lesmis.tcsr"
        write_graph(path, load_graph(row["path"]))
        result = tricount.count(str(path), backend="cpu")
        assert result.n_triangles == row["triangles"]
        assert result.timings["load_s"] >= 0

    def test_content_beats_extension(self, tmp_path):
        # A Matrix Market file named .txt: read as SNAP, its size line would be an edge.
        path = write_text(tmp_path / "m.txt", "%%MatrixMarket matrix coordinate pattern "
                                              "symmetric\n3 3 3\n2 1\n3 1\n3 2\n")
        loaded = read_graph(path)
        assert loaded.format == "matrix-market"
        assert (loaded.graph.n_vertices, count(loaded.graph)) == (3, 1)

    def test_compression_by_magic_not_suffix(self, tmp_path):
        path = tmp_path / "plain.txt"
        path.write_bytes(bz2.compress(b"0 1\n1 2\n2 0\n"))
        assert read_graph(path).compression == "bzip2"
        path.write_bytes(lzma.compress(b"0 1\n1 2\n2 0\n"))
        assert count(load_graph(path)) == 1

    def test_format_override(self, tmp_path):
        path = write_text(tmp_path / "g.dat", "3 3\n2 3\n1 3\n1 2\n")
        assert read_graph(path).format == "snap"
        g = load_graph(path, format="metis")  # three vertices, a triangle
        assert (g.n_vertices, count(g)) == (3, 1)

    def test_multi_member_gzip_and_padding(self, tmp_path):
        path = tmp_path / "m.txt.gz"
        path.write_bytes(gzip.compress(b"0 1\n1 2\n") + gzip.compress(b"2 0\n") + b"\0" * 64)
        assert count(load_graph(path)) == 1

    def test_metis_keeps_isolated_vertices(self, tmp_path):
        path = write_text(tmp_path / "iso.graph", "4 3\n2 3\n1 3\n1 2\n\n")
        g = load_graph(path)
        assert g.n_vertices == 4 and list(g.vertex_ids) == [1, 2, 3, 4]
        assert count(g) == 1

    def test_metis_vertex_weights(self, tmp_path):
        # fmt 011: ncon=2 vertex weights, then (neighbour, weight) pairs.
        path = write_text(tmp_path / "vw.graph",
                          "3 3 011 2\n5 6 2 1 3 1\n5 6 1 1 3 1\n5 6 1 1 2 1\n")
        assert count(load_graph(path)) == 1

    def test_matrix_market_declared_size_keeps_isolated(self, tmp_path):
        path = write_text(tmp_path / "iso.mtx", "%%MatrixMarket matrix coordinate integer "
                                                "general\n5 5 3\n1 2 1\n2 3 1\n3 1 1\n")
        g = load_graph(path)
        assert g.n_vertices == 5 and count(g) == 1


class TestSnapWriterRoutes:
    """write_snap formats lines by Numba, or by NumPy while Numba has not started: the same
    bytes either way."""

    def test_numpy_lines_are_numbas(self, tmp_path, monkeypatch):
        from tricount.io import snap, text_numpy

        rng = np.random.default_rng(4)
        src = rng.integers(0, 2**63 - 1, 500, dtype=np.int64, endpoint=True)
        dst = rng.integers(0, 10, 500, dtype=np.int64)
        src[:3], dst[:3] = [0, 10**18, 9], [0, 99, 2**63 - 1]
        monkeypatch.setattr(text_numpy, "takes", lambda rows: False)  # Numba's formatter
        snap.write_snap(tmp_path / "numba.txt", src, dst, comments=["c"])
        monkeypatch.setattr(text_numpy, "takes", lambda rows: True)
        snap.write_snap(tmp_path / "numpy.txt", src, dst, comments=["c"])
        text = (tmp_path / "numba.txt").read_bytes()
        assert text == (tmp_path / "numpy.txt").read_bytes()
        assert text.splitlines()[1:4] == [b"0\t0", b"1000000000000000000\t99",
                                          b"9\t9223372036854775807"]

    def test_a_negative_id_is_refused_and_nothing_written(self, tmp_path):
        from tricount.errors import InvalidEdgesError
        from tricount.io import write_snap

        with pytest.raises(InvalidEdgesError, match="negative vertex id"):
            write_snap(tmp_path / "g.txt", np.array([0, -1]), np.array([1, 2]))
        assert list(tmp_path.iterdir()) == []

    def test_a_fresh_process_generates_without_numba(self, tmp_path):
        import subprocess

        out = subprocess.run(
            [sys.executable, "-c",
             "import sys; from tricount.cli import main; "
             f"rc = main(['-q', 'generate', 'rmat', '--scale', '8', {str(tmp_path / 'g.txt')!r}]); "
             "print(rc, 'numba.np.arraymath' in sys.modules)"],
            capture_output=True, text=True, check=True)
        assert out.stdout.split() == ["0", "False"]
        from tricount.generate import rmat
        from tricount.io import write_snap

        src, dst = rmat(8, 16, seed=1)
        write_snap(tmp_path / "here.txt", src, dst)  # either formatter: they agree (above)
        lines = [ln for ln in (tmp_path / "g.txt").read_bytes().splitlines()
                 if not ln.startswith(b"#")]
        assert lines == (tmp_path / "here.txt").read_bytes().splitlines()
