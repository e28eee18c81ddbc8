"""Reading a CSV edge table with a header and string vertex names: tricount against polars.

The file: the edges of R-MAT ``--scale`` (edge factor 16, seed 1) written as
``source,target`` rows of names ``v<id>`` (plus a header), in ``--dir``. Each
trial (interleaved, so that a shared machine's load falls on both sides
alike; the best of ``--trials`` after a warm-up):

- ``polars``: ``pl.read_csv(path)`` and the distinct names of both columns
  (``pl.concat([source, target]).unique()``), the target's yardstick;
- ``tricount read``: what tricount does before building the graph: the file
  read once, parsed by pyarrow's CSV reader, the names of both columns
  dictionary-encoded and sorted into ids (``tricount.io.read_edges``'s path,
  without mapping the ids back to names);
- ``tricount load``: ``tricount.load_graph(path)``: the read above and the
  CSR built (the graph is ready to count);
- ``tricount read (polars)`` and ``(Python)``: the same read with pyarrow
  hidden (polars' reader), then with both hidden (the csv module).

Target (issue 24): ``tricount read`` at least 0.5× the speed of ``polars``
(time ratio at most 2).

    python benchmarks/csv_names.py --scale 20 --markdown benchmarks/results/csv_names.md
"""

from __future__ import annotations

import argparse
import builtins
import os
import sys
import time
from pathlib import Path

import numpy as np

from tricount.generate import rmat
from tricount.io import load_graph
from tricount.io._parse import EdgeText
from tricount.io.delimited import read as read_delimited
from tricount.io.source import open_source


def write_file(path: Path, scale: int) -> int:
    src, dst = rmat(scale, 16, seed=1)
    names = np.char.add("v", np.arange(int(max(src.max(), dst.max())) + 1).astype(str))
    import pyarrow as pa
    import pyarrow.csv as pacsv

    table = pa.table({"source": names[src], "target": names[dst]})
    pacsv.write_csv(table, path, write_options=pacsv.WriteOptions(quoting_style="none"))
    return int(src.shape[0])


def polars_read(path):
    import polars as pl

    frame = pl.read_csv(path)
    return pl.concat([frame["source"], frame["target"]]).unique().len()


def tricount_read(path):
    with open_source(path) as source:
        declared = read_delimited(source, EdgeText())
    return declared.n_vertices


def hidden(*modules):
    """Run a function with ``modules`` unimportable (the fallback readers)."""
    def wrap(run):
        def go(path):
            real = builtins.__import__

            def fake(name, *args, **kwargs):
                if name.split(".")[0] in modules:
                    raise ImportError(name)
                return real(name, *args, **kwargs)

            builtins.__import__ = fake
            try:
                return run(path)
            finally:
                builtins.__import__ = real
        return go
    return wrap


MEASURES = {
    "polars": polars_read,
    "tricount read": tricount_read,
    "tricount load": lambda p: load_graph(p).n_vertices,
    "tricount read (polars)": hidden("pyarrow")(tricount_read),
    "tricount read (Python)": hidden("pyarrow", "polars")(tricount_read),
}


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=int, default=20)
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=Path("/tmp"))
    parser.add_argument("--python-trials", type=int, default=1,
                        help="trials of the slow Python reader (0: skip it)")
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args(argv)
    path = args.dir / f"csv_names_rmat{args.scale}.csv"
    m = write_file(path, args.scale)
    size = path.stat().st_size
    times = {name: [] for name in MEASURES}
    answers = {}
    try:
        for trial in range(args.trials + 1):  # trial 0: the warm-up
            for name, run in MEASURES.items():
                if name.endswith("(Python)") and trial > args.python_trials:
                    continue
                c0, t0 = time.process_time(), time.perf_counter()
                answer = run(path)
                wall, cpu = time.perf_counter() - t0, time.process_time() - c0
                answers.setdefault(name, answer)
                if answer != answers["polars"]:
                    raise AssertionError(f"{name}: {answer} names, polars {answers['polars']}")
                if trial:
                    times[name].append((wall, cpu))
                print(f"# {name} trial {trial}: {wall:.3f} s", file=sys.stderr, flush=True)
    finally:
        path.unlink(missing_ok=True)
    text = table(times, args, argv, m, size, answers["polars"])
    if args.markdown:
        args.markdown.write_text(text)
    print(text)
    return 0


def table(times, args, argv, m, size, n_names) -> str:
    import polars
    import pyarrow

    base = min(times["polars"])[0]
    out = [
        "# Reading a CSV edge table with a header and string names",
        "",
        f"Command: `python benchmarks/csv_names.py {' '.join(argv)}`. File: R-MAT "
        f"{args.scale} (edge factor 16, seed 1) as `source,target` rows of names `v<id>`: "
        f"{m:,} rows, {n_names:,} distinct names, {size / 1e6:.0f} MB. Machine: "
        f"{os.cpu_count()} logical CPUs, shared (load average {os.getloadavg()[0]:.1f} at the "
        f"end); polars {polars.__version__}, pyarrow {pyarrow.__version__}. Best of "
        f"{args.trials} interleaved trials after a warm-up; wall seconds, CPU seconds of every "
        "thread in parentheses.",
        "",
        "| reader | seconds | × polars time | speed vs polars |",
        "|---|---:|---:|---:|",
    ]
    for name, runs in times.items():
        if not runs:
            continue
        wall, cpu = min(runs)
        out.append(f"| {name} | {wall:.3f} ({cpu:.3f}) | {wall / base:.2f} | "
                   f"{base / wall:.2f}× |")
    out += ["", "polars: `pl.read_csv` and the distinct names of both columns; tricount read: "
            "the file read once by pyarrow's CSV reader, both columns dictionary-encoded and "
            "the names sorted into ids; tricount load: that and the CSR built. Target: "
            "tricount read at least 0.5× polars' speed.", ""]
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
