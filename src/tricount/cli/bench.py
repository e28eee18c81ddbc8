"""``tricount bench GRAPH... [options]``: the benchmark command.

Prints the Markdown report on stdout (or one JSON line per trial with
``--json``), progress and verdicts on stderr, and with ``--out PREFIX`` writes
``PREFIX.jsonl``, ``PREFIX.md`` and ``PREFIX.png`` (creating PREFIX's folder),
each whole or not at all. ``--out`` is checked before the run: an existing
folder, or a file that is one of the input graphs, is refused (exit 2) before
anything is timed. Exit codes: 0 every count verified, 2 bad input (or a side
that failed to run), 3 backend unavailable, 4 verification failed.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys

from tricount.cli import options

HELP = "benchmark methods, backends and peers on files or generated graphs"
DESCRIPTION = ("Load each graph once, build once, warm up once, then time N trials of every "
               "backend/method (and peer), verifying every count. Rates count each undirected "
               "edge once.")


def _split(values) -> tuple:
    """``["cpu,gpu", "reference"]`` -> ``("cpu", "gpu", "reference")``."""
    out = []
    for v in values or ():
        out += [x.strip() for x in v.split(",") if x.strip()]
    return tuple(out)


def add_arguments(bench) -> None:
    from tricount.bench.peers import PEERS
    from tricount.bench.runner import REFERENCE_MAX_EDGES
    from tricount.generate.spec import GENERATORS

    bench.add_argument("graphs", nargs="+", metavar="GRAPH",
                       help="a graph file, or a generator spec NAME:key=value,... with NAME in "
                            f"{', '.join(GENERATORS)} (e.g. rmat:scale=18,ef=16,seed=1)")
    bench.add_argument("--backend", "--backends", dest="backends", action="append",
                       metavar="LIST", help="comma-separated backends: cpu, gpu, reference, auto "
                                            "(default cpu); auto is tricount.count's own choice "
                                            "per graph, timed after the other sides and set "
                                            "against the fastest of them")
    bench.add_argument("--methods", "--method", dest="methods", action="append", metavar="LIST",
                       help="comma-separated methods, 'all' (default: every method of each "
                            "backend) or 'auto'; BACKEND/NAME limits one to a backend, e.g. "
                            "gpu/all,cpu/bitmap")
    bench.add_argument("--trials", type=int, default=3, help="timed trials per side (default 3)")
    bench.add_argument("--peers", action="append", metavar="LIST",
                       help=f"comma-separated peers to time on the same edges: {', '.join(PEERS)}, "
                            "or all; missing ones are reported, not fatal")
    bench.add_argument("--peer-max-edges", type=int, default=None, metavar="N",
                       help="run peers only on graphs of at most N edge lines (default: each "
                            "peer's own limit, NetworkX 1.1 M; 0: no limit)")
    bench.add_argument("--reference-max-edges", type=int, default=REFERENCE_MAX_EDGES,
                       metavar="N", help="judge by the Python oracle up to N edges; above, by "
                                         "agreement of two CPU methods (default %(default)s)")
    bench.add_argument("--generate-on", choices=("cpu", "gpu"), default="cpu",
                       help="generate specs with NumPy or CuPy (same graph; default cpu)")
    bench.add_argument("--out", metavar="PREFIX",
                       help="write PREFIX.jsonl, PREFIX.md and PREFIX.png (with --user-time: "
                            "PREFIX.md and PREFIX.json)")
    bench.add_argument("--no-plot", action="store_true", help="do not write PREFIX.png")
    bench.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                       help="print one JSON line per trial")
    bench.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                       help="no progress lines on stderr")
    user = bench.add_argument_group(
        "the user's time (tricount.bench.usertime)",
        "--user-time times what a user waits for instead: `tricount count FILE` with auto and "
        "every alternative, and a python-igraph script, each in fresh processes (--trials "
        "warm runs per cell, the median), every answer checked against the others")
    user.add_argument("--user-time", action="store_true",
                      help="time file to answer in fresh processes (GRAPH must be files)")
    user.add_argument("--cold", action="store_true",
                      help="with --user-time: also once with empty Numba and CuPy caches")
    user.add_argument("--sides", metavar="LIST",
                      help="with --user-time: the sides to keep, e.g. auto,cpu/bitmap,igraph")


def command_line(args) -> str:
    """The command, rebuilt from the parsed options (recorded in every report)."""
    words = ["tricount", "bench", *args.graphs]
    for flag, value in (("--backend", _split(args.backends)), ("--methods", _split(args.methods)),
                        ("--peers", _split(args.peers))):
        if value:
            words += [flag, ",".join(value)]
    words += ["--trials", str(args.trials)]
    if args.peer_max_edges is not None:
        words += ["--peer-max-edges", str(args.peer_max_edges)]
    from tricount.bench.runner import REFERENCE_MAX_EDGES

    if args.reference_max_edges != REFERENCE_MAX_EDGES:
        words += ["--reference-max-edges", str(args.reference_max_edges)]
    if args.generate_on != "cpu":
        words += ["--generate-on", args.generate_on]
    if args.out:
        words += ["--out", args.out]
    return shlex.join(words)


def output_paths(args) -> list:
    """``PREFIX.jsonl``, ``PREFIX.md`` (and ``PREFIX.png`` unless --no-plot); checked
    before the run: PREFIX must not be an existing folder, no output an input graph."""
    from tricount.io.output import prefixed_outputs

    suffixes = (".jsonl", ".md") + (() if args.no_plot else (".png",))
    return prefixed_outputs(args.out, suffixes, args.graphs)


def write_outputs(paths, result, report, progress) -> None:
    """Write the JSON lines, the report and the plot, each whole or not at all."""
    from tricount.io.output import after_commit, atomic_output, write_bytes

    write_bytes(paths[0], "".join(json.dumps(r) + "\n" for r in result.records).encode())
    write_bytes(paths[1], report.encode())
    written = paths[:2]
    if len(paths) > 2:
        from tricount.bench.plot import matplotlib_available, plot

        ok, why = matplotlib_available()
        if ok:
            with atomic_output(paths[2]) as (f, tmp):
                # By name (the temporary keeps the .png suffix), or into a stream.
                plot(result.records, f if tmp is None else tmp)
            written.append(paths[2])
        else:
            progress.note(f"plot not written: {why}")
    after_commit(lambda: progress.note("wrote " + ", ".join(str(p) for p in written)))


def run(args) -> int:
    if args.user_time:
        if getattr(args, "json", False):
            from tricount.errors import InvalidArgumentError

            raise InvalidArgumentError("--user-time prints a Markdown table (--out PREFIX also "
                                       "writes PREFIX.json); --json goes without it")
        return _user_time(args)
    if args.cold or args.sides:
        from tricount.errors import InvalidArgumentError

        raise InvalidArgumentError("--cold and --sides go with --user-time")
    from tricount.bench.peers import PEERS
    from tricount.bench.progress import make_progress
    from tricount.bench.report import markdown
    from tricount.bench.runner import BenchConfig, run_bench

    paths = output_paths(args) if args.out else None
    peers = _split(args.peers)
    if "all" in peers:
        peers = tuple(PEERS)
    config = BenchConfig(
        graphs=list(args.graphs),
        backends=_split(args.backends) or ("cpu",),
        methods=_split(args.methods) or ("all",),
        trials=args.trials,
        peers=peers,
        reference_max_edges=args.reference_max_edges,
        peer_max_edge_lines=args.peer_max_edges,
        generate_on=args.generate_on,
        command=command_line(args),
    )
    progress = make_progress(quiet=getattr(args, "quiet", False))
    result = run_bench(config, progress=progress)
    report = markdown(result.records, notes=result.notes, errors=result.errors,
                      mismatches=result.mismatches)
    if getattr(args, "json", False):
        for r in result.records:
            print(json.dumps(r))
    else:
        try:
            sys.stdout.write(report)
        except UnicodeEncodeError:  # an ASCII locale (LC_ALL=C without UTF-8 mode): as UTF-8
            sys.stdout.flush()
            sys.stdout.buffer.write(report.encode("utf-8"))
    if paths:
        write_outputs(paths, result, report, progress)
    for line in result.mismatches:
        print(f"tricount: verification FAILED: {line}", file=sys.stderr)
    for line in result.errors:
        print(f"tricount: error: {line}", file=sys.stderr)
    if result.mismatches or not result.verified:
        return options.EXIT_VERIFY_FAILED
    if result.errors:
        return options.EXIT_BAD_INPUT
    print(f"verification: PASS ({len(result.records)} counts on {len(result.graphs)} graph"
          f"{'s' if len(result.graphs) != 1 else ''})", file=sys.stderr)
    return options.EXIT_OK


def _user_time(args) -> int:
    """``--user-time``: :func:`tricount.bench.usertime.main` on the same files and options."""
    from tricount.bench import usertime

    argv = [*args.graphs, "--repeat", str(args.trials)]
    argv += ["--cold"] if args.cold else []
    argv += ["--sides", args.sides] if args.sides else []
    argv += ["--out", args.out] if args.out else []
    return usertime.main(argv)
