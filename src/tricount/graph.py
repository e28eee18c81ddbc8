"""`CSRGraph`: the canonical undirected simple graph every backend starts from."""

from __future__ import annotations

import numpy as np

from tricount.errors import (BackendUnavailableError, InvalidArgumentError, InvalidEdgesError,
                             TricountError, check_count, check_text, import_failure)
from tricount.prep.accel import lookup
from tricount.prep.canonical import canonical_edges, validate_edge_arrays
from tricount.prep.orient import OrientedCSR, orient_by_id, orient_upper
from tricount.prep.outofcore import needs_bounded_build
from tricount.prep.upper import UpperCSR, is_upper_csr
from tricount.prep.xp import array_namespace, index_dtype, to_host

__all__ = ["CSRGraph", "Graph"]


class CSRGraph:
    """An undirected simple graph with compact vertex ids ``0 .. n_vertices-1``.

    Self-loops and repeated edges of the input are removed and counted in
    ``self_loops_dropped`` and ``duplicates_dropped``: a pair given twice as
    written, ``(u, v)`` and ``(u, v)``, is a duplicate; ``(v, u)`` after
    ``(u, v)`` is the same edge listed at its other end (as symmetric inputs
    list every edge) and is not counted. Each undirected edge
    ``{u, v}`` is stored once, in the row of its smaller id: ``indptr`` (int64,
    length ``n_vertices + 1``) and ``indices`` (int32 while ids fit, else int64)
    form the strictly upper-triangular CSR, rows sorted. ``adjacency()`` gives
    the symmetric CSR. ``vertex_ids[i]`` is the original id of vertex ``i``.

    Arrays live in NumPy or CuPy, whichever the edges came in.

    Build one with the constructors (:meth:`from_edges`, :meth:`from_upper_csr`,
    :meth:`from_scipy`, :meth:`from_networkx`), which check what they are given;
    ``CSRGraph(...)`` itself takes canonical arrays (rows sorted, each edge once,
    ``u < v``) as they are, unchecked.

    Examples
    --------
    The complete graph K4 has 4 triangles; each vertex lies in 3 of them.

    >>> import tricount
    >>> g = tricount.Graph.from_edges([0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3])
    >>> g.n_vertices, g.n_edges
    (4, 6)
    >>> tricount.count_triangles(g, backend="cpu")
    4

    Loops and duplicates are dropped and reported:

    >>> g = tricount.Graph.from_edges([5, 7, 7, 9], [7, 5, 7, 5])
    >>> g.n_edges, g.self_loops_dropped, g.duplicates_dropped
    (2, 1, 0)
    """

    def __init__(self, rows, indices, n_vertices, *, vertex_ids, self_loops_dropped=0,
                 duplicates_dropped=0, name=None, indptr=None):
        if indptr is not None:  # a ready CSR (see from_upper_csr): rows wait until read
            upper = UpperCSR(indptr, indices, n_vertices)
        else:
            upper = orient_by_id(rows, indices, n_vertices)
        self._upper = upper
        self.n_vertices = int(n_vertices)
        self.vertex_ids = vertex_ids
        self.self_loops_dropped = int(self_loops_dropped)
        self.duplicates_dropped = int(duplicates_dropped)
        self.name = name
        #: How the graph was built, when a constructor says (``from_edges``: the one-piece
        #: build or the bounded one, and why); None otherwise.
        self.build = None
        self._degrees = None
        self._oriented = None
        self._adjacency = None

    # -- construction -----------------------------------------------------------------

    @classmethod
    def from_edges(cls, src, dst, *, name=None, n_vertices=None,
                   max_memory=None) -> "CSRGraph":
        """Build the graph of an edge list.

        Parameters
        ----------
        src, dst : array_like of integers in ``0 .. 2**64-1``
            Edge endpoints, any order, one or both directions, loops and
            repeats allowed. NumPy or CuPy arrays, or sequences. Whole floats
            are ids too; fractions, negatives and booleans are refused.
        name : str, optional
            A label carried into reports.
        n_vertices : int, optional
            Take ids as already compact in ``0 .. n_vertices-1`` and keep
            isolated vertices. By default the vertices are the ids that occur.
        max_memory : int, optional
            Bytes the build may use beyond the input. Edges whose one-piece
            build would not fit it, or the memory available (host memory for
            NumPy arrays, the device's for CuPy), are built in bounded memory
            instead (:mod:`tricount.prep.outofcore`: the same graph, by buckets
            of sorted keys). ``graph.build`` says which build ran and why.

        Raises
        ------
        InvalidEdgesError
            Edge arrays that are not vertex ids (see above), or an id not
            below ``n_vertices``.
        InvalidArgumentError
            ``n_vertices`` that is not a non-negative integer, or ``name``
            that is not a string.

        Examples
        --------
        Ids past 2**63 - 1 are ids like any other:

        >>> import numpy as np
        >>> g = CSRGraph.from_edges(np.array([2**64 - 1, 7], dtype=np.uint64), [7, 8])
        >>> g.vertex_ids.tolist(), g.n_edges
        ([7, 8, 18446744073709551615], 2)
        """
        check_text(name, "name", none_ok=True)
        if max_memory is not None:
            max_memory = check_count(max_memory, "max_memory")
        reason = needs_bounded_build(src, dst, max_memory=max_memory)
        if reason is not None:
            return cls._from_edges_bounded(src, dst, name, n_vertices, max_memory, reason)
        src, dst = validate_edge_arrays(src, dst)
        try:
            canon = canonical_edges(src, dst, n_vertices=n_vertices)
        except MemoryError:
            raise TricountError(
                f"building a graph of {int(src.shape[0]):,} edge lines in one piece ran out "
                "of host memory; pass max_memory=BYTES (below what is free) to build it in "
                "bounded memory") from None
        g = cls(canon.lo, canon.hi, canon.n_vertices, vertex_ids=canon.vertex_ids,
                self_loops_dropped=canon.self_loops_dropped,
                duplicates_dropped=canon.duplicates_dropped, name=name)
        g.build = {"path": "in-memory"}
        return g

    @classmethod
    def _from_edges_bounded(cls, src, dst, name, n_vertices, max_memory, reason):
        """``from_edges`` by the bounded build; back on the device for CuPy edges."""
        from tricount.prep.outofcore import ArrayChunks, BuildPlan, build_bounded

        xp = array_namespace(src, dst)
        plan = BuildPlan(host_bytes=max_memory if xp is np else None)
        built = build_bounded(ArrayChunks(src, dst, plan.chunk_edges), n_vertices=n_vertices,
                              plan=plan)
        g = cls.from_upper_csr(built.indptr, built.indices, built.n_vertices,
                               vertex_ids=built.vertex_ids,
                               self_loops_dropped=built.self_loops_dropped,
                               duplicates_dropped=built.duplicates_dropped, name=name, check=False)
        if xp is not np:  # where the edges were, as the one-piece GPU build leaves it
            try:
                g = g.to_device(xp)
                g.vertex_ids = xp.asarray(g.vertex_ids)
            except xp.cuda.memory.OutOfMemoryError as exc:
                raise TricountError(
                    f"the graph built from {int(src.shape[0]):,} edge lines "
                    f"({g.n_edges:,} edges) does not fit the GPU beside its input ({exc}); "
                    "free the edge arrays first, or build from NumPy arrays") from None
        g.build = dict(built.note, reason=reason)
        return g

    @classmethod
    def from_upper_csr(cls, indptr, indices, n_vertices, *, vertex_ids, self_loops_dropped=0,
                       duplicates_dropped=0, name=None, check: bool = True) -> "CSRGraph":
        """Wrap arrays that already are a canonical upper-triangular CSR.

        Row ``u`` of ``indptr`` (int64) / ``indices`` holds the neighbours
        ``v > u``, sorted and distinct; ``vertex_ids`` is None or one id per
        vertex. The arrays are checked (one pass, :class:`InvalidEdgesError`
        otherwise: a malformed CSR would be counted wrong); the loaders, which
        build or verify the CSR themselves, pass ``check=False``. The COO rows
        are derived only when something reads them.

        The graph holds these arrays, not copies (a memory-mapped CSR stays mapped),
        except arrays the kernels cannot read as they are: offsets other than
        contiguous native int64, ids other than contiguous native int32 or int64, and
        int32 ids of more than 2^31 - 1 vertices are converted (the ids to int32 while
        every id fits, else int64). Do not change them while the graph is in use. The
        graph keeps what it derives from them (degrees, the oriented copy), so an array
        edited in place would leave those behind, and counts that mix the two would be
        wrong; build a new graph of the edited arrays instead (``Graph.from_edges``
        copies its input).
        """
        n_vertices = check_count(n_vertices, "n_vertices")
        check_text(name, "name", none_ok=True)
        if check:
            _check_upper_csr(indptr, indices, n_vertices, vertex_ids)
        indptr, indices = _kernel_layout(indptr, indices, n_vertices)
        return cls(None, indices, n_vertices, indptr=indptr, vertex_ids=vertex_ids,
                   self_loops_dropped=self_loops_dropped, duplicates_dropped=duplicates_dropped,
                   name=name)

    @classmethod
    def from_chunks(cls, chunks, *, max_id: int, n_vertices: int | None = None,
                    id_base: int = 0, name=None, loops_dropped: int = 0,
                    duplicates_dropped: int = 0, builder: str = "numba") -> "CSRGraph":
        """Build the graph of parsed edge ``chunks`` (a list of ``(src, dst)`` arrays, consumed):
        the readers' path. ``builder`` "numba": :func:`tricount.prep.build.build_upper_csr`
        (a parallel counting sort, in bounded memory; its kernels compile on first use);
        "numpy": :func:`tricount.prep.canonical.upper_csr_of_chunks` (the same arrays,
        compiling nothing, for small inputs)."""
        if builder == "numpy":
            from tricount.prep.canonical import upper_csr_of_chunks as build_upper_csr
        else:
            from tricount.prep.build import build_upper_csr  # Numba: kept out of `import tricount`

        built = build_upper_csr(chunks, max_id=max_id, n_vertices=n_vertices, id_base=id_base,
                                loops_dropped=loops_dropped,
                                duplicates_dropped=duplicates_dropped)
        return cls.from_upper_csr(built.indptr, built.indices, built.n_vertices,
                                  vertex_ids=built.vertex_ids,
                                  self_loops_dropped=built.self_loops_dropped,
                                  duplicates_dropped=built.duplicates_dropped, name=name,
                                  check=False)

    @classmethod
    def from_scipy(cls, matrix, *, name=None) -> "CSRGraph":
        """Build the graph whose edges are the stored entries of a square matrix.

        An asymmetric matrix is read as its symmetric pattern ``A + A.T``: entry
        (i, j) and entry (j, i) are the same edge. Values are ignored: a stored
        zero is an edge, as NetworkX's ``from_scipy_sparse_array`` and a Matrix
        Market file's entries read (``A.eliminate_zeros()`` first drops them).
        Every row is a vertex.
        """
        shape = getattr(matrix, "shape", None)
        if shape is None or len(shape) != 2 or not hasattr(matrix, "tocoo"):
            raise InvalidArgumentError(
                f"matrix must be a SciPy sparse matrix or array, got {type(matrix).__name__}")
        if shape[0] != shape[1]:
            raise InvalidEdgesError(f"adjacency matrix must be square, got shape {shape}")
        coo = matrix.tocoo()
        return cls.from_edges(coo.row, coo.col, name=name, n_vertices=int(shape[0]))

    @classmethod
    def from_networkx(cls, G, *, name=None) -> "CSRGraph":
        """Build the graph of a NetworkX graph; every node is a vertex.

        Directed graphs are read as undirected: (u, v) and (v, u) are one edge.
        Multigraph parallel edges become one edge. ``vertex_ids`` holds the
        node labels in ``G``'s node order (an int64 array when all labels are
        integers in ``0 .. 2**63-1``, else an object array).
        """
        if not (hasattr(G, "nodes") and hasattr(G, "edges") and hasattr(G, "graph")):
            raise InvalidArgumentError(f"G must be a NetworkX graph, got {type(G).__name__}")
        check_text(name, "name", none_ok=True)
        nodes = list(G.nodes)
        index = {node: i for i, node in enumerate(nodes)}
        m = G.number_of_edges()
        src = np.fromiter((index[u] for u, _ in G.edges()), dtype=np.int64, count=m)
        dst = np.fromiter((index[v] for _, v in G.edges()), dtype=np.int64, count=m)
        if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and 0 <= v < 2**63
               for v in nodes):
            labels = np.array(nodes, dtype=np.int64)
        else:
            labels = np.empty(len(nodes), dtype=object)
            labels[:] = nodes
        g = cls.from_edges(src, dst, name=name or G.graph.get("name") or None,
                           n_vertices=len(nodes))
        g.vertex_ids = labels
        return g

    # -- views ------------------------------------------------------------------------

    @property
    def indptr(self):
        """Row offsets (int64) of the upper-triangular CSR."""
        return self._upper.indptr

    @property
    def indices(self):
        """Column ids of the upper-triangular CSR; row ``u`` holds neighbours ``v > u``."""
        return self._upper.indices

    @property
    def n_edges(self) -> int:
        """Undirected edges, each counted once."""
        return self._upper.n_edges

    @property
    def xp(self):
        """The array module (NumPy or CuPy) holding the graph."""
        return array_namespace(self._upper.indptr)

    def edges(self):
        """Each undirected edge once as ``(lo, hi)`` arrays with ``lo < hi``, sorted."""
        return self._upper.rows, self._upper.indices

    @property
    def degrees(self):
        """Degree of every vertex (int64 array)."""
        if self._degrees is None:
            # Row lengths count each edge at its smaller end, the column histogram at
            # its larger one: no COO rows needed.
            xp = self.xp
            deg = xp.diff(self.indptr).astype(xp.int64, copy=False)
            if self.n_edges:
                # CuPy's bincount costs milliseconds even on small arrays: the GPU's twin
                # counts in one atomic pass.
                count_ids = lookup(xp, "count_ids")
                deg = deg + (count_ids(self.indices, self.n_vertices) if count_ids is not None
                             else xp.bincount(self.indices, minlength=self.n_vertices))
            self._degrees = deg
        return self._degrees

    @property
    def max_degree(self) -> int:
        return int(self.degrees.max()) if self.n_vertices else 0

    def upper(self) -> OrientedCSR:
        """The graph oriented by id (lo -> hi), as COO + CSR."""
        return self._upper

    def oriented(self) -> OrientedCSR:
        """The graph oriented by (degree, id), as COO + CSR (cached)."""
        if self._oriented is None:
            self._oriented = orient_upper(self._upper, self.degrees)
        return self._oriented

    def adjacency(self):
        """Symmetric CSR ``(indptr, indices)``: every edge in both rows, rows sorted."""
        if self._adjacency is None:
            xp = self.xp
            lo, hi = self.edges()
            n = xp.uint64(self.n_vertices)
            key = xp.concatenate([lo.astype(xp.uint64) * n + hi.astype(xp.uint64),
                                  hi.astype(xp.uint64) * n + lo.astype(xp.uint64)])
            key = xp.sort(key)
            rows = (key // n).astype(lo.dtype)
            cols = (key % n).astype(lo.dtype)
            indptr = xp.zeros(self.n_vertices + 1, dtype=xp.int64)
            if rows.shape[0]:
                xp.cumsum(xp.bincount(rows, minlength=self.n_vertices), out=indptr[1:])
            self._adjacency = (indptr, cols)
        return self._adjacency

    def to_scipy(self):
        """The symmetric adjacency matrix as a SciPy CSR array of ones (int8)."""
        import scipy.sparse as sp

        indptr, indices = self.adjacency()
        indptr, indices = to_host(indptr), to_host(indices)
        data = np.ones(indices.shape[0], dtype=np.int8)
        return sp.csr_array((data, indices, indptr), shape=(self.n_vertices, self.n_vertices))

    def to_device(self, xp) -> "CSRGraph":
        """The same graph with its arrays in ``xp``: the module ``numpy`` or ``cupy``, or
        its name (``"numpy"``/``"cpu"``, ``"cupy"``/``"gpu"``).

        A large host CSR goes to the GPU through the GPU package's copy (the
        ``csr_to_device`` twin, :func:`tricount.gpu.chunks.stage_csr_to_device`:
        pinned staging buffers instead of CuPy's copy of pageable memory).
        """
        if isinstance(xp, str):
            xp = _array_module(xp)
        if xp is self.xp:
            return self
        # The CSR travels; the COO rows are rebuilt there only if something reads them.
        copy = lookup(xp, "csr_to_device") if xp is not np else None
        moved = copy(self.indptr, self.indices) if copy is not None else None
        if moved is None:
            move = xp.asarray if xp is not np else to_host
            moved = move(self.indptr), move(self.indices)
        indptr, indices = moved
        return CSRGraph.from_upper_csr(indptr, indices, self.n_vertices,
                                       vertex_ids=self.vertex_ids,
                                       self_loops_dropped=self.self_loops_dropped,
                                       duplicates_dropped=self.duplicates_dropped,
                                       name=self.name, check=False)

    def summary(self, *, compute: bool = True) -> dict:
        """Plain facts for reports: name, sizes, largest degree, what was dropped.

        With ``compute=False`` the largest degree is given only when the degrees
        are known already (a count on the CPU that orients the graph computes them; a
        graph in host memory counted on the GPU, or on the CPU in id order, does not),
        else None: a pass over every edge on the host cost more than the GPU's whole
        count past R-MAT 20.
        """
        known = compute or self._degrees is not None
        return {
            "graph": self.name,
            "vertices": self.n_vertices,
            "edges": self.n_edges,
            "max_degree": self.max_degree if known else None,
            "self_loops_dropped": self.self_loops_dropped,
            "duplicates_dropped": self.duplicates_dropped,
        }

    def __repr__(self) -> str:
        label = f" {self.name!r}" if self.name else ""
        return (f"<CSRGraph{label}: {self.n_vertices} vertices, {self.n_edges} edges, "
                f"{self.self_loops_dropped} loops and {self.duplicates_dropped} duplicates dropped>")


Graph = CSRGraph


def _kernel_layout(indptr, indices, n: int):
    """``(indptr, indices)`` as every engine reads them: contiguous, native byte order, int64
    offsets and int32 ids (int64 past 2^31 - 1 vertices, or when given so); the arrays
    themselves when they already are. The GPU kernels are compiled for int32 ids or else
    int64 ones, and read memory as laid out, so uint32, int16 or strided ids would be read
    as other ids; ranks are made in the ids' type."""
    id_types = (np.dtype(np.int32), np.dtype(np.int64)) if index_dtype(n) is np.int32 else \
        (np.dtype(np.int64),)
    return _in_layout(indptr, (np.dtype(np.int64),)), _in_layout(indices, id_types)


def _in_layout(a, dtypes):
    """``a`` itself when contiguous, native and of one of ``dtypes``, else a copy as the
    first of them, made on the array's own device."""
    if a.dtype in dtypes and a.dtype.isnative and a.flags.c_contiguous:
        return a
    xp = array_namespace(a)
    if xp is np:
        return np.ascontiguousarray(a, dtype=dtypes[0])
    with a.device:
        return xp.ascontiguousarray(a, dtype=dtypes[0])


def _check_upper_csr(indptr, indices, n: int, vertex_ids) -> None:
    """Raise :class:`InvalidEdgesError` unless ``(indptr, indices)`` is a canonical upper CSR
    of ``n`` vertices and ``vertex_ids`` None or one per vertex (host or device arrays)."""
    fix = "; Graph.from_edges builds one from any edges"
    for what, a in (("indptr", indptr), ("indices", indices)):
        if getattr(a, "ndim", None) != 1 or getattr(a, "dtype", None) is None \
                or a.dtype.kind not in "iu":
            raise InvalidEdgesError(f"{what} must be a one-dimensional integer array, got "
                                    f"{type(a).__name__} {getattr(a, 'dtype', '')}{fix}")
    m = int(indices.shape[0])
    if indptr.shape[0] != n + 1 or int(indptr[0]) != 0 or int(indptr[-1]) != m:
        raise InvalidEdgesError(f"indptr must hold n_vertices + 1 = {n + 1} offsets from 0 to "
                                f"len(indices) = {m}, got {indptr.shape[0]} from "
                                f"{int(indptr[0]) if indptr.shape[0] else None} to "
                                f"{int(indptr[-1]) if indptr.shape[0] else None}{fix}")
    if not is_upper_csr(indptr, indices, n):
        raise InvalidEdgesError("indptr/indices are not a canonical upper CSR: every row u "
                                f"must hold distinct neighbours u < v < {n}, sorted{fix}")
    if vertex_ids is not None and len(vertex_ids) != n:
        raise InvalidEdgesError(f"vertex_ids must hold one id per vertex ({n}), got "
                                f"{len(vertex_ids)}")


def _array_module(name: str):
    """The array module a name says: NumPy for "numpy"/"cpu", CuPy for "cupy"/"gpu"."""
    if name in ("numpy", "cpu"):
        return np
    if name in ("cupy", "gpu"):
        try:
            import cupy
        except ImportError as exc:
            raise BackendUnavailableError(f"to_device('gpu') needs CuPy: "
                                          f"{import_failure(exc, 'CuPy', 'cupy')} (pip install "
                                          "'.[cuda13]')") from None
        return cupy
    raise InvalidArgumentError(f"to_device takes numpy or cupy (or 'numpy', 'cpu', 'cupy', "
                               f"'gpu'), got {name!r}")
