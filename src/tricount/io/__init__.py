"""Reading and writing graph files.

``load_graph(path)`` reads SNAP edge lists, GraphChallenge ``*_adj.tsv`` and
``.mmio``, Matrix Market coordinate files, METIS/DIMACS10 ``.graph``, NumPy
``.npy``/``.npz`` edge arrays and tricount's native binary ``.tcsr``, each
plain or compressed with gzip, bzip2, xz or zstd (zstd needs the optional
``zstandard`` package), from a file, ``-`` (standard input), a pipe, a FIFO
or a socket. The format comes from the name, confirmed by the content
(``detect``), or from ``format=``. Every malformed input raises
:class:`~tricount.GraphFormatError` naming the input, the line (for text) and
what was expected. One path, walked forward::

    path ─source.open_source─▶ Source (opened once; compression by magic; kept head)
         ─detect.resolve_format─▶ format
         ─<format>.read─▶ EdgeText (edge chunks; repeats merged when memory asks)
         ─CSRGraph.from_chunks (prep.build)─▶ CSRGraph
    SNAP with parser="numpy" (or "auto" below the cap), and CSV, Parquet, Arrow, .npy
    (whose readers compile nothing) up to NUMPY_BUILD_MAX_LINES edges: ─read─▶ EdgeText
         ─CSRGraph.from_chunks(builder="numpy") (prep.canonical)─▶ CSRGraph: no Numba
    .tcsr: ─native.read (copied, every block checksummed)─▶ CSRGraph
    device="gpu", text: ─<format>.read into gpu_stream.DeviceEdges (pinned double
         buffer) ─prep.canonical on the GPU─▶ CSRGraph; but a SNAP text that the NumPy
         parser takes (parser="numpy", or "auto" below the cap while Numba has not
         started in the process: gpu_stream parses with Numba) is read on the host as
         above and its CSR copied to the device (:func:`streams_to_device`)

Writers (:func:`write_graph`, :func:`write_snap`, :func:`write_native`,
:func:`write_native_edges`, :mod:`tricount.io.tables`) write whole or not at all and
never over an input
(:mod:`tricount.io.output`).
"""

from __future__ import annotations

import importlib
import os
import time
from dataclasses import dataclass, field

import numpy as np

from tricount.errors import (BackendUnavailableError, GraphFormatError, InvalidArgumentError,
                             TricountError, import_failure)
from tricount.graph import CSRGraph
from tricount.io._grammar import NUMPY_PARSE_MAX_BYTES
from tricount.io._limits import out_of_memory
from tricount.io.detect import FORMATS, format_to_read, resolve_format, strip_compression
from tricount.io.snap import write_snap
from tricount.io.source import open_source

__all__ = ["load_graph", "read_graph", "read_edges", "read_file_arcs", "write_graph",
           "write_snap", "write_native", "write_native_edges", "graph_name", "output_format",
           "FORMATS", "OUTPUT_FORMATS",
           "LoadedGraph", "PARSERS", "NUMPY_PARSE_FORMATS", "NUMPY_PARSE_MAX_BYTES",
           "STREAMED_FORMATS", "streams_to_device"]

_NAME_SUFFIXES = (".txt", ".tsv", ".csv", ".parquet", ".pq", ".arrow", ".feather", ".el", ".wel",
                  ".edges", ".edgelist", ".snap", ".mtx",
                  ".mmio", ".mm", ".graph", ".metis", ".npy", ".npz", ".tcsr")


def graph_name(path) -> str:
    """A short label for a file: its name without directory and known suffixes.

    >>> graph_name("/data/ca-GrQc.txt.gz")
    'ca-GrQc'
    >>> graph_name(b"/data/caf\\xe9.txt"), graph_name("/data/Zo\\udcc3\\udcab.txt")
    ('caf�', 'Zoë')
    """
    if isinstance(path, int):  # an open file descriptor
        return f"fd{path}"
    # Text whatever the path's bytes: a name's UTF-8 read back as such (under LC_ALL=C Python
    # holds 'Zoë' as 'Zo\udcc3\udcab'), bytes that are not UTF-8 as U+FFFD, never a lone
    # surrogate, which a report's JSON cannot carry.
    raw = os.fsencode(os.path.basename(os.fspath(path)))
    name = strip_compression(raw.decode("utf-8", "replace"))
    for suffix in _NAME_SUFFIXES:
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name


@dataclass
class LoadedGraph:
    """A graph read from a file, with what was detected and how long each step took."""

    graph: CSRGraph
    format: str
    compression: str | None
    timings: dict = field(default_factory=dict)  # load_s (read + parse), build_s
    on_device: bool = False  # built on the GPU
    parser: str = ""  # the text parser asked for, once resolved ("numba" or "numpy"; "" if none)


#: Where :func:`load_graph` can put the graph.
DEVICES = ("cpu", "gpu")
#: The parser module of each text format (imported on first use: they load Numba).
TEXT_PARSERS = {"snap": "snap", "graphchallenge": "graphchallenge",
                "matrix-market": "mtx", "metis": "metis", "csv": "delimited",
                "parquet": "parquet", "arrow": "arrow"}
#: Formats the GPU path streams to the device as they are parsed.
STREAMED_FORMATS = ("snap", "graphchallenge", "matrix-market", "metis")
#: Formats :func:`write_graph` writes.
OUTPUT_FORMATS = ("native", "snap")
#: The text parsers: Numba's kernels (every text format, parallel; compiled on first use)
#: or NumPy alone (compiles nothing), and ``auto``, which takes NumPy where it can.
PARSERS = ("auto", "numba", "numpy")
#: Text formats with a NumPy parser (:mod:`tricount.io.snap_numpy`); the cost model reads this.
NUMPY_PARSE_FORMATS = ("snap",)
#: The NumPy build holds every line at once: it builds at most this many (a line of
#: text is 4 bytes at least, so a text under the parse cap always fits).
NUMPY_BUILD_MAX_LINES = NUMPY_PARSE_MAX_BYTES // 4
#: Formats whose readers compile nothing (pyarrow, polars, NumPy or Python read them): their
#: edges are built by NumPy too while they fit, unless Numba has started already, so a
#: process that reads one loads no Numba (its start and the build's cached kernels: 0.14 s
#: and more on the 2-core machine).
NUMBA_FREE_FORMATS = ("csv", "parquet", "arrow", "numpy")
_TEXT_SUFFIXES = (".txt", ".tsv", ".el", ".edges", ".edgelist", ".snap")


def builds_with_numpy(fmt: str, parser: str, n_lines: int, numba_started: bool) -> bool:
    """Whether what was read is built by NumPy (nothing compiles) rather than Numba: what the
    NumPy parser read, or a reader of :data:`NUMBA_FREE_FORMATS` while Numba has not started
    in the process (its parallel build is then the faster), up to
    :data:`NUMPY_BUILD_MAX_LINES` lines. The cost model asks the same question.

    >>> builds_with_numpy("csv", "numba", 4, False), builds_with_numpy("csv", "numba", 4, True)
    (True, False)
    """
    numba_free = parser == "numpy" or (fmt in NUMBA_FREE_FORMATS and not numba_started)
    return numba_free and n_lines <= NUMPY_BUILD_MAX_LINES


def _check_parser(parser: str) -> None:
    if parser not in PARSERS:
        raise TricountError(f"unknown parser {parser!r}; choose 'auto', 'numba' or 'numpy'")


def _file_path(path):
    """``path`` as the readers take it: a str or os.PathLike (bytes decoded), ``-`` for
    standard input, or an open file descriptor (an int, not a bool)."""
    if isinstance(path, bytes):
        return os.fsdecode(path)
    if isinstance(path, bool) or not isinstance(path, (str, os.PathLike, int)):
        raise InvalidArgumentError(
            f"path must be a file path (str or os.PathLike), '-' for standard input, or an "
            f"open file descriptor; got {type(path).__name__}")
    return path


def read_graph(path, *, format: str = "auto", progress=None, device: str = "cpu",
               parser: str = "auto") -> LoadedGraph:
    """Read ``path`` like :func:`load_graph`; also report format, compression, the parser
    and timings."""
    path = _file_path(path)
    if device not in DEVICES:
        raise TricountError(f"unknown device {device!r}; choose 'cpu' or 'gpu'")
    _check_parser(parser)
    t0 = time.perf_counter()
    with open_source(path) as source:
        try:
            loaded = _read(source, graph_name(path), format, progress, device, t0, parser)
        except MemoryError:
            raise out_of_memory(source.path) from None
    if device == "gpu" and not loaded.on_device:
        t1 = time.perf_counter()
        loaded.graph = _to_gpu(loaded.graph)
        loaded.timings["load_s"] += time.perf_counter() - t1
    return loaded


def resolve_parser(parser: str, fmt: str, source) -> str:
    """``numba`` or ``numpy`` for reading ``source`` (format ``fmt``) as ``parser`` asks.

    ``numpy`` only for :data:`NUMPY_PARSE_FORMATS` (any other format: ``numba``);
    ``auto`` takes it too, unless the input is larger than :data:`NUMPY_PARSE_MAX_BYTES`
    (compressed bytes, for a compressed file; a stream is taken as small).
    """
    if fmt not in NUMPY_PARSE_FORMATS or parser == "numba":
        return "numba"
    if parser == "auto" and (source.size or 0) > NUMPY_PARSE_MAX_BYTES:
        return "numba"
    return "numpy"


def streams_to_device(parser: str, fmt: str, source, numba_started: bool) -> bool:
    """Whether a text read for the GPU is parsed into the device as it is read
    (:mod:`tricount.io.gpu_stream`, Numba's parser on every core) rather than read on
    the host and its graph copied. Not where the NumPy parser reads it
    (:func:`resolve_parser`) and either ``parser`` asks for NumPy or Numba has not
    started in this process: its start and cached kernels (0.6-1.0 s in a fresh process
    on the H100 machine) cost more than the NumPy parse of a text under the cap
    (soc-Epinions1: 0.09 s). The cost model (``backends.costs``) asks the same question.
    """
    if fmt not in STREAMED_FORMATS:
        return False
    if resolve_parser(parser, fmt, source) != "numpy":
        return True
    return parser == "auto" and numba_started


def _read(source, name, format, progress, device, t0, parser="auto") -> LoadedGraph:
    """The walk of the module doc, on an opened source."""
    fmt = resolve_format(format, source)
    fmt_read = format_to_read(fmt, source)  # no bytes: the empty graph, or a truncated file
    if fmt_read == "native":
        from tricount.io.native import read as read_native

        timings = {}
        graph = read_native(source, timings=timings)
        timings["load_s"] = time.perf_counter() - t0 - timings["build_s"]
        return LoadedGraph(graph, fmt, source.compression, timings)
    from tricount.io._progress import Progress, Ticker

    bar = Progress(source.path, source.size or 0, progress)
    try:
        from tricount._threads import numba_started

        if device == "gpu" and streams_to_device(parser, fmt_read, source, numba_started()):
            from tricount.io.gpu_stream import read_graph_gpu

            graph, timings = read_graph_gpu(source, fmt, name=name, progress=bar)
            return LoadedGraph(graph, fmt, source.compression, timings, on_device=True)
        from tricount.io._parse import EdgeText

        sink = EdgeText()
        parser = resolve_parser(parser, fmt_read, source)
        declared = parse_into(source, fmt_read, sink, progress=bar, parser=parser)
    finally:
        bar.close()
    t1 = time.perf_counter()
    from tricount.io._parse import check_symmetric

    n_entries = sink.n_entries
    numpy_build = builds_with_numpy(fmt_read, parser, sink.n_held, numba_started())
    builder = "numpy" if numpy_build else "numba"
    with Ticker(f"building the graph of {name}", progress):
        graph = CSRGraph.from_chunks(sink.chunks, max_id=sink.max_id,
                                     n_vertices=declared.n_vertices, id_base=declared.id_base,
                                     name=name, loops_dropped=sink.loops_merged,
                                     duplicates_dropped=sink.duplicates_merged, builder=builder)
    if declared.symmetric:
        check_symmetric(source.path, graph, n_entries)
    if declared.names is not None:  # ids 0 .. n - 1 are the ranks of the sorted names
        graph.vertex_ids = declared.names
    return LoadedGraph(graph, fmt, source.compression,
                       {"load_s": t1 - t0, "build_s": time.perf_counter() - t1},
                       parser=parser if fmt_read != "empty" else "")


def parse_into(source, fmt: str, sink, *, progress=None, parser: str = "numba"):
    """Parse ``source`` (format ``fmt``, not native) into ``sink``; return its ``Declared``.

    ``parser="numpy"`` reads a format of :data:`NUMPY_PARSE_FORMATS` with NumPy (which
    hands what it cannot read exactly, and text past its cap, to the Numba parser)."""
    from tricount.io._parse import Declared

    if fmt == "empty":
        return Declared()
    if fmt == "numpy":
        from tricount.io.numpy_edges import read_numpy

        (src, dst), n_vertices = read_numpy(source)
        if src.shape[0]:
            max_id = int(max(src.max(), dst.max()))
            dtype = np.int32 if max_id <= np.iinfo(np.int32).max else np.int64
            sink.max_id = max_id
            # Owned, writable copies: building relabels the chunks in place.
            sink.add(int(src.shape[0]), dtype,
                     lambda s, d: (np.copyto(s, src, casting="unsafe"),
                                   np.copyto(d, dst, casting="unsafe")),
                     consumed=source.consumed)  # 16 bytes an edge: never merged
            sink.n_entries = int(src.shape[0])
        return Declared(n_vertices, 0)
    if parser == "numpy" and fmt in NUMPY_PARSE_FORMATS:
        from tricount.io.snap_numpy import read as read_numpy_text

        return read_numpy_text(source, sink, progress=progress)
    module = importlib.import_module(f"tricount.io.{TEXT_PARSERS[fmt]}")
    return module.read(source, sink, progress=progress)


def _to_gpu(graph: CSRGraph) -> CSRGraph:
    try:
        import cupy
    except ImportError as exc:
        raise BackendUnavailableError(f"device 'gpu' is unavailable: "
                                      f"{import_failure(exc, 'CuPy', 'cupy')}; "
                                      "load with device='cpu'") from None
    try:
        g = graph.to_device(cupy)
    except cupy.cuda.runtime.CUDARuntimeError as exc:
        raise BackendUnavailableError(f"device 'gpu' is unavailable ({exc}); load with "
                                      "device='cpu'") from None
    if np.asarray(g.vertex_ids).dtype.kind in "iu":  # names stay on the host
        g.vertex_ids = cupy.asarray(g.vertex_ids)  # as a graph built on the GPU has them
    return g


def write_native(path, graph: CSRGraph, *, inputs=()) -> None:
    """Write ``graph`` as tricount's native binary (see :mod:`tricount.io.native`)."""
    from tricount.io.native import write_native as write  # keeps Numba out of the import

    write(path, graph, inputs=inputs)


def write_native_edges(path, source, *, name=None, n_vertices=None, plan=None, inputs=(),
                       progress=None):
    """Write the canonical graph of an edge source as a ``.tcsr`` in bounded memory
    (see :func:`tricount.io.native.write_native_edges`)."""
    from tricount.io.native import write_native_edges as write  # keeps Numba out of the import

    return write(path, source, name=name, n_vertices=n_vertices, plan=plan, inputs=inputs,
                 progress=progress)


def load_graph(path, *, format: str = "auto", progress=None, device: str = "cpu",
               parser: str = "auto") -> CSRGraph:
    """Load a graph file into a :class:`~tricount.CSRGraph`.

    Parameters
    ----------
    path : str or os.PathLike
        A graph file, plain or compressed (.gz, .bz2, .xz, .zst).
    format : str
        ``"auto"`` (the name, confirmed by the content), or one of ``"snap"``
        (edge list: ``#``/``%`` comments, two ids per line, extra columns
        ignored), ``"graphchallenge"`` (``*_adj.tsv``), ``"matrix-market"``
        (``.mtx``, ``.mmio``), ``"metis"`` (``.graph``), ``"numpy"`` (``.npy``,
        ``.npz``), ``"csv"`` (a table with a header, any delimiter, names),
        ``"parquet"``, ``"arrow"`` (edge tables: ``source``/``target`` columns
        or the first two) or ``"native"`` (``.tcsr`` from ``tricount convert``).
    progress : bool or None
        Show progress bars on stderr (reading, then building). ``None``: only
        on a terminal (and unless :func:`tricount._progress.configure` turned
        them off), and only once a step has taken two seconds.
    device : {"cpu", "gpu"}
        Where the graph's arrays live. With ``"gpu"`` a text file is parsed
        on the CPU in chunks while the previous chunk is copied to the GPU
        (a pinned double buffer), and the graph is built there; other formats
        load on the CPU and move, and so does a text the NumPy parser reads
        while Numba has not started in the process (or with ``parser="numpy"``;
        :func:`streams_to_device`). The graph is the same either way. Raises
        ``BackendUnavailableError`` when no GPU is usable.
    parser : {"auto", "numba", "numpy"}
        How a text file is parsed (on the CPU). ``"numba"``: io's parallel
        parser, which compiles its kernels on first use (a few seconds, once:
        they are cached on disk). ``"numpy"``: NumPy alone, compiling nothing,
        for SNAP edge lists (other formats use Numba) up to 32 MiB of text
        (``NUMPY_PARSE_MAX_BYTES``; the rest is parsed by Numba), and built
        into a graph by NumPy too. ``"auto"`` (default): NumPy where it can,
        unless the file is larger than that. The graph, and every error
        (with its line), are the same whichever parser runs: what NumPy cannot
        read exactly goes to the Numba parser. ``tricount.count`` passes the
        parser of the route its cost model picks.

    Returns
    -------
    CSRGraph
        Undirected and simple: self-loops and repeated edges are dropped and
        counted. An empty edge list (no bytes, or only comments) is the empty
        graph; a file of no bytes in a format that starts with a header (.tcsr,
        NumPy, Parquet, Arrow, Matrix Market, METIS) is refused as truncated.

    Raises
    ------
    GraphFormatError
        Naming the file, the line (for text) and what was expected.

    Examples
    --------
    A triangle with a repeated edge and a self-loop:

    >>> import os, pathlib, tempfile, tricount
    >>> path = os.path.join(tempfile.mkdtemp(), "tri.txt")
    >>> _ = pathlib.Path(path).write_text("# a triangle\\n1 2\\n2 3\\n3 1\\n2 1\\n3 3\\n")
    >>> g = load_graph(path)
    >>> g.n_vertices, g.n_edges, g.self_loops_dropped
    (3, 3, 1)
    >>> tricount.count_triangles(g, backend="cpu")
    1
    """
    return read_graph(path, format=format, progress=progress, device=device,
                      parser=parser).graph


def read_edges(path, *, format: str = "auto", parser: str = "auto"):
    """A file's edges as ``(src, dst)`` int64 arrays of the file's own ids (object arrays
    of its vertex names for a table of names).

    Text and NumPy files give their lines as written (loops and repeats
    included); a native file gives each canonical edge once. ``parser`` as for
    :func:`load_graph`.
    """
    src, dst, _ids = _edges_of_file(path, format, parser, arcs=False)
    return src, dst


def read_file_arcs(path, *, format: str = "auto", parser: str = "auto"):
    """``(src, dst, vertex_ids)``: a file's arcs for the directed and weighted functions.

    The edges of :func:`read_edges`, except that each stored entry of a symmetric or
    skew-symmetric Matrix Market file also gives its mirror (the matrix holds both); and
    ``vertex_ids``, the vertices the file declares (sorted int64 ids: Matrix Market's
    ``1 .. N``, METIS's ``1 .. n``, a ``.tcsr``'s kept ids, isolated ones included), or
    None when it declares none (edge lists, tables).
    """
    return _edges_of_file(path, format, parser, arcs=True)


def _edges_of_file(path, format, parser, *, arcs: bool):
    _check_parser(parser)
    with open_source(path) as source:
        try:
            return _read_edges(source, format, parser, arcs=arcs)
        except MemoryError:
            raise out_of_memory(source.path) from None


def _read_edges(source, format, parser, *, arcs: bool):
    from tricount.io._parse import EdgeText
    from tricount.prep.canonical import concatenate

    fmt = format_to_read(resolve_format(format, source), source)
    if fmt == "native":
        from tricount.io.native import read as read_native

        g = read_native(source)
        lo, hi = g.edges()
        ids = np.asarray(g.vertex_ids).astype(np.int64)
        return ids[lo], ids[hi], ids
    sink = EdgeText(merge_repeats=False)  # the lines as written, repeats included
    declared = parse_into(source, fmt, sink, parser=resolve_parser(parser, fmt, source))
    src, dst = concatenate(sink.chunks)
    if declared.names is not None:  # the names themselves, as written
        return declared.names[src], declared.names[dst], None
    src, dst = src.astype(np.int64, copy=False), dst.astype(np.int64, copy=False)
    if arcs and declared.mirrored:
        off = src != dst  # a diagonal entry is its own mirror
        src, dst = np.concatenate((src, dst[off])), np.concatenate((dst, src[off]))
    ids = None
    if declared.n_vertices is not None:
        ids = np.arange(declared.id_base, declared.id_base + declared.n_vertices,
                        dtype=np.int64)
    return src, dst, ids


def output_format(path, requested=None) -> str:
    """``native`` or ``snap`` for an output path (or the ``--to`` choice)."""
    base = os.path.basename(os.fspath(path)).lower()
    name = strip_compression(base)
    if requested:
        if requested not in OUTPUT_FORMATS:
            raise GraphFormatError(path, f"unknown output format {requested!r}; expected "
                                         f"{' or '.join(OUTPUT_FORMATS)}")
        if requested != "native" and name.endswith(".tcsr"):
            # A .tcsr name is read as native binary: text there reads back as no graph.
            raise GraphFormatError(path, f"--to {requested} writes text, which a .tcsr name "
                                         "would not read back as; name it .txt")
        if requested == "native" and name != base:  # nat.bin.gz: uncompressed bytes
            raise GraphFormatError(path, "a .tcsr is written uncompressed (its blocks are "
                                         "checksummed and read in place); drop the "
                                         "compression suffix")
        return requested
    if name.endswith(".tcsr"):
        if name != base:  # the reader checks every block's CRC itself; it reads no archive
            raise GraphFormatError(path, "a .tcsr is written uncompressed (its blocks are "
                                         "checksummed and read in place); name it *.tcsr")
        return "native"
    from tricount.io.output import is_stream

    if name.endswith(_TEXT_SUFFIXES) or os.fspath(path) == "-" or is_stream(os.fspath(path)):
        return "snap"  # a target that is not a regular file (/dev/null, a pipe) is a stream
    raise GraphFormatError(path, "cannot tell the output format from the name; use .tcsr "
                                 "(native binary) or .txt/.tsv/.el (SNAP text), or pass --to")


def write_graph(path, graph: CSRGraph, *, format: str | None = None, comments=(),
                inputs=()) -> str:
    """Write ``graph`` as native binary (``.tcsr``) or SNAP text (by suffix or ``format``).

    SNAP text lists each undirected edge once with the graph's ``vertex_ids``;
    ``.gz``, ``.bz2``, ``.xz`` and ``.zst`` compress it; ``-`` is standard
    output. Whole or not at all, and never over one of ``inputs``. Returns the
    format written.
    """
    from tricount.io.output import OutputError
    from tricount.prep.xp import to_host

    path = os.fsdecode(path) if isinstance(path, bytes) else path  # as load_graph takes it
    fmt = output_format(path, format)
    try:
        if fmt == "native":
            write_native(path, graph, inputs=inputs)
            return fmt
        lo, hi = graph.edges()
        ids = np.asarray(to_host(graph.vertex_ids))
        lo, hi = to_host(lo), to_host(hi)
        write_snap(path, ids[lo], ids[hi], comments=comments, inputs=inputs)  # names too
    except MemoryError:
        raise OutputError(f"{path}: out of memory while writing the graph; free memory or "
                          "use a machine with more memory") from None
    return fmt
