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
edge once. Values are not read (an explicit zero is still an edge, as in
GAPBS). The graph has exactly N vertices, ``vertex_ids`` ``1 .. N``.

Checked, each with the line: the banner; ``array`` (dense) files, complex and
hermitian matrices (refused); the size line; M == N; every index within
1 .. N; a value column unless ``pattern``; exactly NNZ entries.
"""

from __future__ import annotations

from dataclasses import dataclass

from tricount.errors import GraphFormatError
from tricount.io._header import HeaderLines
from tricount.io._parse import parse_edge_text

BANNER = "%%matrixmarket"
FIELDS = ("pattern", "integer", "real", "double")
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
    body_offset: int  # bytes before the first entry line


def read_header(path) -> MatrixMarketHeader | None:
    """Parse and check the banner, comments and size line; None for a file of only comments."""
    lines = HeaderLines(path)
    banner = lines.next()
    while banner is not None and (not banner.strip() or (banner.lstrip().startswith(("%", "#"))
                                                         and not _is_banner(banner))):
        banner = lines.next()  # blank and comment lines before any data
    if banner is None:
        return None
    if lines.line > 1 and _is_banner(banner):
        raise GraphFormatError(path, "the Matrix Market banner must be the first line",
                               line=lines.line)
    words = banner.split()
    if not words or words[0].lower() != BANNER:
        raise GraphFormatError(path, f"missing the Matrix Market banner: expected "
                                     f"{EXPECTED_BANNER} on line 1, found {banner[:60]!r}",
                               line=lines.line)
    if len(words) != 5:
        raise GraphFormatError(path, f"malformed Matrix Market banner {banner[:80]!r}: expected "
                                     f"{EXPECTED_BANNER}", line=1)
    obj, layout, field, symmetry = (w.lower() for w in words[1:])
    if obj != "matrix":
        raise GraphFormatError(path, f"Matrix Market object {words[1]!r} is not supported; "
                                     "expected 'matrix'", line=1)
    if layout == "array":
        raise GraphFormatError(path, "is a dense 'array' Matrix Market file; tricount reads "
                                     "sparse 'coordinate' files (rewrite it with "
                                     "scipy.io.mmwrite of a sparse matrix)", line=1)
    if layout != "coordinate":
        raise GraphFormatError(path, f"Matrix Market format {words[2]!r} is unknown; expected "
                                     "'coordinate'", line=1)
    if field == "complex" or symmetry == "hermitian":
        raise GraphFormatError(path, "complex and hermitian matrices are not graphs tricount "
                                     "reads; expected field pattern, integer or real", line=1)
    if field not in FIELDS:
        raise GraphFormatError(path, f"Matrix Market field {words[3]!r} is unknown; expected "
                                     "pattern, integer or real", line=1)
    if symmetry not in SYMMETRIES:
        raise GraphFormatError(path, f"Matrix Market symmetry {words[4]!r} is unknown; expected "
                                     "general, symmetric or skew-symmetric", line=1)
    while True:
        text = lines.next()
        if text is None:
            return None  # a banner and comments only: no entries, the empty graph
        stripped = text.strip()
        if stripped and not stripped.startswith("%"):
            break
    parts = stripped.split()
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise GraphFormatError(path, "malformed size line: expected 'rows columns entries' "
                                     f"(three non-negative integers), found {stripped[:60]!r}",
                               line=lines.line)
    n_rows, n_cols, nnz = (int(p) for p in parts)
    if n_rows != n_cols:
        raise GraphFormatError(path, f"is a {n_rows} x {n_cols} matrix; an adjacency matrix "
                                     "must be square", line=lines.line)
    if n_rows >= 2**63:
        raise GraphFormatError(path, f"declares {n_rows} rows, more than 2**63-1",
                               line=lines.line)
    return MatrixMarketHeader(field, symmetry, n_rows, n_cols, nnz, lines.line, lines.offset)


def _is_banner(line: str) -> bool:
    return line.lstrip()[:14].lower() == BANNER


def read_matrix_market(path, *, progress=None, out=None):
    """Parse a coordinate Matrix Market file into edge chunks (ids 1 .. N).

    Returns ``(EdgeText, MatrixMarketHeader)``, or ``(None, None)`` for a file of
    only comments (the empty graph). ``out``: the ``EdgeText`` to fill.
    """
    head = read_header(path)
    if head is None:
        return None, None
    text = parse_edge_text(
        path, skip=head.body_offset, line_base=head.size_line, id_min=1,
        max_src=head.n_rows, max_dst=head.n_cols, min_cols=2 if head.field == "pattern" else 3,
        out_of_range=("entry index {token} is outside the declared size "
                      f"{head.n_rows} x {head.n_cols} (indices are 1-based)"),
        value_name=f"{head.field} value",
        max_entries=head.nnz,
        too_many=(f"more entries than the {head.nnz} declared on the size line "
                  f"(line {head.size_line})"),
        progress=progress,
        out=out,
    )
    if text.n_entries < head.nnz:
        raise GraphFormatError(
            path, f"found {text.n_entries} entries but the size line (line {head.size_line}) "
                  f"declares {head.nnz}; is the file truncated?",
            line=max(text.n_lines, head.size_line))
    return text, head
