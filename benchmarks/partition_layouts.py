"""Pieces by owner against pieces by anchor on several GPUs, alternated in one process (issue 22).

Usage (on a machine with two GPUs or more):

    python benchmarks/partition_layouts.py --scales 26 25 --per-device 0 1 2 3 --rounds 2

For each R-MAT scale (graph500 parameters, edge factor 16, seed 1, built on the GPU into
host memory): one GPU, then ``--rounds`` rounds of every layout on all GPUs and, for
``--two`` layouts, on GPUs 0 and 1. A layout is ``OWNER_PIECES_PER_DEVICE`` of
:mod:`tricount.partition.gpu`: 0 cuts the whole range by anchor (3 pieces a device), k > 0
by owner (k a device). Each cell is the best of ``--trials`` counts after an untimed one,
``count_gpu(graph, devices=..., timer=KernelTimer)``, CuPy's pools emptied first; every
count must equal one GPU's. One JSON line per cell: end to end and slowest kernel seconds
with their speed-ups over one GPU, the pieces' kernel seconds summed, the devices' balance
(slowest over mean, busy and kernel), the phases and, per piece, its anchors, owners,
estimate, kernel and count seconds and device.

The tables of ``benchmarks/results/partition_gpu_h100x4.md`` (2026-11-27, runs 1-3) were
made by the same loop run from a session script before this file was committed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from partition_gpu import free_pools, host_rmat, sync_all  # noqa: E402

import tricount.partition.gpu as partition_gpu  # noqa: E402
import tricount.partition.pieces as partition_pieces  # noqa: E402
from tricount.bench.gpu_timer import KernelTimer  # noqa: E402


def best_of(graph, devices, trials: int):
    """``(seconds, n_triangles, report, every trial's seconds)`` of the fastest trial."""
    partition_gpu.count_gpu(graph, devices=devices, timer=KernelTimer)
    sync_all()
    best, seconds = None, []
    for _ in range(trials):
        t0 = time.perf_counter()
        n, report = partition_gpu.count_gpu(graph, devices=devices, timer=KernelTimer)
        sync_all()
        seconds.append(time.perf_counter() - t0)
        if best is None or seconds[-1] < best[0]:
            best = (seconds[-1], n, report)
    return (*best, seconds)


def cell(scale: int, label: str, result, base) -> dict:
    seconds, n, report, trials = result
    kernel = report.timings.get("kernel_s")
    return {
        "scale": scale, "run": label, "s": round(seconds, 4),
        "trials_s": [round(t, 4) for t in trials], "count": n,
        "speed_up": round(base[0] / seconds, 3) if base else 1.0,
        "kernel_s": kernel, "kernel_speed_up": round(base[1] / kernel, 3) if base and kernel
        else 1.0,
        "pieces_kernel_s": round(sum(p["kernel_s"] or 0 for p in report.subproblems), 4),
        "balance_busy": report.device_balance(),
        "balance_kernel": report.device_balance("kernel_s"),
        "phases": {k: round(v, 4) for k, v in report.timings.items()},
        "pieces": [{"rows": p["rows"], "owners": p["owners"], "work": p["estimated_work"],
                    "kernel_s": p["kernel_s"], "count_s": round(p["count_s"], 4),
                    "where": p["where"]} for p in report.subproblems],
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", type=int, nargs="+", default=[26, 25])
    parser.add_argument("--per-device", type=int, nargs="+", default=[0, 1, 2, 3],
                        help="layouts: owner pieces a device, 0 for anchor pieces")
    parser.add_argument("--two", type=int, nargs="*", default=[0, 2],
                        help="layouts also run on GPUs 0 and 1")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--trials", type=int, default=3)
    args = parser.parse_args(argv)
    kept = partition_pieces.OWNER_PIECES_PER_DEVICE
    try:
        for scale in args.scales:
            graph = host_rmat(scale)
            one = best_of(graph, [0], args.trials)
            base = (one[0], one[2].timings["kernel_s"])
            print(json.dumps(cell(scale, "one GPU", one, None)), flush=True)
            for _ in range(args.rounds):
                runs = [(per, "all") for per in args.per_device]
                runs += [(per, [0, 1]) for per in args.two]
                for per, devices in runs:
                    partition_pieces.OWNER_PIECES_PER_DEVICE = per
                    free_pools()
                    result = best_of(graph, devices, args.trials)
                    if result[1] != one[1]:
                        raise SystemExit(f"R-MAT {scale}: {result[1]} triangles on {devices} "
                                         f"with layout {per}, {one[1]} on one GPU")
                    where = "all GPUs" if devices == "all" else "GPUs 0 and 1"
                    layout = f"owners, {per} a device" if per else "anchors"
                    print(json.dumps(cell(scale, f"{where}, {layout}", result, base)),
                          flush=True)
            graph = None
            free_pools()
    finally:
        partition_pieces.OWNER_PIECES_PER_DEVICE = kept
    return 0


if __name__ == "__main__":
    sys.exit(main())
