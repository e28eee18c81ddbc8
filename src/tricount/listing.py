"""Triangles as rows: list every triangle once, to memory or to a Parquet or TSV file.

    graph ──inputs.as_graph──▶ CSRGraph ──backend.list_triangles──▶ cpu | gpu | reference
    cpu:  the graph's upper CSR ─▶ one pass, chunk by chunk (no total asked for; small
          graphs or few threads) | count per pair ─▶ prefix sum ─▶ write window by window
    gpu:  the same on the card (hash sets per owner), batches of windows written, each
          window streamed to pinned host memory, copies overlapped with the next batch
    rows ─▶ (k, 3) int64 arrays | Parquet (one row group per chunk) | TSV

A row is one triangle ``(u, v, w)`` with ``u < v < w`` in the graph's vertex
order, the order of ``graph.vertex_ids``: increasing original id for a graph
built from edge arrays or read from a file, node order for a graph from
NetworkX (the order in which ``nx.all_triangles`` yields each triangle). The
order of the rows is fixed by the graph and the backend, the same for every
chunk size: on the CPU by the vertex that settles each pair of the triangle's
two lowest vertices, then third vertex (tricount.cpu.listing says which); on
the GPU by the hash plan's pairs, then third vertex (tricount.gpu.listing says
why).
Host memory is bounded by the chunk size and the graph, whatever the number
of triangles (the GPU's batches take at most a quarter of its free memory):
the chunks stream, and a file is written chunk by chunk, through pyarrow's own
file for Parquet.
"""

from __future__ import annotations

import contextlib
import os

import numpy as np

from tricount.backends import backend_for
from tricount.errors import InvalidArgumentError, TricountError, check_count
from tricount.inputs import as_graph
from tricount.io.output import OutputError, atomic_output, check_outputs, shown_output
from tricount.prep.xp import to_host

__all__ = ["list_triangles", "write_triangles", "CHUNK_ROWS", "FORMATS"]

#: Rows per chunk by default: 2^20 rows are 24 MiB of int64 ids and a Parquet row
#: group of the usual size; a chosen default, not measured.
CHUNK_ROWS = 1 << 20
#: File formats :func:`write_triangles` writes, by name.
FORMATS = ("parquet", "tsv")
#: Parquet compression by default. Rows of one edge share u and v, so the
#: columns compress well: R-MAT 15's 6.7 M triangles take 0.12 of their 24 bytes
#: each with snappy, 0.09 with zstd; written at 0.23 GB/s of triangle data with
#: snappy against 0.31 uncompressed (pyarrow 26, loaded 2-core VM, 2026-11-25).
PARQUET_COMPRESSION = "snappy"
#: No dictionary pages for ids (millions of distinct values) and no statistics
#: (rows are sorted by no column, so min/max per row group filter nothing):
#: both cost writing speed (statistics: 0.56 -> 0.44 GB/s on the same VM).
PARQUET_OPTIONS = {"write_statistics": False}


def list_triangles(graph, *, backend: str = "auto", chunk_size: int = CHUNK_ROWS):
    """Every triangle once, as a stream of ``(k, 3)`` arrays of vertex ids.

    Parameters
    ----------
    graph : graph-like
        Any graph :func:`tricount.count` takes (see :mod:`tricount.inputs`).
    backend : {"auto", "cpu", "gpu", "reference"}
        ``auto``: the CPU for a graph small enough that the CPU answers first
        (starting the GPU costs more than the work), else the GPU when one is
        usable, else the CPU (:func:`tricount.backends.backend_for`).
    chunk_size : int
        Rows per chunk; every chunk but the last has exactly this many.

    Returns
    -------
    iterator of numpy.ndarray
        C-contiguous ``(k, 3)`` arrays: int64 original ids, or an array of
        labels when the graph's ``vertex_ids`` are not integers (NetworkX
        nodes, string names). Each row is sorted in the graph's vertex order
        (see the module doc). The triangles are looked for when the first
        chunk is asked for; the CPU's one-pass route
        (:mod:`tricount.cpu.listing`) finds each chunk as it is asked for. A
        chunk may be a view of a larger buffer (at most four times it on the
        one pass; all of a small graph's rows in the NumPy lister).

    Examples
    --------
    K4 has 4 triangles, each a row:

    >>> import numpy as np, tricount
    >>> from tricount.listing import list_triangles
    >>> g = tricount.Graph.from_edges([0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3])
    >>> rows = np.concatenate(list(list_triangles(g, backend="cpu")))
    >>> sorted(map(tuple, rows.tolist()))
    [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)]

    Chunks of at most 3 rows; the count is the number of rows:

    >>> [c.shape for c in list_triangles(g, backend="cpu", chunk_size=3)]
    [(3, 3), (1, 3)]
    """
    g, engine, chunk_size = _prepare(graph, backend, chunk_size)
    labels, names = _labels(g)
    return _rows(engine, g, labels, names, chunk_size)


def _check_tsv_names(path, names) -> None:
    """Refuse, before any work, a name that a TSV line cannot hold (TSV has no quoting): a
    tab, a line end or a quote."""
    names = names.to_pylist() if hasattr(names, "to_pylist") else \
        np.asarray(names, dtype=object).tolist()
    for name in names:
        if isinstance(name, str) and any(c in name for c in '\t\n\r"') or \
                isinstance(name, bytes) and any(c in name for c in b'\t\n\r"'):
            raise OutputError(f"{shown_output(path)}: the vertex name {name!r} holds a tab, a line "
                              "end or a quote, which a TSV line cannot hold; write .parquet "
                              "instead")


def _names_column(path, fmt: str, names, written_ids: int):
    """``names`` checked before any work: a sequence with an entry for every vertex id the
    rows hold (``written_ids``), as one pyarrow column when pyarrow is there (a column of
    one type: NetworkX labels that mix ints and strings, or ints past 2**64, are not one;
    TSV holds no nested value such as a tuple)."""
    if isinstance(names, (dict, str, bytes)) or not hasattr(names, "__len__"):
        raise InvalidArgumentError(f"names must be a sequence (names[i] is written for vertex "
                                   f"id i), got {type(names).__name__}")
    if len(names) < written_ids:
        raise InvalidArgumentError(f"names holds {len(names)} entries, but the rows hold vertex "
                                   f"ids up to {written_ids - 1}: names[i] is written for "
                                   "vertex id i")
    try:
        import pyarrow as pa
    except ImportError:  # TSV formatted by Python (Parquet needs pyarrow: refused before)
        return names
    try:
        column = names if isinstance(names, pa.Array) else pa.array(
            names.tolist() if isinstance(names, np.ndarray) and names.dtype == object
            else names)
    except (pa.ArrowException, OverflowError, TypeError, ValueError) as exc:
        raise OutputError(f"{shown_output(path)}: the vertex labels are not one column {fmt} holds "
                          f"({exc}); pass names= with a string for each vertex") from None
    if fmt == "tsv" and pa.types.is_nested(column.type):
        raise OutputError(f"{shown_output(path)}: the vertex labels are {column.type} "
                          "values, which a TSV line cannot hold; write .parquet, or pass "
                          "names= with a string for each vertex")
    return column


def _rows(engine, g, labels, names, chunk_size):
    # No total is reported here, so a backend may list without counting first.
    _n, chunks = engine.list_triangles(g, chunk_size=chunk_size, labels=labels,
                                       count_first=False)
    if names is None:
        yield from chunks
        return
    for chunk in chunks:
        yield names[chunk]


def write_triangles(graph, path, *, backend: str = "auto", chunk_size: int = CHUNK_ROWS,
                    format: str | None = None, names=None,
                    compression: str | None = None, inputs=(), progress=None) -> int:
    """Write every triangle once to a Parquet or TSV file; return the number written.

    Parquet (through pyarrow): columns ``u``, ``v``, ``w``, one row group per
    chunk (small chunks gathered into row groups of at least 65,536 rows). TSV:
    one ``u<TAB>v<TAB>w`` line per triangle, no header, compressed when the name
    ends in ``.gz``, ``.bz2``, ``.xz`` or ``.zst``. The file
    is written whole or not at all (:func:`tricount.io.output.atomic_output`:
    a temporary beside the target, fsynced, renamed into place), never over
    the graph's own file or one of ``inputs``. ``path`` ``"-"`` writes TSV to
    standard output.

    Parameters
    ----------
    graph : graph-like
    path : str or os.PathLike
    backend, chunk_size
        As for :func:`list_triangles`.
    format : {"parquet", "tsv"}, optional
        By default from the suffix: ``.parquet`` / ``.pq`` is Parquet, anything
        else TSV (a compression suffix after ``.parquet`` is refused: Parquet
        compresses inside, by ``compression``).
    names : array_like, optional
        ``names[i]`` is written for vertex id ``i``, the id as the rows
        hold it (the original id of a graph with integer ids: one entry up
        to the largest), all of one type pyarrow can hold (strings for
        Parquet string columns; nothing nested in TSV). A graph whose
        ``vertex_ids`` are not integers (NetworkX nodes, string names) writes
        its labels this way by default. Checked before any work.
    compression : str, optional
        Parquet's codec: "snappy" (the default), "none", "lz4", "zstd", ...;
        refused for TSV, which its name compresses.
    inputs : sequence of paths
        Files the output must not be (checked before any work).
    progress : callable, optional
        Called as ``progress(rows_written, n_triangles)`` after each chunk
        (and once with 0 when the count is known).

    Examples
    --------
    >>> import os, tempfile, tricount
    >>> from tricount.listing import write_triangles
    >>> g = tricount.Graph.from_edges([0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3])
    >>> path = os.path.join(tempfile.mkdtemp(), "k4.tsv")
    >>> write_triangles(g, path, backend="cpu")
    4
    >>> import pathlib
    >>> sorted(pathlib.Path(path).read_text().splitlines())
    ['0\\t1\\t2', '0\\t1\\t3', '0\\t2\\t3', '1\\t2\\t3']
    """
    path = os.fsdecode(path) if isinstance(path, bytes) else path  # as load_graph takes it
    fmt = _format_of(path, format)
    if str(path) == "-" and fmt != "tsv":
        raise InvalidArgumentError(f"standard output takes TSV, not {fmt}; pass a file path")
    if fmt == "parquet":
        compression = PARQUET_COMPRESSION if compression is None else compression
        _check_codec(compression)  # before any work: refuse early, not after the count
    elif compression is not None:
        raise InvalidArgumentError(f"compression={compression!r} is a Parquet codec; a TSV "
                                   "file is compressed by its name (.gz, .bz2, .xz, .zst)")
    read_from = [graph] if isinstance(graph, (str, os.PathLike)) else []
    check_outputs([path], list(inputs) + read_from)
    g, engine, chunk_size = _prepare(graph, backend, chunk_size)
    labels, graph_names = _labels(g)
    if names is None:
        names = graph_names
    if names is not None:
        written_ids = g.n_vertices if labels is None else int(labels.max(initial=-1)) + 1
        names = _names_column(path, fmt, names, written_ids)
    if fmt == "tsv" and names is not None:
        _check_tsv_names(path, names)
    n_triangles, columns = engine.list_triangles(g, chunk_size=chunk_size, labels=labels,
                                                 columns=True, count_first=progress is not None)
    columns = _reporting(columns, n_triangles, progress)
    with atomic_output(path) as (f, tmp):
        if fmt == "parquet":
            return _write_parquet(columns, f if tmp is None else tmp, names, compression)
        from tricount.io.snap import compressed_writer

        with compressed_writer(f, os.fspath(path)) as out:  # by the name: .gz, .xz, ...
            return _write_tsv(columns, out, names)


def _reporting(columns, n_triangles, progress):
    """The ``(3, k)`` chunks, calling ``progress(rows so far, n_triangles)`` after each."""
    if progress is None:
        yield from columns
        return
    done = 0
    progress(0, n_triangles)
    for chunk in columns:
        yield chunk
        done += chunk.shape[1]
        progress(done, n_triangles)


# -- the chunk streams ---------------------------------------------------------------------


def _prepare(graph, backend, chunk_size):
    chunk_size = check_count(chunk_size, "chunk_size", minimum=1)
    engine, _reason = backend_for(backend, graph)
    g, _ = as_graph(graph, device="gpu" if engine.name == "gpu" else "cpu")
    return g, engine, chunk_size


def _labels(g):
    """``(labels, names)``: the int64 ids the kernels write (None: the compact ids
    themselves) and the labels to map them through afterwards (None: none)."""
    ids = to_host(g.vertex_ids) if g.vertex_ids is not None else None
    if ids is None or ids.dtype.kind not in "iu" or (ids.dtype.kind == "u" and ids.shape[0]
                                                     and int(ids.max()) >= 2**63):
        return None, ids  # labels int64 cannot hold: write compact ids, map after
    ids = np.ascontiguousarray(ids, dtype=np.int64)
    n = ids.shape[0]
    # Bytes compared, not np.array_equal: its fixed cost was a third of a small graph's
    # listing (10 of 31 µs for a triangle on the development VM, 2026-11-26).
    if n and ids[0] == 0 and ids[-1] == n - 1 \
            and ids.tobytes() == np.arange(n, dtype=np.int64).tobytes():
        return None, None  # already compact: skip the gather
    return ids, None


# -- writers -------------------------------------------------------------------------------


def _format_of(path, format) -> str:
    from tricount.io.detect import strip_compression

    name = os.path.basename(os.fspath(path)).lower()
    plain = strip_compression(name)
    if format is None:
        format = "parquet" if plain.endswith((".parquet", ".pq")) else "tsv"
    if format == "parquet" and plain != name:
        raise TricountError(f"{path}: a Parquet file compresses inside (its codec: "
                            "compression=, --compression); name it without .gz, .xz, ...")
    if format not in FORMATS:
        raise TricountError(f"unknown triangle file format {format!r}; choose one of "
                            f"{', '.join(FORMATS)}")
    return format


def _pyarrow():
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise TricountError('writing Parquet needs pyarrow: pip install ".[parquet]"') from None
    return pa, pq


def _named(names, ids):
    """``names`` taken at ``ids`` as a pyarrow array."""
    from tricount.io.tables import to_arrow

    return names.take(to_arrow(ids))


#: Rows of a Parquet row group at least (but the last): chunks smaller than this are
#: gathered. One row group a chunk of 7 rows made K_400's 10.6 M triangles 1.5 M row groups,
#: whose footer pyarrow's reader refused by default (thrift size limit).
PARQUET_MIN_ROW_GROUP = 1 << 16

#: The Parquet codecs pyarrow's writer takes by name (any case), when built with them.
PARQUET_CODECS = ("none", "snappy", "gzip", "brotli", "lz4", "lz4_raw", "zstd")


def _check_codec(compression) -> None:
    """Refuse a Parquet codec pyarrow's writer would refuse after the count (it raised an
    ``ArrowException`` from its writer's constructor)."""
    pa, _ = _pyarrow()
    available = [c for c in PARQUET_CODECS if c == "none" or _codec_available(pa, c)]
    if str(compression).lower() not in available:
        raise InvalidArgumentError(f"compression {compression!r} is not a Parquet codec this "
                                   f"pyarrow writes; use {', '.join(available)}")


def _codec_available(pa, name: str) -> bool:
    try:
        return pa.Codec.is_available("lz4" if name == "lz4_raw" else name)
    except ValueError:
        return False


def _write_parquet(columns, where, names, compression: str) -> int:
    """The chunks as Parquet into ``where``: the temporary's path (written through
    pyarrow's own file, with no Python call per write) or a file object."""
    from tricount.io.tables import to_arrow

    pa, pq = _pyarrow()
    if names is not None and not isinstance(names, pa.Array):
        names = pa.array(names)
    kind = pa.int64() if names is None else names.type
    schema = pa.schema([("u", kind), ("v", kind), ("w", kind)])
    written = 0
    with contextlib.ExitStack() as stack:
        sink = stack.enter_context(pa.OSFile(where, "wb")) if isinstance(where, str) else where
        # Dictionary pages only for names (repeated strings), never for ids.
        writer = stack.enter_context(pq.ParquetWriter(
            sink, schema, use_dictionary=names is not None, compression=compression,
            **PARQUET_OPTIONS))
        pending, pending_rows = [], 0  # small chunks, copied, until they fill a row group
        for chunk in columns:
            k = chunk.shape[1]
            if k >= PARQUET_MIN_ROW_GROUP and not pending:
                # Zero-copy views of the chunk; pyarrow encodes and writes without the GIL.
                arrays = [to_arrow(c) if names is None else _named(names, c) for c in chunk]
                writer.write_table(pa.Table.from_arrays(arrays, schema=schema),
                                   row_group_size=k)
            else:  # a chunk is valid until the next one: kept as a copy
                arrays = [to_arrow(c.copy()) if names is None else _named(names, c)
                          for c in chunk]
                pending.append(pa.Table.from_arrays(arrays, schema=schema))
                pending_rows += k
                if pending_rows >= PARQUET_MIN_ROW_GROUP:
                    writer.write_table(pa.concat_tables(pending), row_group_size=pending_rows)
                    pending, pending_rows = [], 0
            written += k
        if pending:
            writer.write_table(pa.concat_tables(pending), row_group_size=pending_rows)
    return written


def _write_tsv(columns, f, names) -> int:
    written = 0
    if names is None:
        # Where the chunks come without Numba (a small graph's NumPy lister), NumPy formats
        # the rows too (the same bytes): the file then costs no Numba start.
        from tricount.io import text_numpy

        for chunk in columns:
            if text_numpy.takes(written + chunk.shape[1]):
                f.write(text_numpy.format_rows_numpy(chunk))
            else:
                from tricount.cpu.text_rows import format_rows

                f.write(format_rows(chunk).data)
            written += chunk.shape[1]
        return written
    try:
        import pyarrow as pa
        import pyarrow.csv as pacsv
    except ImportError:  # the same text, formatted by Python
        names = np.asarray(names, dtype=object)
        for chunk in columns:
            rows = zip(*(names[c].tolist() for c in chunk))
            f.write("".join(f"{u}\t{v}\t{w}\n" for u, v, w in rows).encode())
            written += chunk.shape[1]
        return written
    if not isinstance(names, pa.Array):
        names = pa.array(names)
    schema = pa.schema([("u", names.type), ("v", names.type), ("w", names.type)])
    # quoting "none": pyarrow refuses a name holding a tab, newline or quote
    # rather than writing a line that reads back wrong.
    options = pacsv.WriteOptions(include_header=False, delimiter="\t", quoting_style="none")
    with pacsv.CSVWriter(f, schema, write_options=options) as writer:
        for chunk in columns:
            arrays = [_named(names, c) for c in chunk]
            writer.write_table(pa.Table.from_arrays(arrays, schema=schema))
            written += chunk.shape[1]
    return written
