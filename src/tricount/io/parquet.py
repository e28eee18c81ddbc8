"""Parquet edge tables (format ``parquet``, ``*.parquet`` / ``*.pq``, magic ``PAR1``).

One row per edge: the columns ``source``/``target``, ``src``/``dst`` or
``u``/``v`` (any case), else the first two (:mod:`tricount.io._columns`);
integer ids or vertex names (strings). Read with pyarrow (the ``[parquet]``
extra): the input is read once into memory (a Parquet file's index is at its
end, so a stream cannot be parsed as it comes), then only the two edge
columns are decoded.
"""

from __future__ import annotations

from tricount.errors import GraphFormatError
from tricount.io._columns import add_edge_columns, pick_columns

__all__ = ["MAGIC", "read", "need_pyarrow"]

MAGIC = b"PAR1"


def need_pyarrow(path, what: str):
    """pyarrow, or a :class:`GraphFormatError` saying how to install it."""
    try:
        import pyarrow
    except ImportError:
        raise GraphFormatError(path, f'reading {what} needs pyarrow: pip install ".[parquet]"') \
            from None
    return pyarrow


def read(source, out, *, progress=None):
    """Read the Parquet table ``source`` into ``out``; return its ``Declared``."""
    pa = need_pyarrow(source.path, "Parquet")
    import pyarrow.parquet as pq

    buf = pa.py_buffer(source.read_rest())
    try:
        parquet = pq.ParquetFile(pa.BufferReader(buf))
        columns = edge_columns(source.path, parquet.schema_arrow.names)
        table = parquet.read(columns=list(columns))
    except (pa.ArrowException, OSError) as exc:
        raise GraphFormatError(source.path, f"cannot read the Parquet file: {exc}") from None
    return add_edge_columns(source.path, table.column(columns[0]), table.column(columns[1]),
                            out, consumed=source.consumed)


def edge_columns(path, names):
    picked = pick_columns(names)
    if picked is None:
        raise GraphFormatError(path, f"expected two edge columns, found {list(names)}")
    return picked
