"""The public API: from a file, edge arrays or a graph, to a count.

    backends.get_backend ─▶ cpu | gpu | reference backend
    path ──io.read_graph──▶ CSRGraph   (text formats: parse + canonicalise; .tcsr: mapped;
                                        for the gpu engine, text streams to the GPU and is
                                        canonicalised there)
    (src, dst) ──CSRGraph.from_edges──▶ CSRGraph
    engine.count: orient by (degree, id) ─▶ counting kernel ─▶ int64 count
"""

from __future__ import annotations

import time

from tricount import inputs
from tricount.backends import get_backend
from tricount.errors import check_text
from tricount.graph import CSRGraph
from tricount.io import load_graph
from tricount.result import CountResult

__all__ = ["count", "count_triangles", "load_graph", "as_graph"]


def as_graph(graph, *, device: str = "cpu", vertices: str = "edges") -> tuple[CSRGraph, dict]:
    """Turn any graph a user holds (a graph, a path, a NetworkX graph, a table, arrays, ...)
    into a graph; time the steps. See :func:`tricount.inputs.as_graph`."""
    return inputs.as_graph(graph, device=device, vertices=vertices)


def count(graph, *, backend: str = "auto", method: str = "auto", **options) -> CountResult:
    """Count triangles and report what ran, why, and how long each phase took.

    Parameters
    ----------
    graph : graph-like
        A :class:`CSRGraph`, a graph file in any supported format, or any graph
        a user holds: a NetworkX or igraph graph, a SciPy sparse matrix, a
        pandas / pyarrow / polars table, ``(src, dst)`` arrays, an ``(m, 2)``
        array or a list of pairs, a CuPy or DLPack array (see
        :mod:`tricount.inputs`).
    backend : {"auto", "cpu", "gpu", "reference"}
        ``auto`` uses the GPU when one is usable, else the CPU, and says why.
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
    engine, backend_reason = get_backend(backend)
    # A file meant for the GPU is built there, its reading overlapped with the copies.
    g, steps = as_graph(graph, device="gpu" if engine.name == "gpu" else "cpu")
    out = engine.count(g, method=method, **options)
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
    return CountResult(out.n_triangles, engine.name, backend_reason, out.method, out.method_reason,
                       g.summary(), timings)


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
