"""``tricount convert`` and ``tricount info``: the command-line face of :mod:`tricount.io`.

Registered from :func:`tricount.cli.build_parser` by :func:`add_commands`.
Answers go to stdout (or one JSON object with ``--json``), notes to stderr;
a bad input file raises GraphFormatError, which the CLI turns into exit 2.
"""

from __future__ import annotations

import json
import os
import sys

from tricount.errors import GraphFormatError
from tricount.io.detect import ALIASES, FORMATS, strip_compression

OUTPUT_FORMATS = ("native", "snap")
_TEXT_SUFFIXES = (".txt", ".tsv", ".el", ".edges", ".edgelist", ".snap")


def add_commands(sub) -> None:
    """Add ``convert`` and ``info`` to the CLI's subparsers."""
    formats = sorted(set(ALIASES))
    convert = sub.add_parser(
        "convert", help="rewrite a graph file as native binary (.tcsr) or SNAP text",
        description="Read any supported graph file and write it as tricount's native binary "
                    "(.tcsr: canonical CSR, checksummed, memory-mapped on load) or as a SNAP "
                    "edge list (each undirected edge once, original ids; .gz/.bz2/.xz/.zst "
                    "compress).")
    convert.add_argument("input", metavar="IN", help="graph file to read")
    convert.add_argument("output", metavar="OUT", help="file to write (.tcsr, or .txt/.tsv/...)")
    convert.add_argument("--from", dest="format", default="auto", choices=formats,
                         metavar="FORMAT", help="input format (default: auto)")
    convert.add_argument("--to", choices=OUTPUT_FORMATS, default=None,
                         help="output format (default: from OUT's extension)")
    convert.add_argument("--json", action="store_true", help="print one JSON object")
    convert.set_defaults(run=run_convert)

    info = sub.add_parser("info", help="describe a graph file: format, sizes, what was dropped")
    info.add_argument("path", metavar="PATH", help="graph file")
    info.add_argument("--format", default="auto", choices=formats, metavar="FORMAT",
                      help=f"input format: auto or one of {', '.join(FORMATS)}")
    info.add_argument("--json", action="store_true", help="print one JSON object")
    info.set_defaults(run=run_info)


def output_format(path, requested=None) -> str:
    """``native`` or ``snap`` for an output path (or the ``--to`` choice)."""
    if requested:
        return requested
    name = strip_compression(os.path.basename(os.fspath(path))).lower()
    if name.endswith(".tcsr"):
        return "native"
    if name.endswith(_TEXT_SUFFIXES):
        return "snap"
    raise GraphFormatError(path, "cannot tell the output format from the name; use .tcsr "
                                 "(native binary) or .txt/.tsv/.el (SNAP text), or pass --to")


def _describe(path, loaded) -> dict:
    g = loaded.graph
    report = {"path": os.fspath(path), "format": loaded.format,
              "compression": loaded.compression}
    report.update(g.summary())
    report["empty"] = g.n_edges == 0
    report.update({k: round(v, 6) for k, v in loaded.timings.items()})
    return report


def run_info(args) -> int:
    from tricount.io import read_graph

    loaded = read_graph(args.path, format=args.format)
    report = _describe(args.path, loaded)
    if args.json:
        print(json.dumps(report))
        return 0
    packed = f" ({loaded.compression})" if loaded.compression else ""
    empty = " (the graph is empty)" if report["empty"] else ""
    print(f"format: {loaded.format}{packed}")
    print(f"vertices: {report['vertices']}")
    print(f"edges: {report['edges']}{empty}")
    print(f"max degree: {report['max_degree']}")
    print(f"self-loops dropped: {report['self_loops_dropped']}")
    print(f"duplicates dropped: {report['duplicates_dropped']}")
    print(f"read in {loaded.timings['load_s']:.3f} s, built in {loaded.timings['build_s']:.3f} s",
          file=sys.stderr)
    return 0


def run_convert(args) -> int:
    from tricount.io import read_graph, write_graph

    fmt = output_format(args.output, args.to)
    if os.path.abspath(args.input) == os.path.abspath(args.output):
        raise GraphFormatError(args.output, "is also the input; write to another file")
    loaded = read_graph(args.input, format=args.format)
    g = loaded.graph
    comments = [
        f"converted by tricount from {os.path.basename(args.input)} ({loaded.format})",
        f"{g.n_vertices} vertices, {g.n_edges} undirected edges, each listed once; "
        "ids as in the input; isolated vertices are not listed",
    ]
    write_graph(args.output, g, format=fmt, comments=comments)
    report = _describe(args.input, loaded)
    report.update(output=os.fspath(args.output), output_format=fmt)
    if args.json:
        print(json.dumps(report))
    else:
        empty = " (the graph is empty)" if report["empty"] else ""
        print(f"wrote {g.n_vertices} vertices, {g.n_edges} edges{empty} to {args.output} "
              f"({fmt})", file=sys.stderr)
    return 0
