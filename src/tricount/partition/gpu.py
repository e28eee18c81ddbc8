"""The GPU executor of a partition plan: one GPU or several, the graph on the host, on a device or
in a file; and one sub-problem counted on its own (:func:`count_subproblem`). Dask workers
keep one device's share between their tasks instead (:mod:`tricount.partition.device_graph`,
planned by :func:`plan_pieces` as here).

Counts the triangles of a graph as the sub-problems of :mod:`tricount.partition.plan` (apex
ranges of the rank-oriented graph; each triangle counted once, in the range of its apex),
each on a GPU, and adds the counts as Python integers.

    graph (host arrays, one device's arrays, a .tcsr read straight into each device's
      memory where every device keeps the graph whole, else into host memory)
      ─ degrees, (degree, id) rank, out- and in-degrees ──────▶ statistics (1-2 passes)
      ─ orientation in slices ─▶ the rank-ordered CSR, on each device or on the host
      (several devices keeping it: each copies and orients a share, and the devices
      exchange their shares over NVLink or PCIe, :mod:`tricount.partition.shared_prep`;
      or device 0 orients it alone and the others copy it, when it does not fit beside
      the graph)
    plan_partitions(in-degrees, a block's budget) ─▶ k apex ranges
      (k = 1 when the rank-ordered CSR stays on the device: its block is the CSR itself)
      several devices: each range cut into pieces of about equal anchor work (the whole
      range, every device keeping the CSR: by owner, plan.split_owners)
    a thread per device: take the heaviest piece of the range whose block it holds (else
      the heaviest left), build that block, stream the piece's pairs, hash kernel ─▶ Σ

The passes are :mod:`tricount.gpu.apex`'s; what stays on a device and how much room each
step gets is decided before anything is allocated (:mod:`tricount.partition.device_plan`,
pure). Every device has its own thread (CuPy's current device, stream and memory hooks
are per thread), its own streams and its own part of CuPy's pool; a graph in host memory
is shared read-only, each device copying it through pinned buffers of its own.

Why the rank-ordered CSR first: a sub-problem needs, for every rank u below its range's
end, the slice of N+(u) in the range (its *block*) and the rows of its anchors (its *pair
stream*). Cut from the graph as stored (ids in id order), each block needs the whole edge
list renamed on the fly and a sort of its keys, once per range and per pass over the
host. Once the graph is in rank order, a block is one pass over the rows below the range's
end that keeps a contiguous run of each row, in order (no sort), the whole range's block
is the CSR itself, and a piece of anchors reads only its own rows. The orientation costs
one sort of every edge, in slices (about 70 ms per 10^9 keys on an H100), and it is
needed by the plan's statistics anyway; on the device it replaces the per-range sorts
and, when the CSR stays there, every later pass over PCIe (25-50 GB/s) by one over HBM
(about 3 TB/s). docs/partition.md has the byte counts and the predicted times.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from tricount.errors import InvalidArgumentError, TricountError, UnsupportedGraphError
from tricount.partition import shared_prep
from tricount.partition.device_plan import (BLOCK_ENTRY_BYTES, PAIR_ENTRY_BYTES,
                                            WHOLE_BLOCK_VERTEX_BYTES, DevicePlan, csr_bytes,
                                            plan_device, size)
from tricount.partition.plan import PartitionPlan, SubProblem, cut_by_work, plan_partitions

__all__ = ["count_gpu", "count_subproblem", "rank_on_gpu", "resolve_devices", "fits_in_memory",
           "graph_source", "GraphSource", "reads_file_to_device", "PIECES_PER_DEVICE",
           "OWNER_PIECES_PER_DEVICE", "pieces_per_range", "plan_pieces",
           "whole_range"]

#: With several devices, each apex range is cut into this many pieces per device, handed out
#: heaviest first: a device that finishes early takes another piece, so the slowest device
#: waits at most about one piece for the others. The pieces' cost is estimated by their
#: probes plus :data:`tricount.gpu.apex.ENTRY_PROBES` per row entry (the pair stream's
#: share). With that estimate, on four H100s (device run 29, best of 3, two rounds):
#:
#: ==============  ===========  ===========  ===========  ===========
#: per device      2            3            4            6
#: ==============  ===========  ===========  ===========  ===========
#: R-MAT 26 s      0.602-0.607  0.612-0.613  0.670-0.691  0.657-0.658
#: slowest kernel  0.256        0.232        0.239-0.240  0.244-0.247
#: R-MAT 25 s      0.303-0.306  0.314-0.326  0.329-0.340  0.350-0.373
#: ==============  ===========  ===========  ===========  ===========
#:
#: Every piece's launch and pass cost something (4 and 6 lose), and 2 leave the kernels
#: unbalanced (1.17x the mean at R-MAT 26); 3 keep the devices' busy time as balanced as 2
#: (the slowest 0.308 s against 0.306) with the kernels within 1.08x. Pieces that shrink
#: wave by wave (4:2:1 of a device's share, largest first) lost (R-MAT 26 slowest kernel
#: 0.244 s against 0.224, end to end alike; benchmarks/results/partition_gpu_h100x4.md).
PIECES_PER_DEVICE = 3
#: ... and more on a large graph, so that no piece holds more than about this many anchor
#: entries per device: the estimate that cuts pieces of equal work was fitted at R-MAT 26,
#: and at R-MAT 29 (four H100s, device run 52) twelve pieces of equal estimate took 1.3 to
#: 7.0 s of kernel each, the highest ranks the slowest, so one device counted 13.5 s and
#: another 7.1. Smaller pieces let the devices even out what the estimate misjudges; their
#: fixed cost (a few ms each) is nothing beside seconds of kernel.
PIECE_MAX_ENTRIES = 1 << 28


#: Where every device keeps the rank-ordered CSR (one range, its block the CSR itself), the
#: range is cut by owner instead (:func:`tricount.partition.plan.split_owners`), into this
#: many pieces per device (0: by anchor, as any other range). Anchor pieces build a hub's
#: table once for every piece that holds one of its edges: at R-MAT 26 the twelve anchor
#: pieces' kernels add up to 0.857 s against 0.776 s for the whole range on one GPU, which
#: caps four devices' kernels at 3.46x. Owner pieces add up to 0.776-0.788 s, but each
#: reads every row (one pass of ``tc_slice_csr_pairs``, and the plan one of
#: ``tc_slice_owner_work`` over each device's share). On four H100s (2026-11-27, device
#: run 3 of the session, two rounds, best of 3; ``benchmarks/partition_layouts.py``), end
#: to end s and slowest kernel s:
#:
#: ==========  ==================  ==================  ==================  ============
#: R-MAT       anchors, 3/device   owners, 1/device    owners, 2/device    owners, 3
#: ==========  ==================  ==================  ==================  ============
#: 26          0.663-0.679, 0.224  0.603-0.621, 0.214  0.648-0.658, 0.205  0.695-0.702
#: 25          0.343-0.354, 0.095  0.324-0.332, 0.092  0.309-0.331, 0.086  0.348-0.362
#: ==========  ==================  ==================  ==================  ============
#:
#: Two per device balance the kernels (3.72-3.83x one GPU's, against 3.62x for one piece
#: each) and lose little end to end; on two GPUs they win both (R-MAT 26 0.878-0.881 s
#: against 0.941-0.943, kernels 1.98x against 1.83-1.91x).
OWNER_PIECES_PER_DEVICE = 2


def pieces_per_range(workers: int, n_edges: int = 0) -> int:
    """Pieces each apex range is cut into for ``workers`` devices or Dask workers on a graph
    of ``n_edges`` edges: one range whole for one, else :data:`PIECES_PER_DEVICE` for each,
    or more where a device's share of the edges exceeds that many
    :data:`PIECE_MAX_ENTRIES`.

    >>> pieces_per_range(1, 8_493_557_202), pieces_per_range(4), pieces_per_range(4, 1 << 30)
    (1, 12, 12)
    >>> pieces_per_range(4, 8_493_557_202)  # R-MAT 29: 8 a device
    32
    """
    if workers <= 1:
        return 1
    return max(PIECES_PER_DEVICE, -(-int(n_edges) // (workers * PIECE_MAX_ENTRIES))) * workers

#: The anchors' work is read back at about this many ranks (a piece's bounds fall on them):
#: 8 MiB, where every rank's would be 2 GiB at R-MAT 28.
ANCHOR_SAMPLES = 1 << 20
#: What to do when a partitioned count runs out of GPU memory anyway.
ADVICE = ("pass a smaller max_memory (the plan then keeps more room and cuts more "
          "sub-problems) or more partitions, or use backend='cpu'")


def _cupy():
    from tricount.gpu.device import cupy

    return cupy()


# -- the graph as the executor reads it ---------------------------------------------------------


@dataclass
class GraphSource:
    """An upper CSR for the executor: NumPy arrays, or CuPy arrays on device ``device``.

    ``ranked`` is True when the ids already are (degree, id) ranks (a
    :class:`~tricount.partition.ranked.RankedCSR`, a file written in rank
    order), None when the degrees will tell. ``in_degree`` (host int64, by
    rank) when known. ``summary`` holds the graph's facts for the result.
    """

    indptr: object
    indices: object
    n_vertices: int
    n_edges: int
    ranked: bool | None = None
    in_degree: object = None
    device: int | None = None
    summary: dict = field(default_factory=dict)
    rank: object = None  # host: the rank of every vertex of the graph this was ordered from
    #: A plain ``.tcsr`` not read yet (:func:`graph_source` with ``unread_file``): its arrays
    #: are None until :meth:`read_host` reads them, or a device reads the file itself
    #: (:meth:`DeviceWorker._reader`, when its plan copies the graph there whole).
    file: object = None

    @property
    def index_dtype(self) -> np.dtype:
        if self.indices is None:
            return self.file.stored_index_dtype
        return np.dtype(self.indices.dtype)

    @property
    def index_bytes(self) -> int:
        return int(self.index_dtype.itemsize)

    @property
    def unread(self) -> bool:
        """A file whose arrays are not read yet."""
        return self.indices is None

    def read_host(self) -> "GraphSource":
        """This source with its arrays in host memory (a file read now, as
        :func:`tricount.io.load_graph` reads it); itself when they are."""
        if not self.unread:
            return self
        from tricount.io import load_graph

        graph = load_graph(self.file.path)
        return dataclasses.replace(self, indptr=graph.indptr, indices=graph.indices, file=None)

    def to_host(self) -> "GraphSource":
        """The same graph in NumPy arrays (for devices other than the one holding it)."""
        cp = _cupy()
        return dataclasses.replace(self, indptr=cp.asnumpy(self.indptr),
                                   indices=cp.asnumpy(self.indices), device=None)


def graph_source(graph, *, unread_file: bool = False) -> GraphSource:
    """A :class:`GraphSource` of a CSRGraph (host or device), a RankedCSR or a graph file
    (read into host memory; with ``unread_file``, a plain ``.tcsr`` whose index type is the
    graph's is left unread: only its header is checked, see :meth:`GraphSource.read_host`)."""
    from tricount.graph import CSRGraph
    from tricount.partition.ranked import RankedCSR

    if isinstance(graph, (str, os.PathLike)):
        from tricount.io import load_graph

        if unread_file:
            from tricount.io.native import native_file
            from tricount.prep.xp import index_dtype

            native = native_file(graph)
            if native is not None and native.stored_index_dtype == index_dtype(
                    native.n_vertices):
                return GraphSource(None, None, native.n_vertices, native.n_edges,
                                   summary=native.summary, file=native)

        graph = load_graph(graph)
    if isinstance(graph, RankedCSR):
        name = os.path.basename(graph.path) if graph.path else None
        return GraphSource(graph.indptr, graph.indices, graph.n_vertices, graph.n_edges,
                           ranked=True, in_degree=graph.in_degree,
                           summary={"graph": name, "vertices": graph.n_vertices,
                                    "edges": graph.n_edges})
    if isinstance(graph, CSRGraph):
        device = None if graph.xp is np else int(graph.indptr.device.id)
        return GraphSource(graph.indptr, graph.indices, graph.n_vertices, graph.n_edges,
                           device=device,
                           summary={"graph": graph.name, "vertices": graph.n_vertices,
                                    "edges": graph.n_edges,
                                    "self_loops_dropped": graph.self_loops_dropped,
                                    "duplicates_dropped": graph.duplicates_dropped})
    raise InvalidArgumentError(f"the GPU partitioned count takes a Graph, a RankedCSR or a graph "
                               f"file path, got {type(graph).__name__}")


def reads_file_to_device(dplans: list[DevicePlan]) -> bool:
    """Whether an unread ``.tcsr`` goes straight from the file to each device
    (:mod:`tricount.io.native_gpu`) rather than through host memory: where every device
    copies the graph whole before its statistics (``upload_first``) and keeps the
    rank-ordered CSR. Each device then reads the file and prepares it on its own, where
    from host arrays several devices share the preparation (:mod:`shared_prep`)."""
    return all(p.upload_first and p.ranked_resident for p in dplans)


def resolve_devices(devices) -> list[int]:
    """Device ids for ``devices``: None (the current device), ``"all"``, a count (the first
    ones) or ids (repeats allowed: two workers sharing one GPU, each with half its memory)."""
    from tricount.partition import check_devices

    cp = _cupy()
    available = cp.cuda.runtime.getDeviceCount()
    devices = check_devices(devices)
    if devices is None:
        return [cp.cuda.Device().id]
    if devices == "all":
        return list(range(available))
    ids = list(range(devices)) if isinstance(devices, int) else list(devices)
    bad = [d for d in ids if d >= available]
    if bad or not ids:
        raise InvalidArgumentError(f"devices={devices!r}: this machine has {available} GPU(s), "
                                   f"ids 0 .. {available - 1}")
    return ids


def fits_in_memory(n_vertices: int, n_edges: int, index_bytes: int, *, on_device: bool,
                   method: str = "auto", orientation: str = "auto", max_memory=None,
                   name: str = "") -> tuple[bool, str]:
    """Whether the in-memory GPU count (:func:`tricount.gpu.engine.count`) fits, and why not:
    the GPU plan's memory check (:func:`tricount.gpu.plan.plan_memory`, and a sliced
    preparation's least slice), with the memory free on the current device."""
    from tricount.gpu.device import free_device_bytes
    from tricount.gpu.plan import (GraphStats, graph_device_bytes, plan_memory, request,
                                   slice_capacity)

    n, m, idx = int(n_vertices), int(n_edges), int(index_bytes)
    stats = GraphStats(n, m, idx, on_device, free_device_bytes(), name=name or "")
    wanted = request(method, orientation)
    try:
        planned = plan_memory(stats, wanted, max_memory)
        prep = planned.preparation
        if prep.sliced:
            slice_capacity(prep.budget_bytes, graph_device_bytes(n, m, idx), n, m, idx, 1)
    except UnsupportedGraphError as exc:
        return False, f"the in-memory count does not fit: {exc}"
    return True, f"the in-memory count fits the GPU ({prep.kind} preparation)"


# -- one device ----------------------------------------------------------------------------------


def on_device(what: str):
    """Run a :class:`DeviceWorker` method as one call inside ``self.context(what)``.

    The device's memory hook hears only what happens inside a context, so every
    array a step drops must die there: a method's locals die when it returns,
    which this puts inside the context (a ``with`` in the method's body ends
    before them, and the hook would go on counting them as alive).
    """
    def wrap(method):
        @functools.wraps(method)
        def run(self, *args, **kwargs):
            with self.context(what):
                return method(self, *args, **kwargs)

        return run

    return wrap


class DeviceWorker:
    """One device's share of a partitioned count. Every method runs in this worker's own
    thread (:class:`DeviceThreads`), inside :meth:`context`."""

    def __init__(self, device_id: int, label: str, *, shape=None, timer=None):
        self.device_id, self.label = int(device_id), label
        self.shape, self.timer = shape, timer
        self.dplan: DevicePlan | None = None
        self.csr = None  # the rank-ordered CSR as a chunk reader
        self.n_vertices = 0
        self.out_degree = self.in_degree = None
        self.max_degree = None
        self._block, self._block_key, self._block_bytes = None, None, 0
        self._stream = self._hook = None
        self.oriented_shares = None  # [((first, end) ranks, (begin, stop) entries)] when shared
        self.held_bytes = 0
        self.stats = {"device": label, "items": 0, "busy_s": 0.0, "kernel_s": None,
                      "bytes_copied": 0, "peak_bytes": 0, "prepare_s": 0.0}

    @contextlib.contextmanager
    def context(self, what: str):
        """This device current, this worker's stream and memory hook on, out of memory as
        :class:`~tricount.UnsupportedGraphError` naming ``what``. Its body should be a call
        (:func:`on_device`): arrays freed after the context ends are never heard as freed."""
        from tricount.gpu.device import live_memory_hook, out_of_memory

        cp = _cupy()
        with cp.cuda.Device(self.device_id):
            if self._stream is None:
                self._stream = cp.cuda.Stream(non_blocking=True)
                self._hook = live_memory_hook(f"tricount-partition-{self.label}")
            try:
                with self._stream, self._hook, out_of_memory(f"{what} on {self.label}", ADVICE):
                    yield
            finally:
                self.stats["peak_bytes"] = max(self.stats["peak_bytes"], self._hook.peak)

    def plan_memory(self, source: GraphSource, free_bytes: int, max_memory) -> DevicePlan:
        """Budget and residency, from the memory free on this device (pure)."""
        from tricount.gpu.plan import MEMORY_SAFETY

        on_device = source.device == self.device_id
        self.held_bytes = csr_bytes(source.n_vertices, source.n_edges,
                                    source.index_bytes) if on_device else 0
        budget = int(MEMORY_SAFETY * free_bytes) + self.held_bytes
        if max_memory is not None:
            budget = min(budget, int(max_memory))
        self.dplan = plan_device(source.n_vertices, source.n_edges, source.index_bytes, budget,
                                 ranked=bool(source.ranked), source_on_device=on_device)
        self.stats.update(budget=budget, resident=self.dplan.ranked_resident,
                          held_bytes=self.held_bytes)
        return self.dplan

    def _reader(self, source: GraphSource, *, cache: bool = False):
        """A chunk reader of the source: its arrays on this device, a copy made on it now
        (the plan's ``upload_first``), or the host arrays streamed (with ``cache``, the
        leading rows that the plan's ``cache_bytes`` hold stay on the device after the first
        pass)."""
        from tricount.gpu.chunks import CachedHostCSR, DeviceCSR, HostCSR, cached_rows

        if source.device == self.device_id:
            return DeviceCSR(source.indptr, source.indices)
        if source.unread:  # the plan copies the graph here whole: read the file straight here
            from tricount.io.native_gpu import read_to_device

            assert self.dplan.upload_first, "an unread file for a device that streams it"
            indptr, indices = read_to_device(source.file, check_entries=self.dplan.pass_entries)
            self.stats["bytes_copied"] += int(indptr.nbytes) + int(indices.nbytes)
            return DeviceCSR(indptr, indices)
        reader = HostCSR(source.indptr, source.indices, stage_entries=self.dplan.stage_entries,
                         stage_rows=self.dplan.stage_rows)
        if self.dplan.upload_first:
            return self._upload(reader)
        if cache and self.dplan.cache_bytes:
            rows = cached_rows(source.indptr, source.index_bytes, self.dplan.cache_bytes)
            self.stats["cached_rows"] = rows
            return CachedHostCSR(reader, rows) if rows else reader
        return reader

    def _close_reader(self, reader) -> None:
        reader.close()
        self.stats["bytes_copied"] += reader.bytes_copied

    def _statistics(self, reader, source: GraphSource):
        """``(ranked, out_degree, in_degree, rank)`` on the device (rank None when ranked)."""
        from tricount.gpu import apex

        cp = _cupy()
        n, dp = source.n_vertices, self.dplan
        # The offsets: the source's, or the reader's where it read a file onto the device.
        indptr = reader.indptr if source.unread else source.indptr
        if source.ranked and source.in_degree is not None:
            return True, _out_degrees(indptr), cp.asarray(source.in_degree), None
        deg = apex.degrees(reader, n, dp.pass_entries)
        self.max_degree = int(deg.max()) if n else 0
        ranked = bool(source.ranked) or n < 2 or bool((deg[1:] >= deg[:-1]).all())
        if ranked:  # (degree, id) order is id order: the CSR is the rank-ordered one
            out = _out_degrees(indptr)
            return True, out, apex.in_degrees(deg, out), None
        rank = apex.degree_rank(deg.astype(cp.int64), n, source.index_dtype)
        out = apex.oriented_degrees(reader, n, rank, dp.pass_entries)
        return False, out, apex.in_degrees(deg, out, rank), rank

    def _check_longest_row(self, out, slice_name: str) -> None:
        """Refuse a graph whose longest oriented row exceeds one slice of the orientation's
        keys (every slice holds whole rows)."""
        longest = int(out.max()) if out.shape[0] else 0
        if longest > self.dplan.orient_slice_keys:
            raise UnsupportedGraphError(
                f"a row of {longest} edges does not fit {slice_name} of "
                f"{self.dplan.orient_slice_keys} keys; use a larger max_memory or backend='cpu'")

    def _orient(self, reader, source: GraphSource, rank, out, host: bool, ranks=None):
        from tricount.gpu import apex

        dp = self.dplan
        n, m = source.n_vertices, source.n_edges
        self._check_longest_row(out, "an orientation slice")
        target = (np.empty(n + 1, dtype=np.int64),
                  np.empty(m, dtype=source.index_dtype)) if host else None
        return apex.orient(reader, n, m, rank, out, slice_keys=dp.orient_slice_keys,
                           max_entries=dp.pass_entries, out=target, ranks=ranks)

    def _orient_scattered(self, reader, source: GraphSource, rank, out):
        """The rank-ordered CSR on the device by one scattering pass over ``reader`` (then
        closed, so that its staging buffers and cache make room), its rows then sorted."""
        from tricount.gpu import apex

        dp = self.dplan
        n, m = source.n_vertices, source.n_edges
        try:
            self._check_longest_row(out, "a row sort's slice")
            indptr, cols = apex.scatter_oriented(reader, n, m, rank, out,
                                                 max_entries=dp.pass_entries)
        finally:
            self._close_reader(reader)
        apex.sort_rows(indptr, cols, n, sort_keys=dp.orient_slice_keys,
                       max_entries=dp.sort_entries)
        return indptr, cols

    @on_device("orienting the graph by rank into host memory")
    def orient_to_host(self, source: GraphSource, *, keep_rank: bool = False) -> GraphSource:
        """The rank-ordered CSR in host memory, built on this device: for devices that will
        stream it (it does not stay on any of them), or for a file (``keep_rank``: the
        vertices' ranks come back too)."""
        t0 = time.perf_counter()
        reader = self._reader(source)
        try:
            ranked, out, in_degree, rank = self._statistics(reader, source)
            if ranked:
                return dataclasses.replace(source, ranked=True, in_degree=in_degree.get())
            reader = self._for_orientation(reader)
            indptr, indices = self._orient(reader, source, rank, out, host=True)
            in_degree = in_degree.get()
            rank = rank.get() if keep_rank else None
        finally:
            self._close_reader(reader)
        self.stats["prepare_s"] += time.perf_counter() - t0
        summary = dict(source.summary, max_degree=self.max_degree)
        return GraphSource(indptr, indices, source.n_vertices, source.n_edges, ranked=True,
                           in_degree=in_degree, summary=summary, rank=rank)

    @on_device("preparing the graph")
    def prepare(self, source: GraphSource, *, keep_in_degree: bool = True, reader=None,
                orient_share=None) -> None:
        """Statistics, orientation and residency: afterwards ``csr`` reads the rank-ordered
        CSR (from this device or the host), with ``out_degree`` (int32) and, when
        ``keep_in_degree``, ``in_degree`` (int64, for the plan).

        Several devices preparing together (:mod:`tricount.partition.shared_prep`) give
        the ``reader`` of the graph on this device and ``orient_share = (i, d)``: only the
        i-th of d shares of the ranks is oriented, and ``oriented_shares`` says which
        ranks and entries each share holds."""
        from tricount.gpu.chunks import CachedHostCSR, DeviceCSR, HostCSR

        dp = self.dplan
        self.n_vertices = source.n_vertices
        t0 = time.perf_counter()
        scatter = dp.orient_scatter and orient_share is None
        reader = self._reader(source, cache=scatter) if reader is None else reader
        try:
            ranked, out, in_degree, rank = self._statistics(reader, source)
            if not keep_in_degree:
                in_degree = None
            if ranked:
                if isinstance(reader, CachedHostCSR):  # ids in rank order: nothing to scatter
                    reader = reader.uncached()
                if dp.ranked_resident and isinstance(reader, HostCSR):
                    reader = self._upload(reader)
                self.csr, reader = reader, None
            else:
                if not dp.ranked_resident:
                    raise TricountError("partitioned count: a device that does not keep the "
                                        "rank-ordered CSR must be given it (orient_to_host)")
                if scatter:
                    closing, reader = reader, None  # closed before the sort: room for its keys
                    indptr, indices = self._orient_scattered(closing, source, rank, out)
                else:
                    reader = self._for_orientation(reader)
                    ranks = None
                    if orient_share is not None:
                        from tricount.partition.shared_prep import oriented_shares

                        self.oriented_shares = oriented_shares(out, orient_share[1])
                        ranks = self.oriented_shares[orient_share[0]][0]
                    indptr, indices = self._orient(reader, source, rank, out, host=False,
                                                   ranks=ranks)
                del rank
                self.csr = DeviceCSR(indptr, indices)
        finally:
            if reader is not None:
                self._close_reader(reader)
        self.out_degree, self.in_degree = out, in_degree
        self.stats["prepare_s"] += time.perf_counter() - t0

    def use_prepared(self, indptr, indices, out_degree, in_degree, shares) -> None:
        """What :meth:`prepare` leaves, built by several devices together
        (:mod:`tricount.partition.shared_prep`): the rank-ordered CSR on this device (its
        share of ``indices`` written, the others' copied next), out- and in-degrees."""
        from tricount.gpu.chunks import DeviceCSR

        self.n_vertices = int(out_degree.shape[0])
        self.csr = DeviceCSR(indptr, indices)
        self.out_degree, self.in_degree = out_degree, in_degree
        self.oriented_shares = shares

    def _for_orientation(self, reader):
        """The reader the orientation's slices read: the source copied to the device first
        when the plan says so (each slice is a pass over it)."""
        from tricount.gpu.chunks import HostCSR

        if self.dplan.upload_source and isinstance(reader, HostCSR):
            return self._upload(reader)
        return reader

    def _upload(self, reader):
        """A device copy of a host CSR (offsets in one copy, ids through the pinned buffers)."""
        from tricount.gpu.chunks import DeviceCSR

        try:
            indptr, cols = reader.to_device()
        finally:
            self._close_reader(reader)
        return DeviceCSR(indptr, cols)

    @on_device("reading the in-degrees")
    def host_in_degree(self) -> np.ndarray:
        """The in-degrees (host int64, by rank), which the device then lets go."""
        in_degree, self.in_degree = self.in_degree.get(), None
        return in_degree

    @on_device("estimating the anchors' work")
    def anchor_prefix(self, samples: int, rows=None) -> tuple[np.ndarray, np.ndarray]:
        """``(positions, work)`` (host int64): the anchors' estimated hash work summed below
        every ``stride``-th rank (and below ``n``), ``stride`` keeping at most about
        ``samples`` of them: what cuts ranges into pieces, without copying n values.
        ``rows = (first, end)``: those anchors only (positions from ``first`` to ``end``,
        work summed from ``first``)."""
        from tricount.gpu import apex

        cp = _cupy()
        n = self.n_vertices
        first, end = (0, n) if rows is None else (int(rows[0]), int(rows[1]))
        stride = max(1, -(-n // samples))
        work = apex.anchor_work(self.csr, self.out_degree, n, self.dplan.pass_entries,
                                rows=(first, end))
        running = apex.offsets(work)
        del work
        positions = np.append(np.arange(first, end, stride, dtype=np.int64), end)
        return positions, cp.asnumpy(running[cp.asarray(positions - first)])

    @on_device("estimating the owners' work")
    def owner_prefix(self, samples: int, rows=None) -> tuple[np.ndarray, np.ndarray,
                                                             np.ndarray]:
        """``(positions, work, pairs)`` (host int64): the owners' estimated hash work and
        their pairs (:func:`tricount.gpu.apex.owner_work`) summed below every
        ``stride``-th rank, as :meth:`anchor_prefix`'s, over every rank: from the edges of
        anchors ``rows`` only (``(first, end)``, a device's share; the shares' sampled
        sums add up)."""
        from tricount.gpu import apex

        cp = _cupy()
        n = self.n_vertices
        stride = max(1, -(-n // samples))
        positions = np.append(np.arange(0, n, stride, dtype=np.int64), n)
        at = cp.asarray(positions)
        sums = []
        for per_owner in apex.owner_work(self.csr, self.out_degree, n, self.dplan.pass_entries,
                                         rows=rows):
            sums.append(cp.asnumpy(apex.offsets(per_owner)[at]))
        return (positions, *sums)

    @on_device("cutting the ranks into equal shares")
    def rank_shares(self, parts: int) -> list[tuple[int, int]]:
        """``parts`` rank ranges of about equal entries of the rank-ordered CSR."""
        from tricount.partition.shared_prep import row_shares

        return row_shares(self.csr.indptr, parts)

    @on_device("copying a column block")
    def use_block(self, block) -> None:
        """Count with a given host :class:`~tricount.partition.blocks.ColumnBlock`."""
        from tricount.gpu.apex import Block

        cp = _cupy()
        lengths = cp.asarray(np.diff(block.indptr).astype(np.int32))
        self._block = Block(block.lo, block.hi, cp.asarray(block.indptr),
                            cp.asarray(block.indices), lengths, block.n_entries,
                            int(lengths.max()) if block.hi else 0)
        self._block_key = (block.lo, block.hi)
        self._block_bytes = int(self._block.indptr.nbytes + self._block.cols.nbytes
                                + lengths.nbytes)

    def _block_for(self, item: SubProblem):
        from tricount.gpu import apex

        key = (item.apex_lo, item.apex_hi)
        if self._block_key == key:
            return self._block
        self._block = self._block_key = None  # the old block goes before the new one is built
        lo, hi = key
        if item.entries == 0:
            block, size = apex.Block(lo, hi, None, None, None, 0, 0), 0
        elif key == (0, self.n_vertices) and self.dplan.ranked_resident:
            block, size = apex.whole_block(self.csr.indptr, self.csr.indices, self.out_degree), 0
        else:
            size = self.dplan.model.bytes(hi, item.entries, hi - lo)
            entries = self.dplan.chunk_entries(size, BLOCK_ENTRY_BYTES)
            block = apex.column_block(self.csr, lo, hi, item.entries, entries)
        self._block, self._block_key, self._block_bytes = block, key, size
        return block

    def count(self, item: SubProblem) -> dict:
        """Count one sub-problem (or a piece of its anchors); call inside :meth:`context`."""
        from tricount.gpu import apex
        from tricount.gpu.device import read_count
        from tricount.gpu.engine import Regions
        from tricount.gpu.plan import HashShape

        cp = _cupy()
        t0 = time.perf_counter()
        block = self._block_for(item)
        t1 = time.perf_counter()
        regions = Regions(self.timer)
        result = cp.zeros(1, dtype=cp.uint64)
        row_lo, row_hi = item.rows
        if block.entries:
            shape = (self.shape or HashShape()).resolve(block.entries)
            entries = self.dplan.chunk_entries(self._block_bytes, PAIR_ENTRY_BYTES)
            apex.count_pairs(self.csr, block, row_lo, row_hi, shape, result, regions, entries,
                             owners=item.owners, pairs=item.pairs)
        n_triangles = read_count(result)
        t2 = time.perf_counter()
        kernel_s = regions.seconds
        self.stats["items"] += 1
        self.stats["busy_s"] += t2 - t0
        if kernel_s is not None:
            self.stats["kernel_s"] = (self.stats["kernel_s"] or 0.0) + kernel_s
        anchor_entries = int(self.csr.indptr[row_hi]) - int(self.csr.indptr[row_lo])
        return {"n_triangles": n_triangles, "index": item.index, "apex": (item.apex_lo,
                item.apex_hi), "rows": (row_lo, row_hi), "owners": item.owners,
                "entries": item.entries,
                "anchor_entries": anchor_entries,
                "estimated_work": item.work, "memory": item.memory, "block_s": t1 - t0,
                "count_s": t2 - t1, "kernel_s": kernel_s, "where": self.label, "worker": None}

    @on_device("counting sub-problems")
    def drain(self, work: "WorkQueue") -> list[dict]:
        """Count pieces from ``work`` until none is left (or another device failed)."""
        out = []
        try:
            while True:
                item = work.take(self._block_key)
                if item is None:
                    break
                out.append(self.count(item))
        except BaseException:
            work.cancel()
            raise
        finally:
            self._block = self._block_key = None
        return out

    def close(self) -> None:
        """Release everything this device holds for the count."""
        if self._stream is None:
            return
        with self.context("releasing the count's memory"):
            if self.csr is not None:
                self._close_reader(self.csr)
            self.csr = self._block = self.out_degree = self.in_degree = None
            self._stream.synchronize()


def _out_degrees(indptr):
    """Row lengths (int32) of a CSR whose offsets are host or device arrays, on the device."""
    cp = _cupy()
    if isinstance(indptr, np.ndarray):
        return cp.asarray(np.diff(indptr).astype(np.int32))
    return cp.diff(indptr).astype(cp.int32)


# -- several devices -----------------------------------------------------------------------------


class DeviceThreads:
    """Runs each worker's steps in a thread of its own; a single worker runs in the caller's."""

    def __init__(self, workers: list[DeviceWorker]):
        self.workers = workers
        self.pools = None
        if len(workers) > 1:
            self.pools = [ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"tricount-{w.label}")
                          for w in workers]

    def run(self, i: int, fn):
        if self.pools is None:
            return fn(self.workers[i])
        return self.pools[i].submit(fn, self.workers[i]).result()

    def each(self, fn) -> list:
        """``fn(worker)`` on every worker at once; the first error is raised once all ended."""
        if self.pools is None:
            return [fn(self.workers[0])]
        futures = [pool.submit(fn, w) for pool, w in zip(self.pools, self.workers)]
        results, error = [], None
        for f in futures:
            try:
                results.append(f.result())
            except BaseException as exc:
                error = error or exc
                results.append(None)
        if error is not None:
            raise error
        return results

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        try:
            self.each(lambda w: w.close())
        finally:
            for pool in self.pools or ():
                pool.shutdown(wait=True)
        return False


#: Pieces whose estimated work rounds to the same sixteenth of the heaviest's count as equal.
WORK_CLASSES = 16


class WorkQueue:
    """Pieces to count: a device takes the heaviest piece of the range whose block it holds,
    else the heaviest piece left (largest estimated work first, blocks reused).

    Pieces cut to equal estimates differ only by the estimate's noise; among those, the
    highest ranks go first, as the estimate underrates them on large graphs (R-MAT 29,
    :data:`PIECE_MAX_ENTRIES`): a misjudged piece then runs while the others fill in.
    """

    def __init__(self, items):
        top = max((s.work for s in items), default=0) or 1
        self.left = sorted(items, key=lambda s: (-round(WORK_CLASSES * s.work / top), s.index,
                                                 -s.row_lo, -s.owner_lo))
        self.lock = threading.Lock()

    def take(self, block_key):
        with self.lock:
            for i, item in enumerate(self.left):
                if (item.apex_lo, item.apex_hi) == block_key:
                    return self.left.pop(i)
            return self.left.pop(0) if self.left else None

    def cancel(self) -> None:
        with self.lock:
            self.left = []


def whole_range(dplans: list[DevicePlan], partitions) -> bool:
    """Whether the count is one apex range whose block is the rank-ordered CSR itself: every
    device keeps that CSR and no other number of ranges is asked for."""
    return all(p.ranked_resident for p in dplans) and partitions in (None, 1)


def plan_pieces(n_vertices: int, n_edges: int, partitions, dplans: list[DevicePlan], *,
                in_degree, anchor_prefix, pieces: int, owner_prefix=None,
                workers: int = 1) -> tuple[PartitionPlan, list[SubProblem]]:
    """The plan of a count on devices planned by ``dplans``, and the pieces to count.

    One range when :func:`whole_range`, else the least k (or ``partitions``) ranges whose
    blocks fit the tightest device, from ``in_degree()`` (host int64, by rank). With
    ``pieces`` > 1 each range is cut into that many pieces of about equal anchor work,
    from ``anchor_prefix(samples)`` (:meth:`DeviceWorker.anchor_prefix`); the whole
    range, given ``owner_prefix`` (:meth:`DeviceWorker.owner_prefix`), into
    :data:`OWNER_PIECES_PER_DEVICE` pieces for each of ``workers`` by owner instead,
    unless the graph is large enough for more than :data:`PIECES_PER_DEVICE` anchor
    pieces a device (:data:`PIECE_MAX_ENTRIES`): there the owner estimate misjudged the
    hubs' piece (R-MAT 28 on four H100s, device run 3 of 2026-11-27: one device counted
    one owner piece in 2.66-2.72 s while another counted two in 1.49-1.57 s; 7.67-7.85 s
    against 7.13-7.17 s for sixteen anchor pieces), and the many small anchor pieces even
    out what the estimate misses. The callables read a device and run only when needed.
    :func:`count_gpu` and the Dask workers' device graphs
    (:mod:`tricount.partition.device_graph`) plan here.
    """
    whole = whole_range(dplans, partitions)
    if whole:
        plan = _whole_plan(n_vertices, n_edges, partitions, dplans)
    else:
        plan = _plan(in_degree(), partitions, dplans)
    items = plan.subproblems()
    by_owner = (whole and owner_prefix is not None and OWNER_PIECES_PER_DEVICE
                and pieces <= PIECES_PER_DEVICE * workers)  # past that, by anchor (below)
    if pieces > 1 and by_owner:
        positions, work, pairs = owner_prefix(ANCHOR_SAMPLES)
        items = owner_pieces(items[0], positions, work, OWNER_PIECES_PER_DEVICE * workers,
                             pairs=pairs)
    elif pieces > 1:
        positions, work = anchor_prefix(ANCHOR_SAMPLES)
        items = [p for sub in items for p in anchor_pieces(sub, positions, work, pieces)]
    return plan, items


def _whole_plan(n: int, m: int, partitions, dplans: list[DevicePlan]) -> PartitionPlan:
    """One apex range, whose block is the rank-ordered CSR every device keeps (no statistics
    leave the device)."""
    tight = min(dplans, key=lambda p: p.blocks_budget)
    why = "partitions=1 requested" if partitions == 1 else "the rank-ordered CSR fits the device"
    return PartitionPlan(1, (0, n), (m,), (m,), (WHOLE_BLOCK_VERTEX_BYTES * n,), n, m,
                         f"{why}: one sub-problem, whose block is the CSR itself; {tight.reason}",
                         work_estimate="entries", model=tight.model)


def _plan(in_degree, partitions, dplans: list[DevicePlan]) -> PartitionPlan:
    """The least k (or ``partitions``) apex ranges whose blocks fit the tightest device."""
    tight = min(dplans, key=lambda p: p.blocks_budget)
    budget = max(0, tight.blocks_budget)
    try:
        plan = plan_partitions(in_degree, partitions=partitions, max_memory=budget,
                               model=tight.model)
    except TricountError as exc:
        raise type(exc)(f"on the GPU {tight.reason}, a sub-problem's block may take "
                        f"{size(budget)}: {exc}") from exc
    return dataclasses.replace(plan, reason=f"{plan.reason}; {tight.reason}")


def anchor_pieces(sub: SubProblem, positions, work, pieces: int) -> list[SubProblem]:
    """Cut ``sub``'s anchors into at most ``pieces`` of about equal estimated work.

    ``work[i]`` is the work of the anchors below ``positions[i]`` (a sampled
    running sum, :meth:`DeviceWorker.anchor_prefix`); cuts fall on sampled ranks
    (:func:`tricount.partition.plan.cut_by_work` on the samples), and empty
    pieces are dropped. Like :func:`~tricount.partition.plan.split_anchors`,
    the pieces share the sub-problem's block and their counts add up to its.

    >>> sub = SubProblem(0, 0, 8, 10, 10, 0)
    >>> [p.rows for p in anchor_pieces(sub, np.arange(9), np.array([0, 1, 2, 3, 4, 5, 6, 7, 100]), 2)]
    [(0, 7), (7, 8)]
    """
    bounds = _sampled_bounds(positions, work, *sub.rows, pieces)
    return [SubProblem(sub.index, sub.apex_lo, sub.apex_hi, sub.entries,
                       _between(positions, work, a, b), sub.memory, a, b)
            for a, b in zip(bounds[:-1], bounds[1:])]


def _sampled_bounds(positions, work, lo: int, hi: int, pieces: int) -> list[int]:
    """Sorted distinct bounds from ``lo`` to ``hi`` cutting that rank range into at most
    ``pieces`` of about equal work, on sampled ranks (``work`` a running sum at
    ``positions``; :func:`tricount.partition.plan.cut_by_work` on the samples)."""
    j0 = int(np.searchsorted(positions, lo, side="right")) - 1
    j1 = int(np.searchsorted(positions, hi, side="left"))
    cuts = cut_by_work(work[j0:j1 + 1] - work[j0], max(1, int(pieces)))[1:-1] + j0
    return sorted({lo, hi} | {int(min(max(positions[c], lo), hi)) for c in cuts})


def _between(positions, sums, a: int, b: int) -> int:
    """A sampled running sum's growth from rank ``a`` to ``b``, each read at the last sample
    not above it (exact where both are sampled ranks)."""
    def below(rank):
        return int(sums[int(np.searchsorted(positions, rank, side="right")) - 1])

    return below(b) - below(a)


def owner_pieces(sub: SubProblem, positions, work, pieces: int, *,
                 pairs=None) -> list[SubProblem]:
    """Cut ``sub``'s owners into at most ``pieces`` ranges of about equal estimated work
    (``work``, and ``pairs`` when given, sampled running sums at ``positions``,
    :meth:`DeviceWorker.owner_prefix`); cuts fall on sampled ranks, so each piece's work
    and pairs are exact differences, and empty pieces are dropped. As
    :func:`~tricount.partition.plan.split_owners`, each piece keeps every anchor and the
    pieces' counts add up to the sub-problem's.

    >>> sub = SubProblem(0, 0, 8, 10, 10, 0)
    >>> cut = owner_pieces(sub, np.arange(9), np.array([0, 1, 2, 3, 4, 5, 6, 7, 100]), 2)
    >>> [(p.owners, p.work) for p in cut]
    [((0, 7), 7), ((7, 8), 93)]
    """
    bounds = _sampled_bounds(positions, work, sub.apex_lo, sub.apex_hi, pieces)
    return [dataclasses.replace(sub, work=_between(positions, work, a, b), owner_lo=a,
                                owner_hi=b,
                                pairs=-1 if pairs is None else _between(positions, pairs, a, b))
            for a, b in zip(bounds[:-1], bounds[1:])]


def _free_bytes(ids: list[int]) -> dict:
    """Bytes free on each device, shared equally by the workers that use it."""
    from tricount.gpu.device import free_device_bytes

    cp = _cupy()
    share = Counter(ids)
    free = {}
    for d in share:
        with cp.cuda.Device(d):
            free[d] = free_device_bytes() // share[d]
    return free


def _labels(ids: list[int]) -> list[str]:
    """``gpu:0``, or ``gpu:0#1`` for a second worker on device 0."""
    seen = Counter()
    out = []
    for d in ids:
        out.append(f"gpu:{d}" + (f"#{seen[d]}" if seen[d] else ""))
        seen[d] += 1
    return out


def count_gpu(graph, *, partitions=None, devices=None, max_memory=None, shape=None, timer=None):
    """Count triangles as a plan of sub-problems on one or several GPUs.

    Returns ``(n_triangles, PartitionReport)``; the report lists every piece
    counted (``subproblems``) and every device (``devices``: pieces, busy and
    kernel seconds, bytes copied, peak memory, budget, residency).

    Parameters
    ----------
    graph : CSRGraph, RankedCSR, str or os.PathLike
        On the host or on a GPU; a file is read into host memory, except a plain
        ``.tcsr`` that every device copies whole, which each device reads itself
        (:func:`reads_file_to_device`); a ``.tcsr`` in rank order needs no orientation.
    partitions : int, optional
        Force this many apex ranges; default the least that fits (one when the
        rank-ordered CSR fits the device).
    devices : None, "all", int or list of int
        GPUs to use: the current one, all, the first ``devices``, or these ids
        (an id twice: two workers sharing that GPU's memory).
    max_memory : int, optional
        Bytes each device may hold for the count (default: what is free).
    shape : HashShape, optional
        The hash kernel's launch shape (tests, benchmarks); by block size.
    timer : callable, optional
        As :func:`tricount.gpu.engine.count`'s: kernel seconds per piece and device.
    """
    from tricount.partition import PartitionReport, check_partition_args

    partitions, devices, max_memory = check_partition_args(partitions, devices, max_memory)
    t0 = time.perf_counter()
    source = graph_source(graph, unread_file=True)
    t_load = time.perf_counter()
    ids = resolve_devices(devices)
    if source.device is not None and any(d != source.device for d in ids):
        source = source.to_host()
    workers = [DeviceWorker(d, label, shape=shape, timer=timer)
               for d, label in zip(ids, _labels(ids))]
    with DeviceThreads(workers) as threads:
        free = _free_bytes(ids)
        dplans = [w.plan_memory(source, free[w.device_id], max_memory) for w in workers]
        if source.unread and not reads_file_to_device(dplans):
            t_read = time.perf_counter()
            source = source.read_host()
            t_load += time.perf_counter() - t_read  # the read is the load, not the preparation
        if source.ranked is not True and not all(p.ranked_resident for p in dplans):
            source = threads.run(0, lambda w: w.orient_to_host(source))
            dplans = [w.plan_memory(source, free[w.device_id], max_memory) for w in workers]
        whole = whole_range(dplans, partitions)
        keep = [i == 0 and not whole for i in range(len(workers))]
        if source.unread:  # each device reads the file itself (reads_file_to_device)
            threads.each(lambda w: w.prepare(source, keep_in_degree=w is workers[0] and not whole))
        elif shared_prep.can_share(workers, source, dplans):
            shared_prep.prepare(threads, source, keep_in_degree=keep)
        elif shared_prep.can_replicate(workers, dplans):
            shared_prep.prepare_once(threads, source, keep_in_degree=keep)
        else:
            threads.each(lambda w: w.prepare(source, keep_in_degree=w is workers[0] and not whole))
        t_prepare = time.perf_counter()
        plan, items = plan_pieces(
            source.n_vertices, source.n_edges, partitions, dplans,
            in_degree=lambda: threads.run(0, lambda w: w.host_in_degree()),
            anchor_prefix=lambda samples: shared_anchor_prefix(threads, samples),
            owner_prefix=lambda samples: shared_owner_prefix(threads, samples),
            pieces=pieces_per_range(len(workers), source.n_edges), workers=len(workers))
        t_plan = time.perf_counter()
        results = _drain_all(threads, items)
        t_count = time.perf_counter()
    results.sort(key=lambda r: (r["index"], r["rows"][0], r["owners"][0]))
    n_triangles = sum(int(r["n_triangles"]) for r in results)  # Python ints: exact
    summary = dict(source.summary)
    if summary.get("max_degree") is None and workers[0].max_degree is not None:
        summary["max_degree"] = workers[0].max_degree
    timings = {"load_s": t_load - t0, "prepare_s": t_prepare - t_load,
               "plan_s": t_plan - t_prepare, "count_s": t_count - t_plan,
               "total_s": t_count - t0}
    kernel = [w.stats["kernel_s"] for w in workers if w.stats["kernel_s"] is not None]
    if kernel:
        timings["kernel_s"] = max(kernel)
    report = PartitionReport(plan.k, "gpu", plan.reason, tuple(w.label for w in workers), plan,
                             results, timings, devices=[dict(w.stats) for w in workers],
                             graph=summary)
    return n_triangles, report


def _by_share(threads: DeviceThreads, prefix: str, samples: int) -> list:
    """Each device's ``prefix`` method (``anchor_prefix`` or ``owner_prefix``) over its share
    of the anchors (rank ranges of equal entries), in share order; one device: the whole."""
    workers = threads.workers
    if len(workers) == 1:
        return [threads.run(0, lambda w: getattr(w, prefix)(samples))]
    shares = threads.run(0, lambda w: w.rank_shares(len(workers)))
    index = {id(w): i for i, w in enumerate(workers)}
    return threads.each(lambda w: getattr(w, prefix)(samples, rows=shares[index[id(w)]]))


def shared_anchor_prefix(threads: DeviceThreads, samples: int) -> tuple[np.ndarray, np.ndarray]:
    """:meth:`DeviceWorker.anchor_prefix` of the whole graph, each device estimating the work
    of a share of the anchors and the host joining the sums."""
    parts = _by_share(threads, "anchor_prefix", samples)
    positions, work, below = [], [], 0
    for i, (p, wk) in enumerate(parts):
        keep = slice(1 if i else 0, None)  # a share's first position is the last one's end
        positions.append(p[keep])
        work.append(wk[keep] + below)
        below += int(wk[-1])
    return np.concatenate(positions), np.concatenate(work)


def shared_owner_prefix(threads: DeviceThreads, samples: int) -> tuple[np.ndarray, np.ndarray,
                                                                        np.ndarray]:
    """:meth:`DeviceWorker.owner_prefix` of the whole graph, each device reading the edges of
    a share of the anchors and the host adding their sampled sums (the same positions for
    every share; a running sum of a sum is the sum of the running sums)."""
    parts = _by_share(threads, "owner_prefix", samples)
    return parts[0][0], sum(p[1] for p in parts), sum(p[2] for p in parts)


def _drain_all(threads: DeviceThreads, items) -> list[dict]:
    work = WorkQueue(items)
    return [r for part in threads.each(lambda w: w.drain(work)) for r in part]


def rank_on_gpu(graph, *, max_memory=None):
    """The :class:`~tricount.partition.ranked.RankedCSR` of a graph, ordered on the current GPU
    (the statistics and the orientation's slices) into host memory: what
    :func:`tricount.partition.prepare_ranked` writes, without the CPU's orientation."""
    from tricount.partition.ranked import RankedCSR

    source = graph_source(graph)
    if source.device is not None:
        source = source.to_host()
    device = _cupy().cuda.Device().id
    worker = DeviceWorker(device, f"gpu:{device}")
    with DeviceThreads([worker]):
        worker.plan_memory(dataclasses.replace(source, ranked=False),
                           _free_bytes([device])[device], max_memory)
        out = worker.orient_to_host(source, keep_rank=True)
    return RankedCSR(out.indptr, out.indices, out.n_vertices, out.n_edges, out.rank, None,
                     None if out.in_degree is None else np.asarray(out.in_degree))


# -- the Dask workers' counter -------------------------------------------------------------------


def count_subproblem(source, sub: SubProblem, *, block=None) -> dict:
    """Count one sub-problem on this process's current GPU, preparing the graph for it alone.

    ``source`` is a :class:`~tricount.partition.ranked.RankedCSR` or a ranked
    ``.tcsr`` path (read once per process, :func:`~tricount.partition.blocks.open_source`);
    ``block``, a host :class:`~tricount.partition.blocks.ColumnBlock` of the
    sub-problem's range, is used instead of building it. Returns the CPU
    counter's keys (:func:`tricount.partition.cpu.count_subproblem`), ``where``
    naming the device (``"gpu:0"``). It is a
    :class:`~tricount.partition.device_graph.DeviceGraph` made for one sub-problem: every
    call copies and checks the graph again, where the Dask executor keeps one per worker
    and pays that once per count.
    """
    from tricount.partition.blocks import open_source
    from tricount.partition.device_graph import DeviceGraph

    ranked = open_source(source)
    sub.check(ranked.n_vertices)
    if block is not None and (block.lo, block.hi) != (sub.apex_lo, sub.apex_hi):
        raise TricountError(f"sub-problem {sub.index} counts apexes {sub.apex_lo}.."
                            f"{sub.apex_hi}; the block given holds {block.lo}..{block.hi}")
    graph = DeviceGraph.prepare(ranked)
    try:
        if block is not None:
            graph.worker.use_block(block)
        return graph.count(sub)
    finally:
        graph.close()
