"""``tricount convert IN OUT``: rewrite a graph file as native binary or SNAP text.

The output is written whole or not at all, ``-`` is standard output (SNAP
text), and an output that is the input by any path (the same name, a symbolic
or hard link) is refused before anything is read.
"""

from __future__ import annotations

import json
import os
import sys

from tricount.cli import options
from tricount.cli.info import describe

HELP = "rewrite a graph file as native binary (.tcsr) or SNAP text"
DESCRIPTION = ("Read any supported graph file and write it as tricount's native binary (.tcsr: "
               "canonical CSR, checksummed) or as a SNAP edge list (each undirected edge once, "
               "original ids; .gz/.bz2/.xz/.zst compress; - is standard output). The output is "
               "written whole or not at all, and never over the input.")


def add_arguments(convert) -> None:
    from tricount.io import OUTPUT_FORMATS

    convert.add_argument("input", metavar="IN", help="graph file to read (- for standard input)")
    convert.add_argument("output", metavar="OUT",
                         help="file to write (.tcsr, or .txt/.tsv/...; - for standard output)")
    convert.add_argument("--from", dest="format", default="auto", metavar="FORMAT",
                         help="input format (default: auto)")
    convert.add_argument("--to", choices=OUTPUT_FORMATS, default=None,
                         help="output format (default: from OUT's extension)")
    options.add_json(convert)


def run(args) -> int:
    from tricount.io import output_format, read_graph, write_graph
    from tricount.io.output import check_outputs

    fmt = output_format(args.output, args.to)
    check_outputs([args.output], [args.input])
    loaded = read_graph(args.input, format=args.format)
    g = loaded.graph
    comments = [
        f"converted by tricount from {os.path.basename(args.input)} ({loaded.format})",
        f"{g.n_vertices} vertices, {g.n_edges} undirected edges, each listed once; "
        "ids as in the input; isolated vertices are not listed",
    ]
    with options.step(f"writing {args.output}"):
        write_graph(args.output, g, format=fmt, comments=comments, inputs=[args.input])
    report = describe(args.input, loaded)
    report.update(output=os.fspath(args.output), output_format=fmt)
    if args.json:
        print(json.dumps(report), file=sys.stderr if args.output == "-" else sys.stdout)
    else:
        empty = " (the graph is empty)" if report["empty"] else ""
        options.say_written(args, f"wrote {g.n_vertices} vertices, {g.n_edges} edges{empty} "
                                  f"to {args.output} ({fmt})")
    return options.EXIT_OK
