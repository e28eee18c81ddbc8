"""The local computations' CUDA files compile without a GPU (NVRTC, else nvcc), and their
loader lists exactly the kernels they define."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tricount.gpu._module import LOCAL_ENTRY_POINTS, kernel_source as local_kernel_source

KERNELS = Path(__file__).resolve().parents[2] / "src" / "tricount" / "gpu" / "kernels"
DEFINES = [(), ("-DTC_VERTEX_T=long long", "-DTC_EDGE_T=long long", "-DTC_GROUP_SIZE=32",
                "-DTC_BLOCK_SIZE=32")]


def test_entry_points_match_the_sources():
    pattern = re.compile(
        r'extern "C" __global__ void(?:\s+__launch_bounds__\([^)]*\))?\s+(\w+)\s*\(')
    for stem, name in LOCAL_ENTRY_POINTS:
        assert pattern.findall((KERNELS / f"{stem}.cu").read_text()) == [name]


def test_headers_are_pasted():
    for stem, _ in LOCAL_ENTRY_POINTS:
        source = local_kernel_source(stem)
        assert "#include" not in source
        assert "TRICOUNT_COMMON_CUH" in source and "TRICOUNT_LOCAL_CUH" in source


@pytest.mark.parametrize("defines", DEFINES, ids=["default", "wide"])
@pytest.mark.parametrize("stem,name", LOCAL_ENTRY_POINTS)
def test_nvrtc_compiles_what_the_loader_builds(stem, name, defines):
    nvrtc = pytest.importorskip("cupy_backends.cuda.libs.nvrtc")
    try:
        program = nvrtc.createProgram(local_kernel_source(stem), f"{stem}.cu", [], [])
    except Exception as exc:  # no libnvrtc on this machine
        pytest.skip(f"NVRTC unavailable: {exc}")
    try:
        nvrtc.compileProgram(program, ["--std=c++17", "-arch=compute_90", *defines])
    except Exception as exc:
        pytest.fail(f"{stem}.cu: {exc}\n{nvrtc.getProgramLog(program)}")
    ptx = nvrtc.getPTX(program)
    assert name.encode() in (ptx if isinstance(ptx, bytes) else ptx.encode())


@pytest.mark.slow  # seconds per file; CI compiles every .cu with nvcc (scripts/compile_kernels.sh)
@pytest.mark.parametrize("stem,name", LOCAL_ENTRY_POINTS)
def test_nvcc_compiles_each_file_alone(stem, name, tmp_path):
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc is not on PATH")
    out = subprocess.run([nvcc, "-arch=sm_90", "-std=c++17", "-c", str(KERNELS / f"{stem}.cu"),
                          "-o", str(tmp_path / f"{stem}.o")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
