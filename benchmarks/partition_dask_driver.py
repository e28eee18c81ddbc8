"""What a partitioned count of a ranked ``.tcsr`` costs before any sub-problem runs.

For each R-MAT scale (graph500 parameters, edge factor 16, seed 1; the file written once by
``tricount.partition.prepare_ranked`` beside this run, in ``--folder``):

- ``driver``: what a process that plans a file itself does (the CPU executor, and the Dask
  driver until the plan moved to the workers): ``ranked_csr(path)`` (read, verify, rank
  check) and ``plan_graph`` (probes per apex, the plan), wall and CPU seconds, best of two;
- ``cluster``: :meth:`tricount.partition.dask_executor.ClusterCount.plan` on a fresh
  ``LocalCluster`` of 2 worker processes (their Numba caches loaded on a tiny graph first):
  the driver's wait and CPU seconds (the client's threads, not the graph), the planning
  worker's read and statistics, and the other workers' reads, which run meanwhile.

Run::

    PYTHONPATH=src python benchmarks/partition_dask_driver.py --scales 20 21 22
"""

from __future__ import annotations

import argparse
import os
import time

import tricount
from tricount.generate import rmat
from tricount.partition import plan_graph, prepare_ranked, ranked_csr


def _clock(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def _file(folder: str, scale: int) -> str:
    path = os.path.join(folder, f"rmat{scale}.ranked.tcsr")
    if not os.path.exists(path):
        prepare_ranked(tricount.Graph.from_edges(*rmat(scale, 16, seed=1)), path)
    return path


def main() -> None:
    from distributed import Client, LocalCluster

    from tricount.partition.dask_executor import ClusterCount

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scales", type=int, nargs="+", default=[20, 21, 22])
    ap.add_argument("--partitions", type=int, default=4)
    ap.add_argument("--folder", default=".")
    args = ap.parse_args()
    tiny = _file(args.folder, 8)
    tricount.count(tiny, backend="cpu", partitions=2)  # Numba's caches, here
    for scale in args.scales:
        path = _file(args.folder, scale)
        best = None
        for _ in range(2):
            r, w1, c1 = _clock(lambda p=path: ranked_csr(p))
            _, w2, c2 = _clock(lambda g=r: plan_graph(g, partitions=args.partitions))
            best = min(best or (w1, c1, w2, c2), (w1, c1, w2, c2), key=lambda t: t[0] + t[2])
            m = r.n_edges
            del r
        print(f"R-MAT {scale} (m={m}) driver: read+rank check wall {best[0]:.3f} cpu "
              f"{best[1]:.3f}; plan wall {best[2]:.3f} cpu {best[3]:.3f}", flush=True)
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          dashboard_address=":0") as cluster, Client(cluster) as client:
            client.run(lambda: tricount.count(tiny, backend="cpu", partitions=2) and None)
            with ClusterCount(path, client=client, partitions=args.partitions) as run:
                facts, w, c = _clock(run.plan)
            reads = [round(o["open_s"], 3) for o in run.ready]
        print(f"R-MAT {scale} cluster: driver wait {w:.3f} cpu {c:.3f}; planning worker read "
              f"{facts['open_s']:.3f}, statistics and plan {facts['statistics_s']:.3f}; "
              f"the other workers' reads {reads}", flush=True)


if __name__ == "__main__":
    main()
