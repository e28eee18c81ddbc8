"""The benchmark loop: graphs x backends x methods, plus peers, every count verified.

This is GAPBS's loop (``src/benchmark.h``, :func:`tricount.bench.trials.trial_loop`),
STYLE §22. For each graph:

1. **load** once (read the file, or run the generator), timed: ``load_s``;
2. **build** the :class:`~tricount.CSRGraph` once (loops and repeats dropped,
   ids compacted, rows sorted), timed: ``build_s``; for the GPU the built graph
   is then copied to the device once, synchronised and timed: ``h2d_s``;
3. **verify**: the expected count comes from the Python oracle
   (:mod:`tricount.reference`, on the raw edge list) while the graph has at most
   ``reference_max_edges`` edges; above that, from the agreement of two CPU
   methods with different kernels (:data:`AGREEMENT_METHODS`), or past
   :data:`GPU_AGREEMENT_MIN_EDGES` with the GPU among the backends of two GPU
   methods (:data:`GPU_AGREEMENT_METHODS`). Timed: ``verify_s``;
4. for every (backend, method): one untimed **warm-up** (JIT and CUDA
   compilation, allocator pools), then ``trials`` timed runs, each on a fresh
   copy of the prepared graph so that the orientation is redone and timed
   every trial; on the GPU the device is synchronised before and after;
5. for every requested **peer**: one warm-up and ``trials`` runs of the whole
   call, from the same in-memory edge arrays, construction included.

Every trial's count is compared with the expected count; one mismatch makes
the run fail (exit 4). Each trial becomes one record (one JSON line).

Timings of one tricount trial (seconds):

- ``load_s``, ``build_s``, ``h2d_s``: the once-per-graph phases, repeated;
- ``orient_s``: the engine's orientation (its ``preprocess_s``);
- ``preprocess_s`` = build + host-to-device copy + orientation (as
  :func:`tricount.count` reports it);
- ``count_s``: all counting work; ``kernel_s``: the kernels alone where the
  backend can isolate it (the CPU's Numba kernels are their whole count; the
  GPU's are timed by :class:`~tricount.bench.gpu_timer.KernelTimer`, which
  the loop passes to the GPU engine as its ``timer``);
- ``engine_s``: the engine call as the benchmark sees it, synchronised;
- ``from_edges_s`` = build + copy + engine call: in-memory edges to count, the
  span each peer is timed over;
- ``total_s`` = load + ``from_edges_s``.

Rates count each undirected simple edge once (``n_edges``, not the 2 x stored
entries): ``edges_per_second = n_edges / count_s``, the Graph Challenge
N_e / T_tri with preprocessing reported separately.
"""

from __future__ import annotations

import os
import statistics
import time
from dataclasses import dataclass, field

import numpy as np

from tricount import reference
from tricount.backends import get_backend
from tricount.bench import environment
from tricount.bench.gpu_timer import KernelTimer
from tricount.bench.peers import PEERS, find_peer
from tricount.bench.progress import Progress
from tricount.bench.trials import fresh_graph, gpu_synchronize, trial_loop
from tricount.cpu import CPU_METHODS
from tricount.cpu import engine as cpu_engine
from tricount.errors import (BackendUnavailableError, GraphFormatError, TricountError,
                             UnknownMethodError)
from tricount.generate.spec import GENERATORS, generate_spec, is_spec, parse_spec
from tricount.gpu import GPU_METHODS, probe
from tricount.gpu import engine as gpu_engine
from tricount.gpu.device import cupy
from tricount.graph import CSRGraph
from tricount.io import graph_name, read_edges
from tricount.prep.xp import to_host

__all__ = ["BenchConfig", "BenchResult", "run_bench", "backend_methods", "REFERENCE_MAX_EDGES",
           "AGREEMENT_METHODS", "SCHEMA"]

#: Version tag of the JSON line format.
SCHEMA = "tricount.bench/1"
#: Largest graph (undirected edges) judged by the Python oracle. The oracle took
#: 3.1 s on R-MAT scale 14 (262,144 edge lines, 2,803,110 triangles) on the
#: project's 2-core machine on 2025-11-22; scale 15 took 9.5 s.
REFERENCE_MAX_EDGES = 300_000
#: Above the oracle's limit, the expected count is the agreement of these CPU
#: methods: a sorted-list merge and a bitmap probe, two different kernels.
AGREEMENT_METHODS = ("merge", "bitmap")
#: With the GPU among the backends, graphs above this many edges are judged by the agreement
#: of two GPU kernels instead (the owner's hash set and the wedge fingerprints: different
#: method preparations and intersections; the CPU pair takes minutes at R-MAT 25).
GPU_AGREEMENT_MIN_EDGES = 1 << 25
GPU_AGREEMENT_METHODS = ("hash", "wedge")
#: What the ``auto`` side is: ``tricount.count`` as a user calls it, from the graph built
#: on the host, choosing the backend and the method for each graph (the cost model of
#: :mod:`tricount.backends.costs`, which counts a warm GPU context in).
AUTO_REASON = ("per graph: tricount.count(graph) from the built host graph, choosing "
               "backend and method (copy to the GPU included when it picks the GPU)")
#: Records are built from these fields of a graph's facts.
GRAPH_FACTS = ("vertices", "edges", "nnz", "edge_lines", "max_degree", "n_wedges",
               "self_loops_dropped", "duplicates_dropped")


@dataclass
class BenchConfig:
    """What to run.

    ``methods`` entries are method names, ``all`` (each backend's every method)
    or ``auto``; ``backend/name`` limits an entry to one backend, e.g.
    ``("gpu/all", "cpu/bitmap")``.
    """

    graphs: list
    backends: tuple = ("cpu",)
    methods: tuple = ("all",)
    trials: int = 3
    peers: tuple = ()
    reference_max_edges: int = REFERENCE_MAX_EDGES
    #: None: each peer's own default limit; 0: no limit; N: at most N edge lines.
    peer_max_edge_lines: int | None = None
    generate_on: str = "cpu"
    command: str = ""


@dataclass
class BenchResult:
    """Everything a run produced: trial records, per-graph facts, and what went wrong."""

    records: list = field(default_factory=list)
    graphs: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    mismatches: list = field(default_factory=list)
    meta: dict = field(default_factory=dict)

    @property
    def verified(self) -> bool:
        """True when every count of every trial equals its graph's expected count."""
        return not self.mismatches and all(r["verified"] for r in self.records)


@dataclass
class _Plan:
    backends: list  # (backend, reason, methods)
    peers: list  # Peer objects that import
    missing_peers: list  # (name, reason)
    sources: list  # (text, kind) with kind "file" or "spec"


def backend_methods(backend: str) -> tuple:
    """Every counting method a backend implements (``auto``: only its own choice)."""
    if backend == "auto":
        return ("auto",)
    if backend == "cpu":
        return CPU_METHODS
    if backend == "gpu":
        return GPU_METHODS
    return ("sets",)


def _methods_for(backend: str, entries) -> list:
    """The methods one backend runs: ``M`` applies to every backend, ``B/M`` to ``B`` only.

    ``all`` expands to the backend's every method and ``auto`` is always allowed;
    an unqualified name the backend lacks is skipped (another backend has it).
    """
    known = backend_methods(backend)
    wanted = []
    for entry in entries:
        owner, qualified, m = entry.rpartition("/")
        if qualified and owner != backend:
            continue
        if m == "all":
            wanted += known
        elif m == "auto" or m in known:
            wanted.append(m)
        elif qualified:
            raise UnknownMethodError(f"backend {backend!r} has no method {m!r}; its methods: "
                                     f"{', '.join(known)} (or all, auto)")
    return list(dict.fromkeys(wanted))


#: The most timed trials a side may ask for (each side runs them all, then the next).
MAX_TRIALS = 10_000


def _plan(config: BenchConfig) -> _Plan:
    """Check everything that can be checked before any work; raise on bad input."""
    if not 1 <= config.trials <= MAX_TRIALS:
        raise TricountError(f"--trials must be 1 .. {MAX_TRIALS}, got {config.trials}")
    for flag, value in (("--reference-max-edges", config.reference_max_edges),
                        ("--peer-max-edges", config.peer_max_edge_lines)):
        if value is not None and value < 0:
            raise TricountError(f"{flag} must be at least 0, got {value}")
    if not config.graphs:
        raise TricountError("no graph given: pass files or generator specs such as rmat:scale=16")
    sources = []
    for text in config.graphs:
        if os.path.isfile(text):
            sources.append((text, "file"))
        elif is_spec(text):
            parse_spec(text)  # raises on unknown or missing keys
            sources.append((text, "spec"))
        elif os.path.isdir(text):
            raise GraphFormatError(text, "is a directory, expected a graph file")
        elif os.path.exists(text) or text == "-":  # a pipe, /dev/stdin, <(...)
            raise GraphFormatError(text, "is not a regular file: bench reads each graph file "
                                         "once a side, so it needs one it can read again")
        else:
            raise GraphFormatError(
                text, "no such file, and not a generator spec (name:key=value,... with name one "
                      f"of {', '.join(GENERATORS)})")
    backends, seen = [], set()
    for name in config.backends:
        if name == "auto":  # the public count's own choice, graph by graph
            if "auto" not in seen:
                seen.add("auto")
                backends.append(("auto", AUTO_REASON, ["auto"]))
            continue
        chosen, reason = get_backend(name)  # raises for an unusable explicit "gpu"
        chosen = chosen.name
        if chosen not in seen:
            seen.add(chosen)
            backends.append((chosen, reason, _methods_for(chosen, config.methods)))
    for entry in config.methods:
        backend, qualified, m = entry.rpartition("/")
        if qualified and backend not in seen:
            raise TricountError(f"method {entry!r} names backend {backend!r}, which is not among "
                                f"the chosen backends ({', '.join(sorted(seen))})")
        if not qualified and m not in ("all", "auto") and \
                not any(m in backend_methods(b) for b, _, _ in backends):
            listing = "; ".join(f"{b}: {', '.join(backend_methods(b))}" for b, _, _ in backends)
            raise UnknownMethodError(f"method {m!r} is not implemented by the chosen backends "
                                     f"({listing})")
    peers, missing = [], []
    for name in config.peers:
        peer = find_peer(name)
        if peer is None:
            raise TricountError(f"unknown peer {name!r}; peers: {', '.join(PEERS)} (or all)")
        ok, why = peer.available()
        if ok:
            peers.append(peer)
        else:
            missing.append((peer.name, why))
    if config.generate_on == "gpu":
        ok, why = probe()
        if not ok:
            raise BackendUnavailableError(f"--generate-on gpu is unavailable: {why}")
    return _Plan(backends, peers, missing, sources)


# -- loading and preparing -------------------------------------------------------------------


def _load(text: str, kind: str, generate_on: str):
    """``(src, dst, name)`` as host int64 arrays, from a file or a generator spec."""
    if kind == "file":
        src, dst = (np.asarray(a) for a in read_edges(text))
        if src.dtype.kind not in "iu":  # vertex names: ids by sorted rank, as tricount reads
            _names, ids = np.unique(np.concatenate((src, dst)), return_inverse=True)
            src, dst = ids[:src.shape[0]].astype(np.int64), ids[src.shape[0]:].astype(np.int64)
        return src, dst, graph_name(text)
    if generate_on == "gpu":
        src, dst, name = generate_spec(text, xp=cupy())
        return to_host(src), to_host(dst), name
    return generate_spec(text)


def _facts(graph: CSRGraph, edge_lines: int) -> dict:
    deg = graph.degrees
    wedges = int((deg * (deg - 1) // 2).sum()) if graph.n_vertices else 0
    facts = graph.summary()
    facts.update(nnz=2 * graph.n_edges, edge_lines=int(edge_lines), n_wedges=wedges)
    return facts


def _synchronize(backend: str) -> None:
    if backend == "gpu":
        gpu_synchronize()


def _prepare(graph: CSRGraph, backend: str):
    """The graph where the backend counts it, and the seconds the copy took."""
    if backend != "gpu":
        return graph, 0.0
    _synchronize(backend)
    t0 = time.perf_counter()
    dev = graph.to_device(cupy())
    _synchronize(backend)
    return dev, time.perf_counter() - t0


def _release(backend: str) -> None:
    if backend == "gpu":
        cupy().get_default_memory_pool().free_all_blocks()


def _expected(src, dst, graph: CSRGraph, limit: int, on_gpu: bool = False) -> dict:
    """The count every side must match, how it was obtained, and how long that took."""
    t0 = time.perf_counter()
    if graph.n_edges <= limit:
        n = reference.count_triangles(src.tolist(), dst.tolist())
        return {"expected": n, "verified_by": "reference oracle",
                "verify_detail": f"tricount.reference on the raw edge list ({graph.n_edges:,} "
                                 f"edges <= {limit:,})",
                "verify_s": time.perf_counter() - t0}
    if on_gpu and graph.n_edges > GPU_AGREEMENT_MIN_EDGES:
        dev = graph.to_device(cupy())
        counts = {f"gpu/{m}": gpu_engine.count(fresh_graph(dev), method=m).n_triangles
                  for m in GPU_AGREEMENT_METHODS}
        del dev
        _release("gpu")
    else:
        counts = {f"cpu/{m}": cpu_engine.count(fresh_graph(graph), method=m).n_triangles
                  for m in AGREEMENT_METHODS}
    names = " and ".join(counts)
    agreed = len(set(counts.values())) == 1
    return {"expected": next(iter(counts.values())) if agreed else None,
            "verified_by": f"agreement of {names}",
            "verify_detail": (f"{graph.n_edges:,} edges > {limit:,}, the oracle's limit: "
                              f"{names} " + ("agree" if agreed else f"DISAGREE: {counts}")),
            "verify_s": time.perf_counter() - t0}


# -- running sides ---------------------------------------------------------------------------


def _rate(edges: int, seconds) -> float | None:
    return edges / seconds if seconds else None


def _record(base: dict, graph_info: dict, trial: int, triangles: int, timings: dict) -> dict:
    expected = graph_info["expected"]
    rec = dict(base)
    rec.update(
        trial=trial,
        triangles=int(triangles),
        expected_triangles=expected,
        verified=expected is not None and int(triangles) == expected,
        verified_by=graph_info["verified_by"],
        timings=timings,
        edges_per_second=_rate(graph_info["edges"], timings.get("count_s")),
        from_edges_per_second=_rate(graph_info["edges"], timings.get("from_edges_s")),
    )
    return rec


def _run_method(result, progress, config, base, graph_info, backend, prepared, h2d_s, method):
    label = f"{graph_info['graph']} {backend}/{method}"
    if backend == "gpu":
        # The GPU engine itself, given the benchmark's timer for the kernels alone
        # (production counts never run it).
        def count(g):
            return gpu_engine.count(g, method=method, timer=KernelTimer)
    else:
        engine, _reason = get_backend(backend)

        def count(g):
            return engine.count(g, method=method)
    rows = []

    def keep(trial, run):
        out = run.value
        once = {k: graph_info[k] for k in ("load_s", "build_s")}
        timings = dict(once, h2d_s=h2d_s, orient_s=out.timings.get("preprocess_s", 0.0))
        timings["preprocess_s"] = timings["build_s"] + h2d_s + timings["orient_s"]
        timings["count_s"] = out.timings["count_s"]
        timings["kernel_s"] = out.timings.get("kernel_s")
        for extra in ("transfer_s", "gpu_s"):
            if extra in out.timings:
                timings[extra] = out.timings[extra]
        timings["engine_s"] = run.seconds
        timings["from_edges_s"] = timings["build_s"] + h2d_s + run.seconds
        timings["total_s"] = timings["load_s"] + timings["from_edges_s"]
        rec = _record(dict(base, side="tricount", backend=backend, method=method,
                           method_run=out.method, method_reason=out.method_reason,
                           peer=None), graph_info, trial, out.n_triangles, timings)
        _keep(result, rows, rec, label, trial, out.n_triangles, graph_info)
        progress.advance(1, label)

    _trials(result, progress, label, rows, "count_s", count, config.trials,
            setup=lambda: fresh_graph(prepared), synchronize=lambda: _synchronize(backend),
            each=keep)


def _trials(result, progress, label, rows, phase, call, n, **loop) -> None:
    """One side's :func:`trial_loop` (``loop``: its keywords, ``each`` filling ``rows``),
    then its stderr line; a side that raises is reported and the run goes on (one failing
    method must not hide the rest)."""
    try:
        trial_loop(call, n, **loop)
        progress.advance(1, label)  # the warm-up
    except Exception as exc:
        result.errors.append(f"{label}: {type(exc).__name__}: {exc}")
        progress.note(f"{label}: FAILED: {type(exc).__name__}: {exc}")
        return
    _note_side(progress, rows, label, phase)


def _run_auto(result, progress, config, base, graph_info, graph):
    """The ``auto`` side: the public ``tricount.count`` on the host graph, per trial.

    Its ``engine_s`` is the whole call (the copy to the GPU included when it picks
    the GPU), so its ``from_edges_s`` compares with a GPU side's build + copy +
    engine. The record's ``backend_run`` and ``method_run`` say what it picked.
    """
    from tricount.api import count as public_count

    label = f"{graph_info['graph']} auto"
    rows = []

    def keep(trial, run):
        out = run.value
        once = {k: graph_info[k] for k in ("load_s", "build_s")}
        timings = dict(once, h2d_s=0.0, orient_s=out.timings.get("preprocess_s", 0.0))
        timings["preprocess_s"] = timings["build_s"] + timings["orient_s"]
        timings["count_s"] = out.timings["count_s"]
        timings["kernel_s"] = None
        timings["engine_s"] = run.seconds
        timings["from_edges_s"] = timings["build_s"] + run.seconds
        timings["total_s"] = timings["load_s"] + timings["from_edges_s"]
        device = _device_facts(result, out.backend)
        rec = _record(dict(base, device=device, side="tricount", backend="auto", method="auto",
                           backend_run=out.backend, method_run=f"{out.backend}/{out.method}",
                           method_reason=f"{out.backend_reason}; {out.method_reason}",
                           peer=None), graph_info, trial, out.n_triangles, timings)
        _keep(result, rows, rec, label, trial, out.n_triangles, graph_info)
        progress.advance(1, label)

    _trials(result, progress, label, rows, "count_s", public_count, config.trials,
            setup=lambda: fresh_graph(graph), each=keep)


def _device_facts(result, backend: str) -> dict:
    """The device record of ``backend``, described once per run."""
    devices = result.meta.setdefault("devices", {})
    if backend not in devices:
        devices[backend] = environment.device(backend)
    return devices[backend]


def _keep(result, rows, rec, label, trial, n_triangles, graph_info):
    """Store one trial's record and note a count that differs from the expected one."""
    result.records.append(rec)
    rows.append(rec)
    if not rec["verified"]:
        result.mismatches.append(
            f"{label} trial {trial}: counted {n_triangles:,}, expected {graph_info['expected']} "
            f"({graph_info['verified_by']})")


def _run_peer(result, progress, config, base, graph_info, peer, src, dst):
    label = f"{graph_info['graph']} {peer.name}"
    limit = peer.max_edge_lines if config.peer_max_edge_lines is None else \
        (config.peer_max_edge_lines or None)
    if limit is not None and graph_info["edge_lines"] > limit:
        note = (f"{peer.name} on {graph_info['graph']}: skipped, {graph_info['edge_lines']:,} "
                f"edge lines > its limit of {limit:,} (--peer-max-edges 0 lifts it)")
        result.notes.append(note)
        progress.note(note)
        progress.advance(1 + config.trials, label)
        return
    rows = []

    def keep(trial, run):
        timings = {"load_s": graph_info["load_s"], "from_edges_s": run.seconds,
                   "total_s": graph_info["load_s"] + run.seconds}
        rec = _record(dict(base, side="peer", backend="cpu", method=None, method_run=None,
                           method_reason=peer.description, peer=peer.name),
                      graph_info, trial, run.value, timings)
        _keep(result, rows, rec, label, trial, run.value, graph_info)
        progress.advance(1, label)

    _trials(result, progress, label, rows, "from_edges_s", lambda _: peer.count(src, dst),
            config.trials, each=keep)


def _note_side(progress, rows, label, phase) -> None:
    """One stderr line for a finished side: median time, rate, count, verdict."""
    if not rows:
        return
    secs = [r["timings"][phase] for r in rows]
    med = statistics.median(secs)
    rate = rows[0]["edges"] / med / 1e6 if med else float("inf")
    verdict = "verified" if all(r["verified"] for r in rows) else "WRONG COUNT"
    what = "count" if phase == "count_s" else "edges->count"
    progress.note(f"{label}: {what} median {med:.4f} s ({rate:,.2f} M edges/s), "
                  f"{rows[0]['triangles']:,} triangles, {verdict}")


# -- the loop --------------------------------------------------------------------------------


def run_bench(config: BenchConfig, progress=None) -> BenchResult:
    """Run the benchmark described by ``config``; never raises for a wrong count.

    Raises :class:`~tricount.TricountError` (bad graph, method or peer name) and
    :class:`~tricount.BackendUnavailableError` before any work is done.
    """
    progress = progress or Progress()
    plan = _plan(config)
    result = BenchResult()
    backends = [b for b, _, _ in plan.backends]
    meta = {
        "schema": SCHEMA,
        "date": environment.utc_now(),
        "command": config.command,
        "machine": environment.machine(),
        "devices": {b: environment.device(b) for b in backends if b != "auto"},
        "versions": environment.versions(backends + (["gpu"] if "auto" in backends
                                                     and probe()[0] else []), plan.peers),
        "backends": {b: {"reason": why, "methods": ms} for b, why, ms in plan.backends},
        "peers": [p.name for p in plan.peers],
        "trials": config.trials,
        "warmups": 1,
        "reference_max_edges": config.reference_max_edges,
        "rate_convention": "edges_per_second = undirected simple edges (each counted once) / "
                           "count_s; from_edges_per_second uses from_edges_s",
    }
    result.meta = meta
    for name, why in plan.missing_peers:
        note = f"peer {name} not measured: {why}"
        result.notes.append(note)
        progress.note(note)
    per_graph = sum(len(ms) for _, _, ms in plan.backends) + len(plan.peers)
    progress.start(len(plan.sources) * per_graph * (1 + config.trials))
    for text, kind in plan.sources:
        progress.advance(0, f"{text}: loading")
        t0 = time.perf_counter()
        src, dst, name = _load(text, kind, config.generate_on)
        load_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        graph = CSRGraph.from_edges(src, dst, name=name)
        build_s = time.perf_counter() - t0
        info = {"graph": name, "source": text, "source_kind": kind, "load_s": load_s,
                "build_s": build_s, **_facts(graph, src.shape[0])}
        progress.note(f"{name}: {info['vertices']:,} vertices, {info['edges']:,} edges (each "
                      f"counted once), max degree {info['max_degree']:,}; load {load_s:.3f} s, "
                      f"build {build_s:.3f} s")
        progress.advance(0, f"{name}: expected count")
        info.update(_expected(src, dst, graph, config.reference_max_edges,
                              on_gpu="gpu" in backends))
        expected = "no" if info["expected"] is None else f"{info['expected']:,}"
        progress.note(f"{name}: expected {expected} triangles, by {info['verify_detail']} "
                      f"({info['verify_s']:.3f} s)")
        if info["expected"] is None:
            result.mismatches.append(f"{name}: {info['verify_detail']}")
        result.graphs.append(info)
        base = {"schema": SCHEMA, "date": meta["date"], "graph": name, "source": text,
                **{k: info[k] for k in GRAPH_FACTS}, "verify_s": info["verify_s"],
                "trials": config.trials,
                "rate_convention": "undirected edges counted once",
                "machine": meta["machine"], "versions": meta["versions"],
                "command": config.command}
        # auto last: it meets the process as the other sides left it (Numba, the GPU warm)
        for backend, _, methods in sorted(plan.backends, key=lambda b: b[0] == "auto"):
            if backend == "auto":
                _run_auto(result, progress, config, base, info, graph)
                continue
            prepared, h2d_s = _prepare(graph, backend)
            side_base = dict(base, device=meta["devices"][backend])
            for method in methods:
                _run_method(result, progress, config, side_base, info, backend, prepared, h2d_s,
                            method)
            del prepared
            _release(backend)
        peer_base = dict(base, device=environment.device("cpu"))
        for peer in plan.peers:
            _run_peer(result, progress, config, peer_base, info, peer, src, dst)
    progress.close()
    return result
