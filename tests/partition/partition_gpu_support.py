"""What the GPU executor's tests share (the emulated ones and the real ones)."""

from __future__ import annotations

import numpy as np

import tricount
import tricount.partition.gpu  # noqa: F401  (binds device_plan's sizes before shrink() patches them)
from tricount import reference
from tricount.generate import rmat


def shrink(monkeypatch) -> None:
    """Sizes that cut everything small: streamed passes of 64 entries, orientation slices of
    about 500 keys, pair chunks of at most 64 entries, owner windows of 128 ranks, host
    copies on several threads, and the rank-ordered CSR never kept on the device."""
    from tricount.gpu import apex, chunks
    from tricount.partition import device_plan

    for name, value in (("RESIDENT_SHARE", 0.0), ("MIN_STAGE_ENTRIES", 64),
                        ("STAGE_ENTRIES", 64), ("STAGE_ROWS", 64), ("STATS_VERTEX_BYTES", 8),
                        ("ORIENT_KEY_BYTES", 2000), ("PAIR_ENTRY_BYTES", 4000),
                        ("MIN_CHUNK_ENTRIES", 8), ("DEVICE_PASS_ENTRIES", 100)):
        monkeypatch.setattr(device_plan, name, value)
    monkeypatch.setattr(apex, "MAX_OWNER_WINDOW", 128)
    monkeypatch.setattr(chunks, "COPY_PIECE_BYTES", 64)


def oracle(graph) -> int:
    """The reference count of a CSRGraph (host or device)."""
    lo, hi = graph.edges()
    to_list = (lambda a: a.get().tolist()) if hasattr(lo, "get") else (lambda a: np.asarray(a).tolist())
    return reference.count_triangles(to_list(lo), to_list(hi))


def rmat_graph(scale=9, seed=3, edge_factor=8):
    return tricount.Graph.from_edges(*rmat(scale, edge_factor, seed=seed), name=f"rmat{scale}")


def ring_of_triangles(n):
    """The square of an n-cycle (n >= 7): n triangles i, i + 1, i + 2, and every oriented
    row two long, so that nearly every pair has an owner of its own (as many tasks as
    owners: the plan's largest per pair)."""
    i = np.arange(n)
    return tricount.Graph.from_edges(np.concatenate([i, i]),
                                     np.concatenate([(i + 1) % n, (i + 2) % n]))


def spy_on_batches(monkeypatch):
    """The (pairs, batch) of every chunk's plan, as :func:`apex.pair_batch` answers them."""
    from tricount.gpu import apex

    seen, real = [], apex.pair_batch
    monkeypatch.setattr(apex, "pair_batch",
                        lambda n_pairs, *a: seen.append((n_pairs, real(n_pairs, *a))) or
                        seen[-1][1])
    return seen


def count_gpu(graph, **kwargs):
    from tricount.partition.gpu import count_gpu

    return count_gpu(graph, **kwargs)


def assert_dask_counted_as_count_gpu(report, local, n, expected) -> None:
    """A Dask count (two workers on one device) counted right, planned and cut as
    ``count_gpu(devices=[0, 0])`` (``local``), every piece on the kept device graph."""
    from tricount.partition.worker_cache import PREPARED

    assert n == expected
    assert report.plan.bounds == local.plan.bounds
    assert sorted((s["rows"], s["owners"]) for s in report.subproblems) == sorted(
        (s["rows"], s["owners"]) for s in local.subproblems)
    assert {s["where"] for s in report.subproblems} == {"gpu:0"}
    assert {s["prepared"] for s in report.subproblems} == {"kept"}
    assert len({s["worker"] for s in report.subproblems}) == 2
    assert report.devices and report.devices[0]["device"] == "gpu:0"
    assert report.devices[0]["resident"] is True
    assert report.timings["prepare_s"] > 0 and PREPARED.key is None


def assert_hook_hears_frees_in_other_threads(cp) -> None:
    """A device's memory hook follows arrays whose last reference another thread drops (a
    sampling profiler that held the counting thread's frame does that): what is alive
    comes back down, the peak stays the one reached."""
    import threading

    from tricount.gpu.device import live_memory_hook

    block = 1 << 20  # a multiple of CuPy's 512-byte allocation unit
    with live_memory_hook("test-other-threads") as hook:
        held = [cp.zeros(block, dtype=cp.uint8) for _ in range(4)]
        assert hook.live == hook.peak == 4 * block
        other = threading.Thread(target=held.clear)  # the four freed over there, unheard
        other.start()
        other.join()
        kept = cp.zeros(block, dtype=cp.uint8)
        assert hook.live == block and hook.peak == 4 * block
        del kept  # heard: nothing alive
        assert hook.live == 0 and hook.peak == 4 * block
