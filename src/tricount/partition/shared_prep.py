"""Several GPUs of one host preparing one graph together: each copies a share of the rows,
orients the keys of its share for every device, and the devices exchange what they hold.

When the graph is in host memory and every device keeps the whole rank-ordered CSR (the
device plan's ``ranked_resident`` and ``upload_first``), each device alone would copy the
whole graph over its own PCIe link and pass over every edge three times (degrees, oriented
degrees, orientation): work that does not shrink with more devices (R-MAT 26 on four
H200s: 0.38 s of a 0.74 s count when every device still made those passes, against
0.21 s of kernels). Here every pass over the edges is split, in steps with a barrier
between each (:meth:`~tricount.partition.gpu.DeviceThreads.each`; every step ends with
its device's stream synchronized, by the one wrapper that runs every step, so a peer
only ever reads finished arrays):

1. device i copies rows ``[r_i, r_{i+1})`` of the host CSR (about m/d entries,
   :func:`row_shares`), and only those (:class:`~tricount.gpu.chunks.DeviceRows`);
2. each counts the degrees its rows give (row lengths and the column histogram), chunk by
   chunk as they arrive: the copy is what these two steps wait for;
3. each sums the d partial degrees, copying its peers' (:func:`tricount.gpu.peers.copy_from_peer`:
   NVLink or PCIe, no host staging): every device now holds the same degrees, ranks the
   vertices alike (one sort of n keys) and counts its rows' oriented out-degrees;
4. each sums those likewise. The oriented out-degrees cut the ranks into d shares of
   about m/d oriented entries (:func:`oriented_shares`), the same on every device, and a
   device's partial out-degrees say how many of its keys each share receives;
5. each makes one pass over its rows, grouping the rank keys by share
   (:func:`tricount.gpu.apex.rank_keys_by_share`, every group's size checked);
6. device j copies group j from every device (an all-to-all of about m/d keys each);
7. each checks the keys it received against the sums of the groups sent, and sorts them:
   they are its share's rows of the rank-ordered CSR;
8. each copies the other shares' oriented rows from the devices that built them, and the
   devices' copies are compared (a sum of the ids on each).

Every triangle is counted once as before: the steps only build, on every device, the
rank-ordered CSR that :meth:`~tricount.partition.device_worker.DeviceWorker.prepare` alone builds
(a row's entries are its keys' targets in sorted order, whichever device held the
edge), and the count that follows is unchanged.

Two cases take the older route, every device assembling the whole graph from the shares
after step 1 (each copies the others' rows) and orienting one share of the ranks from it:
a graph whose ids turn out to be in rank order already (it needs no orientation), and
one whose keys do not fit the orientation's room in one piece per device (the device
plan's ``orient_slice_keys``: a share's keys, their sort's second buffer, and the keys
sent, about 17 bytes a key as the plan counts them). And a graph that every device keeps in
rank order but cannot hold beside it (no ``upload_first``: R-MAT 29 on 80 GB cards) is
prepared by device 0 alone, which streams it from the host as one device does, and copied
from there by the others (:func:`prepare_once`). The GPU tests and the emulated ones (2-4
workers, every route, a ranked file, a corrupted copy) hold them to the reference.
"""

from __future__ import annotations

import time

import numpy as np

from tricount.errors import TricountError
from tricount.prep.xp import array_namespace

__all__ = ["can_replicate", "can_share", "row_shares", "oriented_shares", "prepare",
           "prepare_once"]


def can_share(workers, source, dplans) -> bool:
    """Whether several workers prepare ``source`` together: it is in host memory and every
    device copies it first and keeps the rank-ordered CSR."""
    return (len(workers) > 1 and source.device is None
            and all(p.ranked_resident and p.upload_first for p in dplans))


def can_replicate(workers, dplans) -> bool:
    """Whether several workers that cannot prepare together take one device's preparation
    (:func:`prepare_once`): every device keeps the rank-ordered CSR."""
    return len(workers) > 1 and all(p.ranked_resident for p in dplans)


def _cut(offsets, parts: int) -> list[int]:
    """``parts + 1`` row bounds cutting the entries of ``offsets`` (int64 running sums, host
    or device: only the bounds are read back) about equally."""
    xp = array_namespace(offsets)
    n, m = int(offsets.shape[0]) - 1, int(offsets[-1])
    targets = xp.asarray([m * i // parts for i in range(1, parts)], dtype=xp.int64)
    inner = xp.searchsorted(offsets, targets, side="left") if parts > 1 else []
    inner = inner.get() if hasattr(inner, "get") else inner
    return [0] + [int(b) for b in inner] + [n]


def row_shares(indptr, parts: int) -> list[tuple[int, int]]:
    """``parts`` consecutive row ranges of a CSR with about equal entries each (``indptr`` on
    the host or a device).

    >>> row_shares(np.array([0, 4, 5, 6, 10]), 2)
    [(0, 2), (2, 4)]
    >>> row_shares(np.array([0, 0]), 3)
    [(0, 0), (0, 0), (0, 1)]
    """
    bounds = _cut(indptr, parts)
    return list(zip(bounds[:-1], bounds[1:]))


def oriented_shares(out_degree, parts: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """``parts`` shares of the ranks, about equal in oriented entries: ``((first, end),
    (begin, stop))``, the ranks and their entries (``out_degree``: a device's int32 array)."""
    from tricount.gpu.apex import offsets as running

    offsets = running(out_degree)
    bounds = _cut(offsets, parts)
    at = offsets[array_namespace(offsets).asarray(bounds, dtype=np.int64)]
    entries = [int(e) for e in (at.get() if hasattr(at, "get") else at)]
    return [((a, b), (e, f)) for a, b, e, f in zip(bounds[:-1], bounds[1:], entries[:-1],
                                                     entries[1:])]


def _upload_share(worker, source, rows: tuple[int, int], degrees=None):
    """Step 1: rows ``rows`` of the host graph, and only those, on the device; with
    ``degrees`` (counters of every vertex) step 2 too, each chunk counted as it arrives
    (the copy is what the step waits for)."""
    from tricount.gpu.apex import add_degrees
    from tricount.gpu.chunks import DeviceRows, HostCSR

    r0, r1 = rows
    reader = HostCSR(source.indptr, source.indices, stage_entries=worker.dplan.stage_entries,
                     stage_rows=worker.dplan.stage_rows)
    try:
        indptr, cols = reader.to_device(r0, r1, each=None if degrees is None else
                                        lambda chunk: add_degrees(chunk, degrees))
    finally:
        worker._close_reader(reader)
    return DeviceRows(r0, indptr, cols, int(source.indptr[r0]))


def _copy_from_peers(worker, copies) -> None:
    """``dst[...] = src`` for every ``(dst, src)`` of ``copies`` (dst on this worker's device,
    src on any), queued on its stream."""
    from tricount.gpu.peers import copy_from_peer, enable_peer_access
    from tricount.partition.source import _cupy

    cp = _cupy()
    enable_peer_access(worker.device_id, {src.device.id for _dst, src in copies})
    stream = cp.cuda.get_current_stream()
    for dst, src in copies:
        copy_from_peer(dst, src, stream)


def _sum_over_devices(worker, partials, i: int):
    """Steps 3 and 4: the sum of every device's ``partials`` (arrays of one shape and dtype),
    on worker ``i``'s device."""
    from tricount.partition.source import _cupy

    cp = _cupy()
    total = partials[i].copy()
    peer = cp.empty_like(total)
    for j, theirs in enumerate(partials):
        if j != i:
            _copy_from_peers(worker, [(peer, theirs)])
            total += peer
    return total


class _Share:
    """One device's state while the devices prepare together (the module doc's steps)."""

    def __init__(self, worker, index: int):
        self.worker, self.index = worker, index
        self.rows = None  # step 1: its rows of the graph (DeviceRows)
        self.partial = None  # steps 2-4: what its rows add to a per-vertex count
        self.degree = self.rank = self.out = self.in_degree = None
        self.assembled = None  # the older route: the whole graph on this device
        self.sent = None  # steps 5-6: (keys, starts, counts) of its keys by share
        self.sums = None  # step 5: the sum of each group it sends
        self.received = None  # steps 6-7: its share's keys


class _Steps:
    """Runs a step on every device at once, each timed into its worker's stats and ending
    with its stream synchronized (the barrier the next step's peer copies rely on)."""

    def __init__(self, threads):
        self.threads = threads
        self.shares = [_Share(w, i) for i, w in enumerate(threads.workers)]

    def each(self, what: str, fn, *, in_context: bool = True) -> list:
        """``fn(share)`` for every device's share, inside its worker's context unless ``fn``
        enters it itself (``in_context=False``: a worker's method)."""
        from tricount.partition.source import _cupy

        def step(worker):
            share = self.shares[self.threads.workers.index(worker)]
            t0 = time.perf_counter()
            out = None if in_context else fn(share)
            with worker.context(what):
                if in_context:
                    out = fn(share)
                # A step ends when its work is done, not launched: the next step's peers
                # read what it wrote, and nothing else orders their streams after this one.
                _cupy().cuda.get_current_stream().synchronize()
            seconds = time.perf_counter() - t0
            worker.stats["prepare_s"] += seconds
            steps = worker.stats.setdefault("prepare_steps", {})
            steps[what] = steps.get(what, 0.0) + seconds
            return out

        return self.threads.each(step)


def prepare(threads, source, *, keep_in_degree: list[bool]) -> None:
    """Prepare ``source`` on every worker of ``threads`` together (the module doc's steps);
    worker i keeps its in-degrees when ``keep_in_degree[i]``."""
    from tricount.gpu import apex

    d = len(threads.workers)
    n = source.n_vertices
    rows = row_shares(source.indptr, d)
    steps = _Steps(threads)
    ranked = source.ranked is True

    def upload(s):
        s.partial = None if ranked else apex.degree_counters(n)
        s.rows = _upload_share(s.worker, source, rows[s.index], s.partial)

    steps.each("copying a share of the graph and counting its degrees", upload)
    if ranked:
        return _assemble_and_prepare(steps, source, keep_in_degree)

    def sum_degrees(s):
        s.degree = _sum_over_devices(s.worker, partials, s.index)
        s.worker.max_degree = int(s.degree.max()) if n else 0
        return n < 2 or bool((s.degree[1:] >= s.degree[:-1]).all())

    partials = [s.partial for s in steps.shares]
    in_rank_order = steps.each("summing the degrees", sum_degrees)
    _let_go(steps, partials, "partial")
    if in_rank_order[0]:  # the same degrees on every device: the same answer
        return _assemble_and_prepare(steps, source, keep_in_degree)

    def partial_out_degrees(s):
        s.rank = apex.degree_rank(s.degree.astype(np.int64), n, source.indices.dtype)
        s.partial = apex.oriented_degrees(s.rows, n, s.rank, s.worker.dplan.pass_entries)

    def sum_out_degrees(s):
        s.out = _sum_over_devices(s.worker, partials, s.index)
        shares = oriented_shares(s.out, d)
        bounds = [first for (first, _end), _entries in shares] + [n]
        mine = apex.offsets(s.partial)[_cupy_int64(bounds)]
        mine = [int(x) for x in (mine.get() if hasattr(mine, "get") else mine)]
        counts = [b - a for a, b in zip(mine[:-1], mine[1:])]
        s.sent = (None, None, counts)
        room = s.worker.dplan.orient_slice_keys
        fits = max(sum(counts), max(stop - begin for _ranks, (begin, stop) in shares)) <= room
        return shares, fits

    steps.each("counting the oriented degrees of a share", partial_out_degrees)
    partials = [s.partial for s in steps.shares]
    decided = steps.each("summing the oriented degrees", sum_out_degrees)
    _let_go(steps, partials, "partial")
    shares = decided[0][0]
    if any(sh != shares for sh, _fits in decided):
        raise TricountError("the devices computed different shares of the orientation "
                            "(their degrees differ); nothing was counted")
    if not all(fits for _sh, fits in decided):
        for s in steps.shares:
            s.degree = s.rank = s.out = s.sent = None
        return _assemble_and_prepare(steps, source, keep_in_degree)
    bounds = [first for (first, _end), _entries in shares] + [n]

    def group_keys(s):
        keys, starts = apex.rank_keys_by_share(s.rows, n, s.rank, bounds, s.sent[2],
                                               s.worker.dplan.pass_entries)
        s.sent = (keys, starts, s.sent[2])
        s.sums = [_key_sum(keys[a:a + c]) for a, c in zip(starts, s.sent[2])]
        s.rows = None  # the share of the graph: its keys now say all it said
        s.in_degree = (apex.in_degrees(s.degree, s.out, s.rank)
                       if keep_in_degree[s.index] else None)
        s.degree = s.rank = None

    def exchange(s):
        from tricount.partition.source import _cupy

        (_first, _end), (begin, stop) = shares[s.index]
        s.received = _cupy().empty(stop - begin, dtype=_cupy().uint64)
        copies, at = [], 0
        for peer in steps.shares:
            keys, starts, counts = peer.sent
            a, size = starts[s.index], counts[s.index]
            copies.append((s.received[at:at + size], keys[a:a + size]))
            at += size
        _copy_from_peers(s.worker, [(dst, src) for dst, src in copies if src.size])

    def sort_share(s):
        # The keys must have crossed intact (step 8 compares copies, and a copy that went
        # wrong here would be copied alike to every device).
        sent = sum(peer.sums[s.index] for peer in steps.shares) % (1 << 64)
        if _key_sum(s.received) != sent:
            raise TricountError(f"the keys {s.worker.label} received differ from those sent "
                                f"(sums {_key_sum(s.received)} and {sent}); nothing was "
                                "counted")
        indptr, cols = apex.orient_received(s.received, n, source.n_edges, s.out,
                                            shares[s.index][1], source.indices.dtype)
        s.received = None
        s.worker.use_prepared(indptr, cols, s.out, s.in_degree, shares)
        s.out = s.in_degree = None

    steps.each("grouping a share's keys by device", group_keys)
    steps.each("exchanging the keys", exchange)
    _let_go(steps, None, "sent")
    steps.each("sorting the keys of a share", sort_share)
    _gather_oriented(steps, shares)


#: Sums over device arrays go in slices of at most this many elements: CuPy compiles a second,
#: 64-bit-indexed variant of a reduction for an array of 2^31 elements or more, and that
#: compilation (on every device at once) took 10-15 s of R-MAT 29's first four-GPU count
#: (8.5 G ids, device run 53) where the sum itself takes about 10 ms.
SUM_SLICE = 1 << 30


def _sum(a, dtype) -> int:
    """``a.sum(dtype=dtype)`` as a Python int, in slices of :data:`SUM_SLICE` elements
    (wrapping modulo 2^64 as CuPy's sum does)."""
    total = sum(int(a[i:i + SUM_SLICE].sum(dtype=dtype)) for i in range(0, a.size, SUM_SLICE))
    return total % (1 << 64) if a.dtype == np.uint64 else total


def _key_sum(keys) -> int:
    """The sum of ``keys`` (uint64) modulo 2^64: compared on both sides of a copy."""
    return _sum(keys, keys.dtype)


def _cupy_int64(values):
    from tricount.partition.source import _cupy

    return _cupy().asarray(np.asarray(values, dtype=np.int64))


def _let_go(steps, arrays, name: str) -> None:
    """Drop every device's ``name`` once no peer reads it any more (after a step's barrier)."""
    for s in steps.shares:
        setattr(s, name, None)
    if arrays is not None:
        arrays.clear()


def _assemble_and_prepare(steps, source, keep_in_degree) -> None:
    """The older route: every device copies the other devices' rows (the whole graph on each),
    computes the statistics and orients one share of the ranks; then step 8."""
    from tricount.gpu.chunks import DeviceCSR
    from tricount.partition.source import _cupy

    d = len(steps.shares)
    held = [s.rows for s in steps.shares]

    def assemble(s):
        cp = _cupy()
        indptr = cp.empty(source.n_vertices + 1, dtype=cp.int64)
        cols = cp.empty(source.n_edges, dtype=source.indices.dtype)
        copies = []
        for rows in held:
            e0 = rows.entry_base
            copies += [(indptr[rows.first:rows.end + 1], rows.indptr),
                       (cols[e0:e0 + rows.indices.shape[0]], rows.indices)]
        _copy_from_peers(s.worker, [(dst, src) for dst, src in copies if src.size])
        s.assembled = DeviceCSR(indptr, cols)

    def prepare_share(s):
        s.worker.prepare(source, keep_in_degree=keep_in_degree[s.index],
                         reader=s.assembled, orient_share=(s.index, d))
        s.assembled = None

    steps.each("copying the graph from the other devices", assemble)
    _let_go(steps, held, "rows")
    steps.each("orienting a share of the graph", prepare_share, in_context=False)
    shares = steps.shares[0].worker.oriented_shares
    if shares is None:
        return  # the graph was in rank order: nothing was oriented
    if any(s.worker.oriented_shares != shares for s in steps.shares):
        raise TricountError("the devices computed different shares of the orientation "
                            "(their degrees differ); nothing was counted")
    _gather_oriented(steps, shares)


def prepare_once(threads, source, *, keep_in_degree: list[bool]) -> None:
    """Device 0 prepares ``source`` alone, as a single device does, and every other device
    copies its rank-ordered CSR and out-degrees (NVLink or PCIe), the copies compared after.

    For a graph that every device keeps in rank order but that does not fit a device beside
    it (no ``upload_first``): step 1's shares could not stay, and device 0 streams the host
    graph once per pass. Each device preparing alone instead carried those passes over the
    host link once per device: R-MAT 29 (8.5 G edges, four H100s, device run 52) took 33 s
    to prepare on four against 11.6 s on one, each device copying 251 GB from the host.
    """
    from tricount.partition.source import _cupy

    steps = _Steps(threads)
    first = threads.workers[0]

    def prepare_first(s):
        if s.index == 0:
            s.worker.prepare(source, keep_in_degree=keep_in_degree[0])

    def copy(s):
        if s.index == 0:
            return
        cp = _cupy()
        theirs = [first.csr.indptr, first.csr.indices, first.out_degree]
        if keep_in_degree[s.index]:
            theirs.append(first.in_degree)
        mine = [cp.empty(a.shape, dtype=a.dtype) for a in theirs]
        _copy_from_peers(s.worker, list(zip(mine, theirs)))
        s.worker.max_degree = first.max_degree
        s.worker.use_prepared(*mine[:3], mine[3] if len(mine) > 3 else None, None)

    steps.each("preparing the graph on the first device", prepare_first, in_context=False)
    steps.each("copying the rank-ordered CSR from the first device", copy)
    _compare_copies(steps)


def _gather_oriented(steps, shares) -> None:
    """Step 8: every device copies the oriented rows of the others' shares, and the copies are
    compared before anything is counted."""
    cols = [s.worker.csr.indices for s in steps.shares]

    def gather(s):
        _copy_from_peers(s.worker, [(cols[s.index][b:e], cols[j][b:e])
                                    for j, (_ranks, (b, e)) in enumerate(shares)
                                    if j != s.index and e > b])

    steps.each("copying the oriented graph from the other devices", gather)
    _compare_copies(steps)


def _compare_copies(steps) -> None:
    """Every device must now hold the same rank-ordered CSR: one pass over each device's copy
    (about 2 ms per 10^9 ids) rather than a count from a copy that went wrong."""
    from tricount.partition.source import _cupy

    def sums(s):
        csr = s.worker.csr
        return _sum(csr.indices, _cupy().int64), _sum(csr.indptr, _cupy().int64)

    sums = steps.each("checking the oriented graph", sums)
    if len(set(sums)) != 1:
        raise TricountError(f"the devices' copies of the oriented graph differ (sums of ids "
                            f"{sums}); nothing was counted")
