"""Benchmark the GPU methods on R-MAT graphs and the real graphs; verify every count.

The production methods (hash, wedge, bitwedge, auto) and the lab methods of
``benchmarks/baselines`` (merge, binary, dynamic, bitmap, shared, radix,
spgemm) run through the same engine; a variant is a method with launch-shape
fields (a partial plan of :mod:`tricount.gpu.plan`), named by its label.

The loop follows GAPBS (:func:`tricount.bench.trials.trial_loop`): load and
build each graph once (each phase timed), then per method one untimed warm-up
(it also compiles the kernel), N synchronized trials, and a check of every
trial's count. One JSON line per trial goes to ``gpu_methods.jsonl``; the
medians go to ``gpu_methods.md``.

Times per trial, in the Graph Challenge split (Pearson et al. §III-B):
kernel (the counting kernels alone: the benchmark's KernelTimer, CUDA events
with the stream held while the launch is enqueued, so Python's launch overhead
is not in it), count (all counting work),
gpu (from the graph built on the GPU: orientation + count), and total
(input to answer: for real graphs ``tricount.load_graph`` on the host, then
the copy to the GPU, orientation and count; for R-MAT and G(n, m) the edge
list generated on the GPU and listed in both directions, repeats kept, as issue
7 specifies the input, then building it on the GPU — the median of 3 builds
after a warm-up build — orientation and count). Edge rates divide the
undirected edges, each counted once, by a time.

Counts are checked against graphs.json (real graphs) or, for R-MAT, against
the merge method, and at scale <= 18 also against the CPU engine.

    python benchmarks/gpu_methods.py --scales 18 21 24 --out "$OUT"
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

from baselines import method_plan  # noqa: E402
from tricount import CSRGraph, load_graph  # noqa: E402
from tricount.bench.gpu_timer import KernelTimer  # noqa: E402
from tricount.bench.trials import fresh_graph, gpu_synchronize, trial_loop  # noqa: E402
from tricount.cpu.engine import count as cpu_count  # noqa: E402
from tricount.errors import UnsupportedGraphError  # noqa: E402
from tricount.generate import GENERATORS, erdos_renyi, rmat, rmat_name  # noqa: E402
from tricount.gpu.device import cupy  # noqa: E402
from tricount.gpu.engine import count  # noqa: E402

#: (label, method, options) run on every graph, in this order.
METHODS = [
    ("merge", "merge", {}),
    ("binary-warp", "binary", {"variant": "warp"}),
    ("binary-thread", "binary", {"variant": "thread"}),
    ("dynamic", "dynamic", {}),
    ("bitmap", "bitmap", {}),
    ("shared", "shared", {}),
    ("radix", "radix", {}),
    ("spgemm", "spgemm", {}),
    ("hash", "hash", {}),
    ("wedge", "wedge", {}),
    ("bitwedge", "bitwedge", {}),
    ("auto", "auto", {}),
]
#: Variants for tuning runs only (name them with --methods).
TUNING = [
    ("hash-e64", "hash", {"edge32": False}),
    ("hash-u4-mb6", "hash", {"unroll": 4, "min_blocks": 6}),
    ("hash-u8-mb6", "hash", {"unroll": 8, "min_blocks": 6}),
    ("hash-byowner", "hash", {"by_owner": True}),
    ("hash-tpw16", "hash", {"tasks_per_warp": 16}),
    ("hash-tpw1", "hash", {"tasks_per_warp": 1}),
    ("hash-s8", "hash", {"spread": 8}),
    ("hash-ws1024", "hash", {"warp_slots": 1024}),
    ("hash-bw4k", "hash", {"block_work": 1 << 12}),
    ("hash-bw64k", "hash", {"block_work": 1 << 16}),
    ("hash-ll32", "hash", {"long_list": 32}),
    ("hash-ws1024-bw4k", "hash", {"warp_slots": 1024, "block_work": 1 << 12}),
    ("hash-ws1024-ll32", "hash", {"warp_slots": 1024, "long_list": 32}),
    ("hash-bw4k-ll32", "hash", {"block_work": 1 << 12, "long_list": 32}),
    ("hash-ws1024-bw4k-ll32", "hash", {"warp_slots": 1024, "block_work": 1 << 12,
                                       "long_list": 32}),
    ("hash-u6-mb8", "hash", {"unroll": 6, "min_blocks": 8}),
    ("hash-ws1024-ll64", "hash", {"warp_slots": 1024, "long_list": 64}),
    ("hash-ws1024-ll32-s2", "hash", {"warp_slots": 1024, "long_list": 32, "spread": 2}),
    ("hash-ws1024-ll32-s8", "hash", {"warp_slots": 1024, "long_list": 32, "spread": 8}),
    ("hash-ws1024-ll32-u2", "hash", {"warp_slots": 1024, "long_list": 32, "unroll": 2}),
    ("hash-ws1024-ll32-u6", "hash", {"warp_slots": 1024, "long_list": 32, "unroll": 6}),
    ("hash-ws1024-ll32-tpw1", "hash", {"warp_slots": 1024, "long_list": 32,
                                       "tasks_per_warp": 1}),
    ("hash-ws1024-ll32-tpw8", "hash", {"warp_slots": 1024, "long_list": 32,
                                       "tasks_per_warp": 8}),
    ("hash-ws1024-ll32-b128", "hash", {"warp_slots": 1024, "long_list": 32, "block_size": 128}),
    ("hash-ws1024-ll32-mb4", "hash", {"warp_slots": 1024, "long_list": 32, "min_blocks": 4}),
    ("hash-ws2048-ll32", "hash", {"warp_slots": 2048, "long_list": 32}),
    ("hash-ws1024-ll32-nobatch", "hash", {"warp_slots": 1024, "long_list": 32,
                                          "batch_bounds": False}),
    ("hash-mb7", "hash", {"min_blocks": 7}),
    ("hash-mb7-u6", "hash", {"min_blocks": 7, "unroll": 6}),
    ("hash-mb7-tpw2", "hash", {"min_blocks": 7, "tasks_per_warp": 2}),
    ("hash-mt256", "hash", {"min_task": 256}),
    ("hash-bw8k", "hash", {"block_work": 1 << 13}),
    ("hash-wc2", "hash", {"warp_claim": 2}),
    ("hash-tpw2", "hash", {"tasks_per_warp": 2}),
    ("hash-bt16k", "hash", {"block_table_bytes": 16 * 1024}),
    ("hash-bt64k", "hash", {"block_table_bytes": 64 * 1024}),
    ("hash-bt16k-ll32", "hash", {"block_table_bytes": 16 * 1024, "long_list": 32}),
    ("hash-b512", "hash", {"block_size": 512}),
    ("hash-b1024", "hash", {"block_size": 1024}),
    ("hash-b512-u4", "hash", {"block_size": 512, "unroll": 4}),
    ("hash-b512-u8", "hash", {"block_size": 512, "unroll": 8}),
    ("hash-b512-bw64k", "hash", {"block_size": 512, "block_work": 1 << 16}),
    ("hash-b512-bw4k", "hash", {"block_size": 512, "block_work": 1 << 12}),
    ("hash-b512-bt64k", "hash", {"block_size": 512, "block_table_bytes": 64 * 1024}),
    ("hash-b512-tpw8", "hash", {"block_size": 512, "tasks_per_warp": 8}),
    ("wedge-c32", "wedge", {"chunk": 32}),
    ("wedge-c128", "wedge", {"chunk": 128}),
    ("wedge-u2", "wedge", {"unroll": 2}),
    ("wedge-mb6", "wedge", {"min_blocks": 6}),
    ("wedge-e64", "wedge", {"edge32": False}),
    ("bitwedge-owner", "bitwedge", {"pairs": "owner"}),
    ("bitwedge-u2", "bitwedge", {"unroll": 2}),
    ("bitwedge-u6", "bitwedge", {"unroll": 6}),
    ("bitwedge-u8", "bitwedge", {"unroll": 8}),
    ("bitwedge-tpw2", "bitwedge", {"tasks_per_warp": 2}),
    ("bitwedge-tpw4", "bitwedge", {"tasks_per_warp": 4}),
    ("bitwedge-b64", "bitwedge", {"block_size": 64}),
    ("bitwedge-b256", "bitwedge", {"block_size": 256}),
    ("bitwedge-mb16", "bitwedge", {"min_blocks": 16}),
    ("bitwedge-mt1024", "bitwedge", {"min_task": 1024}),
    ("bitwedge-ac64", "bitwedge", {"anchor_cost": 64}),
    ("bitwedge-ac1024", "bitwedge", {"anchor_cost": 1024}),
    ("bitwedge-pc32", "bitwedge", {"pair_cost": 32}),
    ("bitwedge-mb12", "bitwedge", {"min_blocks": 12}),
    ("bitwedge-owner-u8", "bitwedge", {"pairs": "owner", "unroll": 8}),
    ("bitwedge-owner-u6", "bitwedge", {"pairs": "owner", "unroll": 6}),
    ("bitwedge-owner-b256", "bitwedge", {"pairs": "owner", "block_size": 256}),
    ("bitwedge-owner-tpw2", "bitwedge", {"pairs": "owner", "tasks_per_warp": 2}),
    ("bitwedge-owner-ac64", "bitwedge", {"pairs": "owner", "anchor_cost": 64}),
    ("bitwedge-owner-ac1024", "bitwedge", {"pairs": "owner", "anchor_cost": 1024}),
    ("bitwedge-owner-mb16", "bitwedge", {"pairs": "owner", "min_blocks": 16}),
    ("bitwedge-owner-pc32", "bitwedge", {"pairs": "owner", "pair_cost": 32}),
    ("bitwedge-owner-b256-global", "bitwedge", {"pairs": "owner", "block_size": 256,
                                                 "bitmaps": "global"}),
    ("bitwedge-owner-b256-u6", "bitwedge", {"pairs": "owner", "block_size": 256, "unroll": 6}),
    ("bitwedge-owner-b256-mb4", "bitwedge", {"pairs": "owner", "block_size": 256,
                                              "min_blocks": 4}),
    ("bitwedge-owner-b512", "bitwedge", {"pairs": "owner", "block_size": 512}),
    ("bitwedge-owner-shared-b64", "bitwedge", {"pairs": "owner", "bitmaps": "shared",
                                                "block_size": 64}),
    ("bitwedge-global", "bitwedge", {"bitmaps": "global"}),
    ("wedge-csr", "wedge", {"layout": "csr"}),
    ("wedge-a8", "wedge", {"align": 8}),
    ("wedge-a1", "wedge", {"align": 1}),
    ("wedge-u6", "wedge", {"unroll": 6}),
    ("wedge-f0", "wedge", {"filter_anchors": 0}),
    ("wedge-f0-mb6", "wedge", {"filter_anchors": 0, "min_blocks": 6}),
    ("wedge-fb1024", "wedge", {"filter_bits": 1024}),
    ("wedge-fb4096", "wedge", {"filter_bits": 4096, "filter_anchors": 6}),
    ("wedge-mb6-fb4096", "wedge", {"filter_bits": 4096, "filter_anchors": 6, "min_blocks": 6}),
    ("wedge-fa16-fb1024", "wedge", {"filter_bits": 1024, "filter_anchors": 16}),
    ("wedge-u4", "wedge", {"unroll": 4}),
    ("wedge-u4-mb6", "wedge", {"unroll": 4, "min_blocks": 6}),
    ("wedge-u6-mb6", "wedge", {"unroll": 6, "min_blocks": 6}),
    ("wedge-u3-mb6", "wedge", {"unroll": 3, "min_blocks": 6}),
    ("wedge-wedges", "wedge", {"lanes": "wedges", "min_blocks": 8}),
    ("wedge-edges", "wedge", {"lanes": "edges"}),
    ("wedge-edges-c32", "wedge", {"lanes": "edges", "chunk": 32}),
    ("wedge-edges-c128", "wedge", {"lanes": "edges", "chunk": 128, "filter_anchors": 16,
                                   "filter_bits": 1024}),
    ("wedge-edges-mb6", "wedge", {"lanes": "edges", "min_blocks": 6}),
    ("wedge-edges-fb4096", "wedge", {"lanes": "edges", "filter_bits": 4096,
                                     "filter_anchors": 6}),
    ("wedge-edges-fb1024", "wedge", {"lanes": "edges", "filter_bits": 1024}),
    ("wedge-id", "wedge", {"orientation": "id"}),
    ("wedge-wedges-id", "wedge", {"orientation": "id", "lanes": "wedges", "min_blocks": 8}),
]
#: Builds from the GPU edge list timed after a warm-up build (median of these).
BUILD_TRIALS = 3
#: A method whose warm-up took this long gets fewer trials (at least one).
METHOD_BUDGET_S = 20.0
#: Skip a method on an R-MAT graph when its time, extrapolated from the previous
#: scale as (m / m_prev) ** RMAT_TIME_EXPONENT, would pass this many seconds.
METHOD_MAX_S = 30.0
#: R-MAT work grows faster than its edges (more wedges per edge at each scale).
RMAT_TIME_EXPONENT = 1.5
#: Scales at or below this are also checked against the CPU engine.
CPU_CHECK_MAX_SCALE = 18


def default_data_dir() -> Path:
    env = os.environ.get("TRICOUNT_DATA")
    if env:
        return Path(env)
    return (Path(__file__).resolve().parents[1] / "../shared/data/graphs").resolve()


def device_info() -> dict:
    cp = cupy()
    dev = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(dev.id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])

    def version(v):
        return f"{v // 1000}.{(v % 1000) // 10}"

    return {
        "device": name,
        "sm_count": dev.attributes["MultiProcessorCount"],
        "memory_gib": round(props["totalGlobalMem"] / 2**30, 1),
        "cuda_runtime": version(cp.cuda.runtime.runtimeGetVersion()),
        "cuda_driver": version(cp.cuda.runtime.driverGetVersion()),
        "cupy": cp.__version__,
    }


def both_directions(src, dst):
    """Every drawn edge listed as (u, v) and as (v, u): the end-to-end input of issue 7."""
    cp = cupy()
    return cp.concatenate([src, dst]), cp.concatenate([dst, src])


def timed_builds(src, dst, **kwargs):
    """Build the graph on the GPU: one warm-up build (it compiles the preparation
    kernels and grows CuPy's memory pool), then BUILD_TRIALS timed ones. Returns the
    last graph and the median seconds of the timed ones."""
    built = {}

    def build(_):
        built["graph"] = CSRGraph.from_edges(src, dst, **kwargs)

    # Each build starts with the previous graph dropped (outside the timed span).
    _warm, runs = trial_loop(build, BUILD_TRIALS, setup=lambda: built.pop("graph", None),
                             synchronize=gpu_synchronize)
    return built["graph"], statistics.median(run.seconds for run in runs)


def build_rmat(scale, edge_factor, seed):
    t0 = time.perf_counter()
    src, dst = both_directions(*rmat(scale, edge_factor, seed=seed, xp=cupy()))
    gpu_synchronize()
    t1 = time.perf_counter()
    g, build_s = timed_builds(src, dst, name=rmat_name(scale, edge_factor, seed))
    return g, {"generate_s": t1 - t0, "load_s": 0.0, "build_s": build_s}


def build_er(log2_n, edge_factor, seed):
    """G(n, m) with n = 2^log2_n and m = edge_factor · n distinct edges, drawn on the GPU."""
    n, m = 1 << log2_n, edge_factor << log2_n
    t0 = time.perf_counter()
    src, dst = both_directions(*erdos_renyi(n, m, seed=seed, xp=cupy()))
    gpu_synchronize()
    t1 = time.perf_counter()
    name = GENERATORS["er"].graph_name({"n": n, "m": m, "seed": seed})
    g, build_s = timed_builds(src, dst, name=name, n_vertices=n)
    return g, {"generate_s": t1 - t0, "load_s": 0.0, "build_s": build_s}


def build_real(path):
    """Read and build on the host (tricount.load_graph); the engine copies it to the GPU
    in every trial."""
    t0 = time.perf_counter()
    g = load_graph(path)
    t1 = time.perf_counter()
    return g, {"load_s": t1 - t0, "build_s": 0.0}


def run_method(g, method, options, trials, steps):
    """The warm-up's result and ``(result, timings)`` per trial of one variant; a slow
    warm-up leaves fewer trials (METHOD_BUDGET_S)."""
    plan = method_plan(method, options)
    warm, runs = trial_loop(lambda graph: count(graph, plan=plan, timer=KernelTimer), trials,
                            setup=lambda: fresh_graph(g), budget_s=METHOD_BUDGET_S)
    out = []
    for run in runs:
        t = dict(run.value.timings)
        t["total_s"] = steps["load_s"] + steps["build_s"] + t["gpu_s"]
        out.append((run.value, t))
    return warm, out


def median(values):
    return statistics.median(values) if values else None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", type=int, nargs="*", default=[18, 21, 24])
    parser.add_argument("--er", type=int, nargs="*", default=[],
                        help="also G(n, m) graphs with n = 2^K vertices, m = edge factor · n")
    parser.add_argument("--edge-factor", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data", type=Path, default=default_data_dir())
    parser.add_argument("--graphs", nargs="*", default=None, help="real graph names (default all)")
    parser.add_argument("--methods", nargs="*", default=None, help="method labels (default all)")
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--method-max-s", type=float, default=METHOD_MAX_S,
                        help="skip a method on an R-MAT graph when its extrapolated time passes this")
    parser.add_argument("--budget-s", type=float, default=300.0,
                        help="stop starting new runs after this many seconds")
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "benchmarks/results")))
    parser.add_argument("--sweep", action="store_true",
                        help="also sweep merge's block size and grid, dynamic's sf, on scale 21")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    jsonl = open(args.out / "gpu_methods.jsonl", "w")
    info = device_info()
    info["date"] = datetime.date.today().isoformat()
    info["command"] = "python benchmarks/gpu_methods.py " + " ".join(sys.argv[1:] if argv is None else argv)
    jsonl.write(json.dumps({"env": info}) + "\n")
    print(json.dumps(info), flush=True)
    methods = [m for m in METHODS + TUNING
               if (m in METHODS and args.methods is None) or (args.methods and m[0] in args.methods)]
    started = time.perf_counter()
    rows = []
    last_rmat = {}  # method label -> (m, gpu_s) on the previous R-MAT scale

    specs = []
    index = args.data / "graphs.json"
    if index.exists():
        real = sorted(json.loads(index.read_text()), key=lambda r: r["edges"])
        for row in real:
            if args.graphs is None or row["name"] in args.graphs:
                specs.append(("real", row))
    for s in args.scales:
        specs.append(("rmat", s))
    for s in args.er:
        specs.append(("er", s))

    for kind, spec in specs:
        if kind == "real":
            g, steps = build_real(args.data / spec["file"])
            expected, source = spec["triangles"], "graphs.json"
        elif kind == "er":
            g, steps = build_er(spec, args.edge_factor, args.seed)
            expected, source = None, "merge"
        else:
            g, steps = build_rmat(spec, args.edge_factor, args.seed)
            expected, source = None, "merge"
            if spec <= CPU_CHECK_MAX_SCALE:
                expected, source = cpu_count(g.to_device(np)).n_triangles, "cpu+merge"
        print(f"== {g.name}: n={g.n_vertices} m={g.n_edges} {steps}", flush=True)
        for label, method, options in methods:
            row = {"graph": g.name, "n": g.n_vertices, "m": g.n_edges, "method": label}
            if time.perf_counter() - started > args.budget_s:
                row["note"] = f"skipped: benchmark budget of {args.budget_s:.0f} s spent"
                rows.append(row)
                print(f"   {label:14s} {row['note']}", flush=True)
                continue
            if kind == "rmat" and label in last_rmat:
                m_prev, s_prev = last_rmat[label]
                estimate = s_prev * (g.n_edges / m_prev) ** RMAT_TIME_EXPONENT
                if estimate > args.method_max_s:
                    row["note"] = (f"skipped: about {estimate:.0f} s per run, extrapolated from "
                                   f"{s_prev:.2f} s at m = {m_prev}; cap {args.method_max_s:.0f} s")
                    rows.append(row)
                    print(f"   {label:14s} {row['note']}", flush=True)
                    continue
            try:
                warm, trials = run_method(g, method, options, args.trials, steps)
            except UnsupportedGraphError as exc:
                row["note"] = f"cannot run: {exc}"
                rows.append(row)
                print(f"   {label:14s} {row['note']}", flush=True)
                continue
            except Exception as exc:  # recorded as a failure, the other methods still run
                row.update(verified=False, note=f"ERROR: {type(exc).__name__}: {exc}"[:300])
                rows.append(row)
                print(f"   {label:14s} {row['note']}", flush=True)
                cupy().get_default_memory_pool().free_all_blocks()
                continue
            counts = {r.n_triangles for r, _ in trials} | {warm.n_triangles}
            if expected is None and label == "merge":
                expected = warm.n_triangles
            ok = expected is not None and counts == {expected}
            for i, (r, t) in enumerate(trials):
                jsonl.write(json.dumps({"graph": g.name, "n": g.n_vertices, "m": g.n_edges,
                                        "method": label, "ran": r.method, "reason": r.method_reason,
                                        "trial": i, "triangles": r.n_triangles, "expected": expected,
                                        "verified": ok, **steps, **t}) + "\n")
            jsonl.flush()
            med = {k: median([t[k] for _, t in trials]) for k in
                   ("kernel_s", "count_s", "gpu_s", "preprocess_s", "total_s")}
            row.update(med, triangles=warm.n_triangles, verified=ok, check=source,
                       trials=len(trials), ran=warm.method,
                       note="" if ok else f"MISMATCH: got {sorted(counts)}, expected {expected}")
            rows.append(row)
            if kind == "rmat":
                last_rmat[label] = (g.n_edges, med["gpu_s"])
            print(f"   {label:14s} tri={warm.n_triangles} kernel={med['kernel_s'] * 1e3:9.3f} ms "
                  f"count={med['count_s'] * 1e3:9.3f} ms gpu={med['gpu_s'] * 1e3:9.3f} ms "
                  f"total={med['total_s'] * 1e3:9.3f} ms ok={ok} ({len(trials)} trials)"
                  + ("" if label != "auto" else f" -> {warm.method}"), flush=True)
        del g
        cupy().get_default_memory_pool().free_all_blocks()
        write_markdown(args.out / "gpu_methods.md", info, rows, [])

    sweep_rows = []
    if args.sweep and time.perf_counter() - started < args.budget_s:
        sweep_rows = run_sweep(args, jsonl)
    jsonl.close()
    write_markdown(args.out / "gpu_methods.md", info, rows, sweep_rows)
    print((args.out / "gpu_methods.md").read_text(), flush=True)
    bad = [r for r in rows if r.get("verified") is False]
    return 1 if bad else 0


def run_sweep(args, jsonl):
    """Merge block/grid and dynamic sf on R-MAT scale 21: median kernel ms each."""
    g, steps = build_rmat(21, args.edge_factor, args.seed)
    configs = [("merge", {"block_size": b, "blocks_per_sm": k}) for b in (64, 128, 256)
               for k in (8, 16, 32)]
    configs += [("dynamic", {"sf": sf}) for sf in (0.25, 1.0, 2.0, 4.0)]
    configs += [("shared", {"columns_per_block": k}) for k in (8, 32, 128)]
    out = []
    for method, options in configs:
        warm, trials = run_method(g, method, options, 3, steps)
        ms = median([t["kernel_s"] for _, t in trials]) * 1e3
        out.append({"graph": g.name, "method": method, "options": options, "kernel_ms": ms,
                    "triangles": warm.n_triangles})
        jsonl.write(json.dumps({"sweep": True, **out[-1]}) + "\n")
        print(f"   sweep {method} {options}: {ms:.3f} ms", flush=True)
    return out


def fmt_ms(s):
    return "" if s is None else f"{s * 1e3:.3f}"


def fmt_rate(m, s):
    if not s:
        return ""
    rate = m / s / 1e6
    return f"{rate:.0f}" if rate >= 100 else f"{rate:.2g}"


def write_markdown(path, info, rows, sweep_rows):
    lines = [
        "# GPU methods benchmark",
        "",
        f"Device: {info['device']} ({info['sm_count']} SMs, {info['memory_gib']} GiB); CUDA runtime "
        f"{info['cuda_runtime']}, driver {info['cuda_driver']}; CuPy {info['cupy']}; run on "
        f"{info['date']}.",
        f"Command: `{info['command']}`",
        "",
        "Median of the trials after one untimed warm-up. kernel: counting kernel alone (GPU "
        "time: CUDA events, the stream held while the launch is enqueued); count: all counting work; gpu: from the built graph (copy to the GPU for real "
        "graphs, orientation, count); total: input to answer (real graphs: read and build on the "
        "host + gpu; R-MAT and G(n, m): build on the GPU from the GPU-generated edge list in "
        "both directions with repeats, median of 3 builds after a warm-up, + gpu). Rates: "
        "undirected edges (each once) per second, in millions.",
        "",
        "| graph | n | m | method | triangles | kernel ms | count ms | gpu ms | total ms | "
        "kernel Medge/s | total Medge/s | verified | note |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        verified = {True: f"yes ({r.get('check')})", False: "NO", None: ""}[r.get("verified")]
        method = r["method"] + (f" → {r['ran']}" if r["method"] == "auto" and r.get("ran") else "")
        lines.append(
            f"| {r['graph']} | {r['n']} | {r['m']} | {method} | {r.get('triangles', '')} | "
            f"{fmt_ms(r.get('kernel_s'))} | {fmt_ms(r.get('count_s'))} | {fmt_ms(r.get('gpu_s'))} | "
            f"{fmt_ms(r.get('total_s'))} | {fmt_rate(r['m'], r.get('kernel_s'))} | "
            f"{fmt_rate(r['m'], r.get('total_s'))} | {verified} | {r.get('note', '')} |")
    if sweep_rows:
        lines += ["", "## Sweep on " + sweep_rows[0]["graph"], "",
                  "| method | options | kernel ms | triangles |", "|---|---|---|---|"]
        for s in sweep_rows:
            lines.append(f"| {s['method']} | {s['options']} | {s['kernel_ms']:.3f} | {s['triangles']} |")
    path.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
