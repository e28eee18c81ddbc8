"""The Dask executor on a LocalCluster of two CPU workers: exact, equal to the single-process count.

Skipped when dask.distributed is not installed (pip install ".[dask]").
"""

from __future__ import annotations

import os

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

import tricount  # noqa: E402
from tricount.errors import TricountError  # noqa: E402
from tricount.generate import rmat  # noqa: E402
from tricount.io import write_native  # noqa: E402
from tricount import reference  # noqa: E402
from tricount.partition import count_partitioned, prepare_ranked  # noqa: E402
from graphs import NAMED  # noqa: E402


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
    assert_counted_where_workers_can(report)


def test_ranked_file_is_opened_by_the_workers(client, graph, expected, tmp_path):
    path = tmp_path / "g.ranked.tcsr"
    prepare_ranked(graph, path)
    n, report = count_partitioned(str(path), partitions=5, executor="dask", client=client)
    assert n == expected
    assert [s["apex"] for s in report.subproblems] == [
        (a, b) for a, b in zip(report.plan.bounds[:-1], report.plan.bounds[1:])]


def test_unranked_file_is_ranked_by_the_workers(client, graph, expected, tmp_path):
    path = tmp_path / "g.tcsr"
    write_native(path, graph)
    assert count_partitioned(path, partitions=3, executor="dask", client=client)[0] == expected
    assert os.listdir(tmp_path) == ["g.tcsr"]  # nothing written beside it


def test_the_driver_does_not_read_a_file(client, graph, expected, tmp_path, monkeypatch):
    # The plan is made on a worker; the driver only submits (ranked_csr is the driver's read).
    from tricount import partition
    from tricount.partition.ranked import open_ranked

    path = tmp_path / "g.ranked.tcsr"
    prepare_ranked(graph, path)
    driver_plan = partition.plan_graph(open_ranked(path), partitions=4)

    def read_on_the_driver(graph):
        raise AssertionError("the driver read the graph")

    monkeypatch.setattr(partition, "ranked_csr", read_on_the_driver)
    n, report = count_partitioned(str(path), partitions=4, executor="dask", client=client)
    assert n == expected
    assert report.plan.bounds == driver_plan.bounds and report.plan.work == driver_plan.work
    assert report.timings["rank_s"] == 0.0
    assert {"open_s", "statistics_s", "plan_s", "count_s"} <= set(report.timings)
    assert report.graph == {"graph": "g.ranked.tcsr", "vertices": graph.n_vertices,
                            "edges": graph.n_edges}


def test_budget_chooses_k_from_a_file(client, graph, expected, tmp_path):
    path = tmp_path / "g.ranked.tcsr"
    prepare_ranked(graph, path)
    n, report = count_partitioned(path, max_memory=40_000, executor="dask", client=client)
    assert n == expected and report.n_subproblems > 1
    assert max(s["memory"] for s in report.subproblems) <= 40_000


@pytest.mark.parametrize("name", sorted(NAMED))
@pytest.mark.parametrize("ranked", [True, False], ids=["ranked", "unranked"])
def test_named_graphs_from_a_file(client, tmp_path, name, ranked):
    src, dst, n_triangles, _ = NAMED[name]
    g = tricount.Graph.from_edges(src, dst)
    path = tmp_path / "g.tcsr"
    prepare_ranked(g, path) if ranked else write_native(path, g)
    for k in (1, 3):
        assert count_partitioned(path, partitions=k, executor="dask", client=client)[0] \
            == n_triangles == count_partitioned(path, partitions=k)[0]
    assert tricount.count(str(path), backend="dask", client=client).n_triangles == n_triangles


@pytest.mark.parametrize("seed", range(4))
def test_random_graphs_from_a_file(client, tmp_path, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 400))
    src, dst = rng.integers(0, n, size=(2, int(rng.integers(1, 6 * n))))
    g = tricount.Graph.from_edges(src, dst)
    expected = reference.count_triangles(src, dst)
    path = tmp_path / "g.ranked.tcsr"
    prepare_ranked(g, path)
    k = int(rng.integers(1, 9))
    assert count_partitioned(path, partitions=k, executor="dask", client=client)[0] == expected
    assert count_partitioned(path, partitions=k, executor="cpu")[0] == expected


def test_budget_chooses_k_on_the_cluster(client, graph, expected):
    n, report = count_partitioned(graph, max_memory=40_000, executor="dask", client=client)
    assert n == expected and report.n_subproblems > 1
    assert max(s["memory"] for s in report.subproblems) <= 40_000
    assert "least k" in report.reason


def assert_counted_where_workers_can(report):
    """Each worker counts on the CPU, or on its GPU where one is usable (the GPU machine)."""
    import tricount.gpu

    where = {s["where"] for s in report.subproblems}
    assert where == {"cpu"} or (tricount.gpu.probe()[0] and all(w.startswith("gpu:") for w in where))


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
    assert_counted_where_workers_can(report)


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
