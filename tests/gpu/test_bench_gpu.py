"""``tricount bench`` with the GPU: the auto side beside the GPU's methods, and the
agreement of two GPU kernels as the judge of graphs past the oracle's limit."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from gpu_support import require_gpu  # noqa: E402

pytestmark = pytest.mark.gpu
require_gpu()

from tricount.bench import BenchConfig, run_bench  # noqa: E402
from tricount.bench import runner  # noqa: E402
from tricount.bench.report import markdown  # noqa: E402


def test_large_graphs_are_judged_by_two_gpu_kernels(monkeypatch):
    monkeypatch.setattr(runner, "GPU_AGREEMENT_MIN_EDGES", 0)
    result = run_bench(BenchConfig(["complete:n=30"], backends=("gpu",), methods=("hash",),
                                   trials=1, reference_max_edges=0))
    (graph,) = result.graphs
    assert graph["expected"] == 4060  # C(30, 3)
    assert graph["verified_by"] == "agreement of gpu/hash and gpu/wedge"
    assert result.verified


def test_the_auto_side_runs_after_the_gpu_sides_and_is_judged():
    result = run_bench(BenchConfig(["complete:n=12", "rmat:scale=10,ef=8,seed=3"],
                                   backends=("auto", "gpu"), methods=("hash", "wedge"),
                                   trials=1))
    assert result.verified
    autos = [r for r in result.records if r["backend"] == "auto"]
    assert len(autos) == 2 and all(r["method_run"].split("/")[0] in ("cpu", "gpu")
                                   for r in autos)
    assert "## auto against the best side" in markdown(result.records)
