"""Issue 25's first run: with nothing compiled, `tricount count FILE` imports no Numba at all.

Each test runs a fresh interpreter with an empty ``NUMBA_CACHE_DIR`` (the first run after
installing) and no GPU, counts a SNAP file through the CLI or ``tricount.count``, and
reports the answer and whether ``numba`` (or anything under it, or SciPy) was ever imported, and
whether the CLI imported what only other subcommands need. The cost
model picks NumPy's parser and build, NumPy's orientation and NumPy's count (no SciPy
either); no clock is read here.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tricount
from conftest import real_graph_rows

SRC = Path(__file__).resolve().parents[1] / "src"

SCRIPT = """
import json, sys
import tricount
from tricount.cli import main
path, how = sys.argv[1], sys.argv[2]
if how == "cli":
    code = main(["count", path, "--json"])
else:
    result = tricount.count(path)
    print(json.dumps(result.to_dict()))
    code = 0
numba = sorted(m for m in sys.modules
               if m in ("numba", "scipy") or m.startswith(("numba.", "llvmlite", "scipy.")))
unused = sorted(m for m in ("tricount.bench", "tricount.generate.spec") if m in sys.modules)
print(json.dumps({"code": code, "numba_modules": numba, "unused": unused}), file=sys.stderr)
"""


def first_run(path, how: str, tmp_path) -> tuple[dict, dict]:
    """``(the JSON report, {"code", "numba_modules"})`` of a count in a fresh process."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "empty-numba-cache"),
               CUDA_VISIBLE_DEVICES="",
               PYTHONPATH=os.pathsep.join(filter(None, [str(SRC),
                                                        os.environ.get("PYTHONPATH")])))
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(path), how], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout), json.loads(out.stderr.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def snap_file(tmp_path_factory):
    """A gzipped SNAP edge list of 40,000 lines (comments, tabs, loops and repeats)."""
    rng = np.random.default_rng(25)
    src, dst = rng.integers(1, 3000, 40_000), rng.integers(1, 3000, 40_000)
    lines = "".join(f"{u}\t{v}\n" for u, v in zip(src.tolist(), dst.tolist()))
    path = tmp_path_factory.mktemp("cold") / "random.txt.gz"
    path.write_bytes(gzip.compress(f"# generated\n# FromNodeId\tToNodeId\n{lines}".encode()))
    return path, tricount.count_triangles((src, dst), backend="reference")


@pytest.mark.parametrize("how", ["cli", "api"])
def test_a_first_run_imports_no_numba(snap_file, how, tmp_path):
    path, expected = snap_file
    report, facts = first_run(path, how, tmp_path)
    assert facts == {"code": 0, "numba_modules": [], "unused": []}
    assert report["triangles"] == expected
    assert (report["backend"], report["method"]) == ("cpu", "numpy")
    if how == "api":  # the CLI reads the file first, then counts the graph read
        assert "cpu/numpy, numpy parser" in report["backend_reason"]


def test_soc_epinions1_first_run(tmp_path):
    rows = {row["name"]: row for row in real_graph_rows()}
    if "soc-Epinions1" not in rows:
        pytest.skip("../shared/data/graphs is absent (set TRICOUNT_DATA to its folder)")
    row = rows["soc-Epinions1"]
    report, facts = first_run(row["path"], "cli", tmp_path)
    assert facts == {"code": 0, "numba_modules": [], "unused": []}
    assert (report["triangles"], report["edges"]) == (row["triangles"], row["edges"])
