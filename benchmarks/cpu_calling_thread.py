"""Small graphs on the CPU: the engine's count on the calling thread against in parallel regions.

    python benchmarks/cpu_calling_thread.py --graphs karate jazz ca-GrQc oregon1_010331 \
        ca-HepTh ppi ego-Facebook email-Enron --rounds 2 --out benchmarks/results/cpu_calling_thread.md

Per graph (read from ``--data``) and method (bitmap, merge): the CPU engine's count
(``tricount.cpu.engine.count``: orientation and count, from the built graph) with every
kernel on the calling thread (its serial twin, ``tricount.prep._parallel``) and with every
kernel in a parallel region, by setting the engine's ``SERIAL_MAX_EDGES`` above or below
the graph. The two alternate for ``--rounds`` rounds in one process (a shared machine's load
falls on both); each cell is the best round's median of ``--calls`` counts after a warm-up.
The crossover chooses ``tricount._threads.SERIAL_MAX_EDGES``.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import tricount  # noqa: E402
from tricount._threads import SERIAL_MAX_EDGES, load_numba  # noqa: E402
from tricount.cpu import engine  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "graphs"


def median_ms(graph, method: str, calls: int) -> tuple[float, int]:
    answer = engine.count(graph, method=method).n_triangles  # warm-up (and compile)
    times = []
    for _ in range(calls):
        t0 = time.perf_counter()
        got = engine.count(graph, method=method).n_triangles
        times.append(time.perf_counter() - t0)
        if got != answer:
            raise AssertionError(f"the count changed: {answer} then {got}")
    return 1e3 * statistics.median(times), answer


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--graphs", nargs="+", required=True, help="shared graph names")
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--methods", nargs="+", default=["bitmap", "merge"])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--calls", type=int, default=40)
    parser.add_argument("--out", default=None, help="markdown file (default: stdout)")
    args = parser.parse_args(argv)
    numba = load_numba()
    rows = []
    for name in args.graphs:
        [path] = sorted(Path(args.data).glob(f"{name}.*"))[:1] or [None]
        if path is None:
            raise SystemExit(f"no graph {name!r} in {args.data}")
        graph = tricount.load_graph(path)
        for method in args.methods:
            best = {"calling thread": float("inf"), "parallel regions": float("inf")}
            answers = set()
            for _ in range(args.rounds):
                for side, cap in (("calling thread", 1 << 62), ("parallel regions", 0)):
                    engine.SERIAL_MAX_EDGES = cap
                    ms, answer = median_ms(graph, method, args.calls)
                    best[side] = min(best[side], ms)
                    answers.add(answer)
            engine.SERIAL_MAX_EDGES = SERIAL_MAX_EDGES
            if len(answers) != 1:
                raise AssertionError(f"{name} {method}: the two ways disagree: {answers}")
            on, par = best["calling thread"], best["parallel regions"]
            rows.append(f"| {name} | {graph.n_edges:,} | {method} | {on:.3f} | {par:.3f} | "
                        f"{par / on:.2f}x | {'calling thread' if on < par else 'parallel'} |")
            print(rows[-1], flush=True)
    head = [
        "# The CPU engine's count on the calling thread against in parallel regions",
        "",
        f"- date: {datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')}",
        f"- command: `python benchmarks/cpu_calling_thread.py {' '.join(argv or sys.argv[1:])}`",
        f"- machine: {platform.machine()}, {os.cpu_count()} logical CPUs, {platform.platform()}; "
        f"Numba {numba.__version__}, {numba.get_num_threads()} threads "
        f"({numba.threading_layer() if hasattr(numba, 'threading_layer') else '?'} layer)",
        f"- cells: ms, the best of {args.rounds} rounds' medians of {args.calls} counts; "
        f"tricount's SERIAL_MAX_EDGES is {SERIAL_MAX_EDGES:,}",
        "",
        "| graph | m | method | calling thread ms | parallel regions ms | parallel / calling | faster |",
        "|---|--:|---|--:|--:|--:|---|",
    ]
    (Path(args.out).write_text if args.out else print)("\n".join(head + rows) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
