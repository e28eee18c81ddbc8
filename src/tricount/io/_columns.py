"""Edge tables (CSV, Parquet, Arrow): which two columns are the edge, and ids from names.

A table's edge columns are ``source``/``target``, ``src``/``dst`` or ``u``/``v``
(any case), else its first two columns. Integer columns are ids, as in every
other format. A column of text is vertex *names*: both columns are read as
text, the distinct names are sorted, and each name's rank is its id; the
names themselves become the graph's ``vertex_ids``, so every output shows
them. With pyarrow the names are dictionary-encoded in C++ (one pass, then a
sort of the distinct names only); with polars, its ``unique`` and a binary
search; otherwise, and for small tables, NumPy's ``unique``. Text whose every
distinct cell is a number (``3.0`` or ``-4`` among integers, which made a reader
take the column as text) is numbers, not names: one reading wherever such a cell
sits in the file, checked as any id column is.
"""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np

from tricount._frame_columns import COLUMN_PAIRS
from tricount.errors import GraphFormatError

__all__ = ["COLUMN_PAIRS", "pick_columns", "add_edge_columns", "looks_numeric"]

#: Tables of names up to this many rows take NumPy's ``unique`` even from pyarrow: the first
#: ``pyarrow.compute`` call of a process imports pandas (0.17 s on the 2-core machine,
#: 2026-11-26), which is most of a small file's read.
ARROW_NAMES_MIN_ROWS = 1 << 16


def pick_columns(names, *, exclude=None, first_two: bool = True):
    """The two edge columns among ``names`` (see the module doc); None when there are none.

    ``exclude`` (a weight column) is never an end; without a named pair,
    ``first_two`` takes the first two remaining columns, else exactly two must remain.
    """
    lowered = {str(name).lower(): name for name in names}
    for a, b in COLUMN_PAIRS:
        if a in lowered and b in lowered:
            return lowered[a], lowered[b]
    rest = [name for name in names if name != exclude]
    if len(rest) == 2 or (first_two and len(rest) > 2):
        return rest[0], rest[1]
    return None


def _is_polars(column) -> bool:
    return type(column).__module__.split(".")[0] == "polars"


def _is_text(column) -> bool:
    if _is_polars(column):
        return column.dtype.is_numeric() is False
    kind = getattr(column, "type", None)
    if kind is not None:  # a pyarrow array
        import pyarrow as pa

        return any(test(kind) for test in (
            pa.types.is_string, pa.types.is_large_string, pa.types.is_string_view,
            pa.types.is_binary, pa.types.is_large_binary, pa.types.is_binary_view,
            pa.types.is_fixed_size_binary, pa.types.is_dictionary))
    return np.asarray(column).dtype.kind in "OUS"


def _as_string(chunk):
    """One pyarrow chunk of text (any string, binary or view type, or dictionary-encoded)
    as ``string``. A dictionary is decoded through its own values: Arrow cannot cast a
    dictionary of ``string_view`` (polars' categorical in an IPC file) in one step."""
    import pyarrow as pa

    if pa.types.is_dictionary(chunk.type):
        chunk = chunk.dictionary.cast(pa.string()).take(chunk.indices)
    return chunk if pa.types.is_string(chunk.type) else chunk.cast(pa.string())


def _names_arrow(src, dst):
    """``(src ids, dst ids, names)`` of two pyarrow columns, names sorted."""
    import pyarrow as pa
    import pyarrow.compute as pc

    both = pa.chunked_array([_as_string(c) for c in (src, dst) for c in _chunks(c)],
                            type=pa.string())
    if both.null_count or pc.any(pc.equal(pc.utf8_length(both), 0)).as_py():
        return None  # an empty cell
    encoded = both.combine_chunks().dictionary_encode()
    names = encoded.dictionary
    order = np.asarray(pc.sort_indices(names))
    rank = np.empty(order.shape[0], dtype=np.int64)
    rank[order] = np.arange(order.shape[0], dtype=np.int64)
    ids = rank[np.asarray(encoded.indices)]
    m = len(src)
    return ids[:m], ids[m:], np.asarray(names.take(pa.array(order)).to_pylist(), dtype=object)


def _names_polars(src, dst):
    """``(src ids, dst ids, names)`` of two polars columns, names sorted (binary search)."""
    import polars as pl

    both = pl.concat([src.cast(pl.String), dst.cast(pl.String)])
    if both.null_count() or (both.str.len_bytes() == 0).any():
        return None  # an empty cell
    names = both.unique().sort()
    ids = names.search_sorted(both).to_numpy().astype(np.int64)
    m = len(src)
    return ids[:m], ids[m:], names.to_numpy().astype(object)


def _chunks(column):
    return column.chunks if hasattr(column, "chunks") else [column]


def _text_cells(column) -> np.ndarray | None:
    """A column as NumPy text; None when a cell is null. A pyarrow column goes through a
    Python list: NumPy's conversion of a chunked array imports pandas."""
    if hasattr(column, "null_count"):  # pyarrow
        if column.null_count:
            return None
        column = [x for chunk in _chunks(column) for x in _as_string(chunk).to_pylist()]
    return np.asarray(column).astype(str)


def _names_numpy(src, dst):
    cells = [_text_cells(src), _text_cells(dst)]
    if cells[0] is None or cells[1] is None:
        return None  # an empty cell
    both = np.concatenate(cells)
    if (np.char.str_len(both) == 0).any():
        return None  # an empty cell
    names, ids = np.unique(both, return_inverse=True)
    m = len(src)
    return ids[:m].astype(np.int64), ids[m:].astype(np.int64), names.astype(object)


def _arrow_numbers(column) -> np.ndarray | None:
    """A pyarrow column of integers or floats without nulls, copied out of its buffers into
    one NumPy array (pyarrow's own conversion imports pandas on first use: 0.21 s of a
    small file's read on the 2-core machine, 2026-11-26); None for any other type."""
    import pyarrow as pa

    kind = column.type
    if pa.types.is_integer(kind):
        dtype = np.dtype(f"{'i' if pa.types.is_signed_integer(kind) else 'u'}{kind.bit_width // 8}")
    elif pa.types.is_floating(kind):
        dtype = np.dtype(f"f{kind.bit_width // 8}")
    else:
        return None
    parts = [np.frombuffer(chunk.buffers()[1], dtype=dtype, count=chunk.offset + len(chunk))
             [chunk.offset:] for chunk in _chunks(column) if len(chunk)]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)  # a copy, writable


#: A cell that reads as a number (an integer, a decimal, an exponent; a sign), in ASCII
#: digits: ``\d`` took '١٢' (Arabic-Indic digits) for the id 12, one vertex with 12.
_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_INTEGER = re.compile(r"\+?[0-9]+")


def looks_numeric(cell: str) -> bool:
    """Whether a text cell reads as a number (``007``, ``-4``, ``1e3``, ``3.0``)."""
    return _NUMBER.fullmatch(cell.strip()) is not None


def _numeric_names(path, names) -> np.ndarray | None:
    """The values of the distinct cells ``names`` (sorted) when every one is a number
    (int64 when all are written as integers, else float64), else None: they are names.
    Letters sort after digits, so a table of real names is told by its last cell alone."""
    if not len(names) or not looks_numeric(str(names[-1])):
        return None
    cells = [str(x).strip() for x in names.tolist()]
    if not all(map(looks_numeric, cells)):
        return None
    if all(_INTEGER.fullmatch(c) for c in cells):
        values = [int(c) for c in cells]
    else:  # exact: float("9007199254740993.0") is 2**53, another vertex's id
        exact = [Fraction(c) for c in cells]
        if any(x.denominator != 1 for x in exact):
            return np.array([float(c) for c in cells], dtype=np.float64)  # refused by _ids
        values = [int(x) for x in exact]
    if max(values) > 2**63 - 1:
        raise GraphFormatError(path, f"holds the vertex id {max(values)}; a file's ids are "
                                     f"at most 2**63-1 = {2**63 - 1}")
    return np.array(values, dtype=np.int64)


def _shown(value) -> str:
    """An id as written: an integer exactly, a float in six digits."""
    return str(int(value)) if np.asarray(value).dtype.kind in "iu" else f"{value:.6g}"


def _ids(path, column, what: str) -> np.ndarray:
    """An integer column as int64 ids; negatives, fractions and gaps refused."""
    if len(column) == 0:  # a header alone: a reader may type the empty column as null
        return np.zeros(0, dtype=np.int64)
    if _is_polars(column):
        if column.null_count():
            raise GraphFormatError(path, f"the {what} column has {column.null_count()} empty "
                                         "values; expected a vertex id on every row")
        if str(column.dtype) == "Int128":  # polars' type for a CSV id past 2**64 - 1
            raise GraphFormatError(path, f"the {what} column holds a vertex id of 2**63 or "
                                         f"more; a file's ids are at most 2**63-1 = "
                                         f"{2**63 - 1}")
        column = column.to_numpy()
    if hasattr(column, "type"):  # pyarrow
        if column.null_count:
            raise GraphFormatError(path, f"the {what} column has {column.null_count} empty "
                                         "values; expected a vertex id on every row")
        numbers = _arrow_numbers(column)
        if numbers is not None:
            column = numbers
        else:
            column = column.to_numpy() if hasattr(column, "to_numpy") else np.asarray(column)
    column = np.asarray(column)
    if column.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            bad = ~np.isfinite(column) | (column != np.floor(column))
        if bad.any():
            at = int(np.argmax(bad))
            raise GraphFormatError(path, f"the {what} column's data row {at + 1} holds "
                                         f"{column[at].item()!r}, not an integer vertex id")
    if column.dtype.kind in "uf" and column.shape[0] and column.max() >= 2**63:
        at = int(np.argmax(column >= 2**63))
        raise GraphFormatError(path, f"the {what} column's data row {at + 1} holds a vertex "
                                     f"id of 2**63 or more ({_shown(column[at])}); a file's ids "
                                     f"are at most 2**63-1 = {2**63 - 1}")
    if column.dtype.kind == "f" and column.shape[0] and column.max() >= 2**53:
        # A reader that took the column for floats (a cell such as 3.0 among integers) has
        # rounded any id past 2**53: 2**53 + 1 and 2**53 would be one vertex.
        at = int(np.argmax(column >= 2**53))
        raise GraphFormatError(path, f"the {what} column's data row {at + 1} holds a vertex "
                                     f"id of 2**53 or more ({_shown(column[at])}) in a column read "
                                     "as decimals, which cannot hold it exactly; write every "
                                     "id as an integer")
    if column.dtype.kind == "f":
        column = column.astype(np.int64)
    if column.dtype.kind not in "iuf":
        raise GraphFormatError(path, f"the {what} column must hold non-negative integer "
                                     "vertex ids or vertex names")
    if column.shape[0] and column.min() < 0:
        at = int(np.argmax(column < 0))
        raise GraphFormatError(path, f"the {what} column's data row {at + 1} holds "
                                     f"{column[at].item()!r}, not a non-negative vertex id")
    return column.astype(np.int64, copy=False)


def add_edge_columns(path, src, dst, sink, *, consumed: int = 0):
    """Put two edge columns (pyarrow or NumPy) into ``sink`` (an ``EdgeText``); return the
    ``Declared`` facts: with names, ``n_vertices`` = the distinct names and ``names``."""
    from tricount.io._parse import Declared

    names = None
    if _is_text(src) or _is_text(dst):
        if _is_polars(src):
            named = _names_polars(src, dst)
        elif hasattr(src, "type") and hasattr(dst, "type") and len(src) > ARROW_NAMES_MIN_ROWS:
            named = _names_arrow(src, dst)
        else:
            named = _names_numpy(src, dst)
        if named is None:
            raise GraphFormatError(path, "an edge row has an empty vertex cell; expected a "
                                         "vertex name or id in both edge columns")
        s, d, names = named
        numbers = _numeric_names(path, names)
        if numbers is not None:  # numbers a reader took for text: ids, checked as such
            s, d = _ids(path, numbers[s], "source"), _ids(path, numbers[d], "target")
            names = None
    else:
        s, d = _ids(path, src, "source"), _ids(path, dst, "target")
    m = int(s.shape[0])
    if m:
        max_id = int(max(s.max(), d.max()))
        sink.max_id = max(sink.max_id, max_id)
        dtype = np.int32 if max_id <= np.iinfo(np.int32).max else np.int64
        sink.add(m, dtype, lambda a, b: (np.copyto(a, s, casting="unsafe"),
                                         np.copyto(b, d, casting="unsafe")),
                 consumed=consumed)
        sink.n_entries += m
    if names is None:
        return Declared()
    return Declared(n_vertices=int(names.shape[0]), names=names)
