"""The edge sink every text parser fills, and the driver of the text kernels over a source.

:class:`EdgeText` keeps parsed ``(src, dst)`` chunks for the builder. It
bounds their memory: once the chunks hold more edges than the input could
plausibly describe (:func:`EdgeText.limit`), they are merged and their
repeated lines dropped (:meth:`EdgeText.merge`), counting what was dropped so
that the graph's ``self_loops_dropped`` and ``duplicates_dropped`` are those
of the whole input. A 1 MB gzip of one repeated edge (a billion lines)
therefore stays a few hundred MB, instead of keeping every line.

:func:`parse_edge_text` runs :func:`tricount.io._text.parse_chunk` over a
source's line-aligned chunks (:func:`parse_chunks`, which the NumPy parser of
:mod:`tricount.io.snap_numpy` also hands the chunks it cannot read exactly) and
turns error codes into messages naming the input and the line. Numba is
imported with the first parse, not with this module: the NumPy parser fills an
:class:`EdgeText` without it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from tricount.errors import GraphFormatError
from tricount.io import _grammar  # the codes only: the kernels load with the first parse

#: Chunks are merged (repeats dropped) once they hold more than this many edges...
MERGE_MIN_EDGES = 1 << 24
#: ...and more than this many per input byte read (compressed bytes when compressed).
#: Text takes at least 4 bytes an edge ("0 1\n") and a compressed edge list about 4
#: compressed bytes an edge, so only an input that expands like a bomb reaches 4.
MERGE_EDGES_PER_INPUT_BYTE = 4


@dataclass
class Declared:
    """What a parsed input says about its graph beyond its edges."""

    n_vertices: int | None = None  # the ids are id_base .. id_base + n_vertices - 1
    id_base: int = 0
    symmetric: bool = False  # lists every edge at both ends (METIS): checked once built
    names: object = None  # vertex names (CSV, Parquet): the ids are their sorted ranks
    mirrored: bool = False  # each stored entry (i, j) stands for (j, i) too (a symmetric or
    #                         skew-symmetric Matrix Market file stores one triangle)


def check_symmetric(path, graph, n_entries: int) -> None:
    """Refuse an adjacency input in which some edge appears at one end only.

    Every distinct directed entry ``(u, v)`` of a symmetric input has its
    reverse, so the distinct directed entries are exactly twice the edges.
    """
    n_directed = n_entries - graph.self_loops_dropped - graph.duplicates_dropped
    if n_directed != 2 * graph.n_edges:
        one_sided = 2 * graph.n_edges - n_directed
        raise GraphFormatError(
            path, f"the adjacency lists are not symmetric: {one_sided} of the {graph.n_edges} "
                  "edges appear in one endpoint's list only (each edge must be listed at both "
                  "ends)")


def token_at(buf, offset: int) -> str:
    """The whitespace-delimited token starting at ``offset`` (at most 40 bytes)."""
    end = offset
    n = buf.shape[0]
    while end < n and end - offset < 40 and buf[end] not in (32, 9, 10, 13):
        end += 1
    return bytes(buf[offset:end]).decode("utf-8", errors="replace")


_MESSAGES = {
    _grammar.ERR_NOT_A_NUMBER: "expected a non-negative integer vertex id, found {token!r}",
    _grammar.ERR_NEGATIVE: "vertex ids must be non-negative, found {token!r}",
    _grammar.ERR_TOO_LARGE: "vertex id {token!r} is larger than 2**63-1 = " f"{_grammar.MAX_ID}",
    _grammar.ERR_ONE_COLUMN: "expected two vertex ids (source and target), found one column",
    _grammar.ERR_MISSING_VALUE: "expected {a} {value_name} in the third column, found only two "
                             "columns",
    _grammar.ERR_BAD_VALUE: "expected {a} {value_name} in the third column, found {token!r}",
    _grammar.ERR_EXTRA_COLUMN: "expected nothing after {what}, found {token!r}",
}


def edge_error(path, code: int, buf, offset: int, line: int, *, out_of_range=None,
               value_name="value", value_kind=_grammar.VALUES_IGNORED) -> GraphFormatError:
    token = token_at(buf, offset)
    if code == _grammar.ERR_OUT_OF_RANGE:
        message = (out_of_range or "vertex id {token} is out of range").format(token=token)
    else:
        what = "the two indices" if value_kind == _grammar.VALUES_NONE else f"the {value_name}"
        a = "an" if value_name[:1] in "aeiou" else "a"
        message = _MESSAGES[code].format(token=token, value_name=value_name, what=what, a=a)
    return GraphFormatError(path, message, line=line)


class EdgeText:
    """The parsed edge lines of an input, as chunks of ``(src, dst)`` id arrays.

    Readers hand each parsed chunk to :meth:`add`; a subclass may keep the
    edges elsewhere (:class:`tricount.io.gpu_stream.DeviceEdges` copies them
    to the GPU as they come). ``loops_merged`` and ``duplicates_merged``
    count the lines :meth:`merge` dropped.
    """

    def __init__(self, *, merge_repeats: bool = True):
        self.merge_repeats = merge_repeats
        self.chunks = []
        self.max_id = -1
        self.n_lines = 0  # line ends read, so the last line is n_lines + 1
        self.n_entries = 0  # edge lines parsed
        self.n_held = 0  # edges in self.chunks
        self.loops_merged = 0
        self.duplicates_merged = 0
        self._kept = 0  # edges left by the last merge

    def add(self, m: int, dtype, fill, chunk_bytes: int = 0, consumed: int = 0) -> None:
        """Take ``m`` edges: ``fill(src, dst)`` writes them into two arrays of ``m``.

        ``dtype`` is the narrowest type holding the chunk's ids; a sink may
        hand ``fill`` wider arrays. ``chunk_bytes``: the text they came from;
        ``consumed``: input bytes read so far.
        """
        src, dst = np.empty(m, dtype=dtype), np.empty(m, dtype=dtype)
        fill(src, dst)
        self.chunks.append((src, dst))
        self.n_held += m
        if self.merge_repeats and self.n_held > self.limit(consumed):
            self.merge()

    def limit(self, consumed: int) -> int:
        """Edges the chunks may hold before a merge (see the module doc)."""
        return max(MERGE_MIN_EDGES, MERGE_EDGES_PER_INPUT_BYTE * consumed, 2 * self._kept)

    def merge(self) -> None:
        """Replace the chunks by one holding each distinct ``(src, dst)`` line once."""
        if len(self.chunks) == 0:
            return
        dtype = np.result_type(*(s.dtype for s, _ in self.chunks))
        src = np.concatenate([s for s, _ in self.chunks]).astype(dtype, copy=False)
        dst = np.concatenate([d for _, d in self.chunks]).astype(dtype, copy=False)
        self.chunks.clear()
        loops_before = int(np.count_nonzero(src == dst))
        src, dst = distinct_pairs(src, dst)
        loops_after = int(np.count_nonzero(src == dst))
        removed = self.n_held - src.shape[0]
        self.loops_merged += loops_before - loops_after
        self.duplicates_merged += removed - (loops_before - loops_after)
        self.chunks.append((src, dst))
        self.n_held = self._kept = int(src.shape[0])


def distinct_pairs(src, dst):
    """Each distinct ``(src[i], dst[i])`` once, sorted (ids below 2**32 pack into one key)."""
    if src.shape[0] == 0:
        return src, dst
    top = int(max(src.max(), dst.max()))
    if top < 2**32:
        keys = (src.astype(np.uint64) << np.uint64(32)) | dst.astype(np.uint64)
        keys.sort()  # NumPy's radix/SIMD sort; np.unique is far slower here (2026-11)
        keep = np.empty(keys.shape[0], dtype=bool)
        keep[0] = True
        np.not_equal(keys[1:], keys[:-1], out=keep[1:])
        keys = keys[keep]
        return ((keys >> np.uint64(32)).astype(src.dtype),
                (keys & np.uint64(0xFFFFFFFF)).astype(src.dtype))
    pairs = np.unique(np.stack([src, dst], axis=1), axis=0)
    return np.ascontiguousarray(pairs[:, 0]), np.ascontiguousarray(pairs[:, 1])


def parse_edge_text(source, out: EdgeText, *, progress=None, **grammar) -> EdgeText:
    """Parse the edge lines of ``source`` from its current position into ``out``.

    Line numbers continue from ``source.line`` (the header lines read). The
    ``grammar`` keywords are :func:`parse_chunks`'.
    """
    out.n_lines = source.line
    parse_chunks(source.path, source.chunks(progress=progress), out, **grammar)
    source.line = out.n_lines
    return out


def parse_chunks(path, chunks, out: EdgeText, *, id_min: int = 0,
                 max_src: int = _grammar.MAX_ID, max_dst: int = _grammar.MAX_ID,
                 value_kind: int = _grammar.VALUES_IGNORED, out_of_range=None,
                 value_name="value", max_entries: int | None = None, too_many=None) -> None:
    """Parse line-aligned ``chunks`` (``(uint8 array, input bytes consumed)`` pairs, as
    :meth:`~tricount.io.source.Source.chunks` yields them) of the input ``path`` into
    ``out`` with the Numba kernels, counting lines on from ``out.n_lines``.

    With ``max_entries``, a line past that many edges raises ``too_many`` (Matrix
    Market's declared entry count).
    """
    from tricount.io import _text  # Numba: loaded with the first parse, not with tricount.io

    scratch = None
    for buf, consumed in chunks:
        n_pieces = _text.pieces_for(buf.shape[0])
        size = _text.scratch_size(buf.shape[0], n_pieces)
        if scratch is None or scratch[0].shape[0] < size:
            # Reused for every chunk; pages past the lines actually parsed stay untouched.
            scratch = (np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64))
        offsets, counts, newlines, err, err_line, err_offset, max_id = _text.parse_chunk(
            buf, n_pieces, scratch[0], scratch[1], id_min, max_src, max_dst, value_kind)
        if err:
            raise edge_error(path, err, buf, err_offset, out.n_lines + err_line + 1,
                             out_of_range=out_of_range, value_name=value_name,
                             value_kind=value_kind)
        m = int(counts.sum())
        if max_entries is not None and out.n_entries + m > max_entries:
            line = _text.nth_entry_line(buf, max_entries - out.n_entries)
            raise GraphFormatError(path, too_many, line=out.n_lines + line + 1)
        out.n_lines += int(newlines)
        out.n_entries += m
        out.max_id = max(out.max_id, int(max_id))
        if m:
            # The sink calls fill(src, dst): gather the pieces into its arrays.
            fill = functools.partial(_text.gather_pieces, scratch[0], scratch[1], offsets, counts)
            out.add(m, id_dtype(max_id), fill, buf.shape[0], consumed)


def id_dtype(max_id: int):
    """int32 while the ids fit: halves the memory the chunks hold."""
    return np.int32 if max_id <= np.iinfo(np.int32).max else np.int64
