"""``tricount generate NAME [options] FILE``: write a generated graph to a file.

One subcommand per entry of :data:`tricount.generate.spec.GENERATORS`, with one
option per parameter (``--edge-factor``, ``--seed``, ...; a boolean that is on
by default becomes ``--no-NAME``). The file's format follows its name: SNAP text
(``.txt``, ``.el``, ``.tsv``, ``.edges``, ``.snap`` or no suffix), optionally
compressed (``.gz``, ``.bz2``, ``.xz``, ``.zst``), holds the edge lines exactly
as generated; ``.tcsr`` (or ``--to native``) is tricount's native binary CSR,
written by :func:`tricount.io.write_graph` (loops and repeats dropped). The
file is written whole or not at all; ``-`` is standard output (SNAP text).
"""

from __future__ import annotations

import json
import os
import sys

from tricount.cli import options
from tricount.generate.spec import GENERATORS, Generator, call_generator

#: Suffixes written as SNAP text (after any compression suffix is removed).
TEXT_SUFFIXES = ("", ".txt", ".el", ".tsv", ".edges", ".snap")
COMPRESSION_SUFFIXES = (".gz", ".bz2", ".xz", ".zst", ".zstd")


def add_parser(subparsers) -> None:
    """Register ``generate`` and one sub-subcommand per generator."""
    generate = subparsers.add_parser(
        "generate", help="write a generated graph (R-MAT, G(n, m), BA, WS, complete, star, grid)",
        description="Write a seeded generated graph as an edge list; the same seed gives the "
                    "same graph on the CPU and the GPU.")
    sub = generate.add_subparsers(dest="generator", required=True, metavar="GENERATOR")
    for generator in GENERATORS.values():
        _add_generator(sub, generator)


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _add_generator(sub, generator: Generator) -> None:
    cmd = sub.add_parser(generator.name, help=generator.summary, description=generator.summary,
                         aliases=[a for a in generator.aliases if "_" not in a])
    for p in generator.params:
        names = [_flag(p.name)] + [_flag(a) for a in p.aliases]
        if p.kind is bool:
            if p.default:
                cmd.add_argument(*[f"--no-{n[2:]}" for n in names], dest=p.name,
                                 action="store_false", help=f"do not {p.help}")
            else:
                cmd.add_argument(*names, dest=p.name, action="store_true", help=p.help)
            continue
        default = None if p.required else p.default
        extra = "" if p.required else f" (default {p.default})"
        cmd.add_argument(*names, dest=p.name, type=p.kind, required=p.required, default=default,
                         metavar=p.name.upper(), help=p.help + extra)
    cmd.add_argument("--device", choices=("cpu", "gpu"), default="cpu",
                     help="generate with NumPy (cpu) or CuPy (gpu); the graph is the same")
    cmd.add_argument("--to", choices=("snap", "native"), default=None,
                     help="output format (default: from FILE's suffix: .txt/.el/.tsv SNAP text, "
                          ".tcsr native binary)")
    cmd.add_argument("file", metavar="FILE",
                     help="output path; the suffix picks the format (.txt SNAP text, .tcsr "
                          "native binary; .gz, .bz2, .xz, .zst compress text; - standard "
                          "output)")
    cmd.set_defaults(run=run, generator_spec=generator)


def _array_module(device: str):
    if device == "cpu":
        import numpy

        return numpy
    from tricount.backends import get_backend

    get_backend("gpu")  # BackendUnavailableError (exit 3) when no GPU is usable
    import cupy

    return cupy


def run(args) -> int:
    from tricount.prep.xp import to_host

    generator = args.generator_spec
    format_of(args.file, args.to)  # an unknown suffix is refused before generating
    kwargs = {p.name: getattr(args, p.name) for p in generator.params}
    xp = _array_module(args.device)
    name = generator.graph_name(kwargs)
    with options.step(f"generating {name}"):
        src, dst = call_generator(generator, kwargs, xp)
        src, dst = to_host(src), to_host(dst)
    settings = " ".join(f"{k}={v}" for k, v in kwargs.items())
    comments = [
        f"{generator.title} {name}: {generator.summary}",
        f"tricount generate {generator.name} {settings}",
        f"{src.shape[0]} edge lines; self-loops and repeats, if any, are included",
    ]
    with options.step(f"writing {args.file}"):
        written = write_edges(args.file, src, dst, name=name, comments=comments, to=args.to)
    if getattr(args, "json", False):
        report = {"generator": generator.name, "graph": name, **kwargs,
                  "device": args.device, "edge_lines": int(src.shape[0]), "edges": written,
                  "output": os.fspath(args.file), "format": format_of(args.file, args.to)}
        # Edges on standard output: the report goes to stderr, as for convert.
        print(json.dumps(report), file=sys.stderr if args.file == "-" else sys.stdout)
        return options.EXIT_OK
    dropped = "" if written == src.shape[0] else \
        f" ({src.shape[0]} generated lines; loops and repeats dropped)"
    options.say(args, f"wrote {written} edges{dropped} to {args.file}")
    return options.EXIT_OK


def format_of(path, requested=None) -> str:
    """``"snap"`` for text suffixes, ``-`` or ``--to snap``; ``"native"`` for ``.tcsr``."""
    from tricount.io import output_format

    if requested:
        return requested
    if os.fspath(path) == "-":
        return "snap"
    name = os.path.basename(os.fspath(path)).lower()
    for suffix in COMPRESSION_SUFFIXES:
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    if os.path.splitext(name)[1] in TEXT_SUFFIXES:
        return "snap"
    return output_format(path)  # .tcsr, or GraphFormatError naming the file


def write_edges(path, src, dst, *, name=None, comments=(), to=None) -> int:
    """Write host edge arrays to ``path`` in the format its suffix (or ``to``) names.

    SNAP text gets the edge lines exactly as generated (loops and repeats
    included, so reading the file back gives the generator's arrays); any
    other format (``.tcsr``, tricount's native binary) gets the canonical graph
    through :func:`tricount.io.write_graph`, which rejects suffixes it does not know.
    Returns the number of edges the file holds.
    """
    import tricount.io as tio

    if format_of(path, to) == "snap":
        tio.write_snap(path, src, dst, comments=comments)
        return int(src.shape[0])
    from tricount.graph import CSRGraph

    graph = CSRGraph.from_edges(src, dst, name=name)
    tio.write_graph(path, graph, format="native")
    return graph.n_edges
