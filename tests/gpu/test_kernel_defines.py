"""The CUDA files' ``#ifndef`` defaults come from Python, checked here on the CPU.

Every kernel file declares its tunables as ``#ifndef TC_X`` / ``#define TC_X v``
defaults (so it compiles alone under nvcc); every launcher passes a value for
each of them (``tricount.gpu._module.get_kernel`` refuses a launch that
misses one) and keeps the table of its defaults (``DEFAULT_DEFINES``), built
from the plan's constants. Each file's defaults must equal its table, so the
two cannot drift apart.
"""

from __future__ import annotations

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
