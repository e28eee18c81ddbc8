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
