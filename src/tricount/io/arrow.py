"""Arrow IPC edge tables (format ``arrow``: ``*.arrow`` / ``*.feather`` / ``*.ipc``).

The Arrow IPC file format (Feather v2, magic ``ARROW1``) or stream format,
one row per edge, columns as for Parquet (:mod:`tricount.io.parquet`). Read
with pyarrow, once, into memory.
"""

from __future__ import annotations

from tricount.errors import GraphFormatError
from tricount.io._columns import add_edge_columns
from tricount.io.parquet import edge_columns, need_pyarrow

__all__ = ["FILE_MAGIC", "STREAM_MAGIC", "read"]

FILE_MAGIC = b"ARROW1"
#: An IPC stream opens with the continuation marker of its first message.
STREAM_MAGIC = b"\xff\xff\xff\xff"


def read(source, out, *, progress=None):
    """Read the Arrow table ``source`` into ``out``; return its ``Declared``."""
    pa = need_pyarrow(source.path, "Arrow files")
    import pyarrow.ipc as ipc

    buf = pa.py_buffer(source.read_rest())
    try:
        opened = ipc.open_file if bytes(buf[:6]) == FILE_MAGIC else ipc.open_stream
        table = opened(pa.BufferReader(buf)).read_all()
        columns = edge_columns(source.path, table.column_names)
    except (pa.ArrowException, OSError) as exc:
        raise GraphFormatError(source.path, f"cannot read the Arrow file: {exc}") from None
    return add_edge_columns(source.path, table.column(columns[0]), table.column(columns[1]),
                            out, consumed=source.consumed)
