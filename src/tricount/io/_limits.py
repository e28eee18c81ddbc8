"""What an input may ask for: declared sizes against the input and the memory, and
out-of-memory as an error that names the input.

A header (Matrix Market's size line, METIS's first line) declares sizes the
reader then allocates for. :func:`check_declared` refuses, before anything is
allocated, a declaration that the rest of the input cannot hold (when its size
is known) or that the memory available cannot.
"""

from __future__ import annotations

from tricount.errors import GraphFormatError, TricountError
from tricount.prep.outofcore import available_memory

#: The largest vertex id a file holds, read or written (every reader refuses a larger one;
#: graphs in memory hold ids up to 2**64 - 1).
MAX_FILE_ID = 2**63 - 1

#: Bytes the builder allocates per declared vertex (row counts per thread, row
#: offsets, degrees, indptr, vertex ids; prep/build.py), rounded up.
BYTES_PER_VERTEX = 48


def _gib(n: int) -> str:
    return f"{n / 2**30:.1f} GiB"


def check_declared(source, *, what: str, min_bytes: int, n_vertices: int, line: int) -> None:
    """Refuse a header whose sizes the input or the memory cannot hold.

    ``what`` says what was declared ("3000000000 vertices"); ``min_bytes`` is
    the least input the declaration implies after the header.
    """
    if source.size is not None and source.compression is None:
        remaining = source.size - source.position
        if min_bytes > remaining:
            raise GraphFormatError(
                source.path, f"the header declares {what}, which take at least {min_bytes} "
                             f"bytes, but only {remaining} bytes follow: is the file truncated "
                             "or the header wrong?", line=line)
    need = BYTES_PER_VERTEX * n_vertices
    avail = available_memory()
    if avail is not None and need > avail:
        raise GraphFormatError(
            source.path, f"the header declares {what}; building the graph needs about "
                         f"{_gib(need)}, more than the {_gib(avail)} of memory available "
                         "(check the header, or use a machine with more memory)", line=line)


def out_of_memory(path) -> TricountError:
    """The error for a MemoryError while reading ``path``."""
    return TricountError(
        f"{path}: out of memory while reading the graph; free memory, convert the file once "
        "to native binary on a larger machine ('tricount convert IN OUT.tcsr'), or use a "
        "machine with more memory")


def check_file_ids(path, ids) -> None:
    """Refuse to write integer ``ids`` (host array) that a file cannot hold: past
    :data:`MAX_FILE_ID` (uint64 ids of a graph in memory), which no reader would read back
    (and a ``.tcsr`` would have stored as negative int64)."""
    if ids.dtype.kind == "u" and ids.dtype.itemsize == 8 and ids.shape[0] \
            and int(ids.max()) > MAX_FILE_ID:
        raise GraphFormatError(path, f"vertex id {int(ids.max())} is past 2**63-1 = "
                                     f"{MAX_FILE_ID}, the largest id a file holds (every "
                                     "reader refuses more); map the ids below 2**63 first")
