"""The Dask executor on a LocalCluster of two CPU workers: exact, equal to the single-process count.

Skipped when dask.distributed is not installed (pip install ".[dask]").
"""

from __future__ import annotations

import os

import pytest

distributed = pytest.importorskip("distributed")

import tricount  # noqa: E402
from tricount.errors import TricountError  # noqa: E402
from tricount.generate import rmat  # noqa: E402
from tricount.io import write_native  # noqa: E402
from tricount.partition import count_partitioned, prepare_ranked  # noqa: E402


@pytest.fixture(scope="module")
def client():
    # Threads, not processes: starts in milliseconds; the workers still get the sub-problems
    # as tasks and open files themselves.
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as c:
            yield c


@pytest.fixture(scope="module")
def graph():
    return tricount.Graph.from_edges(*rmat(11, 8, seed=7))


@pytest.fixture(scope="module")
def expected(graph):
    return tricount.count_triangles(graph, backend="cpu")


def test_graph_in_memory_is_scattered(client, graph, expected):
    n, report = count_partitioned(graph, partitions=4, executor="dask", client=client)
    assert n == expected == count_partitioned(graph, partitions=4)[0]
    assert report.executor == "dask" and report.n_subproblems == 4
    assert {s["worker"] for s in report.subproblems} <= set(client.scheduler_info()["workers"])
    assert {s["where"] for s in report.subproblems} == {"cpu"}


def test_ranked_file_is_opened_by_the_workers(client, graph, expected, tmp_path):
    path = tmp_path / "g.ranked.tcsr"
    prepare_ranked(graph, path)
    n, report = count_partitioned(str(path), partitions=5, executor="dask", client=client)
    assert n == expected
    assert [s["apex"] for s in report.subproblems] == [
        (a, b) for a, b in zip(report.plan.bounds[:-1], report.plan.bounds[1:])]


def test_unranked_file_gets_a_temporary_ranked_copy(client, graph, expected, tmp_path):
    path = tmp_path / "g.tcsr"
    write_native(path, graph)
    assert count_partitioned(path, partitions=3, executor="dask", client=client)[0] == expected
    assert os.listdir(tmp_path) == ["g.tcsr"]  # the ranked copy is gone


def test_budget_chooses_k_on_the_cluster(client, graph, expected):
    n, report = count_partitioned(graph, max_memory=40_000, executor="dask", client=client)
    assert n == expected and report.n_subproblems > 1
    assert max(s["memory"] for s in report.subproblems) <= 40_000
    assert "least k" in report.reason


def test_unknown_executor():
    with pytest.raises(TricountError, match="executor"):
        count_partitioned(tricount.Graph.from_edges([0], [1]), executor="mpi")


@pytest.mark.slow
def test_worker_processes_open_the_file(graph, expected, tmp_path):
    # Separate worker processes: only the path and the sub-problems travel.
    path = tmp_path / "g.ranked.tcsr"
    prepare_ranked(graph, path)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as c:
            n, report = count_partitioned(str(path), partitions=4, executor="dask", client=c)
    assert n == expected
    assert {s["where"] for s in report.subproblems} == {"cpu"}


def test_workers_use_the_gpu_hook_when_present(client, graph, expected, monkeypatch):
    # A stand-in for tricount.partition.gpu (the GPU helper's module): same signature and
    # result keys as the CPU counter, and a probe that reports a usable GPU.
    import sys
    import types

    import tricount.gpu
    from tricount.partition.cpu import count_subproblem

    def fake_gpu_count(source, sub, *, block=None):
        out = count_subproblem(source, sub, block=block)
        out["where"] = "gpu:fake"
        return out

    module = types.ModuleType("tricount.partition.gpu")
    module.count_subproblem = fake_gpu_count
    monkeypatch.setitem(sys.modules, "tricount.partition.gpu", module)
    monkeypatch.setattr(tricount.gpu, "probe", lambda: (True, "GPU fake"))
    n, report = count_partitioned(graph, partitions=3, executor="dask", client=client)
    assert n == expected
    assert {s["where"] for s in report.subproblems} == {"gpu:fake"}
    assert report.where and all("gpu:fake" in w for w in report.where)
