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

from tricount.backends import BACKENDS
from tricount.errors import BackendUnavailableError, TricountError

EXIT_OK, EXIT_BAD_INPUT, EXIT_BACKEND_UNAVAILABLE, EXIT_VERIFY_FAILED = 0, 2, 3, 4

#: The built-in example `tricount count` runs with no PATH.
EXAMPLE_SCALE, EXAMPLE_EDGE_FACTOR, EXAMPLE_SEED = 16, 16, 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tricount", description="Exact triangle counting.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    count = sub.add_parser("count", help="count the triangles of a graph")
    count.add_argument("path", nargs="?", metavar="PATH",
                       help="SNAP edge list (plain or .gz); default: the built-in R-MAT example "
                            f"(scale {EXAMPLE_SCALE}, edge factor {EXAMPLE_EDGE_FACTOR}, "
                            f"seed {EXAMPLE_SEED})")
    count.add_argument("--backend", choices=BACKENDS, default="auto")
    count.add_argument("--method", default="auto", metavar="NAME",
                       help="counting method (CPU: merge, bitmap, spgemm; default auto)")
    count.add_argument("--json", action="store_true", help="print one JSON object")
    count.add_argument("--verify", action="store_true",
                       help="also count with the reference oracle; exit 4 on a mismatch")
    count.set_defaults(run=run_count)

    generate = sub.add_parser("generate", help="write a generated graph as a SNAP edge list")
    gen_sub = generate.add_subparsers(dest="generator", required=True, metavar="GENERATOR")
    rmat = gen_sub.add_parser("rmat", help="R-MAT with graph500 parameters (a=.57, b=c=.19)")
    rmat.add_argument("--scale", type=int, required=True, help="2**SCALE vertex ids")
    rmat.add_argument("--edge-factor", type=int, default=16, help="edges per vertex (default 16)")
    rmat.add_argument("--seed", type=int, default=1)
    rmat.add_argument("--no-permute", action="store_true", help="keep R-MAT's vertex order")
    rmat.add_argument("file", metavar="FILE", help="output path (.gz compresses)")
    rmat.set_defaults(run=run_generate_rmat)
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
        from tricount.io import graph_name, read_edges

        src, dst = read_edges(args.path)
        load_s = time.perf_counter() - t0
        graph = CSRGraph.from_edges(src, dst, name=graph_name(args.path))
        build_s = time.perf_counter() - t0 - load_s
    result = tricount.count(graph, backend=args.backend, method=args.method)
    result.timings["load_s"] = load_s
    result.timings["preprocess_s"] += build_s
    result.timings["total_s"] = time.perf_counter() - t0
    status = EXIT_OK
    report = result.to_dict()
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


def run_generate_rmat(args) -> int:
    from tricount.generate import rmat, rmat_name
    from tricount.io import write_snap

    src, dst = rmat(args.scale, args.edge_factor, seed=args.seed, permute=not args.no_permute)
    comments = [
        f"R-MAT {rmat_name(args.scale, args.edge_factor, args.seed)}: graph500 parameters "
        f"a=0.57 b=0.19 c=0.19, {'permuted' if not args.no_permute else 'unpermuted'} ids",
        f"{src.shape[0]} directed edge lines; self-loops and repeats included",
    ]
    try:
        write_snap(args.file, src, dst, comments=comments)
    except OSError as exc:
        raise TricountError(f"{args.file}: cannot write: {exc.strerror or exc}") from None
    print(f"wrote {src.shape[0]} edges to {args.file}", file=sys.stderr)
    return EXIT_OK


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
