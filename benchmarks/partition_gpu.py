"""Partitioned counting on GPUs (issue 21): in memory against in parts, one GPU against several, past
one GPU's memory, and on a Dask cluster. Every count verified; every time beside its memory peaks.

Sections (``--sections``, default all of them; ``--skip`` drops some; ``--scales``
replaces a section's default scales, so one call can take one section and one scale):

a   R-MAT 24 25 26 (graph500 parameters, edge factor 16, seed 1), the graph in host
    memory: the in-memory GPU count (``tricount.gpu.engine.count``: copy, preparation,
    kernel) against the partitioned count (``tricount.partition.gpu.count_gpu``) under
    a quarter of the in-memory count's peak device memory, k chosen by the plan and
    k = ``--forced-k``. Target: at most 1.5x the in-memory time, the same count.
b   R-MAT 25 26 in host memory: ``devices="all"`` (and two devices, on a host of more)
    against one device, end to end
    (from the host arrays to the count) and kernel (the slowest device's kernel
    seconds), with the per-device split (pieces, busy and kernel seconds, bytes
    copied, peak memory) and the slowest device over the mean. Target: >= 1.9x on two
    H100s. The in-memory count of one device beside it.
c   R-MAT 27 28 from a ``.tcsr`` (reading included) and from host arrays, each with
    the plan's k and one more, and on a host of several GPUs with ``devices="all"`` from
    both, which must all agree. The file is written by
    ``tricount generate rmat --device gpu -o FILE`` (the streaming generator; a
    note says how long it took, or why it could not be written). Target: R-MAT 28
    in <= 60 s from the file on one H100.
d   R-MAT 26 28 from a rank-ordered ``.tcsr``: a Dask ``LocalCUDACluster`` (one
    worker per GPU, dask-cuda) against ``devices="all"``, ``--trials`` of each
    interleaved after one of each on a small file, the overhead stated (goal <= 10 %)
    with both counts' phases (read, prepare, plan, count) and the pieces per worker.
    The ranked file is written once (``prepare_ranked(..., backend="gpu")``).

Device memory: a CuPy memory hook over every pool allocation (the in-memory count),
the executor's per-device peaks (its own hooks) plus the graph's arrays already on
the device. Host memory: the process's resident set sampled every 10 ms (psutil;
``ru_maxrss`` without it), the peak during the row. Times: one untimed warm-up,
then ``--trials`` trials (best and median); the largest graphs one trial.

Writes ``partition_gpu.md`` (a table per section, the machine and versions on top)
and ``partition_gpu.jsonl`` (one object per row) into ``--out`` (default ``$OUT``).

    python benchmarks/partition_gpu.py --sections a --scales 24 25 26
    python benchmarks/partition_gpu.py --sections b
    python benchmarks/partition_gpu.py --sections c --scales 27
    python benchmarks/partition_gpu.py --sections d --scales 26
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path

import numpy as np

import tricount
from tricount.bench.gpu_timer import KernelTimer
from tricount.generate import rmat
from tricount.gpu.device import cupy, live_memory_hook
from tricount.io import load_graph
from tricount.partition import prepare_ranked
from tricount.partition.gpu import count_gpu

SECTIONS = ("a", "b", "c", "d")
#: Counts on record (issue 21: R-MAT 26 counted on one H100 by the in-memory engine).
KNOWN = {26: 49_175_308_653}
DEFAULT_SCALES = {"a": [24, 25, 26], "b": [25, 26], "c": [27, 28], "d": [26, 28]}
GIB = 2**30


class HostPeak:
    """The process's peak resident set while inside (sampled every 10 ms)."""

    def __enter__(self):
        try:
            import psutil

            self._proc = psutil.Process()
        except ImportError:
            self._proc = None
        self.peak = self._rss()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _rss(self) -> int:
        if self._proc is None:
            return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        return int(self._proc.memory_info().rss)

    def _sample(self):
        while not self._stop.wait(0.01):
            self.peak = max(self.peak, self._rss())

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._rss())
        return False


def sync_all():
    cp = cupy()
    for d in range(cp.cuda.runtime.getDeviceCount()):
        with cp.cuda.Device(d):
            cp.cuda.Device().synchronize()


def free_pools():
    cp = cupy()
    for d in range(cp.cuda.runtime.getDeviceCount()):
        with cp.cuda.Device(d):
            cp.get_default_memory_pool().free_all_blocks()
    cp.get_default_pinned_memory_pool().free_all_blocks()


def host_rmat(scale: int):
    """R-MAT ``scale`` built on the GPU (fused build), then moved to host memory."""
    cp = cupy()
    src, dst = rmat(scale, 16, seed=1, xp=cp)
    graph = tricount.Graph.from_edges(src, dst, name=f"rmat-s{scale}")
    del src, dst
    host = graph.to_device(np)
    del graph
    free_pools()
    return host


def trials(fn, n: int):
    """``(results, seconds)``: one untimed warm-up, then ``n`` synchronized runs."""
    fn()
    sync_all()
    out, seconds = [], []
    for _ in range(n):
        t0 = time.perf_counter()
        out.append(fn())
        sync_all()
        seconds.append(time.perf_counter() - t0)
    return out, seconds


def device_peak(report) -> int:
    """The largest device's peak: the count's own arrays plus the graph's already there."""
    return max(d["peak_bytes"] + d.get("held_bytes", 0) for d in report.devices)


def gib(b) -> str:
    return f"{b / GIB:.2f}"


class Tables:
    """Rows per section, written as Markdown tables and JSON lines."""

    COLUMNS = ("scale", "edges", "run", "sub-problems", "devices", "device peak GiB",
               "host peak GiB", "best s", "median s", "vs base", "count", "verified by")
    #: Section b's rows also say how much faster, end to end and in the kernels.
    EXTRA = {"b": ("end-to-end speed-up", "efficiency", "kernel s (slowest device)",
                   "kernel speed-up")}

    def __init__(self, out: Path):
        self.out = out
        self.rows = {s: [] for s in SECTIONS}
        self.notes = {s: [] for s in SECTIONS}

    def add(self, section: str, **row):
        self.rows[section].append(row)
        with open(self.out / "partition_gpu.jsonl", "a") as f:
            f.write(json.dumps(dict(row, section=section), default=str) + "\n")
        print(json.dumps(dict(row, section=section), default=str), flush=True)

    def note(self, section: str, text: str):
        self.notes[section].append(text)
        print(f"[{section}] {text}", flush=True)

    def write(self, header: str):
        titles = {"a": "a. in memory against in parts under a quarter of the memory",
                  "b": "b. all GPUs against one, from host arrays",
                  "c": "c. past one GPU's memory: from a .tcsr and from host arrays",
                  "d": "d. Dask LocalCUDACluster against devices=\"all\""}
        lines = [header, ""]
        for s in SECTIONS:
            if not self.rows[s] and not self.notes[s]:
                continue
            columns = self.COLUMNS + self.EXTRA.get(s, ())
            lines += [f"## {titles[s]}", "", "| " + " | ".join(columns) + " |",
                      "|" + "|".join("--:" if c not in ("run", "verified by") else "---"
                                     for c in columns) + "|"]
            for r in self.rows[s]:
                lines.append("| " + " | ".join(str(r.get(c, "")) for c in columns) + " |")
            lines += [""] + [f"- {n}" for n in self.notes[s]] + [""]
        (self.out / "partition_gpu.md").write_text("\n".join(lines))


def row(scale, graph_edges, run, report, seconds, count, verified, base=None, host_peak=0,
        dev_peak=None):
    best, median = min(seconds), statistics.median(seconds)
    return {"scale": scale, "edges": graph_edges, "run": run,
            "sub-problems": report.n_subproblems if report is not None else 1,
            "devices": len(report.devices) if report is not None else 1,
            "device peak GiB": gib(dev_peak if dev_peak is not None else device_peak(report)),
            "host peak GiB": gib(host_peak), "best s": f"{best:.3f}",
            "median s": f"{median:.3f}",
            "vs base": f"{best / base:.2f}x" if base else "", "count": count,
            "verified by": verified}


def on_record(scale: int, n: int) -> str:
    """How an in-memory count is checked: the count on record, else it is the reference."""
    if scale not in KNOWN:
        return "the rows below are checked against it"
    return "= the count on record" if KNOWN[scale] == n else f"MISMATCH (on record {KNOWN[scale]})"


def device_split(tables, section, scale, report, label):
    """The per-device split of a several-GPU count, as a note."""
    parts = [f"{d['device']}: {d['items']} pieces, busy {d['busy_s']:.3f} s, kernel "
             f"{(d['kernel_s'] or 0):.3f} s, {gib(d['bytes_copied'])} GiB copied, peak "
             f"{gib(d['peak_bytes'] + d.get('held_bytes', 0))} GiB" for d in report.devices]
    balance, kernel = report.device_balance(), report.device_balance("kernel_s")
    tables.note(section, f"R-MAT {scale} {label}: " + "; ".join(parts)
                + f"; slowest over mean: busy {balance or 0:.3f}, kernel {kernel or 0:.3f}")
    steps = {}  # the devices' shared preparation, step by step: the slowest device's seconds
    for d in report.devices:
        for what, seconds in d.get("prepare_steps", {}).items():
            steps[what] = max(steps.get(what, 0.0), seconds)
    if steps:
        tables.note(section, f"R-MAT {scale} {label} preparation steps (slowest device, ms): "
                    + ", ".join(f"{what} {1e3 * s:.1f}" for what, s in steps.items()))


# -- sections --------------------------------------------------------------------------------


def in_memory(tables, section: str, scale: int, graph, args) -> tuple[int, int, float]:
    """The in-memory GPU count from host arrays (copy, preparation, kernel) as a row:
    ``(count, peak device bytes, best seconds)``."""
    from tricount.gpu.engine import count as engine_count

    hook = live_memory_hook(f"bench-{section}")
    with HostPeak() as host, hook:
        results, seconds = trials(lambda: engine_count(graph), args.trials)
    expected = results[0].n_triangles
    tables.add(section, **row(scale, graph.n_edges, "in memory, one GPU (engine, from host)",
                              None, seconds, expected, on_record(scale, expected),
                              host_peak=host.peak, dev_peak=hook.peak))
    return expected, hook.peak, min(seconds)


def section_a(tables, scales, args):
    for scale in scales:
        graph = host_rmat(scale)
        m = graph.n_edges
        expected, in_memory_peak, base = in_memory(tables, "a", scale, graph, args)
        budget = in_memory_peak // 4
        if budget < 1:
            tables.note("a", f"R-MAT {scale}: no device memory peak was seen; not partitioned")
            continue
        for label, k in (("in parts, plan's k", None), (f"in parts, k={args.forced_k}",
                                                         args.forced_k)):
            free_pools()
            with HostPeak() as host:
                results, seconds = trials(
                    lambda: count_gpu(graph, partitions=k, max_memory=budget), args.trials)
            n, report = results[-1]
            tables.add("a", **row(scale, m, f"{label}, max_memory {gib(budget)} GiB", report,
                                  seconds, n, "= in memory" if n == expected else
                                  f"MISMATCH (in memory {expected})", base, host.peak))
            tables.note("a", f"R-MAT {scale} {label}: {report.reason}")
        graph = None  # the host arrays go before the next scale
        free_pools()


def section_b(tables, scales, args):
    n_gpus = cupy().cuda.runtime.getDeviceCount()
    for scale in scales:
        graph = host_rmat(scale)
        m = graph.n_edges
        expected = in_memory(tables, "b", scale, graph, args)[0]
        base = kernel_base = None
        runs = [("one GPU (devices=[0])", [0], 1)]
        if n_gpus > 2:
            runs.append(("two GPUs (devices=[0, 1])", [0, 1], 2))
        runs.append((f"all GPUs (devices='all', {n_gpus})", "all", n_gpus))
        for label, devices, n_devices in runs:
            free_pools()
            with HostPeak() as host:
                results, seconds = trials(
                    lambda: count_gpu(graph, devices=devices, timer=KernelTimer), args.trials)
            n, report = results[-1]
            kernel = report.timings.get("kernel_s")
            if base is None:
                base, kernel_base = min(seconds), kernel
            r = row(scale, m, label, report, seconds, n,
                    "= in memory" if n == expected else f"MISMATCH (in memory {expected})",
                    base, host.peak)
            r["end-to-end speed-up"] = f"{base / min(seconds):.2f}x"
            r["efficiency"] = f"{base / min(seconds) / n_devices:.0%}"
            r["kernel s (slowest device)"] = f"{kernel:.3f}" if kernel else ""
            r["kernel speed-up"] = f"{kernel_base / kernel:.2f}x" if kernel else ""
            tables.add("b", **r)
            device_split(tables, "b", scale, report, label)
            tables.note("b", f"R-MAT {scale} {label} phases (last run): " + ", ".join(
                f"{k[:-2]} {v:.3f}" for k, v in report.timings.items() if k.endswith("_s")))
        graph = None  # the host arrays go before the next scale
        free_pools()


def generate_tcsr(scale: int, path: Path, tables, section: str) -> bool:
    """Write R-MAT ``scale`` as a .tcsr with ``tricount generate rmat``; say how it went."""
    if path.exists():
        tables.note(section, f"R-MAT {scale}: {path} exists ({gib(path.stat().st_size)} GiB)")
        return True
    path.parent.mkdir(parents=True, exist_ok=True)
    # The streaming generator: R-MAT drawn on the GPU in chunks, built in bounded memory,
    # written to the file as it goes (tricount.prep.outofcore).
    cmd = [sys.executable, "-m", "tricount", "generate", "rmat", "--scale", str(scale),
           "--edge-factor", "16", "--seed", "1", "--device", "gpu", "-o", str(path)]
    t0 = time.perf_counter()
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=GENERATE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        tables.note(section, f"R-MAT {scale}: `{' '.join(cmd[1:])}` did not finish in "
                             f"{GENERATE_TIMEOUT_S} s; not counted")
        return False
    seconds = time.perf_counter() - t0
    if done.returncode != 0 or not path.exists():
        tables.note(section, f"R-MAT {scale}: `{' '.join(cmd[1:])}` failed (exit "
                             f"{done.returncode}: {done.stderr.strip()[-300:]}); not counted")
        return False
    tables.note(section, f"R-MAT {scale}: written by `{' '.join(cmd[1:])}` in {seconds:.1f} s "
                         f"({gib(path.stat().st_size)} GiB)")
    return True


#: `tricount generate` may take this long for one graph (the lead's calls last 10 minutes).
GENERATE_TIMEOUT_S = 420


def section_c(tables, scales, args):
    for scale in scales:
        path = Path(args.workdir) / f"rmat-s{scale}.tcsr"
        if not generate_tcsr(scale, path, tables, "c"):
            continue
        free_pools()
        with HostPeak() as host:
            t0 = time.perf_counter()
            n_file, report = count_gpu(str(path))
            seconds = time.perf_counter() - t0
        k = report.n_subproblems
        tables.add("c", **row(scale, report.graph["edges"], "from the .tcsr (reading included), "
                              "plan's k", report, [seconds], n_file, "see below",
                              host_peak=host.peak))
        tables.note("c", f"R-MAT {scale} from the file: {report.reason}; load "
                         f"{report.timings['load_s']:.1f} s, prepare "
                         f"{report.timings['prepare_s']:.1f} s, count "
                         f"{report.timings['count_s']:.1f} s")
        t0 = time.perf_counter()
        graph = load_graph(path)
        tables.note("c", f"R-MAT {scale}: read into host arrays in "
                         f"{time.perf_counter() - t0:.1f} s")
        counts = {}
        runs = [("from host arrays, plan's k", None, None)]
        if not args.no_extra_k:
            runs.append((f"from host arrays, k={k + 1}", k + 1, None))
        n_gpus = cupy().cuda.runtime.getDeviceCount()
        if n_gpus > 1:
            runs.append((f"from host arrays, all GPUs (devices='all', {n_gpus})", None, "all"))
            count_gpu(host_rmat(16), devices="all")  # every device's kernels loaded, untimed
        for label, kk, devices in runs:
            free_pools()
            with HostPeak() as host:
                t0 = time.perf_counter()
                n, rep = count_gpu(graph, partitions=kk, devices=devices)
                seconds = time.perf_counter() - t0
            counts[(rep.n_subproblems, len(rep.devices))] = n
            tables.add("c", **row(scale, graph.n_edges, label, rep, [seconds], n, "",
                                  host_peak=host.peak))
        graph = None  # the host arrays go before the file is counted on every GPU
        if n_gpus > 1:
            free_pools()
            with HostPeak() as host:
                t0 = time.perf_counter()
                n, rep = count_gpu(str(path), devices="all")
                seconds = time.perf_counter() - t0
            counts[("file", len(rep.devices))] = n
            tables.add("c", **row(scale, rep.graph["edges"], f"from the .tcsr (reading included), "
                                  f"all GPUs (devices='all', {n_gpus})", rep, [seconds], n, "",
                                  host_peak=host.peak))
        agree = len(set(counts.values()) | {n_file}) == 1
        described = " and ".join(f"k={kk} on {d} GPU(s)" if kk != "file" else f"the file on {d} GPUs"
                                 for kk, d in sorted(counts, key=str))
        for r in tables.rows["c"][-len(runs) - 1 - (n_gpus > 1):]:
            r["verified by"] = (f"{described} and the file on one agree"
                                if agree else f"DISAGREE: {counts}, file {n_file}")
        free_pools()


def section_d(tables, scales, args):
    try:
        import distributed
        from dask_cuda import LocalCUDACluster
    except ImportError as exc:
        tables.note("d", f"skipped: {exc} (carry the dask, distributed and dask-cuda wheels)")
        return
    n_gpus = cupy().cuda.runtime.getDeviceCount()
    k = args.dask_partitions  # None: the plan's choice, as devices="all" makes it
    with LocalCUDACluster(n_workers=n_gpus, threads_per_worker=1,
                          dashboard_address=":0") as cluster, distributed.Client(cluster) as client:
        warm = Path(args.workdir) / "rmat-s12.ranked.tcsr"
        if not warm.exists():
            prepare_ranked(tricount.Graph.from_edges(*rmat(12, 16, seed=1)), warm)
        # Both paths once on a small file: CUDA contexts, kernels, Numba caches, in the
        # driver and in every worker.
        count_gpu(str(warm), devices="all")
        tricount.count(str(warm), backend="dask", client=client, partitions=k)
        for scale in scales:
            ranked = ranked_file(scale, tables, args)
            if ranked is None:
                continue
            base, dask = [], []
            for _ in range(args.trials):  # interleaved, so both see the same machine
                free_pools()
                with HostPeak() as host:
                    t0 = time.perf_counter()
                    n_all, report = count_gpu(str(ranked), devices="all")
                    took = time.perf_counter() - t0
                base.append((took, report, host.peak))
                free_pools()
                with HostPeak() as host:
                    t0 = time.perf_counter()
                    result = tricount.count(str(ranked), backend="dask", client=client,
                                            partitions=k)
                    took = time.perf_counter() - t0
                dask.append((took, result, host.peak))
            seconds = [b[0] for b in base]
            tables.add("d", **row(scale, report.graph["edges"], "devices='all', from the "
                                  "ranked file", report, seconds, n_all, "",
                                  host_peak=max(b[2] for b in base)))
            d_seconds = [d[0] for d in dask]
            result = dask[-1][1]
            part = result.partition
            counts = {d[1].n_triangles for d in dask}
            tables.add("d", **{
                "scale": scale, "edges": result.graph["edges"],
                "run": f"Dask LocalCUDACluster ({n_gpus} workers), from the ranked file",
                "sub-problems": part["subproblems"], "devices": len(part.get("devices", [])),
                "device peak GiB": gib(max((d["peak_bytes"] + d.get("held_bytes", 0)
                                            for d in part.get("devices", [])), default=0)),
                "host peak GiB": gib(max(d[2] for d in dask)) + " (driver)",
                "best s": f"{min(d_seconds):.3f}",
                "median s": f"{statistics.median(d_seconds):.3f}",
                "vs base": f"{min(d_seconds) / min(seconds):.2f}x",
                "count": result.n_triangles,
                "verified by": "= devices='all'" if counts == {n_all} else
                f"MISMATCH ({sorted(counts)} against {n_all})"})
            overhead = 100 * (min(d_seconds) / min(seconds) - 1)
            median = 100 * (statistics.median(d_seconds) / statistics.median(seconds) - 1)
            tables.note("d", f"R-MAT {scale}: Dask overhead over devices='all' {overhead:.1f} % "
                             f"(best of {args.trials}; medians {median:.1f} %; goal <= 10 %)")
            tables.note("d", f"R-MAT {scale} devices='all' phases (best run): "
                             + phases(min(base, key=lambda b: b[0])[1].timings))
            best = min(dask, key=lambda d: d[0])[1].partition
            tables.note("d", f"R-MAT {scale} Dask phases (best run): "
                             + phases(best["timings"]) + f"; where {best['where']}; "
                             f"{best['pieces']} pieces: " + pieces_per_worker(best))
            for d in best.get("devices", []):
                tables.note("d", f"R-MAT {scale} Dask worker {d.get('worker')}: "
                                 f"{d['items']} pieces, busy {d['busy_s']:.3f} s, prepare "
                                 f"{d['prepare_s']:.3f} s, {gib(d['bytes_copied'])} GiB copied, "
                                 f"peak {gib(d['peak_bytes'] + d.get('held_bytes', 0))} GiB, "
                                 f"resident {d.get('resident')}")
            free_pools()


def ranked_file(scale: int, tables, args) -> Path | None:
    """R-MAT ``scale``'s rank-ordered .tcsr in ``--workdir``, written once (ordered on the GPU)."""
    plain = Path(args.workdir) / f"rmat-s{scale}.tcsr"
    ranked = Path(args.workdir) / f"rmat-s{scale}.ranked.tcsr"
    if ranked.exists():
        return ranked
    if scale <= 26:
        graph = host_rmat(scale)
    elif generate_tcsr(scale, plain, tables, "d"):
        graph = load_graph(plain)
    else:
        return None
    t0 = time.perf_counter()
    prepare_ranked(graph, ranked, backend="gpu")
    tables.note("d", f"R-MAT {scale}: rank-ordered .tcsr written in "
                     f"{time.perf_counter() - t0:.1f} s (ordered on the GPU)")
    del graph
    free_pools()
    return ranked


def phases(timings: dict) -> str:
    """A report's timings in the order the phases run (seconds)."""
    order = ("load_s", "prepare_s", "plan_s", "statistics_s", "others_ready_s", "count_s",
             "kernel_s", "release_s", "total_s")
    return ", ".join(f"{key[:-2]} {timings[key]:.3f}" for key in order if key in timings)


def pieces_per_worker(partition: dict) -> str:
    """Pieces, estimated work and count seconds per worker of a Dask count."""
    per = {}
    for s in partition["per_subproblem"]:
        w = per.setdefault(s["worker"], [0, 0, 0.0])
        w[0] += 1
        w[1] += s["estimated_work"]
        w[2] += s["block_s"] + s["count_s"]
    return "; ".join(f"{worker}: {n} pieces, work {work:,}, {sec:.3f} s"
                     for worker, (n, work, sec) in sorted(per.items()))


def environment(title: str = "Partitioned counting on GPUs (benchmarks/partition_gpu.py)") -> str:
    """The table's header: ``title``, the date, the machine and the versions, the command."""
    cp = cupy()
    names = []
    for d in range(cp.cuda.runtime.getDeviceCount()):
        props = cp.cuda.runtime.getDeviceProperties(d)
        name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
        names.append(f"{name} ({props['totalGlobalMem'] / GIB:.0f} GiB)")
    import numba

    return (f"# {title}\n\n"
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
            f"{len(names)} GPU(s): {', '.join(names)}; {os.cpu_count()} CPU cores; Python "
            f"{platform.python_version()}, NumPy {np.__version__}, Numba {numba.__version__}, "
            f"CuPy {cp.__version__}, CUDA runtime {cp.cuda.runtime.runtimeGetVersion()}.\n\n"
            f"Command: `python {' '.join(sys.argv)}`")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", nargs="+", choices=SECTIONS, default=list(SECTIONS))
    parser.add_argument("--skip", nargs="*", choices=SECTIONS, default=[])
    parser.add_argument("--scales", type=int, nargs="+",
                        help="R-MAT scales for every section run (default: each section's)")
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--forced-k", type=int, default=4)
    parser.add_argument("--no-extra-k", action="store_true",
                        help="section c: skip the count with one more sub-problem than the plan's")
    parser.add_argument("--dask-partitions", type=int, default=None,
                        help="Dask: force this many apex ranges (default: the plan's choice, "
                             "as devices='all' makes it)")
    parser.add_argument("--workdir", default=os.environ.get("TRICOUNT_WORKDIR",
                                                           "/tmp/tricount_partition"))
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "partition_out")))
    parser.add_argument("--clean", action="store_true",
                        help="remove --workdir's graph files at the end (default: keep them for "
                             "the next call on a warm machine)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    Path(args.workdir).mkdir(parents=True, exist_ok=True)
    tables = Tables(args.out)
    header = environment()
    run = {"a": section_a, "b": section_b, "c": section_c, "d": section_d}
    status = 0
    try:
        for s in args.sections:
            if s in args.skip:
                continue
            try:
                run[s](tables, args.scales or DEFAULT_SCALES[s], args)
            except Exception as exc:  # one section's failure is reported, the rest still run
                traceback.print_exc()
                tables.note(s, f"FAILED: {type(exc).__name__}: {exc}")
                status = 1
            tables.write(header)
    finally:
        tables.write(header)
        if args.clean:
            shutil.rmtree(args.workdir, ignore_errors=True)
    mismatches = [r for rows in tables.rows.values() for r in rows
                  if "MISMATCH" in str(r.get("verified by")) or
                  "DISAGREE" in str(r.get("verified by"))]
    return 4 if mismatches else status


if __name__ == "__main__":
    sys.exit(main())
