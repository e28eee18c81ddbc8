"""The public API: from a file, edge arrays or a graph, to a count.

    backends.select (predicted total time of every route) ─▶ cpu | gpu | reference backend
                                                             ("dask": a cluster, below)
    path ──io.read_graph──▶ CSRGraph   (text formats: parse + canonicalise, by the parser of
                                        the chosen route: NumPy or Numba; .tcsr: mapped;
                                        for the gpu engine, text streams to the GPU and is
                                        canonicalised there)
    (src, dst) ──CSRGraph.from_edges──▶ CSRGraph
    engine.count: orient by (degree, id) ─▶ counting kernel ─▶ int64 count

A count in parts (tricount.partition) instead, when asked for (partitions=, devices=,
backend="dask", max_memory= on the CPU) or when the GPU's memory check says the graph does
not fit in one piece:

    graph, path or RankedCSR ─▶ partition.count_partitioned(executor="cpu" | "gpu" | "dask")
        ─▶ rank order, the plan's apex ranges, each counted ─▶ Σ  (result.partition says how)
"""

from __future__ import annotations

import os
import time

import numpy as np

from tricount import inputs
from tricount.backends import BACKENDS, select
from tricount.errors import InvalidArgumentError, UnknownMethodError, UnsupportedGraphError, \
    check_choice, check_text
from tricount.graph import CSRGraph
from tricount.io import load_graph
from tricount.partition import check_partition_args, count_partitioned
from tricount.result import CountResult

__all__ = ["count", "count_triangles", "load_graph", "as_graph"]


def as_graph(graph, *, device: str = "cpu", vertices: str = "edges") -> tuple[CSRGraph, dict]:
    """Turn any graph a user holds (a graph, a path, a NetworkX graph, a table, arrays, ...)
    into a graph; time the steps. See :func:`tricount.inputs.as_graph`."""
    return inputs.as_graph(graph, device=device, vertices=vertices)


def count(graph, *, backend: str = "auto", method: str = "auto", partitions=None, devices=None,
          max_memory=None, client=None, orientation: str = "auto", **options) -> CountResult:
    """Count triangles and report what ran, why, and how long each phase took.

    Parameters
    ----------
    graph : graph-like
        A :class:`CSRGraph`, a graph file in any supported format, or any graph
        a user holds: a NetworkX or igraph graph, a SciPy sparse matrix, a
        pandas / pyarrow / polars table, ``(src, dst)`` arrays, an ``(m, 2)``
        array or a list of pairs, a CuPy or DLPack array (see
        :mod:`tricount.inputs`). A partitioned count reads a file itself (a
        ``.tcsr`` written in rank order, ``tricount.partition.prepare_ranked``,
        needs no orientation; Dask workers open it themselves).
    backend : {"auto", "cpu", "gpu", "reference", "dask"}
        ``auto`` takes the backend (and on the CPU the method) whose predicted
        total time is the smallest, from the graph's size and what this process
        and the disk caches already hold (:mod:`tricount.backends.costs`): small
        graphs stay on the CPU, a GPU is used where it answers first. The
        result's ``backend_reason`` shows the predicted and the measured times.
        ``dask`` counts the sub-problems as tasks on ``client``'s cluster.
    method : str
        A counting method of the backend, or ``auto`` (a partitioned count
        runs ``hash`` on GPUs and the CPU executor's byte-map count).
    partitions : int, optional
        Count in this many apex ranges (any backend but ``reference``). By
        default one piece, unless the GPU's memory check says the graph does not
        fit: then the least number that does.
    devices : None, "all", int or list of int
        Spread the count over these GPUs of this host (``"all"``, the first
        ``devices``, or ids).
    max_memory : int, optional
        Bytes the count may hold on a device (GPU), or that one sub-problem
        may hold (CPU: the count is then partitioned to fit it).
    client : distributed.Client, optional
        The Dask cluster for ``backend="dask"`` (default: the current client).
    orientation : {"auto", "rank", "degree", "id"}
        The GPU engine's orientation; partitioned counts use ``rank``. Where
        ``backend="auto"`` takes the CPU, it is not used (``backend_reason``
        says so); ``backend="cpu"`` refuses it.
    **options
        Other options of the backend's engine. A backend rejects options it
        does not know.

    Raises
    ------
    InvalidArgumentError
        ``graph``, ``backend``, ``method``, ``partitions``, ``devices`` or
        ``max_memory`` of the wrong type or value.
    BackendUnavailableError
        ``backend="gpu"`` where no GPU is usable; ``backend="dask"`` without
        Dask or a cluster.
    UnsupportedGraphError
        A graph that does not fit even in parts; the message names what, how
        much, and what to do.

    Returns
    -------
    CountResult
        ``n_triangles`` plus backend, method, reasons, graph facts and
        timings (``load_s``, ``preprocess_s``, ``count_s``, ``total_s``);
        ``partition`` (None for a count in one piece) says how many
        sub-problems ran, where and why.

    Examples
    --------
    K4 has 4 triangles, in however many parts it is counted:

    >>> k4 = ([0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3])
    >>> result = count(k4, backend="cpu", partitions=3)
    >>> result.n_triangles, result.partition["subproblems"]
    (4, 3)
    """
    check_choice(backend, "backend", (*BACKENDS, "dask"))
    check_text(method, "method")
    check_text(orientation, "orientation")
    parts = dict(zip(("partitions", "devices", "max_memory"),
                     check_partition_args(partitions, devices, max_memory)))
    t0 = time.perf_counter()
    if client is not None and backend not in ("auto", "dask"):
        raise InvalidArgumentError(
            f"client= counts on a Dask cluster (backend='dask'); it takes no "
            f"backend={backend!r}: pass one or the other")
    if backend == "dask" or client is not None:
        return _partitioned(graph, "dask", "requested", "backend='dask' requested", parts,
                            client=client, method=method, orientation=orientation,
                            options=options, t0=t0)
    graph, steps = _countable(graph)
    # devices= names GPUs: auto then means the GPU.
    requested = "gpu" if backend == "auto" and devices is not None else backend
    chosen = select(requested, _workload(graph), method=method, remember=True)
    engine, backend_reason = chosen.backend, chosen.reason
    forced = _forced_reason(engine.name, **parts)
    if forced is not None:
        return _partitioned(graph, engine.name, backend_reason, forced, parts, method=method,
                            orientation=orientation, options=options, t0=t0, steps=steps)
    if steps is None:
        why = _file_does_not_fit(engine.name, graph, method, orientation, max_memory, options)
        if why is not None:  # in parts from the file itself: the GPUs read it, not this host
            return _partitioned(graph, "gpu", backend_reason, why, parts, method=method,
                                orientation=orientation, options={}, t0=t0)
        g, steps = _loaded(graph, engine.name, chosen.parser)
    else:
        g = graph
    if orientation != "auto" and engine.name != "gpu" and backend == "auto":
        # The GPU engine's option, where auto chose another engine: dropped, and said so
        # (a script tuned for a GPU still counts on a machine without one).
        backend_reason = (f"{backend_reason}; orientation={orientation!r} is the GPU "
                          f"engine's, not used on the {engine.name}")
        orientation = "auto"
    why = _does_not_fit(engine.name, g, method, orientation, max_memory, options)
    if why is None:
        if orientation != "auto":
            options["orientation"] = orientation
        if max_memory is not None:
            options["max_memory"] = max_memory
        try:
            out = engine.count(g, method=chosen.method_for(method), **options)
        except UnsupportedGraphError as exc:  # the check is optimistic about a sliced count
            if not _partitionable(engine.name, method, orientation, options):
                raise
            why = f"the in-memory count did not fit: {exc}"
    if why is not None:
        return _partitioned(g, "gpu", backend_reason, why, parts, method=method,
                            orientation=orientation, options={}, t0=t0, steps=steps)
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
    if chosen.route is not None and backend == "auto":
        backend_reason += f"; measured {total:.3f} s"
    # The oracle takes far longer than a pass over the degrees: its report gives the largest.
    facts = g.summary(compute=engine.name == "reference")
    return CountResult(out.n_triangles, engine.name, backend_reason, out.method,
                       chosen.method_reason(method, out.method_reason), facts, timings)


def _countable(graph):
    """``(graph, None)`` for what the cost model reads as it is (a graph, a path, a
    ``(src, dst)`` pair of arrays; an ``(m, 2)`` array or a table of integer ids as the pair
    of its id columns, :func:`tricount.inputs.id_columns`); anything else a user holds is
    built now: ``(CSRGraph, steps)``."""
    from tricount.backends.facts import sizable  # with the first count, not the import

    if sizable(graph):
        return graph, None
    columns = inputs.id_columns(graph)
    if columns is not None:
        return columns, None
    return as_graph(graph)


def _workload(graph):
    """The cost model's view of ``graph``."""
    from tricount.backends.facts import workload_of  # with the first count, not the import

    return workload_of(graph)


def _does_not_fit(engine: str, g, method: str, orientation: str, max_memory,
                  options: dict) -> str | None:
    """Why the GPU's memory check sends ``g`` to a count in parts, or None."""
    if not _partitionable(engine, method, orientation, options):
        return None
    return _memory_check(g.n_vertices, g.n_edges, g.indices.dtype.itemsize, g.xp is not np,
                         g.name, method, orientation, max_memory)


def _memory_check(n: int, m: int, index_bytes: int, on_device: bool, name, method: str,
                  orientation: str, max_memory) -> str | None:
    """Why the in-memory GPU count of a graph of these sizes does not fit, or None."""
    from tricount.partition.gpu import fits_in_memory

    fits, why = fits_in_memory(n, m, index_bytes, on_device=on_device, method=method,
                               orientation=orientation, max_memory=max_memory, name=name)
    return None if fits else why


def _file_does_not_fit(engine: str, graph, method: str, orientation: str, max_memory,
                       options: dict) -> str | None:
    """:func:`_does_not_fit` for a plain ``.tcsr`` path, from its header alone, so that a
    graph counted in parts is read by the partitioned count (straight into device memory
    where its plan copies it whole, :mod:`tricount.io.native_gpu`), not into this host's
    memory first; None for anything else."""
    if not (isinstance(graph, (str, os.PathLike)) and _partitionable(engine, method,
                                                                      orientation, options)):
        return None
    from tricount.io.native import native_file
    from tricount.prep.xp import index_dtype

    native = native_file(graph)
    if native is None:
        return None
    return _memory_check(native.n_vertices, native.n_edges,
                         np.dtype(index_dtype(native.n_vertices)).itemsize, False,
                         native.summary["graph"], method, orientation, max_memory)


def _partitionable(engine: str, method: str, orientation: str, options: dict) -> bool:
    """Whether a GPU count may go to the partitioned count (hash, rank order, no knobs)."""
    return (engine == "gpu" and method in ("auto", "hash") and orientation in ("auto", "rank")
            and not options)


def _forced_reason(engine: str, *, partitions, devices, max_memory) -> str | None:
    """Why the call asks for a count in parts on ``engine``, or None (checked arguments)."""
    if engine == "reference" and (partitions is not None or devices is not None
                                  or max_memory is not None):
        raise InvalidArgumentError("backend 'reference' counts in one piece: partitions=, "
                                   "devices= and max_memory= take backend 'cpu', 'gpu' or "
                                   "'dask'")
    if devices is not None and engine != "gpu":
        raise InvalidArgumentError(f"devices={devices!r} spreads a count over GPUs; backend "
                                   f"{engine!r} runs none (use backend='gpu')")
    if partitions is not None:
        return f"partitions={partitions} requested"
    if devices is not None:
        return f"devices={devices!r} requested"
    if engine == "cpu" and max_memory is not None:
        return f"max_memory={max_memory} on the CPU bounds each sub-problem"
    return None


#: The counter each executor runs (a Dask worker's: its GPU's or its CPU's).
EXECUTOR_METHODS = {"gpu": "hash", "cpu": "bitmap"}


def _partitioned(graph, executor: str, backend_reason: str, why: str, parts: dict, *,
                 client=None, method: str, orientation: str, options: dict, t0: float,
                 steps=None) -> CountResult:
    """A count in parts (:func:`tricount.partition.count_partitioned`) as a CountResult."""
    if options:
        raise UnknownMethodError(f"a partitioned count takes no engine options, got "
                                 f"{', '.join(sorted(options))}")
    if orientation not in ("auto", "rank"):
        raise InvalidArgumentError(f"a partitioned count orients by rank; got orientation="
                                   f"{orientation!r} (use 'auto' or 'rank')")
    own = EXECUTOR_METHODS.get(executor)
    if method != "auto" and method != own:
        raise UnknownMethodError(f"a partitioned count on {executor!r} runs method "
                                 f"{own or 'auto'!r}; got method={method!r}")
    if not isinstance(graph, (CSRGraph, str, os.PathLike)):
        graph, steps = _built_for(graph, executor, parts["devices"])
    steps = steps or {"load_s": 0.0, "build_s": 0.0}
    n_triangles, report = count_partitioned(graph, executor=executor, client=client, **parts)
    t = report.timings
    timings = {"load_s": steps["load_s"] + t.get("load_s", 0.0),
               "preprocess_s": (steps["build_s"] + t.get("rank_s", 0.0) + t.get("prepare_s", 0.0)
                                + t["plan_s"]),
               "count_s": t["count_s"], "total_s": time.perf_counter() - t0}
    if "kernel_s" in t:
        timings["kernel_s"] = t["kernel_s"]
    ran = sorted({"hash" if str(s["where"]).startswith("gpu") else "bitmap"
                  for s in report.subproblems}) or [own or "bitmap"]
    partition = dict(report.to_dict(), why=why)
    summary = dict(report.graph)
    return CountResult(n_triangles, executor, backend_reason, "+".join(ran),
                       f"partitioned ({why}): {report.reason}", summary, timings, partition)


def _built_for(graph, executor: str, devices):
    """``as_graph`` for a partitioned count: on the GPU executor, host edge arrays are built
    on the first of ``devices`` where it holds them (the executor then copies the graph to
    the others itself), else on the host."""
    if executor != "gpu":
        return as_graph(graph)
    from tricount.gpu.device import cupy
    from tricount.partition.gpu import resolve_devices

    with cupy().cuda.Device(resolve_devices(devices)[0]):
        return _built_on_device(graph)


def _built_on_device(graph):
    """``inputs.as_graph`` of ``graph`` with its host edge arrays handed to the current device
    first (:func:`tricount.gpu.host_edges.edges_for_device`: CuPy arrays build on the GPU),
    the copy's seconds counted in the build's; the host builds ``graph`` itself when the
    device's build does not fit."""
    from tricount.gpu.host_edges import edges_for_device

    t0 = time.perf_counter()
    uploaded = edges_for_device(graph)
    seconds = time.perf_counter() - t0
    try:
        g, steps = inputs.as_graph(uploaded)
    except UnsupportedGraphError:
        if uploaded is graph:
            raise
        del uploaded  # its device memory goes back before the host builds
        g, steps = inputs.as_graph(graph)
    return g, dict(steps, build_s=steps["build_s"] + seconds)


def _loaded(graph, engine: str, parser: str = "auto"):
    """``as_graph`` for ``engine``: a text file for the GPU is loaded onto the device (read on
    the host instead when it does not fit there); a ``.tcsr`` is read on the host, and copied
    by the engine, or counted in parts when the GPU's memory check says it must be. A text
    file is parsed by the chosen route's ``parser`` ("numba", "numpy", or "auto" for io's own
    choice); for the GPU, "numba" streams it into the device and "numpy" reads it on the host
    and copies its graph (:func:`tricount.io.streams_to_device`). Host edge arrays for the
    GPU go to the device and are built there where it holds them
    (:mod:`tricount.gpu.host_edges`)."""
    if engine == "gpu" and not isinstance(graph, (str, os.PathLike)):
        return _built_on_device(graph)
    if engine == "gpu" and not os.fspath(graph).endswith(".tcsr"):
        try:
            return inputs.as_graph(graph, device="gpu", parser=parser)
        except UnsupportedGraphError:
            pass
    return inputs.as_graph(graph, device="cpu", parser=parser)


def count_triangles(graph, *, backend: str = "auto", method: str = "auto", **options) -> int:
    """Number of distinct triangles in an undirected graph (a 64-bit exact count).

    Self-loops and repeated edges are ignored; direction is ignored.

    Takes what :func:`count` takes (a graph, a graph file or a ``(src, dst)``
    tuple; ``backend``; ``method``: ``auto`` or a method of the backend, on the
    CPU ``merge``, ``bitmap``, ``spgemm`` or ``numpy``; ``partitions``, ``devices``,
    ``max_memory``, ``client`` and the rest of its options) and returns its
    ``n_triangles``.

    Examples
    --------
    K4 has 4 triangles; a bowtie (two triangles sharing a vertex) has 2:

    >>> count_triangles(([0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3]), backend="cpu")
    4
    >>> count_triangles(([0, 0, 1, 2, 2, 3], [1, 2, 2, 3, 4, 4]), backend="cpu")
    2
    """
    return count(graph, backend=backend, method=method, **options).n_triangles
