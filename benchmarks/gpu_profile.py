"""Run one GPU method on one graph twice, for a profiler: a warm-up, then the launch to profile.

Meant to be wrapped by Nsight Compute, profiling the method's counting kernel
(``tc_<method>``) and skipping the warm-up's launch of it::

    ncu --kernel-name tc_hash --launch-skip 1 --launch-count 1 --section SpeedOfLight \\
        python benchmarks/gpu_profile.py rmat:21 hash

Graphs: ``rmat:SCALE`` (graph500 R-MAT, edge factor 16, seed 1, built on the
GPU), ``er:LOG2N`` (G(n, 16 n), seed 1) or a path to an edge-list file.
Launch-shape fields of the method are ``key=value`` pairs (values read as Python literals;
``orientation=...`` too).
Both runs' counts must agree; the script prints them and the counting time (no
timer runs, so the profiler sees only the engine's own launches).
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import gpu_methods  # noqa: E402
from baselines import method_plan  # noqa: E402
from tricount.gpu.engine import count  # noqa: E402


def build(spec: str):
    kind, _, arg = spec.partition(":")
    if kind == "rmat":
        return gpu_methods.build_rmat(int(arg), 16, 1)[0]
    if kind == "er":
        return gpu_methods.build_er(int(arg), 16, 1)[0]
    return gpu_methods.build_real(spec)[0]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graph")
    parser.add_argument("method", help="a production or lab method (benchmarks/baselines)")
    parser.add_argument("options", nargs="*", help="key=value launch-shape fields")
    args = parser.parse_args(argv)
    options = {}
    for item in args.options:
        key, _, value = item.partition("=")
        options[key] = ast.literal_eval(value)
    plan = method_plan(args.method, options)
    g = build(args.graph)
    counts = []
    for label in ("warm-up", "profiled"):
        r = count(g, plan=plan)
        counts.append(r.n_triangles)
        print(f"{label}: {g.name} {r.method} {r.n_triangles} triangles, "
              f"counting {r.timings['count_s'] * 1e3:.3f} ms")
    if counts[0] != counts[1]:
        print("gpu_profile: the two runs disagree", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
