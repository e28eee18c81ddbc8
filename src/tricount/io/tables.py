"""Result tables (per-vertex, per-edge, truss decompositions) as CSV or Parquet files.

:func:`write_table` writes equal-length columns whole or not at all
(:mod:`tricount.io.output`): CSV for ``*.csv`` and ``-`` (standard output),
Parquet for ``*.parquet`` (needs pyarrow). The CSV text is the same on every
machine, pyarrow or not: one header line, integers in decimal, floats in
their shortest form that reads back to the same double (Python's ``repr``:
``0.15``, never ``0.14999999999999999``), a name quoted only when it holds a
comma, a quote or a line end.
"""

from __future__ import annotations

import csv
import importlib.util
import io
import os

import numpy as np

from tricount.errors import TricountError
from tricount.io.output import atomic_output, is_stream

TABLE_SUFFIXES = (".csv", ".parquet")


def table_format(path) -> str:
    """``.csv`` or ``.parquet`` for a table path (``-``: CSV on standard output; a target
    that is not a regular file, such as ``/dev/null`` or a pipe, is a stream like it)."""
    path = os.fspath(path)
    if path == "-":
        return ".csv"
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in TABLE_SUFFIXES and is_stream(path):
        return ".csv"
    if suffix not in TABLE_SUFFIXES:
        raise TricountError(
            f"{path}: cannot tell the table format from {suffix or 'no extension'!r}; "
            "name the file *.csv or *.parquet (or - for CSV on standard output)")
    if suffix == ".parquet" and importlib.util.find_spec("pyarrow") is None:
        # Asked before the work (the CLI checks its outputs first): a count that ran for
        # seconds then failed here, its CSV tables written and its Parquet one not.
        raise TricountError(f"{path}: writing Parquet needs pyarrow (pip install pyarrow), or "
                            "name the file *.csv")
    return suffix


def write_table(path, columns: dict) -> int:
    """Write equal-length arrays as a CSV or Parquet table (by ``path``'s extension).

    Returns the number of rows.
    """
    suffix = table_format(path)
    columns = {name: np.asarray(values) for name, values in columns.items()}
    n_rows = len(next(iter(columns.values()))) if columns else 0
    if suffix == ".parquet":
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise TricountError(f"{path}: writing Parquet needs pyarrow (pip install pyarrow), "
                                "or name the file *.csv") from None
        table = pa.Table.from_arrays([to_arrow(v) for v in columns.values()],
                                     names=list(columns))
        with atomic_output(path) as (f, _):
            pq.write_table(table, f)
        return n_rows
    with atomic_output(path) as (f, _):
        _write_csv(f, columns)
    return n_rows


def to_arrow(values):
    """A 1-D NumPy array as a pyarrow array: integers and floats in native byte order
    wrapped around their own buffer (no copy; the array keeps the NumPy one alive), anything
    else through ``pyarrow.array``, whose conversion of a NumPy array imports pandas on first
    use (0.16 s of a small Parquet write on the 2-core machine, 2026-11-26).

    >>> to_arrow(np.arange(3)).to_pylist(), to_arrow(np.array(["a"], dtype=object)).to_pylist()
    ([0, 1, 2], ['a'])
    """
    import pyarrow as pa

    values = np.asarray(values)
    if values.ndim == 1 and values.dtype.kind in "iuf" and values.dtype.isnative:
        values = np.ascontiguousarray(values)
        return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values),
                                     [None, pa.py_buffer(values)])
    return pa.array(values)


#: Rows formatted per write: bounds the text held in memory.
CSV_ROWS_PER_WRITE = 1 << 18


def _cells(values: np.ndarray) -> list:
    """A column as Python values; the csv module writes each with ``str``, for a float its
    shortest round-trip form (``repr``)."""
    if values.dtype.kind == "b":
        values = values.astype(np.int8)
    elif values.dtype.kind == "f":
        values = values.astype(np.float64, copy=False)  # float32's repr is a float64's
    return values.tolist()


def _needs_quotes(values: np.ndarray) -> bool:
    """Whether a text column holds a cell that the csv module would leave unquoted but that
    would not read back as itself: a comment mark first (the line would be skipped), or a
    lone carriage return (the csv module quotes only the line terminator's characters)."""
    if values.dtype.kind not in "OUS":
        return False
    return any(isinstance(x, str) and (x[:1] in ("#", "%") or "\r" in x)
               for x in values.tolist())


def _write_csv(f, columns: dict) -> None:
    text = io.TextIOWrapper(f, encoding="utf-8", newline="", write_through=True)
    # Every text cell is quoted when one of them needs it (the csv module quotes by what
    # a cell holds, not by what it starts with); numbers stay as they are.
    quoting = csv.QUOTE_NONNUMERIC if any(map(_needs_quotes, columns.values())) \
        else csv.QUOTE_MINIMAL
    writer = csv.writer(text, lineterminator="\n", quoting=quoting)
    writer.writerow(list(columns))
    names = list(columns)
    n_rows = len(columns[names[0]]) if names else 0
    for start in range(0, n_rows, CSV_ROWS_PER_WRITE):
        stop = start + CSV_ROWS_PER_WRITE
        writer.writerows(zip(*(_cells(columns[n][start:stop]) for n in names)))
    text.detach()  # the caller's file stays open (atomic_output closes it)
