"""`import tricount` stays light: no CuPy, no Numba, no compilation."""

import subprocess
import sys

import pytest


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


def test_a_small_table_of_names_loads_neither_numba_nor_pandas(tmp_path):
    # CSV and Parquet readers compile nothing, so a small file of them is built by NumPy,
    # and its names are ranked by NumPy: pyarrow's first compute call imports pandas.
    pytest.importorskip("pyarrow")
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp_path / "g.csv").write_text("source,target\nalice,bob\nbob,carol\ncarol,alice\n")
    pq.write_table(pa.table({"source": ["alice", "bob", "carol"],
                             "target": ["bob", "carol", "alice"]}), tmp_path / "g.parquet")
    for name in ("g.csv", "g.parquet"):
        code = (
            "import sys, tricount; "
            f"g = tricount.load_graph({str(tmp_path / name)!r}); "
            "print(tricount.count_triangles(g, backend='cpu'), list(g.vertex_ids), "
            "sorted(m for m in ('numba', 'pandas') if m in sys.modules))"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True)
        assert out.stdout.strip() == "1 ['alice', 'bob', 'carol'] []", name


def test_without_cupy_the_probe_answers_from_one_lookup(monkeypatch):
    # A failed import searches every path again (0.1 ms of every small listing): the
    # probe asks importlib once per process instead.
    import builtins

    import tricount.gpu

    if tricount.gpu.cupy_installed():
        pytest.skip("CuPy is installed here")
    tried = []
    real_import = builtins.__import__

    def spy(name, *args, **kwargs):
        if name == "cupy":
            tried.append(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", spy)
    usable, why = tricount.gpu.probe()
    assert not usable and "CuPy is not installed" in why and tried == []
