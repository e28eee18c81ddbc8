"""Matrix Market coordinate files (``.mtx``, GraphChallenge ``.mmio``) as graphs.

Layout (NIST Matrix Market spec)::

    %%MatrixMarket matrix coordinate <field> <symmetry>
    % comment lines
    M N NNZ
    i j [value]          NNZ lines, 1-based

Accepted: field ``pattern``, ``integer``, ``real`` (or ``double``); symmetry
``general``, ``symmetric`` or ``skew-symmetric``. Every stored entry (i, j) is
the undirected edge {i, j}; a symmetric file's lower triangle therefore gives
the whole graph, and a general file listing both (i, j) and (j, i) gives each
edge once. The graph has exactly N vertices, ``vertex_ids`` ``1 .. N``. An
explicit zero value is still an edge (as in GAPBS).

Checked, each with the line: the banner (blank lines may precede it); ``array``
(dense) files, complex and hermitian matrices (refused); the size line (ASCII
digits only); M == N; that the memory can hold N vertices, before anything
is allocated; every index within 1 .. N;
each entry's value against the declared field (none for ``pattern``, an integer
for ``integer``, a decimal number for ``real``) and nothing after it; exactly
NNZ entries.
"""

from __future__ import annotations

from dataclasses import dataclass

from tricount.errors import GraphFormatError
from tricount.io import _text
from tricount.io._limits import check_declared
from tricount.io._parse import Declared, parse_edge_text

BANNER = "%%matrixmarket"
FIELDS = {"pattern": _text.VALUES_NONE, "integer": _text.VALUES_INTEGER,
          "real": _text.VALUES_REAL, "double": _text.VALUES_REAL}
SYMMETRIES = ("general", "symmetric", "skew-symmetric")
EXPECTED_BANNER = "'%%MatrixMarket matrix coordinate <pattern|integer|real> <general|symmetric>'"


@dataclass
class MatrixMarketHeader:
    field: str
    symmetry: str
    n_rows: int
    n_cols: int
    nnz: int
    size_line: int  # 1-based line of "M N NNZ"


def is_ascii_int(word: str) -> bool:
    """True for a non-negative decimal integer written in ASCII digits (not '²' or '٣')."""
    return word.isascii() and word.isdigit()


def _is_banner(line: str) -> bool:
    return line.lstrip()[:14].lower() == BANNER


def _next_text(source):
    """The next line as text (None at the end)."""
    raw = source.readline()
    return None if raw is None else raw.decode("utf-8", errors="replace")


def read_header(source) -> MatrixMarketHeader:
    """Parse and check banner, comments and size line. Both are required: a file that ends
    before its banner or its size line is refused as truncated (as one of zero bytes is)."""
    path = source.path
    banner = _next_text(source)
    while banner is not None and not banner.strip():
        banner = _next_text(source)  # blank lines before the banner
    first = source.line
    while banner is not None and (not banner.strip() or banner.lstrip().startswith(("%", "#"))
                                  and not _is_banner(banner)):
        banner = _next_text(source)
    if banner is None:
        raise GraphFormatError(path, f"ends before its Matrix Market banner ({EXPECTED_BANNER}):"
                                     " a truncated file?", line=source.line)
    if source.line > first and _is_banner(banner):
        raise GraphFormatError(path, "the Matrix Market banner must be the first line",
                               line=source.line)
    words = banner.split()
    line = source.line
    if not words or words[0].lower() != BANNER:
        raise GraphFormatError(path, f"missing the Matrix Market banner: expected "
                                     f"{EXPECTED_BANNER} as the file's first line, found "
                                     f"{banner[:60]!r} (is this a Matrix Market file?)",
                               line=line)
    if len(words) != 5:
        raise GraphFormatError(path, f"malformed Matrix Market banner {banner[:80]!r}: expected "
                                     f"{EXPECTED_BANNER}", line=line)
    obj, layout, field, symmetry = (w.lower() for w in words[1:])
    if obj != "matrix":
        raise GraphFormatError(path, f"Matrix Market object {words[1]!r} is not supported; "
                                     "expected 'matrix'", line=line)
    if layout == "array":
        raise GraphFormatError(path, "is a dense 'array' Matrix Market file; tricount reads "
                                     "sparse 'coordinate' files (rewrite it with "
                                     "scipy.io.mmwrite of a sparse matrix)", line=line)
    if layout != "coordinate":
        raise GraphFormatError(path, f"Matrix Market format {words[2]!r} is unknown; expected "
                                     "'coordinate'", line=line)
    if field == "complex" or symmetry == "hermitian":
        raise GraphFormatError(path, "complex and hermitian matrices are not graphs tricount "
                                     "reads; expected field pattern, integer or real", line=line)
    if field not in FIELDS:
        raise GraphFormatError(path, f"Matrix Market field {words[3]!r} is unknown; expected "
                                     "pattern, integer or real", line=line)
    if symmetry not in SYMMETRIES:
        raise GraphFormatError(path, f"Matrix Market symmetry {words[4]!r} is unknown; expected "
                                     "general, symmetric or skew-symmetric", line=line)
    while True:
        text = _next_text(source)
        if text is None:
            raise GraphFormatError(path, "ends before its size line ('rows columns entries'): "
                                         "a truncated file?", line=source.line)
        stripped = text.strip()
        if stripped and not stripped.startswith("%"):
            break
    parts = stripped.split()
    if len(parts) != 3 or not all(is_ascii_int(p) for p in parts):
        raise GraphFormatError(path, "malformed size line: expected 'rows columns entries' "
                                     "(three non-negative integers in ASCII digits), found "
                                     f"{stripped[:60]!r}", line=source.line)
    n_rows, n_cols, nnz = (int(p) for p in parts)
    if n_rows != n_cols:
        raise GraphFormatError(path, f"is a {n_rows} x {n_cols} matrix; an adjacency matrix "
                                     "must be square", line=source.line)
    if n_rows >= 2**63 or nnz >= 2**62:
        raise GraphFormatError(path, f"declares {n_rows} rows and {nnz} entries, more than "
                                     "64-bit indices can hold", line=source.line)
    # Isolated vertices take no lines, so only the memory bounds N; NNZ is checked
    # against the entries found, with the line where they run out.
    check_declared(source, what=f"{n_rows} vertices", min_bytes=0, n_vertices=n_rows,
                   line=source.line)
    return MatrixMarketHeader(field, symmetry, n_rows, n_cols, nnz, source.line)


def read(source, out, *, progress=None) -> Declared:
    """Parse a coordinate Matrix Market input into ``out`` (an ``EdgeText``; ids 1 .. N).

    Declares N vertices, ids from 1, and (a symmetric or skew-symmetric file) that each
    stored entry stands for its mirror too, which only arcs need (directed functions).
    """
    head = read_header(source)
    parse_edge_text(
        source, out, id_min=1, max_src=head.n_rows, max_dst=head.n_cols,
        value_kind=FIELDS[head.field],
        out_of_range=("entry index {token} is outside the declared size "
                      f"{head.n_rows} x {head.n_cols} (indices are 1-based)"),
        value_name=f"{head.field} value",
        max_entries=head.nnz,
        too_many=(f"more entries than the {head.nnz} declared on the size line "
                  f"(line {head.size_line})"),
        progress=progress)
    if out.n_entries < head.nnz:
        raise GraphFormatError(
            source.path, f"found {out.n_entries} entries but the size line (line "
                         f"{head.size_line}) declares {head.nnz}; is the file truncated?",
            line=max(out.n_lines, head.size_line))
    return Declared(head.n_rows, 1, mirrored=head.symmetry != "general")
