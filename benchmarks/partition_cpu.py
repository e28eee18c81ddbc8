"""The CPU executor of partitioned counting against the CPU engine's bitmap count.

One R-MAT graph (graph500 parameters, edge factor 16, seed 1), built once;
then, interleaved trial by trial so that both sides see the same machine
load: the CPU engine's bitmap count on its degree-oriented CSR
(``tricount.cpu.bitmap.count_bitmap``) and the partitioned count of the
rank-ordered CSR with k = 1, 2, 4, 8 forced apex ranges (block extraction
included). Preparation is timed once per side: ``CSRGraph.oriented()`` (NumPy
sort) against the Numba rank orientation and the plan's statistics. One
untimed warm-up, the median and the best of the trials' wall times and the
median of their CPU times (user + system of the process: on a shared machine
the fairer measure of work, with ``OMP_WAIT_POLICY=passive`` so that idle
threads do not spin), every count checked equal. Run::

    OMP_WAIT_POLICY=passive PYTHONPATH=src python benchmarks/partition_cpu.py --scale 18
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time

import numba
import numpy as np

from tricount.cpu.bitmap import count_bitmap
from tricount.generate import rmat
from tricount.graph import CSRGraph
from tricount.partition import plan_graph
from tricount.partition.cpu import count_subproblem
from tricount.partition.ranked import rank_graph


def timed(fn, cpu=None):
    """``(fn(), wall seconds)``; with a list ``cpu``, also append the process's CPU seconds."""
    t0, c0 = time.perf_counter(), time.process_time()
    value = fn()
    if cpu is not None:
        cpu.append(time.process_time() - c0)
    return value, time.perf_counter() - t0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=18)
    parser.add_argument("--trials", type=int, default=7)
    parser.add_argument("--ks", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--generate-on", choices=("cpu", "gpu"), default="cpu",
                        help="draw and build the graph with NumPy or CuPy (then moved to the "
                             "host); the counts always run on the CPU")
    args = parser.parse_args(argv)
    if args.generate_on == "gpu":
        import cupy

        graph = CSRGraph.from_edges(*rmat(args.scale, 16, seed=1, xp=cupy)).to_device(np)
    else:
        graph = CSRGraph.from_edges(*rmat(args.scale, 16, seed=1))
    prep = {"orient": [], "rank": [], "plan": []}
    for _ in range(3):  # preparation: best of three (the first loads the compiled kernels)
        graph._oriented = None
        oriented, t = timed(graph.oriented)
        prep["orient"].append(t)
        ranked, t = timed(lambda: rank_graph(graph))
        prep["rank"].append(t)
        _, t = timed(lambda: plan_graph(ranked, partitions=1))
        prep["plan"].append(t)
    orient_s, rank_s, plan_s = (min(prep[key]) for key in ("orient", "rank", "plan"))
    plans = {k: plan_graph(ranked, partitions=k) for k in args.ks}
    subs = {k: plans[k].subproblems() for k in args.ks}

    def partitioned(k):
        return sum(count_subproblem(ranked, s)["n_triangles"] for s in subs[k])

    expected = count_bitmap(oriented)  # warm-up of both sides
    for k in args.ks:
        assert partitioned(k) == expected, k
    times = {"engine": []} | {k: [] for k in args.ks}
    cpu = {"engine": []} | {k: [] for k in args.ks}
    for _ in range(args.trials):
        n, t = timed(lambda: count_bitmap(oriented), cpu["engine"])
        assert n == expected
        times["engine"].append(t)
        for k in args.ks:
            n, t = timed(lambda: partitioned(k), cpu[k])
            assert n == expected, k
            times[k].append(t)
    engine, engine_min = statistics.median(times["engine"]), min(times["engine"])
    print(f"R-MAT {args.scale}: n={graph.n_vertices:,} m={graph.n_edges:,} "
          f"triangles={expected:,}; {numba.get_num_threads()} threads, {platform.processor()}")
    print(f"preparation: engine degree orientation {orient_s:.3f} s; rank orientation "
          f"{rank_s:.3f} s + plan statistics {plan_s:.3f} s")
    engine_cpu = statistics.median(cpu["engine"])
    print("| count | median s | over engine | best s | over engine | median CPU s "
          "| over engine | work imbalance | largest block (MB) |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|")
    print(f"| engine bitmap | {engine:.3f} | 1.00 | {engine_min:.3f} | 1.00 | {engine_cpu:.3f} "
          "| 1.00 | | |")
    for k in args.ks:
        t, best, c = statistics.median(times[k]), min(times[k]), statistics.median(cpu[k])
        print(f"| partitioned k={k} | {t:.3f} | {t / engine:.2f} | {best:.3f} "
              f"| {best / engine_min:.2f} | {c:.3f} | {c / engine_cpu:.2f} "
              f"| {plans[k].imbalance:.2f} | {max(plans[k].memory) / 1e6:.1f} |")
    # Does the work estimate predict time? Each sub-problem of the largest k alone, timed.
    k = max(args.ks)
    print(f"\nper sub-problem at k={k} (estimated work: probes + entries):")
    print("| range | entries | estimated work | median s | ns per unit |")
    print("|---|--:|--:|--:|--:|")
    for sub in subs[k]:
        t = statistics.median(timed(lambda: count_subproblem(ranked, sub))[1]
                              for _ in range(args.trials))
        print(f"| {sub.apex_lo}..{sub.apex_hi} | {sub.entries:,} | {sub.work:,} | {t:.4f} "
              f"| {1e9 * t / max(sub.work, 1):.2f} |")
    print(json.dumps({"scale": args.scale, "trials": {str(k): v for k, v in times.items()}}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
