"""Drive the text kernels over a file, chunk by chunk, and turn error codes into messages."""

from __future__ import annotations

import functools

import numpy as np

from tricount.errors import GraphFormatError
from tricount.io import _text
from tricount.io._source import stream_chunks


def token_at(buf, offset: int) -> str:
    """The whitespace-delimited token starting at ``offset`` (at most 40 bytes)."""
    end = offset
    n = buf.shape[0]
    while end < n and end - offset < 40 and buf[end] not in (32, 9, 10, 13):
        end += 1
    return bytes(buf[offset:end]).decode("utf-8", errors="replace")


def edge_error(path, code: int, buf, offset: int, line: int, *, out_of_range=None,
               value_name="value") -> GraphFormatError:
    token = token_at(buf, offset)
    if code == _text.ERR_NOT_A_NUMBER:
        message = f"expected a non-negative integer vertex id, found {token!r}"
    elif code == _text.ERR_NEGATIVE:
        message = f"vertex ids must be non-negative, found {token!r}"
    elif code == _text.ERR_TOO_LARGE:
        message = f"vertex id {token!r} is larger than 2**63-1 = {_text.MAX_ID}"
    elif code == _text.ERR_ONE_COLUMN:
        message = "expected two vertex ids (source and target), found one column"
    elif code == _text.ERR_OUT_OF_RANGE:
        message = (out_of_range or "vertex id {token} is out of range").format(token=token)
    else:
        message = f"expected a {value_name} in the third column, found only two columns"
    return GraphFormatError(path, message, line=line)


class EdgeText:
    """The parsed edge lines of a text file, as chunks of ``(src, dst)`` id arrays.

    Readers hand each parsed chunk to :meth:`add`; a subclass may keep the
    edges elsewhere (:class:`tricount.io.gpu_stream.DeviceEdges` copies them
    to the GPU as they come).
    """

    def __init__(self):
        self.chunks = []
        self.max_id = -1
        self.n_lines = 0  # newlines read, so the last line is n_lines + 1
        self.n_entries = 0

    def add(self, m: int, dtype, fill, chunk_bytes: int = 0) -> None:
        """Take ``m`` edges: ``fill(src, dst)`` writes them into two arrays of ``m``.

        ``dtype`` is the narrowest type holding the chunk's ids; a sink may
        hand ``fill`` wider arrays. ``chunk_bytes``: the text they came from.
        """
        src, dst = np.empty(m, dtype=dtype), np.empty(m, dtype=dtype)
        fill(src, dst)
        self.chunks.append((src, dst))


def parse_edge_text(path, *, skip: int = 0, line_base: int = 0, id_min: int = 0,
                    max_src: int = _text.MAX_ID, max_dst: int = _text.MAX_ID,
                    min_cols: int = 2, out_of_range=None, value_name="value",
                    max_entries: int | None = None, too_many=None,
                    progress=None, out: EdgeText | None = None) -> EdgeText:
    """Parse the edge lines of ``path`` (after ``skip`` bytes, ``line_base`` lines).

    ``max_entries`` stops at the first line past that many edges with the
    message ``too_many`` (for Matrix Market's declared entry count). The edges
    go to ``out`` (a new :class:`EdgeText` by default), which is returned.
    """
    out = EdgeText() if out is None else out
    out.n_lines = line_base
    first = skip == 0
    scratch = None
    for buf, _ in stream_chunks(path, skip=skip, progress=progress):
        if first:
            first = False
            if bytes(buf[:3]) == b"\xef\xbb\xbf":  # a UTF-8 byte-order mark
                buf = buf[3:]
        n_pieces = _text.pieces_for(buf.shape[0])
        size = _text.scratch_size(buf.shape[0], n_pieces)
        if scratch is None or scratch[0].shape[0] < size:
            # Reused for every chunk; pages past the lines actually parsed stay untouched.
            scratch = (np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64))
        offsets, counts, newlines, err, err_line, err_offset, max_id = _text.parse_chunk(
            buf, n_pieces, scratch[0], scratch[1], id_min, max_src, max_dst, min_cols)
        if err:
            raise edge_error(path, err, buf, err_offset, out.n_lines + err_line + 1,
                             out_of_range=out_of_range, value_name=value_name)
        m = int(counts.sum())
        if max_entries is not None and out.n_entries + m > max_entries:
            line = _text.nth_entry_line(buf, max_entries - out.n_entries)
            raise GraphFormatError(path, too_many, line=out.n_lines + line + 1)
        out.n_lines += int(newlines)
        out.n_entries += m
        out.max_id = max(out.max_id, int(max_id))
        if m:
            # int32 while ids fit: halves the memory the chunks hold.
            dtype = np.int32 if max_id <= np.iinfo(np.int32).max else np.int64
            # The sink calls fill(src, dst): gather the pieces into its arrays.
            fill = functools.partial(_text.gather_pieces, scratch[0], scratch[1], offsets, counts)
            out.add(m, dtype, fill, buf.shape[0])
    return out


def concatenate(chunks):
    """All chunks as two int64 arrays."""
    if not chunks:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return (np.concatenate([s for s, _ in chunks]).astype(np.int64, copy=False),
            np.concatenate([d for _, d in chunks]).astype(np.int64, copy=False))
