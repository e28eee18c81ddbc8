"""The ``reference`` backend: the oracle of :mod:`tricount.reference` on a prepared graph,
for ``--verify`` and the tests."""

from __future__ import annotations

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


REFERENCE = ReferenceBackend()
