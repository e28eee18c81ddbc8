"""Delimited edge tables (format ``csv``): a header, any delimiter, vertex ids or names.

    source ─sniff(kept head)─▶ Dialect ─pyarrow.csv | polars | Python─▶ columns
           ─_columns.add_edge_columns─▶ EdgeText (+ the names, sorted)

One edge per row. The delimiter is the first of comma and semicolon found on
the first content line, else blanks (a tab, or spaces). A header is a first row whose first two
cells are not both integers and one of whose cells names a column
(``source``, ``target``, ``src``, ``dst``, ``u``, ``v``, ``from``, ``to``,
...), or, in a comma- or semicolon-separated file, any such first row above
rows of integer ids. The edge columns are the named pair, else the first two; the cells of
the others (a weight, a timestamp) are ignored. Cells that are not integers
are vertex names (``alice,bob``): mapped to ids by sorted rank and kept as the
graph's ``vertex_ids``. In a file separated by blanks and without a header,
every row of its head must hold a name (a word after rows of integer ids, or
``2.0`` or ``-3``, is reported as an error with its line, as a typo). ``#``
and ``%`` lines are comments; a cell may be quoted (``"Smith, J."``).

Files named ``*.csv``, and edge lists whose head has a delimiter other than
blanks, a header or names, come here (:func:`sniff`); the others are plain
SNAP edge lists for the faster Numba parser. Reading: the whole input once
(``Source.read_rest``: a mapped file is not copied), parsed by pyarrow's CSV
reader when installed (multithreaded C++), else by polars', else by Python's
``csv`` module (slower, same graph). ``benchmarks/csv_names.py`` measures them
against polars' ``read_csv`` plus a ``unique`` of the names.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

import numpy as np

from tricount.errors import GraphFormatError
from tricount.io._columns import add_edge_columns, pick_columns

__all__ = ["Dialect", "sniff", "read", "HEADER_WORDS"]

#: Delimiters looked for on the first content line, in order (blanks, tabs included,
#: otherwise).
DELIMITERS = (",", ";")
#: First-row cells that make it a header even when the rows below hold names.
HEADER_WORDS = frozenset({
    "source", "target", "src", "dst", "u", "v", "from", "to", "node1", "node2", "node_1",
    "node_2", "head", "tail", "start", "end", "id1", "id2", "source_id", "target_id",
    "from_id", "to_id", "vertex1", "vertex2", "from_node", "to_node"})
#: Content lines of the head the sniffer looks at.
SNIFF_LINES = 50
_COMMENTS = ("#", "%")


@dataclass(frozen=True)
class Dialect:
    """How a delimited edge table is written (see :func:`sniff`).

    ``delimiter`` is one character, or None for runs of blanks; ``skip``
    counts the comment and blank lines before the first row; ``simple``: no
    comments after them and one delimiter between cells, so pyarrow's and
    polars' readers can parse it.
    """

    delimiter: str | None
    header: bool
    names: bool
    skip: int
    simple: bool


def _is_id(cell: str) -> bool:
    cell = cell.strip().strip('"')
    return cell.isascii() and cell.isdigit()  # ASCII digits only


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _cells(line: str, delimiter: str | None) -> list:
    """The cells of one row: split at runs of blanks, or read as CSV (quotes honoured)."""
    if delimiter is None:
        return line.split()
    return next(csv.reader([line], delimiter=delimiter))


def sniff(head: bytes, *, named: bool = False) -> Dialect | None:
    """The dialect of a delimited edge table from its first bytes, or None when the head
    reads as a plain SNAP edge list (blanks, no header, integer ids) and ``named`` (the
    name says ``.csv``) is False."""
    lines = head.decode("utf-8", "replace").splitlines()
    if len(lines) > 1 and not head.endswith((b"\n", b"\r")):
        lines = lines[:-1]  # the last line may be cut short by the head's end
    skip, content, late_comment = 0, [], False
    for line in lines:
        bare = line.strip()
        if not bare or bare.startswith(("#", "%")):
            if content:
                late_comment = True
            else:
                skip += 1
            continue
        content.append(line)
        if len(content) >= SNIFF_LINES:
            break
    if not content:
        return Dialect(",", False, False, skip, True) if named else None
    delimiter = next((d for d in DELIMITERS if d in content[0]), None)
    rows = [_cells(line, delimiter) for line in content]
    first = [c.strip().strip('"') for c in rows[0]]
    ids_below = len(rows) > 1 and all(len(r) >= 2 and _is_id(r[0]) and _is_id(r[1])
                                      for r in rows[1:])
    known = bool({c.lower() for c in first} & HEADER_WORDS)
    header = len(first) >= 2 and not (_is_id(first[0]) and _is_id(first[1])) and (
        known or (ids_below and delimiter is not None))
    at = (0, 1)
    if header:
        picked = pick_columns(first)
        at = (first.index(picked[0]), first.index(picked[1]))
    data = [r[a] for r in (rows[1:] if header else rows) if len(r) > max(at) for a in at]
    if delimiter is None and not header:
        # An edge list separated by blanks holds names when every row of the head has a
        # word (a lone word, or a number that is not an id, in a file of ids is a typo
        # the SNAP parser reports with its line).
        names = bool(content) and all(
            any(not _is_number(c) for c in r[:2]) for r in rows if len(r) >= 2)
    else:
        names = any(not _is_id(c) for c in data)
    if delimiter is None and not header and not names and not named:
        return None  # a SNAP edge list
    if delimiter is None:  # blanks: one tab or one space between cells, or Python splits
        single = [d for d in ("\t", " ") if all(d in line for line in content)]
        delimiter_one = single[0] if len(single) == 1 else None
        simple = delimiter_one is not None and not any(
            "  " in line or "\t\t" in line or line != line.strip() for line in content)
        return Dialect(delimiter_one if simple else None, header, names, skip,
                       simple and not late_comment)
    return Dialect(delimiter, header, names, skip, not late_comment)


def read(source, out, *, progress=None, dialect: Dialect | None = None):
    """Parse the delimited table ``source`` into ``out``; return its ``Declared``."""
    if dialect is None:
        dialect = sniff(source.head(), named=True)
    if dialect.simple and dialect.delimiter is not None:
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            pass
        else:
            return _read_arrow(source, out, dialect)
        try:
            import polars  # noqa: F401
        except ImportError:
            pass
        else:
            return _read_polars(source, out, dialect)
    return _read_python(source, out, dialect)


def _read_arrow(source, out, dialect: Dialect):
    import pyarrow as pa
    import pyarrow.csv as pacsv

    buf = pa.py_buffer(source.read_rest())
    read_options = pacsv.ReadOptions(skip_rows=dialect.skip,
                                     autogenerate_column_names=not dialect.header)
    parse_options = pacsv.ParseOptions(delimiter=dialect.delimiter)

    def parse(as_text: bool):
        convert = pacsv.ConvertOptions()
        if as_text:  # every cell a string: names, whatever the first block looked like
            schema = pacsv.open_csv(pa.BufferReader(buf), read_options=read_options,
                                    parse_options=parse_options).schema  # the first block
            convert = pacsv.ConvertOptions(column_types={n: pa.string() for n in schema.names})
        return pacsv.read_csv(pa.BufferReader(buf), read_options=read_options,
                              parse_options=parse_options, convert_options=convert)

    try:
        try:
            table = parse(dialect.names)
        except pa.ArrowInvalid as exc:
            if "conversion error" not in str(exc).lower():
                raise
            table = parse(True)  # a name after rows of integers: read every cell as text
    except pa.ArrowInvalid as exc:
        raise GraphFormatError(source.path, f"cannot read the table: {exc}",
                               line=_line_of_row(buf, str(exc))) from None
    return _add(source, out, table.column_names, table.column, dialect)


def _line_of_row(data, message: str) -> int | None:
    """The line of ``data`` (the whole input) that pyarrow's parse error quotes after its
    last ``: `` ("Expected 2 columns, got 3: 3,1,5"): the first whole line equal to it, or
    None. Only an error pays for this search."""
    row = message.rsplit(": ", 1)[-1].strip().encode()
    if not row or "got " not in message:
        return None
    data = bytes(data)
    at = data.find(row)
    while at >= 0:
        end = at + len(row)
        if (at == 0 or data[at - 1:at] == b"\n") and data[end:end + 1] in (b"", b"\n", b"\r"):
            return data.count(b"\n", 0, at) + 1
        at = data.find(row, at + 1)
    return None


def _read_polars(source, out, dialect: Dialect):
    import polars as pl

    data = bytes(source.read_rest())
    kwargs = dict(separator=dialect.delimiter, has_header=dialect.header,
                  skip_rows=dialect.skip, infer_schema=not dialect.names)
    try:
        frame = pl.read_csv(io.BytesIO(data), **kwargs)
    except pl.exceptions.ComputeError:
        kwargs["infer_schema"] = False  # every cell a string
        frame = pl.read_csv(io.BytesIO(data), **kwargs)
    except Exception as exc:  # polars' parse errors have no common base
        raise GraphFormatError(source.path, f"cannot read the table: {exc}") from None
    return _add(source, out, frame.columns, lambda name: frame[name], dialect)


def _read_python(source, out, dialect: Dialect):
    """The standard library's reader, line by line (comments anywhere, any blanks)."""
    rows, header = [], None
    while True:
        line = source.readline()
        if line is None:
            break
        text = line.decode("utf-8", "replace")
        bare = text.strip()
        if not bare or bare.startswith(_COMMENTS):
            continue
        cells = _cells(text, dialect.delimiter)
        if dialect.header and header is None:
            header = [c.strip() for c in cells]
            continue
        if len(cells) < 2:
            raise GraphFormatError(source.path, "expected two vertex columns (source and "
                                                "target), found one", line=source.line)
        rows.append(cells)
    names = header if header is not None else [f"f{i}" for i in range(max(map(len, rows),
                                                                           default=2))]
    a, b = pick_columns(names) or (names[0], names[1])
    ia, ib = names.index(a), names.index(b)
    columns = {a: [r[ia] for r in rows], b: [r[ib] for r in rows]}
    as_ids = not dialect.names and all(c.strip().isdigit() for col in columns.values()
                                       for c in col)
    get = (lambda c: np.array([int(x) for x in columns[c]], dtype=np.int64)) if as_ids else \
        (lambda c: np.array([x.strip() for x in columns[c]], dtype=object))
    return _add(source, out, [a, b], get, dialect)


def _add(source, out, names, get, dialect: Dialect):
    picked = pick_columns(names) if dialect.header else None
    if picked is None:
        if len(names) < 2:
            raise GraphFormatError(source.path, "expected two vertex columns (source and "
                                                "target), found one")
        picked = (names[0], names[1])
    src, dst = get(picked[0]), get(picked[1])
    return add_edge_columns(source.path, src, dst, out, consumed=source.consumed)
