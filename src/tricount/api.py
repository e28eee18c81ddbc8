"""The public API: from a file, edge arrays or a graph, to a count.

    backends.select (predicted total time of every route) ─▶ cpu | gpu | reference backend
    path ──io.read_graph──▶ CSRGraph   (text formats: parse + canonicalise; .tcsr: mapped;
                                        for the gpu engine, text streams to the GPU and is
                                        canonicalised there)
    (src, dst) ──CSRGraph.from_edges──▶ CSRGraph
    engine.count: orient by (degree, id) ─▶ counting kernel ─▶ int64 count
"""

from __future__ import annotations

import os
import time

from tricount.backends import select
from tricount.errors import InvalidArgumentError, check_text
from tricount.graph import CSRGraph
from tricount.io import load_graph, read_graph
from tricount.result import CountResult

__all__ = ["count", "count_triangles", "load_graph", "as_graph"]


def as_graph(graph, *, device: str = "cpu", parser: str = "") -> tuple[CSRGraph, dict]:
    """Turn a graph, a path or a ``(src, dst)`` pair into a graph; time the steps.

    A path is loaded onto ``device`` ("cpu" or "gpu"), a text file with ``parser``
    ("numpy", where io offers it: no compilation; else io's own). Returns the graph
    and ``{"load_s": ..., "build_s": ...}``.
    """
    if isinstance(graph, CSRGraph):
        return graph, {"load_s": 0.0, "build_s": 0.0}
    if isinstance(graph, (str, os.PathLike)):
        # Any supported format; a native .tcsr file maps straight to a CSRGraph.
        extra = {"parser": parser} if parser == "numpy" else {}
        loaded = read_graph(graph, device=device, **extra)
        return loaded.graph, {"load_s": loaded.timings["load_s"],
                              "build_s": loaded.timings["build_s"]}
    if not (isinstance(graph, tuple) and len(graph) == 2):
        raise InvalidArgumentError(
            "graph must be a tricount.Graph, a file path or a (src, dst) tuple, got "
            f"{type(graph).__name__}")
    t0 = time.perf_counter()
    g = CSRGraph.from_edges(*graph)
    return g, {"load_s": 0.0, "build_s": time.perf_counter() - t0}


def count(graph, *, backend: str = "auto", method: str = "auto", **options) -> CountResult:
    """Count triangles and report what ran, why, and how long each phase took.

    Parameters
    ----------
    graph : CSRGraph, str, os.PathLike or (src, dst)
        The graph, a graph file in any supported format, or a tuple of two
        arrays of edge endpoints.
    backend : {"auto", "cpu", "gpu", "reference"}
        ``auto`` takes the backend (and on the CPU the method and the parser) whose
        predicted total time is the smallest, from the graph's size and what this
        process and the disk caches already hold (:mod:`tricount.backends.costs`):
        small graphs stay on the CPU, a GPU is used where it answers first. The
        result's ``backend_reason`` shows the predicted and the measured times.
    method : str
        A counting method of the backend, or ``auto``.
    **options
        Options of the backend, e.g. on the GPU ``max_memory`` (bytes) and
        ``orientation``. A backend rejects options it does not know.

    Raises
    ------
    InvalidArgumentError
        ``graph``, ``backend`` or ``method`` of the wrong type or value.
    BackendUnavailableError
        ``backend="gpu"`` where no GPU is usable.

    Returns
    -------
    CountResult
        ``n_triangles`` plus backend, method, reasons, graph facts and
        timings (``load_s``, ``preprocess_s``, ``count_s``, ``total_s``).
    """
    check_text(method, "method")
    t0 = time.perf_counter()
    chosen = select(backend, _workload(graph), method=method)
    engine = chosen.backend
    # A file meant for the GPU is built there, its reading overlapped with the copies.
    g, steps = as_graph(graph, device="gpu" if engine.name == "gpu" else "cpu",
                        parser=chosen.parser)
    out = engine.count(g, method=chosen.method_for(method), **options)
    total = time.perf_counter() - t0
    timings = {
        "load_s": steps["load_s"],
        "preprocess_s": steps["build_s"] + out.timings.get("preprocess_s", 0.0),
        "count_s": out.timings["count_s"],
        "total_s": total,
    }
    for extra in ("kernel_s", "gpu_s"):
        if extra in out.timings:
            timings[extra] = out.timings[extra]
    backend_reason = chosen.reason
    if chosen.route is not None and backend == "auto":
        backend_reason += f"; measured {total:.3f} s"
    return CountResult(out.n_triangles, engine.name, backend_reason, out.method,
                       chosen.method_reason(method, out.method_reason), g.summary(), timings)


def _workload(graph):
    """The cost model's view of ``graph``; an argument of the wrong type gets the
    workload of nothing, and :func:`as_graph` refuses it with its message."""
    from tricount.backends.facts import workload_of  # with the first count, not the import

    if isinstance(graph, (CSRGraph, str, os.PathLike)) or (
            isinstance(graph, tuple) and len(graph) == 2):
        return workload_of(graph)
    return workload_of(CSRGraph.from_edges([], []))


def count_triangles(graph, *, backend: str = "auto", method: str = "auto") -> int:
    """Number of distinct triangles in an undirected graph (a 64-bit exact count).

    Self-loops and repeated edges are ignored; direction is ignored.

    Takes what :func:`count` takes (a graph, a graph file or a ``(src, dst)``
    tuple; ``backend``; ``method``: ``auto`` or a method of the backend, on the
    CPU ``merge``, ``bitmap`` or ``spgemm``) and returns its ``n_triangles``.

    Examples
    --------
    K4 has 4 triangles; a bowtie (two triangles sharing a vertex) has 2:

    >>> count_triangles(([0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3]), backend="cpu")
    4
    >>> count_triangles(([0, 0, 1, 2, 2, 3], [1, 2, 2, 3, 4, 4]), backend="cpu")
    2
    """
    return count(graph, backend=backend, method=method).n_triangles
