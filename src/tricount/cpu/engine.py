"""The CPU backend: resolve a method, orient the graph, run the counter, time each phase."""

from __future__ import annotations

import time

from tricount.cpu import CPU_METHODS, GPU_ONLY_METHODS
from tricount.errors import UnknownMethodError
from tricount.result import EngineResult


def resolve_method(method: str) -> tuple[str, str]:
    """Return ``(method, reason)`` for a requested CPU method name."""
    if method == "auto":
        return "bitmap", "auto: bitmap beat merge on every measured CPU graph (1.4-2.4x, benchmarks/results/cpu*.md)"
    if method in CPU_METHODS:
        return method, "requested"
    if method in GPU_ONLY_METHODS:
        raise UnknownMethodError(
            f"method {method!r} runs only on the GPU backend; CPU methods: "
            f"{', '.join(CPU_METHODS)} (or auto)"
        )
    raise UnknownMethodError(
        f"unknown method {method!r}; CPU methods: {', '.join(CPU_METHODS)} (or auto)"
    )


def count(graph, *, method: str = "auto", **options) -> EngineResult:
    """Count the triangles of a :class:`~tricount.CSRGraph` on the CPU."""
    if options:
        raise UnknownMethodError(
            f"the CPU backend takes no method options, got {', '.join(sorted(options))}")
    name, reason = resolve_method(method)
    graph = graph.to_device(__import__("numpy"))
    t0 = time.perf_counter()
    oriented = graph.oriented()
    t1 = time.perf_counter()
    if name == "merge":
        from tricount.cpu.merge import count_merge as counter
    elif name == "bitmap":
        from tricount.cpu.bitmap import count_bitmap as counter
    else:
        from tricount.cpu.spgemm import count_spgemm as counter
    n_triangles = counter(oriented)
    t2 = time.perf_counter()
    return EngineResult(n_triangles, name, reason,
                        {"preprocess_s": t1 - t0, "count_s": t2 - t1, "kernel_s": t2 - t1})
