"""The Dask executor: a plan's sub-problems as tasks on a ``dask.distributed`` cluster.

One task per sub-problem (``client.submit``); each worker counts with its GPU
when it has one and with the CPU engine otherwise
(:func:`tricount.partition.counters.subproblem_counter`), and returns its count
with what ran where; the driver adds the counts as Python integers (exact).

What travels: a ``.tcsr`` path is sent as a string, and every worker reads
the file itself (once per process) and cuts its own blocks from it
(:func:`tricount.partition.blocks.open_source`), so the graph never passes
through the scheduler; the path must name the same file on every worker (a
shared filesystem, or one machine). A graph in memory is scattered once,
broadcast to every worker, and each task gets a reference to it.

A path is planned on the cluster too (:func:`plan_on_cluster`): one worker
reads the file, takes the in-degrees its rank check counted, the probes per
apex and the plan, while every other worker reads the file at the same time;
the driver reads none of it. The plan needs a pass over every edge, and the
worker that makes it needs the file in memory for its own sub-problems anyway.

``dask`` and ``distributed`` are optional (``pip install ".[dask]"`` from a clone) and
imported only here, when a count runs.
"""

from __future__ import annotations

import time
import uuid

from tricount.errors import BackendUnavailableError

__all__ = ["count_on_cluster", "default_client", "plan_on_cluster"]


def _distributed():
    try:
        import distributed
    except ImportError:
        raise BackendUnavailableError(
            'the Dask executor needs dask and distributed (pip install ".[dask]" from a '
            'tricount clone)'
        ) from None
    return distributed


def default_client():
    """The current ``distributed.Client``, or a clear error when there is none."""
    distributed = _distributed()
    try:
        return distributed.get_client()
    except ValueError:
        raise BackendUnavailableError(
            "executor='dask' needs a running dask.distributed client: pass client=Client(...) "
            "(e.g. Client(LocalCluster()) or Client('tcp://scheduler:8786'))") from None


def _address():
    """This worker's address, or None outside a Dask worker."""
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return None


def _open_task(path):
    """Run on a worker: read ``path`` into this process's cache (before its sub-problems come)."""
    from tricount.partition.blocks import open_source

    t0 = time.perf_counter()
    open_source(path)
    return {"worker": _address(), "open_s": time.perf_counter() - t0}


def _plan_task(path, partitions, max_memory):
    """Run on a worker: the plan of the graph in ``path`` and the graph's facts."""
    from tricount.partition import plan_graph
    from tricount.partition.blocks import open_source

    t0 = time.perf_counter()
    ranked = open_source(path)  # ranked in memory here (and so on every worker) if it is not
    t1 = time.perf_counter()
    plan = plan_graph(ranked, partitions=partitions, max_memory=max_memory)
    t2 = time.perf_counter()
    return {"plan": plan, "n_vertices": ranked.n_vertices, "n_edges": ranked.n_edges,
            "ranked": ranked.rank is None, "worker": _address(), "open_s": t1 - t0,
            "statistics_s": t2 - t1}


def plan_on_cluster(path: str, *, partitions=None, max_memory=None, client=None, workers=None):
    """Plan the count of the ``.tcsr`` file ``path`` on a worker; ``(facts, warm)``.

    One task reads the file, counts the probes per apex and plans
    (:func:`tricount.partition.plan_graph`); beside it, one task per worker (of
    ``workers``, default all) reads the file into that worker's cache, so the
    reads overlap the planning and the sub-problems find the file in memory.
    ``facts`` is the planning task's dict (``plan``, ``n_vertices``,
    ``n_edges``, ``ranked``, ``worker``, ``open_s``, ``statistics_s``);
    ``warm`` the reading tasks' futures, for the caller to release once the
    sub-problems are counted.
    """
    _distributed()
    client = client or default_client()
    token = uuid.uuid4().hex[:8]
    planned = client.submit(_plan_task, path, partitions, max_memory, pure=False,
                            workers=workers, key=f"tricount-plan-{token}")
    addresses = list(workers) if workers else list(client.nthreads())
    warm = [client.submit(_open_task, path, pure=False, workers=[address],
                          allow_other_workers=False, key=f"tricount-open-{i}-{token}")
            for i, address in enumerate(addresses)]
    try:
        facts = planned.result()
    except BaseException:
        for f in warm:
            f.release()
        raise
    finally:
        planned.release()
    return facts, warm


def _count_task(source, sub, prefer):
    """Run on a worker: count one sub-problem with this worker's best counter."""
    from tricount.partition.counters import subproblem_counter

    counter, reason = subproblem_counter(prefer)
    out = counter(source, sub)
    out["worker"] = _address()
    out["counter_reason"] = reason
    return out


def count_on_cluster(source, subproblems, *, client=None, workers=None, prefer="auto"):
    """Count ``subproblems`` on a Dask cluster; returns the per-sub-problem results in order.

    ``source`` is a rank-ordered ``.tcsr`` path (opened by each worker) or a
    :class:`~tricount.partition.ranked.RankedCSR` (scattered once).
    ``workers`` restricts the tasks to those worker addresses.
    """
    _distributed()
    client = client or default_client()
    scattered = None
    if not isinstance(source, str):
        [scattered] = client.scatter([source], broadcast=True, hash=False)
        source = scattered
    token = uuid.uuid4().hex[:8]
    futures = [client.submit(_count_task, source, sub, prefer, pure=False, workers=workers,
                             key=f"tricount-subproblem-{sub.index}-{sub.row_lo}-{token}")
               for sub in subproblems]
    try:
        return client.gather(futures)
    finally:
        for f in futures:
            f.release()
        if scattered is not None:
            scattered.release()
