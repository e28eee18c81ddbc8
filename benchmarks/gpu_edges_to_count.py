"""From edge arrays on the GPU to the count: the entries route against the build, beside the floor.

Input: R-MAT (graph500 parameters, edge factor 16, seed 1) or the uniform random
graph G(2^k, 16 * 2^k) (``--er``), drawn on the GPU and listed in both directions
with its repeats: the user's ``(src, dst)`` int64 arrays. For each graph, in one
process, alternated round by round (best of ``--rounds``):

- ``tricount.count((src, dst), backend="gpu")`` as it runs now (the entries route
  from ``tricount.gpu.engine.ENTRIES_ROUTE_MIN`` entries), and with that route off
  (the graph built, then oriented: the code before the route);
- each route's kernel alone (the engine's timer);
- the entries route's steps, each synchronized: the id range, the raw degrees, the
  ranks, the bucketing (row lengths, starts, scatter), the rows' sort and unique
  pass, the compaction;
- the floor: one CuPy (CUB) sort of as many random 64-bit and 32-bit keys as there
  are entries, and one device copy of the 64-bit keys.

Every count is checked against the other route's and, for the graphs on record,
against the known count. Output: a Markdown table (``--out``) and one JSON line per
measurement on stdout.

    python benchmarks/gpu_edges_to_count.py --scales 18 21 24 25 --er 24 --out "$OUT/e2e.md"
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from tricount import CSRGraph, count
from tricount.bench.gpu_timer import KernelTimer
from tricount.generate import erdos_renyi, rmat
from tricount.gpu import engine
from tricount.gpu.device import cupy
from tricount.gpu.prepare import entries
from tricount.prep.orient import degree_rank

#: Triangles of the graphs drawn here, as recorded (benchmarks/results/gpu_issue7_h100.md).
KNOWN = {"rmat-s18": 82616666, "rmat-s21": 947949371, "rmat-s24": 10287447151,
         "rmat-s25": 22542866797, "er-2^24": 5417}
#: ENTRIES_ROUTE_MIN that turns the route off.
OFF = 1 << 62


def synchronized_ms(fn) -> tuple[float, object]:
    cp = cupy()
    cp.cuda.get_current_stream().synchronize()
    t0 = time.perf_counter()
    out = fn()
    cp.cuda.get_current_stream().synchronize()
    return 1e3 * (time.perf_counter() - t0), out


def step_times(src, dst) -> dict:
    """The entries route's steps, each synchronized (ms)."""
    cp = cupy()
    times = {}
    times["id range"], (_lo, top) = synchronized_ms(lambda: entries.id_range(src, dst))
    times["raw degrees"], (degree, _looped, _loops) = synchronized_ms(
        lambda: entries.raw_degrees(src, dst, top + 1))
    times["ranks"], rank = synchronized_ms(
        lambda: degree_rank(degree.astype(cp.int64), top + 1, cp.int32))
    times["bucketing"], buckets = synchronized_ms(lambda: entries.bucket_rows(src, dst, rank))
    times["sort and unique rows"], (kept, _d) = synchronized_ms(
        lambda: entries.unique_rows(buckets))
    times["compaction"], _o = synchronized_ms(lambda: entries.compact_rows(buckets, kept))
    return times


def floor_ms(n_keys: int) -> tuple[float, float, float]:
    """One CuPy sort of ``n_keys`` random 64-bit keys, one copy of them, one sort of as
    many 32-bit keys: best of 3 each (ms)."""
    cp = cupy()
    keys = cp.random.randint(0, 2**63 - 1, size=n_keys, dtype=cp.int64).view(cp.uint64)
    sort64 = min(synchronized_ms(lambda: cp.sort(keys))[0] for _ in range(3))
    copy64 = min(synchronized_ms(lambda: keys.copy())[0] for _ in range(3))
    keys = cp.random.randint(0, 2**31 - 1, size=n_keys, dtype=cp.int32).view(cp.uint32)
    sort32 = min(synchronized_ms(lambda: cp.sort(keys))[0] for _ in range(3))
    return sort64, copy64, sort32


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", type=int, nargs="*", default=[18, 21])
    parser.add_argument("--er", type=int, nargs="*", default=[])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    cp = cupy()
    graphs = [(f"rmat-s{k}", lambda k=k: rmat(k, 16, seed=1, xp=cp)) for k in args.scales]
    graphs += [(f"er-2^{k}", lambda k=k: erdos_renyi(2**k, 16 * 2**k, seed=1, xp=cp))
               for k in args.er]
    rows = ["| graph | entries | route | method | ms (best) | ms (all rounds) | kernel ms |",
            "|---|--:|---|---|--:|---|--:|"]
    steps_rows = ["| graph | step | ms |", "|---|---|--:|"]
    floor_rows = ["| graph | entries | 64-bit sort ms | 32-bit sort ms | 64-bit copy ms |",
                  "|---|--:|--:|--:|--:|"]
    default_min = engine.ENTRIES_ROUTE_MIN
    for name, generate in graphs:
        src, dst = generate()
        src, dst = cp.concatenate([src, dst]), cp.concatenate([dst, src])
        n_entries = int(src.shape[0])
        times = {"entries": [], "build": []}
        answers, methods = {}, {}
        for _round in range(args.rounds + 1):  # the first round warms up
            for route, minimum in (("entries", default_min), ("build", OFF)):
                engine.ENTRIES_ROUTE_MIN = minimum
                ms, result = synchronized_ms(lambda: count((src, dst), backend="gpu"))
                if _round:
                    times[route].append(ms)
                answers.setdefault(route, set()).add(result.n_triangles)
                methods[route] = result.method
        engine.ENTRIES_ROUTE_MIN = default_min
        counted = answers["entries"] | answers["build"]
        if len(counted) != 1 or (name in KNOWN and counted != {KNOWN[name]}):
            raise SystemExit(f"{name}: counts disagree: {answers}, known {KNOWN.get(name)}")
        triangles = counted.pop()
        kernel = {}
        kernel["entries"] = min(
            engine.count_entries(src, dst, timer=KernelTimer)[0].timings["kernel_s"]
            for _ in range(3))
        built = CSRGraph.from_edges(src, dst)
        kernel["build"] = min(engine.count(built, timer=KernelTimer).timings["kernel_s"]
                              for _ in range(3))
        del built
        for route in ("entries", "build"):
            label = "entries route" if route == "entries" else "graph built, then oriented"
            rows.append(f"| {name} | {n_entries} | {label} | {methods[route]} | "
                        f"{min(times[route]):.2f} | "
                        f"{' '.join(f'{t:.1f}' for t in times[route])} | "
                        f"{1e3 * kernel[route]:.2f} |")
            print(json.dumps({"graph": name, "entries": n_entries, "route": route,
                              "method": methods[route], "ms": times[route],
                              "kernel_ms": 1e3 * kernel[route],
                              "triangles": triangles}), flush=True)
        best_steps = {}
        for _ in range(3):
            for step, ms in step_times(src, dst).items():
                best_steps[step] = min(ms, best_steps.get(step, ms))
        for step, ms in best_steps.items():
            steps_rows.append(f"| {name} | {step} | {ms:.2f} |")
        print(json.dumps({"graph": name, "steps_ms": best_steps}), flush=True)
        sort64, copy64, sort32 = floor_ms(n_entries)
        floor_rows.append(f"| {name} | {n_entries} | {sort64:.2f} | {sort32:.2f} | {copy64:.2f} |")
        print(json.dumps({"graph": name, "sort64_ms": sort64, "sort32_ms": sort32,
                          "copy64_ms": copy64}), flush=True)
        src = dst = None
        cp.get_default_memory_pool().free_all_blocks()
    args.out.write_text("\n".join(rows) + "\n\n" + "\n".join(steps_rows) + "\n\n"
                        + "\n".join(floor_rows) + "\n")
    print("\n".join(rows + [""] + steps_rows + [""] + floor_rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
