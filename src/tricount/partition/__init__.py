"""Partitioned counting: one plan of sub-problems, counted in sequence, on a cluster, or on GPUs.

    graph / .tcsr path ─ranked─▶ RankedCSR (rank order; a ranked .tcsr maps as is)
        ─in_degrees, apex_probes─▶ statistics ─plan.plan_partitions─▶ PartitionPlan
        ─▶ executor: "cpu" (cpu.count_subproblem, one after another)
                     "dask" (dask_executor: pieces as tasks, each worker keeping the
                             graph it prepared, on its GPU or in host memory; a .tcsr path
                             is read and planned on the workers, never on the driver)
                     "gpu" (gpu.count_gpu: one GPU or several of one host, the
                            statistics, orientation and blocks built on the device)
        ─▶ Σ of the sub-problems' counts (Python int, exact) + PartitionReport

Each triangle is counted once, in the sub-problem whose apex range holds its
highest-ranked vertex (the argument is in :mod:`tricount.partition.plan`).

Importing this package imports neither Numba, CuPy nor Dask; they load when a count runs.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
import uuid
from dataclasses import dataclass, field, replace

from tricount.errors import InvalidArgumentError, TricountError, check_count
from tricount.partition.plan import (MAX_PARTITIONS, MemoryModel, PartitionPlan, SubProblem,
                                     plan_partitions, split_anchors)
from tricount.partition.ranked import RankedCSR

__all__ = ["count_partitioned", "PartitionReport", "plan_graph", "ranked_csr", "prepare_ranked",
           "PartitionPlan", "SubProblem", "MemoryModel", "RankedCSR", "plan_partitions",
           "split_anchors", "EXECUTORS", "MAX_PARTITIONS", "check_partition_args", "check_devices"]

#: Executors :func:`count_partitioned` runs.
EXECUTORS = ("cpu", "dask", "gpu")

log = logging.getLogger("tricount")


@dataclass
class PartitionReport:
    """What a partitioned count did: how many sub-problems, where, why, and what each cost.

    ``subproblems`` has one dict per sub-problem, in plan order: ``index``,
    ``apex`` (the rank range), ``rows`` (anchor range), ``owners`` (owner
    range, :func:`~tricount.partition.plan.split_owners`), ``entries``,
    ``estimated_work``, ``memory`` (bytes, estimated), ``n_triangles``,
    ``block_s``, ``count_s``, ``where`` (``"cpu"``, ``"gpu:0"``, ...) and
    ``worker`` (the Dask worker's address, or None); on several GPUs, one per
    piece of anchors (``rows``) or of owners (``owners``). ``devices`` has one
    dict per GPU of the GPU executor (pieces counted, busy and kernel seconds,
    bytes copied to it, peak memory of the count's arrays, budget, whether the
    rank-ordered CSR stayed on it); ``graph`` the graph's facts.
    """

    n_subproblems: int
    executor: str
    reason: str
    where: tuple
    plan: PartitionPlan
    subproblems: list = field(default_factory=list)
    timings: dict = field(default_factory=dict)
    devices: list = field(default_factory=list)
    graph: dict = field(default_factory=dict)

    def device_balance(self, key: str = "busy_s") -> float | None:
        """The slowest device's ``key`` seconds over the devices' mean (1.0: even)."""
        values = [d[key] for d in self.devices if d.get(key) is not None]
        if not values or not sum(values):
            return None
        return max(values) * len(values) / sum(values)

    def to_dict(self) -> dict:
        out = {"subproblems": self.n_subproblems, "executor": self.executor,
               "reason": self.reason, "where": list(self.where),
               "work_estimate": self.plan.work_estimate, "imbalance": self.plan.imbalance,
               "max_memory": self.plan.max_memory, "timings": dict(self.timings),
               "pieces": len(self.subproblems),
               "per_subproblem": [dict(s) for s in self.subproblems]}
        if self.devices:
            out["devices"] = [dict(d) for d in self.devices]
            out["device_balance"] = self.device_balance()
            out["device_kernel_balance"] = self.device_balance("kernel_s")
        return out


def check_devices(devices):
    """``devices`` checked for its form (no GPU asked): None, ``"all"``, a count >= 1, or a
    non-empty sequence of ids >= 0 (a tuple); else :class:`InvalidArgumentError`.

    >>> check_devices("all"), check_devices(2), check_devices([0, 0])
    ('all', 2, (0, 0))
    """
    if devices is None or devices == "all":
        return devices
    if isinstance(devices, str):
        raise InvalidArgumentError(f"devices must be 'all', a number of GPUs or a list of GPU "
                                   f"ids, got {devices!r}")
    if isinstance(devices, (list, tuple)):
        if not devices:
            raise InvalidArgumentError("devices must name at least one GPU id, got []")
        return tuple(check_count(d, "devices", minimum=0) for d in devices)
    return check_count(devices, "devices", minimum=1)


def check_partition_args(partitions, devices, max_memory):
    """``(partitions, devices, max_memory)`` checked: ``partitions`` in 1 .. MAX_PARTITIONS,
    ``devices`` as :func:`check_devices`, ``max_memory`` a positive number of bytes."""
    if partitions is not None:
        partitions = check_count(partitions, "partitions", minimum=1)
        if partitions > MAX_PARTITIONS:
            raise InvalidArgumentError(f"partitions must be at most {MAX_PARTITIONS}, got "
                                       f"{partitions}")
    if max_memory is not None:
        max_memory = check_count(max_memory, "max_memory", minimum=1)
    return partitions, check_devices(devices), max_memory


def ranked_csr(graph) -> RankedCSR:
    """The rank-ordered CSR of a :class:`~tricount.CSRGraph`, a ``.tcsr`` path or any graph
    file (a ranked ``.tcsr`` is used as read, with no orientation)."""
    from tricount.graph import CSRGraph
    from tricount.partition.ranked import open_ranked, rank_graph, with_facts

    if isinstance(graph, RankedCSR):
        return graph
    if isinstance(graph, CSRGraph):
        return with_facts(rank_graph(graph), graph)
    if isinstance(graph, (str, os.PathLike)):
        if os.fspath(graph).endswith(".tcsr"):
            return open_ranked(graph)
        from tricount.io import load_graph

        loaded = load_graph(graph)
        return with_facts(rank_graph(loaded), loaded)
    raise TricountError(f"expected a CSRGraph, a RankedCSR or a graph file path, got "
                        f"{type(graph).__name__}")




def prepare_ranked(source, path, *, backend: str = "cpu") -> RankedCSR:
    """Write ``source`` (a graph or a graph file) as a ``.tcsr`` in rank order, for counting again.

    A ranked file is counted as read, with no orientation, and Dask workers
    open it themselves; the original vertex ids are kept in the file.
    ``backend="gpu"`` orders it on the current GPU (in slices, into host
    memory: :func:`tricount.partition.gpu.rank_on_gpu`) instead of the CPU.
    """
    from tricount.io import load_graph
    from tricount.partition.ranked import rank_graph, write_ranked

    if backend not in ("cpu", "gpu"):
        raise InvalidArgumentError(f"backend must be 'cpu' or 'gpu', got {backend!r}")
    if isinstance(source, (str, os.PathLike)):
        if os.path.realpath(source) == os.path.realpath(path):
            raise TricountError(f"prepare_ranked would write over its input {source}; "
                                "give another output path")
        graph = load_graph(source)
    else:
        graph = source
    if backend == "gpu":
        from tricount.partition.gpu import rank_on_gpu

        r = rank_on_gpu(graph)
    else:
        r = rank_graph(graph)
    write_ranked(r, path, vertex_ids=graph.vertex_ids, name=graph.name)
    return r


def plan_graph(r: RankedCSR, *, partitions=None, max_memory=None, model=None) -> PartitionPlan:
    """Plan a ranked graph: in-degrees and exact probes per apex, then :func:`plan_partitions`."""
    from tricount.partition.ranked import apex_probes, in_degrees

    if model is None:
        from tricount.partition.cpu import memory_model

        model = memory_model(r.indices.dtype.itemsize)
    in_degree = in_degrees(r)
    work = apex_probes(r, in_degree) + in_degree
    return plan_partitions(in_degree, work=work, partitions=partitions, max_memory=max_memory,
                           model=model, work_estimate="probes")


@contextlib.contextmanager
def _worker_source(r: RankedCSR, graph):
    """What Dask workers get for a graph the driver ranked (a ``.tcsr`` path never comes
    here: :func:`_count_file_on_cluster`): the ranked file's path when there is one and it
    still is the file the arrays were read from (``r.file_key``: a file replaced or removed
    since would give the workers another graph, or none); else a ranked copy written beside
    the input file (removed afterwards); else the arrays (scattered)."""
    from tricount.partition.worker_cache import file_key

    if r.path is not None and r.rank is None:
        try:
            same = r.file_key is not None and file_key(r.path) == r.file_key
        except OSError:
            same = False
        if same:
            yield os.path.abspath(r.path)
            return
        log.info("%s is not the file the graph was read from: scattering the graph", r.path)
        yield replace(r, rank=None, path=None, file_key=None)
        return
    if isinstance(graph, (str, os.PathLike)):
        from tricount.partition.ranked import write_ranked

        folder, name = os.path.split(os.path.abspath(os.fspath(graph)))
        tmp = os.path.join(folder, f".{name}.ranked-{uuid.uuid4().hex[:8]}.tcsr")
        try:
            write_ranked(r, tmp)
        except (OSError, TricountError) as exc:
            log.info("cannot write a ranked copy beside %s (%s): scattering the graph", graph, exc)
        else:
            try:
                yield tmp
            finally:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
            return
    yield replace(r, rank=None, path=None)


def count_partitioned(graph, *, partitions=None, max_memory=None, executor="cpu", client=None,
                      workers=None, devices=None):
    """Count triangles as a plan of sub-problems; return ``(n_triangles, PartitionReport)``.

    Parameters
    ----------
    graph : CSRGraph, RankedCSR, str or os.PathLike
        The graph, or a graph file. A ``.tcsr`` in rank order
        (:func:`prepare_ranked`) is counted as read, with no orientation.
    partitions : int, optional
        Force this many apex ranges (1 .. MAX_PARTITIONS). Default: one, or
        with ``max_memory`` the least number whose sub-problems fit.
    max_memory : int, optional
        Bytes one sub-problem may hold (its column block and byte maps); on
        the GPU, bytes each device may hold for the count.
    executor : {"cpu", "dask", "gpu"}
        ``cpu``: this process, sub-problems one after another, each on every
        core. ``dask``: pieces of the sub-problems as tasks on ``client``'s cluster,
        each worker keeping the graph it prepared (on its GPU when it has one).
        ``gpu``: :func:`tricount.partition.gpu.count_gpu`, on ``devices``.
    client : distributed.Client, optional
        For ``executor="dask"``; default the current client.
    workers : list of str, optional
        For ``executor="dask"``: only these worker addresses.
    devices : None, "all", int or list of int
        For ``executor="gpu"``: the GPUs of this host to use.

    Examples
    --------
    K4 has 4 triangles, whatever the number of sub-problems:

    >>> import tricount
    >>> g = tricount.Graph.from_edges([0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3])
    >>> n, report = count_partitioned(g, partitions=2)
    >>> n, report.n_subproblems, sum(s["n_triangles"] for s in report.subproblems)
    (4, 2, 4)
    """
    if executor not in EXECUTORS:
        raise TricountError(f"unknown executor {executor!r}; choose one of {', '.join(EXECUTORS)}")
    partitions, devices, max_memory = check_partition_args(partitions, devices, max_memory)
    if executor == "gpu":
        from tricount.partition.gpu import count_gpu

        return count_gpu(graph, partitions=partitions, devices=devices, max_memory=max_memory)
    if devices is not None:
        raise InvalidArgumentError(f"devices= takes GPUs; executor {executor!r} runs none")
    if executor == "dask" and _is_native_path(graph):
        return _count_file_on_cluster(os.path.abspath(os.fspath(graph)), partitions=partitions,
                                      max_memory=max_memory, client=client, workers=workers)
    t0 = time.perf_counter()
    source, load_s = graph, 0.0
    if isinstance(graph, (str, os.PathLike)) and not _is_native_path(graph):
        from tricount.io import load_graph  # read apart from the ranking: its own timing

        source = load_graph(graph)
        load_s = time.perf_counter() - t0
    r = ranked_csr(source)
    t1 = time.perf_counter()
    facts = {"graph": _name(graph, r), "vertices": r.n_vertices, "edges": r.n_edges,
             **(r.source_facts or {})}
    if executor == "dask":
        return _count_ranked_on_cluster(r, graph, facts, t1 - t0 - load_s, partitions=partitions,
                                        max_memory=max_memory, client=client, workers=workers,
                                        load_s=load_s)
    from tricount.partition.cpu import count_subproblem

    plan = plan_graph(r, partitions=partitions, max_memory=max_memory)
    subs = plan.subproblems()
    t2 = time.perf_counter()
    results = [count_subproblem(r, sub) for sub in subs]
    t3 = time.perf_counter()
    return _report(executor, plan, subs, results, ("cpu",),
                   {"load_s": load_s, "rank_s": t1 - t0 - load_s, "plan_s": t2 - t1,
                    "count_s": t3 - t2, "total_s": t3 - t0}, facts)


def _is_native_path(graph) -> bool:
    return isinstance(graph, (str, os.PathLike)) and os.fspath(graph).endswith(".tcsr")


def _count_ranked_on_cluster(r: RankedCSR, graph, facts, rank_s, *, partitions, max_memory,
                             client, workers, load_s: float = 0.0):
    """A graph the driver ranked, counted on a Dask cluster: planned here (the probes per
    apex, and each range cut into pieces of about equal anchor work, as a CPU worker would
    plan it), then the pieces on the workers, each keeping its own graph of the file or of
    the scattered arrays (:func:`_worker_source`)."""
    from tricount.partition.dask_executor import ClusterCount
    from tricount.partition.host_graph import HostGraph
    from tricount.partition.worker_cache import file_key

    t0 = time.perf_counter()
    with _worker_source(r, graph) as source, ClusterCount(
            source, client=client, workers=workers, partitions=partitions,
            max_memory=max_memory) as run:
        # The file the workers read must be the one planned here (the driver's own read,
        # or the ranked copy just written).
        run.file = (r.file_key if r.path is not None and source == os.path.abspath(r.path)
                    else file_key(source)) if isinstance(source, str) else None
        planned_file = [{"file": run.file}] if run.file is not None else []
        plan, pieces = HostGraph(r, partitions=partitions, max_memory=max_memory).plan(
            pieces=run.pieces_per_range(r.n_edges))
        t1 = time.perf_counter()
        results = run.count(pieces)
        run.check_one_file(planned_file + results)
        t2 = time.perf_counter()
    t3 = time.perf_counter()
    timings = {"load_s": load_s, "rank_s": rank_s, "plan_s": t1 - t0, "count_s": t2 - t1,
               "release_s": t3 - t2, "total_s": t3 - t0 + rank_s + load_s}
    return _report("dask", plan, pieces, results, _where(results), timings, facts,
                   devices=run.accounts)


def _count_file_on_cluster(path, *, partitions, max_memory, client, workers):
    """A ``.tcsr`` counted on a Dask cluster; the driver reads none of it.

    The first worker reads and prepares the file (on its GPU when it has one) and plans,
    while every other worker reads and prepares it too
    (:meth:`~tricount.partition.dask_executor.ClusterCount.plan`); then the pieces, each
    on its worker's kept graph; then every worker's graph is released. Timings, in
    sequence as :func:`~tricount.partition.gpu.count_gpu`'s: the planning worker's read
    (``load_s``) and preparation (``prepare_s``), then ``plan_s``, the rest of the
    driver's wait for the plan (the worker's statistics and plan, ``statistics_s``, and
    the scheduler's round trips); ``count_s`` the driver's wait for the pieces;
    ``release_s`` for the releases. Beside them, ``others_ready_s``: the slowest other
    worker's read and preparation, which overlap the planning worker's. A file not in
    rank order is ranked by each worker (the same ranks everywhere)."""
    from tricount.io import graph_name
    from tricount.partition.dask_executor import ClusterCount

    t0 = time.perf_counter()
    with ClusterCount(path, client=client, workers=workers, partitions=partitions,
                      max_memory=max_memory) as run:
        planned = run.plan()
        t1 = time.perf_counter()
        results = run.count(planned["pieces"])
        run.check_one_file([planned] + results)
        t2 = time.perf_counter()
    t3 = time.perf_counter()
    load_s, prepare_s = planned["open_s"], planned["prepare_s"]
    timings = {"rank_s": 0.0, "load_s": load_s, "prepare_s": prepare_s,
               "plan_s": max(0.0, t1 - t0 - load_s - prepare_s),
               "statistics_s": planned["statistics_s"],
               "others_ready_s": max((w["ready_s"] for w in run.ready), default=0.0),
               "count_s": t2 - t1, "release_s": t3 - t2, "total_s": t3 - t0}
    return _report("dask", planned["plan"], planned["pieces"], results, _where(results),
                   timings, {"graph": graph_name(path),
                             "vertices": planned["facts"]["vertices"],
                             "edges": planned["facts"]["edges"]}, devices=run.accounts)


def _where(results) -> tuple:
    """The Dask workers that counted, with their counters."""
    return tuple(sorted({f"{res.get('worker')} ({res['where']})" for res in results}))


def _report(executor, plan, subs, results, where, timings, graph, devices=()):
    """``(n_triangles, PartitionReport)`` of counted sub-problems (or pieces of them)."""
    n_triangles = sum(int(res["n_triangles"]) for res in results)  # Python ints: exact
    per_sub = [{"index": sub.index, "apex": (sub.apex_lo, sub.apex_hi), "rows": res["rows"],
                "owners": sub.owners, "entries": sub.entries, "estimated_work": sub.work,
                "memory": sub.memory,
                "n_triangles": int(res["n_triangles"]), "block_s": res["block_s"],
                "count_s": res["count_s"], "where": res["where"], "worker": res.get("worker"),
                **({"prepared": res["prepared"]} if "prepared" in res else {})}
               for sub, res in zip(subs, results)]
    return n_triangles, PartitionReport(plan.k, executor, plan.reason, where, plan, per_sub,
                                        timings, devices=list(devices), graph=graph)


def _name(graph, r: RankedCSR):
    """The graph's name for reports: a CSRGraph's, else its file's (as the CLI names it)."""
    from tricount.io import graph_name

    if isinstance(graph, (str, os.PathLike)):  # a pathlib.Path's .name is its file name
        return graph_name(graph)
    name = getattr(graph, "name", None)
    if name is None and r.path is not None:
        name = graph_name(r.path)
    return name
