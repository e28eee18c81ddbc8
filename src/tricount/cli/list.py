"""``tricount list PATH -o OUT``: every triangle once, as rows of three vertex ids.

    tricount list PATH -o OUT [--format-out parquet|tsv] [--chunk-size ROWS]
                  [--compression CODEC] [--backend B] [--json]

``OUT`` is Parquet (``.parquet``/``.pq``, columns ``u``, ``v``, ``w``, through
pyarrow), TSV (any other name: ``u<TAB>v<TAB>w`` lines) or ``-`` (TSV on
standard output). Ids are the input's own (vertex names for a table of names);
each row is sorted in the graph's vertex order. The file is written whole or
not at all (a temporary beside it, renamed when complete) and never over the
input; the triangles are counted first, so the progress bar knows its total.
"""

from __future__ import annotations

import json
import os
import sys
import time

from tricount.cli import options

HELP = "write every triangle (u, v, w) to Parquet, TSV or standard output"
DESCRIPTION = ("List every triangle of a graph once, as rows u, v, w of the input's own ids, to "
               "a Parquet file (.parquet, needs pyarrow), a TSV file (any other name; .gz, "
               ".bz2, .xz, .zst compress it) or "
               "standard output (-). Written whole or not at all.")


def add_arguments(listing) -> None:
    from tricount.listing import CHUNK_ROWS, FORMATS, PARQUET_COMPRESSION

    options.add_input(listing)
    listing.add_argument("-o", "--output", required=True, metavar="OUT",
                         help="where to write: OUT.parquet, OUT.tsv (or any name: TSV), "
                              "- for TSV on standard output")
    listing.add_argument("--to", choices=FORMATS, default=None,
                         help="output format (default: from OUT's suffix)")
    listing.add_argument("--chunk-size", type=int, default=CHUNK_ROWS, metavar="ROWS",
                         help=f"rows per chunk (a Parquet row group; smaller chunks are "
                              f"gathered into groups of at least 65,536 rows); default "
                              f"{CHUNK_ROWS}")
    listing.add_argument("--compression", default=None, metavar="CODEC",
                         help=f"Parquet codec (default {PARQUET_COMPRESSION}; none, zstd, lz4, "
                              "...); a TSV is compressed by its name (OUT.tsv.gz, .xz, .zst)")
    options.add_backend(listing)
    options.add_json(listing)


class _CountThenWrite:
    """A ticker while the triangles are counted, then ``bar`` (rows written of the total,
    known once counted)."""

    def __init__(self, bar):
        self.bar = bar
        self.ticker = options.step("counting the triangles to list")

    def __enter__(self):
        self.ticker.__enter__()
        return self

    def __call__(self, done: int, total: int) -> None:
        if self.ticker is not None:  # the count is over: the rows begin
            self.ticker.__exit__(None, None, None)
            self.ticker = None
        self.bar(done, total)

    def __exit__(self, *exc):
        if self.ticker is not None:
            self.ticker.__exit__(*exc)
        return False


def run(args) -> int:
    from tricount._progress import Progress
    from tricount.backends import backend_for
    from tricount.listing import write_triangles

    t0 = time.perf_counter()
    engine, reason = backend_for(args.backend, args.path)  # exit 3 before reading
    loaded = options.load(args, device="gpu" if engine.name == "gpu" else "cpu")
    graph = loaded.graph
    t1 = time.perf_counter()
    with Progress("triangles", None, unit="triangles") as bar, \
            _CountThenWrite(bar) as progress:
        written = write_triangles(graph, args.output, backend=engine.name,
                                  chunk_size=args.chunk_size, format=args.to,
                                  compression=args.compression, inputs=[args.path],
                                  progress=progress)
    report = {**graph.summary(), "triangles": written, "output": os.fspath(args.output),
              "backend": engine.name, "backend_reason": reason,
              "timings": {"load_s": loaded.timings["load_s"],
                          "build_s": loaded.timings["build_s"],
                          "list_s": time.perf_counter() - t1,
                          "total_s": time.perf_counter() - t0}}
    if args.json:
        # Rows on standard output: the report goes to stderr, as for convert.
        print(json.dumps(report), file=sys.stderr if args.output == "-" else sys.stdout)
        return options.EXIT_OK
    options.say_written(args, f"wrote {written} triangles of {graph.name} ({graph.n_vertices} "
                              f"vertices, {graph.n_edges} edges) to {args.output}; "
                              f"{engine.name}, total {report['timings']['total_s']:.3f} s")
    return options.EXIT_OK
