"""The GPU executor of partitioned counting on a real GPU: every block count 1-8, exact.

Judged by tricount.reference (sets of neighbours) on the named graphs, R-MAT
and random graphs; the graph on the host, on the device and in a ``.tcsr``;
one worker and two sharing one GPU (``devices=[0, 0]``, so it runs on a
one-GPU machine); the rank-ordered CSR kept on the device and streamed from
the host in small pieces (``shrink``: every chunking path on small graphs);
the device memory held within ``max_memory`` (a memory hook over every pool
allocation); and the Dask workers' hook, alone and on a LocalCluster.
"""

from __future__ import annotations

import sys
from math import comb
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "gpu"))
sys.path.insert(0, str(Path(__file__).parent))
from gpu_support import require_gpu  # noqa: E402

pytestmark = pytest.mark.gpu
require_gpu()

import cupy  # noqa: E402

import tricount  # noqa: E402
from tricount.gpu.device import live_memory_hook  # noqa: E402
from tricount.gpu.plan import HashShape  # noqa: E402
from tricount.io import write_native  # noqa: E402
from tricount.partition import plan_graph, prepare_ranked, ranked_csr  # noqa: E402
from tricount.partition.gpu import count_subproblem  # noqa: E402

from graphs import NAMED, NOISY, complete_graph  # noqa: E402
from partition_gpu_support import (assert_dask_counted_as_count_gpu,  # noqa: E402
                                   assert_hook_hears_frees_in_other_threads, count_gpu,
                                   oracle, ring_of_triangles, rmat_graph, shrink,
                                   spy_on_batches)

ALL_NAMED = {**NAMED, **NOISY}
BLOCK_COUNTS = range(1, 9)


@pytest.mark.parametrize("name", sorted(ALL_NAMED))
def test_named_graphs_every_block_count(name):
    src, dst, n_triangles, _ = ALL_NAMED[name]
    graph = tricount.Graph.from_edges(src, dst)
    for k in BLOCK_COUNTS:
        n, report = count_gpu(graph, partitions=k)
        assert n == n_triangles, (name, k)
        assert report.n_subproblems == k


@pytest.mark.parametrize("where", ["host", "device"])
def test_rmat_every_block_count(where):
    graph = rmat_graph(scale=11, seed=5, edge_factor=16)
    expected = oracle(graph)
    source = graph.to_device(cupy) if where == "device" else graph
    for k in (None, *BLOCK_COUNTS):
        n, report = count_gpu(source, partitions=k)
        assert n == expected, k
        assert report.devices[0]["resident"] is True


@pytest.mark.parametrize("where", ["host", "device"])
def test_rmat_streamed_in_small_pieces(monkeypatch, where):
    shrink(monkeypatch)
    graph = rmat_graph(scale=9, seed=7)
    expected = oracle(graph)
    source = graph.to_device(cupy) if where == "device" else graph
    for k in (None, 1, 2, 5, 8):
        n, report = count_gpu(source, partitions=k, max_memory=1 << 20)
        assert n == expected, k


def test_ranked_and_unranked_files(tmp_path):
    graph = rmat_graph(scale=10, seed=9)
    expected = oracle(graph)
    ranked, plain = tmp_path / "g.ranked.tcsr", tmp_path / "g.tcsr"
    prepare_ranked(graph, ranked)
    write_native(plain, graph)
    for path in (ranked, plain):
        for k in (1, 3, 8):
            assert count_gpu(str(path), partitions=k)[0] == expected, (path, k)
        for devices in ([0, 0], "all"):  # each device reads the file straight into its memory
            assert count_gpu(str(path), devices=devices)[0] == expected, (path, devices)


@pytest.mark.parametrize("devices", [[0, 0], (0, 0, 0), "all", 1])
def test_workers_sharing_a_gpu(devices):
    graph = rmat_graph(scale=11, seed=13, edge_factor=16)
    expected = oracle(graph)
    for k in (None, 3):
        n, report = count_gpu(graph, devices=devices, partitions=k)
        assert n == expected, (devices, k)
        assert sum(d["items"] for d in report.devices) == len(report.subproblems)


@pytest.mark.parametrize("per_device", [1, 2, 3])
@pytest.mark.parametrize("devices", [[0, 0], [0, 0, 0, 0], "all"])
def test_owner_pieces_count_what_the_cpu_counts(monkeypatch, devices, per_device):
    """The whole range cut by owner: every piece's count equals the CPU counter's for the
    same piece (the edges its owners own), and the pieces add up to the reference."""
    from tricount.partition import pieces as partition_pieces
    from tricount.partition.cpu import count_subproblem as cpu_piece
    from tricount.partition.plan import SubProblem

    monkeypatch.setattr(partition_pieces, "OWNER_PIECES_PER_DEVICE", per_device)
    graph = rmat_graph(scale=12, seed=17, edge_factor=16)
    n, report = count_gpu(graph, devices=devices)
    assert n == oracle(graph)
    nv = graph.n_vertices
    owners = sorted(s["owners"] for s in report.subproblems)
    assert owners[0][0] == 0 and owners[-1][1] == nv and len(owners) > 1 or devices == "all"
    r = ranked_csr(graph)
    for s in report.subproblems:
        piece = SubProblem(0, 0, nv, s["entries"], 0, 0, owner_lo=s["owners"][0],
                           owner_hi=s["owners"][1])
        assert cpu_piece(r, piece)["n_triangles"] == s["n_triangles"], s["owners"]


@pytest.mark.parametrize("route", ["exchange", "assembled", "replicated"])
@pytest.mark.parametrize("devices", [[0, 0], [0, 0, 0, 0], "all"])
def test_workers_share_the_preparation(monkeypatch, route, devices):
    """Several workers prepare a host graph together (tricount/partition/shared_prep.py):
    grouping their rows' keys by share and exchanging them, or (orientation slices of an
    eighth of the edges) assembling the whole graph on each, or (a graph that does not fit
    beside its rank-ordered CSR, as R-MAT 29 on an H100) copying the first device's
    preparation; R-MAT and the named graphs."""
    import dataclasses

    from tricount.partition import device_worker

    real = device_worker.plan_device
    if route == "assembled":
        def small_slices(n, m, *args, **kwargs):
            plan = real(n, m, *args, **kwargs)
            return dataclasses.replace(plan, orient_slice_keys=min(plan.orient_slice_keys,
                                                                   max(64, m // 8)))

        monkeypatch.setattr(device_worker, "plan_device", small_slices)
    elif route == "replicated":
        monkeypatch.setattr(device_worker, "plan_device", lambda *a, **k: dataclasses.replace(
            real(*a, **k), upload_first=False))
    graph = rmat_graph(scale=12, seed=19, edge_factor=16)
    n, report = count_gpu(graph, devices=devices)
    assert n == oracle(graph)
    if len(report.devices) > 1:
        steps = report.devices[-1]["prepare_steps"]
        assert ("exchanging the keys" in steps) is (route == "exchange"), steps
        assert ("copying the rank-ordered CSR from the first device" in steps) is (
            route == "replicated"), steps
    for name, (src, dst, n_triangles, _) in sorted(ALL_NAMED.items()):
        n, _ = count_gpu(tricount.Graph.from_edges(src, dst), devices=devices)
        assert n == n_triangles, name


def test_workers_sharing_a_gpu_streamed(monkeypatch):
    shrink(monkeypatch)
    graph = rmat_graph(scale=9, seed=17)
    assert count_gpu(graph, devices=[0, 0], max_memory=1 << 20)[0] == oracle(graph)


@pytest.mark.parametrize("shape", [HashShape(block_work=0), HashShape(block_table_bytes=128),
                                   HashShape(long_list=1, warp_slots=32, block_size=64),
                                   HashShape(max_task=1, edge32=False)],
                         ids=["all-block-tasks", "searched-tables", "long-lists", "tiny-tasks"])
def test_kernel_shapes(shape):
    graph = rmat_graph(scale=10, seed=19, edge_factor=16)
    expected = oracle(graph)
    for k in (1, 4):
        assert count_gpu(graph, partitions=k, shape=shape)[0] == expected


def test_complete_graph_past_two_to_the_32():
    # K_2955 has C(2955, 3) = 4,296,157,285 triangles: the counts stay 64-bit.
    n = 2955
    graph = tricount.Graph.from_edges(*complete_graph(n))
    for k in (1, 3):
        assert count_gpu(graph, partitions=k)[0] == comb(n, 3)


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 60), st.floats(0.05, 0.9), st.integers(1, 8), st.integers(0, 2**31))
def test_random_graphs(n, p, k, seed):
    rng = np.random.default_rng(seed)
    i, j = np.triu_indices(n, 1)
    keep = rng.random(i.shape[0]) < p
    if not keep.any():
        return
    graph = tricount.Graph.from_edges(i[keep], j[keep])
    assert count_gpu(graph, partitions=min(k, graph.n_vertices))[0] == oracle(graph)


def test_memory_stays_within_the_budget():
    # R-MAT 16: about 40,000 vertices and a million edges, a rank-ordered CSR of about
    # 4.3 MB. Under 6 MiB it is not kept (more than 60 % of the budget): it is oriented in
    # about five slices into host memory, streamed back, and cut into two apex ranges.
    graph = rmat_graph(scale=16, seed=23, edge_factor=16)
    expected = tricount.count_triangles(graph, backend="cpu")
    budget = 6 << 20
    with live_memory_hook("test-budget") as hook:
        n, report = count_gpu(graph, max_memory=budget)
    assert n == expected
    assert report.devices[0]["resident"] is False and report.n_subproblems >= 2
    # The pool's 512-byte rounding and CUB's sort workspaces come on top of the estimates.
    assert hook.peak <= budget + (1 << 20), (hook.peak, report.devices)
    assert report.devices[0]["peak_bytes"] <= budget + (1 << 20)


def test_pairs_of_many_owners_are_planned_in_batches_within_the_budget(monkeypatch):
    # test_partition_gpu_emulated.py's scenario at 2^20 vertices: under 100 MiB the chunks'
    # pairs, nearly each of its own owner, are planned in batches, within the budget (the
    # 1 MiB of slack as above, for CuPy's and CUB's workspaces).
    batches = spy_on_batches(monkeypatch)
    budget = 100 << 20
    with live_memory_hook("test-batches") as hook:
        n, report = count_gpu(ring_of_triangles(1 << 20), max_memory=budget)
    assert n == 1 << 20
    assert report.devices[0]["resident"] is True
    assert any(batch < n_pairs for n_pairs, batch in batches), batches
    assert hook.peak <= budget + (1 << 20), (hook.peak, budget)


def test_the_memory_hook_hears_frees_in_other_threads():
    cupy.get_default_memory_pool().free_all_blocks()
    assert_hook_hears_frees_in_other_threads(cupy)


@pytest.mark.parametrize("cache", [False, True], ids=["streamed-thrice", "prefix-kept"])
def test_a_streamed_graph_oriented_by_scattering(monkeypatch, cache):
    # R-MAT 16 under 8 MiB: its rank-ordered CSR (4.3 MB) stays on the device but the host
    # graph does not fit beside it, so one pass scatters the edges into their rows and the
    # rows are sorted on the device in slices; with the cache, the graph's leading rows
    # stay on the device after the first pass.
    from tricount.partition import device_plan

    monkeypatch.setattr(device_plan, "MIN_CACHE_BYTES", 0 if cache else 1 << 62)
    graph = rmat_graph(scale=16, seed=23, edge_factor=16)
    expected = tricount.count_triangles(graph, backend="cpu")
    budget = 8 << 20
    for k in (None, 4):
        with live_memory_hook("test-scatter") as hook:
            n, report = count_gpu(graph, partitions=k, max_memory=budget)
        assert n == expected, k
        assert "one scattering pass" in report.reason
        assert ("cached_rows" in report.devices[0]) is cache
        assert hook.peak <= budget + (1 << 20), (hook.peak, report.devices)


def test_scattered_orientation_equals_the_sliced_one():
    from tricount.gpu import apex
    from tricount.gpu.chunks import DeviceCSR

    graph = rmat_graph(scale=16, seed=23, edge_factor=16)
    upper = DeviceCSR(cupy.asarray(graph.indptr), cupy.asarray(graph.indices))
    n, m = graph.n_vertices, graph.n_edges
    deg = apex.degrees(upper, n, 1 << 16)
    rank = apex.degree_rank(deg.astype(cupy.int64), n, graph.indices.dtype)
    out = apex.oriented_degrees(upper, n, rank, 1 << 16)
    sliced = apex.orient(upper, n, m, rank, out, slice_keys=200_000, max_entries=1 << 16)
    indptr, cols = apex.scatter_oriented(upper, n, m, rank, out, max_entries=1 << 16)
    apex.sort_rows(indptr, cols, n, sort_keys=150_000, max_entries=1 << 16)
    assert bool((indptr == sliced[0]).all()) and bool((cols == sliced[1]).all())


def test_api_partitions_when_the_graph_does_not_fit():
    graph = rmat_graph(scale=14, seed=29, edge_factor=16)
    expected = tricount.count_triangles(graph, backend="cpu")
    result = tricount.count(graph, backend="gpu", max_memory=3 << 20)
    assert result.n_triangles == expected
    assert result.partition is not None
    assert result.partition["why"].startswith("the in-memory count does not fit")
    forced = tricount.count(graph, backend="gpu", partitions=4)
    assert forced.n_triangles == expected and forced.partition["subproblems"] == 4


def test_dask_hook():
    graph = rmat_graph(scale=11, seed=31, edge_factor=16)
    r = ranked_csr(graph)
    plan = plan_graph(r, partitions=5)
    results = [count_subproblem(r, sub) for sub in plan.subproblems()]
    assert sum(res["n_triangles"] for res in results) == oracle(graph)
    assert all(res["where"].startswith("gpu:") for res in results)


def test_dask_cluster_counts_on_the_gpu(tmp_path):
    distributed = pytest.importorskip("distributed")
    graph = rmat_graph(scale=11, seed=37, edge_factor=16)
    path = tmp_path / "g.ranked.tcsr"
    prepare_ranked(graph, path)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as client:
            result = tricount.count(str(path), backend="dask", client=client, partitions=3)
    assert result.n_triangles == oracle(graph)
    assert result.method == "hash"
    assert {s["where"] for s in result.partition["per_subproblem"]} == {"gpu:0"}


def test_dask_workers_keep_the_graph_on_the_device(tmp_path):
    # Two workers, threads of this process on GPU 0: the planning worker prepares the file
    # on the device and plans there as count_gpu plans two devices; every piece finds the
    # kept device graph; the release gives its memory back.
    distributed = pytest.importorskip("distributed")
    from tricount.partition import count_partitioned
    from tricount.partition.worker_cache import PREPARED

    graph = rmat_graph(scale=12, seed=53, edge_factor=16)
    expected = oracle(graph)
    ranked, plain = tmp_path / "g.ranked.tcsr", tmp_path / "g.tcsr"
    prepare_ranked(graph, ranked)
    write_native(plain, graph)
    _, local = count_gpu(str(ranked), devices=[0, 0])
    pool = cupy.get_default_memory_pool()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as client:
            used = pool.used_bytes()
            n, report = count_partitioned(str(ranked), executor="dask", client=client)
            assert_dask_counted_as_count_gpu(report, local, n, expected)
            assert pool.used_bytes() <= used + (1 << 20)  # the release gave it back
            for source, k, budget in ((ranked, 3, None), (plain, None, None), (plain, 4, None),
                                      (ranked, None, 3 << 20)):
                n, report = count_partitioned(str(source), partitions=k, max_memory=budget,
                                              executor="dask", client=client)
                assert n == expected, (source, k, budget)
            n, report = count_partitioned(graph, partitions=2, executor="dask", client=client)
            assert n == expected and {s["where"] for s in report.subproblems} == {"gpu:0"}
    assert PREPARED.key is None


def test_local_cuda_cluster_on_every_gpu(tmp_path):
    # dask-cuda: one worker process per GPU, each seeing its GPU as device 0.
    distributed = pytest.importorskip("distributed")
    dask_cuda = pytest.importorskip("dask_cuda")
    if cupy.cuda.runtime.getDeviceCount() < 2:
        pytest.skip("needs two GPUs")
    graph = rmat_graph(scale=14, seed=59, edge_factor=16)
    expected = tricount.count_triangles(graph, backend="cpu")
    path = tmp_path / "g.ranked.tcsr"
    prepare_ranked(graph, path)
    from tricount.partition import count_partitioned

    with dask_cuda.LocalCUDACluster(n_workers=2, threads_per_worker=1,
                                    dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as client:
            for k in (None, 3):
                n, report = count_partitioned(str(path), partitions=k, executor="dask",
                                              client=client)
                assert n == expected, k
                assert {s["prepared"] for s in report.subproblems} == {"kept"}
                assert len({s["worker"] for s in report.subproblems}) == 2
                assert len(report.devices) == 2


@pytest.mark.parametrize("threads,chunk_blocks", [(1, 1), (4, 2)])
def test_a_tcsr_read_straight_to_the_device_is_the_file(tmp_path, threads, chunk_blocks):
    # Real pinned buffers, streams and events: blocks of 4 KiB, so many chunks in flight.
    from tricount.io import load_graph, native
    from tricount.io.native_gpu import read_to_device

    graph = rmat_graph(scale=12, seed=29, edge_factor=16)
    path = tmp_path / "g.tcsr"
    before, native.BLOCK_BYTES = native.BLOCK_BYTES, 4096
    try:
        write_native(path, graph)
    finally:
        native.BLOCK_BYTES = before
    indptr, indices = read_to_device(native.native_file(str(path)), threads=threads,
                                     chunk_blocks=chunk_blocks, check_entries=10_000)
    host = load_graph(str(path))
    assert np.array_equal(cupy.asnumpy(indptr), host.indptr)
    assert np.array_equal(cupy.asnumpy(indices), host.indices)
    assert count_gpu(str(path))[0] == oracle(graph)


def test_counts_one_after_another_reuse_the_pools_memory():
    # Each count once ran on a stream of its own, and CuPy's pool gives memory freed on a
    # stream only to that stream: every count left its arrays cached for nobody (R-MAT 24
    # under a quarter of its peak: 2.9 GiB more in the pool after each count, on an H200).
    graph = rmat_graph(scale=12, seed=7, edge_factor=16)
    pool = cupy.get_default_memory_pool()
    expected = oracle(graph)
    held = []
    for _ in range(3):
        n, _report = count_gpu(graph, max_memory=8 << 20)
        assert n == expected
        held.append(pool.total_bytes())
    assert held[2] == held[1]


@pytest.mark.parametrize("where", ["host", "device"])
def test_csr_arrays_of_other_integer_types_count_exactly(where):
    # Graph.from_upper_csr takes any integer arrays; the kernels are compiled for int32 or
    # int64 ids and int64 offsets (uint32 ids were read as 64-bit ones before).
    graph = rmat_graph(scale=10, seed=8, edge_factor=16)
    xp = np if where == "host" else cupy
    indptr = xp.asarray(np.asarray(graph.indptr).astype(np.int32))
    indices = xp.asarray(np.asarray(graph.indices).astype(np.uint32))
    made = tricount.Graph.from_upper_csr(indptr, indices, graph.n_vertices, vertex_ids=None)
    expected = oracle(graph)
    assert tricount.count(made, backend="gpu").n_triangles == expected
    for k in (1, 3):
        assert count_gpu(made, partitions=k)[0] == expected
