"""The short route's steps on a GPU machine: device time of the memset and of each of its
four kernels (CUDA events between them), and the host time of a count, for the real graphs.

    python benchmarks/small_route_steps.py [--trials 20] [--tasks-per-warp K ...]
        [--light-list L ...] [GRAPH ...]

Prints one line per graph: microseconds, medians of ``--trials`` after one warm-up, of
memset, degrees, orient, place (scan and scatter), count, their sum, and
``engine.count`` from a fresh ``CSRGraph`` on new device arrays (launched) and on the same
arrays (replayed); every count is checked against the CPU engine's. With
``--tasks-per-warp`` or ``--light-list``, every graph once per pair of values
(``small.TASKS_PER_WARP``, ``small.LIGHT_LIST``; the kernels compiled again for each),
the first column naming them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = os.environ.get("TRICOUNT_DATA", str(ROOT.parent / "shared" / "data" / "graphs"))
SMALL = ("email-Enron", "ego-Facebook", "ca-HepPh", "soc-Epinions1", "blogcatalog")
STEPS = ("memset", "degrees", "orient", "place", "count")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graphs", nargs="*", default=list(SMALL))
    parser.add_argument("--data", default=DEFAULT_DATA)
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--tasks-per-warp", type=int, nargs="*", default=[])
    parser.add_argument("--light-list", type=int, nargs="*", default=[])
    args = parser.parse_args()

    from tricount.gpu import small

    print("graph | " + " | ".join(f"{s} us" for s in STEPS) + " | device sum us | "
          "count new arrays us | count replayed us")
    tuned = bool(args.tasks_per_warp or args.light_list)
    for per_warp in args.tasks_per_warp or [small.TASKS_PER_WARP]:
        for light in args.light_list or [small.LIGHT_LIST]:
            small.TASKS_PER_WARP, small.LIGHT_LIST = per_warp, light
            small._KERNELS.clear()  # compiled again with this define
            small._WORKSPACES.clear()  # and no graph captured with the others
            for name in args.graphs:
                label = f"{name} ({per_warp} tasks a warp, light {light})" if tuned else name
                _graph(name, label, args)


def _graph(name: str, label: str, args) -> None:
    """One line of the table: ``name``'s steps and counts."""
    import cupy

    import tricount
    from tricount.gpu import engine, small
    from tricount.gpu.device import launch

    host = tricount.load_graph(Path(args.data) / f"{name}.txt.gz")
    expected = tricount.count_triangles(host, backend="cpu")
    dev = host.to_device(cupy)
    n, m = host.n_vertices, host.n_edges
    if engine.count(dev).n_triangles != expected:  # compiles, makes the workspace
        raise SystemExit(f"{label}: wrong count")
    kernels = small._kernels(cupy.cuda.runtime.getDevice(), dev.indices.dtype)
    space = small._WORKSPACES[cupy.cuda.runtime.getDevice()]
    stream = cupy.cuda.get_current_stream()
    per_step = {s: [] for s in STEPS}
    for _ in range(args.trials + 1):
        events = [cupy.cuda.Event() for _ in range(len(STEPS) + 1)]
        events[0].record(stream)
        cupy.cuda.runtime.memsetAsync(
            space.words.data.ptr, 0,
            4 * small.zeroed_words(n, m, tables=small.count_set(n) == "hash"), stream.ptr)
        events[1].record(stream)
        for i, step in enumerate(small.launches(kernels, dev.indptr, dev.indices, n, m,
                                                space)):
            launch(*step)
            events[i + 2].record(stream)
        stream.synchronize()
        for i, step in enumerate(STEPS):
            per_step[step].append(1e3 * cupy.cuda.get_elapsed_time(events[i], events[i + 1]))
    medians = [statistics.median(per_step[s][1:]) for s in STEPS]
    kept, launched, replayed, counts = [], [], [], set()
    for _ in range(args.trials):
        kept.append((dev.indptr.copy(), dev.indices.copy()))
        fresh = tricount.Graph.from_upper_csr(*kept[-1], n, vertex_ids=host.vertex_ids)
        stream.synchronize()
        t0 = time.perf_counter()
        counts.add(engine.count(fresh).n_triangles)
        launched.append(1e6 * (time.perf_counter() - t0))
        same = tricount.Graph.from_upper_csr(dev.indptr, dev.indices, n,
                                             vertex_ids=host.vertex_ids)
        t0 = time.perf_counter()
        counts.add(engine.count(same).n_triangles)
        replayed.append(1e6 * (time.perf_counter() - t0))
    if counts != {expected}:
        raise SystemExit(f"{label}: wrong counts {sorted(counts)}, expected {expected}")
    print(f"{label} | " + " | ".join(f"{v:.1f}" for v in medians) +
          f" | {sum(medians):.1f} | {statistics.median(launched):.1f} | "
          f"{statistics.median(replayed[2:]):.1f}", flush=True)


if __name__ == "__main__":
    main()
