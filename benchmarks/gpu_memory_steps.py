"""Peak GPU memory and the time of each preparation step of the hash method, on R-MAT graphs.

Peak memory is tracked with a CuPy memory hook (every allocation and free
through CuPy's pool, so the true high-water mark of live arrays) around the
phases: building the graph from the GPU-resident edge list (both directions,
repeats kept), orienting it (rank), the hash plan's parts, counting with
``method="auto"`` (plan + kernel), and counting again under a budget of 16 B
per edge + 16 B per vertex (``max_memory``: the orientation and plan built in
slices, :mod:`tricount.gpu.prepare.sliced`). The preparation steps are the
GPU's fused ones (:mod:`tricount.gpu.prepare.fused`). For each phase the table
gives the peak of everything alive (the input and the built graph included)
and the phase's own growth above what was alive when it began. Step times are
synchronized wall times. Output: one Markdown table.

    python benchmarks/gpu_memory_steps.py --scales 21 24 --out "$OUT/memory.md"
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from tricount import CSRGraph
from tricount.bench.device_memory import live_memory_hook
from tricount.bench.gpu_timer import KernelTimer
from tricount.generate import rmat
from tricount.gpu.device import cupy, device_facts
from tricount.gpu.engine import count
from tricount.gpu.methods.hash import order_tasks
from tricount.gpu.plan import HASH_BLOCK_WORK, HASH_TABLE_SPREAD, HASH_WARP_SLOTS, task_cap
from tricount.gpu.prepare import orient_by_rank, plan_partners, split_tasks


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", type=int, nargs="*", default=[21, 24])
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    cp = cupy()

    def sync():
        cp.cuda.get_current_stream().synchronize()

    lines = ["| graph | n | m | phase | seconds | peak live bytes | bytes per edge | "
             "(peak − 16 n) / m | phase's growth per edge |",
             "|---|--:|--:|---|--:|--:|--:|--:|--:|"]
    hook = live_memory_hook()
    with hook:
        for scale in args.scales:
            src, dst = rmat(scale, 16, seed=1, xp=cp)
            src, dst = cp.concatenate([src, dst]), cp.concatenate([dst, src])
            sync()
            rows = []

            def phase(name, fn, n=None, m=None):
                hook.reset()
                t0 = time.perf_counter()
                out = fn()
                sync()
                rows.append((name, time.perf_counter() - t0, hook.peak, hook.peak - hook.start))
                return out

            g = phase("build from the edge list", lambda: CSRGraph.from_edges(src, dst))
            del src, dst
            lo, hi = g.edges()
            oriented = phase("rank orientation", lambda: orient_by_rank(lo, hi, g.n_vertices,
                                                                         g.degrees))
            del lo, hi
            plan = phase("plan (owner/partner sort)", lambda: plan_partners(oriented))
            out_degree = cp.diff(oriented.indptr)
            cap = task_cap(int(plan.work.sum()), device_facts().sm_count)
            tasks = phase("tasks", lambda: split_tasks(plan, out_degree, cap))
            phase("order tasks", lambda: order_tasks(tasks, out_degree, block_work=HASH_BLOCK_WORK,
                                                     warp_slots=HASH_WARP_SLOTS,
                                                     spread=HASH_TABLE_SPREAD))
            del plan, tasks, out_degree, oriented
            count(g, method="auto")  # compiles the kernels
            cp.get_default_memory_pool().free_all_blocks()
            result = phase("count(method='auto') from the built graph",
                           lambda: count(g, method="auto"))
            n, m = g.n_vertices, g.n_edges
            budget = 16 * m + 16 * n
            count(g, method="auto", max_memory=budget)  # compiles the slice kernels
            cp.get_default_memory_pool().free_all_blocks()
            sliced = phase("count(method='auto', max_memory=16 m + 16 n) from the built graph",
                           lambda: count(g, method="auto", max_memory=budget, timer=KernelTimer))
            if sliced.n_triangles != result.n_triangles:
                raise SystemExit(f"rmat-s{scale}: {sliced.n_triangles} triangles under the "
                                 f"budget against {result.n_triangles}")
            for name, seconds, peak, growth in rows:
                lines.append(f"| rmat-s{scale} | {n} | {m} | {name} | {seconds:.4f} | {peak} | "
                             f"{peak / m:.1f} | {(peak - 16 * n) / m:.1f} | {growth / m:.1f} |")
            lines.append(f"| rmat-s{scale} | {n} | {m} | (count: {result.n_triangles} triangles "
                         f"by {result.method}) | | | | | |")
            lines.append(f"| rmat-s{scale} | {n} | {m} | (under the budget: {sliced.method}, "
                         f"{sliced.method_reason.split('; ')[-1]}; orientation "
                         f"{sliced.timings['preprocess_s']:.4f} s, plan and kernels "
                         f"{sliced.timings['count_s']:.4f} s, kernels alone "
                         f"{sliced.timings['kernel_s']:.4f} s) | | | | | |")
            del g, result, sliced
            cp.get_default_memory_pool().free_all_blocks()
            print("\n".join(lines), flush=True)
    args.out.write_text("# Peak GPU memory and preparation steps\n\n" + "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
