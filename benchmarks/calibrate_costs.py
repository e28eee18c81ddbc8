"""Measure the constants of tricount's cost model (``tricount/backends/costs.py``) on this machine.

    python benchmarks/calibrate_costs.py --cpu                 # any machine
    python benchmarks/calibrate_costs.py --gpu --json $OUT/costs.json   # a GPU machine

Prints each constant with what it was measured on, then a ``Costs(...)`` block to paste
into ``COSTS`` (with the machine and date for ``PROVENANCE``); ``--json`` also writes the
fields, which ``TRICOUNT_COSTS=file.json`` makes tricount use without editing the code.

Fixed costs are measured in fresh interpreters (``--repeat`` times, median), each timing
only its step with ``time.perf_counter`` and ``time.process_time``: starting Numba
(``tricount._threads.load_numba``), the first call of a kernel from Numba's disk cache and
with an empty cache (a temporary ``NUMBA_CACHE_DIR``), ``import scipy.sparse``; on the GPU
``import cupy`` with a first operation, the first count of a process with CuPy's disk
cache warm (kernels loaded) and empty (a temporary ``CUPY_CACHE_DIR``: NVRTC compiles).
Rates are measured in this process, warm, on the shared graphs (``--data``) and R-MAT
graphs (``--scales``), as medians of ``--repeat``: per byte (decompress, parse with io's
Numba parser or its NumPy parser), per line (io's Numba build, the NumPy build of the
NumPy parser's graphs), per edge (the NumPy and the parallel orientations; the bitmap,
SpGEMM and NumPy counts, fitted as seconds per edge at mean degree 16 plus a slope per
unit of mean degree), and on the GPU per byte copied, per entry built on the device, and the
count from a built graph on the device (a fixed cost plus a rate per edge). The wall
clock is what the model predicts; the CPU seconds are printed beside it because a
shared machine's wall clock includes other jobs.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import gzip
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = os.environ.get("TRICOUNT_DATA", str(ROOT.parent / "shared" / "data" / "graphs"))

#: A fresh interpreter runs this prelude, then one snippet that prints "wall cpu".
PRELUDE = """
import time, sys
import numpy as np
import tricount
def timed(f):
    w, c = time.perf_counter(), time.process_time()
    f()
    print(time.perf_counter() - w, time.process_time() - c)
"""

#: name: (snippet, environment additions, what it measures)
FIXED_CPU = {
    "numba_start_s": ("from tricount._threads import load_numba; timed(load_numba)", {},
                      "import numba + fill its CPU target (the BLAS probe deferred)"),
    "numba_load_7": ("""
from tricount._threads import load_numba; load_numba()
from tricount.prep.orient import orient_upper
from tricount.cpu.bitmap import count_bitmap
g = tricount.Graph.from_edges([0, 0, 1], [1, 2, 2])
timed(lambda: count_bitmap(orient_upper(g.upper(), g.degrees, "rank", parallel=True)))
""", {}, "first call of the rank orientation and the bitmap count (7 kernels), cached"),
    "numba_compile_7": (None, {"NUMBA_CACHE_DIR": "<empty>"},
                        "the same 7 kernels with an empty Numba cache"),
    "numba_compile_serial_3": ("""
from tricount._threads import load_numba; load_numba()
from tricount.cpu.bitmap import count_bitmap
from tricount.prep._parallel import on_calling_thread
g = tricount.Graph.from_edges([0, 0, 1], [1, 2, 2])
def serial():
    with on_calling_thread(True):
        count_bitmap(g.upper())
timed(serial)
""", {"NUMBA_CACHE_DIR": "<empty>"},
                               "the bitmap count's 3 serial twins with an empty Numba cache"),
    "scipy_sparse_s": ("timed(lambda: __import__('scipy.sparse'))", {}, "import scipy.sparse"),
}
FIXED_CPU["numba_compile_7"] = (FIXED_CPU["numba_load_7"][0],) + FIXED_CPU["numba_compile_7"][1:]

FIXED_GPU = {
    "gpu_start_s": ("""
def start():
    import tricount.gpu
    tricount.gpu.probe()  # as a count does: the context made on a thread while CuPy imports
    import cupy
    cupy.zeros(1).sum().item()
timed(start)
""", {}, "tricount.gpu.probe() + the first operation (CuPy, context, memory pool)"),
    "gpu_first_count": ("""
import cupy
from tricount.generate import rmat
from tricount.gpu.engine import count
cupy.zeros(1).sum().item()
g = tricount.Graph.from_edges(*rmat(10, 16, seed=1)).to_device(cupy)
timed(lambda: count(g))
timed(lambda: count(g))
""", {}, "the first count of a process (kernels from CuPy's disk cache), then the second"),
    "gpu_compile_count": (None, {"CUPY_CACHE_DIR": "<empty>"},
                          "the first count with an empty CuPy cache (NVRTC compiles)"),
}
FIXED_GPU["gpu_compile_count"] = (FIXED_GPU["gpu_first_count"][0],) + \
    FIXED_GPU["gpu_compile_count"][1:]


def fresh(snippet: str, env_extra: dict, repeat: int) -> list[list[tuple[float, float]]]:
    """Run ``snippet`` in ``repeat`` fresh interpreters; each returns its printed
    ``(wall, cpu)`` lines."""
    runs = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix="tc-calib-") as empty:
            env = dict(os.environ, PYTHONPATH=os.pathsep.join(
                filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")])))
            env.update({k: (empty if v == "<empty>" else v) for k, v in env_extra.items()})
            out = subprocess.run([sys.executable, "-c", PRELUDE + snippet], env=env,
                                 capture_output=True, text=True, check=True).stdout
        runs.append([tuple(map(float, line.split())) for line in out.splitlines() if line])
    return runs


def median_pair(runs, line=0) -> tuple[float, float]:
    return (statistics.median(r[line][0] for r in runs),
            statistics.median(r[line][1] for r in runs))


def best_of(f, repeat: int) -> float:
    """The median wall seconds of ``repeat`` calls (after one warm-up)."""
    f()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def fit_rate(sizes, seconds) -> float:
    """Seconds per unit through the origin, least squares."""
    x, y = np.asarray(sizes, float), np.asarray(seconds, float)
    return float((x * y).sum() / (x * x).sum())


def fit_count(edges, degrees, seconds, degree_ref=16.0) -> tuple[float, float]:
    """``t / m = a + b (d - d_ref)`` by least squares: ``(a, b)``."""
    m, d, t = (np.asarray(v, float) for v in (edges, degrees, seconds))
    a, b = np.linalg.lstsq(np.stack([np.ones_like(d), d - degree_ref], 1), t / m, rcond=None)[0]
    return float(a), float(b)


def graphs(data: Path, scales):
    """``(name, CSRGraph, path or None)``: the shared graphs of at least 10,000 edges and
    the R-MAT scales."""
    import tricount
    from tricount.generate import rmat, rmat_name

    for path in sorted(data.glob("*.txt.gz")):
        g = tricount.load_graph(path)
        if g.n_edges >= 10_000:
            yield path.name.split(".")[0], g, path
    for scale in scales:
        yield rmat_name(scale, 16, 1), tricount.Graph.from_edges(*rmat(scale, 16, seed=1)), None


def measure_cpu(args, report) -> dict:
    import tricount
    from tricount.cpu.bitmap import count_bitmap
    from tricount.cpu.spgemm import count_spgemm
    from tricount.cpu.wedge_numpy import count_wedges_numpy
    from tricount.io import read_graph
    from tricount.prep.orient import orient_by_degree, orient_upper

    found = {}
    for name, (snippet, env, what) in FIXED_CPU.items():
        wall, cpu = median_pair(fresh(snippet, env, args.repeat))
        report(name, wall, cpu, what)
        found[name] = wall
    found["numba_load_s"] = found.pop("numba_load_7") / 7
    found["numba_compile_s"] = found.pop("numba_compile_7") / 7
    found["numba_compile_serial_s"] = found.pop("numba_compile_serial_3") / 3
    rows = {k: [] for k in ("inflate", "parse", "parse_np", "build", "build_np", "orient_np",
                            "orient_par", "bitmap", "spgemm", "numpy_count")}
    for name, g, path in graphs(Path(args.data), args.scales):
        m, d = g.n_edges, 2 * g.n_edges / g.n_vertices
        if path is not None:
            raw = path.read_bytes()
            text = gzip.decompress(raw)
            rows["inflate"].append((len(text), best_of(lambda: gzip.decompress(raw), args.repeat)))
            for parser, parse, build in (("numba", "parse", "build"),
                                         ("numpy", "parse_np", "build_np")):
                loaded = [read_graph(path, parser=parser).timings
                          for _ in range(args.repeat + 1)][1:]
                load = statistics.median(t["load_s"] for t in loaded) - rows["inflate"][-1][1]
                rows[parse].append((len(text), load))
                rows[build].append((m, statistics.median(t["build_s"] for t in loaded)))
        lo, hi = g.edges()
        rows["orient_np"].append((m, best_of(
            lambda: orient_by_degree(lo, hi, g.n_vertices, g.degrees), args.repeat)))
        ranked = orient_upper(g.upper(), g.degrees, "rank", parallel=True)
        rows["orient_par"].append((m, best_of(
            lambda: orient_upper(g.upper(), g.degrees, "rank", parallel=True), args.repeat)))
        rows["bitmap"].append((m, d, best_of(lambda: count_bitmap(ranked), args.repeat)))
        if m <= args.spgemm_max_edges:
            oriented = g.oriented()
            rows["spgemm"].append((m, d, best_of(lambda: count_spgemm(oriented), args.repeat)))
            rows["numpy_count"].append((m, d, best_of(lambda: count_wedges_numpy(oriented),
                                                      args.repeat)))
        print(f"  measured {name} ({m} edges, mean degree {d:.1f})", file=sys.stderr)
    for key, field, what in (
            ("inflate", "inflate_s_per_byte", "gzip, per output byte"),
            ("parse", "parse_numba_s_per_byte", "io's Numba parser, per byte"),
            ("parse_np", "parse_numpy_s_per_byte", "io's NumPy parser, per byte"),
            ("build", "build_numba_s_per_line", "io's build, per line"),
            ("build_np", "build_numpy_s_per_line", "io's NumPy build, per line"),
            ("orient_np", "orient_numpy_s_per_edge", "orient_by_degree (NumPy), per edge"),
            ("orient_par", "orient_parallel_s_per_edge", "the parallel rank orientation")):
        if rows[key]:
            found[field] = fit_rate(*zip(*rows[key]))
            report(field, found[field], None, what)
    for key in ("bitmap", "spgemm", "numpy_count"):
        if len(rows[key]) >= 2:
            a, b = fit_count(*zip(*rows[key]))
            found[f"{key}_s_per_edge"], found[f"{key}_s_per_edge_per_degree"] = a, b
            report(f"{key}_s_per_edge", a, None, f"{key} count per edge at mean degree 16")
            report(f"{key}_s_per_edge_per_degree", b, None, "its slope per unit of degree")
    import numba

    found["cpu_threads"] = numba.get_num_threads()
    return found


def measure_gpu(args, report) -> dict:
    import cupy

    import tricount
    from tricount.generate import rmat
    from tricount.gpu.engine import count

    found = {}
    wall, cpu = median_pair(fresh(*FIXED_GPU["gpu_start_s"][:2], args.repeat))
    report("gpu_start_s", wall, cpu, FIXED_GPU["gpu_start_s"][2])
    found["gpu_start_s"] = wall
    warm = fresh(*FIXED_GPU["gpu_first_count"][:2], args.repeat)
    first, second = median_pair(warm, 0)[0], median_pair(warm, 1)[0]
    found["gpu_first_use_s"] = first - second
    report("gpu_first_use_s", first - second, None, "first count of a process minus the second")
    cold = fresh(*FIXED_GPU["gpu_compile_count"][:2], 1)
    found["gpu_compile_s"] = median_pair(cold, 0)[0] - first
    report("gpu_compile_s", found["gpu_compile_s"], None, "empty CuPy cache minus warm cache")
    host = np.ones(1 << 25, dtype=np.int64)  # 256 MiB
    device = cupy.empty_like(host)

    def copy():
        device.set(host)
        cupy.cuda.get_current_stream().synchronize()

    found["gpu_copy_s_per_byte"] = best_of(copy, args.repeat) / host.nbytes
    report("gpu_copy_s_per_byte", found["gpu_copy_s_per_byte"], None, "host to device, pageable")
    builds, counts = [], []
    for scale in args.gpu_scales:
        src, dst = (cupy.asarray(a) for a in rmat(scale, 16, seed=1))
        both = (cupy.concatenate([src, dst]), cupy.concatenate([dst, src]))

        def build():
            tricount.Graph.from_edges(*both)
            cupy.cuda.get_current_stream().synchronize()

        builds.append((int(both[0].size), best_of(build, args.repeat)))
        g = tricount.Graph.from_edges(*both)
        counts.append((g.n_edges, best_of(lambda: count(g), args.repeat)))
    for name in args.gpu_graphs:
        g = tricount.load_graph(Path(args.data) / f"{name}.txt.gz").to_device(cupy)
        counts.append((g.n_edges, best_of(lambda: count(g), args.repeat)))
    found["gpu_build_s_per_entry"] = fit_rate(*zip(*builds))
    report("gpu_build_s_per_entry", found["gpu_build_s_per_entry"], None,
           "CSRGraph.from_edges on device arrays, per entry")
    m, t = (np.asarray(v, float) for v in zip(*counts))
    rate, fixed = np.polyfit(m, t, 1)
    found["gpu_count_fixed_s"], found["gpu_count_s_per_edge"] = float(max(fixed, 0)), float(rate)
    report("gpu_count_fixed_s", found["gpu_count_fixed_s"], None, "engine.count from a built "
           "graph on the device: the fixed part")
    report("gpu_count_s_per_edge", rate, None, "... and per edge")
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpu", action="store_true", help="measure the CPU constants")
    parser.add_argument("--gpu", action="store_true", help="measure the GPU constants")
    parser.add_argument("--data", default=DEFAULT_DATA)
    parser.add_argument("--scales", type=int, nargs="*", default=[12, 14, 16, 18])
    parser.add_argument("--gpu-scales", type=int, nargs="*", default=[16, 18, 21, 24])
    parser.add_argument("--gpu-graphs", nargs="*", default=["karate", "email-Enron",
                                                             "soc-Epinions1"])
    parser.add_argument("--spgemm-max-edges", type=int, default=4_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", help="also write the constants to this JSON file")
    args = parser.parse_args(argv)
    if not (args.cpu or args.gpu):
        parser.error("pass --cpu, --gpu or both")

    def report(name, value, cpu, what):
        extra = f" (CPU {cpu:.4g} s)" if cpu is not None else ""
        print(f"{name:32s} {value:.4g}{extra}   {what}", flush=True)

    found = {}
    if args.cpu:
        found.update(measure_cpu(args, report))
    if args.gpu:
        found.update(measure_gpu(args, report))
    from tricount.backends.costs import Costs

    known = {f.name for f in dataclasses.fields(Costs)}
    found = {k: v for k, v in found.items() if k in known}
    stamp = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    print(f"\n# {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"{platform.platform()}, {stamp}")
    print(f"# python benchmarks/calibrate_costs.py {' '.join(argv or sys.argv[1:])}")
    print("COSTS = dataclasses.replace(COSTS, " + ", ".join(
        f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in found.items()) + ")")
    if args.json:
        Path(args.json).write_text(json.dumps(dict(found, measured=stamp), indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
