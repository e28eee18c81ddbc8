"""CPU engine vs SuiteSparse:GraphBLAS, NetworKit and NetworkX on R-MAT graphs.

A thin wrapper over ``tricount bench`` (src/tricount/bench/), kept so that the
old command still works:

    python benchmarks/cpu_peers.py --scales 16 17 18 --trials 3

runs

    tricount bench rmat:scale=16,ef=16,seed=1 ... --backend cpu --methods auto,merge \
        --peers graphblas,networkit,networkx --trials 3 --out benchmarks/results/cpu_peers

Every side starts from the same in-memory edge arrays (R-MAT, graph500
parameters, edge factor 16, seed 1, vertices permuted; loops and repeats
included) and its time includes building its own graph; one untimed warm-up,
then N trials; every count verified (exit 4 on a mismatch). Rates count each
undirected edge once. Writes cpu_peers.jsonl, .md and .png.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tricount.cli import main as tricount_main

RESULTS = Path(__file__).resolve().parent / "results"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", type=int, nargs="+", default=[16, 17, 18])
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--methods", default="auto,merge",
                        help="tricount CPU methods (default auto,merge)")
    parser.add_argument("--peers", default="graphblas,networkit,networkx",
                        help="peers (graphblas, networkit, igraph, scipy, networkx or all)")
    parser.add_argument("--out", default=str(RESULTS), help="output folder")
    args = parser.parse_args(argv)
    specs = [f"rmat:scale={s},ef=16,seed=1" for s in args.scales]
    return tricount_main(["bench", *specs, "--backend", "cpu", "--methods", args.methods,
                          "--peers", args.peers, "--trials", str(args.trials),
                          "--out", str(Path(args.out) / "cpu_peers")])


if __name__ == "__main__":
    sys.exit(main())
