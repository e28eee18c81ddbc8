"""The Dask executor on a LocalCluster of two CPU workers: exact, equal to the single-process count.

The workers are threads of this process, told there is no GPU (``cpu_workers``), so these
tests judge the CPU workers' path on any machine; the GPU workers' path is judged in
test_partition_gpu_emulated.py (CuPy emulated) and test_partition_gpu.py (a real GPU).
Skipped when dask.distributed is not installed (pip install ".[dask]").
"""

from __future__ import annotations

import os
from collections import defaultdict

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

import tricount  # noqa: E402
from tricount.errors import TricountError  # noqa: E402
from tricount.generate import rmat  # noqa: E402
from tricount.io import write_native  # noqa: E402
from tricount import reference  # noqa: E402
from tricount.partition import count_partitioned, prepare_ranked  # noqa: E402
from tricount.partition.host_graph import HostGraph  # noqa: E402
from graphs import NAMED  # noqa: E402


@pytest.fixture(scope="module")
def client():
    # Threads, not processes: starts in milliseconds; the workers still get the sub-problems
    # as tasks and open files themselves.
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as c:
            yield c


@pytest.fixture(autouse=True)
def cpu_workers(monkeypatch):
    import tricount.gpu

    monkeypatch.setattr(tricount.gpu, "probe", lambda: (False, "CPU workers in this test"))


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


def pieces_tile_the_plan(report):
    """Every range's pieces cover its anchors, 0 .. its end, end to end and once each."""
    rows = defaultdict(list)
    for s in report.subproblems:
        rows[(s["index"], s["apex"])].append(s["rows"])
    bounds = report.plan.bounds
    for (i, (lo, hi)), pieces in rows.items():
        assert (lo, hi) == (bounds[i], bounds[i + 1])
        pieces.sort()
        assert pieces[0][0] == 0 and pieces[-1][1] == hi
        assert all(a[1] == b[0] for a, b in zip(pieces[:-1], pieces[1:]))
    # a range left out has no anchors (it is empty at the bottom) or no work
    assert all(bounds[i + 1] == 0 or (i, (bounds[i], bounds[i + 1])) in rows
               or report.plan.entries[i] == 0 for i in range(report.plan.k))


def test_ranked_file_is_opened_by_the_workers(client, graph, expected, tmp_path):
    path = tmp_path / "g.ranked.tcsr"
    prepare_ranked(graph, path)
    n, report = count_partitioned(str(path), partitions=5, executor="dask", client=client)
    assert n == expected and report.n_subproblems == 5
    pieces_tile_the_plan(report)


def test_one_range_is_placed_on_the_workers_of_the_count(client, graph, expected, tmp_path):
    path = tmp_path / "g.ranked.tcsr"
    prepare_ranked(graph, path)
    workers = sorted(client.scheduler_info()["workers"])
    _, one = count_partitioned(str(path), executor="dask", client=client, workers=workers[:1])
    assert one.n_subproblems == 1 and len(one.subproblems) == 1  # one worker: one piece
    assert {s["worker"] for s in one.subproblems} == {workers[0]}


@pytest.mark.parametrize("partitions", [None, 3])
def test_pieces_are_placed_evenly(client, graph, expected, tmp_path, partitions):
    # One range (no budget, no k) or three, each cut into 4 pieces per worker of about
    # equal anchor work, placed heaviest first on the less loaded worker.
    path = tmp_path / "g.ranked.tcsr"
    prepare_ranked(graph, path)
    n, report = count_partitioned(str(path), partitions=partitions, executor="dask",
                                  client=client)
    assert n == expected and report.n_subproblems == (partitions or 1)
    pieces_tile_the_plan(report)
    load = defaultdict(int)
    for s in report.subproblems:
        load[s["worker"]] += s["estimated_work"]
    assert set(load) == set(client.scheduler_info()["workers"])
    heaviest = max(s["estimated_work"] for s in report.subproblems)
    assert max(load.values()) <= sum(load.values()) / 2 + heaviest


def test_each_worker_keeps_its_graph(client, graph, expected, tmp_path):
    # The workers are threads of this process here: they share its one kept graph, which
    # the planning task makes; every piece finds it; the driver's release frees it.
    from tricount.partition.worker_cache import PREPARED

    path = tmp_path / "g.ranked.tcsr"
    prepare_ranked(graph, path)
    builds = PREPARED.builds
    n, report = count_partitioned(str(path), partitions=3, executor="dask", client=client)
    assert n == expected
    assert PREPARED.builds == builds + 1
    assert {s["prepared"] for s in report.subproblems} == {"kept"}
    assert PREPARED.key is None  # released at the end of the count
    t = report.timings
    assert {"load_s", "prepare_s", "statistics_s", "plan_s", "others_ready_s", "count_s",
            "release_s", "total_s"} <= set(t)
    # the phases follow each other, as count_gpu's do
    assert t["load_s"] + t["prepare_s"] + t["plan_s"] + t["count_s"] <= t["total_s"] + 1e-6


def test_a_failing_piece_releases_the_graph(client, graph, tmp_path):
    from tricount.partition.dask_executor import ClusterCount
    from tricount.partition.plan import SubProblem
    from tricount.partition.worker_cache import PREPARED

    path = tmp_path / "g.ranked.tcsr"
    prepare_ranked(graph, path)
    beyond = graph.n_vertices + 5
    with pytest.raises(TricountError, match="do not fit"):
        with ClusterCount(str(path), client=client) as run:
            planned = run.plan()
            assert PREPARED.key is not None
            run.count(planned["pieces"] + [SubProblem(9, 0, beyond, 1, 1, 0)])
    assert PREPARED.key is None


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
    # the pieces too: the planning worker cut them as the driver would (the CPU's plan)
    from tricount.partition.pieces import pieces_per_range

    _, driver_pieces = HostGraph(open_ranked(path), partitions=4).plan(
        pieces=pieces_per_range(2))  # the client's two workers
    assert sorted(s["rows"] + s["apex"] for s in report.subproblems) == sorted(
        p.rows + (p.apex_lo, p.apex_hi) for p in driver_pieces)
    assert report.timings["rank_s"] == 0.0
    assert {"load_s", "statistics_s", "plan_s", "count_s"} <= set(report.timings)
    assert report.graph == {"graph": "g.ranked", "vertices": graph.n_vertices,
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


#: The probe as this machine answers it: the ``cpu_workers`` fixture hides the GPU from
#: this process's workers only, and worker processes started by a LocalCluster see it.
GPU_HERE = tricount.gpu.probe()[0]


def assert_counted_where_workers_can(report):
    """Each worker counts on the CPU, or on its GPU where one is usable (the GPU machine)."""
    where = {s["where"] for s in report.subproblems}
    assert where == {"cpu"} or (GPU_HERE and all(w.startswith("gpu:") for w in where))


def test_unknown_executor():
    with pytest.raises(TricountError, match="executor"):
        count_partitioned(tricount.Graph.from_edges([0], [1]), executor="mpi")


@pytest.mark.slow
def test_worker_processes_open_the_file(graph, expected, tmp_path):
    # Separate worker processes: only the path and the pieces travel; each process reads
    # the file once (the planning task, or its worker's preparation) and keeps it.
    path = tmp_path / "g.ranked.tcsr"
    prepare_ranked(graph, path)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as c:
            n, report = count_partitioned(str(path), partitions=4, executor="dask", client=c)
            held = c.run(lambda: __import__("tricount.partition.worker_cache",
                                            fromlist=["PREPARED"]).PREPARED.key)
    assert n == expected
    assert_counted_where_workers_can(report)
    assert {s["prepared"] for s in report.subproblems} == {"kept"}
    assert len({s["worker"] for s in report.subproblems}) == 2
    assert set(held.values()) == {None}  # every process released its graph


@pytest.mark.parametrize("real_graphs", ["small"], indirect=True)
def test_shared_graphs(client, real_graphs, tmp_path):
    for row, g in real_graphs:
        path = tmp_path / f"{row['name']}.ranked.tcsr"
        prepare_ranked(g, path)
        for k in (None, 3):
            n, report = count_partitioned(path, partitions=k, executor="dask", client=client)
            assert n == row["triangles"], (row["name"], k)
            pieces_tile_the_plan(report)
        assert count_partitioned(g, partitions=2, executor="dask", client=client)[0] \
            == row["triangles"]


def test_each_workers_pieces_wait_for_its_own_preparation(client, graph, expected, tmp_path,
                                                          monkeypatch):
    # A piece queued behind its worker's preparation is on no worker yet, so Dask's work
    # stealing cannot move it to the planning worker while the other still reads the file.
    from tricount.partition import dask_executor

    path = tmp_path / "g.ranked.tcsr"
    prepare_ranked(graph, path)
    submitted = []
    submit = dask_executor.ClusterCount._submit

    def spy(self, fn, *args, address=None, pinned=False, name, **kwargs):
        future = submit(self, fn, *args, address=address, pinned=pinned, name=name, **kwargs)
        submitted.append((fn.__name__, args, address, pinned, future))
        return future

    monkeypatch.setattr(dask_executor.ClusterCount, "_submit", spy)
    n, report = count_partitioned(str(path), partitions=2, executor="dask", client=client)
    assert n == expected
    planner = next(a for f, _, a, _, _ in submitted if f == "_plan_task")
    prepared = {a: fut for f, _, a, _, fut in submitted if f == "_prepare_task"}
    assert planner not in prepared and len(prepared) == len(client.nthreads()) - 1
    # _count_task(source, token, options, piece, ready, planned_file)
    pieces = [(a, args[4]) for f, args, a, _, _ in submitted if f == "_count_task"]
    assert {a for a, _ in pieces} == set(client.nthreads())  # every worker counted some
    for address, gate in pieces:
        if address == planner:
            assert gate is None
        else:
            assert gate is prepared[address]  # the future: a dependency of the piece
    # Preparations and pieces keep loose restrictions: a lost worker's run elsewhere.
    assert not any(p for f, _, _, p, _ in submitted if f in ("_prepare_task", "_count_task"))


def test_a_file_rewritten_between_the_plan_and_its_pieces_is_refused(client, graph, tmp_path,
                                                                      monkeypatch):
    # A worker that read the file after it was rewritten would count the old plan's pieces in
    # another graph (a wrong total, no error, before): every task says which file it read.
    from tricount.partition import dask_executor

    path = tmp_path / "g.tcsr"
    write_native(path, graph)
    other = tricount.Graph.from_edges(*rmat(11, 8, seed=8))
    count = dask_executor.ClusterCount.count

    def rewrite_then_count(self, pieces):
        from tricount.partition.worker_cache import PREPARED

        write_native(path, other)
        PREPARED.release()  # as if this worker had not read it yet (threads share the cache)
        return count(self, pieces)

    monkeypatch.setattr(dask_executor.ClusterCount, "count", rewrite_then_count)
    with pytest.raises(TricountError, match="the file changed while the Dask workers read it"):
        count_partitioned(str(path), partitions=2, executor="dask", client=client)


def test_a_missing_file_is_the_readers_error(client, tmp_path):
    with pytest.raises(tricount.GraphFormatError, match="missing.tcsr"):
        count_partitioned(str(tmp_path / "missing.tcsr"), partitions=2, executor="dask",
                          client=client)


def test_a_cluster_without_workers_is_refused():
    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=":0") as c, \
            distributed.Client(c, set_as_default=False) as client:
        with pytest.raises(tricount.BackendUnavailableError, match="has no workers"):
            tricount.count(([0, 1, 2], [1, 2, 0]), backend="dask", client=client)


def test_a_client_that_is_not_the_default(graph, expected, tmp_path):
    # The count's own client settles its futures (distributed.wait asked for the default).
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster, set_as_default=False) as client:
        path = tmp_path / "g.tcsr"
        write_native(path, graph)
        for source in (graph, str(path)):
            assert tricount.count(source, backend="dask", client=client,
                                  partitions=2).n_triangles == expected


@pytest.mark.parametrize("then", ["replaced", "removed"])
def test_a_ranked_graph_whose_file_changed_is_counted_as_held(client, graph, expected, tmp_path,
                                                               then):
    """The workers were given the path of the file the graph was read from, whatever it held
    by then: replaced by another graph, the count was the other graph's (a wrong count);
    removed, a raw FileNotFoundError. The graph in memory is counted (scattered)."""
    from tricount.partition import ranked_csr

    path = tmp_path / "g.tcsr"
    prepare_ranked(graph, path)
    held = ranked_csr(str(path))
    if then == "replaced":
        other = tricount.Graph.from_edges(*rmat(11, 4, seed=8))
        prepare_ranked(other, path)  # the same vertices, other edges
        assert tricount.count_triangles(other, backend="cpu") != expected
    else:
        path.unlink()
    n, report = count_partitioned(held, partitions=3, executor="dask", client=client)
    assert n == expected and report.executor == "dask"
