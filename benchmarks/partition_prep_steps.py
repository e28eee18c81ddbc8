"""The partitioned count's preparation steps on one GPU, each timed alone (issue 22).

R-MAT ``scale`` (argument, default 26; graph500 parameters, edge factor 16, seed 1) in host
memory: the staged upload of the whole graph and of a quarter of it, then on device 0 the
degrees, the (degree, id) rank, the oriented out-degrees, the orientation of every rank and
of a quarter of them, the anchors' work, and a peer copy of the ids from device 0 to 1 when
there are two devices. Each step: one untimed run, then the best of two, synchronized.
What several devices share and what each still does whole is read off these times
(benchmarks/results/partition_gpu_h200x4.md).

    python benchmarks/partition_prep_steps.py 26
"""
import sys, time
import numpy as np
sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from partition_gpu import host_rmat
from tricount.gpu.device import cupy
from tricount.gpu import apex
from tricount.gpu.chunks import HostCSR, DeviceCSR
from tricount.gpu.peers import copy_from_peer, enable_peer_access
from tricount.partition.shared_prep import row_shares

cp = cupy()
scale = int(sys.argv[1]) if len(sys.argv) > 1 else 26
g = host_rmat(scale)
indptr, indices = g.indptr, g.indices
n, m = len(indptr) - 1, len(indices)
print("graph", n, m, indices.dtype, flush=True)

def timed(label, fn, reps=2):
    fn(); cp.cuda.Device().synchronize()
    best = 1e9
    for _ in range(reps):
        t0 = time.perf_counter(); out = fn(); cp.cuda.Device().synchronize()
        best = min(best, time.perf_counter() - t0)
    print(f"{label}: {best*1e3:.1f} ms", flush=True)
    return out

def upload(r0, r1):
    ip = cp.empty(n + 1, dtype=cp.int64); cols = cp.empty(m, dtype=indices.dtype)
    ip[r0:r1 + 1].set(np.ascontiguousarray(indptr[r0:r1 + 1]))
    rd = HostCSR(indptr, indices)
    for c in rd.chunks(r0, r1, 1 << 24):
        cols[c.e0:c.e1] = c.cols
    rd.close()
    return ip, cols

ip, cols = timed("staged upload, whole graph", lambda: upload(0, n))
share = row_shares(indptr, 4)[0]
timed("staged upload, a quarter", lambda: upload(*share))
csr = DeviceCSR(ip, cols)
E = 1 << 27
deg = timed("degrees", lambda: apex.degrees(csr, n, E))
rank = timed("degree_rank", lambda: apex.degree_rank(deg.astype(cp.int64), n, cols.dtype))
out = timed("oriented_degrees", lambda: apex.oriented_degrees(csr, n, rank, E))
timed("in_degrees", lambda: apex.in_degrees(deg, out, rank))
o = timed("orient (all ranks, one slice)", lambda: apex.orient(csr, n, m, rank, out, slice_keys=m, max_entries=E))
from tricount.partition.shared_prep import oriented_shares
sh = timed("oriented_shares(4)", lambda: oriented_shares(out, 4))
timed("orient (a quarter of the ranks)", lambda: apex.orient(csr, n, m, rank, out, slice_keys=m, max_entries=E, ranks=sh[0][0]))
timed("anchor_work", lambda: apex.anchor_work(DeviceCSR(*o), out, n, E))
if cp.cuda.runtime.getDeviceCount() > 1:
    enable_peer_access(1, [0])
    with cp.cuda.Device(1):
        dst = cp.empty_like(cols)
        s = cp.cuda.Stream(non_blocking=True)
        def peer():
            copy_from_peer(dst, cols, s); s.synchronize()
        t0 = time.perf_counter(); peer(); t = time.perf_counter() - t0
        t0 = time.perf_counter(); peer(); t = time.perf_counter() - t0
        print(f"peer copy 0 -> 1 of {cols.nbytes/2**30:.2f} GiB: {t*1e3:.1f} ms ({cols.nbytes/t/1e9:.0f} GB/s)", flush=True)
