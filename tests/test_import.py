"""`import tricount` stays light: no CuPy, no Numba, no compilation."""

import re
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


def test_a_small_table_loads_neither_numba_nor_pandas(tmp_path):
    # CSV and Parquet readers compile nothing, so a small file of them is built by NumPy;
    # its names are ranked by NumPy and its numbers copied from pyarrow's buffers: pyarrow's
    # first compute call, and its conversion to NumPy, import pandas.
    pytest.importorskip("pyarrow")
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp_path / "g.csv").write_text("source,target\nalice,bob\nbob,carol\ncarol,alice\n")
    pq.write_table(pa.table({"source": ["alice", "bob", "carol"],
                             "target": ["bob", "carol", "alice"]}), tmp_path / "g.parquet")
    # Ids, not names: the same three vertices, labelled by integers and by floats.
    (tmp_path / "ids.csv").write_text("source,target\n0,1\n1,2\n2,0\n")
    pq.write_table(pa.table({"source": pa.array([0, 1, 2], pa.int32()),
                             "target": pa.array([1.0, 2.0, 0.0])}), tmp_path / "ids.parquet")
    want = {"g.csv": "['alice', 'bob', 'carol']", "g.parquet": "['alice', 'bob', 'carol']",
            "ids.csv": "[0, 1, 2]", "ids.parquet": "[0, 1, 2]"}
    for name in want:
        code = (
            "import sys, tricount; "
            f"g = tricount.load_graph({str(tmp_path / name)!r}); "
            "print(tricount.count_triangles(g, backend='cpu'), "
            "[v if isinstance(v, str) else int(v) for v in g.vertex_ids], "
            "sorted(m for m in ('numba', 'pandas') if m in sys.modules))"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True)
        assert out.stdout.strip() == f"1 {want[name]} []", name


def test_parquet_of_numbers_is_written_without_pandas(tmp_path):
    # The triangles of a graph of ids and its per-vertex counts, as Parquet: numbers go to
    # pyarrow around their own buffers (pyarrow's conversion of NumPy arrays imports pandas).
    pytest.importorskip("pyarrow")
    code = (
        "import sys, numpy as np, tricount, pyarrow.parquet as pq; "
        "from tricount.io.tables import write_table; "
        "g = tricount.CSRGraph.from_edges(np.array([0, 0, 1, 2]), np.array([1, 2, 2, 3])); "
        f"tricount.write_triangles(g, {str(tmp_path / 't.parquet')!r}, backend='cpu'); "
        f"write_table({str(tmp_path / 'v.parquet')!r}, "
        "{'vertex': np.arange(4), 'c': np.array([1.0, 1.0, 1 / 3, 0.0])}); "
        "written = 'pandas' in sys.modules; "  # before reading back, which may import it
        f"print(written, pq.read_table({str(tmp_path / 't.parquet')!r}).to_pylist(), "
        f"pq.read_table({str(tmp_path / 'v.parquet')!r}).column('c').to_pylist())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == ("False [{'u': 0, 'v': 1, 'w': 2}] "
                                  "[1.0, 1.0, 0.3333333333333333, 0.0]")


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


@pytest.mark.parametrize("error, said", [
    (ModuleNotFoundError("No module named 'cupy'", name="cupy"), "CuPy is not installed"),
    # Installed, but its libraries cannot be mapped (ulimit -v) or are damaged: "pip install"
    # would not mend it, and the message said it would.
    (ImportError("libcudart.so.13: failed to map segment from shared object"),
     "CuPy is installed but cannot be loaded (libcudart.so.13: failed to map segment"),
])
def test_a_library_that_cannot_load_is_not_called_missing(monkeypatch, error, said):
    import builtins

    import tricount
    from tricount.errors import BackendUnavailableError

    real_import = builtins.__import__

    def failing(name, *args, **kwargs):
        if name == "cupy":
            raise error
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", failing)
    graph = tricount.CSRGraph.from_edges([0, 1, 2], [1, 2, 0])
    with pytest.raises(BackendUnavailableError, match=re.escape(said)):
        graph.to_device("gpu")
    with pytest.raises(BackendUnavailableError, match=re.escape(said)):
        tricount.generate.complete(4, xp="cupy")
