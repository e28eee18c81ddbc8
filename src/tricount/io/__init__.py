"""Reading and writing graph files.

``load_graph(path)`` reads SNAP edge lists, GraphChallenge ``*_adj.tsv`` and
``.mmio``, Matrix Market coordinate files, METIS/DIMACS10 ``.graph``, NumPy
``.npy``/``.npz`` edge arrays and tricount's native binary ``.tcsr``, each
plain or compressed with gzip, bzip2, xz or zstd (zstd needs the optional
``zstandard`` package). The format comes from the name, confirmed by the
content (``detect``), or from ``format=``. Every malformed input raises
:class:`~tricount.GraphFormatError` naming the file, the line (for text) and
what was expected.

    path ─sniff─▶ format ─reader─▶ edge chunks ─_build.build_graph─▶ CSRGraph
    path.tcsr ─native.read_native (mmap, verify)────────────────────▶ CSRGraph
    device="gpu": text ─reader─▶ pinned double buffer ─▶ GPU ─canonical_edges─▶ CSRGraph
                  (gpu_stream; other formats load as above, then move)
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

import numpy as np

from tricount.graph import CSRGraph
from tricount.io._source import sniff
from tricount.io.detect import FORMATS, resolve_format, strip_compression
from tricount.io.snap import write_snap

__all__ = ["load_graph", "read_graph", "read_edges", "write_graph", "write_snap",
           "write_native", "graph_name", "FORMATS", "LoadedGraph"]

_NAME_SUFFIXES = (".txt", ".tsv", ".el", ".wel", ".edges", ".edgelist", ".snap", ".mtx",
                  ".mmio", ".mm", ".graph", ".metis", ".npy", ".npz", ".tcsr")


def graph_name(path) -> str:
    """A short label for a file: its name without directory and known suffixes.

    >>> graph_name("/data/ca-GrQc.txt.gz")
    'ca-GrQc'
    """
    name = strip_compression(os.path.basename(os.fspath(path)))
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


#: Where :func:`load_graph` can put the graph.
DEVICES = ("cpu", "gpu")
#: Formats the GPU path streams to the device as they are parsed.
STREAMED_FORMATS = ("snap", "graphchallenge", "matrix-market", "metis")


def read_graph(path, *, format: str = "auto", progress=None, device: str = "cpu") -> LoadedGraph:
    """Read ``path`` like :func:`load_graph`; also report format, compression and timings."""
    from tricount.io._progress import Progress

    gpu = _check_device(device)
    t0 = time.perf_counter()
    source = sniff(path)
    fmt = resolve_format(format, source)
    name = graph_name(path)
    timings = {}
    # Zero bytes (or only blanks) after decompression: the empty graph, whatever the
    # format; a file of only comments gets there through its reader.
    empty = not source.head.strip() and (fmt != "native" or not source.head)
    if gpu and fmt in STREAMED_FORMATS and not empty:
        from tricount.io.gpu_stream import read_graph_gpu

        graph, timings = read_graph_gpu(
            path, fmt, name=name, progress=progress,
            file_bytes=None if source.compression else source.size)
        return LoadedGraph(graph, fmt, source.compression, timings)
    if gpu:  # binary formats and the empty graph: load here, then move
        loaded = read_graph(path, format=format, progress=progress)
        t1 = time.perf_counter()
        loaded.graph = _to_gpu(loaded.graph)
        loaded.timings["load_s"] += time.perf_counter() - t1
        return loaded
    bar = Progress(path, source.size, progress)
    try:
        if empty:
            chunks, max_id, n_vertices, id_base = [], -1, None, 0
        elif fmt == "native":
            from tricount.io.native import read_native

            graph = read_native(path, timings=timings)
            timings["load_s"] += time.perf_counter() - t0 - timings["load_s"] - timings["build_s"]
            return LoadedGraph(graph, fmt, source.compression, timings)
        else:
            chunks, max_id, n_vertices, id_base = _read_chunks(path, fmt, bar)
    finally:
        bar.close()
    t1 = time.perf_counter()
    from tricount.io._build import build_graph

    graph = build_graph(chunks, max_id=max_id, n_vertices=n_vertices, id_base=id_base,
                        name=name)
    timings.update(load_s=t1 - t0, build_s=time.perf_counter() - t1)
    return LoadedGraph(graph, fmt, source.compression, timings)


def _check_device(device) -> bool:
    """True for ``"gpu"`` (after checking one is usable), False for ``"cpu"``."""
    from tricount.errors import BackendUnavailableError, TricountError

    if device not in DEVICES:
        raise TricountError(f"unknown device {device!r}; choose 'cpu' or 'gpu'")
    if device == "cpu":
        return False
    from tricount.gpu import probe

    usable, why = probe()
    if not usable:
        raise BackendUnavailableError(f"device 'gpu' is unavailable: {why}; "
                                      "load with device='cpu'")
    return True


def _to_gpu(graph: CSRGraph) -> CSRGraph:
    import cupy

    g = graph.to_device(cupy)
    g.vertex_ids = cupy.asarray(g.vertex_ids)  # as a graph built on the GPU has them
    return g


def read_text(path, fmt, *, progress=None, out=None):
    """Parse a text format into ``out`` (an ``EdgeText``, new by default).

    Returns ``(text, n_vertices or None, id_base)``: ``n_vertices`` when the
    file declares its vertices (``id_base`` .. ``id_base + n_vertices - 1``);
    ``text`` is None for a Matrix Market or METIS file of only comments.
    """
    if fmt in ("snap", "graphchallenge"):
        from tricount.io.snap import read_snap

        return read_snap(path, progress=progress, out=out), None, 0
    if fmt == "matrix-market":
        from tricount.io.mtx import read_matrix_market

        text, head = read_matrix_market(path, progress=progress, out=out)
        return text, (head.n_rows if head is not None else None), 1
    from tricount.io.metis import read_metis

    text, head = read_metis(path, progress=progress, out=out)
    return text, (head.n_vertices if head is not None else None), 1


def _read_chunks(path, fmt, bar):
    """``(chunks, max_id, n_vertices or None, id_base)`` of a text or NumPy file."""
    if fmt in STREAMED_FORMATS:
        text, n_vertices, id_base = read_text(path, fmt, progress=bar)
        if text is None:  # only comments
            return [], -1, None, 0
        return text.chunks, text.max_id, n_vertices, id_base
    from tricount.io.numpy_edges import read_numpy

    (src, dst), n_vertices = read_numpy(path)
    max_id = int(max(src.max(), dst.max())) if src.shape[0] else -1
    dtype = np.int32 if max_id <= np.iinfo(np.int32).max else np.int64
    # Owned, writable copies: building relabels the chunks in place.
    chunks = [(np.array(src, dtype=dtype), np.array(dst, dtype=dtype))] if src.shape[0] else []
    return chunks, max_id, n_vertices, 0


def write_native(path, graph: CSRGraph) -> None:
    """Write ``graph`` as tricount's native binary (see :mod:`tricount.io.native`)."""
    from tricount.io.native import write_native as write  # keeps Numba out of the import

    write(path, graph)


def load_graph(path, *, format: str = "auto", progress=None, device: str = "cpu") -> CSRGraph:
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
        ``.npz``) or ``"native"`` (``.tcsr`` from ``tricount convert``).
    progress : bool or None
        Show a progress bar on stderr (needs tqdm). ``None``: only on a
        terminal, and only once loading has taken two seconds.
    device : {"cpu", "gpu"}
        Where the graph's arrays live. With ``"gpu"`` a text file is parsed
        on the CPU in chunks while the previous chunk is copied to the GPU
        (a pinned double buffer), and the graph is built there; other formats
        load on the CPU and move. The graph is the same either way. Raises
        ``BackendUnavailableError`` when no GPU is usable.

    Returns
    -------
    CSRGraph
        Undirected and simple: self-loops and repeated edges are dropped and
        counted. An empty file, or one of only comments, is the empty graph.

    Raises
    ------
    GraphFormatError
        Naming the file, the line (for text) and what was expected.

    Examples
    --------
    A triangle with a repeated edge and a self-loop:

    >>> import os, tempfile, tricount
    >>> path = os.path.join(tempfile.mkdtemp(), "tri.txt")
    >>> _ = open(path, "w").write("# a triangle\\n1 2\\n2 3\\n3 1\\n2 1\\n3 3\\n")
    >>> g = load_graph(path)
    >>> g.n_vertices, g.n_edges, g.self_loops_dropped
    (3, 3, 1)
    >>> tricount.count_triangles(g, backend="cpu")
    1
    """
    return read_graph(path, format=format, progress=progress, device=device).graph


def read_edges(path, *, format: str = "auto"):
    """A file's edges as ``(src, dst)`` int64 arrays of the file's own ids.

    Text and NumPy files give their lines as written (loops and repeats
    included); a native file gives each canonical edge once.
    """
    source = sniff(path)
    fmt = resolve_format(format, source)
    if fmt == "native":
        from tricount.io.native import read_native

        g = read_native(path)
        lo, hi = g.edges()
        ids = np.asarray(g.vertex_ids)
        return ids[lo].astype(np.int64), ids[hi].astype(np.int64)
    from tricount.io._parse import concatenate
    from tricount.io._progress import Progress

    if fmt == "numpy":
        from tricount.io.numpy_edges import read_numpy

        (src, dst), _ = read_numpy(path)
        return np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)
    chunks, _, _, _ = _read_chunks(path, fmt, Progress(path, 0, False))
    return concatenate(chunks)


def write_graph(path, graph: CSRGraph, *, format: str | None = None, comments=()) -> str:
    """Write ``graph`` as native binary (``.tcsr``) or SNAP text (by suffix or ``format``).

    SNAP text lists each undirected edge once with the graph's ``vertex_ids``;
    ``.gz``, ``.bz2``, ``.xz`` and ``.zst`` compress it. Returns the format written.
    """
    from tricount.io.commands import output_format
    from tricount.prep.xp import to_host

    fmt = output_format(path, format)
    if fmt == "native":
        write_native(path, graph)
        return fmt
    lo, hi = graph.edges()
    ids = np.asarray(to_host(graph.vertex_ids))
    lo, hi = to_host(lo), to_host(hi)
    try:
        write_snap(path, ids[lo], ids[hi], comments=comments)
    except OSError as exc:
        from tricount.errors import GraphFormatError

        raise GraphFormatError(path, f"cannot write: {exc.strerror or exc}") from None
    return fmt
