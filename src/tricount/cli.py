"""The ``tricount`` command line.

Answers go to stdout (or one JSON object with ``--json``), context and errors
to stderr. Exit codes: 0 ok, 2 bad input or usage, 3 requested backend
unavailable, 4 verification failed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from tricount import cli_local
from tricount.backends import BACKENDS
from tricount.bench.cli import add_command as add_bench
from tricount.generate.cli import add_command as add_generate
from tricount.io.commands import add_commands as add_io_commands
from tricount.errors import BackendUnavailableError, TricountError

EXIT_OK, EXIT_BAD_INPUT, EXIT_BACKEND_UNAVAILABLE, EXIT_VERIFY_FAILED = 0, 2, 3, 4

#: The built-in example `tricount count` runs with no PATH.
EXAMPLE_SCALE, EXAMPLE_EDGE_FACTOR, EXAMPLE_SEED = 16, 16, 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tricount", description="Exact triangle counting.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    count = sub.add_parser("count", help="count the triangles of a graph")
    count.add_argument("path", nargs="?", metavar="PATH",
                       help="graph file: SNAP/TSV, Matrix Market, METIS, .npy/.npz or .tcsr; plain "
                            "or .gz/.bz2/.xz/.zst; default: the built-in R-MAT example "
                            f"(scale {EXAMPLE_SCALE}, edge factor {EXAMPLE_EDGE_FACTOR}, "
                            f"seed {EXAMPLE_SEED})")
    count.add_argument("--format", default="auto", metavar="FORMAT",
                       help="input format: auto, snap, graphchallenge, matrix-market, metis, "
                            "numpy, native")
    count.add_argument("--backend", choices=BACKENDS, default="auto")
    count.add_argument("--method", default="auto", metavar="NAME",
                       help="counting method; CPU: merge, bitmap, spgemm; GPU: merge, binary, "
                            "dynamic, bitmap, shared, radix, spgemm, hash; default auto")
    count.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                       help="a method option, e.g. sf=2 (GPU dynamic), variant=warp (GPU binary), "
                            "orientation=id (GPU); repeatable")
    count.add_argument("--json", action="store_true", help="print one JSON object")
    count.add_argument("--verify", action="store_true",
                       help="also count with the reference oracle; exit 4 on a mismatch")
    cli_local.add_count_options(count)  # --per-vertex, --per-edge
    count.set_defaults(run=run_count)

    add_generate(sub)  # generate rmat|er|ba|ws|complete|star|grid
    add_io_commands(sub)  # convert, info
    cli_local.add_commands(sub)  # clustering, ktruss
    add_bench(sub)
    return parser


def example_edges():
    from tricount.generate import rmat, rmat_name

    src, dst = rmat(EXAMPLE_SCALE, EXAMPLE_EDGE_FACTOR, seed=EXAMPLE_SEED)
    return src, dst, rmat_name(EXAMPLE_SCALE, EXAMPLE_EDGE_FACTOR, EXAMPLE_SEED)


def run_count(args) -> int:
    import tricount
    from tricount.graph import CSRGraph

    t0 = time.perf_counter()
    if args.path is None:
        src, dst, name = example_edges()
        load_s = time.perf_counter() - t0
        graph = CSRGraph.from_edges(src, dst, name=name)
        build_s = time.perf_counter() - t0 - load_s
    else:
        from tricount.io import read_graph

        loaded = read_graph(args.path, format=getattr(args, "format", "auto"),
                            device=_load_device(args))
        graph = loaded.graph
        load_s, build_s = loaded.timings["load_s"], loaded.timings["build_s"]
    result = tricount.count(graph, backend=args.backend, method=args.method,
                            **parse_options(args.option))
    result.timings["load_s"] = load_s
    result.timings["preprocess_s"] += build_s
    result.timings["total_s"] = time.perf_counter() - t0
    status = EXIT_OK
    report = result.to_dict()
    report.update(cli_local.write_count_outputs(args, graph, result.backend))
    if args.verify:
        expected = tricount.count_triangles(graph, backend="reference")
        report["verified"] = expected == result.n_triangles
        report["reference_triangles"] = expected
        if expected != result.n_triangles:
            status = EXIT_VERIFY_FAILED
    if args.json:
        print(json.dumps(report))
    else:
        print(result.n_triangles)
        empty = " (the graph is empty)" if graph.n_edges == 0 else ""
        print(f"{graph.name}: {graph.n_vertices} vertices, {graph.n_edges} edges{empty}; "
              f"{result.backend}/{result.method}, total {result.timings['total_s']:.3f} s, "
              f"count {result.timings['count_s']:.3f} s", file=sys.stderr)
        if args.verify:
            verdict = "PASS" if status == EXIT_OK else f"FAIL (reference says {report['reference_triangles']})"
            print(f"verification: {verdict}", file=sys.stderr)
    return status


def _load_device(args) -> str:
    """Where ``tricount count`` loads a file: straight onto the GPU (reading overlapped
    with the copies, :mod:`tricount.io.gpu_stream`) when the GPU backend is requested
    and only the total is wanted; --verify and the per-vertex/per-edge tables read
    the graph on the host, so they load there."""
    if args.backend != "gpu" or args.verify or getattr(args, "per_vertex", None) \
            or getattr(args, "per_edge", None):
        return "cpu"
    from tricount.backends import get_backend

    get_backend("gpu")  # BackendUnavailableError (exit 3) before any reading
    return "gpu"


def parse_options(pairs) -> dict:
    """``["sf=2", "variant=warp"]`` -> ``{"sf": 2.0, "variant": "warp"}`` (numbers parsed)."""
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise TricountError(f"--option expects KEY=VALUE, got {pair!r}")
        try:
            options[key] = int(value)
        except ValueError:
            try:
                options[key] = float(value)
            except ValueError:
                options[key] = value
    return options


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except BackendUnavailableError as exc:
        print(f"tricount: error: {exc}", file=sys.stderr)
        return EXIT_BACKEND_UNAVAILABLE
    except TricountError as exc:
        print(f"tricount: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except MemoryError:
        print("tricount: error: out of memory", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
