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

import numpy as np
import pytest

import tricount
import tricount.gpu
import tricount.io
from tricount.cli import main
from tricount.errors import BackendUnavailableError, InvalidArgumentError, UnknownMethodError
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
    ({"max_memory": 1 << 30, "backend": "reference"}, "counts in one piece"),
    ({"partitions": 2, "backend": "cpu", "orientation": "id"}, "orients by rank"),
])
def test_bad_values_name_the_parameter(kwargs, match):
    with pytest.raises(InvalidArgumentError, match=match):
        tricount.count(([0, 1, 2], [1, 2, 0]), **{"backend": "cpu", **kwargs})


def test_count_triangles_takes_the_options_of_count():
    k4 = ([0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3])
    assert tricount.count_triangles(k4, backend="cpu", partitions=3) == 4
    with pytest.raises(InvalidArgumentError, match="counts in one piece"):
        tricount.count_triangles(k4, backend="reference", partitions=2)


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
    (["--devices", "x"], "expected all, a number of GPUs, or ids"),
    (["--devices", ","], "expected all, a number of GPUs, or ids"),
    (["--max-memory", "lots"], "expected a positive whole number of bytes"),
    (["--max-memory", "0.5"], "expected a positive whole number of bytes"),
    (["--max-memory", "1.5"], "expected a positive whole number of bytes"),  # not 1 byte
    (["--max-memory", "inf"], "expected a positive whole number of bytes"),
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

    def test_client_must_be_a_connected_client(self, cluster, no_gpu):
        edges = rmat_graph(scale=6, seed=3)
        for bad in ("127.0.0.1:8786", 5, object()):
            with pytest.raises(InvalidArgumentError, match="client must be a distributed.Client"):
                tricount.count(edges, backend="dask", client=bad)
        client = self.distributed.Client(cluster)
        with pytest.raises(InvalidArgumentError, match="it takes no backend='cpu'"):
            tricount.count(edges, backend="cpu", client=client)
        client.close()
        with pytest.raises(BackendUnavailableError, match="the Dask client is closed"):
            tricount.count(edges, backend="dask", client=client)

    def test_cli_scheduler(self, cluster, capsys, tmp_path, no_gpu):
        graph = rmat_graph(scale=9, seed=17)
        path = tmp_path / "g.ranked.tcsr"
        prepare_ranked(graph, path)
        code = main(["count", str(path), "--scheduler", cluster.scheduler_address,
                     "--partitions", "2", "--json"])
        out = json.loads(capsys.readouterr().out)
        assert code == 0 and out["triangles"] == oracle(graph) and out["backend"] == "dask"


class TestSchedulerAddress:
    """``--scheduler`` never hangs and never shows a traceback: a malformed address is bad
    usage (2); no scheduler there, or a server that is not one, is an unavailable backend (3)."""

    distributed = pytest.importorskip("distributed")

    @pytest.fixture
    def k4_file(self, tmp_path):
        path = tmp_path / "k4.txt"
        path.write_text("0 1\n0 2\n0 3\n1 2\n1 3\n2 3\n")
        return path

    @pytest.mark.parametrize("address, message", [
        ("", "needs the scheduler's address"),
        (" ", "needs the scheduler's address"),
        ("garbage", "is not a Dask scheduler address"),
        ("tcp://", "is not a Dask scheduler address"),
        ("127.0.0.1:notaport", "is not a Dask scheduler address"),
        ("http://127.0.0.1:1", "is not a Dask scheduler address"),
        ("127.0.0.1:99999", "port 99999 is outside 1-65535"),
    ])
    def test_malformed_address_is_bad_usage(self, k4_file, capsys, address, message):
        assert main(["count", str(k4_file), "--scheduler", address]) == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err

    def test_input_checked_before_the_scheduler(self, tmp_path, capsys):
        assert main(["count", str(tmp_path / "missing.txt"), "--scheduler", "127.0.0.1:1"]) == 2
        assert "missing.txt: no such file" in capsys.readouterr().err

    def test_tables_refused_with_a_scheduler(self, k4_file, tmp_path, capsys):
        code = main(["count", str(k4_file), "--scheduler", "127.0.0.1:1",
                     "--per-vertex", str(tmp_path / "pv.csv")])
        assert code == 2 and "take no --scheduler" in capsys.readouterr().err

    @pytest.mark.parametrize("greeting, message", [
        (None, "did not answer as a Dask scheduler within 1 s"),  # accepts, stays silent
        (b"SSH-2.0-OpenSSH_8.9\r\n", "does not speak Dask's protocol"),  # a frame of 3 EiB
    ])
    def test_a_server_that_is_not_a_scheduler(self, k4_file, capsys, monkeypatch, greeting,
                                              message):
        import socket
        import threading

        from tricount.cli import count as count_cli

        monkeypatch.setattr(count_cli, "SCHEDULER_TIMEOUT_S", 1)
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(4)
        held = []

        def serve():
            while True:
                try:
                    conn, _ = server.accept()
                except OSError:
                    return
                held.append(conn)
                if greeting:
                    conn.sendall(greeting)

        threading.Thread(target=serve, daemon=True).start()
        try:
            port = server.getsockname()[1]
            assert main(["count", str(k4_file), "--scheduler", f"127.0.0.1:{port}"]) == 3
        finally:
            server.close()
            for conn in held:
                conn.close()
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err


def test_a_count_in_parts_reports_what_a_count_in_one_piece_does(tmp_path):
    path = tmp_path / "f1.txt"  # 3 loops, 1 repeated directed line, largest degree 2
    path.write_text("0 1\n1 0\n0 1\n1 2\n2 0\n2 2\n5 5\n7 8\n8 7\n7 7\n3 4\n")
    g = tricount.load_graph(path)
    want = {"vertices": 8, "edges": 5, "max_degree": 2, "self_loops_dropped": 3,
            "duplicates_dropped": 1}
    native = tmp_path / "stored.tcsr"  # a .tcsr keeps the name and what was dropped
    tricount.io.write_graph(native, tricount.Graph.from_edges(
        *(np.array(c) for c in zip(*[(0, 1), (1, 0), (0, 1), (1, 2), (2, 0), (2, 2), (5, 5),
                                     (7, 8), (8, 7), (7, 7), (3, 4)])), name="f1-stored"))
    for result in (tricount.count(g, backend="cpu", partitions=2),
                   tricount.count(str(path), backend="cpu", partitions=3),
                   tricount.count(str(path), backend="reference"),
                   tricount.count(str(native), backend="cpu", partitions=2)):
        assert {k: result.graph[k] for k in want} == want
    assert tricount.count(str(native), backend="cpu", partitions=2).graph["graph"] == \
        tricount.count(str(native), backend="cpu").graph["graph"] == "f1-stored"


def test_a_budget_on_a_graph_of_no_vertices_is_one_empty_sub_problem(tmp_path):
    import networkx as nx

    empty = np.array([], dtype=np.int64)
    for graph in (nx.Graph(), (empty, empty)):
        assert tricount.count(graph, backend="cpu", max_memory=1).n_triangles == 0
    # Which bound fails first depends on the host's threads (each has its scratch): with
    # many, one rank alone is already over the budget.
    with pytest.raises(tricount.UnsupportedGraphError,
                       match="partitions=1 leaves|alone needs .* more than max_memory"):
        tricount.count(nx.gnm_random_graph(60, 300, seed=3), backend="cpu", partitions=1,
                       max_memory=1000)
