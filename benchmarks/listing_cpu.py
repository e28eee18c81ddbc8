"""Listing every triangle on the CPU: tricount against python-igraph's ``Graph.list_triangles``.

Graphs: every file of ``../shared/data/graphs`` (graphs.json) and R-MAT 18
(graph500 a=0.57 b=c=0.19, edge factor 16, seed 1). Two measurements per graph
and side, on the same machine in the same process:

- *in memory*: both sides start from the same simple graph already built in
  their own structure (tricount's ``CSRGraph``, igraph's ``Graph`` made from
  ``graph.edges()``); the time is the listing alone, until every triangle is
  in memory (tricount: the ``(k, 3)`` chunks, kept; igraph: its list of tuples);
- *file -> list*: from the file on disk to every triangle in memory (tricount:
  ``load_graph`` + listing; igraph: NumPy's ``loadtxt`` of the edge list, the
  ``Graph``, ``simplify`` for loops and repeats, the listing). R-MAT 18 is
  written once to a temporary TSV file for this.

*Fixed costs* (:func:`fixed_costs`): what one call costs whatever the graph,
timeit-style (best of 7 loops): a Python call, one dispatch of the one-pass
kernel on an empty graph, one ``np.empty`` of a chunk, one generator drained by
``list``, and the whole listing of a triangle (tricount from its built graph,
igraph likewise). A graph whose igraph time is under 10x the last is out of the
10x target's reach.

The GAPBS loop: one untimed warm-up per (graph, side, measurement), N timed
trials (more for runs under a second in all, one for igraph where one trial
passes ``--igraph-single-over`` seconds), the best reported,
every result's number of triangles checked against graphs.json (R-MAT: against
tricount's count), one JSON line per trial on stdout.

    python benchmarks/listing_cpu.py                       # all graphs, 3 trials
    python benchmarks/listing_cpu.py --graphs karate rmat18 --trials 5
    python benchmarks/listing_cpu.py --markdown benchmarks/results/listing_cpu.md
    python benchmarks/listing_cpu.py --render run.jsonl --markdown table.md  # a kept run
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

import tricount
from tricount._threads import load_numba
from tricount.bench.environment import machine, utc_now, versions
from tricount.generate import rmat
from tricount.listing import list_triangles

DATA = Path(os.environ.get("TRICOUNT_DATA")
            or Path(__file__).resolve().parents[1].parent / "shared" / "data" / "graphs")
RMAT_SCALE, RMAT_EDGE_FACTOR, RMAT_SEED = 18, 16, 1


def tricount_memory(g):
    return lambda: sum(c.shape[0] for c in list(list_triangles(g, backend="cpu")))


def tricount_file(path):
    def run():
        g = tricount.load_graph(path)
        return sum(c.shape[0] for c in list(list_triangles(g, backend="cpu")))
    return run


def igraph_of(g):
    import igraph

    lo, hi = g.edges()
    return igraph.Graph(n=g.n_vertices, edges=np.stack([lo, hi], axis=1).astype(np.int64))


def igraph_memory(h):
    return lambda: len(h.list_triangles())


def igraph_file(path):
    def run():
        import igraph

        edges = np.loadtxt(path, dtype=np.int64, comments="#", ndmin=2)[:, :2]
        h = igraph.Graph(n=int(edges.max()) + 1 if edges.size else 0, edges=edges)
        h.simplify()
        return len(h.list_triangles())
    return run


#: Short runs repeat until they have taken this long in all (at most MAX_TRIALS
#: times), so that a best time of microseconds is not one preempted run.
MIN_TOTAL_SECONDS, MAX_TRIALS = 1.0, 200


def trials(run, n_trials: int, single_over: float | None):
    """Untimed warm-up, then ``n_trials`` timed runs or more for short ones (see
    :data:`MIN_TOTAL_SECONDS`), fewer past ``single_over``: ``(answer, seconds list)``."""
    answer = run()
    times = []
    while len(times) < n_trials or (sum(times) < MIN_TOTAL_SECONDS and len(times) < MAX_TRIALS):
        t0 = time.perf_counter()
        got = run()
        times.append(time.perf_counter() - t0)
        if got != answer:
            raise AssertionError(f"answer changed between trials: {answer} then {got}")
        if single_over is not None and times[-1] > single_over:
            break
    return answer, times


def fixed_costs() -> dict:
    """Microseconds of the fixed costs of one call (see the module doc), best of 7 loops."""
    import timeit

    import igraph

    from tricount.cpu.listing import _NO_LABELS, _write_next

    def best(fn) -> float:
        timer = timeit.Timer(fn)
        number = max(1, timer.autorange()[0])
        return min(timer.repeat(7, number)) / number * 1e6

    def nothing():
        pass

    def one_chunk():
        yield None

    indptr, indices = np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32)
    mark, found = np.zeros(1, dtype=np.uint8), np.zeros(1, dtype=np.int32)
    queues = np.zeros((2, 1), dtype=np.int32)  # the empty graph's queues
    position, out = np.zeros(4, dtype=np.int64), np.empty((1, 3), dtype=np.int64)
    triangle = tricount.Graph.from_edges([0, 0, 1], [1, 2, 2])
    h = igraph.Graph(n=3, edges=[(0, 1), (0, 2), (1, 2)])
    list(list_triangles(triangle, backend="cpu"))
    return {
        "python call": best(nothing),
        "kernel dispatch": best(lambda: _write_next(indptr, indices, _NO_LABELS, False, mark,
                                                    found, queues, queues, position, out)),
        "np.empty chunk": best(lambda: np.empty((45, 3), dtype=np.int64)),
        "generator drained": best(lambda: list(one_chunk())),
        "tricount triangle": best(lambda: list(list_triangles(triangle, backend="cpu"))),
        "igraph triangle": best(lambda: h.list_triangles()),
    }


def graphs(names):
    rows = json.loads((DATA / "graphs.json").read_text()) if (DATA / "graphs.json").exists() else []
    for row in rows:
        if not names or row["name"] in names:
            yield row["name"], str(DATA / row["file"]), row["triangles"], None
    rmat_name = f"rmat{RMAT_SCALE}"
    if not names or rmat_name in names:
        src, dst = rmat(RMAT_SCALE, RMAT_EDGE_FACTOR, seed=RMAT_SEED)
        yield rmat_name, None, None, (src, dst)


def write_tsv(src, dst) -> str:
    from tricount.cpu.text_rows import format_rows

    fd, path = tempfile.mkstemp(suffix=".tsv", prefix="listing_cpu_")
    with os.fdopen(fd, "wb") as f:
        f.write(format_rows(np.stack([src, dst])).data)
    return path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graphs", nargs="*", default=[], help="names (default: all, rmat18)")
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--igraph-single-over", type=float, default=10.0,
                        help="seconds past which igraph runs one trial only")
    parser.add_argument("--markdown", type=Path, help="write the table here")
    parser.add_argument("--render", type=Path,
                        help="measure nothing: the table of this file of JSON lines")
    args = parser.parse_args(argv)
    if args.render:
        rows, env, costs = rendered(args.render)
        text = table(rows, env, argv, args, costs)
        if args.markdown:
            args.markdown.write_text(text)
        else:
            sys.stdout.write(text)
        return 0

    import igraph

    # The Numba lister, started first: this measures a process that lists many graphs
    # (a fresh process lists its first small graphs in NumPy, tricount.cpu.walk_numpy).
    load_numba()
    env = {"machine": machine(), "versions": {**versions(backends=("cpu",)),
                                              "igraph": igraph.__version__},
           "date": utc_now(), "threads": numba.get_num_threads()}
    costs = fixed_costs()
    print(json.dumps({"fixed_costs_us": costs, "load_average": os.getloadavg(), **env}),
          flush=True)
    rows = []
    for name, path, expected, arrays in graphs(set(args.graphs)):
        temporary = None
        if arrays is not None:
            g = tricount.Graph.from_edges(*arrays, name=name)
            expected = tricount.count_triangles(g, backend="cpu")
            path = temporary = write_tsv(*arrays)
        else:
            g = tricount.load_graph(path)
        h = igraph_of(g)
        sides = {
            ("tricount", "memory"): (tricount_memory(g), None),
            ("igraph", "memory"): (igraph_memory(h), args.igraph_single_over),
            ("tricount", "file"): (tricount_file(path), None),
            ("igraph", "file"): (igraph_file(path), args.igraph_single_over),
        }
        best = {}
        try:
            for (side, measure), (run, single_over) in sides.items():
                answer, times = trials(run, args.trials, single_over)
                if answer != expected:
                    raise AssertionError(f"{side} listed {answer} triangles of {name}, "
                                         f"expected {expected}")
                for i, seconds in enumerate(times):
                    print(json.dumps({"graph": name, "side": side, "measure": measure,
                                      "trial": i, "seconds": seconds, "triangles": answer,
                                      "edges": g.n_edges, **env}), flush=True)
                best[side, measure] = min(times)
        finally:
            if temporary:
                os.unlink(temporary)
        rows.append((name, g.n_edges, expected, best))
        print(f"# {name}: memory {best['tricount', 'memory']:.4f} s vs igraph "
              f"{best['igraph', 'memory']:.4f} s "
              f"({best['igraph', 'memory'] / best['tricount', 'memory']:.1f}x)",
              file=sys.stderr, flush=True)
    if args.markdown:
        args.markdown.write_text(table(rows, env, argv, args, costs))
    return 0


def rendered(path: Path):
    """``(rows, env, costs)`` of a run's JSON lines: the best trial per (graph, side,
    measure), in the run's order."""
    rows, env, costs = {}, None, {}
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if "fixed_costs_us" in record:
            costs = record["fixed_costs_us"]
            continue
        env = env or {k: record[k] for k in ("machine", "versions", "date", "threads")}
        name = record["graph"]
        _, _, _, best = rows.setdefault(name, (name, record["edges"], record["triangles"], {}))
        key = record["side"], record["measure"]
        best[key] = min(best.get(key, float("inf")), record["seconds"])
    return list(rows.values()), env, costs


def table(rows, env, argv, args, costs) -> str:
    m, v = env["machine"], env["versions"]
    command = "python benchmarks/listing_cpu.py " + " ".join(argv if argv is not None
                                                              else sys.argv[1:])
    lines = [
        "# Listing every triangle on the CPU: tricount vs python-igraph",
        "",
        f"Command: `{command}` (best of at least {args.trials} trials after a warm-up, "
        f"repeated to {MIN_TOTAL_SECONDS:g} s for short runs; igraph one trial past "
        f"{args.igraph_single_over:g} s). Numba threads: {env['threads']}.",
        f"Machine: {m['cpu']}, {m['logical_cpus']} logical CPUs, {m['memory_gib']} GiB "
        f"({m['system']} {m['arch']}). Date: {env['date']}.",
        f"Versions: Python {v.get('python')}, tricount {v.get('tricount')} "
        f"({v.get('tricount_commit', '?')}), NumPy {v.get('numpy')}, "
        f"Numba {v.get('numba')}, python-igraph {v['igraph']}.",
        "",
        "*memory*: the same simple graph already built by each side, until every triangle "
        "is in memory (tricount: (k, 3) int64 chunks; igraph: list of tuples). *file*: "
        "from the edge-list file (tricount: `load_graph`; igraph: `np.loadtxt` + `Graph` + "
        "`simplify`) to every triangle in memory.",
        "",
        "| graph | edges | triangles | tricount memory (ms) | igraph memory (ms) | speed-up | "
        "tricount file (ms) | igraph file (ms) | speed-up |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, n_edges, n_triangles, best in rows:
        tm, im = best["tricount", "memory"], best["igraph", "memory"]
        tf, itf = best["tricount", "file"], best["igraph", "file"]
        lines.append(f"| {name} | {n_edges:,} | {n_triangles:,} | {tm * 1e3:.3f} | "
                     f"{im * 1e3:.3f} | {im / tm:.1f}x | {tf * 1e3:.3f} | {itf * 1e3:.3f} | "
                     f"{itf / tf:.1f}x |")
    lines += ["", "Fixed costs of one call (µs, best of 7 timeit loops): " + ", ".join(
        f"{name} {us:.2f}" for name, us in costs.items()) + "."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
