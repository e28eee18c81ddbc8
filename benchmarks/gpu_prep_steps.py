"""Time each GPU preparation step, fused (tricount.gpu.prepare) against portable (tricount.prep).

Input: the R-MAT edge list (graph500 parameters, edge factor 16, seed 1) drawn on
the GPU and listed in both directions with its repeats, issue 7's end-to-end
input. Steps: the canonical build, the degrees, the rank orientation, hash's
plan and its tasks, each timed on the same arrays both ways (synchronized wall
time, best of 3 after a warm-up), then the whole path from the edge list to the
count with ``method="auto"``. Output: one Markdown table.

    python benchmarks/gpu_prep_steps.py --scales 21 24 --out "$OUT/gpu_prep_steps.md"
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

#: Timed runs per step after one warm-up; the best is reported.
REPEATS = 3


def main(argv=None) -> int:
    import cupy

    from tricount import CSRGraph, count
    from tricount.generate import rmat
    from tricount.gpu import prepare
    from tricount.prep import orient, partners
    from tricount.prep.canonical import canonical_edges, validate_edge_arrays

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", type=int, nargs="*", default=[21, 24])
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)

    def best_ms(fn):
        fn()
        cupy.cuda.Device().synchronize()
        times = []
        for _ in range(REPEATS):
            t0 = time.perf_counter()
            fn()
            cupy.cuda.Device().synchronize()
            times.append(time.perf_counter() - t0)
        return 1e3 * min(times)

    lines = ["| graph | input entries | step | portable ms | fused ms |", "|---|--:|---|--:|--:|"]
    for scale in args.scales:
        src, dst = rmat(scale, 16, seed=1, xp=cupy)
        src, dst = cupy.concatenate([src, dst]), cupy.concatenate([dst, src])
        src, dst = validate_edge_arrays(src, dst)
        name, entries = f"rmat-s{scale}", int(src.shape[0])
        g = CSRGraph.from_edges(src, dst)
        lo, hi = g.edges()
        deg = g.degrees
        oriented = prepare.orient_by_rank(lo, hi, g.n_vertices, deg)
        out_degree = cupy.diff(oriented.indptr)
        plan = prepare.plan_partners(oriented)
        steps = [
            ("canonical build", lambda: canonical_edges(src, dst, fused=False),
             lambda: canonical_edges(src, dst)),
            ("degrees", lambda: cupy.diff(g.indptr) + cupy.bincount(hi, minlength=g.n_vertices),
             lambda: cupy.diff(g.indptr) + prepare.count_ids(hi, g.n_vertices)),
            ("rank orientation", lambda: orient.orient_by_rank(lo, hi, g.n_vertices, deg),
             lambda: prepare.orient_by_rank(lo, hi, g.n_vertices, deg)),
            ("hash plan", lambda: partners.plan_partners(oriented),
             lambda: prepare.plan_partners(oriented)),
            ("tasks (4,000 probes)", lambda: partners.split_tasks(plan, out_degree, 4000),
             lambda: prepare.split_tasks(plan, out_degree, 4000)),
        ]
        for label, portable, fused in steps:
            lines.append(f"| {name} | {entries} | {label} | {best_ms(portable):.2f} | "
                         f"{best_ms(fused):.2f} |")
            print(lines[-1], flush=True)
        del g, lo, hi, deg, oriented, out_degree, plan
        result = count((src, dst), backend="gpu")
        total = best_ms(lambda: count((src, dst), backend="gpu"))
        lines.append(f"| {name} | {entries} | edge list to count (auto → {result.method}, "
                     f"{result.n_triangles} triangles) | | {total:.2f} |")
        print(lines[-1], flush=True)
        del src, dst
        cupy.get_default_memory_pool().free_all_blocks()
    args.out.write_text("# GPU preparation steps, portable and fused\n\n" + "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
