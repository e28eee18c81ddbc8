"""Counting in parts through the public API and the command line (the CPU executor and Dask).

``tricount.count(..., partitions=k)`` equals the count in one piece for every k
from 1 to 8 on the named graphs; ``max_memory`` partitions a CPU count; the
result and ``--json`` say how many sub-problems ran, where and why; bad values
are refused with the parameter named; and a Dask LocalCluster counts through
``backend="dask"`` and ``--scheduler``. The GPU executor's wiring is run with
CuPy emulated in test_partition_gpu_emulated.py.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import tricount
import tricount.gpu
from tricount.cli import main
from tricount.errors import InvalidArgumentError, UnknownMethodError
from tricount.partition import MAX_PARTITIONS, prepare_ranked

sys.path.insert(0, str(Path(__file__).parent))
from partition_gpu_support import oracle, rmat_graph  # noqa: E402

from graphs import NAMED, NOISY  # noqa: E402

ALL_NAMED = {**NAMED, **NOISY}


@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.setattr(tricount.gpu, "probe", lambda: (False, "no GPU in this test"))


def test_cpu_partitions_every_k_on_the_named_graphs():
    for name, (src, dst, n_triangles, _) in sorted(ALL_NAMED.items()):
        whole = tricount.count((src, dst), backend="cpu").n_triangles
        assert whole == n_triangles
        for k in range(1, 9):
            result = tricount.count((src, dst), backend="cpu", partitions=k)
            assert result.n_triangles == whole, (name, k)
            assert result.partition["subproblems"] == k, (name, k)
            assert result.backend == "cpu" and result.method == "bitmap"


def test_max_memory_partitions_a_cpu_count():
    graph = rmat_graph(scale=10, seed=3)
    result = tricount.count(graph, backend="cpu", max_memory=20_000)
    assert result.n_triangles == oracle(graph)
    assert result.partition["subproblems"] > 1
    assert "max_memory=20000" in result.partition["why"]
    assert result.graph["edges"] == graph.n_edges


def test_result_and_json(capsys, tmp_path, no_gpu):
    graph = rmat_graph(scale=9, seed=5)
    result = tricount.count(graph, partitions=3)  # auto: the CPU here
    out = json.loads(json.dumps(result.to_dict()))
    part = out["partition"]
    assert out["triangles"] == oracle(graph) and out["backend"] == "cpu"
    assert part["subproblems"] == 3 and part["where"] == ["cpu"]
    assert part["why"] == "partitions=3 requested"
    assert [s["index"] for s in part["per_subproblem"]] == [0, 1, 2]
    assert sum(s["n_triangles"] for s in part["per_subproblem"]) == out["triangles"]
    assert tricount.count(graph, backend="cpu").partition is None


def test_files_go_straight_to_the_partition_layer(tmp_path):
    graph = rmat_graph(scale=9, seed=7)
    plain, ranked = tmp_path / "g.tcsr", tmp_path / "g.ranked.tcsr"
    tricount.io.write_native(plain, graph)
    prepare_ranked(graph, ranked)
    for path in (plain, ranked, str(ranked)):
        result = tricount.count(path, backend="cpu", partitions=4)
        assert result.n_triangles == oracle(graph)
        assert result.graph["edges"] == graph.n_edges
    # Named as the whole count names a file (io.graph_name): no directory, no suffix.
    text = tmp_path / "triangle.txt"
    text.write_text("1 2\n2 3\n3 1\n")
    for parts in (None, 2):
        assert tricount.count(text, backend="cpu", partitions=parts).graph["graph"] == "triangle"


@pytest.mark.parametrize("kwargs, match", [
    ({"partitions": 0}, "partitions must be at least 1"),
    ({"partitions": 2.5}, "partitions must be an integer"),
    ({"partitions": True}, "partitions must be an integer"),
    ({"partitions": MAX_PARTITIONS + 1}, "partitions must be at most"),
    ({"devices": "some"}, "devices must be 'all'"),
    ({"devices": 0}, "devices must be at least 1"),
    ({"devices": []}, "at least one GPU id"),
    ({"devices": [0, -1]}, "devices must be at least 0"),
    ({"max_memory": 0}, "max_memory must be at least 1"),
    ({"max_memory": "10G"}, "max_memory must be an integer"),
    ({"devices": 2, "backend": "cpu"}, "backend 'cpu' runs none"),
    ({"partitions": 2, "backend": "reference"}, "counts in one piece"),
    ({"partitions": 2, "backend": "cpu", "orientation": "id"}, "orients by rank"),
])
def test_bad_values_name_the_parameter(kwargs, match):
    with pytest.raises(InvalidArgumentError, match=match):
        tricount.count(([0, 1, 2], [1, 2, 0]), **{"backend": "cpu", **kwargs})


def test_methods_and_options_of_a_count_in_parts():
    k3 = ([0, 1, 2], [1, 2, 0])
    assert tricount.count(k3, backend="cpu", partitions=2, method="bitmap").n_triangles == 1
    with pytest.raises(UnknownMethodError, match="runs method 'bitmap'"):
        tricount.count(k3, backend="cpu", partitions=2, method="merge")
    with pytest.raises(UnknownMethodError, match="takes no engine options"):
        tricount.count(k3, backend="cpu", partitions=2, sf=2)


def test_cli_partitions_and_json(capsys, tmp_path, no_gpu):
    graph = rmat_graph(scale=9, seed=11)
    path = tmp_path / "g.tcsr"
    tricount.io.write_native(path, graph)
    code = main(["count", str(path), "--backend", "cpu", "--partitions", "3", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["triangles"] == oracle(graph)
    assert out["partition"]["subproblems"] == 3 and out["timings"]["load_s"] >= 0
    code = main(["count", str(path), "--backend", "cpu", "--max-memory", "20K"])
    captured = capsys.readouterr()
    assert code == 0 and captured.out == f"{oracle(graph)}\n"
    assert "sub-problem(s) on cpu" in captured.err
    code = main(["count", str(path), "--backend", "cpu", "--partitions", "2", "--verify"])
    assert code == 0 and "verification: PASS" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--partitions", "0"], "expected a positive integer"),
    (["--devices", "x"], "expected all, a number of GPUs or ids"),
    (["--max-memory", "lots"], "expected a positive number of bytes"),
    (["--max-memory", "0.5"], "expected a positive number of bytes"),
])
def test_cli_refuses_bad_values(capsys, argv, message):
    with pytest.raises(SystemExit) as exit_info:
        main(["count", "--backend", "cpu", *argv])
    assert exit_info.value.code == 2 and message in capsys.readouterr().err


def test_cli_errors_are_exit_codes(capsys, no_gpu):
    assert main(["count", "--backend", "cpu", "--devices", "2"]) == 2
    assert "runs none" in capsys.readouterr().err
    assert main(["count", "--backend", "cpu", "--scheduler", "tcp://localhost:1"]) == 2
    assert "takes no --backend" in capsys.readouterr().err


class TestDask:
    distributed = pytest.importorskip("distributed")

    @pytest.fixture(scope="class")
    @classmethod
    def cluster(cls):
        with cls.distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                           dashboard_address=":0") as cluster:
            yield cluster

    def test_count_on_the_cluster(self, cluster, no_gpu, tmp_path):
        graph = rmat_graph(scale=10, seed=13)
        with self.distributed.Client(cluster) as client:
            result = tricount.count(graph, backend="dask", client=client, partitions=3)
            assert result.n_triangles == oracle(graph)
            assert result.backend == "dask" and result.partition["subproblems"] == 3
            path = tmp_path / "g.ranked.tcsr"
            prepare_ranked(graph, path)
            by_path = tricount.count(str(path), client=client, partitions=2)  # client: dask
            assert by_path.n_triangles == result.n_triangles and by_path.backend == "dask"

    def test_cli_scheduler(self, cluster, capsys, tmp_path, no_gpu):
        graph = rmat_graph(scale=9, seed=17)
        path = tmp_path / "g.ranked.tcsr"
        prepare_ranked(graph, path)
        code = main(["count", str(path), "--scheduler", cluster.scheduler_address,
                     "--partitions", "2", "--json"])
        out = json.loads(capsys.readouterr().out)
        assert code == 0 and out["triangles"] == oracle(graph) and out["backend"] == "dask"
