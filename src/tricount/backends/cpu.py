"""The CPU backend: the Numba kernels of :mod:`tricount.cpu`, on the degree-oriented CSR or,
for counts, per-vertex and per-edge counts where it pays, on the graph's own upper CSR (id order).

Each kernel module compiles (or loads cached) Numba code when imported, so it is
imported when its operation first runs, never by ``import tricount``.
"""

from __future__ import annotations

import numpy as np

from tricount.backends._local import (
    directed_aligned,
    peel_aligned,
    support_aligned,
    weighted_aligned,
)
from tricount._threads import numba_started
from tricount.cpu import engine
from tricount.prep.xp import to_host


class CpuBackend:
    name = "cpu"

    def count(self, graph, *, method: str = "auto", **options):
        return engine.count(graph, method=method, **options)

    def per_vertex(self, graph) -> np.ndarray:
        g = graph.to_device(np)
        if not numba_started() and _in_numpy(g.oriented()):
            from tricount.cpu.walk_numpy import per_vertex_numpy

            return per_vertex_numpy(g.oriented())
        from tricount.cpu.per_vertex import per_vertex_counts

        with engine.threads_for("bitmap", g.n_edges):  # a small graph on this thread
            return per_vertex_counts(g)

    def edge_support(self, graph) -> np.ndarray:
        g = graph.to_device(np)
        if not numba_started() and _in_numpy(g.oriented()):
            from tricount.cpu.walk_numpy import edge_support_numpy

            return support_aligned(g, edge_support_numpy)
        from tricount.cpu.edge_support import edge_support_in_id_order, edge_support_merge

        with engine.threads_for("bitmap", g.n_edges):  # a small graph on this thread
            support = edge_support_in_id_order(g)
        if support is not None:
            return support
        return support_aligned(g, edge_support_merge)

    def peel(self, graph, *, stop_level=None):
        # The support of the degree orientation's merge, not the id order's: on the H100
        # host's 16 threads the peel that followed the id order's support ran 14-34 % slower
        # on soc-Epinions1 and blogcatalog (device runs 7-8 of 2026-11-27, two rounds; not
        # explained), more than the support saves there.
        from tricount.cpu.edge_support import edge_support_merge
        from tricount.cpu.truss import peel_frontier

        return peel_aligned(graph.to_device(np), edge_support_merge, peel_frontier, stop_level)

    def list_triangles(self, graph, *, chunk_size: int, labels=None, columns: bool = False,
                       count_first: bool = True):
        from tricount.cpu import walk_numpy

        upper = graph.to_device(np).upper()  # the listers' CSR: nothing to orient
        labels = None if labels is None else to_host(labels)
        if _in_numpy(upper):
            from tricount.cpu.wedge_numpy import count_wedges_numpy

            n_triangles = count_wedges_numpy(upper) if count_first else None
            rows = walk_numpy.stream_triangles_numpy(upper, labels, chunk_size)
        else:
            from tricount.cpu import listing  # microseconds less than importing two names

            if count_first or not listing.one_pass(upper.n_edges):
                lister = listing.CpuLister(upper, labels)  # counts now: the total is known
                n_triangles = lister.n_triangles
                rows = listing.list_triangles_cpu(lister, None, chunk_size)
            else:  # one pass, chunk by chunk as they are asked for: no total up front
                n_triangles = None
                rows = listing.stream_triangles_cpu(upper, labels, chunk_size)
        return n_triangles, ((r.T for r in rows) if columns else rows)

    def directed_counts(self, graph, mask, *, per_vertex: bool = True):
        from tricount.cpu.directed import directed_triangles_cpu

        return directed_aligned(graph.to_device(np), mask, directed_triangles_cpu,
                                per_vertex=per_vertex)

    def weighted_sums(self, graph, factors) -> np.ndarray:
        from tricount.cpu.weighted import weighted_triangle_sums_cpu

        return weighted_aligned(graph.to_device(np), factors, weighted_triangle_sums_cpu)


def _in_numpy(oriented) -> bool:
    """Whether a walk of ``oriented`` goes through NumPy (:func:`tricount.cpu.walk_numpy.takes`:
    a small graph in a process that has not started Numba), priced by the cost model."""
    from tricount.backends.costs import COSTS
    from tricount.cpu import walk_numpy

    return walk_numpy.takes(oriented, COSTS.numba_start_s)


CPU = CpuBackend()
