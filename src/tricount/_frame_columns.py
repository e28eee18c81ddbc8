"""Columns of pandas, polars and pyarrow as host arrays, for :mod:`tricount.inputs`.

A table's edge column, or one side of a ``(src, dst)`` tuple given as a pandas
``Series``/``Index``, a polars ``Series`` or a pyarrow ``Array``/``ChunkedArray``,
becomes a NumPy array that :mod:`tricount.inputs` reads as ids or names. What the
libraries' own conversions would get wrong is settled here first:

- a missing value (pandas NA or NaN, an Arrow or polars null) is refused, naming the
  column and how many: a dictionary-encoded Arrow column converts a null to whatever
  its index buffer holds under it (a real vertex), and an integer column with nulls
  becomes floats;
- a dictionary-encoded Arrow column is decoded through its own dictionary (Arrow
  cannot cast a dictionary of ``string_view``, polars' categorical in IPC files);
- a column NumPy has no form for (polars ``Int128``) is refused, saying which cast
  makes it readable;
- a column of text comes back as text whatever its dtype (pandas' ``StringDtype``
  and categoricals, Arrow's string views), so it is read as names.
"""

from __future__ import annotations

import numpy as np

from tricount.errors import InvalidEdgesError

__all__ = ["host_column", "table_columns", "module_of", "COLUMN_PAIRS"]

#: Column names read as an edge's two ends (compared lowercased), in order of preference,
#: for tables in memory and in files alike; each pair is (source, target): an arc runs
#: from its tail to its head. Any of these words also makes a CSV's first row a header.
COLUMN_PAIRS = (
    ("source", "target"), ("src", "dst"), ("u", "v"), ("from", "to"), ("node1", "node2"),
    ("node_1", "node_2"), ("tail", "head"), ("start", "end"), ("id1", "id2"),
    ("source_id", "target_id"), ("from_id", "to_id"), ("vertex1", "vertex2"),
    ("from_node", "to_node"))


def module_of(obj) -> str:
    """The top-level package of ``obj``'s type (``"pandas"``, ``"pyarrow"``, ...)."""
    return type(obj).__module__.split(".")[0]


def _missing(what: str, count: int) -> InvalidEdgesError:
    return InvalidEdgesError(f"{what} has {count} missing value{'s' if count != 1 else ''} "
                             "(null, NA or NaN); drop or fill those rows first")


def host_column(col, what: str):
    """``col`` as a NumPy array when it is a pandas, polars or pyarrow column (see the
    module doc); None for anything else."""
    kind = module_of(col)
    if kind == "pyarrow" and hasattr(col, "null_count") and hasattr(col, "type"):
        return _arrow_column(col, what)
    if kind == "pandas" and hasattr(col, "isna") and hasattr(col, "to_numpy"):
        if isinstance(col.dtype, np.dtype) and col.dtype.kind in "iub":
            return col.to_numpy()  # NumPy's integers hold no NA: nothing to look for
        missing = int(col.isna().sum())
        if missing:
            raise _missing(what, missing)
        return col.to_numpy()
    if kind == "polars" and hasattr(col, "null_count") and hasattr(col, "to_numpy"):
        missing = int(col.null_count())
        if missing:
            raise _missing(what, missing)
        try:
            return col.to_numpy()
        except Exception:  # polars' own errors: a type NumPy has no form for (Int128)
            raise InvalidEdgesError(f"{what} is of polars type {col.dtype}, which NumPy cannot "
                                    "hold; cast it to Int64 or UInt64 first") from None
    return None


def _arrow_column(col, what: str) -> np.ndarray:
    import pyarrow as pa
    import pyarrow.compute as pc

    chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
    if pa.types.is_run_end_encoded(col.type):  # its nulls are its values' (null_count 0)
        chunks = [pc.run_end_decode(chunk) for chunk in chunks]
        col = pa.chunked_array(chunks, type=col.type.value_type)
    if col.null_count:
        raise _missing(what, int(col.null_count))
    if not pa.types.is_dictionary(col.type):
        return col.to_numpy(zero_copy_only=False) if isinstance(col, pa.Array) else \
            col.to_numpy()
    # Each chunk through its own dictionary (chunks may hold different ones). A null in a
    # dictionary is missing where an index takes it (null_count counts the indices' own
    # nulls only); one no index takes would turn an integer dictionary into floats.
    parts, missing = [], 0
    for chunk in chunks:
        values = chunk.dictionary
        index = chunk.indices.to_numpy(zero_copy_only=False)
        if values.null_count:
            taken = values.is_null().to_numpy(zero_copy_only=False)[index]
            missing += int(taken.sum())
            valid = values.filter(values.is_valid())
            if len(valid):
                values = pc.fill_null(values, valid[0])
        parts.append(values.to_numpy(zero_copy_only=False)[index])
    if missing:
        raise _missing(what, missing)
    return np.concatenate(parts) if parts else np.zeros(0, dtype=object)


def table_columns(table, kind: str):
    """``(names, get)`` of a pandas, pyarrow or polars table (``kind``, its module):
    the column names and a function from a name to a host array (:func:`host_column`).
    A name held by two columns is refused."""
    if kind == "pyarrow":
        names = list(table.column_names)
        column = table.column
    else:
        names = list(table.columns)
        column = table.__getitem__
    seen = set()
    for name in names:
        if name in seen:
            raise InvalidEdgesError(f"the table has two columns named {name!r}; rename one")
        seen.add(name)
    return names, lambda name: host_column(column(name), f"column {name!r}")
