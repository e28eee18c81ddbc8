"""Other libraries' triangle counts, each from the same in-memory edge arrays.

Every peer takes the raw ``(src, dst)`` int64 arrays exactly as loaded or
generated (self-loops and repeated edges included), builds its own graph from
them and counts; the benchmark times the whole call, so construction is always
included. Vertex ids are taken as ``0 .. max id``. Each peer drops loops and
repeats the way its library documents, and its count is checked against the
same expected count as tricount's.

The peers and why each formulation was chosen:

- ``graphblas``: SuiteSparse:GraphBLAS through python-graphblas, the masked
  ``plus_pair`` product ``L .* (L Lᵀ)`` (LAGraph's Sandia_LUT, its fastest
  method on most graphs);
- ``networkit``: ``TriangleEdgeScore`` summed over edges, divided by 3 (NetworKit
  has no total triangle count; networkit/networkit#422);
- ``igraph``: ``transitivity_local_undirected`` times each vertex's wedge count
  gives its triangles exactly after rounding (the counts igraph computes
  internally); summed, divided by 3. ``list_triangles`` is exact too but builds
  one Python tuple per triangle, and ``motifs_randesu`` is ~30x slower;
- ``scipy``: ``sum((L @ L) .* L)`` on the strictly lower adjacency in id order,
  the plain SciPy formulation a user would write (Sandia_LL);
- ``networkx``: ``sum(nx.triangles(G).values()) // 3``, the NetworkX idiom.
"""

from __future__ import annotations

import importlib
import importlib.metadata
from dataclasses import dataclass
from typing import Callable

import numpy as np

from tricount.errors import import_failure

__all__ = ["Peer", "PEERS", "find_peer"]


def _n_vertices(src, dst) -> int:
    return int(max(src.max(), dst.max())) + 1 if src.shape[0] else 0


def _both_directions(src, dst):
    """``(n, rows, cols)``: the vertex count and every edge line in both directions."""
    return _n_vertices(src, dst), np.concatenate([src, dst]), np.concatenate([dst, src])


def count_graphblas(src, dst) -> int:
    import graphblas as gb

    n, rows, cols = _both_directions(src, dst)
    if n == 0:
        return 0
    A = gb.Matrix.from_coo(rows, cols, True, nrows=n, ncols=n, dtype=bool)  # repeats merge
    L = gb.select.tril(A, -1).new()  # strictly lower: drops self-loops
    C = gb.Matrix(gb.dtypes.INT64, n, n)
    C(L.S) << gb.semiring.plus_pair(L @ L.T)
    return int(C.reduce_scalar(gb.monoid.plus).new())


def count_networkit(src, dst) -> int:
    import networkit as nk

    n = _n_vertices(src, dst)
    G = nk.Graph(n)
    if n == 0:
        return 0
    G.addEdges((src, dst), checkMultiEdge=True)
    G.removeSelfLoops()
    G.removeMultiEdges()
    G.indexEdges()
    score = nk.sparsification.TriangleEdgeScore(G)
    score.run()
    return int(round(sum(score.scores()))) // 3


def count_igraph(src, dst) -> int:
    import igraph as ig

    n = _n_vertices(src, dst)
    if n == 0:
        return 0
    # A list of tuples is the fastest input igraph takes (2x a NumPy array here).
    g = ig.Graph(n=n, edges=list(zip(src.tolist(), dst.tolist())))
    g.simplify(multiple=True, loops=True)
    local = np.asarray(g.transitivity_local_undirected(mode="zero"), dtype=np.float64)
    degree = np.asarray(g.degree(), dtype=np.float64)
    # local = t / (d (d-1) / 2) in float64: rounding recovers t exactly while t < 2**50.
    per_vertex = np.rint(local * degree * (degree - 1) / 2).astype(np.int64)
    return int(per_vertex.sum()) // 3


def count_scipy(src, dst) -> int:
    import scipy.sparse as sp

    n, rows, cols = _both_directions(src, dst)
    if n == 0:
        return 0
    lower = rows > cols  # strictly lower triangle: drops loops; repeats are summed below
    L = sp.csr_array((np.ones(int(lower.sum()), dtype=np.int64), (rows[lower], cols[lower])),
                     shape=(n, n))
    L.sum_duplicates()
    L.data[:] = 1
    return int((L @ L).multiply(L).sum())


def count_networkx(src, dst) -> int:
    import networkx as nx

    G = nx.Graph()
    G.add_edges_from(zip(src.tolist(), dst.tolist()))
    G.remove_edges_from(list(nx.selfloop_edges(G)))
    return sum(nx.triangles(G).values()) // 3


@dataclass(frozen=True)
class Peer:
    """A peer library: how to import it, install it, and count with it."""

    name: str
    module: str
    package: str
    description: str
    count: Callable
    #: Largest input (edge lines) run by default; None for no limit. NetworkX took
    #: ~12 s per count on R-MAT scale 16 (1,048,576 lines) on the project's 2-core
    #: machine (benchmarks/cpu_peers.py, 2025): beyond that it would dominate a run.
    max_edge_lines: int | None = None

    def available(self) -> tuple[bool, str]:
        """Whether the library imports here, and why not."""
        try:
            importlib.import_module(self.module)
        except ImportError as exc:
            why = import_failure(exc, self.name, self.module)
            return False, why + (f" (pip install {self.package})"
                                 if why.endswith("not installed") else "")
        except Exception as exc:  # a broken install fails in many ways
            return False, f"{self.name} failed to import: {exc}"
        return True, "installed"

    def version(self) -> str | None:
        try:
            return importlib.metadata.version(self.package)
        except importlib.metadata.PackageNotFoundError:
            module = importlib.import_module(self.module)
            return getattr(module, "__version__", None)


PEERS = {
    p.name: p
    for p in (
        Peer("graphblas", "graphblas", "python-graphblas",
             "SuiteSparse:GraphBLAS, masked plus_pair L.*(L Lᵀ)", count_graphblas),
        Peer("networkit", "networkit", "networkit",
             "NetworKit TriangleEdgeScore / 3", count_networkit),
        Peer("igraph", "igraph", "igraph",
             "igraph local transitivity x wedges / 3", count_igraph),
        Peer("scipy", "scipy", "scipy", "SciPy sum((L @ L) .* L)", count_scipy),
        Peer("networkx", "networkx", "networkx",
             "NetworkX sum(triangles) / 3", count_networkx, 1_100_000),
    )
}


def find_peer(name: str) -> Peer | None:
    return PEERS.get(name.strip().lower())
