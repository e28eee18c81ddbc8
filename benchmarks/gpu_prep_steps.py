"""Time each GPU preparation step, fused (tricount.gpu.prepare) against portable (tricount.prep).

Input: the R-MAT edge list (graph500 parameters, edge factor 16, seed 1) or the
uniform random graph G(2^k, 16 * 2^k) (``--er``), drawn on the GPU and listed
in both directions with its repeats (the end-to-end input of docs/gpu.md). Steps: the
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
from pathlib import Path

from tricount import CSRGraph, count
from tricount.bench.gpu_timer import KernelTimer
from tricount.bench.trials import fresh_graph, gpu_synchronize, trial_loop
from tricount.generate import erdos_renyi, rmat
from tricount.gpu import engine, prepare
from tricount.gpu.device import cupy, kernel_arrays
from tricount.gpu.methods import wedge
from tricount.gpu.methods.fingerprints import fingerprint_lists
from tricount.gpu.plan import WEDGE_EDGE_LANES_MIN_BLOCKS, WEDGE_FP_UNROLL, WedgeShape
from tricount.prep import orient, partners
from tricount.prep.canonical import canonical_edges, validate_edge_arrays

#: Timed runs per step after one warm-up; the best is reported.
REPEATS = 3
#: wedge's fingerprint layout as the plan resolves it for a flat graph.
FINGERPRINTS = WedgeShape(layout="fingerprint", unroll=WEDGE_FP_UNROLL,
                          min_blocks=WEDGE_EDGE_LANES_MIN_BLOCKS)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", type=int, nargs="*", default=[21, 24])
    parser.add_argument("--er", type=int, nargs="*", default=[],
                        help="uniform random graphs G(2^k, 16 * 2^k), k given")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    cp = cupy()

    def best_ms(fn):
        _warm, runs = trial_loop(lambda _: fn(), REPEATS, synchronize=gpu_synchronize)
        return 1e3 * min(run.seconds for run in runs)

    def sort_alone_ms(n_keys):
        """One CuPy sort of ``n_keys`` random uint64 keys (its time does not
        depend on how many bits vary: benchmarks/results/gpu_prep_without_sort_h100.md)."""
        keys = cp.random.randint(0, 2**63 - 1, size=n_keys, dtype=cp.int64).view(cp.uint64)
        return best_ms(lambda: cp.sort(keys))

    graphs = [(f"rmat-s{k}", lambda k=k: rmat(k, 16, seed=1, xp=cp)) for k in args.scales]
    graphs += [(f"er-2^{k}", lambda k=k: erdos_renyi(2**k, 16 * 2**k, seed=1, xp=cp))
               for k in args.er]
    lines = ["| graph | input entries | step | portable ms | fused ms |", "|---|--:|---|--:|--:|"]
    for name, generate in graphs:
        src, dst = generate()
        src, dst = cp.concatenate([src, dst]), cp.concatenate([dst, src])
        src, dst = validate_edge_arrays(src, dst)
        entries = int(src.shape[0])
        g = CSRGraph.from_edges(src, dst)
        lo, hi = g.edges()
        deg = g.degrees
        oriented = prepare.orient_by_rank(lo, hi, g.n_vertices, deg)
        out_degree = cp.diff(oriented.indptr)
        plan = prepare.plan_partners(oriented)
        indptr, rows, cols, vertex = kernel_arrays(oriented)
        indptr = indptr.astype(cp.uint32)  # wedge's 32-bit positions, as count_wedge passes
        sorts = [("build", entries), ("orientation", g.n_edges), ("hash plan", plan.n_pairs)]
        steps = [
            ("canonical build", lambda: canonical_edges(src, dst, fused=False),
             lambda: canonical_edges(src, dst)),
            ("degrees", lambda: cp.diff(g.indptr) + cp.bincount(hi, minlength=g.n_vertices),
             lambda: cp.diff(g.indptr) + prepare.count_ids(hi, g.n_vertices)),
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
        layout_ms = best_ms(lambda: fingerprint_lists(
            oriented, indptr, rows, cols, align=FINGERPRINTS.align,
            defines=lambda **layout: wedge.kernel_defines(
                FINGERPRINTS, vertex_t=vertex, edge_t="unsigned int", id_order=1, **layout)))
        lines.append(f"| {name} | {entries} | wedge's fingerprint layout | | {layout_ms:.2f} |")
        for label, n_keys in sorts:
            lines.append(f"| {name} | {entries} | {label}'s sort alone ({n_keys} random 64-bit "
                         f"keys) | | {sort_alone_ms(n_keys):.2f} |")
            print(lines[-1], flush=True)
        del g, lo, hi, deg, oriented, out_degree, plan, indptr, rows, cols
        result = count((src, dst), backend="gpu")
        total = best_ms(lambda: count((src, dst), backend="gpu"))
        # The kernel alone: the same count through the engine, with the benchmark's timer.
        built = CSRGraph.from_edges(src, dst)
        kernels = [engine.count(fresh_graph(built), timer=KernelTimer) for _ in range(REPEATS)]
        kernel_ms = 1e3 * min(r.timings["kernel_s"] for r in kernels)
        del built
        lines.append(f"| {name} | {entries} | edge list to count (auto → {result.method}, "
                     f"{result.n_triangles} triangles) | | {total:.2f} |")
        lines.append(f"| {name} | {entries} | of which the kernel ({result.method}) | | "
                     f"{kernel_ms:.2f} |")
        print(lines[-2], lines[-1], sep="\n", flush=True)
        del src, dst
        cp.get_default_memory_pool().free_all_blocks()
    args.out.write_text("# GPU preparation steps, portable and fused\n\n" + "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
