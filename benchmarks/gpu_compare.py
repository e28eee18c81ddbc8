"""Two runs of ``benchmarks/gpu_methods.py`` side by side: median kernel and count ms.

Meant for a before/after check on one machine in one call (``scripts/gpu_suite.sh
compare`` runs the benchmark from a baseline tree and from this one, then this
script). Rows pair the same (graph, method label); the ratio is after / before.
Every trial of both runs must be verified, or the script says so and exits 1.

    python benchmarks/gpu_compare.py BEFORE.jsonl AFTER.jsonl OUT.md
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path


def medians(path: Path) -> tuple[dict, dict, bool]:
    """``(env, {(graph, label): {"kernel_s": ..., "count_s": ..., "ran": ...}}, all verified)``."""
    env, trials, verified = {}, {}, True
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if "env" in record:
            env = record["env"]
        elif "graph" in record and "trial" in record:
            trials.setdefault((record["graph"], record["method"]), []).append(record)
            verified &= bool(record["verified"])
    rows = {}
    for key, runs in trials.items():
        rows[key] = {k: statistics.median(r[k] for r in runs) for k in ("kernel_s", "count_s")}
        rows[key]["ran"] = runs[0]["ran"]
    return env, rows, verified


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    before_env, before, ok_before = medians(Path(argv[0]))
    after_env, after, ok_after = medians(Path(argv[1]))
    lines = ["# GPU kernels before and after", "",
             f"Device: {after_env.get('device')}; CUDA runtime {after_env.get('cuda_runtime')}, "
             f"CuPy {after_env.get('cupy')}; {after_env.get('date')}.",
             f"Before: `{before_env.get('command')}`", f"After: `{after_env.get('command')}`",
             "", "Medians of each run's trials (kernel: the counting kernels alone, CUDA events; "
             "count: all counting work).", "",
             "| graph | method | ran (before → after) | kernel ms before | after "
             "| after / before | count ms before | after |", "|---|---|---|--:|--:|--:|--:|--:|"]
    for key in sorted(before.keys() & after.keys()):
        b, a = before[key], after[key]
        ratio = a["kernel_s"] / b["kernel_s"] if b["kernel_s"] else float("nan")
        lines.append(f"| {key[0]} | {key[1]} | {b['ran']} → {a['ran']} | "
                     f"{b['kernel_s'] * 1e3:.3f} | {a['kernel_s'] * 1e3:.3f} | {ratio:.3f} | "
                     f"{b['count_s'] * 1e3:.3f} | {a['count_s'] * 1e3:.3f} |")
    only = sorted(before.keys() ^ after.keys())
    if only:
        lines += ["", "In one run only: " + ", ".join(f"{g} {m}" for g, m in only)]
    lines += ["", f"Every count verified: before {'yes' if ok_before else 'NO'}, after "
              f"{'yes' if ok_after else 'NO'}."]
    Path(argv[2]).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if ok_before and ok_after else 1


if __name__ == "__main__":
    sys.exit(main())
