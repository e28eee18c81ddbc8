"""Listing every triangle on the GPU: to device memory, to host memory and to a Parquet file.

For R-MAT scales 18-21 (graph500 a=0.57 b=c=0.19, edge factor 16, seed 1;
scale 21 has 948 M triangles), the graph built once on the GPU, then:

- ``count``: ``tricount.count(g, backend="gpu")``, the count's time (wall,
  synchronized by its result; the engine's own ``count_s`` beside it);
- ``list-device``: the listing's count pass, prefix sum and one write of every
  triangle into one device array (3 × T int64, column by column as
  ``list_triangles_gpu(to_host=False)`` writes), synchronized;
- ``list-pinned``: every window streamed to pinned host memory (two streams, the
  copies overlapped with the next window's kernel); the caller reads nothing;
- ``list-host``: ``tricount.listing.list_triangles`` consumed to the end, every
  chunk a new NumPy array (the public API), the chunks kept;
- ``parquet-<codec>`` (``--parquet-scales``, default 21; codecs ``none`` and
  ``snappy``): ``write_triangles`` to a file in ``--dir`` (default /tmp),
  reporting triangle-data GB/s (24 bytes per triangle) and file GB/s, beside
  ``disk``: a plain sequential write of ``--disk-gib`` GiB with fsync in the
  same folder, the disk's write speed.

Targets (issue 24): list-device <= 3 × count at every scale; parquet >= 1 GB/s
of output or the disk's speed, whichever is lower (the table gives both
readings of "output": triangle data, and the compressed file's bytes). The GAPBS loop: one
untimed warm-up per (scale, measure), N timed trials, the number of rows
checked against the count, one JSON line per trial on stdout.

    python benchmarks/listing_gpu.py                          # scales 18-21, 3 trials
    python benchmarks/listing_gpu.py --scales 21 --chunk-rows 4194304 16777216
    python benchmarks/listing_gpu.py --markdown benchmarks/results/listing_gpu_h100.md
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

import tricount
from tricount.bench.environment import device, machine, utc_now, versions
from tricount.generate import rmat
from tricount.listing import list_triangles, write_triangles

EDGE_FACTOR, SEED = 16, 1
#: Bytes of one triangle as three int64 ids.
ROW_BYTES = 24


def sync():
    import cupy

    cupy.cuda.get_current_stream().synchronize()
    cupy.cuda.Device().synchronize()


def timed(run, n_trials):
    """Warm-up, then ``n_trials`` synchronized runs: ``(answer, [seconds])``."""
    answer = run()
    sync()
    times = []
    for _ in range(n_trials):
        sync()
        t0 = time.perf_counter()
        got = run()
        sync()
        times.append(time.perf_counter() - t0)
        if got != answer:
            raise AssertionError(f"answer changed between trials: {answer} then {got}")
    return answer, times


def labels_of(g):
    from tricount.listing import _labels

    return _labels(g)[0]


def list_device(g):
    """The listing's three steps into one device array; returns the rows written."""
    import cupy

    from tricount.gpu.listing import GpuLister

    lister = GpuLister(g.oriented(), labels_of(g))
    total = lister.n_triangles
    if total:
        out = cupy.empty(3 * total, dtype=cupy.int64)
        (window,) = lister.windows(total)
        lister.write(window, out)
        del out
    return total


def list_pinned(g, chunk_rows):
    from tricount.gpu.listing import iter_columns_gpu

    return lambda: sum(c.shape[1] for c in iter_columns_gpu(g.oriented(), labels_of(g),
                                                             chunk_rows))


def list_host(g, chunk_rows):
    def run():
        chunks = list(list_triangles(g, backend="gpu", chunk_size=chunk_rows))
        return sum(c.shape[0] for c in chunks)
    return run


def disk_speed(folder: Path, gib: float) -> float:
    """GB/s of a plain sequential write of ``gib`` GiB in 64 MiB blocks, with fsync."""
    block = np.random.default_rng(0).integers(0, 255, 64 << 20, dtype=np.uint8).tobytes()
    n_blocks = max(1, int(gib * 16))
    path = folder / f"listing_gpu_disk_{os.getpid()}.bin"
    try:
        t0 = time.perf_counter()
        with open(path, "wb") as f:
            for _ in range(n_blocks):
                f.write(block)
            f.flush()
            os.fsync(f.fileno())
        seconds = time.perf_counter() - t0
    finally:
        path.unlink(missing_ok=True)
    return n_blocks * len(block) / seconds / 1e9


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scales", type=int, nargs="*", default=[18, 19, 20, 21])
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--chunk-rows", type=int, nargs="*", default=[1 << 22],
                        help="rows per streamed window (several: one row each)")
    parser.add_argument("--parquet-scales", type=int, nargs="*", default=[21])
    parser.add_argument("--compression", nargs="*", default=["none", "snappy"],
                        help="Parquet codecs to time (one row each)")
    parser.add_argument("--dir", type=Path, default=Path("/tmp"))
    parser.add_argument("--disk-gib", type=float, default=8.0)
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args(argv)

    import cupy

    env = {"machine": machine(), "device": device("gpu"),
           "versions": versions(backends=("gpu",)), "date": utc_now()}
    try:
        import pyarrow

        env["versions"]["pyarrow"] = pyarrow.__version__
    except ImportError:
        pass
    lines = []

    def record(scale, measure, times, rows, **extra):
        for i, seconds in enumerate(times):
            print(json.dumps({"graph": f"rmat{scale}", "measure": measure, "trial": i,
                              "seconds": seconds, "triangles": rows, **extra, **env}),
                  flush=True)
        lines.append({"scale": scale, "measure": measure, "best": min(times), "rows": rows,
                      **extra})
        print(f"# rmat{scale} {measure} {extra or ''}: {min(times):.4f} s", file=sys.stderr,
              flush=True)

    for scale in args.scales:
        run_scale(scale, args, record)
        cupy.get_default_memory_pool().free_all_blocks()
    if args.markdown:
        args.markdown.write_text(table(lines, env, argv))
    return 0


def run_scale(scale, args, record):
    """Every measure of one R-MAT scale (the graph lives only here)."""
    import cupy

    src, dst = rmat(scale, EDGE_FACTOR, seed=SEED, xp=cupy)
    g = tricount.Graph.from_edges(src, dst, name=f"rmat{scale}")
    del src, dst
    g.oriented()  # built once, as the count builds its own
    counted = tricount.count(g, backend="gpu")
    n_triangles = counted.n_triangles
    _, times = timed(lambda: tricount.count(g, backend="gpu").n_triangles, args.trials)
    record(scale, "count", times, n_triangles, method=counted.method,
           count_s=counted.timings.get("count_s"))
    rows, times = timed(lambda: list_device(g), args.trials)
    assert rows == n_triangles, (rows, n_triangles)
    record(scale, "list-device", times, rows)
    for chunk in args.chunk_rows:
        rows, times = timed(list_pinned(g, chunk), args.trials)
        assert rows == n_triangles
        record(scale, "list-pinned", times, rows, chunk_rows=chunk)
        rows, times = timed(list_host(g, chunk), args.trials)
        assert rows == n_triangles
        record(scale, "list-host", times, rows, chunk_rows=chunk)
    if scale not in args.parquet_scales:
        return
    path = args.dir / f"listing_gpu_rmat{scale}.parquet"
    try:
        for chunk in args.chunk_rows:
            for codec in args.compression:
                times = []
                for _ in range(max(1, args.trials)):
                    t0 = time.perf_counter()
                    rows = write_triangles(g, path, backend="gpu", chunk_size=chunk,
                                           compression=codec)
                    times.append(time.perf_counter() - t0)
                assert rows == n_triangles
                size = path.stat().st_size
                record(scale, f"parquet-{codec}", times, rows, chunk_rows=chunk,
                       file_bytes=size, file_gb_s=size / min(times) / 1e9,
                       data_gb_s=rows * ROW_BYTES / min(times) / 1e9)
    finally:
        path.unlink(missing_ok=True)
    speed = disk_speed(args.dir, args.disk_gib)
    record(scale, "disk", [args.disk_gib * 2**30 / speed / 1e9], 0, disk_gb_s=speed)


def table(lines, env, argv) -> str:
    m, d, v = env["machine"], env["device"], env["versions"]
    command = "python benchmarks/listing_gpu.py " + " ".join(argv if argv is not None
                                                              else sys.argv[1:])
    count = {line["scale"]: line["best"] for line in lines if line["measure"] == "count"}
    out = [
        "# Listing every triangle on the GPU",
        "",
        f"Command: `{command}` (best of the trials after a warm-up). Date: {env['date']}.",
        f"Device: {d['name']} ({d.get('memory_gib')} GiB, CUDA {d.get('cuda_runtime')}); host: "
        f"{m['cpu']}, {m['logical_cpus']} logical CPUs. Versions: tricount "
        f"{v.get('tricount')} ({v.get('tricount_commit', '?')}), CuPy {v.get('cupy')}, "
        f"pyarrow {v.get('pyarrow')}.",
        "",
        "| graph | measure | chunk rows | triangles | seconds | × count | GB/s |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for line in lines:
        ratio = line["best"] / count[line["scale"]] if line["measure"] != "disk" else None
        rate = line.get("data_gb_s") or line.get("disk_gb_s")
        if rate is None and line["measure"].startswith("list") and line["rows"]:
            rate = line["rows"] * ROW_BYTES / line["best"] / 1e9
        out.append(f"| rmat{line['scale']} | {line['measure']} | {line.get('chunk_rows', '')} | "
                   f"{line['rows']:,} | {line['best']:.4f} | "
                   f"{'' if ratio is None else f'{ratio:.2f}'} | "
                   f"{'' if rate is None else f'{rate:.2f}'} |")
    out += ["", "GB/s: triangle data at 24 bytes per triangle (list and parquet rows; a "
            "parquet row's file GB/s is in its JSON line and below); disk: a plain sequential "
            "write with fsync in the same folder.", ""]
    out += [f"- rmat{line['scale']} {line['measure']} (chunk {line['chunk_rows']}): file "
            f"{line['file_bytes'] / 1e9:.2f} GB, {line['file_gb_s']:.2f} GB/s of file"
            for line in lines if "file_gb_s" in line]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(main())
