"""The Dask executor: a plan's pieces as tasks on a ``dask.distributed`` cluster.

What :func:`tricount.partition.gpu.count_gpu` does with the GPUs of one host, done with the
workers of a cluster (dask-cuda's ``LocalCUDACluster``: one worker per GPU), each keeping
its graph across the count's tasks:

    driver                     planning worker (the first)      every other worker
    ──plan task──────────────▶ read, prepare                    read, prepare (meanwhile)
                               plan, pieces
    ◀─plan, pieces───────────
    pieces assigned, heaviest first to the least loaded worker ─▶ count tasks, each on
                                                                  its worker's kept graph
    Σ counts (Python ints: exact)
    ──release task per worker─▶ the kept graph freed; the device's account comes back

- **Prepare** (:func:`tricount.partition.counters.prepare_graph`): on a worker with a GPU,
  a plain ``.tcsr`` read straight into device memory where the plan keeps the graph
  there (:mod:`tricount.io.native_gpu`; else read into host memory and copied), its
  degrees, rank check and in-degrees taken there
  (:mod:`tricount.partition.device_graph`): no pass over the edges on the CPU. On a
  worker without one, the file read and ranked on the CPU
  (:mod:`tricount.partition.host_graph`).
- **Plan**, on the planning worker, from its prepared graph: with a GPU as ``count_gpu``
  plans (one range whose block is the CSR itself when the device keeps it, else the least
  k whose blocks fit, from the in-degrees read back), on the CPU the probes per apex
  (:func:`tricount.partition.plan_graph`: the plan the driver would make). With several
  workers each range is cut into as many pieces of about equal anchor work as
  ``count_gpu`` cuts for as many devices (:func:`tricount.partition.pieces.pieces_per_range`).
- **Keep**: each worker process holds the graph it prepared
  (:data:`tricount.partition.worker_cache.PREPARED`: one graph per process, keyed by the
  count's token and the file's path), so its second, third… piece pays no read, no copy
  and no orientation. Every task reports the identity of the file its worker read, and a
  piece refuses a graph read from another file than the plan's (:func:`_count_task`,
  :meth:`ClusterCount.check_one_file`): a file rewritten during a count is an error,
  never a total of two graphs. The driver releases it at the end of
  the count, finished or failed (a release task per worker); a task that raises releases
  it on its worker; a worker process that dies takes its memory with it.
- **Assign** (:func:`assign_pieces`): heaviest piece first to the worker with the least
  estimated work, then each worker's pieces in range order (a block built once per range)
  as task priorities. Pieces are placed on their worker (``workers=[address]``, with
  ``allow_other_workers`` so a lost worker's pieces still run elsewhere, and a piece the
  scheduler steals is counted on the thief's kept graph: every worker prepared it). A
  worker's pieces depend on its own preparation task, so none is stolen while that
  worker still reads the file (:meth:`ClusterCount.count`). The
  releases go to every worker of the cluster. Handing one range's pieces out as workers
  free up was tried (run 14b, two H200s, R-MAT 26) and lost: Dask places a task restricted
  to a set of workers when it is submitted, on the least busy one, and the planning worker
  was the free one then: it took 7 of the 8 pieces (0.91 s against 0.61 s placed).

What travels: a ``.tcsr`` path as a string (the same file on every worker: a shared
filesystem, or one machine), the plan and the pieces (small), the counts. A graph in
memory is ranked and planned by the driver and scattered once (broadcast); the workers
then keep their own graph of it as for a file.

``dask`` and ``distributed`` are optional (``pip install ".[dask]"`` from a clone) and
imported only here, when a count runs.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import time
import uuid

from tricount.errors import BackendUnavailableError, InvalidArgumentError, TricountError
from tricount.partition.plan import SubProblem

__all__ = ["ClusterCount", "assign_pieces", "checked_client", "default_client"]

#: Seconds the driver waits for the release tasks of a count before giving up on a worker
#: (one that died has freed its memory with it).
RELEASE_TIMEOUT_S = 60
#: Seconds between the driver's looks at the cluster while it waits for the plan: a plan
#: placed on a worker that has since left (a nanny's restart gives the process a new
#: address) would wait for it forever; it is placed again on a worker that is there.
PLAN_POLL_S = 5


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


def checked_client(client):
    """``client`` if it is a connected ``distributed.Client``, else a clear error."""
    distributed = _distributed()
    if not isinstance(client, distributed.Client):
        raise InvalidArgumentError(
            f"client must be a distributed.Client, got {type(client).__name__}; connect one "
            "with distributed.Client('tcp://scheduler:8786') or Client(LocalCluster())")
    if client.status in ("closing", "closed"):
        raise BackendUnavailableError(
            "the Dask client is closed; connect a new distributed.Client")
    return client


def assign_pieces(pieces, n_workers: int) -> list[list[SubProblem]]:
    """Per worker, the pieces it counts, in the order it should count them.

    Heaviest piece first (estimated ``work``) to the worker with the least work so far
    (ties: fewer pieces, then the lower position), the greedy that leaves the busiest
    worker within one piece of the mean; then each worker's pieces by range, heaviest
    first within one, so a range's block is built once per worker.

    >>> subs = [SubProblem(0, 0, 8, 10, w, 0, a, a + 1) for a, w in enumerate([5, 1, 4, 2])]
    >>> [[p.work for p in mine] for mine in assign_pieces(subs, 2)]
    [[5, 1], [4, 2]]
    """
    load = [0] * n_workers
    out: list[list[SubProblem]] = [[] for _ in range(n_workers)]
    for piece in sorted(pieces, key=lambda s: (-s.work, s.index, s.row_lo, s.owner_lo)):
        i = min(range(n_workers), key=lambda j: (load[j], len(out[j]), j))
        out[i].append(piece)
        load[i] += piece.work
    for mine in out:
        mine.sort(key=lambda s: (s.index, -s.work, s.row_lo, s.owner_lo))
    return out


# -- on the workers ------------------------------------------------------------------------------


def _address():
    """This worker's address, or None outside a Dask worker."""
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return None


def _kept(source, token, options):
    """This process's kept graph of ``source`` for count ``token`` (made here if it is not
    held): a context yielding ``(graph, built)``, the cache's lock held.

    A file's graph is kept under its path, with the file's identity when it was read
    (``graph.file_identity``, :func:`~tricount.partition.worker_cache.file_key`): every
    task reports it, and the driver refuses a count whose tasks read different files
    (:meth:`ClusterCount.check_one_file`). A held graph is used as it is, so a file
    rewritten or deleted after a worker read it changes nothing there."""
    from tricount.partition.counters import prepare_graph
    from tricount.partition.worker_cache import PREPARED

    if not isinstance(source, str):
        return PREPARED.use((token, "scattered"), lambda: prepare_graph(source, **options))

    def build():
        before = _identity_of(source)
        graph = prepare_graph(source, **options)
        if _identity_of(source) != before:  # rewritten while it was read: no one graph
            graph.close()
            raise TricountError(f"{source}: the file changed while a Dask worker read it; "
                                "count it again once it is written")
        graph.file_identity = before
        return graph

    return PREPARED.use((token, os.path.abspath(source)), build)


def _identity_of(path) -> tuple:
    """:func:`~tricount.partition.worker_cache.file_key` of ``path``, or the reader's error
    for a file this worker cannot open."""
    from tricount.io.source import check_readable
    from tricount.partition.worker_cache import file_key

    check_readable(path)  # GraphFormatError naming the file (missing, a folder, ...)
    return file_key(path)


def _prepare_task(source, token, options):
    """Read and prepare the graph on this worker while the planning worker plans."""
    t0 = time.perf_counter()
    with _kept(source, token, options) as (graph, built):
        return {"worker": _address(), "where": graph.where, "built": built,
                "ready_s": time.perf_counter() - t0, "file": _file_of(graph), **graph.timings}


def _file_of(graph):
    """The identity of the file a kept graph was read from (None: a scattered graph)."""
    return getattr(graph, "file_identity", None)


def _plan_task(source, token, options, workers: int):
    """Prepare the graph here and plan from it, each range cut for ``workers`` workers as
    ``count_gpu`` cuts it for as many devices: the plan, its pieces and the graph's facts."""
    from tricount.partition.pieces import pieces_per_range

    t0 = time.perf_counter()
    with _kept(source, token, options) as (graph, built):
        t1 = time.perf_counter()
        plan, items = graph.plan(pieces=pieces_per_range(workers, graph.facts["edges"]),
                                 workers=workers)
        t2 = time.perf_counter()
        return {"plan": plan, "pieces": items, "facts": dict(graph.facts),
                "worker": _address(), "where": graph.where, "reason": graph.reason,
                "built": built, "ready_s": t1 - t0, "statistics_s": t2 - t1,
                "file": _file_of(graph), **graph.timings}


def _count_task(source, token, options, piece, ready=None, planned_file=None):
    """Count one piece with this worker's kept graph. ``ready`` is the result of the
    preparation this piece waits for (a dependency only, see :meth:`ClusterCount.count`);
    ``planned_file`` the identity of the file the plan was made from (None: not known),
    which the kept graph must have been read from."""
    with _kept(source, token, options) as (graph, built):
        if planned_file is not None and _file_of(graph) != tuple(planned_file):
            raise TricountError(_CHANGED.format(source=source))
        out = graph.count(piece)
        out["counter_reason"] = graph.reason
        out["file"] = _file_of(graph)
    out["worker"] = _address()
    out["prepared"] = "built" if built else "kept"
    return out


#: What a count says when its file was rewritten between the plan and a worker's read.
_CHANGED = ("{source}: the file changed while the Dask workers read it, between the plan and "
            "its pieces; count it again once it is written")


def _release_task(token):
    """Free this process's graph of count ``token``; the device's account, or None."""
    from tricount.partition.worker_cache import PREPARED

    account = PREPARED.release(token)
    return None if account is None else dict(account, worker=_address())


# -- on the driver -------------------------------------------------------------------------------


class ClusterCount(contextlib.AbstractContextManager):
    """One count's tasks on a cluster: its token, its workers and what they keep.

    ``source`` is a ``.tcsr`` path (opened by each worker) or a RankedCSR (scattered
    once). Use as a context manager: leaving it releases every worker's kept graph and
    collects the devices' accounts (``accounts``) and the other workers' preparation
    (``ready``).
    """

    def __init__(self, source, *, client=None, workers=None, prefer="auto", partitions=None,
                 max_memory=None):
        self.client = default_client() if client is None else checked_client(client)
        self.addresses = list(workers) if workers else self._live()
        self.token = uuid.uuid4().hex[:12]
        self.options = {"prefer": prefer, "partitions": partitions, "max_memory": max_memory}
        self.scattered = None
        #: The identity of the file the plan was made from (``plan`` sets it, or the
        #: driver that planned from its own read); every piece checks its worker's read.
        self.file = None
        if not isinstance(source, str):
            [self.scattered] = self.client.scatter([source], broadcast=True, hash=False)
            source = self.scattered
        self.source = source
        self.warm = []
        self.ready, self.accounts = [], []

    def _live(self) -> list:
        """The addresses of the cluster's workers now; a cluster of none is refused."""
        live = sorted(self.client.nthreads())
        if not live:
            raise BackendUnavailableError(
                "the Dask cluster has no workers: start some (LocalCluster(n_workers=2), "
                "dask worker SCHEDULER) or wait until they have joined")
        return live

    def pieces_per_range(self, n_edges: int) -> int:
        """Pieces each range of a graph of ``n_edges`` edges is cut into: as ``count_gpu``
        cuts it for as many devices."""
        from tricount.partition.pieces import pieces_per_range

        return pieces_per_range(len(self.addresses), n_edges)

    def _submit(self, fn, *args, address=None, pinned=False, name, **kwargs):
        """Submit a task on ``address`` (a worker, or a list of them; None: any)."""
        where = [address] if isinstance(address, str) else address
        return self.client.submit(fn, *args, pure=False, key=f"tricount-{name}-{self.token}",
                                  workers=where, allow_other_workers=not pinned, **kwargs)

    def plan(self) -> dict:
        """Plan on the first worker while every other one prepares; ``_plan_task``'s dict.

        Every :data:`PLAN_POLL_S` seconds the driver looks whether the planning worker is
        still in the cluster; if it left before the plan ran, the plan and the
        preparations go again to the workers there now."""
        for attempt in itertools.count():
            planned = self._submit(_plan_task, self.source, self.token, self.options,
                                   len(self.addresses), address=self.addresses[0],
                                   name=f"plan-{attempt}")
            # Loose, like the pieces that wait for them: a lost worker's preparation, and
            # then its pieces, run elsewhere. Each starts at once on its idle worker, so none
            # is stolen while the planning worker plans.
            self.warm = [self._submit(_prepare_task, self.source, self.token, self.options,
                                      address=a, name=f"prepare-{attempt}-{i}")
                         for i, a in enumerate(self.addresses[1:], 1)]
            try:
                while True:
                    try:
                        result = self._result(planned, timeout=PLAN_POLL_S)
                        self.file = result.get("file")
                        return result
                    except TimeoutError:
                        live = self._live()
                        if self.addresses[0] not in live and planned.status == "pending":
                            break  # placed on a worker that left: place it again
            finally:
                planned.release()
            self._cancel(self.warm)
            self.addresses = live

    def _result(self, future, timeout=None):
        """``future``'s result; the cluster's own failures (a worker killed again and
        again, a count cancelled, the client closed) as :class:`BackendUnavailableError`."""
        distributed = _distributed()
        try:
            return future.result(timeout=timeout)
        except TimeoutError:
            raise
        except (distributed.client.FutureCancelledError, distributed.scheduler.KilledWorker,
                distributed.client.ClosedClientError) as exc:
            if self.client.status in ("closing", "closed"):
                raise BackendUnavailableError("the Dask client was closed during the count; "
                                              "connect a new distributed.Client") from None
            raise BackendUnavailableError(
                f"the Dask cluster lost the count ({type(exc).__name__}: {exc}); check the "
                "workers (their memory limits, their logs) and count again") from None

    def _cancel(self, futures) -> None:
        """Cancel what has not run (a closed client cancels nothing, and says so)."""
        try:
            self.client.cancel([f for f in futures if not f.done()])
        except Exception:  # noqa: BLE001 - the client closed: its futures went with it
            pass

    def check_one_file(self, results) -> None:
        """Refuse a count whose tasks read different files (``results``' ``file``): the
        file was rewritten between the workers' reads, and each range would be counted in
        another graph."""
        files = {r.get("file") for r in results}
        if len(files) > 1:
            raise TricountError(_CHANGED.format(source=self.source))

    def count(self, pieces) -> list[dict]:
        """Count ``pieces`` (:func:`assign_pieces` over the workers); results in their order.

        A worker's pieces depend on its own preparation: queued behind it, a piece is not
        on any worker yet, so Dask's work stealing cannot hand it to the planning worker
        while this one still reads the file (R-MAT 28 on two H200s, device run 25: the
        planning worker took a fifth piece and the count ran 13 % over ``devices="all"``).
        The planning worker's pieces go at once (it prepared before it planned)."""
        futures = {}
        ready = dict(zip(self.addresses[1:], self.warm))
        live = set(self._live())
        if not set(self.addresses) <= live:  # a worker left: its pieces go to those there
            self.addresses = [a for a in self.addresses if a in live] or sorted(live)
        for address, mine in zip(self.addresses, assign_pieces(pieces, len(self.addresses))):
            for order, piece in enumerate(mine):
                futures[piece] = self._submit(
                    _count_task, self.source, self.token, self.options, piece,
                    ready.get(address), self.file, address=address,
                    name=f"piece-{piece.index}-{piece.row_lo}-{piece.owner_lo}",
                    priority=len(mine) - order)
        try:
            return [self._result(futures[p]) for p in pieces]
        except BaseException:
            self._cancel(list(futures.values()))
            raise
        finally:
            for f in futures.values():
                f.release()

    def __exit__(self, *exc):
        self.close(failed=exc[0] is not None)
        return False

    def close(self, *, failed: bool = False) -> None:
        """Release every worker's kept graph (waiting for it), then the scattered graph.

        After a failure the preparations still running are cancelled rather than waited
        for (one that finishes keeps its graph until its process prepares another). The
        releases go to the workers in the cluster now: one that left took its memory."""
        released = []
        if self.client.status in ("closing", "closed"):
            self.warm = []
            return  # its futures, and the workers' graphs' owner, went with it
        if failed:
            self._cancel(self.warm)
        # The preparations first: one that ran after its worker's release would keep a
        # graph nobody releases (until the process prepares another).
        deadline = time.monotonic() + RELEASE_TIMEOUT_S
        self._settle(self.warm, deadline)
        # Every worker of the cluster: a piece the scheduler moved (loose restrictions)
        # may have prepared the graph outside ``addresses``.
        released = [self._submit(_release_task, self.token, address=a, pinned=True,
                                 name=f"release-{i}")
                    for i, a in enumerate(sorted(self.client.nthreads()))]
        self._settle(released, time.monotonic() + RELEASE_TIMEOUT_S)
        self.accounts = [f.result() for f in released if f.status == "finished"
                         and f.result() is not None]
        self.ready = [f.result() for f in self.warm if f.status == "finished"]
        for f in released + self.warm:
            f.release()
        self.warm = []
        if self.scattered is not None:
            self.scattered.release()
            self.scattered = None

    @staticmethod
    def _settle(futures, deadline: float) -> None:
        """Wait until each of ``futures`` is done (finished, failed or cancelled) or the
        deadline passes; through the futures themselves, not ``distributed.wait``, which
        asks for a default client that a count's own client need not be."""
        for f in futures:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            try:
                f.result(timeout=remaining)
            except TimeoutError:
                return  # a worker that does not answer: its tasks are released after
            except Exception:  # noqa: BLE001 - done, failed or cancelled: settled either way
                continue
