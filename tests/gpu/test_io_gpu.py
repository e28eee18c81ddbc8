"""Loading onto the GPU (pinned double buffer, canonicalisation on the device) equals the host.

Every shared graph (gzip: the threaded reader) and crafted files (plain: the
mapped reader) in every text format are loaded with ``device="gpu"`` and
compared array for array with the host loader: vertex ids, the CSR, and the
loops and duplicates dropped. Small chunks force many double-buffer turns,
device growth, and a switch to int64 ids mid-file. Counting from a path on
the GPU backend uses this loader and gives the CPU's count.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "io"))
from gpu_support import data_dir, real_graphs, require_gpu  # noqa: E402
from io_support import TEXT_WRITERS, edge_lines, messy_edges, write_text  # noqa: E402

pytestmark = pytest.mark.gpu
require_gpu()

import cupy  # noqa: E402

import tricount  # noqa: E402
from tricount.generate import rmat  # noqa: E402
from tricount.io import (source as _source, _text, gpu_stream, load_graph, read_graph,  # noqa: E402
                         write_graph, write_snap)

REAL = real_graphs()


def assert_same_graph(dev, host):
    assert isinstance(dev.indptr, cupy.ndarray) and isinstance(dev.indices, cupy.ndarray)
    assert (dev.n_vertices, dev.n_edges) == (host.n_vertices, host.n_edges)
    assert (dev.self_loops_dropped, dev.duplicates_dropped) == (host.self_loops_dropped,
                                                                host.duplicates_dropped)
    np.testing.assert_array_equal(cupy.asnumpy(cupy.asarray(dev.vertex_ids)), host.vertex_ids)
    np.testing.assert_array_equal(dev.indptr.get(), host.indptr)
    np.testing.assert_array_equal(dev.indices.get(), host.indices)
    assert dev.indices.dtype == host.indices.dtype
    lo = dev.edges()[0]  # COO rows: built with the graph, or derived on the GPU when read
    assert isinstance(lo, cupy.ndarray) and lo.dtype == dev.indices.dtype
    np.testing.assert_array_equal(lo.get(), host.edges()[0])


@pytest.fixture
def small_chunks(monkeypatch):
    """4 KiB chunks: dozens of double-buffer turns even on small files."""
    monkeypatch.setattr(_source, "CHUNK_BYTES", 4096)
    monkeypatch.setattr(_text, "MIN_PIECE_BYTES", 256)


@pytest.mark.parametrize("name", [r["name"] for r in REAL])
def test_shared_graphs(name):
    row = next(r for r in REAL if r["name"] == name)
    path = data_dir() / row["file"]
    dev = load_graph(path, device="gpu", parser="numba")
    assert_same_graph(dev, load_graph(path))
    assert dev.n_edges == row["edges"]


@pytest.mark.parametrize("id_range", [100, 5000, 10**7, 2**45], ids=["tiny", "dense",
                                                                   "sparse", "huge"])
@pytest.mark.parametrize("suffix", [".txt", ".txt.gz"])
def test_loops_repeats_ids_many_chunks(id_range, suffix, tmp_path, small_chunks):
    text = "# crafted\n" + edge_lines(*messy_edges(7, 20_000, id_range))
    path = write_text(tmp_path / f"g{suffix}", text)
    dev = load_graph(path, device="gpu", parser="numba")
    assert_same_graph(dev, load_graph(path))
    assert dev.self_loops_dropped > 0 and dev.duplicates_dropped > 0


@pytest.mark.parametrize("fname", sorted(TEXT_WRITERS))
def test_every_text_format(fname, tmp_path, small_chunks):
    # Vertex n-1 stays isolated: formats that declare their vertices must keep it.
    src, dst = rmat(11, 8, seed=4)
    g = tricount.Graph.from_edges(src, dst, n_vertices=2049)
    lo, hi = (np.asarray(a) for a in g.edges())
    path, text = TEXT_WRITERS[fname](tmp_path / fname, lo, hi, g.n_vertices)
    path = write_text(path, text)
    loaded = read_graph(path, device="gpu", parser="numba")
    assert loaded.timings["copy_wait_s"] >= 0
    assert_same_graph(loaded.graph, load_graph(path))


def test_ids_widen_to_int64_mid_file(tmp_path, small_chunks):
    lines = [f"{i} {(i * 7) % 3000}" for i in range(3000)]
    lines[2000:2100] = [f"{2**40 + i} {i}" for i in range(100)]
    path = write_text(tmp_path / "g.txt", "\n".join(lines) + "\n")
    assert_same_graph(load_graph(path, device="gpu", parser="numba"), load_graph(path))


def test_growth_past_the_first_estimate(tmp_path, small_chunks, monkeypatch):
    grown = []
    grow = gpu_stream.grown_capacity
    monkeypatch.setattr(gpu_stream, "grown_capacity",
                        lambda capacity, need: grown.append(capacity) or grow(capacity, need))
    first = "\n".join(f"{i} {i + 1} {'w' * 200}" for i in range(100))
    rest = "\n".join(f"{i % 997} {(i * 13) % 991}" for i in range(30_000))
    path = write_text(tmp_path / "g.txt", first + "\n" + rest + "\n")
    assert_same_graph(load_graph(path, device="gpu", parser="numba"), load_graph(path))
    assert grown


@pytest.mark.parametrize("text", ["", "# only a comment\n",
                                  "%%MatrixMarket matrix coordinate pattern general\n3 3 0\n"],
                         ids=["empty", "comments", "mtx-no-entries"])
def test_empty_graphs(text, tmp_path):
    path = write_text(tmp_path / ("e.mtx" if "Matrix" in text else "e.txt"), text)
    assert_same_graph(load_graph(path, device="gpu", parser="numba"), load_graph(path))


def test_native_and_numpy_files_move_to_the_gpu(tmp_path):
    src, dst = rmat(10, 8, seed=2)
    host = tricount.Graph.from_edges(src, dst)
    write_graph(tmp_path / "g.tcsr", host)
    np.save(tmp_path / "g.npy", np.stack([src, dst], axis=1))
    for name in ("g.tcsr", "g.npy"):
        assert_same_graph(load_graph(tmp_path / name, device="gpu"), host)


def test_a_parse_error_names_the_same_line(tmp_path, small_chunks):
    lines = [f"{i} {i + 1}" for i in range(5000)]
    lines[4321] = "12 -3"
    path = write_text(tmp_path / "g.txt", "\n".join(lines) + "\n")
    with pytest.raises(tricount.GraphFormatError) as on_gpu:
        load_graph(path, device="gpu", parser="numba")
    with pytest.raises(tricount.GraphFormatError) as on_host:
        load_graph(path)
    assert on_gpu.value.line == on_host.value.line == 4322
    assert str(on_gpu.value) == str(on_host.value)


def test_counting_a_path_on_the_gpu_loads_it_there(tmp_path):
    src, dst = rmat(13, 16, seed=9)
    path = tmp_path / "g.txt"
    write_snap(path, src, dst)
    result = tricount.count(path, backend="gpu")
    assert result.backend == "gpu"
    assert result.n_triangles == tricount.count_triangles(path, backend="cpu")
    assert result.timings["load_s"] > 0


def test_counting_a_tcsr_path_on_the_gpu(tmp_path):
    # The header decides first whether the in-memory count fits (tricount.api); it does
    # here, so the file is read on the host and copied, as before; with a budget too small
    # for it, the partitioned count reads the file itself. The CLI passes the path on.
    import json
    import subprocess

    src, dst = rmat(14, 16, seed=29)  # as test_partition_gpu's API test: parts under 3 MiB
    path = tmp_path / "g.tcsr"
    write_graph(path, tricount.Graph.from_edges(src, dst))
    expected = tricount.count_triangles(path, backend="cpu")
    whole = tricount.count(str(path), backend="gpu")
    assert whole.n_triangles == expected and whole.partition is None
    parts = tricount.count(str(path), backend="gpu", max_memory=3 << 20)
    assert parts.n_triangles == expected and parts.partition is not None
    done = subprocess.run([sys.executable, "-m", "tricount", "count", str(path), "--backend",
                           "gpu", "--json"], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout)["triangles"] == expected


@pytest.mark.parametrize("seed", range(5))
def test_rows_derived_on_the_gpu(seed):
    from tricount.prep.upper import coo_rows

    rng = np.random.default_rng(seed)
    deg = rng.integers(0, 5, 3000) * (rng.random(3000) < 0.4)
    deg[:3] = 0  # empty rows first and last
    deg[-3:] = 0
    indptr = np.concatenate([[0], np.cumsum(deg)]).astype(np.int64)
    got = coo_rows(cupy.asarray(indptr), np.int32)
    assert isinstance(got, cupy.ndarray) and got.dtype == np.int32
    np.testing.assert_array_equal(got.get(), np.repeat(np.arange(3000), deg))


def test_cli_count_on_the_gpu_loads_onto_the_gpu(capsys, monkeypatch):
    import json

    from tricount import _threads, cli

    monkeypatch.setattr(_threads, "numba_started", lambda: True)  # else read on the host
    row = next(r for r in REAL if r["name"] == "email-Enron")
    seen = []
    original = gpu_stream.read_graph_gpu
    monkeypatch.setattr(gpu_stream, "read_graph_gpu",
                        lambda *a, **k: seen.append(1) or original(*a, **k))
    code = cli.main(["count", str(data_dir() / row["file"]), "--backend", "gpu", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["triangles"] == row["triangles"] and seen == [1]
    # --verify reads the graph on the host: loaded there, same count
    code = cli.main(["count", str(data_dir() / row["file"]), "--backend", "gpu", "--verify"])
    assert code == 0 and capsys.readouterr().out.strip() == str(row["triangles"]) and seen == [1]


@pytest.mark.parametrize("started", [False, True])
def test_a_small_text_is_read_on_the_host_until_numba_starts(started, capsys, monkeypatch):
    # tricount.io.streams_to_device: the stream parses with Numba, whose start costs a fresh
    # process more than NumPy's parse of a small text: read on the host, the graph copied.
    import json

    from tricount import _threads, cli
    from tricount.backends import costs, facts

    for module in (_threads, facts):  # io asks the first, the cost model the second
        monkeypatch.setattr(module, "numba_started", lambda: started)
    monkeypatch.setattr(costs, "WARM_UPS", costs.WarmUpLedger())  # no other test's losses
    seen = []
    original = gpu_stream.read_graph_gpu
    monkeypatch.setattr(gpu_stream, "read_graph_gpu",
                        lambda *a, **k: seen.append(1) or original(*a, **k))
    row = next(r for r in REAL if r["name"] == "email-Enron")
    path = data_dir() / row["file"]
    assert_same_graph(load_graph(path, device="gpu"), load_graph(path))
    assert seen == ([1] if started else [])
    result = tricount.count(str(path), backend="gpu")
    assert result.n_triangles == row["triangles"] and seen == ([1, 1] if started else [])
    assert cli.main(["count", str(path), "--backend", "gpu", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["triangles"] == row["triangles"]
    assert seen == ([1, 1, 1] if started else [])


def test_loads_one_after_another_reuse_the_pools_memory(tmp_path):
    # The device edge list was made on the loader's own stream; CuPy's pool gives memory
    # freed on a stream only to that stream, so each load left it cached for nobody.
    lines = [f"{i} {(i * 7919) % 20_000}" for i in range(60_000)]
    path = write_text(tmp_path / "g.txt", "\n".join(lines) + "\n")
    pool = cupy.get_default_memory_pool()
    held = []
    for _ in range(3):
        graph = load_graph(path, device="gpu", parser="numba")
        assert graph.n_edges > 0
        del graph
        held.append(pool.total_bytes())
    assert held[2] == held[1]
