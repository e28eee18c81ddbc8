"""Loading a text edge list onto the GPU: host load + copy vs the overlapped double buffer.

Writes R-MAT (graph500 parameters, seed 1) as SNAP text, then per round:
``load_graph(path)`` on the host followed by ``to_device(cupy)`` (the copy
after the fact), and ``load_graph(path, device="gpu")`` (chunks parsed on the
host while earlier chunks are copied, the graph built on the GPU;
Pearson et al. §II-C). Both graphs are checked equal. Best and median of the
rounds after one warm-up each; the file is in the page cache.

    python benchmarks/gpu_load.py --scale 20 --rounds 5 --out "$OUT/gpu_load.md"
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from pathlib import Path

import numpy as np

from tricount.bench.trials import gpu_synchronize, trial_loop
from tricount.generate import rmat
from tricount.gpu.device import cupy
from tricount.io import load_graph, read_graph
from tricount.io.snap import write_snap


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)

    path = Path(tempfile.gettempdir()) / f"rmat-s{args.scale}-ef16-seed1.tsv"
    if not path.exists():
        src, dst = rmat(args.scale, 16, seed=1)
        write_snap(path, src, dst)
    size = path.stat().st_size

    def host_then_copy(_):
        return load_graph(path).to_device(cupy()), {}

    def on_gpu(_):
        loaded = read_graph(path, device="gpu")
        return loaded.graph, loaded.timings

    results = {}
    graphs = {}
    for name, fn in (("host load + copy", host_then_copy), ("device='gpu' (double buffer)", on_gpu)):
        # The warm-up compiles the parser and fills the page cache; each round keeps
        # its phase timings, not its graph.
        extra = []
        warm, runs = trial_loop(fn, args.rounds, synchronize=gpu_synchronize, keep=False,
                                each=lambda _, run: extra.append(run.value[1]))
        graphs[name] = warm[0]
        results[name] = ([run.seconds for run in runs], extra)
    a, b = graphs.values()
    assert a.n_edges == b.n_edges and a.n_vertices == b.n_vertices
    np.testing.assert_array_equal(cupy().asnumpy(a.indices), cupy().asnumpy(b.indices))

    lines = ["# Loading onto the GPU\n",
             f"File: `{path.name}`, {size / 1e6:.1f} MB, {a.n_edges:,} edges after canonicalisation; "
             f"{os.cpu_count()} CPU cores. Command: `python benchmarks/gpu_load.py --scale "
             f"{args.scale} --rounds {args.rounds}`.\n",
             "| path | best s | best MB/s | median s | median MB/s | notes |",
             "|---|--:|--:|--:|--:|---|"]
    for name, (times, extra) in results.items():
        best, med = min(times), statistics.median(times)
        note = ""
        if extra and extra[0]:
            waits = [e.get("copy_wait_s", 0.0) for e in extra]
            note = (f"load (read+parse+copy) median {statistics.median(e['load_s'] for e in extra):.3f} s, "
                    f"build on the GPU {statistics.median(e['build_s'] for e in extra):.3f} s, "
                    f"waiting on copies {statistics.median(waits):.4f} s")
        lines.append(f"| {name} | {best:.3f} | {size / best / 1e6:.0f} | {med:.3f} | "
                     f"{size / med / 1e6:.0f} | {note} |")
    text = "\n".join(lines) + "\n"
    args.out.write_text(text)
    print(text, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
