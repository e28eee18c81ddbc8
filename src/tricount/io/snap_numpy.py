"""SNAP edge lists read with NumPy alone: the parser of a first run, which compiles nothing.

The lines and the graph are exactly those of the Numba parser
(:mod:`tricount.io.snap` through :mod:`tricount.io._text`): a line ends at LF,
CR LF or a lone CR; blank lines and lines whose first non-blank byte is ``#``
or ``%`` are skipped; any other line holds two non-negative decimal ids
(leading zeros allowed), each followed by a blank (space or tab) or the line's
end, and anything after the second id is ignored. Each line-aligned chunk of
the :class:`~tricount.io.source.Source` is cut into blocks of whole lines
(:data:`BLOCK_BYTES`), and each block is read with whole-array operations:

1. bytes are *separators* (space, tab, LF, CR) or not; a *token* is a maximal
   run of non-separators; a token is the first of its line when an LF lies in
   the separators before it;
2. a line's first token decides it: ``#`` or ``%`` first makes a comment,
   anything else an edge line, whose ids are its first two tokens;
3. an id token must be all digits and at most 18 long (so it fits int64
   without a check); eight digits are converted at once, from one unaligned
   eight-byte load ending at the token's end (SWAR, as :mod:`tricount.io._swar`
   does per token in Numba), every token of the block together.

A block it cannot read exactly -- a lone CR, a control byte, an edge line with
one token, an id token holding anything but digits, an id of 19 digits or more
-- goes, with the rest of its chunk and every later chunk, to the Numba parser
(:func:`tricount.io._parse.parse_chunks`), which reads the same bytes (the
chunk in hand: nothing is read twice, a pipe neither) and reports a malformed
line with its file and line number, as it would have alone. The blocks before
it hold only lines both parsers read alike, and the line count carries over,
so the graph, the counts of loops and repeats, and every error are the Numba
parser's.

Memory: the source's chunk, and one block's temporaries (up to 40 bytes per
byte of the block, when every other byte starts a token). Past
:data:`NUMPY_PARSE_MAX_BYTES` of text the rest goes to the Numba parser too,
and :func:`tricount.io.read_graph` builds the graph with :mod:`tricount.prep.build`:
the NumPy build (:func:`tricount.prep.canonical.upper_csr_of_chunks`) holds
every line at once, 40-100 bytes each.
"""

from __future__ import annotations

import itertools

import numpy as np

from tricount.io._grammar import (ASCII_ZEROS as _ZEROS, BIT4 as _BIT4, CR as _CR,
                                  HASH as _HASH, HIGH_NIBBLES as _HIGH, LF as _LF,
                                  LOW_NIBBLES as _LOW, NUMPY_PARSE_MAX_BYTES, PAIRS as _PAIRS,
                                  PERCENT as _PERCENT, QUADS as _QUADS, SIXES as _SIXES,
                                  SPACE as _SPACE, TAB as _TAB, ZERO as _ZERO)
from tricount.io._parse import Declared, EdgeText, id_dtype

__all__ = ["NUMPY_PARSE_MAX_BYTES", "read", "parse_block"]

#: Bytes parsed per NumPy pass (whole lines): the temporaries, up to 40 bytes per byte
#: of text, stay in the cache and under 3 MB (64 KiB: the fastest of 32 KiB - 16 MiB on
#: soc-Epinions1, 2026-11-26).
BLOCK_BYTES = 1 << 16
#: Longest id token converted here: 18 digits never overflow int64 (the Numba parser
#: reads longer ones, up to 2**63 - 1).
MAX_DIGITS = 18

_U = np.uint64
#: Eight digit bytes as one little-endian word, first digit lowest: with the masks the
#: Numba parser uses (:mod:`tricount.io._grammar`), the multipliers that pair digits, then
#: pairs, then quads in three multiply-shifts (each step's lanes never carry into the next).
_TIMES_10, _TIMES_100, _TIMES_10000 = _U(10 << 8 | 1), _U(100 << 16 | 1), _U(10000 << 32 | 1)
#: ``_KEEP[k]``: the top ``k`` bytes of a word, the last ``k`` of the text (``k`` = 0 .. 8).
_KEEP = np.array([0] + [(2**64 - 1) << (8 * (8 - k)) & (2**64 - 1) for k in range(1, 9)],
                 dtype=_U)
#: The same, as digit nibbles: the bytes left of a token read as leading zeros.
_KEEP_LOW = _KEEP & _LOW


def read(source, out: EdgeText, *, progress=None,
         max_bytes: int | None = None) -> Declared:
    """Parse a SNAP edge list into ``out`` (an ``EdgeText``), as :func:`tricount.io.snap.read`.

    ``max_bytes`` (default :data:`NUMPY_PARSE_MAX_BYTES`): text parsed here at most;
    the chunk that passes it and every later one go to the Numba parser.
    """
    limit = NUMPY_PARSE_MAX_BYTES if max_bytes is None else max_bytes  # read at call time
    out.n_lines = source.line
    chunks = source.chunks(progress=progress)
    seen = 0
    for buf, consumed in chunks:
        seen += buf.shape[0]
        rest = _read_chunk(buf, consumed, out) if seen <= limit else buf
        if rest is not None:  # the Numba parser takes over, from these lines on
            from tricount.io._parse import parse_chunks

            parse_chunks(source.path, itertools.chain([(rest, consumed)], chunks), out)
            break
    source.line = out.n_lines
    return Declared()


def _read_chunk(buf, consumed: int, out: EdgeText):
    """Parse a chunk block by block into ``out``; None, or the lines from the first block
    that needs the Numba parser on (a view of ``buf``)."""
    for start, stop in _blocks(buf):
        parsed = parse_block(buf[start:stop])
        if parsed is None:
            return buf[start:]
        src, dst, line_ends, max_id = parsed
        out.n_lines += line_ends
        out.n_entries += src.shape[0]
        out.max_id = max(out.max_id, max_id)
        if src.shape[0]:
            out.add(src.shape[0], id_dtype(max_id), _filler(src, dst), stop - start, consumed)
    return None


def _blocks(buf):
    """``(start, stop)`` of line-aligned blocks of about :data:`BLOCK_BYTES` covering ``buf``
    (a whole line where one is longer). Each ends just after an LF, or at the end of ``buf``:
    a CR LF is never split, and a lone CR is left for :func:`parse_block` to see."""
    n = buf.shape[0]
    start = 0
    while start < n:
        stop = start + BLOCK_BYTES
        look = 256
        while stop < n:
            found = np.flatnonzero(buf[stop:stop + look] == _LF)
            if found.shape[0]:
                stop += int(found[0]) + 1
                break
            stop += look
            look *= 2
        stop = min(stop, n)
        yield start, stop
        start = stop


def _filler(src, dst):
    def fill(s, d):
        np.copyto(s, src, casting="unsafe")  # ids fit the sink's dtype: it is chosen by max_id
        np.copyto(d, dst, casting="unsafe")
    return fill


def parse_block(buf):
    """``(src, dst, line_ends, max_id)`` of a buffer of whole lines (int64 ids), or None
    when a line needs the Numba parser (see the module doc).

    ``line_ends`` counts the line ends read, as the Numba parser counts them.

    >>> text = b"# a triangle\\n1 2\\n2\\t3 7.5\\r\\n\\n  3 1"
    >>> src, dst, line_ends, max_id = parse_block(np.frombuffer(text, dtype=np.uint8))
    >>> src.tolist(), dst.tolist(), line_ends, max_id
    ([1, 2, 3], [2, 3, 1], 4, 3)
    >>> parse_block(np.frombuffer(b"1 2\\r3 4\\n", dtype=np.uint8)) is None  # a lone CR
    True
    """
    n = buf.shape[0]
    empty = np.zeros(0, dtype=np.int64)
    if n == 0:
        return empty, empty, 0, -1
    n_cr = int(np.count_nonzero(buf == _CR))
    if n_cr:
        crs = np.flatnonzero(buf == _CR)
        if crs[-1] == n - 1 or (buf[crs + 1] != _LF).any():
            return None  # a lone CR ends a line too: the Numba parser reads those
    lfs = np.flatnonzero(buf == _LF)
    sep = buf <= _SPACE  # the separators, and control bytes, which must not be there:
    n_sep = int(np.count_nonzero(sep))
    n_blank = int(np.count_nonzero(buf == _SPACE)) + int(np.count_nonzero(buf == _TAB))
    if n_sep != n_blank + lfs.shape[0] + n_cr:
        return None  # a control byte, which no id may hold but this split would cut at
    # Only digits and separators (no comment, no word, no sign): no token needs checking.
    plain = n_sep + int(np.count_nonzero((buf - np.uint8(_ZERO)) < 10)) == n
    # Token boundaries alternate: a start (separator to not), an end (not to separator).
    bounds = np.flatnonzero(np.diff(sep.view(np.int8)))
    bounds += 1
    if not sep[0]:
        bounds = np.concatenate(([0], bounds))
    if not sep[-1]:
        bounds = np.append(bounds, n)
    del sep
    starts, ends = bounds[0::2], bounds[1::2]
    n_tokens = starts.shape[0]
    if n_tokens == 0:
        return empty, empty, lfs.shape[0], -1
    # A token is first on its line when an LF precedes it in its separator run (or it
    # is the buffer's first: the buffer starts a line).
    first = np.zeros(n_tokens + 1, dtype=np.bool_)
    first[0] = True
    first[np.searchsorted(starts, lfs)] = True
    heads = np.flatnonzero(first[:n_tokens])
    if not plain:
        lead = buf[starts[heads]]
        heads = heads[(lead != _HASH) & (lead != _PERCENT)]  # not comments: edge lines
        if heads.shape[0] == 0:
            return empty, empty, lfs.shape[0], -1
    second = heads + 1
    if second[-1] >= n_tokens or first[second].any():
        return None  # an edge line with one column: the Numba parser says where
    padded = np.empty(n + 8, dtype=np.uint8)  # words ending before byte 8 read zeros...
    padded[:8] = _ZERO  # ...that read as leading zeros
    padded[8:] = buf
    # words[e]: the eight bytes before buf[e], one unaligned little-endian load each.
    words = np.ndarray((n + 1,), dtype="<u8", buffer=padded, strides=(1,))
    src = _values(words, starts[heads], ends[heads], plain)
    dst = None if src is None else _values(words, starts[second], ends[second], plain)
    if dst is None:
        return None
    max_id = int(max(src.max(), dst.max()))
    return src, dst, lfs.shape[0], max_id


def _values(words, starts, ends, digits_only: bool):
    """The value of each token ``buf[starts[i]:ends[i]]`` (``words`` as in
    :func:`parse_block`), or None when one is longer than :data:`MAX_DIGITS` or (unless
    ``digits_only`` says the text holds no other byte) holds anything but digits. Eight
    digits per step, from the right."""
    length = ends - starts
    longest = int(length.max())
    if longest > MAX_DIGITS:
        return None
    value = None
    for shift in range(0, longest, 8):
        part = np.minimum(length - shift, 8) if shift else np.minimum(length, 8)
        if shift:
            np.maximum(part, 0, out=part)
        word = words[ends - shift] if shift else words[ends]
        if not digits_only:
            keep = _KEEP[part]
            check = (word & keep) | (_ZEROS & ~keep)  # the bytes left of it: zeros
            if (((check & _HIGH) ^ _ZEROS) | (((check & _LOW) + _SIXES) & _BIT4)).any():
                return None  # a byte that is not a digit
        word &= _KEEP_LOW[part]
        word *= _TIMES_10
        word >>= _U(8)
        word &= _PAIRS
        word *= _TIMES_100
        word >>= _U(16)
        word &= _QUADS
        word *= _TIMES_10000
        word >>= _U(32)
        if value is None:
            value = word
        else:
            word *= _U(100_000_000) ** _U(shift // 8)
            value += word
    return value.view(np.int64)  # below 10**18
