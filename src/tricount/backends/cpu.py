"""The CPU backend: Numba kernels over the degree-oriented CSR (:mod:`tricount.cpu`)."""

from __future__ import annotations

import numpy as np

from tricount.backends._arrays import peel_aligned, support_aligned


class CpuBackend:
    name = "cpu"

    def count(self, graph, *, method: str = "auto", **options):
        from tricount.cpu.engine import count

        return count(graph.to_device(np), method=method, **options)

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
