"""The user's time: from the command to the answer, in fresh processes, warm and cold (issue 25).

For every file, every way to get its count runs as a command in a fresh interpreter:

- ``tricount count FILE --json`` with ``auto``, and every alternative ``--backend B
  --method M`` (by default the CPU's bitmap and SpGEMM, and with a usable GPU its plan
  and each of its methods), so that auto's pick stands beside the best of them;
- a python-igraph script, the way a user would write it (pandas reads the file,
  ``Graph(n, edges)``, ``simplify()``, ``len(list_triangles())``), when both are installed;
- once, ``python -c "import tricount"``: the floor under every tricount command.

*Warm* is what a user sees from the second run on: a fresh process, the disk caches
(Numba's, CuPy's) filled by an earlier run (one untimed run of each side on the first
file fills them); the median of ``repeat`` runs. *Cold* is the
first run after installing: a fresh process with empty caches (a temporary
``NUMBA_CACHE_DIR`` and ``CUPY_CACHE_DIR``), so everything it needs compiles. Each cell
is the wall time with the process's CPU time beside it (a shared machine's wall clock
includes other jobs). Every answer must agree with the others: a mismatch is reported
and makes :func:`main` return 4.

    python -m tricount.bench.usertime ../shared/data/graphs/*.txt.gz --cold --out user_time

``tricount bench --user-time FILE... [--cold] [--sides LIST] [--trials N] [--out PREFIX]`` runs
:func:`main` (``--trials`` is its ``--repeat``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from tricount.bench.environment import machine, utc_now, versions

__all__ = ["Side", "IGRAPH_SCRIPT", "default_sides", "run_command", "user_time", "markdown",
           "main"]

#: What a python-igraph user writes to count a SNAP file's triangles.
IGRAPH_SCRIPT = """
import sys
import igraph as ig
import pandas as pd
edges = pd.read_csv(sys.argv[1], sep=r"\\s+", comment="#", header=None, usecols=[0, 1]).to_numpy()
g = ig.Graph(n=int(edges.max()) + 1 if len(edges) else 0, edges=edges)
g.simplify()
print(len(g.list_triangles()))
"""


@dataclass(frozen=True)
class Side:
    """One way to the answer: a label and the command's arguments after the file
    (``None`` for the igraph script)."""

    label: str
    args: tuple | None = ()

    @property
    def is_tricount(self) -> bool:
        return self.args is not None


def default_sides(gpu: bool, igraph: bool = True) -> list[Side]:
    """auto, the CPU's counters, the GPU's plan and methods (with ``gpu``), igraph."""
    sides = [Side("auto"), Side("cpu/bitmap", ("--backend", "cpu", "--method", "bitmap")),
             Side("cpu/spgemm", ("--backend", "cpu", "--method", "spgemm"))]
    if gpu:
        sides.append(Side("gpu/auto", ("--backend", "gpu")))
        sides += [Side(f"gpu/{m}", ("--backend", "gpu", "--method", m))
                  for m in ("wedge", "bitwedge", "hash")]
    if igraph:
        sides.append(Side("igraph", None))
    return sides


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_command(argv: list, env: dict) -> dict:
    """Run ``argv``; ``{"wall_s", "cpu_s", "stdout", "ok"}``."""
    cpu0, wall0 = _child_cpu(), time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - wall0, _child_cpu() - cpu0
    return {"wall_s": wall, "cpu_s": cpu, "stdout": done.stdout, "ok": done.returncode == 0,
            "stderr": done.stderr[-2000:]}


def _argv(side: Side, path: str) -> list:
    if not side.is_tricount:
        return [sys.executable, "-c", IGRAPH_SCRIPT, path]
    return [sys.executable, "-m", "tricount", "count", path, "--json", *side.args]


def _answer(side: Side, out: dict) -> dict:
    """The count and, for tricount, what ran, from a command's output."""
    if not out["ok"]:
        return {"triangles": None, "error": out["stderr"].strip().splitlines()[-1:]}
    if not side.is_tricount:
        return {"triangles": int(out["stdout"].split()[-1])}
    report = json.loads(out["stdout"])
    return {"triangles": report["triangles"], "backend": report["backend"],
            "method": report["method"], "reason": report.get("backend_reason", "")}


def _environment(base: dict, cold_dir: str | None) -> dict:
    env = dict(base)
    if cold_dir is not None:
        for var, sub in (("NUMBA_CACHE_DIR", "numba"), ("CUPY_CACHE_DIR", "cupy")):
            env[var] = os.path.join(cold_dir, sub)
    return env


@dataclass
class _Cell:
    runs: list = field(default_factory=list)

    def add(self, out: dict) -> None:
        self.runs.append(out)

    @property
    def wall(self) -> float:
        return statistics.median(r["wall_s"] for r in self.runs)

    @property
    def cpu(self) -> float:
        return statistics.median(r["cpu_s"] for r in self.runs)


def bytecode_state(env: dict) -> str:
    """Whether the fresh processes read tricount's modules from cached bytecode, as an
    installed package does (pip compiles it), or compile every module in every process: a
    source tree without ``__pycache__`` where ``PYTHONDONTWRITEBYTECODE`` is set (the GPU
    machines' image) adds 0.1-0.2 s to every command and to the import alike."""
    import importlib.util

    import tricount

    package = Path(tricount.__file__).parent
    sources = sorted(package.rglob("*.py"))
    cached = sum(Path(importlib.util.cache_from_source(str(f))).exists() for f in sources)
    if cached == len(sources):
        return "cached (every module's .pyc exists, as pip installs them)"
    if env.get("PYTHONDONTWRITEBYTECODE"):
        return (f"compiled in every process ({len(sources) - cached} of {len(sources)} "
                "modules without a .pyc and PYTHONDONTWRITEBYTECODE set; `python -m "
                "compileall` the package first to time it as installed)")
    return f"written by the first run ({cached} of {len(sources)} modules cached before it)"


def user_time(paths, sides, *, repeat: int = 1, cold: bool = False, env: dict | None = None,
              progress=None) -> dict:
    """Time every side on every file; ``{"import": cell, "rows": [...]}``, each row
    ``{"path", "name", "warm": {label: cell}, "cold": {...}, "answers": {...}}``."""
    env = dict(os.environ if env is None else env)
    say = progress or (lambda text: None)
    bytecode = bytecode_state(env)
    floor = _Cell()
    for _ in range(max(repeat, 3)):
        floor.add(run_command([sys.executable, "-c", "import tricount"], env))
    rows, primed = [], set()
    for path in map(str, paths):
        row = {"path": path, "name": Path(path).name.split(".")[0], "warm": {}, "cold": {},
               "answers": {}}
        for side in sides:
            if cold:
                with tempfile.TemporaryDirectory(prefix="tc-cold-") as empty:
                    out = run_command(_argv(side, path), _environment(env, empty))
                row["cold"][side.label] = _Cell([out])
                row["answers"][side.label + " (cold)"] = _answer(side, out)
            if side.label not in primed:  # fills the disk caches once; not timed
                run_command(_argv(side, path), env)
                primed.add(side.label)
            cell = _Cell()
            for _ in range(repeat):
                cell.add(run_command(_argv(side, path), env))
            row["warm"][side.label] = cell
            row["answers"][side.label] = _answer(side, cell.runs[-1])
            say(f"{row['name']}: {side.label} {cell.wall:.3f} s")
        rows.append(row)
    return {"import": floor, "rows": rows, "bytecode": bytecode}


def _agree(answers: dict) -> bool:
    counts = {a["triangles"] for a in answers.values() if a["triangles"] is not None}
    return len(counts) <= 1


def _cell_text(cell: _Cell | None, best: float | None = None) -> str:
    if cell is None:
        return ""
    if not all(r["ok"] for r in cell.runs):
        return "failed"
    text = f"{cell.wall:.3f} ({cell.cpu:.2f})"
    return f"**{text}**" if best is not None and cell.wall <= best else text


def markdown(result: dict, sides, *, command: str = "", left_out: str = "") -> str:
    """The table: per file, auto's pick and time, each side's warm (and cold) time;
    ``left_out`` says which side was not timed and why."""
    floor = result["import"]
    labels = [s.label for s in sides]
    head = [
        "# tricount user time",
        "",
        f"- date: {utc_now()}",
        f"- command: `{command}`" if command else "",
        f"- machine: {machine()}",
        f"- versions: {versions()}",
        f"- `python -c \"import tricount\"`: {floor.wall:.3f} s wall ({floor.cpu:.2f} s CPU), "
        "median of the runs; every tricount command pays it.",
        f"- tricount's bytecode: {result.get('bytecode', 'not recorded')}.",
        "- cells: wall seconds (CPU seconds of the process), median of the warm runs; warm = "
        "a fresh process with the disk caches filled, cold = a fresh process with empty "
        "Numba and CuPy caches (the first run after installing). **Bold**: the fastest "
        "side of the row. auto / best: auto's warm time over the fastest other tricount side's "
        "(below 1: auto's pick beat every alternative).",
        f"- not timed: {left_out}" if left_out else "",
        "",
    ]
    has_cold = any(row["cold"] for row in result["rows"])
    columns = ["file", "triangles", "auto's pick"] + [f"{label} warm" for label in labels]
    if has_cold:
        columns += [f"{label} cold" for label in labels]
    columns += ["auto / best", "answers agree"]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in result["rows"]:
        warm = row["warm"]
        ok = [c for c in warm.values() if all(r["ok"] for r in c.runs)]
        best = min((c.wall for c in ok), default=None)
        tricount_best = min((warm[s.label].wall for s in sides
                             if s.is_tricount and s.label != "auto" and s.label in warm
                             and all(r["ok"] for r in warm[s.label].runs)), default=None)
        auto = row["answers"].get("auto", {})
        counts = [a["triangles"] for a in row["answers"].values() if a["triangles"] is not None]
        cells = [row["name"], f"{counts[0]:,}" if counts else "?",
                 f"{auto.get('backend', '?')}/{auto.get('method', '?')}"]
        cells += [_cell_text(warm.get(label), best) for label in labels]
        if has_cold:
            cells += [_cell_text(row["cold"].get(label)) for label in labels]
        ratio = (warm["auto"].wall / tricount_best) if "auto" in warm and tricount_best else None
        cells += [f"{ratio:.2f}" if ratio else "", "yes" if _agree(row["answers"]) else "NO"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join([h for h in head if h != ""] + [""] + lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="tricount bench --user-time",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", metavar="FILE")
    parser.add_argument("--repeat", type=int, default=1, help="warm runs per cell (median)")
    parser.add_argument("--cold", action="store_true",
                        help="also time each side once with empty Numba and CuPy caches")
    parser.add_argument("--sides", default=None,
                        help="comma-separated labels to keep (auto, cpu/bitmap, cpu/spgemm, "
                             "gpu/auto, gpu/wedge, gpu/bitwedge, gpu/hash, igraph)")
    parser.add_argument("--no-gpu", action="store_true", help="skip the GPU's sides")
    parser.add_argument("--out", default=None, help="write OUT.md and OUT.json")
    args = parser.parse_args(argv)
    from tricount.bench.runner import MAX_TRIALS
    from tricount.errors import InvalidArgumentError
    from tricount.io.source import check_readable

    if not 1 <= args.repeat <= MAX_TRIALS:
        raise InvalidArgumentError(f"--trials must be 1 .. {MAX_TRIALS}, got {args.repeat}")
    for path in args.paths:  # a file that is not there fails every side: say so first
        check_readable(path)
    paths = None
    if args.out:  # checked, and its folder made, before anything is timed
        from tricount.io.output import prefixed_outputs

        paths = prefixed_outputs(args.out, (".md", ".json"), args.paths)
    gpu = False
    if not args.no_gpu:
        from tricount.gpu import probe

        gpu = probe()[0]
    import importlib.util

    missing = [name for name in ("igraph", "pandas") if importlib.util.find_spec(name) is None]
    sides = default_sides(gpu, not missing)
    left_out = ""
    if missing and not args.sides:  # the peer's column would vanish without a word
        left_out = (f"igraph ({' and '.join(missing)} not installed: pip install "
                    "'tricount[bench]')")
        print(f"tricount: note: {left_out}", file=sys.stderr)
    if args.sides:
        keep = set(args.sides.split(","))
        known = {s.label for s in default_sides(True, True)}
        if keep - known:
            raise InvalidArgumentError(f"--sides: unknown {', '.join(sorted(keep - known))}; "
                                       f"the sides are {', '.join(sorted(known))}")
        unavailable = keep - {s.label for s in sides}
        if unavailable:
            raise InvalidArgumentError(f"--sides: {', '.join(sorted(unavailable))} cannot run "
                                       "here (no GPU, or no python-igraph and pandas)")
        sides = [s for s in sides if s.label in keep]
    result = user_time(args.paths, sides, repeat=args.repeat, cold=args.cold,
                       progress=lambda text: print(text, file=sys.stderr, flush=True))
    text = markdown(result, sides, command=" ".join(["tricount bench --user-time",
                                                     *(argv or sys.argv[1:])]),
                    left_out=left_out)
    if paths:
        from tricount.io.output import write_bytes

        records = [{"path": r["path"], "answers": r["answers"],
                    "warm": {k: c.runs for k, c in r["warm"].items()},
                    "cold": {k: c.runs for k, c in r["cold"].items()}} for r in result["rows"]]
        write_bytes(paths[0], text.encode())  # each whole or not at all
        write_bytes(paths[1], (json.dumps(records, indent=1, default=str) + "\n").encode())
    print(text)
    failed = [(r["path"], label) for r in result["rows"] for cells in (r["warm"], r["cold"])
              for label, cell in cells.items() if not all(run["ok"] for run in cell.runs)]
    for path, label in failed:
        print(f"tricount: error: {label} failed on {path}", file=sys.stderr)
    if not all(_agree(r["answers"]) for r in result["rows"]):
        return 4
    return 2 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
