"""Any graph a user holds, as a tricount graph: the one adapter of every public function.

    CSRGraph ─────────────────────────────────────────────────────────▶ as it is
    path (str, os.PathLike) ─io.read_graph (io.read_edges for arcs)──▶ CSRGraph
    NetworkX graph, igraph graph ───nodes and edges, an edge attribute──┐
    scipy.sparse matrix or array ───the stored entries, row -> column───┤
    pandas / pyarrow / polars table, dict of columns ─two columns────────┤
    (src, dst[, weights]), (m, 2) array, list of pairs ──────────────────┼─▶ Arcs ─prep─▶ CSRGraph
    CuPy, __cuda_array_interface__, DLPack on a GPU ─kept on the device──┘

An :class:`Arcs` is the input's edges as arrays, in one of two kinds of id:
*raw* ids (integers the user chose; the vertices are the ids that occur, or
every id ``0 .. max`` with ``vertices="range"``) or *compact* indices
``0 .. n_vertices - 1`` with every index a vertex (NetworkX nodes, igraph
vertices, matrix rows, string names), ``labels[i]`` naming index ``i``. The
graph built from it (:func:`as_graph`) keeps the user's ids in
``vertex_ids``, so every result can be keyed back the user's way.

Table columns: ``source``/``target``, ``src``/``dst`` or ``u``/``v`` (any
case), else the only two columns (besides the weight column); a dict must
name its columns so, since a dict of two keys may as well be adjacency lists
(``{0: [1, 2], 1: [2, 0]}``), another graph. Columns of
strings are vertex *names*: mapped to compact ids in sorted order and back in
every output. A tuple of two (or three) sequences is ``(src, dst[, weights])``;
a list is a list of pairs (or triples). Device arrays (CuPy, anything with
``__cuda_array_interface__``, DLPack on a CUDA device) are viewed with CuPy,
never copied to the host: the graph is built on the GPU, where the GPU
backend counts it.
"""

from __future__ import annotations

import itertools
import numbers
import os
import time
from dataclasses import dataclass

import numpy as np

from tricount._frame_columns import (COLUMN_PAIRS, host_column, module_of as _module_of,
                                     table_columns)
from tricount.errors import (InvalidArgumentError, InvalidEdgesError, TricountError,
                             UnsupportedGraphError, check_choice)
from tricount.graph import CSRGraph
from tricount.prep.canonical import MAX_VERTICES, validate_edge_arrays
from tricount.prep.xp import array_namespace, to_host

__all__ = ["Arcs", "ACCEPTED", "VERTICES", "COLUMN_PAIRS", "read_arcs", "as_graph",
           "graph_and_arcs", "id_columns", "span_ids", "is_networkx", "label_array",
           "networkx_arcs"]

#: What every public function takes as ``graph``, said by the error for anything else.
ACCEPTED = ("a tricount.Graph; a file path; a NetworkX or igraph graph; a SciPy sparse "
            "matrix or array; a pandas, pyarrow or polars table (source/target, src/dst, "
            "u/v, or exactly two columns) or a dict of such named columns; a (src, dst) tuple of "
            "arrays; an (m, 2) array or a list of pairs; a CuPy array, or anything with "
            "__cuda_array_interface__ or __dlpack__")
#: The vertex conventions of an edge list: the ids that occur in an edge, or every id
#: ``0 .. max id`` (igraph's and graph-tool's reading of an edge list).
VERTICES = ("edges", "range")
#: DLPack device types CuPy can view: kDLCUDA, kDLCUDAManaged.
_DLPACK_CUDA = (2, 13)


@dataclass
class Arcs:
    """An input's edges as arrays (see the module doc for the two kinds of id).

    ``src``/``dst`` are raw ids when ``n_vertices`` is None, else compact
    indices below it; ``labels`` (with ``n_vertices``) names each index;
    ``weights`` holds one float per arc (None: unweighted); ``directed`` is
    True when the object says its edges are arcs (a NetworkX ``DiGraph``, a
    directed igraph graph).
    """

    src: object
    dst: object
    n_vertices: int | None = None
    labels: object = None
    weights: object = None
    directed: bool = False


def is_networkx(obj) -> bool:
    """Whether ``obj`` looks like a NetworkX graph (without importing NetworkX)."""
    return hasattr(obj, "is_directed") and hasattr(obj, "adj") and hasattr(obj, "nodes")


def label_array(labels) -> np.ndarray:
    """Labels as an int64 array when all are integers in ``0 .. 2**63-1``, else an object
    array (as :meth:`CSRGraph.from_networkx` keeps node labels)."""
    labels = list(labels)
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
           and 0 <= v < 2**63 for v in labels):
        return np.array(labels, dtype=np.int64)
    out = np.empty(len(labels), dtype=object)
    out[:] = labels
    return out


# -- each kind of object -------------------------------------------------------------------


def networkx_arcs(G, weight=None) -> Arcs:
    """The :class:`Arcs` of a NetworkX graph: every node a vertex, in node order (its label
    in ``labels``), each edge as ``G.edges()`` lists it, ``weight`` its attribute (1 where
    absent)."""
    return _networkx(G, weight)


def _networkx(G, weight) -> Arcs:
    nodes = list(G)
    index = {node: i for i, node in enumerate(nodes)}
    m = G.number_of_edges()
    ends = np.fromiter(itertools.chain.from_iterable((index[u], index[v]) for u, v in G.edges()),
                       dtype=np.int64, count=2 * m).reshape(m, 2)
    weights = None
    if weight is not None:
        _check_name(weight, "NetworkX edge attribute")
        weights = _real_weights([d.get(weight, 1) for _, _, d in G.edges(data=True)])
    return Arcs(ends[:, 0], ends[:, 1], n_vertices=len(nodes), labels=label_array(nodes),
                weights=weights, directed=G.is_directed())


def _igraph(G, weight) -> Arcs:
    ends = np.array(G.get_edgelist(), dtype=np.int64).reshape(-1, 2)
    labels = None
    if "name" in G.vs.attributes():
        names = G.vs["name"]
        # Results are keyed by name: two vertices of one name (or of none, as add_vertices
        # leaves them) would be one key, their values merged.
        if any(name is None for name in names) or len(set(names)) < len(names):
            raise InvalidEdgesError(
                "the igraph graph's vertex names key the results, and some are missing "
                "(None) or repeated; name every vertex once, or delete the attribute "
                "(del G.vs['name']) to key them by index")
        labels = label_array(names)
    weights = None
    if weight is not None:
        _check_name(weight, "igraph edge attribute")
        if weight not in G.es.attributes():
            raise InvalidArgumentError(f"weight: the igraph graph has no edge attribute "
                                       f"{weight!r}; it has {G.es.attributes()}")
        weights = _real_weights([1.0 if w is None else w for w in G.es[weight]])
    return Arcs(ends[:, 0], ends[:, 1], n_vertices=G.vcount(), labels=labels, weights=weights,
                directed=G.is_directed())


def _scipy(matrix, weight) -> Arcs:
    if len(matrix.shape) != 2 or matrix.shape[0] != matrix.shape[1]:
        raise InvalidEdgesError(f"an adjacency matrix must be square, got shape {matrix.shape}")
    coo = matrix.tocoo()  # every stored entry is an edge, a stored zero too (as NetworkX)
    weights = _real_weights(coo.data) if weight is not None else None
    return Arcs(coo.row, coo.col, n_vertices=int(matrix.shape[0]), weights=weights)


def _table_columns(table):
    """``(names, get)``: a table's column names and a function from a name to a host array."""
    kind = _module_of(table)
    if kind in ("pandas", "pyarrow", "polars"):
        return table_columns(table, kind)
    return list(table), lambda c: _dict_column(table[c])  # a dict of columns


def _dict_column(values):
    """A dict's column as a host array: Python ints kept exact, a mask checked (before
    ``np.asarray``, which would drop it)."""
    if isinstance(values, list):
        return _list_column(values)
    host = host_column(values, "a column")
    return host if host is not None else np.asarray(_unmasked(values))


def _list_column(values: list) -> np.ndarray:
    """A list of ids or names as an array: Python ints kept exact (:func:`_int_list`); a
    list mixing numbers and text, or str and bytes, refused (NumPy would turn every item
    into text, and 1 and "1", or b"a" and "a", would be one vertex)."""
    a = _int_list(values)
    if a.dtype.kind in "US" and not (all(isinstance(x, str) for x in values)
                                     or all(isinstance(x, bytes) for x in values)):
        raise InvalidEdgesError("vertex names must be all strings or all integers, got a mix")
    return a


def _pick_columns(names, weight, *, any_two: bool = True):
    """The edge columns: a pair of :data:`COLUMN_PAIRS`, else (``any_two``) the two columns
    besides the weight's."""
    lowered = {str(name).lower(): name for name in names}
    for a, b in COLUMN_PAIRS:
        if a in lowered and b in lowered:
            return lowered[a], lowered[b]
    named = ", ".join(f"{a}/{b}" for a, b in COLUMN_PAIRS)
    if not any_two:
        # {0: [1, 2], 1: [2, 0]} is an adjacency dict as often as a table: read as the
        # columns "0" and "1" it would be another graph, with another count.
        raise InvalidEdgesError(
            f"a dict is read as a table of edge columns named {named}; got keys "
            f"{names[:4]}{' ...' if len(names) > 4 else ''}. For a dict of adjacency lists "
            "pass networkx.Graph(d), or the edges as a list of pairs")
    rest = [name for name in names if name != weight]
    if len(rest) == 2:
        return rest[0], rest[1]
    raise InvalidEdgesError(
        f"cannot tell the edge columns of a table with columns {names}: name them "
        f"{named}, or pass exactly two columns")


def _table(table, weight) -> Arcs:
    names, get = _table_columns(table)
    a, b = _pick_columns(names, weight, any_two=not isinstance(table, dict))
    weights = None
    if weight is not None:
        if not _is_name_in(weight, names):
            _check_name(weight, "weight column")
        if weight not in names:
            raise InvalidArgumentError(f"weight: no column {weight!r} in the table; it has "
                                       f"{names}")
        weights = _real_weights(get(weight))
    return _ids_or_names(get(a), get(b), weights)


def id_columns(obj):
    """The two id columns of an ``(m, 2)`` NumPy array or of a pandas, pyarrow or polars
    table of integer columns, as NumPy arrays (views where the input allows), read as
    :func:`read_arcs` reads them; None for any other input, for names, or where the columns
    cannot be read (the build then says why). ``tricount.count`` takes these as a
    ``(src, dst)`` pair, which the cost model sizes and the GPU builds on the device
    (:mod:`tricount.gpu.host_edges`)."""
    kind = _module_of(obj)
    if isinstance(obj, np.ndarray) and not isinstance(obj, np.ma.MaskedArray):
        if obj.ndim == 2 and obj.shape[1] == 2 and obj.dtype.kind in "iu":
            return obj[:, 0], obj[:, 1]
        return None
    if kind not in ("pandas", "pyarrow", "polars") or type(obj).__name__ == "LazyFrame" \
            or not (hasattr(obj, "columns") or hasattr(obj, "column_names")):
        return None
    try:
        names, get = _table_columns(obj)
        a, b = _pick_columns(names, None)
        if not (_integer_typed(obj, a, kind) and _integer_typed(obj, b, kind)):
            return None  # names, floats, nullable types: read as the build reads them
        src, dst = get(a), get(b)
    except TricountError:
        return None
    return (src, dst) if src.dtype.kind in "iu" and dst.dtype.kind in "iu" else None


def _integer_typed(table, name, kind: str) -> bool:
    """Whether a table's column holds plain integers by its type alone (nothing converted)."""
    if kind == "pyarrow":
        import pyarrow as pa

        return pa.types.is_integer(table.column(name).type)
    dtype = table[name].dtype
    if kind == "pandas":
        return isinstance(dtype, np.dtype) and dtype.kind in "iu"
    return bool(dtype.is_integer())  # polars


def _device_array(obj):
    """A CuPy view of a device array (no copy), or None when ``obj`` is not one."""
    if hasattr(obj, "__cuda_array_interface__"):
        import cupy

        return cupy.asarray(obj)
    if hasattr(obj, "__dlpack__") and not isinstance(obj, np.ndarray):
        device_type = obj.__dlpack_device__()[0]
        if device_type in _DLPACK_CUDA:
            import cupy

            return cupy.from_dlpack(obj)
        return np.from_dlpack(obj)
    return None


def _column(a, what: str):
    """One column of a ``(src, dst)`` tuple: a pandas, polars or pyarrow column as a host
    array, a CuPy view of a device array, else as given."""
    host = host_column(a, what)
    if host is not None:
        return host
    device = _device_array(a)
    if device is not None:
        return device
    return _list_column(a) if isinstance(a, list) else _unmasked(a)


def _rows_width(shape, weight, what: str) -> int:
    """The width of rows of edges of ``shape``: 2, or 3 with weight= (the last the weights);
    any other shape is refused."""
    width = 3 if weight is not None and len(shape) == 2 and shape[1] == 3 else 2
    if len(shape) != 2 or shape[1] != width:
        raise InvalidEdgesError(f"{what} must have shape (m, 2), one row per edge, got shape "
                                f"{tuple(shape)}" + (" (an (m, 3) array is read with weight=, "
                                "its last column the weights)" if weight is None
                                and len(shape) == 2 and shape[1] == 3 else ""))
    return width


def _matrix_of_pairs(pairs, weight, what: str) -> Arcs:
    """An ``(m, 2)`` array (or ``(m, 3)`` with weights in the last column) as arcs."""
    xp = array_namespace(pairs)
    if pairs.ndim == 1 and pairs.shape[0] == 0:
        pairs = pairs.reshape(0, 2)
    if pairs.dtype.names and pairs.ndim == 1:  # a structured array: its named fields
        return _table({name: pairs[name] for name in pairs.dtype.names}, weight)
    width = _rows_width(pairs.shape, weight, what)
    weights = _real_weights(pairs[:, 2], xp) if width == 3 else None
    return _ids_or_names(pairs[:, 0], pairs[:, 1], weights)


def _pairs_by_column(pairs: list, shape, weight) -> Arcs:
    """A list of pairs (or weighted triples) holding text, read column by column: NumPy
    read the whole list as text, turning the numbers beside names (a weight, or an id in
    a mix) into text too."""
    _rows_width(shape, weight, "a list of edges")
    src, dst = (_list_column([pair[i] for pair in pairs]) for i in (0, 1))
    weights = None
    if weight is not None and shape[1] == 3:
        weights = _real_weights(np.asarray([pair[2] for pair in pairs], dtype=object))
    return _ids_or_names(src, dst, weights)


def _ids_or_names(src, dst, weights=None) -> Arcs:
    """Arcs of two id columns: raw ids, or (strings) names mapped to compact ids."""
    # NumPy's variable-width strings (StringDType) are read as Python strings.
    src, dst = (a.astype(object) if getattr(a, "dtype", None) is not None
                and a.dtype.kind == "T" else a for a in (src, dst))
    kinds = (_text_kind(_as_array(src)), _text_kind(_as_array(dst)))  # one scan a column
    if kinds != (None, None):  # names
        src, dst = np.asarray(src), np.asarray(dst)
        m = src.shape[0]
        # Both columns text of one kind: NumPy would turn the other's numbers (or bytes)
        # into text, and 1 and "1" would be one vertex.
        if m and len(set(kinds)) != 1 or "mix" in kinds:
            raise InvalidEdgesError("vertex names must be all strings or all integers, got "
                                    "a mix")
        try:
            labels, index = np.unique(np.concatenate([src, dst]), return_inverse=True)
        except TypeError:
            raise InvalidEdgesError("vertex names must be all strings or all integers, got "
                                    "a mix") from None
        index = index.reshape(-1)
        return Arcs(index[:m], index[m:], n_vertices=int(labels.shape[0]), labels=labels,
                    weights=weights)
    src, dst = validate_edge_arrays(src, dst)
    return Arcs(src, dst, weights=weights)


def _text_kind(a) -> str | None:
    """``"str"`` or ``"bytes"`` for a column of that text (names), ``"mix"`` for both,
    None for anything else (ids, or an empty column)."""
    if a.dtype.kind in "US":
        return "str" if a.dtype.kind == "U" else "bytes"
    if a.dtype != object:
        return None
    kinds = {str if isinstance(x, str) else bytes if isinstance(x, bytes) else None
             for x in a.tolist()}
    if kinds == {str}:
        return "str"
    if kinds == {bytes}:
        return "bytes"
    return "mix" if kinds == {str, bytes} else None


def _as_array(a):
    """``a`` itself when it is an array (NumPy's or CuPy's), else NumPy's reading of it."""
    return a if hasattr(a, "dtype") and hasattr(a, "shape") else np.asarray(a)


def _is_name_in(weight, names) -> bool:
    """Whether ``weight`` is one of a table's column ``names`` (pandas names columns 0, 1, 2
    when made from an array)."""
    try:
        return np.ndim(weight) == 0 and weight in names
    except (TypeError, ValueError):
        return False


def _names_a_column(obj, weight) -> bool:
    """Whether ``weight``, not a string, names a column of the table ``obj``."""
    if isinstance(obj, dict):
        return _is_name_in(weight, list(obj))
    if _module_of(obj) == "pandas" and hasattr(obj, "columns"):
        return _is_name_in(weight, list(obj.columns))
    return False


def _check_name(weight, what):
    if not isinstance(weight, str):
        raise InvalidArgumentError(f"weight must name the {what}, got {type(weight).__name__}")


def _real_weights(values, xp=np):
    """One float64 weight per edge: real numbers (booleans and integers included), else
    :class:`InvalidEdgesError` naming what was found (NumPy would turn ``"2"`` into 2.0 and
    drop the imaginary part of ``1+2j``)."""
    column = host_column(values, "the weight column")  # a pandas, polars or pyarrow column
    w = column if column is not None else _unmasked(values, "weights")
    w = w if hasattr(w, "dtype") else np.asarray(w)
    kind = w.dtype.kind
    if kind == "O":
        odd = [x for x in w.tolist() if not isinstance(x, numbers.Real)][:1]
        if odd:
            kind = type(odd[0]).__name__
    if kind not in "biufO":
        found = {"U": "strings", "S": "bytes", "c": "complex numbers"}.get(kind, kind)
        raise InvalidEdgesError(f"edge weights must be real numbers, got {found}; convert "
                                "them first (e.g. float(w)), or leave weight=None")
    try:
        return xp.asarray(w, dtype=xp.float64)
    except OverflowError:  # a Python integer past float64's range (10**400)
        raise InvalidEdgesError("an edge weight is past float64's range (about 1.8e308); "
                                "scale the weights down first") from None


def _unmasked(a, what: str = "edges"):
    """``a`` without its mask: a masked array whose mask hides entries is refused (its
    hidden edges would be counted, its hidden weights used)."""
    if isinstance(a, np.ma.MaskedArray):
        if np.ma.getmaskarray(a).any():
            if what == "weights":
                raise InvalidEdgesError("a masked array of weights hides some: their values "
                                        "would be used; fill them (w.filled(value)) or drop "
                                        "their edges")
            raise InvalidEdgesError("a masked array's hidden entries would be counted as "
                                    "edges; pass a.compressed() (or the rows to keep)")
        return a.data
    return a


def _int_list(values):
    """A list of Python integers as a NumPy array that keeps them exact: NumPy reads
    ``[2**63 + 5, 0]``, or ``[2**53 + 1, 3.0]``, as float64; an object array keeps the
    integers for validation."""
    a = np.asarray(values)
    # Below 2**53 float64 holds every integer: only a value there (an integer past 2**63,
    # or 2**53 + 1 beside a 3.0) needs the object array, whose integers stay exact.
    if a.dtype.kind == "f" and a.size and np.abs(a[np.isfinite(a)]).max(initial=0) >= 2**53:
        return np.asarray(values, dtype=object)
    return a


def read_arcs(obj, *, weight=None) -> Arcs:
    """The :class:`Arcs` of any input but a :class:`CSRGraph` or a path.

    ``weight`` names the edge attribute or column holding the weights (for a
    matrix: any name takes the stored values; for a ``(src, dst, weights)``
    tuple or ``(m, 3)`` rows: any name takes the third), or is an array of one
    weight per input edge; None reads no weights.
    """
    per_edge = weight is not None and not isinstance(weight, str) and \
        not _names_a_column(obj, weight)
    arcs = _read(obj, None if per_edge else weight)
    if per_edge:
        xp = array_namespace(arcs.src)
        weights = _real_weights(weight, xp)
        if weights.shape != (int(arcs.src.shape[0]),):
            raise InvalidArgumentError(f"weight must hold one value per edge "
                                       f"({int(arcs.src.shape[0])}), got shape {weights.shape}")
        arcs.weights = weights
    elif weight is not None and arcs.weights is None:
        raise InvalidArgumentError(f"weight={weight!r}: {type(obj).__name__} holds no weights; "
                                   "pass (src, dst, weights) or an array of weights")
    return arcs


def _read(obj, weight) -> Arcs:
    if isinstance(obj, Arcs):
        return obj
    kind = _module_of(obj)
    if is_networkx(obj):
        return _networkx(obj, weight)
    if kind == "igraph" and hasattr(obj, "get_edgelist"):
        return _igraph(obj, weight)
    if kind == "scipy" and hasattr(obj, "tocoo"):
        return _scipy(obj, weight)
    if kind == "polars" and type(obj).__name__ == "LazyFrame":
        obj = obj.collect()  # a query: its table is the edges
    if kind in ("pandas", "pyarrow", "polars") and hasattr(obj, "columns") or \
            kind == "pyarrow" and hasattr(obj, "column_names") or isinstance(obj, dict):
        return _table(obj, weight)
    if isinstance(obj, tuple) and len(obj) in (2, 3):
        src, dst = (_column(a, what) for a, what in zip(obj[:2], ("src", "dst")))
        weights = None
        if weight is not None and len(obj) == 3:
            weights = _real_weights(obj[2], array_namespace(src))
        return _ids_or_names(src, dst, weights)
    device = _device_array(obj)
    if device is not None:
        on_host = isinstance(device, np.ndarray)
        return _matrix_of_pairs(device, weight, "an array of edges" if on_host
                                else "a device array of edges")
    if isinstance(obj, memoryview):
        obj = np.asarray(obj)
    if isinstance(obj, np.ndarray):
        return _matrix_of_pairs(_unmasked(obj), weight, "an array of edges")
    if isinstance(obj, (list, set, frozenset)) or (hasattr(obj, "__iter__") and
                                                  not isinstance(obj, (str, bytes, dict))):
        pairs = list(obj)
        try:
            rows = _int_list(pairs) if pairs else np.zeros((0, 2), dtype=np.int64)
        except ValueError:
            raise InvalidEdgesError("a list of edges must hold pairs (u, v), all of one "
                                    "length") from None
        if rows.dtype.kind in "US":  # names, or numbers NumPy turned into text beside them
            return _pairs_by_column(pairs, rows.shape, weight)
        if rows.dtype == object and rows.ndim == 2:  # Python ints past 2**63, or a mix
            return _ids_or_names(list(rows[:, 0]), list(rows[:, 1]), None if rows.shape[1] < 3
                                 or weight is None else _real_weights(rows[:, 2]))
        return _matrix_of_pairs(rows, weight, "a list of edges")
    raise InvalidArgumentError(f"graph must be {ACCEPTED}; got {type(obj).__name__}")


# -- graphs ---------------------------------------------------------------------------------


def _graph_of(arcs: Arcs, *, vertices: str, name=None) -> CSRGraph:
    n_vertices = arcs.n_vertices
    if vertices == "range" and n_vertices is None:
        xp = array_namespace(arcs.src)
        n_vertices = _range_size(int(xp.maximum(arcs.src.max(), arcs.dst.max())) + 1
                                 if arcs.src.shape[0] else 0)
    g = CSRGraph.from_edges(arcs.src, arcs.dst, n_vertices=n_vertices, name=name)
    if arcs.labels is not None:
        g.vertex_ids = arcs.labels
        if vertices == "range":
            g = span_ids(g)
    return g


def _range_size(n: int) -> int:
    """``n``, the vertices of ``vertices="range"`` (every id below the largest + 1), when
    tricount can hold that many."""
    if n > MAX_VERTICES:
        raise UnsupportedGraphError(
            f"vertices='range' makes every id 0 .. {n - 1} a vertex: {n:,} vertices, more "
            f"than the {MAX_VERTICES:,} tricount holds; use vertices='edges' (the ids that "
            "occur in an edge)")
    return n


def span_ids(g: CSRGraph) -> CSRGraph:
    """The graph whose vertices are every id ``0 .. max(vertex_ids)`` (``vertices="range"``):
    ids that occur in no edge become isolated vertices. Needs integer ``vertex_ids``."""
    ids = to_host(g.vertex_ids)
    if ids.shape[0] and (ids.dtype.kind not in "iu" or int(ids.min()) < 0):
        raise InvalidArgumentError(
            "vertices='range' needs non-negative integer vertex ids, and this graph's are "
            f"{ids.dtype} labels; use vertices='edges'")
    n = _range_size(int(ids.max()) + 1 if ids.shape[0] else 0)
    if n == g.n_vertices:  # sorted distinct ids below n: already 0 .. n - 1
        return g
    xp = g.xp
    on = xp.asarray(ids.astype(np.int64)) if xp is not np else ids.astype(np.int64)
    lo, hi = g.edges()
    spanned = CSRGraph.from_edges(on[lo], on[hi], n_vertices=n, name=g.name)
    spanned.self_loops_dropped = g.self_loops_dropped
    spanned.duplicates_dropped = g.duplicates_dropped
    return spanned


def as_graph(graph, *, device: str = "cpu", vertices: str = "edges",
             parser: str = "auto") -> tuple[CSRGraph, dict]:
    """Turn anything the module doc lists into a graph; time the steps.

    A path is loaded onto ``device`` ("cpu" or "gpu"), a text file parsed by
    ``parser`` (see :func:`tricount.io.load_graph`); device arrays build on
    the GPU. ``vertices`` is ``"edges"`` (the ids that occur in an edge are
    the vertices) or ``"range"`` (every integer id ``0 .. max`` is one).
    Returns the graph and ``{"load_s": ..., "build_s": ...}``.
    """
    check_choice(vertices, "vertices", VERTICES)
    if isinstance(graph, CSRGraph):
        return (graph if vertices == "edges" else span_ids(graph)), {"load_s": 0.0,
                                                                      "build_s": 0.0}
    if isinstance(graph, (str, os.PathLike)):
        from tricount.io import read_graph

        # Any supported format; a native .tcsr file maps straight to a CSRGraph.
        loaded = read_graph(graph, device=device, parser=parser)
        g = loaded.graph if vertices == "edges" else span_ids(loaded.graph)
        return g, {"load_s": loaded.timings["load_s"], "build_s": loaded.timings["build_s"]}
    t0 = time.perf_counter()
    g = _graph_of(read_arcs(graph), vertices=vertices)
    return g, {"load_s": 0.0, "build_s": time.perf_counter() - t0}


def _file_arcs(path, weight) -> Arcs:
    """The :class:`Arcs` of a file (:func:`tricount.io.read_file_arcs`): in the vertex set
    it declares when it declares one (a Matrix Market file's ``1 .. N``, isolated ones
    included, as :func:`as_graph` reads it), else by its ids or names."""
    from tricount.io import read_file_arcs

    if weight is not None:
        raise InvalidArgumentError(
            f"weight={weight!r}: a file is read as its edges, without weights; pass the "
            "edges with their weights: (src, dst, weights), a table with a weight column, or "
            "a graph object")
    src, dst, ids = read_file_arcs(path)
    if ids is None:
        return read_arcs((src, dst))
    return Arcs(np.searchsorted(ids, src), np.searchsorted(ids, dst), n_vertices=len(ids),
                labels=ids)


def graph_and_arcs(edges, *, weight=None, vertices: str = "edges", name=None):
    """``(graph, src, dst, weights, directed)``: the undirected graph of an input's arcs,
    the arcs in its compact ids (self-loops kept), one weight per arc (None without
    ``weight``), and whether the input says it is directed.

    Takes what :func:`read_arcs` takes, a path (its lines as written, in the vertex set
    it declares: :func:`_file_arcs`), and a :class:`CSRGraph` with ``weight``
    an array of one weight per edge of ``graph.edges()`` (its edges as arcs
    lo -> hi). ``vertices`` as for :func:`as_graph`.
    """
    check_choice(vertices, "vertices", VERTICES)
    if isinstance(edges, CSRGraph):
        if weight is None or isinstance(weight, str):
            raise InvalidArgumentError(
                "a tricount.Graph holds no directions or weights; pass the arcs themselves "
                "(a NetworkX DiGraph, (src, dst[, weights]), a table, ...) or weight= an "
                "array of one weight per edge of graph.edges()")
        ids = to_host(edges.vertex_ids)
        lo, hi = (to_host(a) for a in edges.edges())
        edges = (ids[lo], ids[hi])
    if isinstance(edges, (str, os.PathLike)):
        arcs = _file_arcs(edges, weight)
    else:
        arcs = read_arcs(edges, weight=weight)
    g = _graph_of(arcs, vertices=vertices, name=name)
    src, dst = arcs.src, arcs.dst
    xp = g.xp
    if arcs.n_vertices is None and vertices == "edges":
        # Compact ids are ranks among the sorted ids that occur.
        ids = xp.asarray(g.vertex_ids) if xp is not np else to_host(g.vertex_ids)
        src, dst = xp.searchsorted(ids, src), xp.searchsorted(ids, dst)
    elif arcs.labels is not None and vertices == "range":  # spanned: the labels are the ids
        labels = to_host(arcs.labels).astype(np.int64)
        src, dst = labels[to_host(src)], labels[to_host(dst)]
    return g, xp.asarray(src), xp.asarray(dst), arcs.weights, arcs.directed
