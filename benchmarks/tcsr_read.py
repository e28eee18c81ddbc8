"""A ``.tcsr`` counted on the GPUs: read straight into device memory, or into host memory first.

Usage (on a GPU machine; the Dask rows need dask, distributed and dask-cuda):

    python benchmarks/tcsr_read.py FILE SCALE WARM_FILE [DASK_TRIALS]

In one process, after an untimed count of ``WARM_FILE`` on one GPU and on all of them:

1. one GPU, ``count_gpu(FILE)``: the file read into host memory first (``host``:
   :func:`tricount.partition.source.reads_file_to_device` forced False, the route before
   :mod:`tricount.io.native_gpu`) and straight to the device (``device``), alternated,
   twice each;
2. with ``DASK_TRIALS``: a ``LocalCUDACluster`` (one worker a GPU), then per trial
   ``count_gpu(FILE, devices="all")`` and ``tricount.count(FILE, backend="dask")``.

One JSON line per count: seconds, count (``ok`` against the count on record for R-MAT
``SCALE``), the process's peak resident set (sampled every 10 ms; the driver's for Dask),
the phases, and per device (pieces, busy s, GiB copied) or per Dask worker (pieces, busy s,
prepare s). CuPy's pools are emptied before every count. The Dask worker processes keep
their pools after a count, so ``devices="all"`` runs before Dask in each trial.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from partition_gpu import HostPeak, free_pools, gib  # noqa: E402

import tricount  # noqa: E402
import tricount.partition.gpu as partition_gpu  # noqa: E402

#: Counts on record (R-MAT, graph500 parameters, edge factor 16, seed 1).
RECORD = {26: 49_175_308_653, 28: 231_480_697_799}
DIRECT = partition_gpu.reads_file_to_device


def run(label: str, scale: int, fn) -> None:
    free_pools()
    with HostPeak() as host:
        t0 = time.perf_counter()
        n, timings, devices = fn()
        seconds = time.perf_counter() - t0
    print(json.dumps({"run": label, "s": round(seconds, 3), "count": n,
                      "ok": n == RECORD.get(scale, n), "host_peak_gib": gib(host.peak),
                      "timings": {k: round(v, 3) for k, v in timings.items()},
                      "devices": devices}), flush=True)


def on_gpus(path: str, devices, mode: str):
    def fn():
        partition_gpu.reads_file_to_device = DIRECT if mode == "device" else (lambda d: False)
        try:
            n, report = partition_gpu.count_gpu(path, devices=devices)
        finally:
            partition_gpu.reads_file_to_device = DIRECT
        return n, report.timings, [(d["items"], round(d["busy_s"], 3), gib(d["bytes_copied"]))
                                   for d in report.devices]
    return fn


def on_dask(path: str, client):
    def fn():
        result = tricount.count(path, backend="dask", client=client)
        part = result.partition
        return result.n_triangles, part["timings"], [
            (d.get("items"), round(d.get("busy_s", 0), 3), round(d.get("prepare_s", 0), 3))
            for d in part.get("devices", [])]
    return fn


def main(argv) -> int:
    path, scale, warm = argv[0], int(argv[1]), argv[2]
    dask_trials = int(argv[3]) if len(argv) > 3 else 0
    partition_gpu.count_gpu(warm)
    partition_gpu.count_gpu(warm, devices="all")
    for mode in ("host", "device", "host", "device"):
        run(f"one GPU, file {mode}", scale, on_gpus(path, None, mode))
    if dask_trials:
        import distributed
        from dask_cuda import LocalCUDACluster

        with LocalCUDACluster(threads_per_worker=1, dashboard_address=":0") as cluster, \
                distributed.Client(cluster) as client:
            tricount.count(warm, backend="dask", client=client)
            for _ in range(dask_trials):
                run("all GPUs, file device", scale, on_gpus(path, "all", "device"))
                run("Dask LocalCUDACluster", scale, on_dask(path, client))
    return 0


if __name__ == "__main__":  # Dask's worker processes import this module again
    sys.exit(main(sys.argv[1:]))
