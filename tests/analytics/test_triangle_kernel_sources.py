"""The listing, directed and weighted CUDA files compile without a GPU (nvcc), and their
launchers' list names exactly the kernels they define. Directed and weighted run
triangle_visit.cuh's edge schedule; listing runs hash_table.cuh's tasks. (NVRTC, the loader's compiler,
builds them on the GPU machine in tests/analytics/test_analytics_gpu.py.)"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tricount.gpu._module import ENTRY_POINTS, kernel_source

KERNELS = Path(__file__).resolve().parents[2] / "src" / "tricount" / "gpu" / "kernels"
STEMS = ["directed", "listing", "weighted"]
TRIANGLE_ENTRY_POINTS = {e for e in ENTRY_POINTS if e[0] in STEMS}
#: The header each file's schedule comes from.
GUARDS = {"directed": "TRICOUNT_TRIANGLE_VISIT_CUH", "weighted": "TRICOUNT_TRIANGLE_VISIT_CUH",
          "listing": "TRICOUNT_HASH_TABLE_CUH"}
#: The defaults and the extremes the launchers may pass (listing: a HashShape's range).
VARIANTS = {
    "default": (),
    "wide": ("-DTC_VERTEX_T=long long", "-DTC_GROUP_SIZE=32", "-DTC_BLOCK_SIZE=1024"),
    "tiny": ("-DTC_GROUP_SIZE=1", "-DTC_BLOCK_SIZE=32"),
    "hash-wide": ("-DTC_VERTEX_T=long long", "-DTC_BLOCK_SIZE=1024", "-DTC_LONG_UNROLL=8",
                  "-DTC_MIN_BLOCKS=1"),
    "hash-tiny": ("-DTC_BLOCK_SIZE=32", "-DTC_WARP_SLOTS=32", "-DTC_LONG_UNROLL=1",
                  "-DTC_LONG_LIST=1", "-DTC_EDGE_T=unsigned int", "-DTC_TABLE_SPREAD=2"),
}
#: The variants of each file: the edge schedule's group sizes, or the hash shape's extremes.
FILE_VARIANTS = [(stem, v) for stem in STEMS for v in sorted(VARIANTS)
                 if v.startswith("hash") == (stem == "listing") or v == "default"]


def test_entry_points_match_the_sources():
    pattern = re.compile(
        r'extern "C" __global__ void(?:\s+__launch_bounds__\([^)]*\))?\s+(\w+)\s*\(')
    found = {(stem, name) for stem in STEMS
             for name in pattern.findall((KERNELS / f"{stem}.cu").read_text())}
    assert found == set(TRIANGLE_ENTRY_POINTS)
    assert all(name.startswith("tc_") for _, name in found)


def test_headers_are_pasted():
    for stem in STEMS:
        source = kernel_source(stem)
        assert "#include" not in source and GUARDS[stem] in source


def nvcc_compile(stem, tmp_path, flags):
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc is not on PATH")
    out = subprocess.run([nvcc, "-std=c++17", "-Werror", "all-warnings", *flags,
                          str(KERNELS / f"{stem}.cu"), "-o", str(tmp_path / f"{stem}.out")],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


@pytest.mark.slow  # nvcc per file; .ci/run compiles every kernel with nvcc before the suite
@pytest.mark.parametrize("stem", STEMS)
def test_nvcc_front_end_accepts_each_file(stem, tmp_path):
    # PTX only (a second per file): the C++ and the CUDA built-ins, not register allocation.
    nvcc_compile(stem, tmp_path, ["-arch=compute_80", "--ptx"])


@pytest.mark.slow
@pytest.mark.parametrize("stem, variant", FILE_VARIANTS)
def test_nvcc_compiles_each_variant(stem, variant, tmp_path):
    nvcc_compile(stem, tmp_path, ["-arch=sm_90", "-c", *VARIANTS[variant]])
