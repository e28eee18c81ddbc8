"""The GPU backend: CuPy and the CUDA kernels of :mod:`tricount.gpu`.

The GPU modules import CuPy and compile kernels, so each is imported when its
operation first runs, never by ``import tricount`` or by choosing the CPU.
"""

from __future__ import annotations

import numpy as np

from tricount.backends._local import peel_aligned, support_aligned
from tricount.prep.xp import to_host


def _on_gpu(graph):
    import cupy

    return graph.to_device(cupy)


class GpuBackend:
    name = "gpu"

    def count(self, graph, *, method: str = "auto", **options):
        from tricount.gpu.engine import count

        return count(graph, method=method, **options)

    def per_vertex(self, graph) -> np.ndarray:
        from tricount.gpu.per_vertex import per_vertex_counts

        return to_host(per_vertex_counts(_on_gpu(graph).oriented()))

    def edge_support(self, graph) -> np.ndarray:
        from tricount.gpu.edge_support import edge_support_counts

        return to_host(support_aligned(_on_gpu(graph), edge_support_counts))

    def peel(self, graph, *, stop_level=None):
        from tricount.gpu.edge_support import edge_support_counts
        from tricount.gpu.truss import peel_frontier

        return peel_aligned(_on_gpu(graph), edge_support_counts, peel_frontier, stop_level)


GPU = GpuBackend()
