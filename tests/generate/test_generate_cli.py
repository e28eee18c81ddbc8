"""``tricount generate NAME ... FILE``: every generator writes the API's edges."""

from __future__ import annotations

import gzip
import importlib

import numpy as np
import pytest

import tricount.gpu
from tricount.cli import main
from tricount.generate import generate_spec


def read_pairs(path):
    """The edge lines of a SNAP text file, parsed here (independent of tricount.io)."""
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    lines = [line for line in data.decode().splitlines() if line and not line.startswith("#")]
    pairs = np.array([line.split("\t") for line in lines], dtype=np.int64).reshape(-1, 2)
    return pairs[:, 0], pairs[:, 1], data.decode().splitlines()


@pytest.mark.parametrize("argv,spec", [
    (["rmat", "--scale", "6", "--edge-factor", "4", "--seed", "3"], "rmat:scale=6,ef=4,seed=3"),
    (["rmat", "--scale", "5", "--ef", "2", "--no-permute", "--a", "0.5"],
     "rmat:scale=5,ef=2,permute=0,a=0.5"),
    (["er", "--n", "50", "--m", "100", "--seed", "2"], "er:n=50,m=100,seed=2"),
    (["erdos-renyi", "--n", "50", "--m", "100"], "er:n=50,m=100"),
    (["ba", "--n", "60", "--m", "2"], "ba:n=60,m=2"),
    (["ws", "--n", "40", "--k", "4", "--p", "0.3", "--seed", "7"], "ws:n=40,k=4,p=0.3,seed=7"),
    (["complete", "--n", "7"], "complete:n=7"),
    (["star", "--n-leaves", "9"], "star:n=9"),
    (["grid", "--rows", "4", "--cols", "5", "--periodic"], "grid:rows=4,cols=5,periodic=1"),
])
@pytest.mark.parametrize("suffix", [".txt", ".el.gz"])
def test_file_holds_the_generated_edges(capsys, tmp_path, argv, spec, suffix):
    path = tmp_path / f"graph{suffix}"
    code = main(["generate", *argv, str(path)])
    err = capsys.readouterr().err
    src, dst, name = generate_spec(spec)
    # The lines as generated; the edges a graph of them holds, loops and repeats not counted
    # (the report said "wrote 2048 edges" of R-MAT 8's 1,318).
    edges = tricount.Graph.from_edges(src, dst).n_edges
    kept = "" if edges == src.shape[0] else f" ({edges} edges; loops and repeats kept)"
    assert code == 0 and f"wrote {src.shape[0]} edge lines{kept} to" in err
    got_src, got_dst, lines = read_pairs(path)
    assert np.array_equal(got_src, src) and np.array_equal(got_dst, dst)
    assert name in lines[0]


def test_gpu_device_without_gpu_exits_3(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(tricount.gpu, "probe", lambda: (False, "no GPU in this test"))
    code = main(["generate", "complete", "--n", "5", "--device", "gpu", str(tmp_path / "k5.txt")])
    assert code == 3 and "no GPU in this test" in capsys.readouterr().err


def test_unknown_format_exits_2(capsys, tmp_path):
    code = main(["generate", "complete", "--n", "5", str(tmp_path / "k5.weird")])
    assert code == 2 and "k5.weird" in capsys.readouterr().err


@pytest.mark.parametrize("name,to", [("k.tcsr", None), ("k.bin", "native")])
def test_native_binary_holds_the_canonical_graph(capsys, tmp_path, name, to):
    import tricount

    path = tmp_path / name
    argv = ["generate", "rmat", "--scale", "7", "--ef", "4"] + (["--to", to] if to else [])
    assert main([*argv, str(path)]) == 0
    src, dst, _ = generate_spec("rmat:scale=7,ef=4")
    expected = tricount.Graph.from_edges(src, dst)
    got = tricount.load_graph(path, format="native")
    assert (got.n_vertices, got.n_edges) == (expected.n_vertices, expected.n_edges)
    assert np.array_equal(got.vertex_ids, expected.vertex_ids)
    assert tricount.count_triangles(got, backend="cpu") == tricount.count_triangles(
        expected, backend="cpu")


def test_bad_parameters_exit_2(capsys, tmp_path):
    code = main(["generate", "er", "--n", "5", "--m", "11", str(tmp_path / "x.txt")])
    assert code == 2 and "at most 10 edges" in capsys.readouterr().err


@pytest.mark.parametrize("outputs, message", [
    ([], "give the output file: as FILE or as -o FILE (- for standard output)"),
    (["a.txt", "-o", "b.txt"], "give the output file once: as FILE or as -o FILE"),
])
def test_output_named_once(capsys, tmp_path, monkeypatch, outputs, message):
    monkeypatch.chdir(tmp_path)
    code = main(["generate", "rmat", "--scale", "4", *outputs])
    assert code == 2 and capsys.readouterr().err == f"tricount: error: {message}\n"


@pytest.mark.parametrize("argv, message", [
    (["--scale", "-1"], "scale must be 0 .. 40, got -1"),
    (["--scale", "41"], "scale must be 0 .. 40, got 41"),
    (["--scale", "4", "--chunk-edges", "0"], "chunk_edges must be >= 1, got 0"),
])
def test_bad_rmat_arguments_to_a_tcsr_exit_2(capsys, tmp_path, argv, message):
    """Checked before the bounded build's sizes are worked out from them (a negative scale
    once crashed there with a traceback)."""
    target = tmp_path / "x.tcsr"
    code = main(["generate", "rmat", *argv, "-o", str(target)])
    err = capsys.readouterr().err
    assert code == 2 and err == f"tricount: error: {message}\n" and not target.exists()


@pytest.mark.parametrize("chunk", ["1000", "0"])
def test_chunk_edges_with_text_output_is_refused(capsys, tmp_path, chunk):
    """--chunk-edges (even 0) was ignored for text: the option asked for did nothing."""
    target = tmp_path / "x.txt"
    assert main(["generate", "rmat", "--scale", "4", "--chunk-edges", chunk, str(target)]) == 2
    assert "--chunk-edges builds a .tcsr" in capsys.readouterr().err and not target.exists()


def test_rmat_permutation_past_memory_is_a_clear_error(capsys, tmp_path, monkeypatch):
    rmat = importlib.import_module("tricount.generate.rmat")  # the module, not the function

    def no_memory(n, seed, xp):
        raise MemoryError(f"cannot allocate {8 * n} bytes")

    monkeypatch.setattr(rmat, "random_permutation", no_memory)
    target = tmp_path / "x.tcsr"
    code = main(["generate", "rmat", "--scale", "6", "--chunk-edges", "100", "--device", "cpu",
                 "-o", str(target)])
    err = capsys.readouterr().err
    assert code == 2 and not target.exists()
    assert err.startswith("tricount: error: R-MAT scale 6: the permutation of its 2**6 vertex "
                          "ids (0.0 GiB, with as much again to draw it) does not fit in host "
                          "memory")


def test_missing_required_option_is_a_usage_error(tmp_path):
    with pytest.raises(SystemExit) as info:
        main(["generate", "ws", "--n", "10", str(tmp_path / "x.txt")])
    assert info.value.code == 2


@pytest.mark.parametrize("argv", [["complete", "--n", "5000000"],
                                  ["rmat", "--scale", "40", "--ef", "16"]])
def test_out_of_memory_names_what_was_asked(argv, capsys, tmp_path):
    """K_5000000 has 1.25e13 edges: NumPy asked for 91 TiB, refused on one machine and granted
    on another that overcommits (which would be killed filling it). Refused before."""
    code = main(["generate", *argv, "-o", str(tmp_path / "x.txt")])
    err = capsys.readouterr().err
    assert code == 2 and "out of memory" in err and "whose arrays alone need" in err
    assert not (tmp_path / "x.txt").exists()


@pytest.mark.parametrize("argv", [
    ["complete", "--n", "3000000000"],
    ["er", "--n", "3037000499", "--m", "1000000000000000000"],
    ["ba", "--n", "3000000000", "--m", "1500000000"],
    ["ws", "--n", "3000000000", "--k", "2999999998", "--p", "0"],
])
def test_past_the_most_edges_a_generator_makes(argv, capsys, tmp_path):
    """Sizes past what NumPy can address raised ValueError('array is too big'): a
    traceback, exit 1. They are refused with the size asked for."""
    assert main(["generate", *argv, str(tmp_path / "x.txt")]) == 2
    err = capsys.readouterr().err
    assert "a generator makes at most 2**44" in err and "Traceback" not in err


def test_json_edges_are_the_graphs_whatever_the_format(capsys, tmp_path):
    """To text, "edges" was the number of lines (2048 for R-MAT 8, edge factor 8); to a
    .tcsr, the graph's 1,318. Both are the graph's now, "edge_lines" the lines."""
    import json

    reports = []
    for name in ("g.txt", "g.tcsr"):
        assert main(["generate", "rmat", "--scale", "8", "--ef", "8", str(tmp_path / name),
                     "--json"]) == 0
        reports.append(json.loads(capsys.readouterr().out))
    edges = tricount.load_graph(tmp_path / "g.txt").n_edges
    assert [(r["edge_lines"], r["edges"]) for r in reports] == [(2048, edges)] * 2
    assert edges < 2048


@pytest.mark.parametrize("argv", [["star", "--n", "200000000"],
                                  ["grid", "--rows", "20000", "--cols", "20000"]])
def test_star_and_grid_are_sized_before_allocating(argv, capsys, tmp_path, monkeypatch):
    """A star of 3.04e9 leaves asked NumPy for 22.6 GiB on a 24 GB machine: star and grid
    weigh their edge arrays against the memory available first, as the others do."""
    from tricount.prep.outofcore import memory

    monkeypatch.setattr(memory, "available_memory", lambda: 1 << 30)  # 1 GiB available
    code = main(["generate", *argv, "--device", "cpu", "-o", str(tmp_path / "x.txt")])
    err = capsys.readouterr().err
    assert code == 2 and "out of memory" in err and "whose arrays alone need" in err
    assert not (tmp_path / "x.txt").exists()
