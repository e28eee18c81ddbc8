"""The ``reference`` backend: the oracle of :mod:`tricount.reference` on a prepared graph,
for ``--verify`` and the tests."""

from __future__ import annotations

import itertools
import time

import numpy as np

from tricount import reference
from tricount.errors import UnknownMethodError
from tricount.prep.xp import to_host
from tricount.result import EngineResult


def _edge_lists(graph):
    return tuple(to_host(a).tolist() for a in graph.edges())


class ReferenceBackend:
    name = "reference"

    def count(self, graph, *, method: str = "auto", **options) -> EngineResult:
        if options:
            raise UnknownMethodError(
                f"the reference backend takes no options, got {sorted(options)}")
        if method not in ("auto", "sets"):
            raise UnknownMethodError(
                f"the reference backend has one method, 'sets'; got {method!r}")
        lo, hi = _edge_lists(graph)
        t0 = time.perf_counter()
        n = reference.count_triangles(lo, hi)
        return EngineResult(n, "sets", "the reference has one method",
                            {"preprocess_s": 0.0, "count_s": time.perf_counter() - t0})

    def per_vertex(self, graph) -> np.ndarray:
        lo, hi = _edge_lists(graph)
        out = np.zeros(graph.n_vertices, dtype=np.int64)
        for v, t in reference.triangles_per_vertex(lo, hi).items():
            out[v] = t
        return out

    def edge_support(self, graph) -> np.ndarray:
        lo, hi = _edge_lists(graph)
        support = reference.edge_support(lo, hi)
        return np.array([support[frozenset((u, v))] for u, v in zip(lo, hi)], dtype=np.int64)

    def peel(self, graph, *, stop_level=None):
        lo, hi = _edge_lists(graph)
        level = reference.trussness(lo, hi)
        trussness = np.array([level[frozenset((u, v))] for u, v in zip(lo, hi)], dtype=np.int32)
        removed = np.ones(trussness.shape[0], dtype=np.uint8)
        if stop_level is not None:
            removed[trussness >= stop_level + 2] = 0
            trussness[removed == 0] = 0
        return trussness, removed


    def list_triangles(self, graph, *, chunk_size: int, labels=None, columns: bool = False,
                       count_first: bool = True):
        del count_first  # always counted first
        rows = np.array(reference.triangle_list(*_edge_lists(graph)), dtype=np.int64)
        rows = rows.reshape(-1, 3)
        if labels is not None:
            rows = to_host(labels)[rows]
        chunks = (np.ascontiguousarray(rows[t: t + chunk_size])
                  for t in range(0, rows.shape[0], chunk_size))
        return rows.shape[0], ((c.T for c in chunks) if columns else chunks)

    def directed_counts(self, graph, mask, *, per_vertex: bool = True):
        """Cycles and feed-forward roles from their definitions, triangle by triangle."""
        lo, hi = _edge_lists(graph)
        arcs = set()
        for a, b, m in zip(lo, hi, to_host(mask).tolist()):
            arcs.update(([(a, b)] if m & 1 else []) + ([(b, a)] if m & 2 else []))
        counts = np.zeros((4, graph.n_vertices), dtype=np.int64)
        codes = np.zeros(64, dtype=np.int64)
        degree = to_host(graph.degrees).tolist()
        for triangle in reference.triangle_list(lo, hi):
            a, b, c = sorted(triangle, key=lambda x: (degree[x], x))  # the kernels' corners
            pairs = ((a, b), (b, a), (a, c), (c, a), (b, c), (c, b))
            codes[sum(1 << i for i, arc in enumerate(pairs) if arc in arcs)] += 1
            for x, y, z in ((a, b, c), (a, c, b)):  # the two ways round
                if {(x, y), (y, z), (z, x)} <= arcs:
                    counts[0, [a, b, c]] += 1
            for s, m, t in itertools.permutations((a, b, c)):
                if {(s, m), (m, t), (s, t)} <= arcs:
                    counts[1:, [s, m, t]] += np.eye(3, dtype=np.int64)
        return (counts if per_vertex else counts * 0), codes

    def weighted_sums(self, graph, factors) -> np.ndarray:
        lo, hi = _edge_lists(graph)
        q = {(u, v): f for u, v, f in zip(lo, hi, to_host(factors).tolist())}
        sums = np.zeros(graph.n_vertices, dtype=np.float64)
        for a, b, c in reference.triangle_list(lo, hi):
            sums[[a, b, c]] += q[(a, b)] * q[(a, c)] * q[(b, c)]
        return sums


REFERENCE = ReferenceBackend()
