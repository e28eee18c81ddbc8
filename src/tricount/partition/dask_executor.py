"""The Dask executor: a plan's sub-problems as tasks on a ``dask.distributed`` cluster.

One task per sub-problem (``client.submit``); each worker counts with its GPU
when it has one and with the CPU engine otherwise
(:func:`tricount.partition.counters.subproblem_counter`), and returns its count
with what ran where; the driver adds the counts as Python integers (exact).

What travels: a ``.tcsr`` path in rank order is sent as a string, and every
worker maps the file itself and cuts its own blocks from it
(:func:`tricount.partition.blocks.open_source`), so the graph never passes
through the scheduler; the path must name the same file on every worker (a
shared filesystem, or one machine). A graph in memory is scattered once,
broadcast to every worker, and each task gets a reference to it.

``dask`` and ``distributed`` are optional (``pip install ".[dask]"`` from a clone) and
imported only here, when a count runs.
"""

from __future__ import annotations

import uuid

from tricount.errors import BackendUnavailableError

__all__ = ["count_on_cluster", "default_client"]


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


def _count_task(source, sub, prefer):
    """Run on a worker: count one sub-problem with this worker's best counter."""
    from tricount.partition.counters import subproblem_counter

    counter, reason = subproblem_counter(prefer)
    out = counter(source, sub)
    try:
        from distributed import get_worker

        out["worker"] = get_worker().address
    except (ImportError, ValueError):
        out["worker"] = None
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
