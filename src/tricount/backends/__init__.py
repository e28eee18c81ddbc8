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
- ``list_triangles(graph, *, chunk_size, labels=None, columns=False, count_first=True)
  -> (n_triangles, chunks)``: the triangles counted now, then streamed as ``(k, 3)``
  int64 rows (each a new array) or, with ``columns``, ``(3, k)`` columns valid until
  the next chunk (:mod:`tricount.listing`); with ``count_first=False`` a backend may
  skip the count, list as the chunks are asked for and return None for the total
- ``directed_counts(graph, mask, *, per_vertex=True) -> (int64 (4, n), int64 (64,))``
  for a direction mask per edge of ``graph.edges()`` (:mod:`tricount.directed`)
- ``weighted_sums(graph, factors) -> float64 (n,)`` for a factor per edge
  (:mod:`tricount.weighted`)

Backend modules import their engines' kernels only when an operation runs, so
choosing the CPU never imports CuPy, and ``import tricount`` imports no Numba.

A count that knows what it counts (:class:`~tricount.backends.facts.Workload`) is
placed by :func:`select` instead: the cost model (:mod:`tricount.backends.costs`)
predicts the total time of every route (backend, method, parser) from the workload
and what is warm (:func:`tricount.backends.facts.observe`), and ``auto`` takes the
fastest, probing the GPU (which imports CuPy) only when a GPU route is the fastest.

>>> backend, reason = get_backend("cpu")
>>> backend.name, reason
('cpu', 'requested')
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import tricount.gpu as gpu_engine  # not "gpu": that name is this package's submodule
from tricount.backends.cpu import CPU
from tricount.backends.gpu import GPU
from tricount.backends.reference import REFERENCE
from tricount.errors import BackendUnavailableError, check_choice

__all__ = ["BACKENDS", "get_backend", "backend_for", "select", "Selection"]

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


#: Edges (as the cost model estimates them: a text file's lines) up to which
#: :func:`backend_for`'s ``auto`` may keep a computation on the CPU. The count's model is
#: its proxy, and a count of a mid-size graph has a NumPy route that a per-vertex count or a
#: listing has not (past :data:`tricount.cpu.walk_numpy.MAX_WEDGES` they start Numba). On
#: the H100 machine's 16-core host (2026-11-26, fresh processes, warm caches), `tricount
#: clustering` on the CPU against the GPU: karate 0.64-0.72 against 1.57-1.78 s,
#: email-Enron (estimated 240,696 edges; NumPy's walk) 0.79-0.94 against 1.60-2.30 s; but
#: on the CPU through Numba soc-Epinions1 (545,183) 2.11-2.17 s, blogcatalog (406,793)
#: 2.17-2.87, R-MAT 16 (1,049,338) 2.90-3.67 against 1.86-2.40 on the GPU.
LOCAL_CPU_MAX_EDGES = 1 << 18


def backend_for(requested: str, graph):
    """``(backend, reason)`` of a computation on ``graph`` other than a count (per vertex,
    per edge, a listing, directed or weighted sums): ``requested`` as :func:`get_backend`
    takes it, but ``auto`` by :func:`select`'s predicted total for counting ``graph``, so
    that a graph of at most :data:`LOCAL_CPU_MAX_EDGES` edges whose count the CPU answers
    first (CuPy's import and the device's context cost more than the work) is computed on
    the CPU, and the GPU is not started for it. Larger graphs, and what the cost model
    cannot size without building it (a NetworkX graph, a table), take
    :func:`get_backend`'s ``auto``."""
    check_choice(requested, "backend", BACKENDS)
    if requested != "auto":
        return get_backend(requested)
    from tricount.backends.facts import sizable, workload_of

    if not sizable(graph):
        return get_backend("auto")
    workload = workload_of(graph)
    if workload.n_edges > LOCAL_CPU_MAX_EDGES:
        return get_backend("auto")
    chosen = select("auto", workload)
    return chosen.backend, chosen.reason


@dataclass(frozen=True)
class Selection:
    """Where a count runs: the ``backend`` object and why (``reason``); the predicted
    ``route`` (None for the reference, or when no route fits the request) and every
    candidate route, fastest first."""

    backend: object
    reason: str
    route: object = None  # a tricount.backends.costs.Route
    routes: tuple = ()
    warm_up_note: str = ""  # why a warm-up is paid now (costs.WarmUpLedger), or ''

    @property
    def parser(self) -> str:
        """The parser the route reads a text file with ("numba" or "numpy"), or "auto" (io's
        own choice) when it reads none."""
        return (self.route.parser if self.route is not None else "") or "auto"

    def method_for(self, requested: str) -> str:
        """The method to run: the route's CPU counter when ``auto`` was asked on the CPU."""
        route = self.route
        if requested == "auto" and route is not None and route.backend == "cpu":
            return route.method
        return requested

    def method_reason(self, requested: str, engine_reason: str) -> str:
        """The engine's reason, or for ``auto`` on the CPU the CPU routes' predictions."""
        if self.method_for(requested) == requested or self.route is None:
            return engine_reason
        from tricount.backends.costs import explain

        note = f"; {self.warm_up_note}" if self.warm_up_note else ""
        return "auto: " + explain(self.route, [r for r in self.routes if r.backend == "cpu"]) + note


def select(requested: str, workload, *, method: str = "auto", warmth=None,
           remember: bool = False) -> Selection:
    """The backend of a count of ``workload`` (a :class:`~tricount.backends.facts.Workload`),
    by predicted total time for ``auto``; ``warmth`` (a
    :class:`~tricount.backends.facts.Warmth`) defaults to what is observed now.
    With ``remember`` (a count that will run: :func:`tricount.count`), the process's
    :data:`~tricount.backends.costs.WARM_UPS` records what the pick loses to a route
    not yet warm, and puts that route first once it has lost its warm-up's cost; the
    note joins the reason.

    ``"cpu"`` and ``"reference"`` are taken as asked; ``"gpu"`` raises
    :class:`BackendUnavailableError` without a usable GPU. ``"auto"`` takes the
    fastest route of :func:`tricount.backends.costs.candidates`; a GPU route is
    probed first, and when the probe fails the next route is taken and the reason
    says why. The reason always shows the predicted times.

    A count that will run (``remember``) and whose route compiles kernels says so first,
    as a warning of the ``tricount`` logger (:func:`tricount.backends.costs.compile_notice`):
    on stderr unless logging is set otherwise (the CLI's ``--quiet`` silences it).
    """
    chosen = _select(requested, workload, method=method, warmth=warmth, remember=remember)
    if remember and chosen.route is not None:
        from tricount.backends.costs import compile_notice

        notice = compile_notice(chosen.route)
        if notice is not None:
            log.warning(notice)
    return chosen


def _select(requested: str, workload, *, method: str, warmth, remember: bool) -> Selection:
    check_choice(requested, "backend", BACKENDS)
    if requested == "reference":
        return Selection(REFERENCE, "requested")
    # The model is imported with the first count, not with ``import tricount``.
    from tricount.backends import costs
    from tricount.backends.facts import observe

    warmth = warmth or observe()
    allowed = tuple(costs.candidates(workload, warmth, backend=requested, method=method))
    warm_up = ""
    if remember:  # for "gpu", between its routes (a text's parsers)
        allowed, warm_up = costs.WARM_UPS.place(allowed)
    note = f"; {warm_up}" if warm_up else ""
    best = allowed[0] if allowed else None
    if requested == "cpu":
        return Selection(CPU, f"requested{note}", best, allowed, warm_up)
    if requested == "gpu":
        backend, reason = get_backend("gpu")
        return Selection(backend, f"{reason}{note}", best, allowed, warm_up)
    skipped = f"no usable GPU ({warmth.gpu_why}); " if warmth.gpu == "absent" else ""
    backends = costs.best_per_backend(allowed)
    for route in allowed:
        if route.backend == "cpu":
            reason = f"auto: {skipped}{costs.explain(route, backends)}{note}"
            log.info(reason)
            return Selection(CPU, reason, route, allowed, warm_up)
        usable, why = gpu_engine.probe()
        if usable:
            reason = f"auto: {why}; {costs.explain(route, backends)}{note}"
            log.info(reason)
            return Selection(GPU, reason, route, allowed, warm_up)
        skipped = f"no usable GPU ({why}); "
        note = warm_up = ""  # a GPU warm-up put first is not paid: the probe failed
        backends = [r for r in backends if r.backend != "gpu"]
    backend, reason = get_backend("auto")  # no route fits the method: the engine will say
    return Selection(backend, reason, None, allowed)
