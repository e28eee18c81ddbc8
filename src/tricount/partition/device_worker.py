"""One device's share of a partitioned count (:class:`DeviceWorker`): its memory plan, its
copy of the graph, the statistics and the orientation by rank, the blocks and the pieces it
counts. The executor (:mod:`tricount.partition.gpu`) runs one worker per device, each in a
thread of its own; a Dask worker keeps one (:mod:`tricount.partition.device_graph`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import threading
import time
from typing import TYPE_CHECKING

import numpy as np

from tricount._threads import renew_in_child
from tricount.errors import TricountError, UnsupportedGraphError
from tricount.partition.device_plan import (ANCHOR_ENTRY_BYTES, BLOCK_ENTRY_BYTES,
                                            CHECK_ENTRY_BYTES, PAIR_ENTRY_BYTES, DevicePlan,
                                            csr_bytes, plan_device)
from tricount.partition.plan import SubProblem
from tricount.partition.source import GraphSource, _cupy

if TYPE_CHECKING:
    from tricount.partition.pieces import WorkQueue

__all__ = ["DeviceWorker", "ADVICE"]

#: What to do when a partitioned count runs out of GPU memory anyway.
ADVICE = ("pass a smaller max_memory (the plan then keeps more room and cuts more "
          "sub-problems) or more partitions, or use backend='cpu'")


#: Streams of each device that no worker holds now, kept for the process. CuPy's pool hands
#: memory freed on a stream only to later work on that stream: a count on a stream made for
#: it could reuse none of the memory the last count left in the pool, and allocated it
#: again. A worker holds its stream alone (two counts at once never share one: a block one
#: frees while its kernels are queued would be handed to the other's copies).
_FREE_STREAMS: dict = {}
_FREE_STREAMS_LOCK = threading.Lock()
#: A forked child's view of its parent's streams, never destroyed there (CUDA cannot be used
#: in the child; destroying them would fail in every one).
_PARENTS_STREAMS: list = []


def _no_streams() -> dict:
    _PARENTS_STREAMS.append(_FREE_STREAMS)
    return {}


renew_in_child(globals(), _FREE_STREAMS=_no_streams, _FREE_STREAMS_LOCK=threading.Lock)


def take_stream(device_id: int):
    """A stream of ``device_id`` (that device current) for one worker: one a closed worker
    gave back, else a new one."""
    with _FREE_STREAMS_LOCK:
        free = _FREE_STREAMS.setdefault(device_id, [])
        if free:
            return free.pop()
    return _cupy().cuda.Stream(non_blocking=True)


def give_back_stream(device_id: int, stream) -> None:
    """Return a worker's stream, idle (synchronized), for the next worker of ``device_id``."""
    with _FREE_STREAMS_LOCK:
        _FREE_STREAMS.setdefault(device_id, []).append(stream)


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
    thread (:class:`~tricount.partition.gpu.DeviceThreads`), inside :meth:`context`."""

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
                self._stream = take_stream(self.device_id)
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
            indptr, indices = read_to_device(
                source.file, check_entries=self.dplan.pass_entries_at(CHECK_ENTRY_BYTES))
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
        """A device copy of a host CSR (:meth:`HostCSR.to_device`: offsets and ids through pinned
        buffers straight to their place)."""
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
        work = apex.anchor_work(self.csr, self.out_degree, n,
                                self.dplan.pass_entries_at(ANCHOR_ENTRY_BYTES),
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
                             self.dplan.room(self._block_bytes), owners=item.owners,
                             pairs=item.pairs)
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
        give_back_stream(self.device_id, self._stream)
        self._stream = None


def _out_degrees(indptr):
    """Row lengths (int32) of a CSR whose offsets are host or device arrays, on the device."""
    cp = _cupy()
    if isinstance(indptr, np.ndarray):
        return cp.asarray(np.diff(indptr).astype(np.int32))
    return cp.diff(indptr).astype(cp.int32)
