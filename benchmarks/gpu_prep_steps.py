"""Time each GPU preparation step, fused (tricount.gpu.prepare) against portable (tricount.prep).

Input: the R-MAT edge list (graph500 parameters, edge factor 16, seed 1) or the
uniform random graph G(2^k, 16 * 2^k) (``--er``), drawn on the GPU and listed
in both directions with its repeats, issue 7's end-to-end input. Steps: the
canonical build, the degrees, the rank orientation, hash's plan and its tasks,
wedge's fingerprint layout, each timed on the same arrays both ways
(synchronized wall time, best of 3 after a warm-up); beside each of the three
sorts, one CuPy sort of as many random 64-bit keys, alone; then the whole path
from the edge list to the count with ``method="auto"`` and that count's kernel.
What the end to end spends outside the sorts and the kernel is the difference.
Output: one Markdown table.

    python benchmarks/gpu_prep_steps.py --scales 18 21 --er 24 --out "$OUT/gpu_prep_steps.md"
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
    from tricount.generate import erdos_renyi, rmat
    from tricount.gpu import prepare
    from tricount.gpu._common import kernel_arrays
    from tricount.gpu.fingerprints import fingerprint_lists
    from tricount.gpu.wedge import WEDGE_ALIGN
    from tricount.prep import orient, partners
    from tricount.prep.canonical import canonical_edges, validate_edge_arrays

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", type=int, nargs="*", default=[21, 24])
    parser.add_argument("--er", type=int, nargs="*", default=[],
                        help="uniform random graphs G(2^k, 16 * 2^k), k given")
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

    def sort_alone_ms(n_keys):
        """One CuPy sort of ``n_keys`` random uint64 keys (its time does not
        depend on how many bits vary: gpu_notes.md, run 80)."""
        keys = cupy.random.randint(0, 2**63 - 1, size=n_keys, dtype=cupy.int64).view(cupy.uint64)
        return best_ms(lambda: cupy.sort(keys))

    graphs = [(f"rmat-s{k}", lambda k=k: rmat(k, 16, seed=1, xp=cupy)) for k in args.scales]
    graphs += [(f"er-2^{k}", lambda k=k: erdos_renyi(2**k, 16 * 2**k, seed=1, xp=cupy))
               for k in args.er]
    lines = ["| graph | input entries | step | portable ms | fused ms |", "|---|--:|---|--:|--:|"]
    for name, generate in graphs:
        src, dst = generate()
        src, dst = cupy.concatenate([src, dst]), cupy.concatenate([dst, src])
        src, dst = validate_edge_arrays(src, dst)
        entries = int(src.shape[0])
        g = CSRGraph.from_edges(src, dst)
        lo, hi = g.edges()
        deg = g.degrees
        oriented = prepare.orient_by_rank(lo, hi, g.n_vertices, deg)
        out_degree = cupy.diff(oriented.indptr)
        plan = prepare.plan_partners(oriented)
        indptr, rows, cols, vertex = kernel_arrays(oriented)
        indptr = indptr.astype(cupy.uint32)  # wedge's 32-bit positions, as count_wedge passes
        sorts = [("build", entries), ("orientation", g.n_edges), ("hash plan", plan.n_pairs)]
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
            portable_ms = f"{best_ms(portable):.2f}" if portable else ""
            lines.append(f"| {name} | {entries} | {label} | {portable_ms} | "
                         f"{best_ms(fused):.2f} |")
            print(lines[-1], flush=True)
        layout_ms = best_ms(lambda: fingerprint_lists(oriented, indptr, rows, cols, vertex,
                                                      align=WEDGE_ALIGN))
        lines.append(f"| {name} | {entries} | wedge's fingerprint layout | | {layout_ms:.2f} |")
        for label, n_keys in sorts:
            lines.append(f"| {name} | {entries} | {label}'s sort alone ({n_keys} random 64-bit "
                         f"keys) | | {sort_alone_ms(n_keys):.2f} |")
            print(lines[-1], flush=True)
        del g, lo, hi, deg, oriented, out_degree, plan, indptr, rows, cols
        result = count((src, dst), backend="gpu")
        kernels = []
        total = best_ms(lambda: kernels.append(count((src, dst), backend="gpu")))
        kernel_ms = 1e3 * min(r.timings.get("kernel_s", float("nan")) for r in kernels)
        lines.append(f"| {name} | {entries} | edge list to count (auto → {result.method}, "
                     f"{result.n_triangles} triangles) | | {total:.2f} |")
        lines.append(f"| {name} | {entries} | of which the kernel ({result.method}) | | "
                     f"{kernel_ms:.2f} |")
        print(lines[-2], lines[-1], sep="\n", flush=True)
        del src, dst
        cupy.get_default_memory_pool().free_all_blocks()
    args.out.write_text("# GPU preparation steps, portable and fused\n\n" + "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
