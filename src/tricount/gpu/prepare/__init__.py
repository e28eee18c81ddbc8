"""The GPU's preparation: one path with two plans, fused and sliced.

:func:`orient` takes a graph on the device to the oriented CSR a method counts
from, as the plan's preparation and orientation say (:mod:`tricount.gpu.plan`):

- **fused** (:mod:`.fused`): the whole graph at once, each step one sort of
  packed keys between single-pass kernels; also the GPU twins of the portable
  steps of :mod:`tricount.prep` (the canonical build and the degrees), which
  :mod:`tricount.prep.accel` finds through :data:`TWINS`;
- **sliced** (:mod:`.sliced`): the rank orientation and hash's plan one slice
  of vertices at a time, within a memory budget.

:mod:`.outofcore` is the GPU twin of the bounded build
(:mod:`tricount.prep.outofcore`): buckets of edge keys sorted on the device.

Both pack the same keys and decode them the same way (:mod:`.keys`).
"""

from __future__ import annotations

from tricount.gpu.chunks import stage_csr_to_device
from tricount.gpu.device import free_device_bytes
from tricount.gpu.prepare.fused import (count_ids, fused_canonical_edges, orient_by_rank,
                                        plan_partners, split_tasks)
from tricount.gpu.prepare.outofcore import device_buckets
from tricount.gpu.prepare.sliced import SlicedCSR, orient_by_rank_sliced, plan_slices

__all__ = ["orient", "fused_canonical_edges", "count_ids", "orient_by_rank", "plan_partners",
           "split_tasks", "orient_by_rank_sliced", "plan_slices", "SlicedCSR", "TWINS"]

#: The fused twins of portable preparation steps, found through :mod:`tricount.prep.accel`.
TWINS = {"canonical_edges": fused_canonical_edges, "count_ids": count_ids,
         # the bounded build's buckets sorted on the device, and the room it has
         "outofcore": device_buckets, "free_bytes": free_device_bytes,
         # a large host CSR's copy through the pinned staging buffers
         "csr_to_device": stage_csr_to_device}


def orient(graph, plan):
    """The oriented CSR of ``graph`` (a :class:`~tricount.CSRGraph` on the device) for
    ``plan``: sliced by rank within ``plan.preparation.capacity`` keys, or fused by
    ``plan.orientation`` ("rank", "degree", or "id": the graph as built)."""
    if plan.preparation.sliced:
        lo, hi = graph.edges()
        return orient_by_rank_sliced(lo, hi, graph.n_vertices, graph.degrees,
                                     plan.preparation.capacity)
    if plan.orientation == "degree":
        return graph.oriented()
    if plan.orientation == "rank":
        lo, hi = graph.edges()
        return orient_by_rank(lo, hi, graph.n_vertices, graph.degrees)
    return graph.upper()
