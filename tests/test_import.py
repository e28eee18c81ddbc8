"""`import tricount` stays light: no CuPy, no Numba, no compilation."""

import subprocess
import sys


def test_import_loads_neither_cupy_nor_numba():
    code = (
        "import sys, tricount; "
        "print(sorted(m for m in ('cupy', 'numba') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_documented_submodules_load_on_first_use():
    code = (
        "import sys, tricount; "
        "src, dst = tricount.generate.rmat(4, 4, seed=1); "
        "assert tricount.io.load_graph and tricount.nx and tricount.partition; "
        "print(sorted(m for m in ('cupy', 'numba') if m in sys.modules), "
        "callable(tricount.list_triangles), callable(tricount.triadic_census))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split()[-2:] == ["True", "True"]
