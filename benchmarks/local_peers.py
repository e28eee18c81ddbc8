"""Per-vertex and per-edge counts, clustering and k-truss: tricount against its peers.

CPU (default): tricount's CPU backend against NetworKit, SuiteSparse:GraphBLAS
(python-graphblas) and NetworkX on R-MAT graphs (graph500 a=0.57 b=c=0.19,
edge factor 16, seed 1, vertices permuted). Every side starts from the same
in-memory edge arrays (self-loops and repeats included, as generated) and its
time includes building its own graph from them. GPU (``--gpu``): tricount's
GPU backend alone on R-MAT scales 21-24 (the GPU suite runs this), timed
after a CUDA synchronization, from edge arrays already in host memory.

The GAPBS loop (:func:`tricount.bench.trials.trial_loop`): for each (graph,
task, side) one untimed warm-up, then N timed trials, every result checked against tricount's (CPU: against the CPU
backend, itself judged against NetworkX in tests/local; GPU: the ×3 sums
against the GPU total count), one JSON line per trial.

    python benchmarks/local_peers.py                  # CPU, scales 12 14 15 16, 3 trials
    python benchmarks/local_peers.py --gpu            # GPU, scales 21 22 23 24

Writes benchmarks/results/local_cpu.{md,jsonl} (or local_gpu.{md,jsonl}).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import sys
from pathlib import Path

import numpy as np

import tricount
from tricount.bench.trials import gpu_synchronize, trial_loop
from tricount.generate import rmat, rmat_name

RESULTS = Path(__file__).resolve().parent / "results"
#: The k of the k-truss task: small enough that R-MAT graphs keep a large truss.
TRUSS_K = 5
#: Largest scale each slow side runs at (NetworkX's per-vertex count takes
#: about 12 s at scale 16 on the development machine; its k_truss far longer).
MAX_SCALE = {("networkx", "k-truss"): 12, ("networkx", "clustering"): 14,
             ("networkx", "per-vertex"): 14}


# -- the sides: each takes (src, dst) and returns its answer -------------------------


def tricount_side(task, backend, prebuilt=None):
    """Build the graph from the edge arrays (timed), or use ``prebuilt``, then run ``task``."""
    def run(src, dst):
        g = prebuilt if prebuilt is not None else tricount.Graph.from_edges(src, dst)
        if task == "per-vertex":
            return tricount.triangles(g, backend=backend)
        if task == "per-edge":
            return tricount.edge_support(g, backend=backend)
        if task == "clustering":
            return tricount.clustering(g, backend=backend)
        if task == "truss-decomposition":
            return tricount.truss_decomposition(g, backend=backend)
        return tricount.k_truss(g, TRUSS_K, backend=backend).n_edges
    return run


def networkit_graph(src, dst):
    import networkit as nk

    G = nk.Graph(int(max(src.max(), dst.max())) + 1)
    G.addEdges((src, dst), checkMultiEdge=True)
    G.removeSelfLoops()
    G.removeMultiEdges()
    return G


def networkit_per_edge(src, dst):
    import networkit as nk

    G = networkit_graph(src, dst)
    G.indexEdges()
    score = nk.sparsification.TriangleEdgeScore(G)
    score.run()
    return np.sort(np.rint(np.asarray(score.scores())).astype(np.int64))


def networkit_clustering(src, dst):
    import networkit as nk

    G = networkit_graph(src, dst)
    lcc = nk.centrality.LocalClusteringCoefficient(G, turbo=True)
    lcc.run()
    # Only the ids that occur are vertices of tricount's graph.
    ids = np.unique(np.concatenate([src, dst]))
    return np.asarray(lcc.scores())[ids]


def graphblas_matrix(src, dst):
    import graphblas as gb

    n = int(max(src.max(), dst.max())) + 1
    A = gb.Matrix.from_coo(np.concatenate([src, dst]), np.concatenate([dst, src]), True,
                           nrows=n, ncols=n, dtype=bool)  # repeats are ignored
    return gb.select.offdiag(A).new()  # drops self-loops


def graphblas_per_vertex(src, dst):
    import graphblas as gb

    A = graphblas_matrix(src, dst)
    C = gb.Matrix(gb.dtypes.INT64, A.nrows, A.ncols)
    C(A.S) << gb.semiring.plus_pair(A @ A)  # C[u, v] = support of {u, v}
    per_vertex = C.reduce_rowwise(gb.monoid.plus).new()  # 2 × triangles at u
    ids = np.unique(np.concatenate([src, dst]))
    out = np.zeros(A.nrows, dtype=np.int64)
    idx, values = per_vertex.to_coo()
    out[idx] = values // 2
    return out[ids]


def graphblas_per_edge(src, dst):
    import graphblas as gb

    A = graphblas_matrix(src, dst)
    U = gb.select.triu(A, 1).new()
    C = gb.Matrix(gb.dtypes.INT64, A.nrows, A.ncols)
    C(U.S) << gb.semiring.plus_pair(A @ A)
    _, _, values = C.to_coo()
    support = np.zeros(U.nvals, dtype=np.int64)  # edges in no triangle are not stored in C
    support[:values.shape[0]] = values
    return np.sort(support)


def networkx_graph(src, dst):
    import networkx as nx

    G = nx.Graph()
    G.add_edges_from(zip(src.tolist(), dst.tolist()))
    G.remove_edges_from(list(nx.selfloop_edges(G)))
    return G


def networkx_per_vertex(src, dst):
    import networkx as nx

    t = nx.triangles(networkx_graph(src, dst))
    return np.array([t[v] for v in sorted(t)], dtype=np.int64)


def networkx_clustering(src, dst):
    import networkx as nx

    c = nx.clustering(networkx_graph(src, dst))
    return np.array([c[v] for v in sorted(c)], dtype=np.float64)


def networkx_k_truss(src, dst):
    import networkx as nx

    return nx.k_truss(networkx_graph(src, dst), TRUSS_K).number_of_edges()


CPU_TASKS = {
    "per-vertex": {"tricount-cpu": tricount_side("per-vertex", "cpu"),
                   "graphblas (plus_pair)": graphblas_per_vertex,
                   "networkx": networkx_per_vertex},
    "per-edge": {"tricount-cpu": tricount_side("per-edge", "cpu"),
                 "networkit (TriangleEdgeScore)": networkit_per_edge,
                 "graphblas (plus_pair)": graphblas_per_edge},
    "clustering": {"tricount-cpu": tricount_side("clustering", "cpu"),
                   "networkit (LCC turbo)": networkit_clustering,
                   "networkx": networkx_clustering},
    "truss-decomposition": {"tricount-cpu": tricount_side("truss-decomposition", "cpu")},
    "k-truss": {"tricount-cpu": tricount_side("k-truss", "cpu"),
                "networkx": networkx_k_truss},
}


def same(task, got, want) -> bool:
    """Does a peer's answer equal tricount's? (per-edge peers give sorted supports)."""
    if task == "per-edge":
        return np.array_equal(np.sort(got), np.sort(want))
    if task == "clustering":
        return np.allclose(got, want, rtol=1e-12, atol=0)
    if isinstance(want, np.ndarray):
        return np.array_equal(got, want)
    return got == want


# -- the loop ---------------------------------------------------------------------------


def versions() -> dict:
    out = {"python": platform.python_version(), "numpy": np.__version__,
           "tricount": tricount.__version__}
    for mod in ("numba", "graphblas", "networkit", "networkx", "scipy", "cupy"):
        try:
            out[mod] = __import__(mod).__version__
        except Exception:
            pass
    return out


def run_cpu(args, records, env, machine, date):
    for scale in args.scales:
        src, dst = rmat(scale, 16, seed=1)
        graph = tricount.Graph.from_edges(src, dst)
        n_triangles = tricount.count_triangles(graph, backend="cpu")
        for task in args.tasks:
            sides = CPU_TASKS[task]
            want = sides["tricount-cpu"](src, dst)
            if task in ("per-vertex", "per-edge"):
                assert int(want.sum()) == 3 * n_triangles, (task, scale)
            for side, run in sides.items():
                if scale > MAX_SCALE.get((side, task), 99):
                    continue
                # The warm-up fills JIT caches and thread pools.
                wrong = []
                _warm, runs = trial_loop(
                    lambda _: run(src, dst), args.trials, keep=False,
                    each=lambda _, r: wrong.append(not same(task, r.value, want)))
                if any(wrong):
                    print(f"MISMATCH {side} {task} scale {scale}", file=sys.stderr)
                    return 4
                records.extend(record(scale, task, side, trial, r.seconds, graph, n_triangles,
                                      date, machine, env) for trial, r in enumerate(runs))
                median = statistics.median(r.seconds for r in runs)
                print(f"scale {scale} {task:20s} {side:30s} median {median:8.3f} s", flush=True)
    return 0


def run_gpu(args, records, env, machine, date):
    """Two sides per task: from the edge list on the GPU to the answer (graph built on the GPU,
    timed), and the task alone on the graph already built on the GPU."""
    import cupy

    for scale in args.scales:
        src, dst = rmat(scale, 16, seed=1, xp=cupy)  # the same graph as on the CPU, seed for seed
        graph = tricount.Graph.from_edges(src, dst)  # built on the GPU
        n_triangles = tricount.count_triangles(graph, backend="gpu")
        for task in args.tasks:
            from_edges = tricount_side(task, "gpu")
            on_graph = tricount_side(task, "gpu", prebuilt=graph)
            for side, run in (("tricount-gpu (edges on GPU)", from_edges),
                              ("tricount-gpu (graph built)", on_graph)):
                # The warm-up compiles the kernels and fills the memory pool.
                got, runs = trial_loop(lambda _: run(src, dst), args.trials,
                                       synchronize=gpu_synchronize, keep=False)
                if task in ("per-vertex", "per-edge"):
                    assert int(got.sum()) == 3 * n_triangles, (task, scale)
                records.extend(record(scale, task, side, trial, r.seconds, graph, n_triangles,
                                      date, machine, env) for trial, r in enumerate(runs))
                median = statistics.median(r.seconds for r in runs)
                print(f"scale {scale} {task:20s} {side:28s} median {median:8.3f} s", flush=True)
    return 0


def record(scale, task, side, trial, seconds, graph, n_triangles, date, machine, env) -> dict:
    """One JSON line: one trial of one side on one graph."""
    return {"graph": rmat_name(scale, 16, 1), "scale": scale, "task": task, "side": side,
            "trial": trial, "seconds": seconds, "edges": graph.n_edges,
            "vertices": graph.n_vertices, "triangles": n_triangles, "date": date, **machine,
            "versions": env}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpu", action="store_true", help="time the GPU backend (scales 21-24)")
    parser.add_argument("--scales", type=int, nargs="+")
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--tasks", nargs="+", choices=list(CPU_TASKS), default=list(CPU_TASKS))
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args(argv)
    if args.scales is None:
        # Scale 12 is there for NetworkX's k_truss, far too slow beyond it.
        args.scales = [21, 22, 23, 24] if args.gpu else [12, 14, 15, 16]
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    machine = {"machine": platform.machine(), "cpus": os.cpu_count(),
               "processor": platform.processor() or platform.machine(), "system": platform.system()}
    if args.gpu:
        import cupy

        props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
        name = props["name"]
        machine["gpu"] = name.decode() if isinstance(name, bytes) else str(name)
    date = datetime.date.today().isoformat()
    env = versions()
    records = []
    status = (run_gpu if args.gpu else run_cpu)(args, records, env, machine, date)
    if status:
        return status
    stem = "local_gpu" if args.gpu else "local_cpu"
    with open(out_dir / f"{stem}.jsonl", "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    write_table(records, out_dir / f"{stem}.md", machine, env, date, args, argv)
    return 0


def write_table(records, path, machine, env, date, args, argv):
    by = {}
    for r in records:
        by.setdefault((r["scale"], r["task"], r["side"]), []).append(r["seconds"])
    where = f"{machine['cpus']} cores ({machine['processor']}, {machine['system']})"
    if "gpu" in machine:
        where += f", GPU {machine['gpu']}"
    command = "python benchmarks/local_peers.py " + " ".join(
        sys.argv[1:] if argv is None else argv)
    lines = [
        f"# Per-vertex, per-edge, clustering and k-truss: tricount {'GPU' if args.gpu else 'CPU'}"
        + ("" if args.gpu else " vs peers"),
        "",
        f"- date: {date}; machine: {where}",
        "- versions: " + ", ".join(f"{k} {v}" for k, v in env.items()),
        f"- command: `{command.strip()}`",
        "- graphs: R-MAT, graph500 a=0.57 b=c=0.19, edge factor 16, seed 1, vertices permuted;"
        + (" GPU: edges generated on the GPU; side 'edges on GPU' builds the graph on the GPU"
           " (timed) then runs the task, side 'graph built' runs the task on the built graph;"
           " results are copied back to NumPy in both." if args.gpu else
           " each side builds its own graph from the same in-memory edge arrays (loops and"
           " repeats included) and that build is timed.") + " Median of the trials after one warm-up. Every"
        " answer checked equal to tricount's. m = undirected simple edges counted once;"
        f" k-truss uses k = {TRUSS_K}.",
        "",
        "| graph | m | task | side | median s | min s | max s | time / tricount's |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for (scale, task, side), secs in by.items():
        ours = by.get((scale, task, "tricount-gpu (edges on GPU)" if args.gpu else "tricount-cpu"))
        ratio = f"{statistics.median(secs) / statistics.median(ours):.2f}x" if ours else ""
        r = next(x for x in records if x["scale"] == scale)
        lines.append(f"| {r['graph']} | {r['edges']:,} | {task} | {side} | "
                     f"{statistics.median(secs):.3f} | {min(secs):.3f} | {max(secs):.3f} | {ratio} |")
    path.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
