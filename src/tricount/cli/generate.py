"""``tricount generate NAME [options] FILE``: write a generated graph to a file.

One subcommand per entry of :data:`tricount.generate.spec.GENERATORS`, with one
option per parameter (``--edge-factor``, ``--seed``, ...; a boolean that is on
by default becomes ``--no-NAME``). The file's format follows its name: SNAP text
(``.txt``, ``.el``, ``.tsv``, ``.edges``, ``.snap`` or no suffix), optionally
compressed (``.gz``, ``.bz2``, ``.xz``, ``.zst``), holds the edge lines exactly
as generated; ``.tcsr`` (or ``--to native``) is tricount's native binary CSR,
written by :func:`tricount.io.write_graph` (loops and repeats dropped). R-MAT
goes to a ``.tcsr`` a chunk of edges at a time when its edge list would not fit
in memory, or when ``--chunk-edges`` asks (:func:`tricount.io.write_native_edges`:
``tricount generate rmat --scale 28 -o big.tcsr``, generated and sorted on the
GPU when one is usable); the file is the same. The
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

HELP = "write a generated graph (R-MAT, G(n, m), BA, WS, complete, star, grid)"
DESCRIPTION = ("Write a seeded generated graph as an edge list; the same seed gives the same "
               "graph on the CPU and the GPU.")


def add_arguments(generate) -> None:
    """One sub-subcommand per generator."""
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
    cmd.add_argument("--device", choices=("auto", "cpu", "gpu"), default="auto",
                     help="generate with NumPy (cpu) or CuPy (gpu); the graph is the same "
                          "(auto: the GPU, when usable, for a graph built in chunks; else "
                          "the CPU)")
    cmd.add_argument("--to", choices=("snap", "native"), default=None,
                     help="output format (default: from FILE's suffix: .txt/.el/.tsv SNAP text, "
                          ".tcsr native binary)")
    cmd.add_argument("file", metavar="FILE", nargs="?",
                     help="output path; the suffix picks the format (.txt SNAP text, .tcsr "
                          "native binary; .gz, .bz2, .xz, .zst compress text; - standard "
                          "output)")
    cmd.add_argument("-o", "--output", metavar="FILE", default=None,
                     help="output path (instead of FILE)")
    if generator.name == "rmat":
        cmd.add_argument("--chunk-edges", type=int, default=None, metavar="N",
                         help="write a .tcsr by generating N edges at a time (bounded memory; "
                              "chosen by itself when the edge list would not fit)")
    cmd.set_defaults(run=run, generator_spec=generator)


def _array_module(device: str):
    if device == "cpu":
        import numpy

        return numpy
    from tricount.backends import get_backend

    get_backend("gpu")  # BackendUnavailableError (exit 3) when no GPU is usable
    import cupy

    return cupy


def _output(args) -> str:
    if (args.file is None) == (args.output is None):
        from tricount.errors import InvalidArgumentError

        if args.file is None:
            raise InvalidArgumentError("give the output file: as FILE or as -o FILE "
                                       "(- for standard output)")
        raise InvalidArgumentError("give the output file once: as FILE or as -o FILE")
    return args.file if args.output is None else args.output


def run(args) -> int:
    from tricount.prep.xp import to_host

    generator = args.generator_spec
    args.file = _output(args)
    # An unknown suffix is refused before generating.
    native = format_of(args.file, args.to) == "native"
    if getattr(args, "chunk_edges", None) is not None and not native:
        from tricount.errors import InvalidArgumentError

        raise InvalidArgumentError("--chunk-edges builds a .tcsr in bounded memory; SNAP text "
                                   "is written as generated (drop the option, or write .tcsr)")
    kwargs = {p.name: getattr(args, p.name) for p in generator.params}
    if native and generator.name == "rmat" and _stream_rmat(kwargs, args.chunk_edges):
        if args.device == "auto":  # a large graph: generated and sorted on the GPU if any
            from tricount.gpu import probe

            args.device = "gpu" if probe()[0] else "cpu"
        return _write_rmat_stream(args, generator, kwargs, _array_module(args.device))
    xp = _array_module("cpu" if args.device == "auto" else args.device)
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
    lines = int(src.shape[0])
    if format_of(args.file, args.to) == "snap":  # the lines as generated
        kept = "" if written == lines else f" ({written} edges; loops and repeats kept)"
        options.say_written(args, f"wrote {lines} edge lines{kept} to {args.file}")
        return options.EXIT_OK
    dropped = "" if written == lines else \
        f" ({lines} generated lines; loops and repeats dropped)"
    options.say_written(args, f"wrote {written} edges{dropped} to {args.file}")
    return options.EXIT_OK


def _stream_rmat(kwargs: dict, chunk_edges) -> bool:
    """Whether R-MAT goes to a .tcsr chunk by chunk: asked (``--chunk-edges``), or its
    edge list and one-piece build would not fit the host memory available."""
    from tricount.generate.rmat import CHUNK_EDGES, RmatChunks
    from tricount.prep.outofcore import available_memory, in_memory_bytes

    # The arguments checked (InvalidArgumentError) before any size is worked out from them.
    sizes = RmatChunks(**kwargs, chunk_edges=CHUNK_EDGES if chunk_edges is None else chunk_edges)
    if chunk_edges is not None:
        return True
    avail = available_memory()
    need = 16 * sizes.n_lines + in_memory_bytes(sizes.n_lines, sizes.max_id)
    return avail is not None and need > avail // 2


def _write_rmat_stream(args, generator, kwargs, xp) -> int:
    """``tricount generate rmat ... -o FILE.tcsr`` in bounded memory (see
    :func:`tricount.io.write_native_edges`)."""
    import tricount.io as tio
    from tricount.generate import rmat_chunks
    from tricount.generate.rmat import CHUNK_EDGES
    from tricount.prep.outofcore import BuildPlan

    chunk = CHUNK_EDGES if args.chunk_edges is None else args.chunk_edges
    source = rmat_chunks(**kwargs, chunk_edges=chunk, xp=xp)
    plan = BuildPlan(chunk_edges=chunk, device="gpu" if args.device == "gpu" else "cpu")
    name = generator.graph_name(kwargs)
    with PhaseProgress(quiet=getattr(args, "quiet", False)) as progress:
        built = tio.write_native_edges(args.file, source, name=name, plan=plan,
                                       progress=progress)
    if getattr(args, "json", False):
        report = {"generator": generator.name, "graph": name, **kwargs, "device": args.device,
                  "edge_lines": int(source.n_lines), "edges": int(built.n_edges),
                  "output": os.fspath(args.file), "format": "native",
                  "bounded_build": {"buckets": built.note["buckets"],
                                    "device": built.note["device"]}}
        print(json.dumps(report), file=sys.stderr if args.file == "-" else sys.stdout)
        return options.EXIT_OK
    options.say_written(args, f"wrote {built.n_edges} edges ({source.n_lines} generated lines; "
                              f"loops and repeats dropped) to {args.file} (bounded build: "
                              f"{built.note['buckets']} buckets on the {built.note['device']})")
    return options.EXIT_OK


class PhaseProgress:
    """``progress(phase, done, total)`` of the bounded build on stderr: a tqdm bar per
    phase on a terminal, else one line per finished phase once the run has taken
    ``LINE_AFTER_S`` seconds (a long run in a log says where its time went); nothing with
    ``quiet``."""

    LINE_AFTER_S = 2.0

    def __init__(self, *, quiet: bool = False):
        import time

        self._clock = time.perf_counter
        self._start = self._phase_start = self._clock()
        self._phase = self._bar = None
        self._quiet = quiet
        try:
            from tqdm import tqdm
        except ImportError:
            tqdm = None
        self._tqdm = tqdm if tqdm is not None and sys.stderr.isatty() and not quiet else None

    def __enter__(self):
        return self

    def __call__(self, phase: str, done: int, total) -> None:
        if phase != self._phase:
            self._end_phase()
            self._phase, self._phase_start = phase, self._clock()
            if self._tqdm is not None:
                self._bar = self._tqdm(total=total, desc=phase, file=sys.stderr, leave=False,
                                       unit_scale=True)
        if self._bar is not None:
            self._bar.update(done - self._bar.n)

    def _end_phase(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        elif self._phase is not None and not self._quiet \
                and self._clock() - self._start > self.LINE_AFTER_S:
            print(f"tricount: {self._phase}: {self._clock() - self._phase_start:.1f} s",
                  file=sys.stderr)

    def __exit__(self, *exc):
        if exc[0] is None:
            self._end_phase()
        elif self._bar is not None:
            self._bar.close()
        return False


def format_of(path, requested=None) -> str:
    """``"snap"`` for text suffixes, ``-`` or ``--to snap``; ``"native"`` for ``.tcsr``."""
    from tricount.io import output_format

    if requested:
        return output_format(path, requested)  # no text under a .tcsr name
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


def distinct_edges(src, dst) -> int:
    """The distinct undirected edges of host edge arrays, loops left out (what a graph
    built from them holds: a text file's report counted its lines instead)."""
    import numpy as np

    from tricount.io._parse import distinct_pairs

    lo, hi = np.minimum(src, dst), np.maximum(src, dst)
    keep = lo != hi
    return int(distinct_pairs(lo[keep], hi[keep])[0].shape[0])


def write_edges(path, src, dst, *, name=None, comments=(), to=None) -> int:
    """Write host edge arrays to ``path`` in the format its suffix (or ``to``) names.

    SNAP text gets the edge lines exactly as generated (loops and repeats
    included, so reading the file back gives the generator's arrays); any
    other format (``.tcsr``, tricount's native binary) gets the canonical graph
    through :func:`tricount.io.write_graph`, which rejects suffixes it does not know.
    Returns the number of distinct edges the file holds (loops and repeats not counted).
    """
    import tricount.io as tio

    if format_of(path, to) == "snap":
        tio.write_snap(path, src, dst, comments=comments)
        return distinct_edges(src, dst)
    from tricount.graph import CSRGraph

    graph = CSRGraph.from_edges(src, dst, name=name)
    tio.write_graph(path, graph, format="native")
    return graph.n_edges
