"""The GPU twin of the bounded build (:mod:`tricount.prep.outofcore`): buckets sorted by CuPy.

The portable build sorts each bucket of packed edge keys with NumPy, one bucket
per CPU thread; here each bucket goes to the device in turn and takes the fused
preparation's passes (:mod:`.fused`, ``kernels/prep.cu``): one radix sort of
its keys, ``tc_prep_pair_flags`` to mark each pair's first key and count the
distinct directed keys, ``tc_prep_unpack`` to decode the pairs, a gather
through the compact-id map, and the row entries copied back to the host over
the keys they came from. The row degrees come from one ``bincount`` of the
bucket's rows, the column degrees (asked for by a ``.tcsr``) from
``tc_prep_histogram`` into one device array. Chunks that arrive as CuPy arrays
(the R-MAT generator on the GPU, or a CuPy edge list too large for the fused
build) are also surveyed and bucketed on the device: keys packed by
``tc_prep_edge_keys``, sorted and deduplicated per chunk, then copied to their
buckets' regions on the host.

Every result is the portable code's, array for array
(``tests/gpu/test_outofcore_gpu.py``). A bucket larger than the device's room,
or keys that pack by multiplication (more than 2^31 table ids), take the
portable path for that bucket or chunk. Running out of device memory raises
:class:`~tricount.UnsupportedGraphError` naming the step.
"""

from __future__ import annotations

import numpy as np

from tricount.gpu.device import c_type, cupy, free_device_bytes, out_of_memory

#: What to do when the bounded build runs out of device memory.
ADVICE = ("free device memory, pass BuildPlan(bucket_keys=N) with fewer keys per bucket or "
          "smaller chunks of edges, or build on the CPU (BuildPlan(device='cpu'))")
from tricount.gpu.prepare.keys import KeyLayout, distinct_pairs, run_prep

__all__ = ["device_buckets", "DeviceBuckets"]


def device_buckets():
    """A :class:`DeviceBuckets` when CuPy imports and sees a device, else None."""
    try:
        if cupy().cuda.runtime.getDeviceCount() == 0:
            return None
    except Exception:  # no CuPy, no driver, no device: the portable build runs
        return None
    return DeviceBuckets()


def guard(what: str):
    """Running out of device memory in the block as an error naming ``what`` (the
    bounded build's advice)."""
    return out_of_memory(what, ADVICE)


def _histogram_into(ids, counts) -> None:
    """``counts[id] += 1`` for every id (int32 or int64 ids; uint64 counters)."""
    n = int(ids.shape[0])
    if n:
        run_prep("tc_prep_histogram", n, (cupy().ascontiguousarray(ids), np.int64(n), counts),
                 vertex_t=c_type(ids.dtype), hist_t="unsigned long long")


class DeviceBuckets:
    """What the bounded build asks of the GPU (see the module doc)."""

    def __init__(self):
        self.rank = self.columns = self.layout = None

    @staticmethod
    def free_bytes() -> int:
        return free_device_bytes()

    guard = staticmethod(guard)

    # -- chunks given as CuPy arrays -------------------------------------------------------

    def survey(self, s, d, present, hist, shift, mark) -> int:
        """Pass 1 on a CuPy chunk (uint64 ids): loops; marks in ``present``; ``hist[0]``."""
        cp = cupy()
        with guard(f"surveying a chunk of {int(s.shape[0])} edge lines on the GPU"):
            loop = s == d
            loops = int(cp.count_nonzero(loop))
            if mark:
                present[s.view(cp.int64)] = 1
                present[d.view(cp.int64)] = 1
            lo = (cp.minimum(s, d)[~loop] >> cp.uint64(shift)).view(cp.int64)
            _histogram_into(lo, hist[0].view(cp.uint64))
        return loops

    def bucket_chunk(self, s, d, build, store) -> None:
        """Pass 2 on a CuPy chunk: its distinct keys, sorted, copied to their buckets."""
        cp = cupy()
        shift = build.packing.shift
        if shift == 0:  # keys that pack by multiplication: the portable kernels
            build.bucket_host(cp.asnumpy(s), cp.asnumpy(d))
            return
        m = int(s.shape[0])
        with guard(f"packing a chunk of {m} edge lines into keys on the GPU"):
            kept = m - int(cp.count_nonzero(s == d))  # the loops' keys sort last
            if build.search:  # sparse ids: their positions among the sorted distinct ids
                ids = build.ids_dev
                s = cp.searchsorted(ids, s.view(ids.dtype)).astype(cp.int64)
                d = cp.searchsorted(ids, d.view(ids.dtype)).astype(cp.int64)
            else:
                s, d = s.view(cp.int64), d.view(cp.int64)
            keys = cp.empty(m, dtype=cp.uint64)
            run_prep("tc_prep_edge_keys", m,
                     (cp.ascontiguousarray(s), cp.ascontiguousarray(d), np.int64(m),
                      np.int32(shift), keys, keys), mark=False)
            del s, d
            keys.sort()
            keys = keys[:kept]
            if keys.shape[0] > 1:
                first = cp.empty(keys.shape[0], dtype=cp.bool_)
                first[0] = True
                cp.not_equal(keys[1:], keys[:-1], out=first[1:])
                keys = keys[first]
                del first
            cut = cp.searchsorted(keys, cp.asarray(build.bounds)).get()
            for b in np.flatnonzero(cut[1:] > cut[:-1]):
                part = store.writable(b, int(cut[b + 1] - cut[b]))
                keys[int(cut[b]): int(cut[b + 1])].get(out=part)
                store.commit(b, part)

    # -- the sweep -------------------------------------------------------------------------

    def prepare_sweep(self, build) -> None:
        """Before the first bucket: the compact-id map and the column counters on the device."""
        cp = cupy()
        with guard("holding the compact-id map and the degrees on the GPU"):
            self.rank = None
            if build.rank is not None:
                self.rank = build.rank_dev if build.rank_dev is not None \
                    else cp.asarray(build.rank)
            self.columns = cp.zeros(build.n, dtype=cp.uint64) \
                if build.columns is not None else None
        shift = build.packing.shift
        self.layout = KeyLayout(shift, shift, drop_bits=1) if shift else None

    def sort_bucket(self, build, b: int):
        """Sort bucket ``b`` on the device; keep its row entries; ``(entries, directed)``."""
        cp = cupy()
        fill = int(build.store.fill[b])
        if fill == 0:
            return 0, 0
        if fill > build.room or self.layout is None:
            k, directed = build.sort_on_host(b)
            if self.columns is not None:
                _histogram_into(cp.asarray(build.store.entries(b, k, build.idx)), self.columns)
            return k, directed
        host = build.store.load(b)
        with guard(f"sorting a bucket of {fill} edge keys on the GPU"):
            keys = cp.asarray(host)
            # Table ids are below 2^31 whenever keys pack by shifting.
            lo, hi, counts = distinct_pairs(keys, self.layout, np.int32)
            del keys
            k = int(lo.shape[0])
            if self.rank is not None:
                lo, hi = self.rank[lo], self.rank[hi]
            c0, c1 = build.rows_of(b)
            build.degree[c0:c1] += cp.bincount(lo - c0, minlength=c1 - c0).get()[: c1 - c0]
            del lo
            if self.columns is not None:
                _histogram_into(hi, self.columns)
            out = host.view(build.idx)[:k]
            hi.astype(build.idx, copy=False).get(out=out)
            directed = int(counts.get()[0])
        build.store.keep(b, out)
        return k, directed

    def column_counts(self):
        """The column degrees counted so far (host int64)."""
        return self.columns.get().astype(np.int64)
