"""Predicted total time of every way to count one graph, and ``auto``'s pick (issue 25).

A *route* is one way from the caller's argument to the count: a backend, the
counting method and, for a text file, the parser. Its predicted time is the sum
of its *steps*, each a fixed cost (starting Numba or the GPU, loading or
compiling kernels, importing SciPy) or a rate times a size (bytes parsed,
lines built, edges oriented and counted, bytes copied). ``auto`` takes the
route with the smallest total, so a small graph goes to the CPU when the CPU
answers first, and the GPU wins where its per-edge speed pays for its start.

Pure: :class:`~tricount.backends.facts.Workload` (what is counted, from cheap facts:
sizes, file bytes) and :class:`~tricount.backends.facts.Warmth` (what this process and the disk
caches already hold) in, :class:`Route` objects out; tested on the CPU with
given statistics (``tests/test_costs.py``). :data:`COSTS` holds the constants,
each measured, with the machine, date and command in :data:`PROVENANCE`;
``benchmarks/calibrate_costs.py`` measures them again (``--cpu`` on any machine,
``--gpu`` on a GPU machine) and prints a :class:`Costs` to paste here, or to
put in a JSON file named by ``TRICOUNT_COSTS``.

The model is coarse by design: the work of a count is known only after
orienting, so it is predicted from the mean degree; a file's edges from its
size. Its job is to order routes whose totals differ by fixed costs of 0.3-5 s
(Numba's and CuPy's start, compilation), which it does from the facts of
:mod:`tricount.backends.facts`;
``tricount bench --user-time`` measures how close the pick comes to the best.

>>> w = Workload("host", n_vertices=34, n_edges=78)
>>> choose(w, Warmth(threads=2, gpu="present")).backend   # karate: the CPU answers first
'cpu'
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import threading
from dataclasses import dataclass

from tricount._threads import SERIAL_TWIN_SUFFIX, renew_in_child, serial_bound
from tricount.backends.facts import Warmth, Workload
from tricount.cpu import CPU_METHODS
from tricount.cpu.id_order import likely_in_id_order
from tricount.cpu.one_region import probes_bound
from tricount.cpu.wedge_numpy import DENSE_MAX_CELLS, MAX_THREADS as NUMPY_MAX_THREADS
from tricount.errors import InvalidArgumentError
from tricount.gpu.plan import fits_short_route
from tricount.io import NUMBA_FREE_FORMATS, STREAMED_FORMATS, builds_with_numpy
from tricount.prep.orient import PARALLEL_MIN_EDGES, PARALLEL_STARTED_MIN_EDGES

__all__ = ["Workload", "Costs", "Route", "COSTS", "PROVENANCE", "routes", "candidates",
           "choose", "explain", "best_per_backend", "load_costs", "CPU_COUNTERS",
           "WarmUpLedger", "WARM_UPS"]

#: The CPU methods ``auto`` weighs. Merge joined them after run 11 (16 threads, H100
#: machine, 2026-11-26): on graphs of mean degree about 10 it beat bitmap (email-Enron
#: 5.8 against 8.1 ms), and on tiny graphs its call costs 0.5 ms less.
CPU_COUNTERS = ("bitmap", "merge", "spgemm", "numpy")


@dataclass(frozen=True)
class Costs:
    """The constants (seconds; rates per byte, line or edge). CPU rates were measured
    with ``cpu_threads`` threads; a parallel step scales by ``cpu_threads`` over the
    threads it runs on, each thread past ``cpu_threads`` worth ``parallel_efficiency``
    of one. Count rates are per edge at mean degree ``degree_ref`` and grow linearly
    with the mean degree (``*_per_degree``: the extra seconds per edge per unit of
    degree); merge's is bitmap's times ``mean degree / merge_degree``, times bitmap's
    effective threads over merge's (each of merge's threads past ``cpu_threads`` worth
    ``merge_parallel_efficiency``), at least ``merge_min_ratio``; on the calling thread
    (:func:`tricount._threads.serial_bound`) it is ``mean degree / serial_merge_degree`` and the
    call ``serial_call_s``. ``*_call_s``: what one count of a method costs whatever the
    graph (thread wake-ups, allocations)."""

    cpu_threads: int
    numba_start_s: float
    numba_load_s: float
    numba_compile_s: float
    scipy_sparse_s: float
    inflate_s_per_byte: float
    parse_numba_s_per_byte: float
    parse_numpy_s_per_byte: float
    build_numba_s_per_line: float
    build_numpy_s_per_line: float
    orient_numpy_s_per_edge: float
    orient_parallel_s_per_edge: float
    bitmap_s_per_edge: float
    bitmap_s_per_edge_per_degree: float
    spgemm_s_per_edge: float
    spgemm_s_per_edge_per_degree: float
    numpy_count_s_per_edge: float
    numpy_count_s_per_edge_per_degree: float
    bitmap_call_s: float
    merge_call_s: float
    spgemm_call_s: float
    numpy_call_s: float
    serial_call_s: float  # bitmap's or merge's call on the calling thread (small graphs)
    parallel_efficiency: float
    gpu_start_s: float
    gpu_first_use_s: float
    gpu_compile_s: float
    gpu_copy_s_per_byte: float
    gpu_build_s_per_entry: float
    gpu_count_fixed_s: float
    gpu_count_s_per_edge: float
    gpu_short_fixed_s: float
    gpu_short_s_per_edge: float
    gpu_copy_call_s: float
    degree_ref: float = 16.0
    merge_degree: float = 5.7
    merge_min_ratio: float = 0.6
    merge_parallel_efficiency: float = 1.0
    serial_merge_degree: float = 12.0  # merge's ratio on the calling thread (PROVENANCE)
    probes_s_per_edge: float = 1.6e-9  # bitmap's pass counting its id-order probes
    id_order_count_ratio: float = 1.1  # bitmap's count in id order over its rank order's
    numba_compile_serial_s: float = 0.28  # a serial twin's compile (no parallel region)
    # bitmap's one pass on the calling thread, at degree_ref, and its slope (PROVENANCE)
    one_pass_s_per_edge: float = 1.0e-8
    one_pass_s_per_edge_per_degree: float = 3e-10


#: Where each constant of :data:`COSTS` comes from.
PROVENANCE = """\
CPU: `python benchmarks/calibrate_costs.py --cpu` on the 2-core development machine (AMD
EPYC, 2 logical CPUs shared with other jobs, Python 3.11.7, NumPy 2.4.6, Numba 0.68.1,
SciPy 1.17.1, 2 Numba threads), 2026-11-25: fixed costs the medians of 3 fresh processes
(Numba's start 0.56 s, 7 cached kernels 0.075 s, the same 7 compiled 13.4 s, SciPy's
sparse module 0.23 s; the parallel kernels' serial twins, which small graphs run, compile in
0.25-0.30 s each: `tricount count karate --method bitmap` / `merge` with an empty Numba cache,
three fresh processes each, 2026-11-27); rates fitted over the shared graphs of 10,000 edges
or more and R-MAT 12-18 (medians of 3). io's NumPy parser (parse_numpy_s_per_byte; the prototype's
was 4.9e-08): 2026-11-26, the same command's fit on the same graphs. The NumPy counter
(numpy_count_*, on 2 threads since it has threads): `python benchmarks/cpu_numpy_threads.py`
on the same machine, 2026-11-26 10:34 UTC, blocks of 128 K wedges (benchmarks/results/
cpu_numpy_threads.md: the 11 graphs of 10,000 edges or more among 9 shared graphs and R-MAT
14-18).
Per-call costs, merge's ratio, the parallel efficiency and the GPU's fixed count cost and
copy rate: `tricount bench` on the H100 machine's 16 cores (device run 11, 2026-11-26,
benchmarks/results/auto_vs_best_h100.md): one count of karate took bitmap 0.64 ms, merge
0.16, SpGEMM 0.21, NumPy 0.08 (orientation included); over the shared graphs of 80,000 to
400,000 edges and R-MAT 16-21 bitmap ran at 30-47 ns an edge on 16 threads against the
150 predicted for 2 (so each thread past two is worth about 0.4 of one); merge's count
took 0.6-0.8x bitmap's at mean degree 10 and 3.7-6x at 44-51 (merge_degree 12 there, which
on 2 threads predicted merge for soc-Epinions1, 2.2x bitmap's time: on the development
machine, 2026-11-26 13:45 UTC, fresh graphs in one process, best of 5, merge's total was
0.84-1.2x bitmap's at mean degree 2.7-5.5 and 1.0-2.7x from 10 up; so merge's threads now
count fully past two, bitmap's at 0.4, and merge_degree is 12 x 7.6 / 16 = 5.7: the same
prediction on 16 threads, deg / 5.7 on 2); the GPU from a host graph
took 1.6-1.9 ms on graphs under 20,000 edges (wedge), and copies ran at 7-9 GB/s. The
GPU's short route (gpu/small.py, graphs of at most 2^21 edges and 2^18 vertices):
benchmarks/results/gpu_small_route_h100.md, 0.12-0.26 ms from a built graph on fresh arrays
for 88,000-406,000 edges (0.1 ms + 0.35 ns an edge); a host graph's copy adds about 50 us of
calls to the bytes. Device run 13 (auto against every method, benchmarks/results/
auto_vs_best_h100.md): through tricount.count from a host graph the short route took
0.26-0.27 ms on jazz and power (0.15 of it the public call's own work), merge 0.16-0.28 ms
on the graphs under 700 edges: the short route's fixed cost is 0.2 ms, merge's call 0.16.
The call on the calling thread (serial_call_s, graphs under SERIAL_MAX_EDGES): first set
to karate's whole engine count on the 2-core development machine (0.14-0.16 ms, 0.66 in
parallel regions), which counted the orientation and the count twice and, beside NumPy's
30 us call measured on the H100 host, put merge and bitmap behind NumPy's counter on every
graph under 700 edges with Numba warm. Measured since, merge is the fastest method there on
both machines: through tricount.count from fresh built graphs on the H100 host (device run
60, 2026-11-26) karate and lesmis took merge 0.075 and 0.082 ms against NumPy's 0.087 and
0.101; through the engine on the 2-core machine (fresh built graphs, medians of 300) merge
0.12-0.16 ms, bitmap 0.15-0.18, NumPy 0.15-0.20 on the six graphs under 700 edges. With
NumPy's call at 30 us (H100 host), the call on the calling thread is then 25 us there. Its
rates are the 2-thread rates times 2 (one thread), and merge's over bitmap's is
mean degree / serial_merge_degree (12): through the engine on the 2-core machine merge took
12-42 us less than bitmap at mean degree 2.7-10.7 (power, ca-GrQc and the five graphs under
700 edges) and 97 us more at 27.7 (jazz), which deg / 12 orders as measured and merge_degree's
5.7 (the parallel regions' fit on 2 threads) does not between 6.6 and 10.7. NumPy's dense
count (graphs of at most DENSE_MAX_CELLS vertex-edge pairs) is one call: its step is not
divided among threads.
Bitmap's one pass on the calling thread (cpu/bitmap.py, count_one_pass; engine counts on
the 2-core development machine, 2026-11-27, min of 300): 4.2 ns an edge on power (mean degree
2.7), 5.4 on ca-GrQc (5.5), 4.1 on oregon1_010331 (4.1), 11 on ca-HepTh (5.3), 10.6 on jazz
(27.7), 10-15 on polblogs (27.3), 20 on ppi (19.6, past the bound on 2 threads): 10 ns at
degree_ref and 0.3 ns a unit of degree are within 2x of each; the H100 and H200 hosts' one
pass ran 2-5x slower (device runs 1-2 of that session), which still ranks it first there
under the GPU's short route up to about 16,000 edges.
The bitmap rates times 0.69 since the counter's unsigned indices, byte maps and one pass on
the calling thread (2026-11-27, the 2-core development machine: calibrate_costs.py --cpu on
the code before and after, back to back, fitted 3.82e-08 + 9.5e-11 a unit of degree against
2.64e-08 and a flat slope; 0.65-0.71 from mean degree 5 to 40; the other rates as they were).
The bitmap counter's id order (cpu/id_order.py; the 2-core development machine, 2 threads,
2026-11-26 23:30 UTC, best of 7-20): a pass counting its probes took 1.4-1.6 ns an edge on
email-Enron and soc-Epinions1 (0.12 ms on ppi's 37,845 edges), and its count 0.92-1.36x the
rank order's count on the 14 shared graphs of 2,700 edges or more and R-MAT 16 (median about
1.1). The probes are now added up by the count's own first pass (2.3 ns an edge there, with
its atomic adds), which the count then skips: the two steps still sum to about the same.
GPU: issue 25's measurements on the H100 machine (CUDA 13.2, CuPy 14.2.0): import cupy + first
op 1.12 s at first, 0.29 s since the probe makes the device's context on a thread while CuPy
imports (calibrate_costs.py --gpu, 2026-11-27 device run 6 of session 44, median of 3 fresh
processes; there, fresh processes counted R-MAT 20 / 21 from their .txt.gz in 3.3-4.1 / 6.3-7.1
s on the CPU and 3.3-3.9 / 5.5-6.1 s on the GPU: with 0.29 s the model ranks R-MAT 20 alike on
both and takes the GPU for R-MAT 21); a second run of soc-Epinions1 spent 0.42 + 0.04 s in
preparation and count for 0.4 ms of GPU work (per-process kernel loads from CuPy's disk cache);
the first count ever on a fresh machine spent 5.5 s compiling; from a built graph on the device
2.0-2.7 ms on the five small real graphs and 17.6 / 179 / 445 ms on R-MAT 21 / 24 / 25
(benchmarks/results/gpu_issue7_h100.md); the build from edge arrays on the device 8.7 ms for
R-MAT 21's 67 M entries. Host-to-device copies at 12 GB/s (pageable memory, an estimate).
Re-measure with benchmarks/calibrate_costs.py --gpu."""

#: The constants (see :data:`PROVENANCE`).
COSTS = Costs(
    # Fixed costs of a process (seconds).
    cpu_threads=2, numba_start_s=0.56, numba_load_s=0.011, numba_compile_s=1.9,
    scipy_sparse_s=0.23,
    # Reading: Numba's parser and build beside NumPy's.
    inflate_s_per_byte=5.3e-09,
    parse_numba_s_per_byte=1.19e-08, parse_numpy_s_per_byte=1.8e-08,
    build_numba_s_per_line=5.3e-08, build_numpy_s_per_line=8.6e-08,
    orient_numpy_s_per_edge=7.8e-08, orient_parallel_s_per_edge=5.5e-08,
    # Counters: a rate at degree_ref and its slope per unit of mean degree.
    bitmap_s_per_edge=6.6e-08, bitmap_s_per_edge_per_degree=3.6e-10,
    spgemm_s_per_edge=6.7e-07, spgemm_s_per_edge_per_degree=3e-08,
    numpy_count_s_per_edge=3.2e-07, numpy_count_s_per_edge_per_degree=5e-09,
    # One count, whatever the graph; threads past cpu_threads.
    bitmap_call_s=5.5e-4, merge_call_s=1.6e-4, spgemm_call_s=1.5e-4, numpy_call_s=3e-5,
    # Bitmap or merge on the calling thread (serial_bound): no region (karate, lesmis; H100).
    serial_call_s=2.5e-5,
    parallel_efficiency=0.4,
    # The GPU.
    gpu_start_s=0.29, gpu_first_use_s=0.45, gpu_compile_s=5.0,
    gpu_copy_s_per_byte=1 / 8e9, gpu_build_s_per_entry=0.13e-9,
    gpu_count_fixed_s=1.6e-3, gpu_count_s_per_edge=0.65e-9,
    gpu_short_fixed_s=2.0e-4, gpu_short_s_per_edge=0.35e-9, gpu_copy_call_s=5e-5,
)


def load_costs() -> Costs:
    """:data:`COSTS`, with the fields of the JSON file named by ``TRICOUNT_COSTS`` (as
    ``benchmarks/calibrate_costs.py --json`` writes it) in their place."""
    path = os.environ.get("TRICOUNT_COSTS")
    if not path:
        return COSTS
    what = f"TRICOUNT_COSTS={path!r}"
    try:
        with open(path) as f:
            fields = json.load(f)
    except OSError as exc:
        raise InvalidArgumentError(f"{what}: cannot read it ({exc.strerror or exc})") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidArgumentError(f"{what}: not JSON ({exc})") from None
    if not isinstance(fields, dict):
        raise InvalidArgumentError(f"{what}: expected a JSON object of costs, got "
                                   f"{type(fields).__name__}")
    known = {f.name for f in dataclasses.fields(Costs)}
    bad = [k for k, v in fields.items() if k in known and (
        isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 0)]
    if bad:
        raise InvalidArgumentError(f"{what}: {bad[0]} must be a non-negative number of "
                                   f"seconds, got {fields[bad[0]]!r}")
    return dataclasses.replace(COSTS, **{k: v for k, v in fields.items() if k in known})


@dataclass(frozen=True)
class Route:
    """One way to the count: ``backend`` ("cpu" or "gpu"), ``method`` (a CPU method, or
    "auto" for the GPU's plan), ``parser`` ("numba", "numpy", or "" when nothing is
    parsed) and the predicted ``steps`` as ``(what, seconds)``."""

    backend: str
    method: str
    parser: str
    steps: tuple
    #: The steps paid once per process (starting Numba or the GPU, loading or compiling
    #: kernels, importing SciPy): a count after this one would not pay them again.
    warm_up: tuple = ()

    # Computed once per route (the steps never change): the model's memo hands the same
    # routes to every count of a size, and the ledger reads these for each of them.
    @functools.cached_property
    def total(self) -> float:
        return float(sum(s for _, s in self.steps))

    @functools.cached_property
    def warm_up_s(self) -> float:
        return float(sum(s for what, s in self.steps if what in self.warm_up))

    @functools.cached_property
    def warm_total(self) -> float:
        """The predicted total once the warm-up is paid."""
        return self.total - self.warm_up_s

    def warm_up_beyond(self, other: "Route") -> float:
        """Seconds of this route's warm-up that ``other`` does not pay too (a GPU start
        that two GPU routes both pay is no reason to prefer either)."""
        return float(sum(s for what, s in self.steps
                         if what in self.warm_up and what not in other.warm_up))

    @property
    def name(self) -> str:
        via = f", {self.parser} parser" if self.parser else ""
        return f"{self.backend}/{self.method}{via}"

    def describe(self) -> str:
        """``"cpu/bitmap, numba parser 0.412 s (start Numba 0.370, parse 0.021, ...)"``."""
        parts = ", ".join(f"{what} {s:.3f}" for what, s in self.steps if s >= 0.0005)
        return f"{self.name} {self.total:.3f} s ({parts or 'nothing to do'})"


# -- the steps ---------------------------------------------------------------------------


def _effective_threads(threads: int, c: Costs, efficiency: float) -> float:
    """``threads`` as whole threads at the reference's rate: past ``cpu_threads`` each one is
    worth ``efficiency`` of one (memory bandwidth and wake-ups)."""
    if threads > c.cpu_threads:
        return c.cpu_threads + (threads - c.cpu_threads) * efficiency
    return float(threads)


class _Steps:
    """Accumulates a route's steps; Numba's start and each kernel group are charged once."""

    def __init__(self, warmth: Warmth, costs: Costs):
        self.warmth, self.costs, self.steps, self.groups = warmth, costs, [], set()
        self.once = []  # the names of the steps paid once per process

    def add(self, what: str, seconds: float) -> None:
        self.steps.append((what, float(seconds)))

    def add_once(self, what: str, seconds: float) -> None:
        """A step this process pays once (a start, a kernel load or compile, an import)."""
        self.add(what, seconds)
        self.once.append(what)

    def route(self, backend: str, method: str, parser: str) -> Route:
        return Route(backend, method, parser, tuple(self.steps), tuple(self.once))

    def serial(self, what: str, seconds_at_ref: float) -> None:
        """A parallel step run on the calling thread (one thread, no region)."""
        self.add(what, seconds_at_ref * self.costs.cpu_threads)

    def parallel(self, what: str, seconds_at_ref: float, *, max_threads: int | None = None) -> None:
        """A parallel step measured with ``costs.cpu_threads`` threads, run on this process's
        threads (at most ``max_threads``)."""
        c = self.costs
        threads = max(1, self.warmth.threads)
        if max_threads is not None:
            threads = min(threads, max_threads)
        threads = _effective_threads(threads, c, c.parallel_efficiency)
        self.add(what, seconds_at_ref * c.cpu_threads / threads)

    def kernels(self, *groups: str) -> None:
        """Start Numba (unless started) and load or compile the kernels of ``groups``."""
        if not self.warmth.numba_started and not any(w == "start Numba" for w, _ in self.steps):
            self.add_once("start Numba", self.costs.numba_start_s)
        groups = [g for g in groups if g not in self.groups]
        self.groups.update(groups)
        cached = to_compile = 0
        compile_s = 0.0
        for group in groups:
            _, more_cached, more_to_compile = self.warmth.group(group)
            cached, to_compile = cached + more_cached, to_compile + more_to_compile
            # A serial twin (no parallel region) compiles several times faster.
            compile_s += more_to_compile * (self.costs.numba_compile_serial_s
                                            if group.endswith(SERIAL_TWIN_SUFFIX)
                                            else self.costs.numba_compile_s)
        label = "+".join(groups)
        if to_compile:
            self.add_once(f"compile {to_compile} {label} kernels", compile_s)
        if cached:
            self.add_once(f"load {cached} {label} kernels", cached * self.costs.numba_load_s)


def _read(steps: _Steps, w: Workload, parser: str) -> None:
    """Reading a text file, or building edge arrays, on the host."""
    c = steps.costs
    lines = max(w.n_edges, 1)
    if w.kind == "text":
        if w.compressed:
            steps.add("decompress", c.inflate_s_per_byte * w.text_bytes)
        if w.format in NUMBA_FREE_FORMATS:  # a table (CSV): read by pyarrow, polars or Python
            steps.parallel("parse", c.parse_numba_s_per_byte * w.text_bytes)
            if builds_with_numpy(w.format, parser, lines, steps.warmth.numba_started):
                steps.add("build", c.build_numpy_s_per_line * lines)
            else:
                steps.kernels("build")
                steps.parallel("build", c.build_numba_s_per_line * lines)
        elif parser == "numba":
            steps.kernels("parse", "build")
            steps.parallel("parse", c.parse_numba_s_per_byte * w.text_bytes)
            steps.parallel("build", c.build_numba_s_per_line * lines)
        else:
            steps.add("parse", c.parse_numpy_s_per_byte * w.text_bytes)
            steps.add("build", c.build_numpy_s_per_line * lines)
    elif w.kind == "edges":
        steps.add("build", c.build_numpy_s_per_line * lines)


def _count_rate(per_edge: float, per_degree: float, w: Workload, c: Costs) -> float:
    return w.n_edges * max(per_edge + per_degree * (w.mean_degree - c.degree_ref), per_edge / 4)


def _cpu_route(w: Workload, warmth: Warmth, c: Costs, parser: str, method: str) -> Route:
    steps = _Steps(warmth, c)
    if w.kind in ("device", "device-edges"):
        steps.add("copy to the host", c.gpu_copy_s_per_byte * 12 * w.n_edges)
    _read(steps, w, parser)
    m = w.n_edges
    call = getattr(c, f"{method}_call_s")
    if method in ("spgemm", "numpy"):  # the degree orientation, then one core's count
        if m >= PARALLEL_MIN_EDGES or (warmth.numba_started
                                       and m >= PARALLEL_STARTED_MIN_EDGES):  # orient_upper's rule
            steps.kernels("orient-degree")
            steps.parallel("orient", c.orient_parallel_s_per_edge * m)
        else:
            steps.add("orient", c.orient_numpy_s_per_edge * m)
        if method == "spgemm":
            if not warmth.scipy_sparse:
                steps.add_once("import SciPy", c.scipy_sparse_s)
            steps.add("count", _count_rate(c.spgemm_s_per_edge, c.spgemm_s_per_edge_per_degree,
                                           w, c))
        else:  # the NumPy counter's threads (cpu/wedge_numpy.py), fitted on cpu_threads
            rate = _count_rate(c.numpy_count_s_per_edge, c.numpy_count_s_per_edge_per_degree,
                               w, c)
            if w.n_vertices * m <= DENSE_MAX_CELLS:  # the dense count: one call, no threads
                steps.add("count", rate)
            else:
                steps.parallel("count", rate, max_threads=NUMPY_MAX_THREADS)
    else:
        # A small graph's kernels run on the calling thread (cpu.engine's rule): their
        # serial twins, compiled and cached apart, or bitmap's one pass.
        on_caller = m < serial_bound(method, max(1, warmth.threads))
        if method == "bitmap" and probes_bound(m, max(1, warmth.threads)) is not None:
            # The engine estimates the anchors' probes and counts most such graphs in one
            # region: its kernels are loaded or compiled. Its time is priced as the route
            # below (the owner rule's), which the one region beats where it runs.
            steps.kernels("bitmap-anchors")
        if on_caller and method == "bitmap":  # the id order, first pass and count in one
            steps.kernels(f"bitmap{SERIAL_TWIN_SUFFIX}")
            steps.add("count", _count_rate(c.one_pass_s_per_edge,
                                           c.one_pass_s_per_edge_per_degree, w, c))
            steps.add("call", c.serial_call_s)
            return steps.route("cpu", method, parser if w.kind == "text" else "")
        twin = SERIAL_TWIN_SUFFIX if on_caller else ""
        # Bitmap counts the id order where its probes are few (cpu/id_order.py): the model
        # takes the id order where its bound is the generous one, without the probes.
        id_order = method == "bitmap" and likely_in_id_order(
            m, 1 if on_caller else max(1, warmth.threads))
        steps.kernels(*(() if id_order else (f"orient-rank{twin}",)), f"{method}{twin}")
        run = steps.serial if on_caller else steps.parallel
        if id_order:
            run("probes", c.probes_s_per_edge * m)
        else:
            run("orient", c.orient_parallel_s_per_edge * m)
        ratio = c.id_order_count_ratio if id_order else 1.0
        if method == "merge" and on_caller:  # the serial twins' own fit (PROVENANCE)
            ratio = max(c.merge_min_ratio, w.mean_degree / c.serial_merge_degree)
        elif method == "merge":  # merge scales better with threads than bitmap (PROVENANCE)
            threads = max(1, warmth.threads)
            scaling = (_effective_threads(threads, c, c.parallel_efficiency)
                       / _effective_threads(threads, c, c.merge_parallel_efficiency))
            ratio = max(c.merge_min_ratio, w.mean_degree / c.merge_degree * scaling)
        run("count", _count_rate(c.bitmap_s_per_edge, c.bitmap_s_per_edge_per_degree, w, c)
            * ratio)
        if on_caller:
            call = c.serial_call_s
    steps.add("call", call)
    return steps.route("cpu", method, parser if w.kind == "text" else "")


def _gpu_route(w: Workload, warmth: Warmth, c: Costs, parser: str) -> Route:
    """The GPU's route; a text is parsed by ``parser``: "numba" streams a format of
    io's STREAMED_FORMATS into the device (parsed on the host by Numba, built on the
    GPU), "numpy" (and any other format) is read on the host and its CSR copied."""
    steps = _Steps(warmth, c)
    if not warmth.gpu_used:
        steps.add_once("start the GPU", c.gpu_start_s)
        steps.add_once("load GPU kernels", c.gpu_first_use_s)
        if not warmth.gpu_compiled:
            steps.add_once("compile GPU kernels", c.gpu_compile_s)
    m = w.n_edges
    if w.kind == "text":
        if parser == "numba" and w.format in STREAMED_FORMATS:
            if w.compressed:
                steps.add("decompress", c.inflate_s_per_byte * w.text_bytes)
            steps.kernels("parse")
            steps.parallel("parse", c.parse_numba_s_per_byte * w.text_bytes)
            steps.add("copy", c.gpu_copy_s_per_byte * 16 * m)
            steps.add("build", c.gpu_build_s_per_entry * 2 * m)
        else:
            _read(steps, w, parser)
            steps.add("copy", c.gpu_copy_s_per_byte * (8 * w.n_vertices + 4 * m))
    elif w.kind == "edges" and w.device_build:  # copied as they are, built on the device
        steps.add("copy", c.gpu_copy_s_per_byte * 16 * m)
        steps.add("build", c.gpu_build_s_per_entry * 2 * m)
    elif w.kind in ("edges", "binary"):
        steps.add("build", c.build_numpy_s_per_line * m)
        steps.add("copy", c.gpu_copy_s_per_byte * (8 * w.n_vertices + 4 * m))
    elif w.kind == "host":
        steps.add("copy", c.gpu_copy_s_per_byte * (8 * w.n_vertices + 4 * m))
    elif w.kind == "device-edges":
        steps.add("build", c.gpu_build_s_per_entry * 2 * m)
    if w.kind in ("host", "edges", "binary", "text"):
        steps.add("copy calls", c.gpu_copy_call_s)
    if fits_short_route(w.n_vertices, m):
        steps.add("count (short route)", c.gpu_short_fixed_s + c.gpu_short_s_per_edge * m)
    else:
        steps.add("count", c.gpu_count_fixed_s + c.gpu_count_s_per_edge * m)
    return steps.route("gpu", "auto", parser)


def _gpu_routes(w: Workload, warmth: Warmth, c: Costs) -> list[Route]:
    """The GPU's routes: a text the NumPy parser reads has two, read on the host (nothing
    to start but the GPU) or streamed by Numba's parser (the faster once Numba is warm)."""
    return [_gpu_route(w, warmth, c, parser) for parser in _parsers(w, warmth)]


def _parsers(w: Workload, warmth: Warmth) -> tuple:
    """The parsers of a text: io's NumPy parser where it reads the format and the text
    fits its cap (past the cap it hands the rest to Numba), and always Numba's."""
    if w.kind != "text":
        return ("",)
    cap = warmth.numpy_max_bytes
    numpy_reads = w.format in warmth.numpy_formats and (cap is None or w.text_bytes <= cap)
    return ("numba", "numpy") if numpy_reads else ("numba",)


def routes(w: Workload, warmth: Warmth, costs: Costs | None = None) -> list[Route]:
    """Every route for ``w``: each CPU counter with each parser that can read it, and the
    GPU unless ``warmth`` says there is none."""
    c = costs or load_costs()
    out = [_cpu_route(w, warmth, c, parser, method)
           for method in CPU_COUNTERS for parser in _parsers(w, warmth)]
    if warmth.gpu != "absent":
        out += _gpu_routes(w, warmth, c)
    return out


def candidates(w: Workload, warmth: Warmth, *, backend: str = "auto", method: str = "auto",
               costs: Costs | None = None) -> list[Route]:
    """The routes a request allows, fastest first (empty when none can run it: the
    engine then refuses the request with its own message).

    ``backend`` "cpu" or "gpu" keeps that backend's routes, "auto" both (the GPU's
    only where ``warmth`` does not rule a GPU out). ``method`` "auto" weighs
    :data:`CPU_COUNTERS` on the CPU and the GPU's plan; a CPU method keeps the CPU
    routes of that method; any other name is the GPU's.
    """
    c = costs or load_costs()
    key = (w, warmth.key, backend, method, id(c))
    known = _CANDIDATES.get(key)
    if known is not None and known[0] is c:  # the id of these costs, not of dead ones
        return list(known[1])
    cpu_methods = CPU_COUNTERS if method == "auto" else (
        (method,) if method in CPU_METHODS else ())
    out = []
    if backend in ("auto", "cpu"):
        out += [_cpu_route(w, warmth, c, parser, m)
                for m in cpu_methods for parser in _parsers(w, warmth)]
    if backend == "gpu" or (backend == "auto" and warmth.gpu != "absent"
                            and method not in CPU_METHODS):
        out += _gpu_routes(w, warmth, c)
    out.sort(key=lambda r: r.total)
    with _CANDIDATES_LOCK:
        if len(_CANDIDATES) >= CANDIDATES_MEMO:
            _CANDIDATES.clear()
        _CANDIDATES[key] = (c, tuple(out))
    return out


#: The routes of the last requests, by (workload, facts, request, costs): a prediction is
#: a pure function of them, and a process counting many graphs of one size, or one graph
#: many times, asks the same (65 of karate's 300 us on two cores went into it).
_CANDIDATES: dict = {}
_CANDIDATES_LOCK = threading.Lock()
renew_in_child(globals(), _CANDIDATES_LOCK=threading.Lock)
CANDIDATES_MEMO = 256


def choose(w: Workload, warmth: Warmth, *, backend: str = "auto", method: str = "auto",
           costs: Costs | None = None) -> Route | None:
    """The fastest route a request allows (:func:`candidates`), or None."""
    allowed = candidates(w, warmth, backend=backend, method=method, costs=costs)
    return allowed[0] if allowed else None


def explain(chosen: Route, others) -> str:
    """A reason: the chosen route's prediction, then the others'."""
    return _explain(chosen, tuple(others))


@functools.lru_cache(maxsize=CANDIDATES_MEMO)
def _explain(chosen: Route, others: tuple) -> str:
    rest = "; ".join(r.describe() for r in others if r != chosen)
    return f"predicted {chosen.describe()}" + (f"; against {rest}" if rest else "")


def compile_notice(route: Route) -> str | None:
    """What a count by ``route`` will compile and about how long it takes, said before it
    starts (a first run's wait should not look like a hang), or None when it compiles
    nothing."""
    steps = [(what, s) for what, s in route.steps if what.startswith("compile ")]
    if not steps:
        return None
    what = " and ".join(w.removeprefix("compile ") for w, _s in steps)
    seconds = sum(s for _w, s in steps)
    return (f"compiling {what} on first use (predicted {seconds:.0f} s, once: later runs "
            "load them from the disk cache)")


def best_per_backend(allowed) -> list:
    """The fastest route of each backend among ``allowed`` (sorted fastest first)."""
    seen, out = set(), []
    for route in allowed:
        if route.backend not in seen:
            seen.add(route.backend)
            out.append(route)
    return out


# -- many counts in one process: when to pay a warm-up ----------------------------------


class WarmUpLedger:
    """When a process that counts many graphs pays a warm-up: the break-even rule of ski
    rental (rent until the rent paid equals the price, then buy; Karlin, Manasse,
    McGeoch and Owicki 1988).

    Each count is placed by its own predicted total, so a warm-up (Numba's start and
    kernels, SciPy, the GPU's start and kernels) is paid only when it pays back within
    that one count. A process that counts many mid-size graphs would then never pay it
    and lose the same margin on every count (email-Enron on two cores: NumPy's counter
    68 ms a count, Numba's bitmap 18 ms once started). The ledger keeps, per route, the
    time this process has lost by not having that route warm: each count whose pick is
    slower than another route's warm part adds the difference to that route's account
    (the route with the fastest warm part, when several are). When an account holds
    the route's warm-up cost, that route is taken and its warm-up paid, and the account
    is emptied. Whatever counts follow, the process then spends at most about twice
    what the best choices in hindsight would (the rule's guarantee, up to the model's
    error). Thread-safe; :data:`WARM_UPS` is the process's ledger.
    """

    def __init__(self):
        self._lost: dict[str, float] = {}
        self._lock = threading.Lock()

    def lost(self, route: Route) -> float:
        """Seconds this process has lost by not having ``route`` warm."""
        return self._lost.get(route.name, 0.0)

    def place(self, allowed) -> tuple[tuple, str]:
        """``allowed`` (routes fastest first) in the order to try, and a note for the
        reason ('' when the order stands); records what the pick loses."""
        if not allowed:
            return tuple(allowed), ""
        # A warm-up of the pick itself is paid by this count, and so is the part of another
        # route's that the pick pays too: only the rest is a route's price. A price is at
        # most the whole warm-up, so a route whose warm total is not below the pick's total
        # is out before its price is summed (in a warm process, every route).
        best = allowed[0]
        price = {id(r): r.warm_up_beyond(best) for r in allowed[1:]
                 if r.warm_up and r.warm_total < best.total}
        warm = [r for r in allowed[1:]
                if price.get(id(r), 0) > 0 and r.total - price[id(r)] < best.total]
        if not warm:
            return tuple(allowed), ""
        target = min(warm, key=lambda r: r.total - price[id(r)])
        target_price = price[id(target)]
        with self._lock:
            lost = self._lost.get(target.name, 0.0) + best.total - (target.total - target_price)
            if lost < target_price:
                self._lost[target.name] = lost
                return tuple(allowed), ""
            self._lost.pop(target.name, None)
        note = (f"{target.name} warmed up now: this process had lost {lost:.3f} s to counts "
                f"without it, past its warm-up's {target_price:.3f} s (ski rental)")
        return (target,) + tuple(r for r in allowed if r is not target), note

    def clear(self) -> None:
        with self._lock:
            self._lost.clear()


#: The process's ledger, used by :func:`tricount.count` (:func:`tricount.backends.select`).
WARM_UPS = WarmUpLedger()
