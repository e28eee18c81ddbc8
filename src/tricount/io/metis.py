"""METIS / DIMACS10 ``.graph`` files.

Layout (METIS 5 manual §4.1.1)::

    % comment lines (anywhere)
    n m [fmt [ncon]]
    line i = the neighbours of vertex i (1-based), for i = 1 .. n

``fmt`` is up to three 0/1 digits ``abc``: ``a`` vertex sizes, ``b`` vertex
weights (``ncon`` of them, default 1), ``c`` edge weights. On an adjacency line
the size and weights come first, and with ``c`` each neighbour is followed by
its edge weight. A blank line is a vertex with no neighbours. Each edge
appears in both endpoints' lines and ``m`` counts it once.

Checked, each with the line where one applies: the header (ASCII digits
only); that the rest of the input can hold ``n`` lines and the memory ``n``
vertices, before anything is allocated; exactly ``n``
adjacency lines (blank lines after the last one are allowed); every neighbour
within 1 .. n; every weight the format promises, a non-negative integer;
``2 m`` adjacency entries in all; and, once built, that the lists are
symmetric (every edge listed at both ends).

The body is parsed by one thread (a line's vertex is its rank among the
non-comment lines, which a split buffer would have to count first).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from tricount._threads import load_numba
from tricount.errors import GraphFormatError
from tricount.io._limits import check_declared
from tricount.io._grammar import (ERR_BAD_NUMBER, ERR_BAD_WEIGHT, ERR_MISSING_WEIGHT,
                                  ERR_NEGATIVE, ERR_NEIGHBOUR_RANGE, ERR_TOO_LARGE,
                                  ERR_TOO_MANY_LINES)
from tricount.io._parse import Declared, token_at
from tricount.io._text import (OK, _after_line_end, _at_line_end, _digits_end, _ends_token,
                               _is_blank, _read_id)
from tricount.io.mtx import is_ascii_int

numba = load_numba()  # Numba, started without its BLAS probe (tricount._threads)


@dataclass
class MetisHeader:
    n_vertices: int
    n_edges: int
    vertex_sizes: bool
    vertex_weights: int  # weights per vertex (ncon) when present, else 0
    edge_weights: bool
    header_line: int


def read_header(source) -> MetisHeader:
    """The checked header line; a file that ends before it is refused as truncated (as one
    of zero bytes is)."""
    path = source.path
    while True:
        raw = source.readline()
        if raw is None:
            raise GraphFormatError(path, "ends before its METIS header ('vertices edges "
                                         "[fmt [ncon]]'): a truncated file?", line=source.line)
        stripped = raw.decode("utf-8", errors="replace").strip()
        if stripped and not stripped.startswith("%"):
            break
    line = source.line
    parts = stripped.split()
    if not 2 <= len(parts) <= 4 or not all(is_ascii_int(p) for p in parts):
        raise GraphFormatError(path, "malformed METIS header: expected 'vertices edges "
                                     "[fmt [ncon]]' (non-negative integers in ASCII digits), "
                                     f"found {stripped[:60]!r}", line=line)
    n, m = int(parts[0]), int(parts[1])
    fmt = parts[2] if len(parts) > 2 else "0"
    if len(fmt) > 3 or set(fmt) - {"0", "1"}:
        raise GraphFormatError(path, f"METIS fmt {fmt!r} is invalid; expected up to three "
                                     "digits 0 or 1 (vertex sizes, vertex weights, edge "
                                     "weights)", line=line)
    fmt = fmt.rjust(3, "0")
    # METIS 5 reads ncon 0 as 1 (programs/io.c: ncon == 0 ? 1 : ncon): 0 meant no weight
    # here, and the weight column was read as neighbours.
    ncon = max(int(parts[3]), 1) if len(parts) > 3 else 1
    if len(parts) > 3 and fmt[1] != "1":
        raise GraphFormatError(path, "METIS header gives ncon but fmt has no vertex weights",
                               line=line)
    if n >= 2**62 or m >= 2**62 or ncon >= 2**20:
        raise GraphFormatError(path, f"METIS header sizes {n} and {m} are too large", line=line)
    # n vertices are allocated for and need n lines, so at least n - 1 line ends; m
    # allocates nothing and is checked against the entries read (with the line).
    check_declared(source, what=f"{n} vertices", min_bytes=max(n - 1, 0), n_vertices=n,
                   line=line)
    return MetisHeader(n, m, fmt[0] == "1", ncon if fmt[1] == "1" else 0, fmt[2] == "1", line)


@numba.njit(inline="always")
def _skip_blanks(buf, i, end):
    while i < end and _is_blank(buf[i]):
        i += 1
    return i


@numba.njit(inline="always")
def _weight_end(buf, i, end):
    """End of the non-negative integer token at ``buf[i]``, or -1."""
    j = _digits_end(buf, i, end)
    if j == i or not (j == end or _ends_token(buf[j])):
        return -1
    return j


@numba.njit(inline="always")
def _after_weight(buf, i, end):
    """Index after the weight at ``buf[i]`` and its blanks; ``-ERR_MISSING_WEIGHT`` at the
    line's end, ``-ERR_BAD_WEIGHT`` for a token that is not one."""
    if _at_line_end(buf, i, end):
        return -ERR_MISSING_WEIGHT
    j = _weight_end(buf, i, end)
    if j < 0:
        return -ERR_BAD_WEIGHT
    return _skip_blanks(buf, j, end)


@numba.njit(cache=True, nogil=True)
def parse_adjacency(buf, vertex, n, skip_front, edge_weights, src, dst):
    """Parse adjacency lines, the first being vertex ``vertex`` (0-based).

    Returns ``(n_entries, next_vertex, line_ends, error, error_line, error_offset)``;
    ``src``/``dst`` (1-based ids) need room for one entry per two bytes.
    """
    end = buf.shape[0]
    i = 0
    line = 0
    m = 0
    while i < end:
        i = _skip_blanks(buf, i, end)
        if i < end and buf[i] == 37:  # '%': a comment, not a vertex
            while not _at_line_end(buf, i, end):
                i += 1
            if i < end:
                i = _after_line_end(buf, i, end)
                line += 1
            continue
        if vertex >= n:
            if not _at_line_end(buf, i, end):
                return m, vertex, line, ERR_TOO_MANY_LINES, line, i
            if i < end:
                i = _after_line_end(buf, i, end)
                line += 1
            continue
        for _ in range(skip_front):  # vertex size and weights
            j = _after_weight(buf, i, end)
            if j < 0:
                return m, vertex, line, -j, line, i
            i = j
        while not _at_line_end(buf, i, end):
            u, j, err = _read_id(buf, i, end)
            if err != OK:
                return m, vertex, line, ERR_BAD_NUMBER if err == 1 else err, line, i
            if u < 1 or u > n:
                return m, vertex, line, ERR_NEIGHBOUR_RANGE, line, i
            src[m] = vertex + 1
            dst[m] = u
            m += 1
            i = _skip_blanks(buf, j, end)
            if edge_weights:
                j = _after_weight(buf, i, end)
                if j < 0:
                    return m, vertex, line, -j, line, i
                i = j
        vertex += 1
        if i < end:
            i = _after_line_end(buf, i, end)
            line += 1
    return m, vertex, line, OK, 0, 0


def read(source, out, *, progress=None) -> Declared:
    """Parse a METIS graph into ``out`` (an ``EdgeText``; ids 1 .. n) and check its counts.

    """
    head = read_header(source)
    out.n_lines = source.line
    vertex = 0
    skip_front = int(head.vertex_sizes) + head.vertex_weights
    scratch = None
    for buf, consumed in source.chunks(progress=progress):
        size = buf.shape[0] // 2 + 2
        if scratch is None or scratch[0].shape[0] < size:
            scratch = (np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64))
        m, vertex, newlines, err, err_line, offset = parse_adjacency(
            buf, vertex, head.n_vertices, skip_front, head.edge_weights, scratch[0], scratch[1])
        if err:
            raise _error(source.path, head, err, buf, offset, out.n_lines + err_line + 1, vertex)
        out.n_lines += int(newlines)
        out.n_entries += int(m)
        if m:
            dtype = np.int32 if head.n_vertices <= np.iinfo(np.int32).max else np.int64
            out.add(m, dtype, functools.partial(_copy_pair, scratch[0][:m], scratch[1][:m]),
                    buf.shape[0], consumed)
            out.max_id = head.n_vertices
    source.line = out.n_lines
    if vertex < head.n_vertices:
        raise GraphFormatError(
            source.path, f"has {vertex} adjacency lines but the header (line "
                         f"{head.header_line}) declares {head.n_vertices} vertices; is the "
                         "file truncated?", line=max(out.n_lines, head.header_line))
    if out.n_entries != 2 * head.n_edges:
        raise GraphFormatError(
            source.path, f"the header (line {head.header_line}) declares {head.n_edges} edges, "
                         f"so 2 x {head.n_edges} = {2 * head.n_edges} adjacency entries, but "
                         f"the lines hold {out.n_entries}")
    return Declared(head.n_vertices, 1, symmetric=True)


def _copy_pair(src_from, dst_from, src, dst):
    """A reader's ``fill``: copy the parsed pair into the sink's arrays."""
    np.copyto(src, src_from)
    np.copyto(dst, dst_from)


def _error(path, head, err, buf, offset, line, vertex):
    token = token_at(buf, offset)
    if err == ERR_TOO_MANY_LINES:
        message = (f"more adjacency lines than the {head.n_vertices} vertices the header "
                   f"(line {head.header_line}) declares")
    elif err == ERR_NEIGHBOUR_RANGE:
        message = (f"neighbour {token} of vertex {vertex + 1} is outside 1 .. {head.n_vertices} "
                   "(METIS ids are 1-based)")
    elif err == ERR_MISSING_WEIGHT:
        message = (f"vertex {vertex + 1}: expected the weights the header's fmt promises, "
                   "found the end of the line")
    elif err == ERR_BAD_WEIGHT:
        message = (f"vertex {vertex + 1}: expected a weight (a non-negative integer, as the "
                   f"header's fmt promises), found {token!r}")
    elif err == ERR_NEGATIVE:
        message = f"vertex {vertex + 1}: neighbour ids must be positive, found {token!r}"
    elif err == ERR_TOO_LARGE:
        message = f"vertex {vertex + 1}: neighbour id {token!r} is larger than 2**63-1"
    else:
        message = f"vertex {vertex + 1}: expected a neighbour id (integer), found {token!r}"
    return GraphFormatError(path, message, line=line)
