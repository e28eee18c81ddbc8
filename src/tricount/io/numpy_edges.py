"""NumPy ``.npy`` / ``.npz`` edge arrays.

``.npy``: one integer array of shape ``(m, 2)`` (a row per edge) or ``(2, m)``
(sources, then targets); ``(2, 2)`` is read as two rows. ``.npz``: arrays named
``src`` and ``dst`` (or ``row`` and ``col``, or ``edges``, or a single array of
either shape), or a SciPy sparse matrix saved with ``scipy.sparse.save_npz``
(its stored non-zeros are the edges, as in :meth:`CSRGraph.from_scipy`). Ids
are any non-negative integers; floats must be whole numbers. Pickled object
arrays are refused (``allow_pickle=False``): loading a graph never runs code.

The input is read once from its :class:`~tricount.io.source.Source`: a plain
``.npy`` file's array is a view of its map (no copy), anything else (a pipe, a
compressed file, a ``.npz``) is read into memory first.
"""

from __future__ import annotations

import io
import math
import tokenize
import zipfile
import zlib

import numpy as np

from tricount.errors import GraphFormatError, InvalidEdgesError
from tricount.prep.canonical import validate_edge_arrays

NPY_MAGIC = b"\x93NUMPY"
_PAIRS = (("src", "dst"), ("row", "col"), ("source", "target"), ("u", "v"))
_SCIPY_KEYS = {"format", "shape"}
#: What NumPy's and zipfile's readers raise on a malformed file (a header's text that does
#: not parse raises tokenize's error, a member compressed by an unknown method
#: NotImplementedError, corrupt deflate data zlib's).
_LOAD_ERRORS = (ValueError, OSError, EOFError, KeyError, zipfile.BadZipFile, TypeError,
                OverflowError, NotImplementedError, tokenize.TokenError, zlib.error)


def _npy(data):
    """The array of ``.npy`` bytes ``data``, a view of them (no copy)."""
    f = io.BytesIO(bytes(data[: min(len(data), 1 << 20)]))  # the header is at most ~4 GiB
    version = np.lib.format.read_magic(f)  # in theory, 64 KiB in practice
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
    else:
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
    if dtype.hasobject:
        raise ValueError("object arrays are not edge ids (and would need pickle)")
    if any(d < 0 for d in shape):  # frombuffer would read to the end, reshape infer a -1
        raise ValueError(f"its header declares the shape {shape}")
    count = math.prod(shape)
    if count * dtype.itemsize > len(data) - f.tell():
        raise ValueError(f"its header declares {count} values of shape {shape}, more than "
                         "the file holds (truncated?)")
    arr = np.frombuffer(data, dtype=dtype, count=count, offset=f.tell())
    return arr.reshape(shape, order="F" if fortran else "C")


def _open(source):
    """The array of a .npy input, or the ``NpzFile`` of a .npz one (read once)."""
    data = source.read_rest()
    try:
        if bytes(data[:6]) == NPY_MAGIC:
            return _npy(data)
        return np.load(io.BytesIO(data), allow_pickle=False)
    except _LOAD_ERRORS as exc:
        why = str(exc)
        if "allow_pickle" in why:  # NumPy's hint would have the user run the file's code
            why = "it holds Python objects, not numbers, or is not NumPy's format at all"
        raise GraphFormatError(source.path, f"is not a readable NumPy .npy/.npz file ({why})") \
            from None


def _split(path, arr, what):
    """(src, dst) of an (m, 2) or (2, m) array."""
    if arr.ndim != 2 or 2 not in arr.shape:
        raise GraphFormatError(path, f"{what} has shape {arr.shape}; expected (m, 2) edge rows "
                                     "or (2, m) sources and targets")
    if arr.shape[1] == 2:
        return arr[:, 0], arr[:, 1]
    return arr[0], arr[1]


def read_numpy(source):
    """Edge arrays of a .npy/.npz input: ``((src, dst), n_vertices or None)``."""
    path = source.path
    loaded = _open(source)
    if isinstance(loaded, np.ndarray):
        src, dst = _split(path, loaded, "the array")
        return _checked(path, src, dst), None
    with loaded as npz:
        keys = set(npz.files)
        try:
            if _SCIPY_KEYS <= keys:
                return _scipy_edges(path, npz)
            held = [f"{a}/{b}" for a, b in _PAIRS if {a, b} <= keys] + \
                (["edges"] if "edges" in keys else [])
            if len(held) > 1:  # two readings of one file, maybe two graphs: not ours to pick
                raise GraphFormatError(path, f"holds the edges twice over ({' and '.join(held)})"
                                             "; save one of them")
            for a, b in _PAIRS:
                if {a, b} <= keys:
                    return _checked(path, npz[a], npz[b]), None
            if "edges" in keys or len(keys) == 1:
                name = "edges" if "edges" in keys else next(iter(keys))
                src, dst = _split(path, npz[name], f"array {name!r}")
                return _checked(path, src, dst), None
        except GraphFormatError:
            raise  # names the file already
        except _LOAD_ERRORS as exc:
            raise GraphFormatError(path, f"cannot read the arrays ({exc})") from None
    raise GraphFormatError(path, f"holds arrays {sorted(keys)}; expected 'src' and 'dst' "
                                 "(or 'row' and 'col', or 'edges', or one array)")


def _checked(path, src, dst):
    try:
        src, dst = validate_edge_arrays(np.asarray(src), np.asarray(dst))
    except InvalidEdgesError as exc:
        raise GraphFormatError(path, str(exc)) from None
    if src.dtype == np.uint64:  # an id past 2**63-1: a file's ids are int64, as every reader's
        big = max(int(src.max()), int(dst.max()))
        raise GraphFormatError(path, f"holds the vertex id {big}; a file's ids are at most "
                                     f"2**63-1 = {2**63 - 1}")
    return src, dst


def _scipy_edges(path, npz):
    fmt = npz["format"].item()
    fmt = fmt.decode() if isinstance(fmt, bytes) else str(fmt)
    shape = tuple(int(x) for x in npz["shape"])
    if len(shape) != 2 or shape[0] != shape[1]:
        raise GraphFormatError(path, f"holds a {shape} sparse matrix; an adjacency matrix must "
                                     "be square")
    n = shape[0]
    if fmt == "coo":
        row, col = np.asarray(npz["row"]), np.asarray(npz["col"])
    elif fmt in ("csr", "csc"):
        indptr, indices = np.asarray(npz["indptr"]), np.asarray(npz["indices"])
        if (indptr.ndim != 1 or indptr.shape[0] != n + 1 or indptr[0] != 0
                or np.any(np.diff(indptr) < 0) or indptr[-1] != indices.shape[0]):
            raise GraphFormatError(path, f"holds a {fmt} matrix with an invalid indptr")
        major = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
        row, col = (major, indices) if fmt == "csr" else (indices, major)
    else:
        raise GraphFormatError(path, f"holds a SciPy {fmt!r} matrix; expected coo, csr or csc")
    # Every stored entry is an edge, a stored zero too (as CSRGraph.from_scipy and the
    # in-memory matrix: scipy.sparse.save_npz keeps them).
    src, dst = _checked(path, row, col)
    if src.shape[0] and int(max(src.max(), dst.max())) >= n:
        raise GraphFormatError(path, f"has an index outside the {n} x {n} matrix")
    return (src, dst), n
