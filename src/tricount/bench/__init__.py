"""Benchmarks: ``tricount bench``, GAPBS's loop with verification, peers, reports, plots.

- :mod:`tricount.bench.runner`: the loop (load, build, verify, warm up, trials);
- :mod:`tricount.bench.trials`: GAPBS's trial loop, shared with ``benchmarks/``;
- :mod:`tricount.bench.gpu_timer`: the GPU kernels' timer, which only benchmarks run;
- :mod:`tricount.bench.peers`: other libraries counting from the same edge arrays;
- :mod:`tricount.bench.report`: JSON lines, per-side summaries, the Markdown report;
- :mod:`tricount.bench.plot`: rate against graph size (matplotlib);
- :mod:`tricount.cli.bench`: the ``tricount bench`` subcommand.

>>> from tricount.bench import BenchConfig, run_bench
>>> result = run_bench(BenchConfig(["complete:n=6"], methods=("merge",), trials=1))
>>> result.verified, result.records[0]["triangles"]  # C(6, 3)
(True, 20)
"""

from tricount.bench.runner import BenchConfig, BenchResult, run_bench

__all__ = ["BenchConfig", "BenchResult", "run_bench"]
