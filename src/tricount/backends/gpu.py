"""The GPU backend: CuPy and the CUDA kernels of :mod:`tricount.gpu`.

The GPU modules import CuPy and compile kernels, so each is imported when its
operation first runs, never by ``import tricount`` or by choosing the CPU.
"""

from __future__ import annotations

import numpy as np

from tricount.backends._local import (
    directed_aligned,
    peel_aligned,
    support_aligned,
    weighted_aligned,
)
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

    def list_triangles(self, graph, *, chunk_size: int, labels=None, columns: bool = False,
                       count_first: bool = True):
        del count_first  # always counted first
        # Windows stream to pinned host memory, copies overlapped (gpu/listing.py).
        from tricount.gpu.listing import GpuLister, iter_columns_gpu, list_triangles_gpu

        lister = GpuLister(_on_gpu(graph).oriented(), labels)  # counts now
        stream = iter_columns_gpu if columns else list_triangles_gpu
        return lister.n_triangles, stream(lister, None, chunk_size)

    def directed_counts(self, graph, mask, *, per_vertex: bool = True):
        from tricount.gpu.directed import directed_triangles_gpu

        return directed_aligned(_on_gpu(graph), mask, directed_triangles_gpu,
                                per_vertex=per_vertex)

    def weighted_sums(self, graph, factors) -> np.ndarray:
        from tricount.gpu.weighted import weighted_triangle_sums_gpu

        return weighted_aligned(_on_gpu(graph), factors, weighted_triangle_sums_gpu)


GPU = GpuBackend()
