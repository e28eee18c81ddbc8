"""One dispatch: a backend object computes every quantity (total, per vertex, per edge, truss).

:func:`get_backend` turns a name into a backend and the reason it was chosen.
Explicit names raise when the backend cannot run here; only ``"auto"`` falls
back (GPU when one is usable, else CPU) and records why. Every backend has the
same operations, each taking a :class:`~tricount.CSRGraph` wherever its
arrays live and returning host (NumPy) results:

- ``count(graph, *, method="auto", **options) -> EngineResult``
- ``per_vertex(graph) -> int64 array`` aligned with ``graph.vertex_ids``
- ``edge_support(graph) -> int64 array`` aligned with ``graph.edges()``
- ``peel(graph, *, stop_level=None) -> (int32 trussness, uint8 removed)``
- ``list_triangles(graph, *, chunk_size, labels=None, columns=False) -> (n_triangles,
  chunks)``: the triangles counted now, then streamed as ``(k, 3)`` int64 rows (each a
  new array) or, with ``columns``, ``(3, k)`` columns valid until the next chunk
  (:mod:`tricount.listing`)
- ``directed_counts(graph, mask, *, per_vertex=True) -> (int64 (4, n), int64 (64,))``
  for a direction mask per edge of ``graph.edges()`` (:mod:`tricount.directed`)
- ``weighted_sums(graph, factors) -> float64 (n,)`` for a factor per edge
  (:mod:`tricount.weighted`)

Backend modules import their engines' kernels only when an operation runs, so
choosing the CPU never imports CuPy, and ``import tricount`` imports no Numba.

>>> backend, reason = get_backend("cpu")
>>> backend.name, reason
('cpu', 'requested')
"""

from __future__ import annotations

import logging

import tricount.gpu as gpu_engine  # not "gpu": that name is this package's submodule
from tricount.backends.cpu import CPU
from tricount.backends.gpu import GPU
from tricount.backends.reference import REFERENCE
from tricount.errors import BackendUnavailableError, check_choice

__all__ = ["BACKENDS", "get_backend"]

BACKENDS = ("auto", "cpu", "gpu", "reference")

log = logging.getLogger("tricount")


def get_backend(requested: str):
    """Return ``(backend, reason)`` for a backend name (see the module doc)."""
    check_choice(requested, "backend", BACKENDS)
    if requested == "cpu":
        return CPU, "requested"
    if requested == "reference":
        return REFERENCE, "requested"
    usable, why = gpu_engine.probe()
    if requested == "gpu":
        if not usable:
            raise BackendUnavailableError(f"backend 'gpu' is unavailable: {why}")
        return GPU, f"requested; {why}"
    if usable:
        return GPU, f"auto: {why} is usable"
    reason = f"auto: no usable GPU ({why}), using the CPU"
    log.info(reason)
    return CPU, reason
