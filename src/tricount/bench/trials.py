"""GAPBS's trial loop (``src/benchmark.h``), written once for every benchmark of tricount.

One untimed warm-up (it compiles kernels and fills pools and caches), then
``n`` trials, each prepared outside the timed span (``setup``, e.g. a fresh
copy of the graph so that its orientation is redone), synchronized before and
after (``synchronize``, e.g. the GPU's) and timed with :func:`time.perf_counter`.
``tricount bench`` (:mod:`tricount.bench.runner`) and the scripts of
``benchmarks/`` use it.

>>> warm, runs = trial_loop(lambda _: 2 + 2, 3)
>>> warm, [run.value for run in runs]
(4, [4, 4, 4])
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from tricount.gpu.device import cupy
from tricount.graph import CSRGraph

__all__ = ["Trial", "trial_loop", "fresh_graph", "gpu_synchronize"]


@dataclass(frozen=True)
class Trial:
    """One timed trial: what the call returned and its synchronized wall seconds."""

    value: object
    seconds: float


def trial_loop(call, n: int, *, setup=None, synchronize=None, budget_s: float | None = None,
               each=None, keep: bool = True):
    """``(warm_value, [Trial, ...])``: ``call(setup())`` once untimed, then ``n`` times timed.

    ``setup`` (default: nothing, ``call(None)``) prepares each run outside the
    timed span; ``synchronize`` runs before and after each timed call. With
    ``budget_s``, a warm-up that took ``w`` seconds leaves at most
    ``budget_s / w`` trials (at least one). ``each(index, trial)`` is called
    after every trial (records, checks, progress); without ``keep`` the trials
    keep no value once ``each`` has seen it (large results).
    """
    prepare = setup or (lambda: None)
    sync = synchronize or (lambda: None)
    t0 = time.perf_counter()
    warm = call(prepare())
    sync()
    warm_s = time.perf_counter() - t0
    if budget_s is not None and warm_s * n > budget_s:
        n = max(1, int(budget_s // max(warm_s, 1e-9)))
    runs = []
    for index in range(n):
        argument = prepare()
        sync()
        t0 = time.perf_counter()
        value = call(argument)
        sync()
        trial = Trial(value, time.perf_counter() - t0)
        del value
        if each is not None:
            each(index, trial)
        runs.append(trial if keep else Trial(None, trial.seconds))
    return warm, runs


def gpu_synchronize() -> None:
    """Wait for everything queued on the current GPU (CuPy imported on first use)."""
    cupy().cuda.runtime.deviceSynchronize()


def fresh_graph(graph: CSRGraph) -> CSRGraph:
    """The same graph, where it is, without its cached orientation: a trial that
    counts it redoes (and times) the orientation, and the copy when on the host."""
    lo, hi = graph.edges()
    return CSRGraph(lo, hi, graph.n_vertices, vertex_ids=graph.vertex_ids,
                    self_loops_dropped=graph.self_loops_dropped,
                    duplicates_dropped=graph.duplicates_dropped, name=graph.name)
