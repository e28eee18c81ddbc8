"""The CPU backend: the Numba kernels of :mod:`tricount.cpu` on the degree-oriented CSR.

Each kernel module compiles (or loads cached) Numba code when imported, so it is
imported when its operation first runs, never by ``import tricount``.
"""

from __future__ import annotations

import numpy as np

from tricount.backends._local import peel_aligned, support_aligned
from tricount.cpu import engine


class CpuBackend:
    name = "cpu"

    def count(self, graph, *, method: str = "auto", **options):
        return engine.count(graph, method=method, **options)

    def per_vertex(self, graph) -> np.ndarray:
        from tricount.cpu.per_vertex import per_vertex_bitmap

        return per_vertex_bitmap(graph.to_device(np).oriented())

    def edge_support(self, graph) -> np.ndarray:
        from tricount.cpu.edge_support import edge_support_merge

        return support_aligned(graph.to_device(np), edge_support_merge)

    def peel(self, graph, *, stop_level=None):
        from tricount.cpu.edge_support import edge_support_merge
        from tricount.cpu.truss import peel_frontier

        return peel_aligned(graph.to_device(np), edge_support_merge, peel_frontier, stop_level)


CPU = CpuBackend()
