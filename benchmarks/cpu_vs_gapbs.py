"""The CPU engine against GAPBS ``tc`` on the same cores: trial times as GAPBS reports them.

    python benchmarks/cpu_vs_gapbs.py --gapbs .peers/gapbs --scales 18 19 20 21 22 \\
        --graphs all --trials 3 --threads 2 --out benchmarks/results/cpu_vs_gapbs.md

GAPBS (github.com/sbeamer/gapbs) is not part of tricount: fetch it into an ignored
folder (``.peers/gapbs``; ``.peers/`` is in ``.git/info/exclude``) and this script
runs ``make tc converter`` there when the binaries are missing. Per graph:

1. tricount builds the graph (R-MAT: ``rmat(scale, 16, seed=1)``; a shared graph:
   read from ``--data``) and writes each undirected edge once, as compact ids, to a
   plain edge list; GAPBS's ``converter -s`` turns it into its own ``.sg`` file;
2. ``tc -f graph.sg -n TRIALS -a``: GAPBS's "Trial Time" includes its relabelling
   by degree (when its heuristic relabels), its count follows;
3. tricount, in this process, after one untimed warm-up: per trial the CPU
   engine's ``preprocess_s + count_s`` from the built graph (the orientation
   redone every trial) and the process's CPU seconds over the trial.

The two sides alternate per graph, so that both see the same load on a shared
machine. Both counts must agree (exit 4 otherwise). ``--threads`` sets
``OMP_NUM_THREADS`` for GAPBS and Numba's thread count for tricount.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = os.environ.get("TRICOUNT_DATA", str(ROOT.parent / "shared" / "data" / "graphs"))
_TRIAL = re.compile(r"^Trial Time:\s+([\d.]+)", re.MULTILINE)
_COUNT = re.compile(r"^(\d+) triangles", re.MULTILINE)


def build_gapbs(folder: Path) -> tuple[Path, Path]:
    """``(tc, converter)`` in ``folder``, built with its Makefile when missing."""
    tc, converter = folder / "tc", folder / "converter"
    if not (tc.exists() and converter.exists()):
        subprocess.run(["make", "-C", str(folder), "tc", "converter"], check=True,
                       stdout=subprocess.DEVNULL)
    return tc, converter


def shared_graphs(data: Path, names: list[str]) -> list[Path]:
    files = sorted(data.glob("*.txt.gz"))
    if names != ["all"]:
        files = [f for f in files if f.name.split(".")[0] in names]
    return files


def load(spec):
    """``(name, CSRGraph)`` for an R-MAT scale (int) or a graph file (Path)."""
    import tricount
    from tricount.generate import rmat, rmat_name

    if isinstance(spec, int):
        src, dst = rmat(spec, 16, seed=1)
        return rmat_name(spec, 16, 1), tricount.Graph.from_edges(src, dst)
    return spec.name.split(".")[0], tricount.load_graph(spec)


def gapbs_side(graph, name: str, tc: Path, converter: Path, work: Path, trials: int,
               env: dict) -> dict:
    """GAPBS's trial times, its count and its process's CPU seconds (all trials)."""
    from tricount.io import write_snap

    edges, serial = work / f"{name}.el", work / f"{name}.sg"
    lo, hi = graph.edges()
    write_snap(edges, lo, hi)  # no comment lines: GAPBS reads "u v" pairs until the end
    subprocess.run([str(converter), "-f", str(edges), "-s", "-b", str(serial)], check=True,
                   stdout=subprocess.DEVNULL, env=env)
    edges.unlink()
    before = os.times()
    out = subprocess.run([str(tc), "-f", str(serial), "-n", str(trials), "-a"], check=True,
                         capture_output=True, text=True, env=env).stdout
    after = os.times()
    serial.unlink()
    times = [float(t) for t in _TRIAL.findall(out)]
    return {"trials": times, "triangles": int(_COUNT.search(out).group(1)),
            "cpu_s": (after.children_user - before.children_user
                      + after.children_system - before.children_system)}


def tricount_side(graph, trials: int) -> dict:
    """The CPU engine's trial times (orientation + count), counts and CPU seconds."""
    from tricount.backends import get_backend

    cpu, _ = get_backend("cpu")
    cpu.count(graph)  # warm-up: kernels loaded (or compiled), pages touched
    times, cpu_times, counts = [], [], set()
    for _ in range(trials):
        c0 = time.process_time()
        out = cpu.count(graph)
        cpu_times.append(time.process_time() - c0)
        times.append(out.timings["preprocess_s"] + out.timings["count_s"])
        counts.add(out.n_triangles)
    return {"trials": times, "triangles": counts.pop() if len(counts) == 1 else counts,
            "cpu_s": sum(cpu_times), "method": out.method}


def cell(times: list[float]) -> str:
    return f"{statistics.median(times):.4f} ({min(times):.4f}–{max(times):.4f})"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gapbs", default=str(ROOT / ".peers" / "gapbs"),
                        help="GAPBS source folder (built here when its binaries are missing)")
    parser.add_argument("--scales", type=int, nargs="*", default=[18, 19, 20, 21, 22])
    parser.add_argument("--graphs", nargs="*", default=["all"],
                        help="shared graph names, 'all', or none")
    parser.add_argument("--data", default=DEFAULT_DATA, help="folder of the shared graphs")
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--out", default=None, help="markdown file to write (default: stdout)")
    args = parser.parse_args(argv)

    os.environ["NUMBA_NUM_THREADS"] = str(args.threads)  # before Numba is imported
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    tc, converter = build_gapbs(Path(args.gapbs))
    specs = list(args.scales)
    if args.graphs:
        specs += shared_graphs(Path(args.data), args.graphs)
    rows, bad = [], 0
    with tempfile.TemporaryDirectory(prefix="tc-gapbs-") as tmp:
        for spec in specs:
            name, graph = load(spec)
            theirs = gapbs_side(graph, name, tc, converter, Path(tmp), args.trials, env)
            ours = tricount_side(graph, args.trials)
            agree = theirs["triangles"] == ours["triangles"]
            bad += not agree
            speedup = statistics.median(theirs["trials"]) / statistics.median(ours["trials"])
            rows.append(f"| {name} | {graph.n_vertices:,} | {graph.n_edges:,} | "
                        f"{ours['triangles']:,} | {cell(theirs['trials'])} | "
                        f"{theirs['cpu_s']:.2f} | {cell(ours['trials'])} | {ours['cpu_s']:.2f} | "
                        f"{ours['method']} | **{speedup:.2f}x** | {'yes' if agree else 'NO'} |")
            print(rows[-1], file=sys.stderr, flush=True)
    import numba
    import numpy

    head = [
        "# CPU engine vs GAPBS tc",
        "",
        f"- date: {datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')}",
        f"- command: `python benchmarks/cpu_vs_gapbs.py {' '.join(argv or sys.argv[1:])}`",
        f"- machine: {platform.processor() or platform.machine()}, {os.cpu_count()} logical "
        f"CPUs, {platform.platform()}; {args.threads} threads on each side "
        f"(OMP_NUM_THREADS, NUMBA_NUM_THREADS); Numba {numba.__version__} "
        f"({numba.threading_layer()} layer), NumPy {numpy.__version__}",
        "- trial: GAPBS's own \"Trial Time\" (its relabelling by degree included); tricount's "
        "CPU engine from the built graph, orientation included (`preprocess_s + count_s`), "
        "after one untimed warm-up. Cells: median (min–max) seconds over the trials. CPU s: "
        "the process's user + system seconds over all trials (GAPBS: the whole `tc` run, "
        "its file read included).",
        "",
        "| graph | n | m | triangles | GAPBS trial s | GAPBS CPU s | tricount trial s | "
        "tricount CPU s | method | speedup | counts agree |",
        "|---|--:|--:|--:|--:|--:|--:|--:|---|--:|---|",
    ]
    text = "\n".join(head + rows) + "\n"
    if args.out:
        Path(args.out).write_text(text)
    else:
        print(text)
    return 4 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
