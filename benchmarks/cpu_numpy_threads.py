"""The NumPy counter on one thread and on several: what its threads win, and its cost-model rates.

    python benchmarks/cpu_numpy_threads.py --graphs karate ca-GrQc email-Enron ca-AstroPh \
        blogcatalog soc-Epinions1 --scales 14 16 18 --rounds 2 \
        --out benchmarks/results/cpu_numpy_threads.md

Per graph (the shared graphs read from ``--data``, R-MAT ``--scales`` with edge factor 16
and seed 1): ``tricount.cpu.wedge_numpy.count_wedges_numpy`` on the cached degree
orientation, on 1 thread and on ``--threads`` (default: the CPU engine's count), alternated
for ``--rounds`` rounds in one process so a shared machine's load falls on both; each cell
is the best round's best of ``--calls``. Every count is checked against the first. The
last lines fit the cost model's ``numpy_count_s_per_edge`` and ``..._per_degree`` (least
squares of seconds per edge against mean degree, as ``benchmarks/calibrate_costs.py``) to
the threaded times of the graphs of 10,000 edges or more.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import tricount  # noqa: E402
from calibrate_costs import fit_count  # noqa: E402
from tricount._threads import thread_count  # noqa: E402
from tricount.cpu.wedge_numpy import count_wedges_numpy  # noqa: E402
from tricount.generate import rmat, rmat_name  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "graphs"


def best_s(oriented, threads: int, calls: int, answer: int) -> float:
    best = float("inf")
    for _ in range(calls):
        t0 = time.perf_counter()
        got = count_wedges_numpy(oriented, threads=threads)
        best = min(best, time.perf_counter() - t0)
        if got != answer:
            raise AssertionError(f"{threads} threads counted {got}, not {answer}")
    return best


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--graphs", nargs="*", default=[], help="shared graph names")
    parser.add_argument("--scales", nargs="*", type=int, default=[])
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--threads", type=int, default=thread_count())
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--calls", type=int, default=5)
    parser.add_argument("--out", default=None, help="markdown file (default: stdout)")
    args = parser.parse_args(argv)
    graphs = [(name, tricount.load_graph(next(Path(args.data).glob(f"{name}.*"))))
              for name in args.graphs]
    graphs += [(rmat_name(s, 16, 1), tricount.Graph.from_edges(*rmat(s, 16, seed=1)))
               for s in args.scales]
    load = os.getloadavg()
    rows, fit = [], []
    for name, g in graphs:
        oriented = g.oriented()
        answer = count_wedges_numpy(oriented, threads=1)
        best = {1: float("inf"), args.threads: float("inf")}
        for _ in range(args.rounds):
            for threads in best:
                best[threads] = min(best[threads], best_s(oriented, threads, args.calls, answer))
        one, many = best[1], best[args.threads]
        mean_degree = 2 * g.n_edges / max(1, g.n_vertices)
        rows.append(f"| {name} | {g.n_edges:,} | {mean_degree:.1f} | {answer:,} | "
                    f"{1e3 * one:.2f} | {1e3 * many:.2f} | {one / many:.2f}x |")
        if g.n_edges >= 10_000:
            fit.append((g.n_edges, mean_degree, many))
        print(rows[-1], file=sys.stderr, flush=True)
    lines = [
        "# The NumPy counter on one thread and on several",
        "",
        f"`python {' '.join([Path(sys.argv[0]).as_posix()] + (argv or sys.argv[1:]))}`",
        "",
        f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; "
        f"{os.cpu_count()} logical CPUs ({platform.processor() or platform.machine()}); "
        f"Python {platform.python_version()}, NumPy {np.__version__}; load average before "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, after "
        + " ".join(f"{x:.2f}" for x in os.getloadavg()) + ".",
        "",
        f"Best of {args.calls} counts, best of {args.rounds} alternated rounds, from the cached "
        "degree orientation (`CSRGraph.oriented()`); every count the same on both.",
        "",
        f"| graph | edges | mean degree | triangles | 1 thread ms | {args.threads} threads ms "
        "| speed-up |",
        "|---|--:|--:|--:|--:|--:|--:|",
        *rows, ""]
    if len(fit) >= 2:
        a, b = fit_count(*zip(*fit))
        lines += [f"Fitted to the {args.threads}-thread times of the {len(fit)} graphs of 10,000 "
                  f"edges or more: `numpy_count_s_per_edge={a:.2g}`, "
                  f"`numpy_count_s_per_edge_per_degree={b:.2g}`.", ""]
    text = "\n".join(lines)
    if args.out:
        Path(args.out).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
