"""Issue 25 on a GPU machine, in one call: small graphs from a built device graph, large graphs
end to end beside their floors, and the user's time from the command to the answer.

    python benchmarks/gpu_user_time.py --out $OUT/gpu_user_time      # writes .md and .json

Three tables (each skippable: --no-small, --no-large, --no-cli):

1. **From a built graph on the device to the count**, the five real graphs of issue 7
   (``--small``), read from ``--data`` (``$TRICOUNT_DATA``) and copied to the device once:
   per trial a fresh ``CSRGraph`` from the device's ``indptr``/``indices`` (as
   ``CSRGraph.from_edges`` leaves it: no rows, no degrees, no orientation), then
   ``tricount.gpu.engine.count``. ``auto`` and each (method, orientation) the plan can
   take -- so that the id-order paths, which skip the rank orientation, are measured
   against the rank order ones (``tricount.gpu.plan``'s small-graph rules); ``auto`` is the
   short route (``tricount.gpu.small``) there, beside it on new device arrays per trial and
   ``auto`` on the planned route (``plan=Plan()``). Beside each: the kernel alone (the
   benchmark's KernelTimer, a separate run) and the count. ``--bound-scales`` adds R-MAT
   graphs around the short route's edge bound, short against planned.
2. **End to end from both-direction edge arrays on the device** (R-MAT ``--scales`` and
   uniform random 2^24 with 2^28 edges, generated on the device): per trial
   ``CSRGraph.from_edges(src, dst)`` and the count, synchronized; beside it the floors:
   a CuPy (CUB) sort of the same 2m keys as 64-bit and as 32-bit words, and a device copy
   of the 64-bit keys.
3. **The user's time** (``tricount.bench.usertime``): ``tricount count FILE`` in fresh
   processes for every shared graph, auto beside ``--backend cpu`` and ``--backend gpu``
   and the python-igraph script, warm (median of ``--repeat``), and cold (empty Numba and
   CuPy caches) for ``--cold`` files; ``python -c "import tricount"`` once.

Every count is checked: the real graphs against the CPU engine, every variant against
auto, the edge-array graphs' counts against each other across trials. Medians of
``--trials`` after one untimed warm-up (tricount.bench.trials, GAPBS's loop).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = os.environ.get("TRICOUNT_DATA", str(ROOT.parent / "shared" / "data" / "graphs"))
SMALL = ("email-Enron", "ego-Facebook", "ca-HepPh", "soc-Epinions1", "blogcatalog")
#: (label, method, orientation, launch-shape options) for the small graphs; options None
#: passes an empty ``Plan()``, which asks for the planned route (``auto`` alone takes the
#: short route, ``tricount.gpu.small``, on these graphs). The short route replays a CUDA
#: graph for arrays it has counted before, as every trial's fresh ``CSRGraph`` over the
#: same device arrays is; "copies" gives each trial new device arrays (copied untimed,
#: all kept alive so that no address repeats), so that every count launches its kernels.
VARIANTS = (
    ("auto", "auto", "auto", {}),
    ("auto, new arrays", "auto", "auto", "copies"),  # each trial's graph on new device arrays
    ("auto, planned route", "auto", "auto", None),  # plan=Plan(): past the short route
    ("wedge, rank", "wedge", "rank", {}),
    ("wedge, id", "wedge", "id", {}),
    ("wedge csr, id", "wedge", "id", {"layout": "csr"}),
    ("bitwedge, rank", "bitwedge", "rank", {}),
    ("bitwedge anchor pairs, id", "bitwedge", "id", {"pairs": "anchor"}),
    ("bitwedge anchor pairs, rank", "bitwedge", "rank", {"pairs": "anchor"}),
    ("hash, rank", "hash", "rank", {}),
)


def median_ms(runs) -> float:
    return 1e3 * statistics.median(run.seconds for run in runs)


def small_graphs(args, cupy, lines: list, records: list) -> None:
    import tricount
    from tricount.bench.gpu_timer import KernelTimer
    from tricount.bench.trials import gpu_synchronize, trial_loop
    from tricount.gpu import engine
    from tricount.gpu.plan import Plan, tuned

    lines += ["## From a built graph on the device to the count", "",
              "Milliseconds, median of the trials: `count` is `engine.count` on a fresh "
              "device `CSRGraph` (indptr, indices); `kernel` the counting kernel alone "
              "(KernelTimer, another run). Target: 0.15 ms.", "",
              "| graph | n | m | variant | method run | count ms | kernel ms | triangles ok |",
              "|---|--:|--:|---|---|--:|--:|---|"]
    for name in args.small:
        host = tricount.load_graph(Path(args.data) / f"{name}.txt.gz")
        expected = tricount.count_triangles(host, backend="cpu")
        dev = host.to_device(cupy)
        indptr, indices = dev.indptr, dev.indices

        def fresh():
            return tricount.Graph.from_upper_csr(indptr, indices, host.n_vertices,
                                                 vertex_ids=host.vertex_ids)

        kept = []  # the copies of one variant, alive until it ends

        def copied():
            kept.append((indptr.copy(), indices.copy()))
            return tricount.Graph.from_upper_csr(*kept[-1], host.n_vertices,
                                                 vertex_ids=host.vertex_ids)

        for label, method, orientation, options in VARIANTS:
            plan = (Plan() if options is None else
                    tuned(method, **options) if isinstance(options, dict) and options else None)
            setup = copied if options == "copies" else fresh

            def run(graph, timer=None):
                return engine.count(graph, method=method, orientation=orientation, plan=plan,
                                    timer=timer)

            try:
                warm, runs = trial_loop(run, args.trials, setup=setup,
                                        synchronize=gpu_synchronize)
                timed = run(setup(), KernelTimer)
                kept.clear()
            except Exception as exc:  # a variant that cannot run here: say so, go on
                lines.append(f"| {name} | {host.n_vertices} | {host.n_edges} | {label} | "
                             f"failed: {type(exc).__name__}: {str(exc)[:80]} | | | |")
                continue
            ok = all(r.value.n_triangles == expected for r in runs) and \
                warm.n_triangles == expected
            count_ms, kernel_ms = median_ms(runs), 1e3 * timed.timings["kernel_s"]
            lines.append(f"| {name} | {host.n_vertices} | {host.n_edges} | {label} | "
                         f"{warm.method} | {count_ms:.3f} | {kernel_ms:.4f} | "
                         f"{'yes' if ok else 'NO'} |")
            records.append({"table": "small", "graph": name, "variant": label,
                            "method": warm.method, "reason": warm.method_reason,
                            "count_ms": count_ms, "kernel_ms": kernel_ms, "ok": ok})
            print(lines[-1], file=sys.stderr, flush=True)
        del dev
        cupy.get_default_memory_pool().free_all_blocks()
    lines.append("")


def bound_table(args, cupy, lines: list, records: list) -> None:
    """R-MAT graphs of ``--bound-scales`` around the short route's edge bound: ``auto`` (the
    short route while the graph qualifies) beside ``auto`` on the planned route."""
    import tricount
    from tricount.bench.trials import gpu_synchronize, trial_loop
    from tricount.generate import rmat
    from tricount.gpu import engine
    from tricount.gpu.plan import SHORT_ROUTE_MAX_EDGES, Plan

    lines += ["## Around the short route's bound (R-MAT, edge factor 16, seed 1)", "",
              f"Milliseconds, median of the trials, from a fresh device `CSRGraph` (bound: "
              f"{SHORT_ROUTE_MAX_EDGES:,} edges).", "",
              "| graph | n | m | auto method | auto ms | planned method | planned ms | agree |",
              "|---|--:|--:|---|--:|---|--:|---|"]
    for scale in args.bound_scales:
        src, dst = rmat(scale, 16, seed=1, xp=cupy)
        built = tricount.Graph.from_edges(cupy.concatenate([src, dst]),
                                          cupy.concatenate([dst, src]))
        del src, dst
        indptr, indices, n, ids = built.indptr, built.indices, built.n_vertices, built.vertex_ids

        def fresh():
            return tricount.Graph.from_upper_csr(indptr, indices, n, vertex_ids=ids)

        row = []
        for plan in (None, Plan()):
            warm, runs = trial_loop(lambda g: engine.count(g, plan=plan), args.trials,
                                    setup=fresh, synchronize=gpu_synchronize)
            row.append((warm, median_ms(runs), {r.value.n_triangles for r in runs}))
        agree = len(row[0][2] | row[1][2] | {row[0][0].n_triangles, row[1][0].n_triangles}) == 1
        lines.append(f"| rmat-s{scale} | {n} | {built.n_edges} | {row[0][0].method} | "
                     f"{row[0][1]:.3f} | {row[1][0].method} | {row[1][1]:.3f} | "
                     f"{'yes' if agree else 'NO'} |")
        records.append({"table": "bound", "graph": f"rmat-s{scale}", "n": n,
                        "m": built.n_edges, "auto_method": row[0][0].method,
                        "auto_ms": row[0][1], "planned_method": row[1][0].method,
                        "planned_ms": row[1][1], "agree": agree})
        print(lines[-1], file=sys.stderr, flush=True)
        built = indptr = indices = ids = None  # the next graph needs the room
        cupy.get_default_memory_pool().free_all_blocks()
    lines.append("")


def _floors(cupy, src, dst, trials: int) -> dict:
    """Milliseconds of a 64-bit and a 32-bit sort of the 2m keys, and of a 64-bit copy."""
    from tricount.bench.trials import gpu_synchronize, trial_loop

    def timed(call, keys) -> float:
        return median_ms(trial_loop(lambda _: call(keys), trials, synchronize=gpu_synchronize,
                                    keep=False)[1])

    wide = (src.astype(cupy.uint64) << cupy.uint64(32)) | dst.astype(cupy.uint64)
    floors = {"sort64": timed(cupy.sort, wide), "copy64": timed(cupy.copy, wide)}
    wide = None  # freed before the narrow keys are made
    floors["sort32"] = timed(cupy.sort, src.astype(cupy.uint32))
    cupy.get_default_memory_pool().free_all_blocks()
    return floors


def large_graphs(args, cupy, lines: list, records: list) -> None:
    import tricount
    from tricount.bench.trials import gpu_synchronize, trial_loop
    from tricount.generate import erdos_renyi, rmat
    from tricount.gpu import engine

    targets = {18: 2.0, 21: 16.0, 24: 180.0, 25: 420.0, "uniform": 30.0}
    lines += ["## End to end from both-direction edge arrays on the device", "",
              "Milliseconds, median of the trials: `CSRGraph.from_edges(src, dst)` on the "
              "device arrays (each edge in both directions, repeats and loops as generated) "
              "and `engine.count`, synchronized. Floors: CuPy (CUB) sorts of the same 2m "
              "keys, 64-bit and 32-bit, and a device copy of the 64-bit keys.", "",
              "| graph | entries (2m) | method | build ms | count ms | total ms | target ms | "
              "sort 64-bit ms | sort 32-bit ms | copy 64-bit ms | counts agree |",
              "|---|--:|---|--:|--:|--:|--:|--:|--:|--:|---|"]
    specs = [(f"rmat-s{s}", s) for s in args.scales]
    if args.uniform:
        specs.append(("uniform 2^24, 2^28 edges", "uniform"))
    for label, spec in specs:
        if spec == "uniform":
            src, dst = erdos_renyi(1 << 24, 1 << 28, seed=1, xp=cupy)
        else:
            src, dst = rmat(spec, 16, seed=1, xp=cupy)
        both = (cupy.concatenate([src, dst]), cupy.concatenate([dst, src]))
        del src, dst
        phases = []

        def end_to_end(_):
            t0 = time.perf_counter()
            graph = tricount.Graph.from_edges(*both)
            gpu_synchronize()
            t1 = time.perf_counter()
            result = engine.count(graph)
            phases.append((t1 - t0, time.perf_counter() - t1))
            return result.n_triangles, result.method

        warm, runs = trial_loop(end_to_end, args.trials, synchronize=gpu_synchronize)
        cupy.get_default_memory_pool().free_all_blocks()
        floors = _floors(cupy, both[0], both[1], args.trials)
        build = 1e3 * statistics.median(p[0] for p in phases[1:])
        count = 1e3 * statistics.median(p[1] for p in phases[1:])
        agree = len({run.value for run in runs} | {warm}) == 1
        total = median_ms(runs)
        lines.append(f"| {label} | {int(both[0].size):,} | {warm[1]} | {build:.2f} | {count:.2f} | "
                     f"{total:.2f} | {targets.get(spec, '')} | {floors['sort64']:.2f} | "
                     f"{floors['sort32']:.2f} | {floors['copy64']:.2f} | "
                     f"{'yes' if agree else 'NO'} |")
        records.append({"table": "large", "graph": label, "entries": int(both[0].size),
                        "triangles": warm[0], "method": warm[1], "build_ms": build,
                        "count_ms": count, "total_ms": total, **floors, "agree": agree})
        print(lines[-1], file=sys.stderr, flush=True)
        both = None  # the next graph needs the room
        cupy.get_default_memory_pool().free_all_blocks()
    lines.append("")


def user_time_table(args, lines: list, records: list) -> None:
    from tricount.bench import usertime

    files = sorted(Path(args.data).glob("*.txt.gz"))
    sides = [s for s in usertime.default_sides(gpu=True, igraph=not args.no_igraph)
             if s.label in ("auto", "cpu/bitmap", "cpu/spgemm", "gpu/auto", "igraph")]
    result = usertime.user_time(files, sides, repeat=args.repeat,
                                progress=lambda text: print(text, file=sys.stderr, flush=True))
    lines.append(usertime.markdown(result, sides, command="benchmarks/gpu_user_time.py "
                                   "(warm)").replace("# tricount user time", "## The user's "
                                                     "time, warm"))
    cold_files = [f for f in files if f.name.split(".")[0] in args.cold]
    cold_sides = [s for s in sides if s.label in ("auto", "cpu/bitmap", "gpu/auto")]
    if cold_files:
        cold = usertime.user_time(cold_files, cold_sides, repeat=1, cold=True)
        lines.append(usertime.markdown(cold, cold_sides, command="benchmarks/gpu_user_time.py "
                                       "(cold)").replace("# tricount user time", "## The user's "
                                                         "time, cold and warm"))
    for res in [result] + ([cold] if cold_files else []):
        records.append({"table": "user time",
                        "import_s": res["import"].wall,
                        "rows": [{"name": r["name"], "answers": r["answers"],
                                  "warm": {k: [c.wall, c.cpu] for k, c in r["warm"].items()},
                                  "cold": {k: [c.wall, c.cpu] for k, c in r["cold"].items()}}
                                 for r in res["rows"]]})


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="writes OUT.md and OUT.json")
    parser.add_argument("--data", default=DEFAULT_DATA)
    parser.add_argument("--small", nargs="*", default=list(SMALL))
    parser.add_argument("--scales", type=int, nargs="*", default=[18, 21, 24, 25])
    parser.add_argument("--no-uniform", dest="uniform", action="store_false")
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=1, help="warm CLI runs per cell")
    parser.add_argument("--cold", nargs="*", default=["karate", "soc-Epinions1"],
                        help="files timed cold too (empty caches)")
    parser.add_argument("--bound-scales", type=int, nargs="*", default=[],
                        help="R-MAT scales timed around the short route's bound (default none)")
    parser.add_argument("--no-small", action="store_true")
    parser.add_argument("--no-large", action="store_true")
    parser.add_argument("--no-cli", action="store_true")
    parser.add_argument("--no-igraph", action="store_true")
    args = parser.parse_args(argv)

    import cupy

    from tricount.bench.environment import device, machine, utc_now, versions

    lines = ["# Issue 25 on the GPU: small graphs, large graphs end to end, the user's time", "",
             f"- date: {utc_now()}",
             f"- command: `python benchmarks/gpu_user_time.py {' '.join(argv or sys.argv[1:])}`",
             f"- machine: {machine()}", f"- device: {device('gpu')}",
             f"- versions: {versions(('gpu',))}", ""]
    records: list = []
    for wanted, part in ((not args.no_small, small_graphs), (bool(args.bound_scales), bound_table),
                         (not args.no_large, large_graphs)):
        if wanted:
            part(args, cupy, lines, records)
    if not args.no_cli:
        user_time_table(args, lines, records)
    Path(f"{args.out}.md").write_text("\n".join(lines) + "\n")
    Path(f"{args.out}.json").write_text(json.dumps(records, indent=1, default=str) + "\n")
    print("\n".join(lines))
    bad = [r for r in records if r.get("ok") is False or r.get("agree") is False]
    return 4 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
