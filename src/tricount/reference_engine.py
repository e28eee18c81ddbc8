"""The ``reference`` backend: the oracle run on a prepared graph, for --verify and tests."""

from __future__ import annotations

import time

from tricount import reference
from tricount.errors import UnknownMethodError
from tricount.prep.xp import to_host
from tricount.result import EngineResult


def count(graph, *, method: str = "auto", **options) -> EngineResult:
    if options:
        raise UnknownMethodError(f"the reference backend takes no options, got {sorted(options)}")
    if method not in ("auto", "sets"):
        raise UnknownMethodError(f"the reference backend has one method, 'sets'; got {method!r}")
    lo, hi = graph.edges()
    t0 = time.perf_counter()
    n = reference.count_triangles(to_host(lo).tolist(), to_host(hi).tolist())
    t = time.perf_counter() - t0
    return EngineResult(n, "sets", "the reference has one method",
                        {"preprocess_s": 0.0, "count_s": t})
