"""How fast tricount reads graph files: this tree against a baseline tree and bare CSV parsers.

    python benchmarks/io_load.py [--scale 23] [--edge-factor 12] [--rounds 3]
        [--baseline-src DIR] [--shared] [--out FILE]

Generates (once, in ``--dir``, default /tmp) an R-MAT edge list as SNAP text
(scale 23, edge factor 12: 100.7 M lines, 1.58 GB), then times, in
interleaved rounds so that a noisy machine hurts every reader alike:

* ``tricount``: ``read_graph(path)`` of this tree (parse + canonicalise to a CSRGraph);
* ``baseline``: the same call on the tree at ``--baseline-src`` (e.g. ``git archive
  main src | tar -x -C /tmp/base``), when given;
* ``native``: ``read_graph(path.tcsr)`` of this tree (read + verify the checksums + CSR);
* ``polars``, ``pyarrow``: their bare CSV parse of the same file to two int64
  columns (each skipped when not installed).

Every timed load runs in a fresh process, after an untimed load of a tiny file
there (so Numba's cached kernels are loaded and the timing is the read alone);
the file is in the page cache. The same process reports its peak RSS rise
(VmHWM). With ``--shared`` the tricount readers are also timed on every file
of ``../shared/data/graphs``. One JSON line per timing goes to stdout;
``--out`` writes a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DIR = "/tmp/tricount-io-bench"

#: Timed in a fresh process: prints {"seconds", "cpu_seconds", "rows", "peak_rise_bytes"}.
CHILD = r"""
import json, os, sys, tempfile, time
kind, path = sys.argv[1], sys.argv[2]
def hwm():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmHWM:"))
phases = {}
if kind in ("tricount", "native"):
    from tricount.io import read_graph
    tiny = os.path.join(tempfile.mkdtemp(), "t.txt")
    open(tiny, "w").write("0 1\n1 2\n")
    read_graph(tiny)
    if kind == "native":
        from tricount.graph import CSRGraph
        from tricount.io import write_graph
        write_graph(tiny + ".tcsr", CSRGraph.from_edges([0, 1], [1, 2]))
        read_graph(tiny + ".tcsr")
    def run():
        loaded = read_graph(path)
        phases.update(loaded.timings)
        return loaded.graph.n_edges
elif kind == "polars":
    import polars as pl
    def run():
        return pl.read_csv(path, separator="\t", has_header=False, comment_prefix="#",
                           schema={"src": pl.Int64, "dst": pl.Int64}).height
elif kind == "pyarrow":
    import pyarrow as pa, pyarrow.csv as pacsv
    skip = 0
    with open(path, "rb") as f:
        for line in f:
            if not line.startswith(b"#"):
                break
            skip += 1
    def run():
        return pacsv.read_csv(path, read_options=pacsv.ReadOptions(skip_rows=skip,
            column_names=["s", "d"]), parse_options=pacsv.ParseOptions(delimiter="\t"),
            convert_options=pacsv.ConvertOptions(column_types={"s": pa.int64(),
                                                               "d": pa.int64()})).num_rows
base = hwm()
c0, t0 = time.process_time(), time.perf_counter()
rows = run()
seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
print(json.dumps({"seconds": seconds, "cpu_seconds": cpu, "rows": int(rows),
                  "peak_rise_bytes": hwm() - base, **(phases if kind == "tricount" else {})}))
"""

WHAT = {"tricount": "canonical CSRGraph (parse + dedupe + CSR), this tree",
        "baseline": "canonical CSRGraph, baseline tree",
        "native": "CSRGraph from .tcsr (read + CRC + CSR check)",
        "polars": "two int64 columns (bare parse)",
        "pyarrow": "two int64 columns (bare parse)"}


def make_file(scale: int, edge_factor: int, folder: str) -> str:
    from tricount.generate import rmat, rmat_name
    from tricount.io import write_snap

    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{rmat_name(scale, edge_factor, 1)}.tsv")
    if not os.path.exists(path):
        src, dst = rmat(scale, edge_factor, seed=1)
        write_snap(path, src, dst, comments=[f"R-MAT scale {scale} edge factor {edge_factor}"])
    return path


def timed(kind: str, path: str, src: Path) -> dict:
    """One load of ``path`` by ``kind`` in a fresh process importing tricount from ``src``."""
    env = dict(os.environ, PYTHONPATH=str(src))
    child = "tricount" if kind == "baseline" else kind
    proc = subprocess.run([sys.executable, "-c", CHILD, child, path], env=env,
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def available(kind: str) -> bool:
    if kind in ("polars", "pyarrow"):
        try:
            __import__(kind)
        except ImportError:
            return False
    return True


def versions() -> dict:
    import numba
    import numpy as np

    import tricount

    out = {"python": platform.python_version(), "numpy": np.__version__,
           "numba": numba.__version__, "tricount": tricount.__version__}
    for name in ("polars", "pyarrow", "zstandard"):
        try:
            out[name] = __import__(name).__version__
        except ImportError:
            pass
    return out


def shared_files() -> list:
    """``(name, path)`` of the shared graphs: $TRICOUNT_DATA, else ../shared/data/graphs."""
    folder = Path(os.environ.get("TRICOUNT_DATA") or REPO.parent / "shared" / "data" / "graphs")
    rows = json.loads((folder / "graphs.json").read_text())
    return [(r["name"], str(folder / r["file"])) for r in rows]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=23)
    parser.add_argument("--edge-factor", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dir", default=DEFAULT_DIR)
    parser.add_argument("--baseline-src", help="a src/ folder of the tree to compare against")
    parser.add_argument("--shared", action="store_true",
                        help="also time both trees on every ../shared/data/graphs file")
    parser.add_argument("--out", help="write a Markdown summary here")
    args = parser.parse_args(argv)

    src = REPO / "src"
    base = Path(args.baseline_src) if args.baseline_src else None
    path = make_file(args.scale, args.edge_factor, args.dir)
    native_path = path[: -len(".tsv")] + ".tcsr"
    if not os.path.exists(native_path):
        from tricount.io import read_graph, write_graph

        write_graph(native_path, read_graph(path).graph)
    kinds = ["tricount"] + (["baseline"] if base else []) + ["native", "polars", "pyarrow"]
    kinds = [k for k in kinds if available(k)]
    results = {k: [] for k in kinds}
    load = [os.getloadavg()[0]]
    for r in range(args.rounds):
        for kind in kinds:
            got = timed(kind, native_path if kind == "native" else path,
                        base if kind == "baseline" else src)
            results[kind].append(got)
            print(json.dumps({"reader": kind, "round": r, **got}), flush=True)
    shared = {}
    if args.shared:
        for name, file in shared_files():
            for kind in ["tricount"] + (["baseline"] if base else []):
                runs = [timed(kind, file, base if kind == "baseline" else src)["seconds"]
                        for _ in range(args.rounds)]
                shared.setdefault(name, {})[kind] = min(runs)
                print(json.dumps({"reader": kind, "graph": name, "best_s": min(runs)}),
                      flush=True)
    load.append(os.getloadavg()[0])
    if args.out:
        write_summary(args, path, native_path, results, shared, load)
    return 0


def write_summary(args, path, native_path, results, shared, load):
    size, native_size = os.path.getsize(path), os.path.getsize(native_path)
    rows = results["tricount"][0]["rows"]
    command = ("python benchmarks/io_load.py " + " ".join(
        a for a in sys.argv[1:]))
    lines = [
        "# Reading graph files: tricount's streaming reader, its baseline and bare CSV parsers",
        "",
        f"- Date: {time.strftime('%Y-%m-%d')}. Machine: {os.cpu_count()} cores "
        f"({platform.processor() or platform.machine()}), Linux, shared VM (other work "
        f"running: 1-minute load average {load[0]:.1f} before, {load[1]:.1f} after).",
        "- Versions: " + ", ".join(f"{k} {v}" for k, v in versions().items()) + ".",
        f"- Command: `{command}`",
        f"- File: `{os.path.basename(path)}` (generated, not committed), R-MAT (graph500 "
        f"parameters, seed 1) as SNAP text: {size / 1e6:.0f} MB, {rows:,} edge lines, "
        f"tab-separated; its native binary `{os.path.basename(native_path)}`: "
        f"{native_size / 1e6:.0f} MB.",
        f"- Each timing is one load in a fresh process after an untimed tiny load there "
        f"(Numba kernels loaded), file in the page cache; {args.rounds} rounds interleaved "
        "across readers. Peak = rise of the process's peak RSS during the load.",
        "",
        "| reader | what it produces | best s | median s | best MB/s | vs polars (best) "
        "| CPU s (best) | peak MB |",
        "|---|---|---|---|---|---|---|---|",
    ]
    polars = min(r["seconds"] for r in results["polars"]) if "polars" in results else None
    for kind, runs in results.items():
        secs = [r["seconds"] for r in runs]
        nbytes = native_size if kind == "native" else size
        best = min(secs)
        ratio = f"{polars / best:.2f}x" if polars and kind != "native" else ""
        peak = max(r["peak_rise_bytes"] for r in runs) / 1e6
        cpu = min(r["cpu_seconds"] for r in runs)
        lines.append(f"| {kind} | {WHAT[kind]} | {best:.2f} | {statistics.median(secs):.2f} | "
                     f"{nbytes / 1e6 / best:.0f} | {ratio} | {cpu:.2f} | {peak:.0f} |")
    for kind in ("tricount", "baseline"):
        runs = [r for r in results.get(kind, ()) if "load_s" in r]
        if runs:
            best = min(runs, key=lambda r: r["seconds"])
            ratio = f"; polars' bare parse / this parse = {polars / best['load_s']:.2f}x" \
                if polars else ""
            lines.append(f"- {kind}, its fastest load: parse (read + parse, `load_s`) "
                         f"{best['load_s']:.2f} s, build (dedupe + CSR, `build_s`) "
                         f"{best['build_s']:.2f} s{ratio}.")
    lines += ["", "\"vs polars\" is polars' time over the reader's (above 1: faster than "
                  "polars' bare parse, which builds no graph). CPU s is the process's CPU "
                  "time (all threads) during the load: on a shared machine it is steadier "
                  "than the wall time."]
    if shared:
        lines += ["", "The shared graphs (`../shared/data/graphs`, gzip), best of "
                      f"{args.rounds} loads each, seconds:", "",
                  "| graph | tricount | baseline | tricount / baseline |", "|---|---|---|---|"]
        total = {"tricount": 0.0, "baseline": 0.0}
        for name, row in shared.items():
            base = row.get("baseline")
            total["tricount"] += row["tricount"]
            total["baseline"] += base or 0.0
            ratio = f"{row['tricount'] / base:.2f}" if base else ""
            lines.append(f"| {name} | {row['tricount']:.3f} | "
                         f"{'' if base is None else f'{base:.3f}'} | {ratio} |")
        if total["baseline"]:
            lines.append(f"| all | {total['tricount']:.3f} | {total['baseline']:.3f} | "
                         f"{total['tricount'] / total['baseline']:.2f} |")
    lines.append("")
    with open(args.out, "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
