"""``tricount ktruss PATH``: the k-truss of a graph, or the trussness of every edge.

    tricount ktruss PATH [--k K] [--decomposition OUT] [--edges OUT] [--backend B] [--json]

``--decomposition`` writes ``source,target,trussness`` for every edge,
``--edges`` the K-truss's edges (CSV or Parquet, original ids).
"""

from __future__ import annotations

import json
import time

from tricount.cli import options
from tricount.cli.clustering import load_for
from tricount.cli.count import check_outputs

HELP = "the k-truss of a graph, or the trussness of every edge"


def add_arguments(ktruss) -> None:
    options.add_input(ktruss)
    options.add_backend(ktruss)
    options.add_json(ktruss)
    ktruss.add_argument("--k", type=int, metavar="K",
                        help="the truss order: keep the edges in at least K-2 triangles of the "
                             "subgraph; default: the largest K with a non-empty K-truss")
    options.add_table_output(ktruss, "--decomposition",
                             "write source,target,trussness for every edge")
    options.add_table_output(ktruss, "--edges", "write the K-truss edges (source,target)")


def run(args) -> int:
    import tricount
    from tricount.io.tables import write_table
    from tricount.local import _edge_subgraph

    t0 = time.perf_counter()
    check_outputs(args, (args.decomposition, args.edges))
    graph, timings, backend, reason = load_for(args)
    t1 = time.perf_counter()
    trussness = None
    if args.k is None or args.decomposition:
        with options.step("peeling the trusses"):
            trussness = tricount.truss_decomposition(graph, backend=backend)
    max_k = int(trussness.max()) if trussness is not None and trussness.shape[0] else None
    k = args.k if args.k is not None else (max_k if max_k is not None else 2)
    if trussness is not None:
        # The k-truss is the edges of trussness >= k (k <= 2: every edge).
        truss = _edge_subgraph(graph, trussness >= k, None)
    else:
        truss = tricount.k_truss(graph, k, backend=backend)
    compute_s = time.perf_counter() - t1
    report = {**graph.summary(), "k": k, "max_trussness": max_k,
              "truss_vertices": truss.n_vertices, "truss_edges": truss.n_edges,
              "backend": backend, "backend_reason": reason}
    if args.decomposition:
        lo, hi = graph.edges()
        write_table(args.decomposition, {"source": options.id_column(graph, lo),
                                         "target": options.id_column(graph, hi),
                                         "trussness": trussness})
        report["decomposition_file"] = args.decomposition
    if args.edges:
        t_lo, t_hi = truss.edges()
        write_table(args.edges, {"source": options.id_column(truss, t_lo),
                                 "target": options.id_column(truss, t_hi)})
        report["edges_file"] = args.edges
    report["timings"] = {"load_s": timings["load_s"], "build_s": timings["build_s"],
                         "compute_s": compute_s, "total_s": time.perf_counter() - t0}
    out = options.answer_stream(args.decomposition, args.edges)
    if args.json:
        print(json.dumps(report), file=out)
        return options.EXIT_OK
    print(f"{k}-truss: {truss.n_vertices} vertices, {truss.n_edges} edges", file=out)
    if max_k is not None:
        print(f"max trussness {max_k}", file=out)
    options.say(args, f"{graph.name}: {graph.n_vertices} vertices, {graph.n_edges} edges; "
                      f"{backend}, "
          f"total {report['timings']['total_s']:.3f} s")
    for key in ("decomposition_file", "edges_file"):
        if key in report:
            options.say_written(args, f"wrote {report[key]}")
    return options.EXIT_OK
