"""The CUDA files' ``#ifndef`` defaults come from Python, checked here on the CPU.

Every kernel file declares its tunables as ``#ifndef TC_X`` / ``#define TC_X v``
defaults (so it compiles alone under nvcc); every launcher passes a value for
each of them (``tricount.gpu._module.get_kernel`` refuses a launch that
misses one) and keeps the table of its defaults (``DEFAULT_DEFINES``), built
from the plan's constants. Each file's defaults must equal its table, so the
two cannot drift apart.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import baselines  # noqa: E402
from baselines import binary, bitmap, dynamic, merge, radix, shared  # noqa: E402
from tricount.bench import gpu_timer  # noqa: E402
from tricount.errors import TricountError  # noqa: E402
from tricount.gpu import _module, directed, edge_support, listing, per_vertex  # noqa: E402
from tricount.gpu import small, truss, weighted  # noqa: E402
from tricount.gpu.methods import bitwedge, wedge  # noqa: E402
from tricount.gpu.methods import hash as hash_method  # noqa: E402
from tricount.gpu.prepare import keys  # noqa: E402

PACKAGE = Path(_module.__file__).parent / "kernels"
PRODUCTION = {}
for module in (hash_method, wedge, bitwedge, keys, per_vertex, edge_support, truss, gpu_timer,
               listing, directed, weighted, small):
    PRODUCTION.update(module.DEFAULT_DEFINES)
LAB = {}
for module in (merge, binary, dynamic, bitmap, shared, radix):
    LAB.update(module.DEFAULT_DEFINES)
CASES = [(stem, None, table) for stem, table in sorted(PRODUCTION.items())] + \
        [(stem, baselines.KERNELS, table) for stem, table in sorted(LAB.items())]


def test_every_kernel_file_has_a_table():
    assert set(PRODUCTION) == {p.stem for p in PACKAGE.glob("*.cu")}
    assert set(LAB) == {p.stem for p in Path(baselines.KERNELS).glob("*.cu")}


@pytest.mark.parametrize("stem, folder, table", CASES, ids=[c[0] for c in CASES])
def test_the_files_defaults_are_the_launchers(stem, folder, table):
    assert _module.source_defaults(stem, folder) == _module.define_flags(table)
    assert _module.checked_flags(stem, table, folder)


def test_a_launch_must_pass_every_define():
    table = dict(hash_method.DEFAULT_DEFINES["hash"])
    del table["long_unroll"]
    with pytest.raises(TricountError, match="missing \\['TC_LONG_UNROLL'\\]"):
        _module.checked_flags("hash", table)
    with pytest.raises(TricountError, match="unknown \\['TC_NONSUCH'\\]"):
        _module.checked_flags("hash", dict(hash_method.DEFAULT_DEFINES["hash"], nonsuch=1))


def test_defaults_are_read_as_the_preprocessor_does():
    # wedge_fp.cu sets its own unroll before wedge.cuh's default: the first one counts.
    source = _module.kernel_source("wedge_fp")
    assert source.index("#define TC_UNROLL 3") < source.index("#define TC_UNROLL 4")
    assert _module.source_defaults("wedge_fp")["TC_UNROLL"] == "3"
    assert "#include" not in source


def test_the_loader_writes_the_defines_into_the_source(tmp_path):
    # Every module is compiled with the same options (CuPy then checks its compiler once
    # a process, not once a module): the defines are #define lines ahead of the file's
    # #ifndef defaults, so they win, and #line keeps the file's own line numbers.
    flags = _module.checked_flags("small", dict(small.kernel_defines(vertex_t="long long"),
                                                block_size=32))
    code = _module.module_code("small", tuple(sorted(flags.items())))
    head, body = code.split('#line 1 "small.cu"\n', 1)
    assert head == "".join(f"#define {k} {v}\n" for k, v in sorted(flags.items()))
    assert body == _module.kernel_source("small")
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc is not on PATH")
    probe = tmp_path / "probe.cu"
    probe.write_text(code + "\nint tc_probe_block = TC_BLOCK_SIZE;\nTC_VERTEX_T tc_probe_id;\n")
    out = subprocess.run([nvcc, "-std=c++17", "-E", str(probe)], capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr
    assert "int tc_probe_block = 32;" in out.stdout
    assert "long long tc_probe_id;" in out.stdout
    assert _module.NVRTC_OPTIONS == ("--std=c++17",)  # no -D: the defines are in the text


def test_every_kernel_named_in_the_package_is_an_entry_point():
    # A kernel defined in a .cu file but left out of ENTRY_POINTS is found only when a GPU
    # first launches it (get_kernel refuses it); so is a name the Python code launches that
    # no file defines. Both are checked here, without a GPU.
    import re

    defined = set()
    pattern = re.compile(
        r'extern "C" __global__ void(?:\s+__launch_bounds__\([^)]*\))?\s+(\w+)\s*\(')
    for path in PACKAGE.glob("*.cu"):
        defined |= {(path.stem, name) for name in pattern.findall(path.read_text())}
    assert defined == set(_module.ENTRY_POINTS)
    launched = re.compile(r'run_(slice|prep)\(\s*"(\w+)"')
    names = {(stem, name) for path in PACKAGE.parent.parent.rglob("*.py")
             for stem, name in launched.findall(path.read_text())}
    assert names and names <= set(_module.ENTRY_POINTS)
