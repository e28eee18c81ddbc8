"""The first run after installing, and the second: `tricount count FILE` in fresh processes.

    python benchmarks/cold_start.py ../shared/data/graphs/soc-Epinions1.txt.gz --repeat 3 \\
        --out benchmarks/results/cold_start_cpu.md
    python benchmarks/cold_start.py FILE... --before /tmp/before/src   # beside an older tree

Per file, each cell the median of ``--repeat`` fresh processes, wall and CPU seconds:

- ``tricount count FILE`` (auto) and ``tricount count FILE --method bitmap`` (the Numba
  counter), **cold** (an empty temporary ``NUMBA_CACHE_DIR``: nothing compiled, as on the
  first run after installing) and **warm** (a second run with the cache the cold run
  left; auto compiles nothing, so its second run is its first again);
- ``python -c "import tricount"``, the floor, and each warm run's excess over it.

The code timed is ``--src`` (default: this checkout's ``src``); ``--before`` also times an
older tree's ``tricount count FILE`` (``git archive main src | tar -x -C /tmp/before``),
with the same harness and its own import floor.
The header records the command, the machine, the versions and the load average before and
after (the machine is shared: CPU seconds are the steadier column). Issue 25's targets on the
2-core machine: a first run of soc-Epinions1 within 3 s; a second run of a file under a
million edges within 0.3 s of the import.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIDES = {
    "auto": [],
    "--method bitmap": ["--method", "bitmap"],
}


def versions(env) -> str:
    code = ("import sys, numpy, numba, scipy; print(sys.version.split()[0], numpy.__version__, "
            "numba.__version__, scipy.__version__)")
    py, np_, nb, sp = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                                     text=True, check=True).stdout.split()
    return f"Python {py}, NumPy {np_}, Numba {nb}, SciPy {sp}"


def machine() -> str:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} logical CPUs ({model or platform.processor()}), {platform.system()}"


def load_average() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def median(runs, key) -> float:
    return statistics.median(r[key] for r in runs)


def time_tree(src: str, sides: dict, paths, repeat: int, run_command) -> tuple[list, str]:
    """The table rows of one source tree's sides, and its import floor (a sentence)."""
    env = tree_env(src)
    py = sys.executable
    floor = [run_command([py, "-c", "import tricount"], env) for _ in range(repeat)]
    floor_wall, floor_cpu = median(floor, "wall_s"), median(floor, "cpu_s")
    rows = []
    for path in paths:
        for extra in sides.values():
            command = [py, "-m", "tricount", "count", path, *extra]
            cold, warm = [], []
            for _ in range(repeat):
                with tempfile.TemporaryDirectory(prefix="tc-cold-") as cache:
                    run_env = dict(env, NUMBA_CACHE_DIR=cache)
                    cold.append(run_command(command, run_env))
                    warm.append(run_command(command, run_env))
            answers = {r["stdout"].split()[0] if r["ok"] else "failed" for r in cold + warm}
            cells = [f"{median(runs, k):.2f}" for runs in (cold, warm)
                     for k in ("wall_s", "cpu_s")]
            over = (f"{median(warm, 'wall_s') - floor_wall:+.2f} / "
                    f"{median(warm, 'cpu_s') - floor_cpu:+.2f}")
            shown = " ".join(["tricount count FILE", *extra])
            rows.append(f"| {Path(path).name} | `{shown}` | " + " | ".join(cells)
                        + f" | {over} | {', '.join(sorted(answers))} |")
            print(rows[-1], file=sys.stderr, flush=True)
    return rows, (f"`python -c \"import tricount\"`: {floor_wall:.2f} s wall, {floor_cpu:.2f} s "
                  f"CPU (median of {repeat}).")


def tree_env(src: str) -> dict:
    return dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [src, os.environ.get("PYTHONPATH")])), CUDA_VISIBLE_DEVICES="")


TABLE_HEAD = ["| file | command | cold wall s | cold CPU s | warm wall s | warm CPU s | "
              "warm over import s | answer |", "|---|---|--:|--:|--:|--:|--:|---|"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--src", default=str(ROOT / "src"),
                        help="the tricount source tree to time (default: this checkout's)")
    parser.add_argument("--before", metavar="SRC",
                        help="also time `tricount count FILE` (auto) of this older source tree")
    parser.add_argument("--out", default=None, help="markdown file (default: stdout only)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "src"))
    from tricount.bench.usertime import run_command  # the harness: this checkout's

    load_before = load_average()
    rows, floor = time_tree(args.src, SIDES, args.paths, args.repeat, run_command)
    body = TABLE_HEAD + rows + ["", floor]
    if args.before:
        old_rows, old_floor = time_tree(args.before, {"auto": []}, args.paths, args.repeat,
                                        run_command)
        body += ["", f"Before: `{args.before}`, the same harness.", ""] + TABLE_HEAD + old_rows \
            + ["", old_floor]
    invoked = ["python", "benchmarks/cold_start.py", *(argv if argv is not None else sys.argv[1:])]
    header = [
        f"Command: `{shlex.join(invoked)}`, {datetime.date.today().isoformat()}.",
        f"Machine: {machine()}; {versions(tree_env(args.src))}; no GPU "
        "(`CUDA_VISIBLE_DEVICES=`).",
        f"Code timed: `{args.src}`. Load average (1, 5, 15 min) before: {load_before}; after: "
        f"{load_average()} (a load above 0 means other jobs shared the two cores: wall times "
        "include their share, CPU times much less).",
        "",
        f"Each cell the median of {args.repeat} fresh processes. Cold: an empty "
        "`NUMBA_CACHE_DIR`; warm: a second run with the cache the cold run left. "
        "\"Over import\": warm minus `python -c \"import tricount\"` (wall / CPU).",
        "",
    ]
    text = "\n".join(header + body) + "\n"
    if args.out:
        Path(args.out).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
