"""The bounded build: R-MAT to ``.tcsr`` without the edge list, and its speed beside from_edges.

Two modes, each step in its own process (so that its peak resident memory is its own):

``--scales 26 27 28`` (the GPU machine): per scale, ``write_native_edges(path,
rmat_chunks(scale, xp=cupy))`` (graph500 parameters, edge factor 16, seed 1),
which is what ``tricount generate rmat --scale S --device gpu -o FILE.tcsr`` runs.
Reports wall and CPU seconds, each phase's seconds, peak host memory (the
process's maximum resident set), peak device memory (live CuPy allocations),
buckets, and the file's size; the file is read back (every block checksummed)
and deleted unless ``--keep``. At ``--verify-scale`` (default 26) the same graph
is also built in one piece (``CSRGraph.from_edges`` on the GPU) and written with
``write_native``: the two files must be identical, byte for byte (headers, so
every block's CRC-32, and payloads). Free disk space is checked before each
file (R-MAT 28's is about 18 GB).

``--cpu --scales 18 20`` (any machine): from NumPy edge arrays in memory,
``CSRGraph.from_edges`` against the bounded build with its keys in memory and
with its keys spilled to a file (CPU sorts, ``device="cpu"``), each after an
untimed small build that loads its compiled kernels; the build's NumPy memory
per input line (tracemalloc's peak) beside the times; the three graphs are
checked equal.

    python benchmarks/build_outofcore.py --scales 26 27 --out "$OUT/build_outofcore.md"
    python benchmarks/build_outofcore.py --scales 28 --out "$OUT/build_outofcore_28.md"
    python benchmarks/build_outofcore.py --cpu --scales 18 20 --out results.md

Each line of results is also printed as JSON on stdout as soon as it is measured,
so a run cut short keeps what it measured. A small untimed run first compiles
and caches every kernel (Numba's and CUDA's), so no step pays for compiling.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

#: Bytes of free disk to keep beyond a file's size.
DISK_MARGIN = 2 << 30
#: Bytes compared at a time when two files are checked identical.
COMPARE_BYTES = 256 << 20


# -- children: one measured step each ------------------------------------------------------------

def _device_hook():
    from tricount.bench.device_memory import live_memory_hook

    return live_memory_hook()


def child_stream(scale: int, path: str, chunk_edges: int, device: str) -> dict:
    """Generate R-MAT ``scale`` in chunks straight into ``path`` (the bounded build)."""
    import contextlib

    from tricount.generate import rmat_chunks, rmat_name
    from tricount.io import load_graph, write_native_edges
    from tricount.prep.outofcore import BuildPlan

    xp = np
    hook = contextlib.nullcontext()
    if device == "gpu":
        import cupy

        xp, hook = cupy, _device_hook()
    source = rmat_chunks(scale, 16, seed=1, chunk_edges=chunk_edges, xp=xp)
    plan = BuildPlan(chunk_edges=chunk_edges, device=device)
    # Untimed: loads the compiled kernels into this process (a second or two).
    write_native_edges(path, rmat_chunks(8, 16, seed=1, xp=xp), plan=plan)
    t0, c0 = time.perf_counter(), time.process_time()
    with hook:
        built = write_native_edges(path, source, name=rmat_name(scale, 16, 1), plan=plan)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    t1 = time.perf_counter()
    g = load_graph(path)  # every block's CRC-32 and the CSR checked
    read_s = time.perf_counter() - t1
    assert (g.n_vertices, g.n_edges) == (built.n_vertices, built.n_edges)
    return {"step": "stream", "scale": scale, "lines": source.n_lines,
            "vertices": built.n_vertices, "edges": built.n_edges,
            "loops_dropped": built.self_loops_dropped,
            "duplicates_dropped": built.duplicates_dropped, "wall_s": round(wall, 2),
            "cpu_s": round(cpu, 2), "phases_s": built.note["seconds"],
            "buckets": built.note["buckets"], "sort_device": built.note["device"],
            "keys_in_memory": built.note["keys_in_memory"],
            "spilled_gb": round(built.note["spilled_bytes"] / 1e9, 2),
            "file_gb": round(os.path.getsize(path) / 1e9, 3), "read_back_s": round(read_s, 2),
            "device_peak_gb": _peak(hook)}


def child_memory(scale: int, path: str) -> dict:
    """Generate R-MAT ``scale`` whole on the GPU, build it in one piece, write it."""
    import cupy

    from tricount.generate import rmat, rmat_name
    from tricount.graph import CSRGraph
    from tricount.io import write_native

    hook = _device_hook()
    t0, c0 = time.perf_counter(), time.process_time()
    with hook:
        src, dst = rmat(scale, 16, seed=1, xp=cupy)
        g = CSRGraph.from_edges(src, dst, name=rmat_name(scale, 16, 1))
        del src, dst
        path_taken = g.build["path"]
        write_native(path, g)
    return {"step": "in-memory", "scale": scale, "build_path": path_taken,
            "wall_s": round(time.perf_counter() - t0, 2),
            "cpu_s": round(time.process_time() - c0, 2), "edges": g.n_edges,
            "file_gb": round(os.path.getsize(path) / 1e9, 3), "device_peak_gb": _peak(hook)}


def child_cpu(scale: int, how: str, spill_dir: str) -> dict:
    """R-MAT ``scale`` from NumPy arrays: ``from_edges``, or the bounded build on the CPU."""
    from tricount.generate import rmat
    from tricount.graph import CSRGraph
    from tricount.prep.outofcore import ArrayChunks, BuildPlan, build_bounded

    import tracemalloc

    src, dst = rmat(scale, 16, seed=1)
    plan = BuildPlan(device="cpu", spill=how == "spilled", spill_dir=spill_dir)

    def build(s, d):
        if how == "from_edges":
            g = CSRGraph.from_edges(s, d)
            return g.indptr, g.indices, {}
        built = build_bounded(ArrayChunks(s, d, plan.chunk_edges), plan=plan)
        return built.indptr, built.indices, built.note

    build(src[:1000], dst[:1000])  # untimed: loads the compiled kernels (about a second)
    tracemalloc.start()
    t0, c0 = time.perf_counter(), time.process_time()
    indptr, indices, note = build(src, dst)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {"step": how, "scale": scale, "lines": int(src.shape[0]),
            "edges": int(indices.shape[0]), "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
            "phases_s": note.get("seconds"), "buckets": note.get("buckets"),
            "build_bytes_per_line": round(peak / src.shape[0], 1),
            "digest": _digest(indptr, indices)}


def _digest(*arrays) -> str:
    import hashlib

    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).view(np.uint8))
    return h.hexdigest()[:16]


def _peak(hook):
    peak = getattr(hook, "peak", None)
    return None if peak is None else round(peak / 1e9, 2)


# -- the parent: steps in child processes, checks, tables ---------------------------------------

def run_child(argv) -> dict:
    """Run one step in a fresh process; its JSON line plus its peak host memory."""
    proc = subprocess.Popen([sys.executable, __file__, "--child", *map(str, argv)],
                            stdout=subprocess.PIPE, text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"step {argv} failed with exit code {proc.returncode}")
    row = json.loads(out.strip().splitlines()[-1])
    row["host_peak_gb"] = round(usage.ru_maxrss * 1024 / 1e9, 2)
    return row


def same_files(a: Path, b: Path) -> bool:
    if a.stat().st_size != b.stat().st_size:
        return False
    with open(a, "rb") as fa, open(b, "rb") as fb:
        while True:
            x, y = fa.read(COMPARE_BYTES), fb.read(COMPARE_BYTES)
            if x != y:
                return False
            if not x:
                return True


def need_disk(folder: Path, scale: int, files: int) -> None:
    """Refuse to start a step whose files would not fit the disk."""
    lines = 16 << scale
    estimate = files * (4 * lines + 24 * (1 << scale))
    free = shutil.disk_usage(folder).free
    if estimate + DISK_MARGIN > free:
        raise SystemExit(f"R-MAT {scale}: about {estimate / 1e9:.1f} GB of files, "
                         f"{free / 1e9:.1f} GB free in {folder}; pass --dir on a larger disk")


def environment(device: str) -> dict:
    import numba

    env = {"date": datetime.date.today().isoformat(), "python": platform.python_version(),
           "numpy": np.__version__, "numba": numba.__version__, "cpus": os.cpu_count(),
           "host": platform.node()}
    try:
        from tricount.prep.outofcore import available_memory

        env["host_memory_available_gb"] = round((available_memory() or 0) / 1e9, 1)
    except Exception:
        pass
    if device == "gpu":
        import cupy

        props = cupy.cuda.runtime.getDeviceProperties(0)
        env.update(cupy=cupy.__version__, gpu=props["name"].decode(),
                   gpu_memory_gb=round(props["totalGlobalMem"] / 1e9, 1))
    return env


def gpu_runs(args, emit) -> list:
    folder = Path(args.dir or tempfile.mkdtemp(prefix="tricount-build-"))
    folder.mkdir(parents=True, exist_ok=True)
    # Untimed: compiles (and caches) every Numba and CUDA kernel both steps use.
    run_child(["stream", 12, folder / "warm-up.tcsr", 1 << 12, "gpu"])
    run_child(["memory", 12, folder / "warm-up.tcsr"])
    (folder / "warm-up.tcsr").unlink(missing_ok=True)
    rows = []
    for scale in args.scales:
        verify = scale == args.verify_scale
        need_disk(folder, scale, 2 if verify else 1)
        streamed = folder / f"rmat-{scale}.tcsr"
        try:
            row = run_child(["stream", scale, streamed, args.chunk_edges, "gpu"])
            emit(row)
            rows.append(row)
            if verify:
                whole = folder / f"rmat-{scale}-memory.tcsr"
                try:
                    mem = run_child(["memory", scale, whole])
                    t0 = time.perf_counter()
                    mem["identical_to_stream"] = same_files(streamed, whole)
                    mem["compare_s"] = round(time.perf_counter() - t0, 2)
                    emit(mem)
                    rows.append(mem)
                    if not mem["identical_to_stream"]:
                        raise SystemExit(f"R-MAT {scale}: the streamed file differs from the "
                                         "in-memory one")
                finally:
                    whole.unlink(missing_ok=True)
        finally:
            if not args.keep:
                streamed.unlink(missing_ok=True)
    return rows


def cpu_runs(args, emit) -> list:
    rows = []
    with tempfile.TemporaryDirectory(dir=args.dir) as spill:
        for scale in args.scales:
            group = []
            for how in ("from_edges", "bounded", "spilled"):
                row = run_child(["cpu", scale, how, spill])
                emit(row)
                group.append(row)
            if len({r["digest"] for r in group}) != 1:
                raise SystemExit(f"R-MAT {scale}: the builds disagree: {group}")
            rows += group
    return rows


def table(rows, env) -> str:
    keys = ["scale", "step", "lines", "edges", "buckets", "wall_s", "cpu_s", "phases_s",
            "host_peak_gb", "device_peak_gb", "build_bytes_per_line", "file_gb", "read_back_s",
            "identical_to_stream", "build_path"]
    keys = [k for k in keys if any(k in r and r[k] is not None for r in rows)]
    lines = [f"Environment: {json.dumps(env)}", "", "| " + " | ".join(keys) + " |",
             "|" + "---|" * len(keys)]
    for r in rows:
        cells = []
        for k in keys:
            v = r.get(k, "")
            if isinstance(v, dict):
                v = ", ".join(f"{p} {s:.1f}" for p, s in v.items())
            elif isinstance(v, int) and v > 9999:
                v = f"{v:,}"
            cells.append(str(v))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--child":
        step, rest = argv[1], argv[2:]
        if step == "stream":
            row = child_stream(int(rest[0]), rest[1], int(rest[2]), rest[3])
        elif step == "memory":
            row = child_memory(int(rest[0]), rest[1])
        else:
            row = child_cpu(int(rest[0]), rest[1], rest[2])
        print(json.dumps(row), flush=True)
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", type=int, nargs="+", required=True)
    parser.add_argument("--cpu", action="store_true",
                        help="compare from_edges and the bounded build on the CPU")
    parser.add_argument("--verify-scale", type=int, default=26)
    parser.add_argument("--chunk-edges", type=int, default=1 << 25)
    parser.add_argument("--dir", default=None, help="folder for the files (default: a "
                                                    "temporary folder)")
    parser.add_argument("--keep", action="store_true", help="keep the .tcsr files")
    parser.add_argument("--out", type=Path, default=None, help="markdown table of the results")
    args = parser.parse_args(argv)
    env = environment("cpu" if args.cpu else "gpu")

    def emit(row):
        print(json.dumps(row), flush=True)

    rows = cpu_runs(args, emit) if args.cpu else gpu_runs(args, emit)
    text = table(rows, env)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
