"""The GPU listing to device memory under several hash launch shapes, with its two parts.

For each R-MAT scale given (graph500 parameters, edge factor 16, seed 1): the
count (``tricount.count``, wall), then for each shape the lister's count pass
and prefix sum (``GpuLister``) and one write of every triangle into one device
array, compact ids (no labels); best of 3 after a warm-up, synchronized.
``{}`` is the count's own shape (lists of 16 or more read by a warp at these
sizes); the lister's default reads lists of 32 or more with a warp.

    python benchmarks/listing_gpu_shapes.py 21 20
"""
import sys
import time

import cupy

import tricount
from tricount.generate import rmat
from tricount.gpu.listing import GpuLister
from tricount.gpu.plan import HashShape

SHAPES = ({}, {"by_owner": True}, {"unroll": 4}, {"min_blocks": 6}, {"long_list": 16},
          {"long_list": 32})


def sync():
    cupy.cuda.Device().synchronize()


def best(run, n_trials=3):
    run()
    sync()
    times = []
    for _ in range(n_trials):
        sync()
        t0 = time.perf_counter()
        run()
        sync()
        times.append(time.perf_counter() - t0)
    return min(times)


def list_device(oriented, shape, parts):
    t0 = time.perf_counter()
    lister = GpuLister(oriented, shape=shape)
    t1 = time.perf_counter()
    out = cupy.empty(3 * lister.n_triangles, dtype=cupy.int64)
    (window,) = lister.windows(lister.n_triangles)
    lister.write(window, out)
    sync()
    parts.setdefault("count", []).append(t1 - t0)
    parts.setdefault("write", []).append(time.perf_counter() - t1)


def main(scales):
    for scale in scales:
        src, dst = rmat(scale, 16, seed=1, xp=cupy)
        g = tricount.Graph.from_edges(src, dst)
        del src, dst
        oriented = g.oriented()
        print(scale, "count", round(best(lambda: tricount.count(g, backend="gpu")), 4),
              flush=True)
        for fields in SHAPES:
            shape, parts = HashShape(**fields), {}
            total = best(lambda: list_device(oriented, shape, parts))
            print(f"{scale} shape {fields}: list-device {total:.4f} s (best count+scan "
                  f"{min(parts['count']):.4f}, best write {min(parts['write']):.4f})", flush=True)
        del g, oriented
        cupy.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main([int(s) for s in sys.argv[1:]] or [21])
