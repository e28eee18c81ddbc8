"""Delimited edge tables (format ``csv``): a header, any delimiter, vertex ids or names.

    source ─sniff(kept head)─▶ Dialect ─pyarrow.csv | polars | Python─▶ columns
           ─_columns.add_edge_columns─▶ EdgeText (+ the names, sorted)

One edge per row. The delimiter is the first of comma and semicolon found on
the first content line, else blanks (a tab, or spaces). A header is a first row whose first two
cells are not both integers and one of whose cells names a column
(``source``, ``target``, ``src``, ``dst``, ``u``, ``v``, ``from``, ``to``,
...), or, in a comma- or semicolon-separated file, any such first row above
rows of numbers (``3.0`` among integer ids is one). The edge columns are the
named pair, else the first two; the cells of the others (a weight, a timestamp)
are ignored. Cells that are not integers
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
``csv`` module (slower, same graph). Every reader reads a table alike (a
differential fuzz found where they did not): a first row of two numbers is data;
blanks around a cell or a header name are not part of it; a table whose body
holds a comment, a blank or indented line (or, for polars, a lone CR or a blank
line before the header) goes to Python's reader, and so does one pyarrow finds
ragged (the extra cells are ignored); a NUL byte and bytes that are not UTF-8
are refused with their line; only ASCII digits make an id. ``benchmarks/csv_names.py`` measures them
against polars' ``read_csv`` plus a ``unique`` of the names.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass

import numpy as np

from tricount.errors import GraphFormatError
from tricount.io._columns import COLUMN_PAIRS, add_edge_columns, looks_numeric, pick_columns

__all__ = ["Dialect", "sniff", "read", "HEADER_WORDS"]

#: Delimiters looked for on the first content line, in order (blanks, tabs included,
#: otherwise).
DELIMITERS = (",", ";")
#: First-row cells that make it a header even when the rows below hold names: the words of
#: the column pairs, so that every header word also names its column.
HEADER_WORDS = frozenset(word for pair in COLUMN_PAIRS for word in pair)
#: The blanks cut around a cell or a header name: a space or a tab, by every reader alike
#: (Python's str.strip also cut U+00A0, U+3000, ..., pyarrow's and polars' reading did not).
BLANKS = " \t"
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
    # Lines end at LF, CRLF or CR only: str.splitlines also splits at \f, \v, NEL, U+2028...,
    # which a comment may hold, and the first row would then be skipped as the header's.
    lines = _LINE_END.split(head.decode("utf-8", "replace"))
    if lines and lines[-1] == "":
        lines.pop()
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
    # Rows of numbers below (3.0 among integer ids is a number): a first row of words
    # above them is a header, not two vertex names (which made 3 and 3.0 two names too).
    numbers_below = len(rows) > 1 and all(
        len(r) >= 2 and looks_numeric(r[0]) and looks_numeric(r[1]) for r in rows[1:])
    known = bool({c.lower() for c in first} & HEADER_WORDS)
    # A first row of two numbers is data, whatever they are (1.0, -4, 3.5): read as numbers
    # wherever they sit, refused where they are not ids, never dropped as a header.
    header = len(first) >= 2 and not (looks_numeric(first[0]) and looks_numeric(first[1])) \
        and (known or (numbers_below and delimiter is not None))
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
    """Parse the delimited table ``source`` into ``out``; return its ``Declared``.

    pyarrow's or polars' reader takes a table whose body they read as Python's reader
    does (:func:`_body_is_plain`: no comment, blank or indented line after the head's;
    for polars also no lone CR and no blank line before the header); anything else, and
    a table pyarrow finds ragged (extra cells are ignored), goes to Python's reader."""
    if dialect is None:
        dialect = sniff(source.head(), named=True)
    if not (dialect.simple and dialect.delimiter is not None):
        # Line by line: memory bounded by the longest line (a bomb of one endless line is
        # refused at the source's line limit).
        return _read_python(source, _stream_lines(source), out, dialect)
    raw = _Text(source.read_rest())  # a mapped file is neither copied nor read twice
    nul = raw.find(b"\0")
    if nul >= 0:
        line = source.line + int(np.count_nonzero(raw.array[:nul] == 10)) + 1
        raise GraphFormatError(source.path, _NUL, line=line)
    if _body_is_plain(raw, dialect):
        trim = _blank_around_cells(raw, dialect.delimiter)
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            pass
        else:
            data = raw.data
            if len(raw) and raw.find(b"\n") < 0 and raw.find(b"\r") < 0:
                data = raw.bytes() + b"\n"  # one line, no line end: pyarrow found no row
            table = _read_arrow(source, data, dialect)
            if table is None:  # ragged: Python's reader ignores the extra cells, as documented
                return _read_python(source, _data_lines(source, raw), out, dialect)
            return _add(source, out, table.column_names,
                        _trimmed(table.column) if trim else table.column, dialect)
        try:
            import polars  # noqa: F401
        except ImportError:
            pass
        else:
            if not _blank_before_header(raw, dialect) and not _LONE_CR.search(raw.data):
                return _read_polars(source, raw.data, out, dialect, trim)
    return _read_python(source, _data_lines(source, raw), out, dialect)


class _Text:
    """The rest of a source in memory, searched without a copy: ``bytes``, or a view to
    the end of a mapped file (whose map searches itself at memchr's speed)."""

    def __init__(self, data):
        self.data = data
        self.array = np.frombuffer(data, dtype=np.uint8)
        whole = getattr(data, "obj", None)
        if not isinstance(data, bytes) and not hasattr(whole, "find"):
            self.data = data = bytes(data)
        self._find = data.find if isinstance(data, bytes) else whole.find
        self._base = 0 if isinstance(data, bytes) else len(whole) - len(data)

    def __len__(self) -> int:
        return self.array.shape[0]

    def find(self, sub: bytes, start: int = 0) -> int:
        at = self._find(sub, self._base + start)
        return at - self._base if at >= 0 else -1

    def bytes(self) -> bytes:
        return self.data if isinstance(self.data, bytes) else bytes(self.data)


_NUL = "holds a NUL byte; expected text (is it a binary file, or text in UTF-16?)"


def _decoded(source, raw: bytes, line: int) -> str:
    """``raw`` as UTF-8 text, or the error naming its line: two different bad bytes would
    both be U+FFFD, one name."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line += raw[:exc.start].count(b"\n")
        raise GraphFormatError(source.path, f"is not UTF-8 text (byte {raw[exc.start]:#x})",
                               line=line) from None


def _stream_lines(source):
    """``(line number, text)`` of each line left in ``source``, read one at a time."""
    while True:
        raw = source.readline()
        if raw is None:
            return
        raw = bytes(raw)
        if b"\0" in raw:
            raise GraphFormatError(source.path, _NUL, line=source.line)
        yield source.line, _decoded(source, raw, source.line)


def _data_lines(source, raw: "_Text"):
    """``(line number, text)`` of each line of ``raw``, the rest of ``source`` in memory."""
    first = source.line + 1
    return enumerate(_LINE_END.split(_decoded(source, raw.bytes(), first)), first)


#: Where a line ends: LF, CRLF or a lone CR, nothing else.
_LINE_END = re.compile(r"\r\n|\r|\n")
#: A CR that ends a line alone (polars' reader does not end a line there).
_LONE_CR = re.compile(rb"\r(?!\n)")
#: First bytes of a body line that pyarrow and polars would read as a row where Python's
#: reader reads none (a comment, a blank line) or another one (an indented row).
_NOT_A_PLAIN_ROW = np.zeros(256, dtype=bool)
_NOT_A_PLAIN_ROW[[ord(c) for c in "#%\r\n \t"]] = True


def _line_start(raw: _Text, lines: int) -> int:
    """Where line ``lines`` (0-based) begins, ``len(raw)`` past the end."""
    at = 0
    for _ in range(lines):
        end = raw.find(b"\n", at)
        if end < 0:
            return len(raw)
        at = end + 1
    return at


def _body_is_plain(raw: _Text, dialect: Dialect) -> bool:
    """Whether every line after the skipped ones and the header is a plain row (see
    :data:`_NOT_A_PLAIN_ROW`): one pass for the line ends, then the first byte of each line
    (R-MAT 18's 64 MB of names: about 0.05 s on the 2-core machine, where a search per
    pattern took 0.35). A table with quotes is taken as plain: a quoted cell may hold a
    line end followed by any character, which only pyarrow's and polars' readers read as
    one cell (such tables are written by programs, without comments)."""
    body = _line_start(raw, dialect.skip + (1 if dialect.header else 0))
    if body >= len(raw) or raw.find(b'"', body) >= 0:
        return True
    text = raw.array[body:]
    firsts = text[np.flatnonzero(text[:-1] == 10) + 1]
    return not (_NOT_A_PLAIN_ROW[text[0]] or _NOT_A_PLAIN_ROW[firsts].any())


def _blank_around_cells(raw: _Text, delimiter: str) -> bool:
    """Whether a cell may have blanks around it (``a, b``): pyarrow and polars keep them,
    Python's reader and the documented rule do not. A table without a blank says so at
    memchr's speed."""
    if raw.find(b" ") < 0 and raw.find(b"\t") < 0:
        return False
    text = raw.array
    blank = np.flatnonzero((text == 32) | (text == 9))
    edge = np.array([ord(delimiter), 10, 13], dtype=np.uint8)
    before = text[np.maximum(blank - 1, 0)]
    after = text[np.minimum(blank + 1, text.shape[0] - 1)]
    return bool(np.isin(before, edge).any() or np.isin(after, edge).any()
                or blank[-1] == text.shape[0] - 1)


def _trimmed(column):
    """``column`` (a name to a pyarrow column) with the blanks around text cells cut."""
    import pyarrow as pa
    import pyarrow.compute as pc

    def get(name):
        col = column(name)
        return pc.utf8_trim(col, characters=BLANKS) if pa.types.is_string(col.type) or \
            pa.types.is_large_string(col.type) else col

    return get


def _blank_before_header(raw: _Text, dialect: Dialect) -> bool:
    """Whether a blank line is among the skipped ones (polars' ``skip_rows`` then drops a
    data row)."""
    skipped = raw.array[:_line_start(raw, dialect.skip)].tobytes()
    return bool(dialect.skip) and (skipped[:1] in (b"\n", b"\r") or b"\n\n" in skipped
                                   or b"\n\r" in skipped)


def _read_arrow(source, data, dialect: Dialect):
    """pyarrow's table of ``data``, or None for a ragged table (Python's reader takes it)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    buf = pa.py_buffer(data)
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
        if "Expected" in str(exc) and "columns, got" in str(exc):
            return None  # a row with more (or fewer) cells: Python's reader says which
        if "invalid utf8" in str(exc).lower():
            raise GraphFormatError(source.path, f"is not UTF-8 text ({exc})") from None
        raise GraphFormatError(source.path, f"cannot read the table: {exc}",
                               line=_line_of_row(buf, str(exc))) from None
    return table


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


def _read_polars(source, data, out, dialect: Dialect, trim: bool = False):
    import polars as pl

    data = bytes(data)
    kwargs = dict(separator=dialect.delimiter, has_header=dialect.header,
                  skip_rows=dialect.skip, infer_schema=not dialect.names)
    try:
        try:
            frame = pl.read_csv(io.BytesIO(data), **kwargs)
        except pl.exceptions.ComputeError:
            kwargs["infer_schema"] = False  # every cell a string
            frame = pl.read_csv(io.BytesIO(data), **kwargs)
    except Exception as exc:  # polars' parse errors have no common base
        if "invalid utf-8" in str(exc).lower():
            raise GraphFormatError(source.path, f"is not UTF-8 text ({exc})") from None
        raise GraphFormatError(source.path, f"cannot read the table: {exc}") from None
    renamed = [c for c in frame.columns if "_duplicated_" in c]  # polars' name for a repeat
    if renamed:
        _check_names(source, frame.columns + [renamed[0].rsplit("_duplicated_", 1)[0]])
    if trim:  # blanks around text cells are not part of the name (``a, b``)
        frame = frame.with_columns(pl.col(pl.String).str.strip_chars(BLANKS))
    return _add(source, out, frame.columns, lambda name: frame[name], dialect)


def _read_python(source, lines, out, dialect: Dialect):
    """The standard library's reader over ``lines`` (``(number, text)`` pairs: comments
    anywhere, any blanks)."""
    rows, header = [], None
    for number, text in lines:
        bare = text.strip()
        if not bare or bare.startswith(_COMMENTS):
            continue
        cells = _cells(text, dialect.delimiter)
        if dialect.header and header is None:
            header = [c.strip(BLANKS) for c in cells]
            continue
        if len(cells) < 2:
            raise GraphFormatError(source.path, "expected two vertex columns (source and "
                                                "target), found one", line=number)
        rows.append(cells)
    names = header if header is not None else [f"f{i}" for i in range(max(map(len, rows),
                                                                           default=2))]
    _check_names(source, names)
    a, b = pick_columns(names) or (names[0], names[1])
    ia, ib = names.index(a), names.index(b)
    columns = {a: [r[ia] for r in rows], b: [r[ib] for r in rows]}
    as_ids = not dialect.names and all(_is_id(c) for col in columns.values() for c in col)

    def ids(c):
        values = [int(x) for x in columns[c]]
        if values and max(values) > 2**63 - 1:
            raise GraphFormatError(source.path, f"holds the vertex id {max(values)}; a file's "
                                                f"ids are at most 2**63-1 = {2**63 - 1}")
        return np.array(values, dtype=np.int64)

    get = ids if as_ids else (lambda c: np.array([x.strip(BLANKS) for x in columns[c]],
                                                 dtype=object))
    return _add(source, out, [a, b], get, dialect)


def _check_names(source, names) -> None:
    """Refuse a header that names two columns alike (which would be read is a guess)."""
    seen = set()
    for name in (str(n).strip(BLANKS) for n in names):
        if name in seen:
            raise GraphFormatError(source.path, f"the header names two columns {name!r}; "
                                                "rename one", line=source.line or None)
        seen.add(name)


def _add(source, out, names, get, dialect: Dialect):
    if dialect.header:
        _check_names(source, names)
        # Blanks around a header cell are not part of its name (``weight, src, dst``).
        bare = {str(n).strip(BLANKS): n for n in names}
        picked = pick_columns(list(bare))
        picked = None if picked is None else (bare[picked[0]], bare[picked[1]])
    else:
        picked = None
    if picked is None:
        if len(names) < 2:
            raise GraphFormatError(source.path, "expected two vertex columns (source and "
                                                "target), found one")
        picked = (names[0], names[1])
    src, dst = get(picked[0]), get(picked[1])
    return add_edge_columns(source.path, src, dst, out, consumed=source.consumed)
