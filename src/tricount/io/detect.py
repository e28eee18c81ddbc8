"""Which parser an input needs: the name's extension, confirmed by the content.

The extension (after any compression suffix) proposes a format; a content
signature, read from the bytes the :class:`~tricount.io.source.Source` keeps
(never by reopening), overrides it when the two disagree, because magic
numbers do not lie and a misnamed file read by the wrong parser would give a
wrong graph (a Matrix Market size line read as an edge, say). A Matrix Market
banner is recognised after any leading blank lines. Inputs with no known
extension and no signature (standard input, say) are edge lists, unless their
first lines have a header, a comma or semicolon, or vertex names: then they
are delimited tables (``csv``, :mod:`tricount.io.delimited`). METIS has no
signature, so only its extension (or ``format="metis"``) selects it.
"""

from __future__ import annotations

import os

from tricount.errors import GraphFormatError
from tricount.io.source import COMPRESSION_SUFFIXES, Source

#: Canonical format names, in the order ``tricount info`` documents them.
FORMATS = ("snap", "csv", "graphchallenge", "matrix-market", "metis", "numpy", "native",
           "parquet", "arrow")

ALIASES = {
    "auto": "auto", "snap": "snap", "edgelist": "snap", "edge-list": "snap", "el": "snap",
    "txt": "snap", "graphchallenge": "graphchallenge", "tsv": "graphchallenge",
    "matrix-market": "matrix-market", "matrixmarket": "matrix-market", "mtx": "matrix-market",
    "mmio": "matrix-market", "mm": "matrix-market", "metis": "metis", "graph": "metis",
    "dimacs10": "metis", "numpy": "numpy", "npy": "numpy", "npz": "numpy", "native": "native",
    "tcsr": "native", "binary": "native", "csv": "csv", "delimited": "csv",
    "parquet": "parquet", "pq": "parquet", "arrow": "arrow", "feather": "arrow", "ipc": "arrow",
}

EXTENSIONS = {
    ".tcsr": "native", ".mtx": "matrix-market", ".mmio": "matrix-market", ".mm": "matrix-market",
    ".graph": "metis", ".metis": "metis", ".npy": "numpy", ".npz": "numpy", ".txt": "snap",
    ".el": "snap", ".wel": "snap", ".edges": "snap", ".edgelist": "snap", ".snap": "snap",
    ".tsv": "snap", ".csv": "csv", ".parquet": "parquet", ".pq": "parquet",
    ".arrow": "arrow", ".feather": "arrow", ".ipc": "arrow",
}

NATIVE_MAGIC = b"\x89TCSR\r\n\x1a"

#: Formats whose every file starts with a header or a signature: an input of no bytes at
#: all in one of them is a truncated file (an interrupted download or copy), never the
#: empty graph. An empty edge list or table is the empty graph.
HEADED_FORMATS = {"native": "a .tcsr file starts with its header",
                  "numpy": "a NumPy file starts with its header",
                  "parquet": "a Parquet file starts with its signature",
                  "arrow": "an Arrow file starts with its signature",
                  "matrix-market": "a Matrix Market file starts with its banner line",
                  "metis": "a METIS file starts with its header line"}


def strip_compression(name: str) -> str:
    for suffix in COMPRESSION_SUFFIXES:
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name


def format_from_name(path) -> str | None:
    name = strip_compression(os.path.basename(os.fspath(path))).lower()
    ext = os.path.splitext(name)[1]
    fmt = EXTENSIONS.get(ext)
    if ext == ".tsv" and name.endswith("_adj.tsv"):
        return "graphchallenge"
    return fmt


def format_from_content(head: bytes, first_content: bytes) -> str | None:
    """The format a signature names: ``head`` is the data's start, ``first_content``
    its first bytes after leading blank lines."""
    if head.startswith(NATIVE_MAGIC):
        return "native"
    if head.startswith(b"\x93NUMPY") or head.startswith(b"PK\x03\x04"):
        return "numpy"
    if first_content[:14].lower() == b"%%matrixmarket":
        return "matrix-market"
    if head.startswith(b"PAR1"):
        return "parquet"
    if head.startswith(b"ARROW1") or head.startswith(b"\xff\xff\xff\xff"):
        return "arrow"
    return None


def format_to_read(fmt: str, source: Source) -> str:
    """``fmt`` (resolved), or ``"empty"`` for an input of no bytes in an edge-list format;
    raises :class:`GraphFormatError` for no bytes in one of :data:`HEADED_FORMATS`."""
    if source.peek(1):
        return fmt
    if fmt in HEADED_FORMATS:
        raise GraphFormatError(source.path, f"is empty (0 bytes), but {HEADED_FORMATS[fmt]} "
                                            "(an incomplete download or copy?)")
    return "empty"


def resolve_format(fmt: str, source: Source) -> str:
    """The reader for ``source``: ``fmt`` unless it is ``auto``, else name + content."""
    key = str(fmt).lower()
    if key not in ALIASES:
        raise GraphFormatError(source.path, f"unknown format {fmt!r}; expected auto or one of "
                                            f"{', '.join(FORMATS)}")
    key = ALIASES[key]
    if key != "auto":
        return key
    name = os.path.basename(source.path).lower()
    if "_inc." in name and name.endswith(tuple(f".tsv{s}" for s in ("", *COMPRESSION_SUFFIXES))):
        raise GraphFormatError(source.path, "is a GraphChallenge incidence file "
                                            "(vertex, edge id); read the matching *_adj.tsv "
                                            "adjacency file instead")
    by_content = format_from_content(source.peek(16), source.first_content())
    by_name = format_from_name(source.path)
    if by_content is None and by_name in (None, "snap", "csv"):
        # A header, a comma or names make an edge list a delimited table.
        from tricount.io.delimited import sniff

        if sniff(source.head(), named=by_name == "csv") is not None:
            return "csv"
    return by_content or by_name or "snap"
