"""The first run after installing, and the second: today's command beside a path that compiles nothing.

    python benchmarks/cold_start.py ../shared/data/graphs/soc-Epinions1.txt.gz --repeat 3

Per file, each in fresh processes (median of ``--repeat``), wall and CPU seconds:

- ``tricount count FILE --backend cpu`` and ``auto``, **cold** (an empty temporary
  ``NUMBA_CACHE_DIR``: everything compiles, as on the first run after installing) and
  **warm** (the cache filled by the cold run);
- **no compile**: what ``tricount count FILE`` would do with a NumPy parser in io (the
  prototype ``benchmarks/numpy_parse.py``): parse, ``Graph.from_edges``, then
  ``tricount.count(graph)``, whose cost model, seeing Numba not started and its kernels
  not cached, counts with SciPy's SpGEMM -- cold (empty cache) and warm;
- the same with Numba's kernels cached (warm): the model then takes what it predicts fastest;
- ``python -c "import tricount"``, the floor.

The cold target of issue 25 is 3 s for soc-Epinions1 on the 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

NO_COMPILE = """
import sys
sys.path.insert(0, {bench!r})
import tricount
from numpy_parse import parse_edges_numpy, read_text
src, dst = parse_edges_numpy(read_text(sys.argv[1]))
result = tricount.count(tricount.Graph.from_edges(src, dst))
print(result.n_triangles, result.backend, result.method, file=sys.stderr)
print(result.n_triangles)
"""


def main(argv=None) -> int:
    from tricount.bench.usertime import run_command

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", default=None, help="markdown file (default: stdout only)")
    args = parser.parse_args(argv)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")])))
    py = sys.executable
    no_compile = NO_COMPILE.format(bench=str(ROOT / "benchmarks"))
    sides = {
        "cli --backend cpu": lambda p: [py, "-m", "tricount", "count", p, "--backend", "cpu"],
        "cli auto": lambda p: [py, "-m", "tricount", "count", p],
        "no compile (NumPy parse, model)": lambda p: [py, "-c", no_compile, p],
    }
    rows = []
    floor = [run_command([py, "-c", "import tricount"], env) for _ in range(args.repeat)]
    for path in args.paths:
        for label, argv_of in sides.items():
            cold, warm = [], []
            for _ in range(args.repeat):
                with tempfile.TemporaryDirectory(prefix="tc-cold-") as cache:
                    run_env = dict(env, NUMBA_CACHE_DIR=cache)
                    cold.append(run_command(argv_of(path), run_env))
                    warm.append(run_command(argv_of(path), run_env))
            answers = {r["stdout"].split()[0] if r["ok"] else "failed" for r in cold + warm}
            cells = [f"{statistics.median(r[k] for r in runs):.2f}"
                     for runs in (cold, warm) for k in ("wall_s", "cpu_s")]
            rows.append(f"| {Path(path).name} | {label} | " + " | ".join(cells) +
                        f" | {', '.join(sorted(answers))} |")
            print(rows[-1], file=sys.stderr, flush=True)
    text = "\n".join([
        "| file | command | cold wall s | cold CPU s | warm wall s | warm CPU s | answer |",
        "|---|---|--:|--:|--:|--:|---|", *rows, "",
        f"`python -c \"import tricount\"`: {statistics.median(r['wall_s'] for r in floor):.2f} s "
        f"wall, {statistics.median(r['cpu_s'] for r in floor):.2f} s CPU (median of "
        f"{args.repeat})."]) + "\n"
    if args.out:
        Path(args.out).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
