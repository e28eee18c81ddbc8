"""The short route's steps on a GPU machine: device time of the memset and of each of its
six kernels (CUDA events between them), and the host time of a count, for the real graphs.

    python benchmarks/small_route_steps.py [--trials 20] [GRAPH ...]

Prints one line per graph: microseconds, medians of ``--trials`` after one warm-up, of
memset, degrees, orient, tile sums, offsets, scatter, count, their sum, and
``engine.count`` from a fresh ``CSRGraph`` on new device arrays (launched) and on the same
arrays (replayed).
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
STEPS = ("memset", "degrees", "orient", "tile sums", "offsets", "scatter", "count")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graphs", nargs="*", default=list(SMALL))
    parser.add_argument("--data", default=DEFAULT_DATA)
    parser.add_argument("--trials", type=int, default=20)
    args = parser.parse_args()

    import cupy

    import tricount
    from tricount.gpu import engine, small
    from tricount.gpu.device import launch

    print("graph | " + " | ".join(f"{s} us" for s in STEPS) + " | device sum us | "
          "count new arrays us | count replayed us")
    for name in args.graphs:
        host = tricount.load_graph(Path(args.data) / f"{name}.txt.gz")
        dev = host.to_device(cupy)
        n, m = host.n_vertices, host.n_edges
        engine.count(dev)  # compiles, makes the workspace
        kernels = small._kernels(cupy.cuda.runtime.getDevice(), dev.indices.dtype)
        space = small._WORKSPACES[cupy.cuda.runtime.getDevice()]
        stream = cupy.cuda.get_current_stream()
        per_step = {s: [] for s in STEPS}
        for _ in range(args.trials + 1):
            events = [cupy.cuda.Event() for _ in range(len(STEPS) + 1)]
            events[0].record(stream)
            cupy.cuda.runtime.memsetAsync(space.words.data.ptr, 0,
                                          4 * small.zeroed_words(n, m), stream.ptr)
            events[1].record(stream)
            for i, step in enumerate(small.launches(kernels, dev.indptr, dev.indices, n, m,
                                                    space)):
                launch(*step)
                events[i + 2].record(stream)
            stream.synchronize()
            for i, step in enumerate(STEPS):
                per_step[step].append(1e3 * cupy.cuda.get_elapsed_time(events[i], events[i + 1]))
        medians = [statistics.median(per_step[s][1:]) for s in STEPS]
        kept, launched, replayed = [], [], []
        for _ in range(args.trials):
            kept.append((dev.indptr.copy(), dev.indices.copy()))
            fresh = tricount.Graph.from_upper_csr(*kept[-1], n, vertex_ids=host.vertex_ids)
            stream.synchronize()
            t0 = time.perf_counter()
            engine.count(fresh)
            launched.append(1e6 * (time.perf_counter() - t0))
            same = tricount.Graph.from_upper_csr(dev.indptr, dev.indices, n,
                                                 vertex_ids=host.vertex_ids)
            t0 = time.perf_counter()
            engine.count(same)
            replayed.append(1e6 * (time.perf_counter() - t0))
        print(f"{name} | " + " | ".join(f"{v:.1f}" for v in medians) +
              f" | {sum(medians):.1f} | {statistics.median(launched):.1f} | "
              f"{statistics.median(replayed[2:]):.1f}", flush=True)


if __name__ == "__main__":
    main()
