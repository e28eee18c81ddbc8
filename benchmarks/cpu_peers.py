"""CPU engine vs SuiteSparse:GraphBLAS, NetworKit and NetworkX on R-MAT graphs.

Every side starts from the same in-memory edge arrays (R-MAT, graph500
parameters, edge factor 16, seed 1, vertices permuted; self-loops and repeats
included, as generated) and its time includes building its own graph from them.
Per (graph, side): one untimed warm-up, then N timed trials; every count is
checked against tricount's reference-validated CPU count (the run fails on a
mismatch). Edges per second use undirected simple edges counted once.

    python benchmarks/cpu_peers.py --scales 16 17 18 --trials 3

Writes benchmarks/results/cpu_peers.md and cpu_peers.jsonl.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import tricount
from tricount.generate import rmat, rmat_name

RESULTS = Path(__file__).resolve().parent / "results"


def tricount_side(method):
    def run(src, dst):
        return tricount.count_triangles((src, dst), backend="cpu", method=method)
    return run


def graphblas_side(src, dst):
    import graphblas as gb

    n = int(max(src.max(), dst.max())) + 1
    rows = np.concatenate([src, dst])
    cols = np.concatenate([dst, src])
    A = gb.Matrix.from_coo(rows, cols, True, nrows=n, ncols=n, dtype=bool)  # repeats ignored
    L = gb.select.tril(A, -1).new()  # strictly lower: drops self-loops
    C = gb.Matrix(gb.dtypes.INT64, n, n)
    C(L.S) << gb.semiring.plus_pair(L @ L.T)
    return int(C.reduce_scalar(gb.monoid.plus).new())


def networkit_side(src, dst):
    import networkit as nk

    n = int(max(src.max(), dst.max())) + 1
    G = nk.Graph(n)
    G.addEdges((src, dst), checkMultiEdge=True)
    G.removeSelfLoops()
    G.removeMultiEdges()
    G.indexEdges()
    score = nk.sparsification.TriangleEdgeScore(G)
    score.run()
    return int(round(sum(score.scores()))) // 3


def networkx_side(src, dst):
    import networkx as nx

    G = nx.Graph()
    G.add_edges_from(zip(src.tolist(), dst.tolist()))
    G.remove_edges_from(nx.selfloop_edges(G))
    return sum(nx.triangles(G).values()) // 3


SIDES = {
    "tricount-cpu (auto)": tricount_side("auto"),
    "tricount-cpu merge": tricount_side("merge"),
    "graphblas (plus_pair L.L')": graphblas_side,
    "networkit": networkit_side,
    "networkx": networkx_side,
}
#: Largest scale each slow peer is run at (NetworkX takes ~12 s at scale 16).
MAX_SCALE = {"networkx": 16}


def versions() -> dict:
    out = {"python": platform.python_version(), "numpy": np.__version__,
           "tricount": tricount.__version__}
    for mod in ("numba", "graphblas", "networkit", "networkx", "scipy"):
        try:
            out[mod] = __import__(mod).__version__
        except Exception:
            pass
    try:
        import suitesparse_graphblas as ssgb

        out["suitesparse_graphblas"] = ssgb.__version__
    except Exception:
        pass
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", type=int, nargs="+", default=[16, 17, 18])
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--sides", nargs="+", default=list(SIDES))
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args(argv)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    machine = {"machine": platform.machine(), "cpus": os.cpu_count(),
               "processor": platform.processor() or platform.machine(), "system": platform.system()}
    date = datetime.date.today().isoformat()
    env = versions()
    records = []
    for scale in args.scales:
        src, dst = rmat(scale, 16, seed=1)
        graph = tricount.Graph.from_edges(src, dst)
        expected = tricount.count_triangles(graph, backend="cpu", method="merge")
        assert expected == tricount.count_triangles(graph, backend="cpu", method="bitmap")
        for side in args.sides:
            if scale > MAX_SCALE.get(side, 99):
                continue
            run = SIDES[side]
            run(src, dst)  # warm-up: JIT compilation, caches, thread pools
            times = []
            for trial in range(args.trials):
                t0 = time.perf_counter()
                got = run(src, dst)
                times.append(time.perf_counter() - t0)
                if got != expected:
                    print(f"MISMATCH {side} scale {scale}: {got} != {expected}", file=sys.stderr)
                    return 4
                records.append({"graph": rmat_name(scale, 16, 1), "scale": scale, "side": side,
                                "trial": trial, "seconds": times[-1], "triangles": got,
                                "edges": graph.n_edges, "vertices": graph.n_vertices,
                                "date": date, **machine, "versions": env})
            print(f"scale {scale} {side:28s} median {statistics.median(times):8.3f} s", flush=True)
    with open(out_dir / "cpu_peers.jsonl", "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    write_table(records, out_dir / "cpu_peers.md", machine, env, date, args)
    return 0


def write_table(records, path, machine, env, date, args):
    by = {}
    for r in records:
        by.setdefault((r["scale"], r["side"]), []).append(r)
    scales = sorted({r["scale"] for r in records})
    lines = [
        "# CPU engine vs CPU peers (R-MAT, construction included)",
        "",
        f"- date: {date}; machine: {machine['cpus']} cores ({machine['processor']}, {machine['system']})",
        "- versions: " + ", ".join(f"{k} {v}" for k, v in env.items()),
        f"- command: `python benchmarks/cpu_peers.py --scales {' '.join(map(str, args.scales))} "
        f"--trials {args.trials}`",
        "- graphs: R-MAT, graph500 a=0.57 b=c=0.19, edge factor 16, seed 1, vertices permuted;"
        " each side builds its graph from the same in-memory edge arrays (loops and repeats"
        " included) and that build is timed. Median of the trials after one warm-up. Every count"
        " verified equal. m = undirected simple edges counted once.",
        "",
        "| graph | m | triangles | side | median s | min s | max s | M edges/s | vs GraphBLAS |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for scale in scales:
        gb = by.get((scale, "graphblas (plus_pair L.L')"))
        gb_median = statistics.median(r["seconds"] for r in gb) if gb else None
        for side in SIDES:
            rows = by.get((scale, side))
            if not rows:
                continue
            secs = [r["seconds"] for r in rows]
            med = statistics.median(secs)
            speed = f"{gb_median / med:.2f}x" if gb_median else ""
            lines.append(
                f"| {rows[0]['graph']} | {rows[0]['edges']:,} | {rows[0]['triangles']:,} | {side} | "
                f"{med:.3f} | {min(secs):.3f} | {max(secs):.3f} | "
                f"{rows[0]['edges'] / med / 1e6:.2f} | {speed} |"
            )
    path.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
