"""kernels/small.cu compiles without a GPU (nvcc's front end; NVRTC where it loads), and
its launcher passes every define and names exactly the kernels the file defines."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tricount.gpu import small
from tricount.gpu._module import ENTRY_POINTS, checked_flags, kernel_source, module_code

KERNELS = Path(__file__).resolve().parents[2] / "src" / "tricount" / "gpu" / "kernels"
#: The launcher's defines, and the extremes: one-warp blocks and the smallest table,
#: 64-bit column ids with the largest blocks.
VARIANTS = {
    "default": (),
    "tiny": ("-DTC_BLOCK_SIZE=32", "-DTC_WARP_SLOTS=32", "-DTC_SCAN_ITEMS=1",
             "-DTC_LIGHT_LIST=0", "-DTC_WEDGE_UNROLL=1"),
    "wide": ("-DTC_VERTEX_T=long long", "-DTC_BLOCK_SIZE=1024", "-DTC_WARP_SLOTS=4096",
             "-DTC_LIGHT_LIST=32", "-DTC_SCAN_ITEMS=16"),
}


def test_entry_points_are_the_launchers_kernels():
    pattern = re.compile(
        r'extern "C" __global__ void(?:\s+__launch_bounds__\([^)]*\))?\s+(\w+)\s*\(')
    found = pattern.findall((KERNELS / "small.cu").read_text())
    assert tuple(found) == small.KERNELS
    assert {("small", name) for name in found} <= set(ENTRY_POINTS)


def test_the_launcher_passes_every_define():
    for vertex_t in ("int", "long long"):
        assert checked_flags("small", small.kernel_defines(vertex_t=vertex_t))


def test_the_workspace_holds_every_part():
    # tc_small_layout: header 8, degrees n, out-degrees n, one tile sum per scan tile, tables
    # 4m (the zeroed part; the tables only for the hash count kernel), rows m, lists m, the
    # slots' sources m.
    n, m = 1000, 5000
    assert small.zeroed_words(n, m) == 8 + 2 * n + 1 + 4 * m  # one tile: SCAN_TILE >= 1000
    assert small.zeroed_words(n, m, tables=False) == 8 + 2 * n + 1
    assert small.workspace_words(n, m) == 8 + 2 * n + 1 + 7 * m
    assert small.scan_tiles(small.SCAN_TILE + 1) == 2 and small.scan_tiles(0) == 1
    assert small.offset_words(n) == n + 1
    # Tasks: TASKS_PER_WARP per warp of the count kernel's grid, never more than the slots.
    assert small.n_tasks(1000, 5000) == 5000 and small.n_tasks(1, 1) == 1
    assert small.n_tasks(2, 10**6) == 2 * (small.BLOCK_SIZE // 32) * small.TASKS_PER_WARP
    assert "#include" not in kernel_source("small")


def _nvcc(flags, tmp_path):
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc is not on PATH")
    out = subprocess.run([nvcc, "-std=c++17", "-Werror", "all-warnings", "-I", str(KERNELS),
                          *flags, str(KERNELS / "small.cu"), "-o", str(tmp_path / "small.out")],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_nvcc_front_end_accepts_the_file(tmp_path):
    # PTX only (about a second): the C++ and the CUDA built-ins.
    _nvcc(["-arch=compute_80", "--ptx"], tmp_path)


@pytest.mark.slow  # seconds per variant; scripts/compile_kernels.sh compiles every file in CI
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_nvcc_compiles_each_variant(variant, tmp_path):
    _nvcc(["-arch=sm_90", "-c", *VARIANTS[variant]], tmp_path)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_nvrtc_compiles_what_the_loader_builds(variant):
    nvrtc = pytest.importorskip("cupy_backends.cuda.libs.nvrtc")
    try:
        defines = tuple(flag[2:].split("=", 1) for flag in VARIANTS[variant])
        program = nvrtc.createProgram(module_code("small", defines), "small.cu", [], [])
    except Exception as exc:  # no libnvrtc on this machine
        pytest.skip(f"NVRTC unavailable: {exc}")
    try:
        nvrtc.compileProgram(program, ["--std=c++17", "-arch=compute_90"])
    except Exception as exc:
        pytest.fail(f"small.cu: {exc}\n{nvrtc.getProgramLog(program)}")
