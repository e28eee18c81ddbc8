"""``tricount clustering PATH``: average clustering coefficient and transitivity.

    tricount clustering PATH [--per-vertex OUT] [--no-count-zeros] [--vertices edges|range]
                             [--backend B] [--json]

One per-vertex count gives all four numbers (average clustering, transitivity,
triangles, wedges), by the API's own definitions. ``--per-vertex`` writes
``vertex,degree,triangles,clustering`` (CSV or Parquet, original ids).
"""

from __future__ import annotations

import argparse
import json
import time

from tricount.cli import options
from tricount.cli.count import check_outputs

HELP = "average clustering coefficient and transitivity of a graph"


def add_arguments(clustering) -> None:
    options.add_input(clustering)
    options.add_backend(clustering)
    options.add_json(clustering)
    options.add_table_output(clustering, "--per-vertex",
                             "also write vertex,degree,triangles,clustering")
    clustering.add_argument("--vertices", choices=("edges", "range"), default="edges",
                            help="which ids are vertices: those in an edge (default), or "
                                 "every id 0..max (igraph's and graph-tool's reading: ids in "
                                 "no edge count as vertices of clustering 0)")
    clustering.add_argument("--count-zeros", action=argparse.BooleanOptionalAction, default=True,
                            help="average over every vertex (default), or with --no-count-zeros "
                                 "only over those with clustering above 0")


def load_for(args):
    """The graph and the backend a local command runs on: ``(graph, timings, name, reason)``."""
    from tricount.backends import backend_for

    backend, reason = backend_for(args.backend, args.path)  # exit 3 before reading
    loaded = options.load(args)
    return loaded.graph, loaded.timings, backend.name, reason


def run(args) -> int:
    import tricount
    from tricount.io.tables import write_table
    from tricount.directed import average_in_order
    from tricount.local import _clustering_from, _n_wedges, _transitivity

    t0 = time.perf_counter()
    check_outputs(args, (args.per_vertex,))
    graph, timings, backend, reason = load_for(args)
    if args.vertices == "range":
        from tricount.inputs import span_ids

        graph = span_ids(graph)
    t1 = time.perf_counter()
    with options.step("counting triangles at every vertex"):
        per_vertex = tricount.triangles(graph, backend=backend)
    values = _clustering_from(graph, per_vertex)
    n_triangles = int(per_vertex.sum()) // 3
    n_wedges = _n_wedges(graph)
    try:
        average = average_in_order(values, args.count_zeros)
    except ZeroDivisionError:
        average = None
    transitivity = _transitivity(n_triangles, n_wedges)
    compute_s = time.perf_counter() - t1
    report = {**graph.summary(), "average_clustering": average, "count_zeros": args.count_zeros,
              "vertices_convention": args.vertices,
              "transitivity": transitivity, "triangles": n_triangles, "wedges": n_wedges,
              "backend": backend, "backend_reason": reason,
              "timings": {"load_s": timings["load_s"], "build_s": timings["build_s"],
                          "compute_s": compute_s, "total_s": time.perf_counter() - t0}}
    if args.per_vertex:
        write_table(args.per_vertex, {"vertex": options.id_column(graph),
                                      "degree": options.host(graph.degrees),
                                      "triangles": per_vertex, "clustering": values})
        report["per_vertex_file"] = args.per_vertex
    out = options.answer_stream(args.per_vertex)
    if args.json:
        print(json.dumps(report), file=out)
        return options.EXIT_OK
    shown = "undefined (no vertex to average over)" if average is None else repr(average)
    print(f"average_clustering {shown}", file=out)
    print(f"transitivity {transitivity!r}", file=out)
    options.say(args, f"{graph.name}: {graph.n_vertices} vertices, {graph.n_edges} edges, "
                      f"{n_triangles} triangles, {n_wedges} wedges; {backend}, "
                      f"total {report['timings']['total_s']:.3f} s")
    if args.per_vertex:
        options.say_written(args, f"wrote clustering of {graph.n_vertices} vertices to "
                                  f"{args.per_vertex}")
    return options.EXIT_OK
