"""The command line beyond the total: per-vertex and per-edge files, clustering, k-truss.

    tricount count PATH --per-vertex OUT --per-edge OUT
    tricount clustering PATH [--per-vertex OUT] [--no-count-zeros] [--json]
    tricount ktruss PATH [--k K] [--decomposition OUT] [--edges OUT] [--json]

:func:`add_commands` registers ``clustering`` and ``ktruss``;
:func:`add_count_options` and :func:`write_count_outputs` are the hook
``tricount count`` calls for its file options. Tables are CSV, or Parquet when
OUT ends in ``.parquet`` (needs pyarrow), with original vertex ids. As for
every command: the answer on stdout (or one JSON object with ``--json``),
context on stderr; exit 0 ok, 2 bad input or usage, 3 backend unavailable.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

from tricount.backends import BACKENDS
from tricount.errors import TricountError

__all__ = ["add_commands", "add_count_options", "write_count_outputs", "write_table"]

TABLE_SUFFIXES = (".csv", ".parquet")


# -- tables --------------------------------------------------------------------------


def _check_table_path(path: str) -> str:
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in TABLE_SUFFIXES:
        raise TricountError(
            f"{path}: cannot tell the table format from {suffix or 'no extension'!r}; "
            "name the file *.csv or *.parquet"
        )
    return suffix


def write_table(path: str, columns: dict) -> int:
    """Write equal-length arrays as a CSV or Parquet table (by ``path``'s extension).

    Returns the number of rows. CSV has one header line and no quoting.
    """
    suffix = _check_table_path(path)
    columns = {name: np.asarray(values) for name, values in columns.items()}
    n_rows = len(next(iter(columns.values()))) if columns else 0
    try:
        if suffix == ".parquet":
            try:
                import pyarrow as pa
                import pyarrow.parquet as pq
            except ImportError:
                raise TricountError(
                    f"{path}: writing Parquet needs pyarrow (pip install pyarrow), "
                    "or name the file *.csv"
                ) from None
            pq.write_table(pa.table(columns), path)
        else:
            _write_csv(path, columns)
    except OSError as exc:
        raise TricountError(f"{path}: cannot write: {exc.strerror or exc}") from None
    return n_rows


def _write_csv(path: str, columns: dict) -> None:
    try:
        import pyarrow as pa
        import pyarrow.csv as pcsv

        # The header by hand: pyarrow quotes header names whatever the style.
        with open(path, "wb") as f:
            f.write((",".join(columns) + "\n").encode())
            pcsv.write_csv(pa.table(columns), f,
                           write_options=pcsv.WriteOptions(include_header=False))
        return
    except ImportError:
        pass
    # No pyarrow: NumPy's writer (slower, same text).
    names = list(columns)
    formats = ["%d" if columns[n].dtype.kind in "iu" else "%.17g" for n in names]
    with open(path, "w") as f:
        f.write(",".join(names) + "\n")
        if names and len(columns[names[0]]):
            np.savetxt(f, np.column_stack([columns[n].astype(object) for n in names]),
                       fmt=formats, delimiter=",")


def _id_column(graph, index):
    ids = np.asarray(graph.vertex_ids)
    return ids[index] if index is not None else ids


# -- tricount count --per-vertex / --per-edge ----------------------------------------


def add_count_options(count_parser) -> None:
    """Add ``--per-vertex OUT`` and ``--per-edge OUT`` to ``tricount count``."""
    count_parser.add_argument("--per-vertex", metavar="OUT",
                              help="also write the triangles at every vertex (vertex,triangles) "
                                   "to OUT (.csv or .parquet)")
    count_parser.add_argument("--per-edge", metavar="OUT",
                              help="also write the triangles on every edge "
                                   "(source,target,triangles) to OUT (.csv or .parquet)")


def write_count_outputs(args, graph, backend: str) -> dict:
    """Write the files ``tricount count`` was asked for; returns fields for its report.

    ``backend`` is the one the count ran on, so every number comes from one place.
    """
    import tricount
    from tricount.prep.xp import to_host

    report = {}
    for option in ("per_vertex", "per_edge"):
        path = getattr(args, option, None)
        if path:
            _check_table_path(path)  # fail before computing
    if getattr(args, "per_vertex", None):
        per_vertex = tricount.triangles(graph, backend=backend)
        write_table(args.per_vertex, {"vertex": _id_column(graph, None), "triangles": per_vertex})
        report["per_vertex_file"] = args.per_vertex
        _say(args, f"wrote triangles at {graph.n_vertices} vertices to {args.per_vertex}")
    if getattr(args, "per_edge", None):
        support = tricount.edge_support(graph, backend=backend)
        lo, hi = (to_host(a) for a in graph.edges())
        write_table(args.per_edge, {"source": _id_column(graph, lo),
                                    "target": _id_column(graph, hi), "triangles": support})
        report["per_edge_file"] = args.per_edge
        _say(args, f"wrote triangles on {graph.n_edges} edges to {args.per_edge}")
    return report


def _say(args, message: str) -> None:
    if not getattr(args, "json", False):
        print(message, file=sys.stderr)


# -- tricount clustering / ktruss ----------------------------------------------------


def add_commands(subparsers) -> None:
    """Register ``tricount clustering`` and ``tricount ktruss``."""
    clustering = subparsers.add_parser(
        "clustering", help="average clustering coefficient and transitivity of a graph")
    _common(clustering)
    clustering.add_argument("--per-vertex", metavar="OUT",
                            help="also write vertex,degree,triangles,clustering to OUT "
                                 "(.csv or .parquet)")
    clustering.add_argument("--count-zeros", action=argparse.BooleanOptionalAction, default=True,
                            help="average over every vertex (default), or with --no-count-zeros "
                                 "only over those with clustering above 0")
    clustering.set_defaults(run=run_clustering)

    ktruss = subparsers.add_parser(
        "ktruss", help="the k-truss of a graph, or the trussness of every edge")
    _common(ktruss)
    ktruss.add_argument("--k", type=int, metavar="K",
                        help="the truss order: keep the edges in at least K-2 triangles of the "
                             "subgraph; default: the largest K with a non-empty K-truss")
    ktruss.add_argument("--decomposition", metavar="OUT",
                        help="write source,target,trussness for every edge to OUT "
                             "(.csv or .parquet)")
    ktruss.add_argument("--edges", metavar="OUT",
                        help="write the K-truss edges (source,target) to OUT (.csv or .parquet)")
    ktruss.set_defaults(run=run_ktruss)


def _common(parser) -> None:
    parser.add_argument("path", metavar="PATH", help="graph file (any format tricount reads)")
    parser.add_argument("--backend", choices=BACKENDS, default="auto")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _load(args):
    from tricount.api import as_graph
    from tricount.backends import get_backend

    graph, timings = as_graph(args.path)
    engine, reason = get_backend(args.backend)
    return graph, timings, engine.name, reason


def run_clustering(args) -> int:
    import tricount
    from tricount.local import _average, _clustering_from, _n_wedges, _transitivity

    t0 = time.perf_counter()
    if args.per_vertex:
        _check_table_path(args.per_vertex)
    graph, timings, backend, reason = _load(args)
    t1 = time.perf_counter()
    # One per-vertex count gives all four numbers, by the API's own definitions.
    per_vertex = tricount.triangles(graph, backend=backend)
    values = _clustering_from(graph, per_vertex)
    n_triangles = int(per_vertex.sum()) // 3
    n_wedges = _n_wedges(graph)
    try:
        average = _average(values, args.count_zeros)
    except ZeroDivisionError:
        average = None
    transitivity = _transitivity(n_triangles, n_wedges)
    compute_s = time.perf_counter() - t1
    report = {**graph.summary(), "average_clustering": average, "count_zeros": args.count_zeros,
              "transitivity": transitivity, "triangles": n_triangles, "wedges": n_wedges,
              "backend": backend, "backend_reason": reason,
              "timings": {"load_s": timings["load_s"], "build_s": timings["build_s"],
                          "compute_s": compute_s, "total_s": time.perf_counter() - t0}}
    if args.per_vertex:
        write_table(args.per_vertex, {"vertex": _id_column(graph, None),
                                      "degree": _host(graph.degrees),
                                      "triangles": per_vertex, "clustering": values})
        report["per_vertex_file"] = args.per_vertex
    if args.json:
        print(json.dumps(report))
        return 0
    shown = "undefined (no vertex to average over)" if average is None else repr(average)
    print(f"average_clustering {shown}")
    print(f"transitivity {transitivity!r}")
    print(f"{graph.name}: {graph.n_vertices} vertices, {graph.n_edges} edges, {n_triangles} "
          f"triangles, {n_wedges} wedges; {backend}, total {report['timings']['total_s']:.3f} s",
          file=sys.stderr)
    if args.per_vertex:
        print(f"wrote clustering of {graph.n_vertices} vertices to {args.per_vertex}",
              file=sys.stderr)
    return 0


def _host(a):
    from tricount.prep.xp import to_host

    return to_host(a)


def run_ktruss(args) -> int:
    import tricount
    from tricount.local import _edge_subgraph

    t0 = time.perf_counter()
    for path in (args.decomposition, args.edges):
        if path:
            _check_table_path(path)
    graph, timings, backend, reason = _load(args)
    t1 = time.perf_counter()
    trussness = None
    if args.k is None or args.decomposition:
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
    lo, hi = (_host(a) for a in graph.edges())
    if args.decomposition:
        write_table(args.decomposition, {"source": _id_column(graph, lo),
                                         "target": _id_column(graph, hi),
                                         "trussness": trussness})
        report["decomposition_file"] = args.decomposition
    if args.edges:
        t_lo, t_hi = (_host(a) for a in truss.edges())
        write_table(args.edges, {"source": _id_column(truss, t_lo),
                                 "target": _id_column(truss, t_hi)})
        report["edges_file"] = args.edges
    report["timings"] = {"load_s": timings["load_s"], "build_s": timings["build_s"],
                         "compute_s": compute_s, "total_s": time.perf_counter() - t0}
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"{k}-truss: {truss.n_vertices} vertices, {truss.n_edges} edges")
    if max_k is not None:
        print(f"max trussness {max_k}")
    print(f"{graph.name}: {graph.n_vertices} vertices, {graph.n_edges} edges; {backend}, "
          f"total {report['timings']['total_s']:.3f} s", file=sys.stderr)
    for key in ("decomposition_file", "edges_file"):
        if key in report:
            print(f"wrote {report[key]}", file=sys.stderr)
    return 0
