"""A user's count from NumPy edge arrays on GPUs: the lines built on the host, as before, against
the lines copied to the device and built there (``tricount.gpu.host_edges``), on one GPU and
on every GPU of the host. Every count verified; every time beside its memory peaks.

The arrays are R-MAT's lines (graph500 parameters, edge factor 16, seed 1; int64, loops and
repeats included), made on the GPU and copied to NumPy arrays once, untimed. Rows:

- ``host build``: ``Graph.from_edges(src, dst)`` on the host, then ``count(g, backend="gpu")``:
  what ``count((src, dst), backend="gpu")`` did before (one trial; up to ``--host-max``);
- ``count((src, dst), backend="gpu")``: the lines built on the device (in one piece, or past
  the device's room, R-MAT 27 on an H200, by the bounded build with the GPU bucketing and
  sorting, then counted in parts);
- ``ids copied as int64``: the same call with the narrowing of ids below ``2**31`` to int32
  during the copy turned off (``gpu.chunks.narrow_into`` answering "does not fit"), as before
  that narrowing. The script starts Numba first, the narrowing's condition
  (``host_edges.narrows``);
- ``--cold SCALE``: fresh processes' first and second counts of R-MAT ``SCALE``'s lines
  (``backend="gpu"``), as shipped (Numba not started: int64) and with Numba started for the
  narrowing, alternating, to weigh the narrowing against Numba's start;
- on a host of several GPUs, ``devices=[0]`` and ``devices="all"`` from the same arrays, with
  the speed-up (issue 21's two-GPU target, measured from the edge list);
- ``--tables``: the same lines as an ``(m, 2)`` array and as a pandas DataFrame, counted with
  ``backend="gpu"``; up to ``--host-max``, the DataFrame built on the host as before
  (``inputs.id_columns`` answering None).

``--small`` adds the bound below which the host builds (``DEVICE_BUILD_MIN_LINES``): the
host's and the device's build of R-MAT 14-18, each with the engine's count.
Times: one untimed warm-up, then ``--trials`` (best and median). Writes
``host_edges_gpu.md`` and ``.jsonl`` into ``--out``.

    python benchmarks/host_edges_gpu.py --scales 24 25 26 --small
    python benchmarks/host_edges_gpu.py --scales 22 24 25 26 --tables --host-max 22 --cold 22
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from partition_gpu import HostPeak, environment, free_pools, sync_all  # noqa: E402

import numpy as np  # noqa: E402

import tricount  # noqa: E402
from tricount import inputs  # noqa: E402
from tricount._threads import load_numba  # noqa: E402
from tricount.generate import rmat  # noqa: E402
from tricount.gpu import chunks, host_edges  # noqa: E402
from tricount.gpu.device import cupy, live_memory_hook  # noqa: E402

#: Counts on record (partition_gpu_h200*.md, the engine from a host CSR).
KNOWN = {24: 10_287_447_151, 25: 22_542_866_797, 26: 49_175_308_653, 27: 106_880_716_618}
COLUMNS = ("scale", "lines", "edges", "run", "devices", "device peak GiB", "host peak GiB",
           "best s", "median s", "build s", "count s", "speed-up", "count", "verified by")


def host_lines(scale: int):
    cp = cupy()
    s, d = rmat(scale, 16, seed=1, xp=cp)
    src, dst = cp.asnumpy(s), cp.asnumpy(d)
    del s, d
    free_pools()
    return src, dst


def timed(fn, n: int):
    """``(last result, seconds)``: ``n`` synchronized runs, pools freed between them."""
    seconds, result = [], None
    for _ in range(n):
        sync_all()
        t0 = time.perf_counter()
        result = fn()
        sync_all()
        seconds.append(time.perf_counter() - t0)
        free_pools()
    return result, seconds


class Rows:
    def __init__(self, out: Path):
        self.out, self.rows, self.notes = out, [], []

    def add(self, **row):
        self.rows.append(row)
        with open(self.out / "host_edges_gpu.jsonl", "a") as f:
            f.write(json.dumps(row, default=str) + "\n")
        print(json.dumps(row, default=str), flush=True)

    def write(self, header: str):
        lines = [header, "", "| " + " | ".join(COLUMNS) + " |",
                 "|" + "|".join("---" if c in ("run", "verified by") else "--:"
                                for c in COLUMNS) + "|"]
        lines += ["| " + " | ".join(str(r.get(c, "")) for c in COLUMNS) + " |"
                  for r in self.rows]
        lines += [""] + [f"- {n}" for n in self.notes] + [""]
        (self.out / "host_edges_gpu.md").write_text("\n".join(lines))


def measure(rows, scale, lines, run, fn, trials, *, devices=1, base=None, known=None):
    """One row: ``fn()`` returns a CountResult (or ``(CountResult, build seconds)``)."""
    hook = live_memory_hook(f"host-edges-{scale}")
    with HostPeak() as host, hook:
        out, seconds = timed(fn, trials)
    result, build = out if isinstance(out, tuple) else (out, None)
    t = result.timings
    if build is None:
        build = t.get("preprocess_s", 0.0)
    n = result.n_triangles
    verified = ("= the count on record" if known == n else
                f"MISMATCH (on record {known})" if known is not None else "")
    best = min(seconds)
    rows.add(scale=scale, lines=lines, edges=result.graph.get("edges"), run=run,
             devices=devices, **{"device peak GiB": f"{hook.peak / 2**30:.2f}",
                                 "host peak GiB": f"{host.peak / 2**30:.2f}",
                                 "best s": f"{best:.3f}",
                                 "median s": f"{statistics.median(seconds):.3f}",
                                 "build s": f"{build:.3f}",
                                 "count s": f"{t.get('count_s', 0.0):.3f}",
                                 "speed-up": f"{base / best:.2f}x" if base else "",
                                 "count": n, "verified by": verified})
    return n, best


def host_built(src, dst):
    t0 = time.perf_counter()
    g = tricount.Graph.from_edges(src, dst)
    build = time.perf_counter() - t0
    return tricount.count(g, backend="gpu"), build


def small_bound(rows, trials):
    """The host's build against the device's below and above DEVICE_BUILD_MIN_LINES."""
    bound = host_edges.DEVICE_BUILD_MIN_LINES
    for scale in (14, 16, 18):
        src, dst = rmat(scale, 16, seed=1)
        want = tricount.count((src, dst), backend="cpu").n_triangles
        lines = int(src.shape[0])
        host_edges.DEVICE_BUILD_MIN_LINES = 1 << 62
        try:
            tricount.count((src, dst), backend="gpu")  # warm-up
            measure(rows, scale, lines, "host build (below the bound)",
                    lambda: tricount.count((src, dst), backend="gpu"), trials, known=want)
        finally:
            host_edges.DEVICE_BUILD_MIN_LINES = 0
        try:
            tricount.count((src, dst), backend="gpu")
            measure(rows, scale, lines, "device build (at or past the bound)",
                    lambda: tricount.count((src, dst), backend="gpu"), trials, known=want)
        finally:
            host_edges.DEVICE_BUILD_MIN_LINES = bound


def one_scale(rows, scale: int, args, n_gpus: int):
    src, dst = host_lines(scale)
    lines, known = int(src.shape[0]), KNOWN.get(scale)
    if scale <= args.host_max:
        measure(rows, scale, lines, "host build + GPU count (before)",
                lambda: host_built(src, dst), 1, known=known)
    tricount.count((src, dst), backend="gpu")  # this scale's kernels: untimed
    n, _ = measure(rows, scale, lines, "count((src, dst), backend='gpu')",
                   lambda: tricount.count((src, dst), backend="gpu"), args.trials, known=known)
    known = n if known is None else known
    real_narrow = chunks.narrow_into
    chunks.narrow_into = lambda *pairs: False  # every chunk goes as int64, as before
    try:
        measure(rows, scale, lines, "... ids copied as int64 (before)",
                lambda: tricount.count((src, dst), backend="gpu"), args.trials, known=known)
    finally:
        chunks.narrow_into = real_narrow
    if args.tables:
        tables(rows, scale, lines, src, dst, args, known)
    if n_gpus > 1:
        _, one = measure(rows, scale, lines, "count((src, dst), devices=[0])",
                         lambda: tricount.count((src, dst), devices=[0]), args.trials,
                         known=known)
        result = tricount.count((src, dst), devices="all")
        measure(rows, scale, lines, f"count((src, dst), devices='all'), {n_gpus} GPUs",
                lambda: tricount.count((src, dst), devices="all"), args.trials,
                devices=n_gpus, base=one, known=known)
        rows.notes.append(f"R-MAT {scale} devices='all' (an untimed run): " + ", ".join(
            f"{k} {v:.3f}" for k, v in result.timings.items()))


def tables(rows, scale, lines, src, dst, args, known):
    """The lines as an (m, 2) array and as a DataFrame (where pandas is installed), counted
    on the GPU."""
    pairs = np.stack((src, dst), axis=1)
    measure(rows, scale, lines, "count(an (m, 2) array, backend='gpu')",
            lambda: tricount.count(pairs, backend="gpu"), args.trials, known=known)
    try:
        import pandas as pd
    except ImportError:
        rows.notes.append("pandas is not installed here: no DataFrame rows")
        return
    frame = pd.DataFrame({"source": src, "target": dst})
    measure(rows, scale, lines, "count(a pandas DataFrame, backend='gpu')",
            lambda: tricount.count(frame, backend="gpu"), args.trials, known=known)
    if scale <= args.host_max:
        real = inputs.id_columns
        inputs.id_columns = lambda graph: None  # built on the host first, as before
        try:
            measure(rows, scale, lines, "count(a pandas DataFrame, backend='gpu') (before)",
                    lambda: tricount.count(frame, backend="gpu"), 1, known=known)
        finally:
            inputs.id_columns = real


COLD_RUN = """
import json, sys, time
import numpy as np
src, dst = np.load(sys.argv[1]), np.load(sys.argv[2])
t0 = time.perf_counter()
import tricount
from tricount import _threads
if sys.argv[3] == "narrowed":
    _threads.numba_started = lambda: True  # Numba starts with the narrowing
seconds = [time.perf_counter() - t0]  # the import, then the first and the second count
for _ in range(2):
    t = time.perf_counter()
    n = tricount.count((src, dst), backend="gpu").n_triangles
    seconds.append(time.perf_counter() - t)
print(json.dumps(seconds + [n]))
"""


def cold(rows, scale: int, out: Path, rounds: int = 3):
    """Fresh processes' first and second counts, as shipped and narrowed (--cold)."""
    import subprocess
    import tempfile

    src, dst = rmat(scale, 16, seed=1)
    with tempfile.TemporaryDirectory(dir=out) as tmp:
        paths = [str(Path(tmp) / f"{side}.npy") for side in ("src", "dst")]
        np.save(paths[0], src)
        np.save(paths[1], dst)
        seen = {"as shipped": [], "narrowed": []}
        for i in range(rounds + 1):  # the first round compiles (and is dropped)
            for mode in seen:
                got = json.loads(subprocess.run(
                    [sys.executable, "-c", COLD_RUN, *paths, mode.split()[0]],
                    check=True, capture_output=True, text=True).stdout.splitlines()[-1])
                if i:
                    seen[mode].append(got)
    for mode, runs in seen.items():
        firsts = sorted(r[1] for r in runs)
        seconds = sorted(r[2] for r in runs)
        rows.notes.append(
            f"R-MAT {scale}, fresh processes ({mode}, {rounds} each): first count "
            f"{firsts[0]:.3f}-{firsts[-1]:.3f} s, second {seconds[0]:.3f}-{seconds[-1]:.3f} s, "
            f"count {runs[0][3]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scales", type=int, nargs="+", default=[24, 25, 26])
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--host-max", type=int, default=24,
                    help="the largest scale whose host build is timed (slow: one trial)")
    ap.add_argument("--small", action="store_true", help="the host/device bound, R-MAT 14-18")
    ap.add_argument("--tables", action="store_true",
                    help="the lines as an (m, 2) array and a DataFrame too")
    ap.add_argument("--cold", type=int, default=None, metavar="SCALE",
                    help="fresh processes' first counts, as shipped and narrowed")
    ap.add_argument("--out", type=Path, default=Path("."))
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rows = Rows(args.out)
    if args.cold is not None:
        cold(rows, args.cold, args.out)
    load_numba()  # the narrowing's condition: Numba started in this process
    cp = cupy()
    n_gpus = cp.cuda.runtime.getDeviceCount()
    warm = rmat(16, 16, seed=1)
    tricount.count(warm, backend="gpu")
    if n_gpus > 1:
        tricount.count(warm, devices="all")
    if args.small:
        small_bound(rows, args.trials)
    for scale in args.scales:
        one_scale(rows, scale, args, n_gpus)
        free_pools()
    rows.write(environment("A user's count from NumPy edge arrays on GPUs "
                           "(benchmarks/host_edges_gpu.py)"))


if __name__ == "__main__":
    main()
