"""Result tables (per-vertex, per-edge, truss decompositions) as CSV or Parquet files.

:func:`write_table` writes equal-length columns whole or not at all
(:mod:`tricount.io.output`): CSV (one header line, no quoting) for ``*.csv``
and ``-`` (standard output), Parquet for ``*.parquet`` (needs pyarrow).
"""

from __future__ import annotations

import io
import os

import numpy as np

from tricount.errors import TricountError
from tricount.io.output import atomic_output

TABLE_SUFFIXES = (".csv", ".parquet")


def table_format(path) -> str:
    """``.csv`` or ``.parquet`` for a table path (``-``: CSV on standard output)."""
    path = os.fspath(path)
    if path == "-":
        return ".csv"
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in TABLE_SUFFIXES:
        raise TricountError(
            f"{path}: cannot tell the table format from {suffix or 'no extension'!r}; "
            "name the file *.csv or *.parquet (or - for CSV on standard output)")
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
        table = pa.table(columns)
        with atomic_output(path) as (f, _):
            pq.write_table(table, f)
        return n_rows
    with atomic_output(path) as (f, _):
        _write_csv(f, columns)
    return n_rows


def _write_csv(f, columns: dict) -> None:
    f.write((",".join(columns) + "\n").encode())
    try:
        import pyarrow as pa
        import pyarrow.csv as pcsv
    except ImportError:
        pcsv = None
    if pcsv is not None:
        # The header by hand: pyarrow quotes header names whatever the style.
        pcsv.write_csv(pa.table(columns), f, write_options=pcsv.WriteOptions(include_header=False))
        return
    # No pyarrow: NumPy's writer (slower, same text).
    names = list(columns)
    if names and len(columns[names[0]]):
        formats = ["%d" if columns[n].dtype.kind in "iub" else "%.17g" for n in names]
        text = io.StringIO()
        np.savetxt(text, np.column_stack([columns[n].astype(object) for n in names]),
                   fmt=formats, delimiter=",")
        f.write(text.getvalue().encode())
