"""The GPU executor's orchestration, run on the CPU with CuPy and its kernels emulated.

fake_cupy replaces CuPy by NumPy and each kernel by an emulation of its .cu
contract that checks the argument types against the C signature, appends keys
in a random order and checks tc_hash's preconditions. What this proves: the
chunking (rows cut across chunks, pinned-buffer streaming, several pair chunks,
owner windows, orientation slices), the residency choices, the plans, the
pieces of several devices and the Dask hook give exact counts, for block
counts from 1 to 8; and, with every emulated array and CuPy's workspaces
accounted, that a count's device memory stays within its budget and that the
device's own hook reports it. The real kernels are judged in
test_partition_gpu.py on a GPU, every block count from 1 to 8.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tricount
from tricount.errors import InvalidArgumentError, TricountError

sys.path.insert(0, str(Path(__file__).parent))
import fake_cupy  # noqa: E402
import emulated_gpu  # noqa: E402
from partition_gpu_support import count_gpu as gpu_count  # noqa: E402
from partition_gpu_support import (assert_dask_counted_as_count_gpu,  # noqa: E402
                                   assert_hook_hears_frees_in_other_threads, oracle,
                                   ring_of_triangles, rmat_graph, spy_on_batches)

from graphs import NAMED, NOISY, complete_graph  # noqa: E402

ALL_NAMED = {**NAMED, **NOISY}
fake_gpu, tiny = emulated_gpu.fake_gpu, emulated_gpu.tiny  # the fixtures, shared


class FixedTimer:
    """The benchmarks' KernelTimer's interface, every region 0.25 s."""

    def __init__(self, host_syncs=False):
        self.seconds = 0.25

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_named_graphs(fake_gpu):
    for name, (src, dst, n_triangles, _) in sorted(ALL_NAMED.items()):
        graph = tricount.Graph.from_edges(src, dst)
        for k in (1, 3, 8):
            n, report = gpu_count(graph, partitions=k)
            assert n == n_triangles, (name, k)
            assert report.n_subproblems == k and report.executor == "gpu"


def test_rmat_resident_auto_is_one_whole_block(fake_gpu, monkeypatch):
    from tricount.partition import device_plan

    monkeypatch.setattr(device_plan, "DEVICE_PASS_ENTRIES", 100)  # passes in many chunks
    monkeypatch.setattr(device_plan, "MIN_STAGE_ENTRIES", 64)
    graph = rmat_graph()
    n, report = gpu_count(graph)
    assert n == oracle(graph)
    assert report.n_subproblems == 1 and "fits the device" in report.reason
    assert report.devices[0]["resident"] is True
    for k in (2, 5, 8):
        assert gpu_count(graph, partitions=k)[0] == n


def test_rmat_streamed_in_small_pieces(fake_gpu, tiny):
    graph = rmat_graph(scale=8)
    expected = oracle(graph)
    for k in (None, 3):
        n, report = gpu_count(graph, partitions=k, max_memory=1 << 20)
        assert n == expected, k
        assert report.devices[0]["resident"] is False
        assert report.devices[0]["bytes_copied"] > 0


def test_graph_on_the_device(fake_gpu, tiny):
    graph = rmat_graph(scale=8, seed=5).to_device(fake_gpu)
    expected = oracle(rmat_graph(scale=8, seed=5))
    assert gpu_count(graph, partitions=2, max_memory=1 << 20)[0] == expected


def test_graph_on_another_device_and_kernel_seconds(monkeypatch):
    import tricount.gpu

    with fake_cupy.installed(monkeypatch, device_count=2) as cp:
        monkeypatch.setattr(tricount.gpu, "probe", lambda: (True, "GPU fake"))
        graph = rmat_graph(seed=5)
        n, report = gpu_count(graph.to_device(cp), devices=[1], timer=FixedTimer)
    assert n == oracle(graph)
    assert report.devices[0]["device"] == "gpu:1" and report.devices[0]["kernel_s"] > 0
    assert report.timings["kernel_s"] == report.devices[0]["kernel_s"]


def test_ranked_file_needs_no_orientation(fake_gpu, tmp_path):
    from tricount.partition import prepare_ranked

    graph = rmat_graph(seed=7)
    path = tmp_path / "g.ranked.tcsr"
    prepare_ranked(graph, path)
    expected = oracle(graph)
    for k in (1, 4):
        n, report = gpu_count(str(path), partitions=k)
        assert n == expected
    assert report.graph["edges"] == graph.n_edges


def test_two_workers_on_one_device(fake_gpu):
    graph = rmat_graph(scale=10, seed=2)
    expected = oracle(graph)
    for devices, k in (([0, 0], None), ((0, 0, 0), 3), ("all", 2)):
        n, report = gpu_count(graph, devices=devices, partitions=k)
        assert n == expected, devices
        assert len(report.devices) == (1 if devices == "all" else len(devices))
        assert sum(d["items"] for d in report.devices) == len(report.subproblems)
    assert [d["device"] for d in gpu_count(graph, devices=[0, 0])[1].devices] == \
        ["gpu:0", "gpu:0#1"]


@pytest.mark.parametrize("small", [False, True])
@pytest.mark.parametrize("per_device", [1, 2, 3])
@pytest.mark.parametrize("workers", [2, 3, 4])
def test_the_whole_range_is_cut_by_owner(fake_gpu, monkeypatch, workers, per_device, small):
    """Devices that keep the rank-ordered CSR cut its one range by owner: the pieces' owner
    ranges tile the ranks, each streams every anchor (from the CSR's offsets), and each
    counts what the CPU counts for the same piece (the edges it owns), their sum the
    reference. ``small``: chunks of 300 entries (rows cut across them) and owner windows
    of 64 ranks inside each piece's range."""
    from tricount.gpu import apex
    from tricount.partition import device_plan
    from tricount.partition import pieces as partition_pieces
    from tricount.partition import ranked_csr
    from tricount.partition.cpu import count_subproblem
    from tricount.partition.plan import SubProblem

    monkeypatch.setattr(partition_pieces, "OWNER_PIECES_PER_DEVICE", per_device)
    if small:
        monkeypatch.setattr(apex, "MAX_OWNER_WINDOW", 64)
        monkeypatch.setattr(device_plan.DevicePlan, "chunk_entries", lambda *_: 300)

    def no_row_per_entry(self, a, t):
        raise AssertionError("an owner piece read a row per entry")

    monkeypatch.setattr(fake_cupy.Kernel, "tc_slice_block_pairs", no_row_per_entry)
    graph = rmat_graph(scale=9, seed=7 + workers)
    n, report = gpu_count(graph, devices=[0] * workers)
    assert n == oracle(graph)
    nv = graph.n_vertices
    owners = sorted(s["owners"] for s in report.subproblems)
    assert owners[0][0] == 0 and owners[-1][1] == nv and len(owners) <= per_device * workers
    assert all(a[1] == b[0] for a, b in zip(owners, owners[1:]))
    assert {s["rows"] for s in report.subproblems} == {(0, nv)}
    r = ranked_csr(graph)
    for s in report.subproblems:
        piece = SubProblem(0, 0, nv, s["entries"], 0, 0, owner_lo=s["owners"][0],
                           owner_hi=s["owners"][1])
        assert count_subproblem(r, piece)["n_triangles"] == s["n_triangles"], s["owners"]


@pytest.mark.parametrize("off_by", [-1, 1])
def test_an_owner_piece_with_other_pairs_than_planned_stops_the_count(fake_gpu, monkeypatch,
                                                                      off_by):
    from tricount.partition import pieces as partition_pieces

    real = partition_pieces.owner_pieces

    def miscounted(*args, **kwargs):
        pieces = real(*args, **kwargs)
        return [pieces[0].__class__(**{**pieces[0].__dict__, "pairs": pieces[0].pairs + off_by})
                ] + pieces[1:]

    monkeypatch.setattr(partition_pieces, "owner_pieces", miscounted)
    with pytest.raises(TricountError, match="where the plan counted"):
        gpu_count(rmat_graph(scale=9, seed=4), devices=[0, 0])


def test_a_chunk_with_other_pairs_than_its_count_stops_the_count(fake_gpu, monkeypatch):
    # Each chunk of an anchor range's pair stream is checked against its own count of the
    # same predicate (tc_slice_block_pair_count): one pair more there must refuse the count.
    real = fake_cupy.Kernel.tc_slice_block_pair_count

    def one_more(self, a, t):
        real(self, a, t)
        a[-1][0] += np.uint64(1)

    monkeypatch.setattr(fake_cupy.Kernel, "tc_slice_block_pair_count", one_more)
    with pytest.raises(TricountError, match="pairs qualify; refusing to count"):
        gpu_count(rmat_graph(scale=9, seed=4))


def test_pairs_of_many_owners_are_planned_in_batches_within_the_budget(fake_gpu, monkeypatch):
    # Sized for the common case (PAIR_ENTRY_BYTES), a chunk of pairs with an owner each
    # would plan past the budget in one batch (2.9 MB here under 2 MiB); in batches sized
    # by the plan's bytes per pair and per task it stays within it, and counts exactly.
    from tricount.gpu.device import live_memory_hook

    batches = spy_on_batches(monkeypatch)
    budget = 2 << 20
    with live_memory_hook("test-batches") as hook:
        n, report = gpu_count(ring_of_triangles(20_000), max_memory=budget)
    assert n == 20_000
    assert report.devices[0]["resident"] is True
    assert any(batch < n_pairs for n_pairs, batch in batches), batches
    assert hook.peak <= budget, (hook.peak, budget)


@pytest.mark.parametrize("budget", [5 << 19, 4 << 20])
def test_int64_ids_stay_within_the_budget(fake_gpu, budget):
    # 8 B an entry of a pass's chunk is one chunk's rows of int64 ids: the orientation's
    # slices must let a chunk's rows go before the next chunk's are made (2.64 MB under
    # 2.5 MiB when both were alive).
    from tricount.cpu.engine import count as count_cpu
    from tricount.gpu.device import live_memory_hook

    graph = rmat_graph(scale=14, seed=23, edge_factor=16)
    wide = tricount.Graph.from_upper_csr(np.asarray(graph.indptr),
                                         np.asarray(graph.indices).astype(np.int64),
                                         graph.n_vertices, vertex_ids=None)
    with live_memory_hook("test-int64") as hook:
        n, _report = gpu_count(wide, max_memory=budget)
    assert n == count_cpu(graph).n_triangles
    assert hook.peak <= budget, (hook.peak, budget)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 10**7), st.integers(0, 10**7), st.integers(0, 10**5),
       st.integers(0, 10**10))
def test_a_pair_batch_is_the_most_pairs_whose_plan_fits(n_pairs, owners, extra, room):
    from tricount.errors import UnsupportedGraphError
    from tricount.gpu.apex import PLAN_PAIR_BYTES, PLAN_TASK_BYTES, pair_batch

    owners = min(owners, n_pairs)

    def need(w):
        return PLAN_PAIR_BYTES * w + PLAN_TASK_BYTES * min(w, owners + extra)

    try:
        batch = pair_batch(n_pairs, owners, extra, room)
    except UnsupportedGraphError:
        assert need(1) > room
        return
    assert 1 <= batch <= n_pairs
    assert need(batch) <= room
    assert batch == n_pairs or need(batch + 1) > room


def test_counts_one_after_another_reuse_their_streams(fake_gpu, monkeypatch):
    # CuPy's pool gives memory freed on a stream only to that stream: a stream made per
    # count would keep every count's arrays cached for nobody (test_partition_gpu.py checks
    # the pool on a real GPU). Workers at once hold streams of their own: a block one frees
    # while its kernels are queued must not reach the other's copies.
    from tricount.partition import device_worker

    monkeypatch.setattr(device_worker, "_FREE_STREAMS", {})
    taken = []
    take = device_worker.take_stream
    monkeypatch.setattr(device_worker, "take_stream",
                        lambda device_id: taken.append(take(device_id)) or taken[-1])
    graph = rmat_graph(scale=8, seed=2)
    for _ in range(2):
        gpu_count(graph, devices=[0, 0])
    first, second = taken[:2], taken[2:]
    assert len(second) == 2 and first[0] is not first[1]
    assert {id(s) for s in second} == {id(s) for s in first}
    assert len(device_worker._FREE_STREAMS[0]) == 2  # both given back


@pytest.mark.parametrize("case", ["uint32 ids", "int16 ids", "uint64 ids", "big-endian ids",
                                  "int32 offsets on the device", "strided ids on the device"])
def test_csr_arrays_of_other_types_and_layouts_are_counted(fake_gpu, case):
    # Graph.from_upper_csr takes any integer arrays; the kernels read int32/int64 ids and
    # int64 offsets, contiguous (a report-only sweep found these raising under the
    # emulation; on a GPU they would have been read as other ids).
    graph = rmat_graph(scale=8, seed=6)
    indptr, indices = np.asarray(graph.indptr), np.asarray(graph.indices)
    dtype = {"uint32 ids": np.uint32, "int16 ids": np.int16, "uint64 ids": np.uint64,
             "big-endian ids": np.dtype(">i4")}.get(case)
    if dtype is not None:
        made = tricount.Graph.from_upper_csr(indptr, indices.astype(dtype), graph.n_vertices,
                                             vertex_ids=None)
    elif case == "int32 offsets on the device":
        made = tricount.Graph.from_upper_csr(fake_gpu.asarray(indptr.astype(np.int32)),
                                             fake_gpu.asarray(indices), graph.n_vertices,
                                             vertex_ids=None)
    else:
        spread = np.zeros(2 * indices.shape[0], dtype=indices.dtype)
        spread[::2] = indices
        made = tricount.Graph.from_upper_csr(fake_gpu.asarray(indptr),
                                             fake_gpu.asarray(spread)[::2], graph.n_vertices,
                                             vertex_ids=None)
    for kwargs in ({}, {"partitions": 3}, {"devices": [0, 0]}):
        assert gpu_count(made, **kwargs)[0] == oracle(graph), kwargs


def test_a_graph_on_the_device_is_synchronized_before_the_workers_read_it(fake_gpu,
                                                                          monkeypatch):
    # The caller's arrays may still be being written on the caller's stream, which the
    # workers' non-blocking streams do not wait for.
    import fake_cupy
    from tricount.partition import device_worker

    events = []
    monkeypatch.setattr(fake_cupy.Device, "synchronize", lambda self: events.append("sync"))
    take = device_worker.take_stream
    monkeypatch.setattr(device_worker, "take_stream",
                        lambda device_id: events.append("stream") or take(device_id))
    graph = rmat_graph(scale=7, seed=3)
    on_device = graph.to_device(fake_gpu)
    assert gpu_count(on_device)[0] == oracle(graph)
    assert events[:2] == ["sync", "stream"]


def test_the_layouts_benchmark_runs(monkeypatch, capsys):
    """benchmarks/partition_layouts.py on two emulated devices (a graph built on the host,
    a timer of fixed seconds): a JSON line per cell, every layout's count one GPU's, and
    the module's layout put back."""
    import json

    import tricount.gpu
    from tricount.generate import rmat
    from tricount.partition import pieces as partition_pieces

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    import partition_layouts

    with fake_cupy.installed(monkeypatch, device_count=2):
        monkeypatch.setattr(tricount.gpu, "probe", lambda: (True, "GPU fake"))
        monkeypatch.setattr(partition_layouts, "KernelTimer", FixedTimer)
        monkeypatch.setattr(partition_layouts, "host_rmat", lambda scale: tricount.Graph.from_edges(
            *rmat(scale, 8, seed=1)))
        assert partition_layouts.main(["--scales", "9", "--trials", "1", "--rounds", "1"]) == 0
    cells = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [c["run"] for c in cells] == [
        "one GPU", "all GPUs, anchors", "all GPUs, owners, 1 a device",
        "all GPUs, owners, 2 a device", "all GPUs, owners, 3 a device", "GPUs 0 and 1, anchors",
        "GPUs 0 and 1, owners, 2 a device"]
    assert len({c["count"] for c in cells}) == 1
    assert {p["owners"][0] for p in cells[3]["pieces"]} != {0}  # cut by owner
    assert partition_pieces.OWNER_PIECES_PER_DEVICE == 2


@pytest.mark.parametrize("why", ["off", "large"])
def test_owner_pieces_off_cuts_by_anchor(fake_gpu, monkeypatch, why):
    """Off, or a graph large enough for more anchor pieces than PIECES_PER_DEVICE a
    device: the whole range is cut by anchor."""
    from tricount.partition import pieces as partition_pieces

    if why == "off":
        monkeypatch.setattr(partition_pieces, "OWNER_PIECES_PER_DEVICE", 0)
    else:
        monkeypatch.setattr(partition_pieces, "PIECE_MAX_ENTRIES", 100)
    graph = rmat_graph(scale=9, seed=4)
    n, report = gpu_count(graph, devices=[0, 0])
    assert n == oracle(graph)
    assert {s["owners"] for s in report.subproblems} == {(0, graph.n_vertices)}
    assert len({s["rows"] for s in report.subproblems}) == len(report.subproblems) > 1


@pytest.mark.parametrize("route", ["exchange", "assembled"])
@pytest.mark.parametrize("workers", [2, 3, 4, 8])
def test_workers_share_the_preparation(fake_gpu, monkeypatch, workers, route):
    """Several workers copy a share of a host graph each, and count exactly: the bytes copied
    from the host add up to the graph once, not once per worker. ``exchange``: each groups
    its rows' keys by share and the groups cross (passes of few entries); ``assembled``:
    orientation slices too small for one share each send every worker back to the older
    route (the whole graph on each, several slices a share)."""
    from tricount.gpu import apex
    from tricount.partition import device_plan, shared_prep

    monkeypatch.setattr(device_plan, "DEVICE_PASS_ENTRIES", 100)
    if route == "assembled":  # 500-1100 keys a slice; 8 workers have an eighth of the memory
        monkeypatch.setattr(device_plan, "ORIENT_KEY_BYTES", 1_600_000 // max(workers, 4))
    shared, slices = [], []
    real = shared_prep.prepare
    monkeypatch.setattr(shared_prep, "prepare", lambda *a, **k: shared.append(1) or real(*a, **k))
    bounds = apex.slice_bounds
    monkeypatch.setattr(apex, "slice_bounds",
                        lambda *a: slices.append(len(bounds(*a))) or bounds(*a))
    graph = rmat_graph(scale=10, seed=workers)
    expected = oracle(graph)
    for k in (None, 2, 5):
        n, report = gpu_count(graph, devices=[0] * workers, partitions=k)
        assert n == expected, k
        steps = report.devices[-1]["prepare_steps"]
        assert ("exchanging the keys" in steps) is (route == "exchange"), steps
        assert ("copying the graph from the other devices" in steps) is (route == "assembled")
    assert len(shared) == 3
    if route == "assembled":
        assert min(slices) > 1  # every share oriented in several slices
    else:
        assert slices == []  # nothing oriented slice by slice
    copied = sum(d["bytes_copied"] for d in report.devices)
    alone = gpu_count(graph, devices=[0])[1].devices[0]["bytes_copied"]
    assert alone >= 4 * graph.n_edges and copied < 1.5 * alone  # not `workers` times


def _no_room_beside_the_csr(monkeypatch):
    """Device plans as for R-MAT 29 on an H100: the rank-ordered CSR stays, but the graph is
    not copied to the device before it (no ``upload_first``)."""
    import dataclasses

    from tricount.partition import device_worker

    real = device_worker.plan_device
    monkeypatch.setattr(device_worker, "plan_device", lambda *a, **k: dataclasses.replace(
        real(*a, **k), upload_first=False))


@pytest.mark.parametrize("workers", [2, 3, 4])
def test_workers_copy_the_first_devices_preparation(fake_gpu, monkeypatch, workers):
    """A graph that every device keeps in rank order but cannot hold beside it (so the shares
    cannot stay): device 0 prepares it alone and the others copy its
    rank-ordered CSR, exact for every k; the host graph crosses the link once, not once per
    worker."""
    from tricount.partition import device_plan

    monkeypatch.setattr(device_plan, "DEVICE_PASS_ENTRIES", 100)
    _no_room_beside_the_csr(monkeypatch)
    graph = rmat_graph(scale=10, seed=20 + workers)
    expected = oracle(graph)
    for k in (None, 2, 5):
        n, report = gpu_count(graph, devices=[0] * workers, partitions=k)
        assert n == expected, k
        steps = report.devices[-1]["prepare_steps"]
        assert "copying the rank-ordered CSR from the first device" in steps, steps
        assert sum(d["items"] for d in report.devices) == len(report.subproblems)
    copied = sum(d["bytes_copied"] for d in report.devices)
    alone = gpu_count(graph, devices=[0])[1].devices[0]["bytes_copied"]
    assert copied == alone


@pytest.mark.parametrize("devices, through_host, room", [
    ([0, 1], False, True), ([0, 1, 1], False, True), ([1, 0], True, True),
    ([0, 1], True, False)])
def test_a_graph_on_the_first_device_is_prepared_there_for_the_others(monkeypatch, devices,
                                                                       through_host, room):
    """A graph on the first of several devices (host edge arrays built there): that device
    prepares it from its own memory and the others copy the rank-ordered CSR, nothing crossing
    the host; on a device that is not the first, or with no room beside it there (``room``
    False: its plan refuses), it goes through the host as before."""
    import tricount.gpu
    from tricount.errors import UnsupportedGraphError
    from tricount.partition import device_plan
    from tricount.partition.device_worker import DeviceWorker
    from tricount.partition.source import GraphSource

    to_host = []
    real = GraphSource.to_host
    monkeypatch.setattr(GraphSource, "to_host", lambda self: to_host.append(1) or real(self))
    if not room:
        plan = DeviceWorker.plan_memory

        def no_room_beside(self, source, *args):
            if source.device == self.device_id:
                raise UnsupportedGraphError("no room beside the graph")
            return plan(self, source, *args)

        monkeypatch.setattr(DeviceWorker, "plan_memory", no_room_beside)
    with fake_cupy.installed(monkeypatch, device_count=2) as cp:
        monkeypatch.setattr(tricount.gpu, "probe", lambda: (True, "GPU fake"))
        monkeypatch.setattr(device_plan, "DEVICE_PASS_ENTRIES", 100)
        graph = rmat_graph(scale=10, seed=31)
        on_device = graph.to_device(cp)
        for k in (None, 3):
            n, report = gpu_count(on_device, devices=devices, partitions=k)
            assert n == oracle(graph), k
            if through_host:
                continue
            steps = report.devices[-1]["prepare_steps"]
            assert "copying the rank-ordered CSR from the first device" in steps, steps
            assert sum(d["bytes_copied"] for d in report.devices) == 0
    assert len(to_host) == (2 if through_host else 0)


def test_a_wrong_copy_of_the_first_devices_preparation_stops_the_count(fake_gpu, monkeypatch):
    from tricount.errors import TricountError

    _no_room_beside_the_csr(monkeypatch)
    done = _corrupting(monkeypatch, lambda dst: dst.size > 0 and dst.dtype.itemsize == 8)
    with pytest.raises(TricountError, match="copies of the oriented graph differ"):
        gpu_count(rmat_graph(scale=9, seed=5), devices=[0, 0])
    assert done


def test_workers_share_a_graph_in_rank_order(fake_gpu):
    """Ids that already are (degree, id) ranks, not marked so: the summed degrees say so, and
    the workers take the older route without orienting."""
    import numpy as np

    graph = rmat_graph(scale=9, seed=6)
    degree = np.diff(graph.indptr) + np.bincount(graph.indices, minlength=graph.n_vertices)
    rank = np.empty(graph.n_vertices, dtype=np.int64)
    rank[np.lexsort((np.arange(graph.n_vertices), degree))] = np.arange(graph.n_vertices)
    src = np.repeat(np.arange(graph.n_vertices), np.diff(graph.indptr))
    ranked = tricount.Graph.from_edges(rank[src], rank[graph.indices])
    n, report = gpu_count(ranked, devices=[0, 0, 0])
    assert n == oracle(graph)
    steps = report.devices[0]["prepare_steps"]
    assert "copying the graph from the other devices" in steps and "exchanging the keys" \
        not in steps


def _corrupting(monkeypatch, wanted):
    """Zero the destination of the first peer copy for which ``wanted(dst)`` holds."""
    from tricount.gpu import peers

    real, done = peers.copy_from_peer, []

    def copy(dst, src, stream):
        real(dst, src, stream)
        if not done and wanted(dst):
            done.append(1)
            dst[...] = 0

    monkeypatch.setattr(peers, "copy_from_peer", copy)
    return done


def test_workers_check_the_keys_they_exchange(fake_gpu, monkeypatch):
    """A group of keys that crossed wrong (here: zeros) stops the count: every device would
    otherwise copy the same wrong rows, which step 8's comparison cannot see."""
    import numpy as np

    from tricount.errors import TricountError

    done = _corrupting(monkeypatch, lambda dst: dst.dtype == np.uint64 and dst.size)
    with pytest.raises(TricountError, match="received differ from those sent"):
        gpu_count(rmat_graph(scale=9, seed=4), devices=[0, 0])
    assert done


@pytest.mark.parametrize("route", ["exchange", "assembled"])
def test_workers_compare_their_oriented_graphs(fake_gpu, monkeypatch, route):
    """A peer copy of the orientation that went wrong (here: zeros) stops the count."""
    from tricount.errors import TricountError
    from tricount.partition import device_plan, shared_prep

    if route == "assembled":
        monkeypatch.setattr(device_plan, "ORIENT_KEY_BYTES", 400_000)
    graph = rmat_graph(scale=9, seed=4)
    step8 = []  # set while the devices copy each other's oriented rows
    real = shared_prep._gather_oriented
    monkeypatch.setattr(shared_prep, "_gather_oriented",
                        lambda *a: step8.append(1) or real(*a))

    def wanted(dst):
        return bool(step8) and dst.size > 0

    done = _corrupting(monkeypatch, wanted)
    with pytest.raises(TricountError, match="copies of the oriented graph differ"):
        gpu_count(graph, devices=[0, 0])
    assert done


def test_workers_share_a_ranked_file(fake_gpu, tmp_path, monkeypatch):
    from tricount.partition import prepare_ranked, shared_prep

    shared = []
    real = shared_prep.prepare
    monkeypatch.setattr(shared_prep, "prepare", lambda *a, **k: shared.append(1) or real(*a, **k))
    graph = rmat_graph(scale=9, seed=8)
    ranked = tmp_path / "ranked.tcsr"
    prepare_ranked(graph, ranked)
    # Read into host memory, the devices share its preparation; the file itself, each device
    # reads it straight into its memory (tricount.io.native_gpu) and prepares it alone.
    for source, shares in ((tricount.io.load_graph(str(ranked)), True), (str(ranked), False)):
        before = len(shared)
        n, report = gpu_count(source, devices=[0, 0, 0])
        assert n == oracle(graph) and (len(shared) > before) == shares
        assert sum(d["items"] for d in report.devices) == len(report.subproblems)


def test_two_workers_streamed(fake_gpu, tiny):
    graph = rmat_graph(seed=11)
    n, report = gpu_count(graph, devices=[0, 0], max_memory=1 << 20)
    assert n == oracle(graph)
    assert report.device_balance() is not None


def test_complete_graph(fake_gpu, tiny):
    from math import comb

    graph = tricount.Graph.from_edges(*complete_graph(40))
    assert gpu_count(graph, partitions=4, max_memory=1 << 20)[0] == comb(40, 3)


def test_dask_hook_counts_each_subproblem(fake_gpu):
    from tricount.partition import plan_graph, ranked_csr
    from tricount.partition.blocks import column_block
    from tricount.partition.gpu import count_subproblem

    graph = rmat_graph(seed=13)
    r = ranked_csr(graph)
    plan = plan_graph(r, partitions=4)
    results = [count_subproblem(r, sub) for sub in plan.subproblems()]
    assert sum(res["n_triangles"] for res in results) == oracle(graph)
    assert {res["where"] for res in results} == {"gpu:0"}
    sub = plan.subproblems()[-1]
    with_block = count_subproblem(r, sub, block=column_block(r, sub.apex_lo, sub.apex_hi))
    assert with_block["n_triangles"] == results[-1]["n_triangles"]


def test_api_and_result(fake_gpu):
    graph = rmat_graph(seed=17)
    result = tricount.count(graph, backend="gpu", partitions=3)
    assert result.n_triangles == oracle(graph)
    assert result.backend == "gpu" and result.method == "hash"
    part = result.to_dict()["partition"]
    assert part["subproblems"] == 3 and part["why"] == "partitions=3 requested"
    assert part["devices"][0]["device"] == "gpu:0"


def test_devices_beyond_the_machine(fake_gpu):
    with pytest.raises(InvalidArgumentError, match="1 GPU"):
        gpu_count(rmat_graph(), devices=2)


def test_api_partitions_only_when_the_graph_does_not_fit(fake_gpu, tiny, monkeypatch):
    from tricount.partition import device_plan

    monkeypatch.setattr(device_plan, "ORIENT_KEY_BYTES", 100)
    monkeypatch.setattr(device_plan, "PAIR_ENTRY_BYTES", 200)
    graph = rmat_graph(scale=8, seed=19)
    # The in-memory count's sliced preparation holds the graph and its oriented copy
    # (about 32 KB here): 28 KB cannot hold them, the partitioned count can.
    result = tricount.count(graph, backend="gpu", max_memory=28_000)
    assert result.n_triangles == oracle(graph)
    assert result.partition["why"].startswith("the in-memory count does not fit")
    assert result.partition["devices"][0]["budget"] == 28_000


def test_ranked_file_written_from_the_gpu(fake_gpu, tmp_path):
    from tricount.io import load_graph
    from tricount.partition import prepare_ranked

    graph = rmat_graph(scale=8, seed=23)
    cpu_path, gpu_path = tmp_path / "cpu.tcsr", tmp_path / "gpu.tcsr"
    prepare_ranked(graph, cpu_path)
    prepare_ranked(graph, gpu_path, backend="gpu")
    a, b = load_graph(cpu_path), load_graph(gpu_path)
    for x, y in ((a.indptr, b.indptr), (a.indices, b.indices), (a.vertex_ids, b.vertex_ids)):
        assert (x == y).all()


@pytest.mark.parametrize("scale, budget", [(14, 3 << 19), (14, 3 << 20)],
                         ids=["rmat14-1.5MiB-streamed", "rmat14-3MiB-resident"])
def test_memory_stays_within_the_budget(fake_gpu, scale, budget):
    resident_expected = budget == 3 << 20
    # test_partition_gpu.py's scenario and the API's, with every emulated array accounted as
    # CuPy's pool reports it to its hooks (sort, argsort, mask and nonzero workspaces too).
    # R-MAT 14 under 1.5 MiB: the rank-ordered CSR is oriented into host memory in slices,
    # streamed back and cut into two apex ranges; under 3 MiB it stays on the device.
    from tricount.cpu.engine import count as count_cpu
    from tricount.gpu.device import live_memory_hook

    graph = rmat_graph(scale=scale, seed=23, edge_factor=16)
    with live_memory_hook("test-budget") as hook:
        n, report = gpu_count(graph, max_memory=budget)
    assert n == count_cpu(graph).n_triangles
    assert report.devices[0]["resident"] is (report.n_subproblems == 1) is resident_expected
    reported = report.devices[0]["peak_bytes"]
    # The device's own hook hears every free of what it saw allocated: its peak is one the
    # whole count reached, not arrays of an earlier step counted again.
    assert 0 < reported <= hook.peak, (reported, hook.peak)
    # What the plan promises, with the emulated workspaces; the GPU test's 1 MiB of slack
    # is for CuPy's and CUB's sizes that the emulation only estimates.
    assert hook.peak <= budget, (hook.peak, budget)
    assert reported <= budget + (1 << 20)


def test_the_memory_hook_hears_frees_in_other_threads(fake_gpu):
    assert_hook_hears_frees_in_other_threads(fake_gpu)


@pytest.mark.parametrize("cache", [False, True], ids=["streamed-thrice", "prefix-kept"])
def test_a_streamed_graph_is_oriented_by_scattering(fake_gpu, monkeypatch, cache):
    # R-MAT 14 under 2 MiB: the rank-ordered CSR (0.9 MiB) stays on the device but the
    # host graph does not fit beside it, so one pass scatters every edge into its row and
    # the rows are sorted on the device in five slices (the emulated tc_hash asserts that
    # every owner's list is sorted). With the cache, the rows that fit the rest stay on
    # the device after the first pass, and fewer bytes cross.
    from tricount.cpu.engine import count as count_cpu
    from tricount.gpu.device import live_memory_hook
    from tricount.partition import device_plan

    monkeypatch.setattr(device_plan, "MIN_CACHE_BYTES", 0 if cache else 1 << 62)
    graph = rmat_graph(scale=14, seed=23, edge_factor=16)
    expected, budget = count_cpu(graph).n_triangles, 2 << 20
    copied = {}
    for k in (None, 3, 8):
        with live_memory_hook("test-scatter") as hook:
            n, report = gpu_count(graph, partitions=k, max_memory=budget)
        assert n == expected, k
        assert "one scattering pass" in report.reason
        assert ("kept on the device after the first pass" in report.reason) is cache
        assert ("cached_rows" in report.devices[0]) is cache
        assert hook.peak <= budget, (hook.peak, budget)
        copied[k] = report.devices[0]["bytes_copied"]
    # Three passes (degrees, oriented degrees, scatter) over the 0.9 MB of the host graph,
    # or one and two over what the cache does not hold.
    csr = graph.indptr.nbytes + graph.indices.nbytes
    assert copied[None] < (2 if cache else 4) * csr


def test_a_scattered_row_left_short_stops_the_count(fake_gpu, monkeypatch):
    real = fake_cupy.Kernel.tc_slice_scatter

    def loses_an_edge(self, a, t):
        lo, hi, rank, n, cursor, cols = a
        real(self, (lo, hi, rank, np.int64(max(0, int(n) - 1)), cursor, cols), t)

    monkeypatch.setattr(fake_cupy.Kernel, "tc_slice_scatter", loses_an_edge)
    with pytest.raises(TricountError, match="did not fill every row"):
        gpu_count(rmat_graph(scale=14, seed=23, edge_factor=16), max_memory=2 << 20)


@pytest.mark.parametrize("sort_keys", [1 << 30, 3000], ids=["one-slice", "many-slices"])
def test_scattered_orientation_equals_the_sliced_one(fake_gpu, sort_keys):
    # The same rank-ordered CSR, array for array, whatever order the scatter's atomics
    # took: rows sorted slice by slice (chunks of 100 entries cut long rows into pieces).
    from tricount.gpu import apex
    from tricount.gpu.chunks import DeviceCSR

    graph = rmat_graph(scale=11, seed=7, edge_factor=16)
    upper = DeviceCSR(fake_gpu.asarray(graph.indptr), fake_gpu.asarray(graph.indices))
    n, m = graph.n_vertices, graph.n_edges
    deg = apex.degrees(upper, n, 100)
    rank = apex.degree_rank(deg.astype(fake_gpu.int64), n, graph.indices.dtype)
    out = apex.oriented_degrees(upper, n, rank, 100)
    sliced = apex.orient(upper, n, m, rank, out, slice_keys=2000, max_entries=100)
    indptr, cols = apex.scatter_oriented(upper, n, m, rank, out, max_entries=100)
    apex.sort_rows(indptr, cols, n, sort_keys=sort_keys, max_entries=100)
    assert (indptr == sliced[0]).all() and (cols == sliced[1]).all()


def _dask_cluster(n_workers=2):
    distributed = pytest.importorskip("distributed")
    # Threads of this process, so the emulated CuPy serves the workers too.
    cluster = distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1,
                                       processes=False, dashboard_address=":0")
    return cluster, distributed.Client(cluster)


def test_dask_workers_plan_and_count_on_the_device(fake_gpu, tmp_path):
    # The planning worker prepares the file on its device and plans there as count_gpu
    # does (one range whose block is the CSR itself, cut into pieces of about equal owner
    # work read back from the device); every piece finds the kept device graph.
    from tricount.io import write_native
    from tricount.partition import count_partitioned, prepare_ranked

    graph = rmat_graph(seed=41)
    expected = oracle(graph)
    ranked, plain = tmp_path / "g.ranked.tcsr", tmp_path / "g.tcsr"
    prepare_ranked(graph, ranked)
    write_native(plain, graph)
    _, local = gpu_count(str(ranked), devices=[0, 0])  # two device workers, one process
    cluster, client = _dask_cluster()
    with cluster, client:
        n, report = count_partitioned(str(ranked), executor="dask", client=client)
        assert_dask_counted_as_count_gpu(report, local, n, expected)
        for source, k in ((ranked, 3), (plain, None), (plain, 4)):  # the plain one: ranked there
            n, report = count_partitioned(str(source), partitions=k, executor="dask",
                                          client=client)
            assert n == expected, (source, k)
            assert report.n_subproblems == (k or 1)
        n, report = count_partitioned(graph, partitions=2, executor="dask", client=client)
        assert n == expected and {s["where"] for s in report.subproblems} == {"gpu:0"}


def test_dask_workers_stream_a_graph_the_device_does_not_keep(fake_gpu, tiny, tmp_path):
    # The rank-ordered CSR never stays on the device: the plan is the least k whose blocks
    # fit, from the in-degrees read back; the pieces stream their rows from the host.
    from tricount.io import write_native
    from tricount.partition import count_partitioned, prepare_ranked

    graph = rmat_graph(scale=8, seed=43)
    expected = oracle(graph)
    ranked, plain = tmp_path / "g.ranked.tcsr", tmp_path / "g.tcsr"
    prepare_ranked(graph, ranked)
    write_native(plain, graph)
    cluster, client = _dask_cluster()
    with cluster, client:
        for source, k, budget in ((ranked, None, 1 << 20), (ranked, 3, None),
                                  (plain, None, 1 << 20)):
            n, report = count_partitioned(str(source), partitions=k, max_memory=budget,
                                          executor="dask", client=client)
            assert n == expected, (source, k)
            assert all(d["resident"] is False for d in report.devices)


def test_dask_gpu_failure_frees_the_device_graph(fake_gpu, tmp_path):
    from tricount.errors import TricountError
    from tricount.partition import prepare_ranked
    from tricount.partition.dask_executor import ClusterCount
    from tricount.partition.plan import SubProblem
    from tricount.partition.worker_cache import PREPARED

    graph = rmat_graph(seed=47)
    path = tmp_path / "g.ranked.tcsr"
    prepare_ranked(graph, path)
    cluster, client = _dask_cluster(1)
    with cluster, client:
        with pytest.raises(TricountError, match="do not fit"):
            with ClusterCount(str(path), client=client) as run:
                run.plan()
                held = PREPARED._value
                assert held.worker is not None
                run.count([SubProblem(0, 0, graph.n_vertices + 1, 1, 1, 0)])
        assert PREPARED.key is None and held.worker is None


def test_a_hash_kernel_is_launched_once_on_no_tasks_before_its_first_count(fake_gpu,
                                                                          monkeypatch):
    # gpu/methods/hash.py: a variant's first real launch ran 1.1 s longer on an H100 unless
    # the kernel had been launched once before; that launch must count nothing.
    from tricount.gpu.methods import hash as hash_method
    from tricount.gpu.plan import HashShape

    made, launches = {}, []  # one kernel object per variant, as get_kernel's cache keeps it
    monkeypatch.setattr(hash_method, "get_kernel", lambda stem, name, defines: made.setdefault(
        (stem, name, tuple(sorted(defines.items()))), fake_cupy.get_kernel(stem, name, defines)))
    monkeypatch.setattr(hash_method, "_LAUNCHED", set())
    monkeypatch.setattr(hash_method, "launch", lambda k, grid, block, args, shared=0: (
        launches.append(args), k((grid,), (block,), args, shared_mem=shared)))
    shape = HashShape().resolve(1000)
    cols = fake_gpu.zeros(10, dtype=fake_gpu.int32)
    for _ in range(3):
        hash_method.hash_kernel(shape, cols, 10, 4)
    hash_method.hash_kernel(shape, cols, 10, 4, stem="listing", name="tc_list_count")  # not it
    assert len(launches) == 1
    n_block_tasks, n_tasks, result = launches[0][6], launches[0][7], launches[0][10]
    assert n_block_tasks == 0 and n_tasks == 0 and int(result[0]) == 0  # (emulated) kernel ran
