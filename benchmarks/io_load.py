"""How fast tricount reads a large edge list, against bare CSV parsers on the same file.

    python benchmarks/io_load.py [--scale 20] [--edge-factor 16] [--rounds 5] [--out FILE]

Generates (once) an R-MAT edge list as SNAP text (scale 20, edge factor 16:
16.8 M lines, ~233 MB), then measures, in interleaved rounds so that a noisy
machine hurts every reader alike:

* ``tricount``: ``read_graph(path)``, parse + canonicalise to a CSRGraph;
* ``native``: ``read_graph(path.tcsr)``, map + verify, then to a CSRGraph
  (whose COO rows are derived only when read);
* ``polars``, ``pyarrow``, ``pandas``: their bare CSV parse of the same file
  to two int64 columns (each skipped when not installed);
* ``polars+from_edges``: polars' parse, then ``CSRGraph.from_edges`` (the same
  canonical graph tricount builds, by the generic sort-based path).

Each round is timed after one untimed warm-up per reader; the best and the
median round are reported, as MB/s of the file's size. Peak memory of the
tricount load is the rise of the peak RSS in a fresh process (after a warm-up
on a tiny file, so the Numba kernels are loaded), compared with the final
CSRGraph arrays. One JSON line per timed round goes to stdout; ``--out``
writes a Markdown summary.
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

import numpy as np

DEFAULT_DIR = "/tmp/tricount-io-bench"


def make_file(scale: int, edge_factor: int, folder: str) -> str:
    from tricount.generate import rmat, rmat_name
    from tricount.io import write_snap

    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{rmat_name(scale, edge_factor, 1)}.tsv")
    if not os.path.exists(path):
        src, dst = rmat(scale, edge_factor, seed=1)
        write_snap(path, src, dst, comments=[f"R-MAT scale {scale} edge factor {edge_factor}"])
    return path


def comment_lines(path) -> int:
    n = 0
    with open(path, "rb") as f:
        for line in f:
            if not line.startswith(b"#"):
                return n
            n += 1
    return n


def readers(path, native_path):
    from tricount.io import read_graph

    out = {}
    timings = {}

    def ours():
        loaded = read_graph(path)
        timings["tricount"] = dict(loaded.timings)
        return loaded.graph.n_edges

    def native():
        loaded = read_graph(native_path)
        timings["native"] = dict(loaded.timings)
        return loaded.graph.n_edges

    out["tricount"] = ours
    out["native"] = native
    try:
        import polars as pl

        def polars():
            df = pl.read_csv(path, separator="\t", has_header=False, comment_prefix="#",
                             schema={"src": pl.Int64, "dst": pl.Int64})
            return df.height

        out["polars"] = polars

        def polars_graph():
            from tricount.graph import CSRGraph

            df = pl.read_csv(path, separator="\t", has_header=False, comment_prefix="#",
                             schema={"src": pl.Int64, "dst": pl.Int64})
            g = CSRGraph.from_edges(df["src"].to_numpy(), df["dst"].to_numpy())
            return g.n_edges

        out["polars+from_edges"] = polars_graph
    except ImportError:
        pass
    try:
        import pyarrow as pa
        import pyarrow.csv as pacsv

        skip = comment_lines(path)  # pyarrow has no comment option

        def pyarrow():
            table = pacsv.read_csv(
                path, read_options=pacsv.ReadOptions(skip_rows=skip, column_names=["s", "d"]),
                parse_options=pacsv.ParseOptions(delimiter="\t"),
                convert_options=pacsv.ConvertOptions(column_types={"s": pa.int64(),
                                                                   "d": pa.int64()}))
            return table.num_rows

        out["pyarrow"] = pyarrow
    except ImportError:
        pass
    try:
        import pandas as pd

        def pandas():
            df = pd.read_csv(path, sep="\t", comment="#", header=None, names=["s", "d"],
                             dtype=np.int64, engine="c")
            return len(df)

        out["pandas"] = pandas
    except ImportError:
        pass
    return out, timings


def peak_memory(path) -> dict:
    """Peak-RSS rise of a tricount load in a fresh process, and the final arrays' bytes."""
    # VmHWM, not ru_maxrss: the latter keeps the forking parent's peak across exec.
    code = f"""
import json, os, tempfile
from tricount.io import load_graph
def hwm():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmHWM:"))
tiny = os.path.join(tempfile.mkdtemp(), "t.txt")
open(tiny, "w").write("0 1\\n1 2\\n")
load_graph(tiny)
base = hwm()
g = load_graph({path!r})
peak = hwm()
lo, hi = g.edges()
final = g.indptr.nbytes + lo.nbytes + hi.nbytes + g.vertex_ids.nbytes
print(json.dumps({{"peak_rise_bytes": peak - base, "final_bytes": int(final)}}))
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def versions() -> dict:
    import numba

    import tricount

    out = {"python": platform.python_version(), "numpy": np.__version__,
           "numba": numba.__version__, "tricount": tricount.__version__}
    for name in ("polars", "pyarrow", "pandas"):
        try:
            out[name] = __import__(name).__version__
        except ImportError:
            pass
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=20)
    parser.add_argument("--edge-factor", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--dir", default=DEFAULT_DIR)
    parser.add_argument("--out", help="write a Markdown summary here")
    args = parser.parse_args(argv)

    from tricount.io import read_graph, write_graph

    path = make_file(args.scale, args.edge_factor, args.dir)
    native_path = path[: -len(".tsv")] + ".tcsr"
    if not os.path.exists(native_path):
        write_graph(native_path, read_graph(path).graph)
    size = os.path.getsize(path)
    native_size = os.path.getsize(native_path)
    with open(path, "rb") as f:
        n_lines = sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 24), b""))

    load_before = os.getloadavg()
    fns, split = readers(path, native_path)
    for fn in fns.values():  # warm-up: JIT caches, page cache
        fn()
    seconds = {name: [] for name in fns}
    phases = {name: [] for name in ("tricount", "native")}
    for r in range(args.rounds):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            rows = fn()
            dt = time.perf_counter() - t0
            seconds[name].append(dt)
            nbytes = native_size if name == "native" else size
            record = {"reader": name, "round": r, "seconds": round(dt, 4),
                      "mb_per_s": round(nbytes / 1e6 / dt, 1), "rows": int(rows)}
            if name in split:
                phases[name].append(split[name])
                record.update({k: round(v, 4) for k, v in split[name].items()})
            print(json.dumps(record), flush=True)
    load_after = os.getloadavg()
    memory = peak_memory(path)
    print(json.dumps({"memory": memory, "loadavg_1min": [load_before[0], load_after[0]]}),
          flush=True)

    if args.out:
        write_summary(args, path, size, native_path, native_size, n_lines, seconds, phases,
                      memory, (load_before[0], load_after[0]))
    return 0


def write_summary(args, path, size, native_path, native_size, n_lines, seconds, phases,
                  memory, loadavg):
    def rate(nbytes, s):
        return f"{nbytes / 1e6 / s:.0f}"

    lines = [
        "# Loading a large edge list: tricount vs bare CSV parsers",
        "",
        f"- Date: {time.strftime('%Y-%m-%d')}. Machine: {os.cpu_count()} cores "
        f"({platform.processor() or platform.machine()}), Linux, shared VM.",
        "- Versions: " + ", ".join(f"{k} {v}" for k, v in versions().items()) + ".",
        f"- Command: `python benchmarks/io_load.py --scale {args.scale} --edge-factor "
        f"{args.edge_factor} --rounds {args.rounds} --out benchmarks/results/io_load.md`",
        f"- File: `{os.path.basename(path)}`, R-MAT (graph500 parameters, seed 1) as SNAP "
        f"text: {size / 1e6:.1f} MB, {n_lines:,} lines (2 comment lines), tab-separated. "
        f"Native binary `{os.path.basename(native_path)}`: {native_size / 1e6:.1f} MB.",
        f"- Rounds: {args.rounds}, interleaved across readers after one warm-up each; "
        "file in the page cache. MB/s = file bytes / wall seconds.",
        f"- 1-minute load average before / after the rounds: {loadavg[0]:.2f} / "
        f"{loadavg[1]:.2f} (the machine is shared; above ~0.5 other work was running).",
        "",
        "| reader | what it produces | best s | best MB/s | median s | median MB/s |",
        "|---|---|---|---|---|---|",
    ]
    what = {"tricount": "canonical CSRGraph (parse + dedupe + CSR)",
            "native": "CSRGraph from .tcsr (map + CRC + CSR check; COO rows on demand)",
            "polars": "two int64 columns (bare parse)",
            "polars+from_edges": "canonical CSRGraph (polars parse, then CSRGraph.from_edges)",
            "pyarrow": "two int64 columns (bare parse)",
            "pandas": "two int64 columns (bare parse, C engine)"}
    for name, ts in seconds.items():
        nbytes = native_size if name == "native" else size
        best, med = min(ts), statistics.median(ts)
        lines.append(f"| {name} | {what[name]} | {best:.3f} | {rate(nbytes, best)} | "
                     f"{med:.3f} | {rate(nbytes, med)} |")
    lines += ["", "Phases of the tricount readers (median of rounds):", ""]
    for name, rows in phases.items():
        if rows:
            load = statistics.median(r["load_s"] for r in rows)
            build = statistics.median(r["build_s"] for r in rows)
            nbytes = native_size if name == "native" else size
            lines.append(f"- {name}: load_s {load:.3f} ({rate(nbytes, load)} MB/s), "
                         f"build_s {build:.3f}")
    lines += [
        "",
        f"Peak memory of `load_graph` on the text file (fresh process): peak RSS rose by "
        f"{memory['peak_rise_bytes'] / 1e6:.0f} MB; the final graph's arrays (indptr, indices, "
        f"vertex_ids, and the COO rows it derives when first read) take "
        f"{memory['final_bytes'] / 1e6:.0f} MB: "
        f"{memory['peak_rise_bytes'] / memory['final_bytes']:.2f} x.",
        "",
    ]
    with open(args.out, "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
