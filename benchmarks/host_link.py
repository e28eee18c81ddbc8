"""The host-to-device floor of a several-GPU host: what a graph in host memory can reach the
devices at, whatever tricount does (issue 22; ``results/partition_gpu_h100x4.md``).

(a) DMA alone: a pinned host buffer of 1 GiB to each of 1, 2 and every device at once;
(b) CuPy's copy of pageable memory (``cp.asarray``), likewise;
(c) host copies alone: pageable to pinned memory with 1-32 NumPy threads (the staged copy's
    first half: ``tricount.gpu.chunks.HostCSR``);
(d) ``cudaHostRegister`` of a pageable GiB (pinning the user's arrays in place instead).

    python benchmarks/host_link.py
"""
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import cupy as cp
import cupyx
import numpy as np

GIB = 1 << 30
SIZE = GIB  # per device
ndev = cp.cuda.runtime.getDeviceCount()


def at_once(fn, devices):
    barrier = threading.Barrier(len(devices))
    out = {}

    def run(d):
        with cp.cuda.Device(d):
            fn(d, warm=True)
            cp.cuda.Device().synchronize()
            barrier.wait()
            t0 = time.perf_counter()
            fn(d, warm=False)
            cp.cuda.Device().synchronize()
            out[d] = time.perf_counter() - t0
    ts = [threading.Thread(target=run, args=(d,)) for d in devices]
    [t.start() for t in ts]
    [t.join() for t in ts]
    return out


src_host = np.ones(SIZE * 4 // 8, dtype=np.int64)  # 4 GiB pageable, touched
pinned, dev = {}, {}
for d in range(ndev):
    with cp.cuda.Device(d):
        pinned[d] = cupyx.empty_pinned(SIZE // 4, dtype=np.int32)
        pinned[d][:] = 1
        dev[d] = cp.empty(SIZE // 4, dtype=cp.int32)


def dma(d, warm):
    s = cp.cuda.Stream(non_blocking=True)
    n = pinned[d].size if not warm else 1 << 20
    dev[d][:n].set(pinned[d][:n], stream=s)
    s.synchronize()


def pageable(d, warm):
    part = src_host.view(np.int32)[d * (SIZE // 4):(d + 1) * (SIZE // 4)]
    if warm:
        part = part[:1 << 20]
    cp.asarray(part)


for count in sorted({1, 2, ndev}):
    devs = list(range(count))
    for name, fn in (("pinned DMA", dma), ("CuPy pageable", pageable)):
        t = at_once(fn, devs)
        slowest = max(t.values())
        print(f"{name:14s} {count} device(s), 1 GiB each: slowest {slowest * 1e3:.1f} ms, "
              f"aggregate {count / slowest:.1f} GiB/s, each "
              f"{[round(1 / v, 1) for v in t.values()]}", flush=True)

flat = src_host.view(np.int32)
for threads in (1, 4, 8, 16, 32):
    dst = [pinned[d] for d in range(ndev)]
    pieces = [(dst[i % ndev], flat[i * (SIZE // 4):(i + 1) * (SIZE // 4)]) for i in range(ndev)]
    step = SIZE // 4 // max(1, threads // ndev)

    def job(args):
        dst_arr, src_arr, a = args
        np.copyto(dst_arr[a:a + step], src_arr[a:a + step])
    tasks = [(dd, ss, a) for dd, ss in pieces for a in range(0, SIZE // 4, step)]
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(job, tasks[:threads]))
        t0 = time.perf_counter()
        list(pool.map(job, tasks))
        s = time.perf_counter() - t0
    print(f"host copy pageable->pinned, {threads} threads, {ndev} GiB: {ndev / s:.1f} GiB/s",
          flush=True)

x = np.ones(SIZE // 8, dtype=np.int64)
t0 = time.perf_counter()
cp.cuda.runtime.hostRegister(x.ctypes.data, x.nbytes, 0)
t1 = time.perf_counter()
cp.cuda.runtime.hostUnregister(x.ctypes.data)
print(f"cudaHostRegister of 1 GiB: {(t1 - t0) * 1e3:.1f} ms", flush=True)
sys.exit(0)
