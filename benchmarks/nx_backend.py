"""The NetworkX backend against plain NetworkX on a 1 M-edge graph, conversion shown.

The graph: R-MAT (graph500 a=0.57 b=c=0.19) at ``--scale`` 16 and
``--edge-factor`` 18, seed 1 (about 1.06 M edges once loops and repeats are
dropped), as a NetworkX ``Graph``; its arcs as generated as a ``DiGraph`` for
the directed rows; a seeded weight in 1..10 on every edge for the weighted
rows. For each function:

- ``networkx``: ``nx.<f>(G)`` (plain NetworkX);
- ``convert``: ``convert_from_nx`` (NetworkX graph -> tricount's backend graph),
  what the first call pays;
- ``tricount``: the backend's function on the converted graph (what every later
  call pays with NetworkX's cache of converted graphs, on by default);
- ``end to end``: ``nx.<f>(G, backend="tricount")`` with the cache off:
  conversion and computation.

The tricount side is timed three times after an untimed warm-up (Numba's
cached kernels load), the best kept; NetworkX once (minutes); wall seconds from ``time.perf_counter`` and CPU seconds
of the whole process (every thread) from ``time.process_time``, because the
machine these were measured on is shared and loaded. Results are checked
against NetworkX's (exact for integers and directed clustering, 1e-12 for
weighted). ``all_triangles`` is consumed to the end on both sides.

    python benchmarks/nx_backend.py --markdown benchmarks/results/nx_backend.md
    python benchmarks/nx_backend.py --scale 12 --edge-factor 8   # a quick check
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import networkx as nx
import numpy as np

from tricount.generate import rmat
from tricount.nx.interface import BackendInterface as B

warnings.simplefilter("ignore")  # NetworkX's notes on caching and on dispatching


def timed(run):
    """``(answer, wall seconds, CPU seconds)`` of one call."""
    c0, t0 = time.process_time(), time.perf_counter()
    answer = run()
    return answer, time.perf_counter() - t0, time.process_time() - c0


def best(run, trials: int = 3):
    """:func:`timed`, the best of ``trials`` runs by wall time."""
    return min((timed(run) for _ in range(trials)), key=lambda t: t[1])


def graphs(scale: int, edge_factor: int):
    src, dst = rmat(scale, edge_factor, seed=1)
    pairs = [(u, v) for u, v in zip(src.tolist(), dst.tolist()) if u != v]
    G = nx.Graph(pairs)
    D = nx.DiGraph(pairs)
    rng = np.random.default_rng(7)
    for (u, v), w in zip(G.edges(), rng.integers(1, 11, G.number_of_edges()).tolist()):
        G[u][v]["weight"] = w
    for (u, v), w in zip(D.edges(), rng.integers(1, 11, D.number_of_edges()).tolist()):
        D[u][v]["weight"] = w
    return G, D


def _consume(triangles) -> int:
    return sum(1 for _ in triangles)


#: (row name, graph key, NetworkX function name, positional args, keyword args, how to compare)
CASES = [
    ("triangles", "G", "triangles", (), {}, "exact"),
    ("clustering", "G", "clustering", (), {}, "exact"),
    ("clustering, directed", "D", "clustering", (), {}, "exact"),
    ("clustering, weighted", "G", "clustering", (), {"weight": "weight"}, "close"),
    ("clustering, directed weighted", "D", "clustering", (), {"weight": "weight"}, "close"),
    ("transitivity", "G", "transitivity", (), {}, "exact"),
    ("all_triangles", "G", "all_triangles", (), {}, "count"),
]


def same(a, b, how: str) -> bool:
    if how == "exact" or how == "count":
        return a == b
    return a.keys() == b.keys() and all(abs(a[k] - b[k]) <= 1e-12 * max(1.0, abs(b[k]))
                                        for k in a)


def run_case(case, graphs_by_key, only_tricount: bool):
    name, key, func, args, kwargs, how = case
    G = graphs_by_key[key]
    nx_func = getattr(nx, func)
    ours = getattr(B, func)
    post = _consume if how == "count" else (lambda x: x)
    edge_attrs = {kwargs["weight"]: 1} if "weight" in kwargs else None

    def convert():
        return B.convert_from_nx(G, edge_attrs=edge_attrs)

    tg = convert()  # warm-up: kernels load
    post(ours(tg, *args, **kwargs))
    tg, convert_s, convert_cpu = best(convert)
    got, tri_s, tri_cpu = best(lambda: post(ours(tg, *args, **kwargs)))
    with nx.config(cache_converted_graphs=False):
        _, e2e_s, e2e_cpu = best(lambda: post(nx_func(G, *args, backend="tricount", **kwargs)))
    row = {"name": name, "convert": (convert_s, convert_cpu), "tricount": (tri_s, tri_cpu),
           "end_to_end": (e2e_s, e2e_cpu)}
    if not only_tricount:
        want, nx_s, nx_cpu = timed(lambda: post(nx_func(G, *args, **kwargs)))
        if not same(got, want, how):
            raise AssertionError(f"{name}: tricount and NetworkX disagree")
        row["networkx"] = (nx_s, nx_cpu)
    print(row, file=sys.stderr, flush=True)
    return row


def table(rows, G, D, argv) -> str:
    load = os.getloadavg()
    out = [
        "# The NetworkX backend against plain NetworkX",
        "",
        f"Command: `python benchmarks/nx_backend.py {' '.join(argv)}`. Graph: R-MAT, "
        f"{G.number_of_nodes():,} nodes, {G.number_of_edges():,} edges "
        f"({sum(nx.triangles(G).values()) // 3:,} triangles); the DiGraph of its arcs as "
        f"generated has {D.number_of_edges():,} arcs. Machine: {os.cpu_count()} logical CPUs, "
        f"shared, load average {load[0]:.1f} at the end; NetworkX {nx.__version__}. NetworkX "
        "run once, tricount the best of three; wall seconds, CPU seconds of every thread in "
        "parentheses.",
        "",
        "| function | NetworkX | convert | tricount | end to end | speed-up (compute) | "
        "speed-up (end to end) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]

    def cell(pair):
        return f"{pair[0]:.3f} ({pair[1]:.3f})"

    for row in rows:
        nx_s = row.get("networkx", (float("nan"),))[0]
        out.append(f"| {row['name']} | {cell(row['networkx']) if 'networkx' in row else '—'} | "
                   f"{cell(row['convert'])} | {cell(row['tricount'])} | "
                   f"{cell(row['end_to_end'])} | {nx_s / row['tricount'][0]:.1f}× | "
                   f"{nx_s / row['end_to_end'][0]:.1f}× |")
    out += ["", "convert: NetworkX graph to tricount's graph (`convert_from_nx`), paid once "
            "per graph while NetworkX caches converted graphs; tricount: the backend's "
            "function on the converted graph; end to end: `nx.<f>(G, backend=\"tricount\")` "
            "with the cache off. Every answer checked against NetworkX's.", ""]
    return "\n".join(out)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=int, default=16)
    parser.add_argument("--edge-factor", type=int, default=18)
    parser.add_argument("--only", nargs="*", help="row names to run (default: all)")
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args(argv)
    G, D = graphs(args.scale, args.edge_factor)
    rows = [run_case(case, {"G": G, "D": D}, False) for case in CASES
            if not args.only or case[0] in args.only]
    text = table(rows, G, D, argv)
    if args.markdown:
        args.markdown.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
