"""The backend's shape: names, signatures, modules, the info table, light imports."""

from __future__ import annotations

import importlib.metadata
import inspect
import pathlib
import subprocess
import sys

import networkx as nx
import pytest

from tricount.nx import info
from tricount.nx.interface import BackendInterface, registry

IMPLEMENTED = {
    "triangles": "tricount.nx.cluster",
    "clustering": "tricount.nx.cluster",
    "average_clustering": "tricount.nx.cluster",
    "transitivity": "tricount.nx.cluster",
    "all_triangles": "tricount.nx.cluster",
    "k_truss": "tricount.nx.core",
    "triadic_census": "tricount.nx.triads",
}


def test_names_and_modules_are_pinned():
    assert {name: func.__module__ for name, func in registry.items()} == IMPLEMENTED
    for name in IMPLEMENTED:
        assert getattr(BackendInterface, name) is registry[name]


@pytest.mark.parametrize("name", sorted(IMPLEMENTED))
def test_signatures_equal_networkx(name):
    ours = inspect.signature(registry[name])
    theirs = inspect.signature(getattr(nx, name).orig_func)
    assert ours == theirs


@pytest.mark.parametrize("name", sorted(IMPLEMENTED))
def test_module_mirrors_networkx(name):
    # cluster.py holds NetworkX's cluster.py functions, core.py its core.py ones.
    nx_module = getattr(nx, name).orig_func.__module__.rsplit(".", 1)[-1]
    assert registry[name].__module__.rsplit(".", 1)[-1] == nx_module


def test_docstrings_are_networkx_s_plus_ours():
    for name, func in registry.items():
        assert "tricount\n    --------" in func.__doc__
        assert func.additional_docs in func.__doc__


def test_info_table_is_current():
    # Regenerate with: python -m tricount.nx.info
    assert info._table_text() == "FUNCTIONS = " + _literal_table()
    assert set(info.get_info()["functions"]) == set(IMPLEMENTED)


def _literal_table() -> str:
    text = pathlib.Path(info.__file__).read_text()
    begin = text.index("FUNCTIONS = {") + len("FUNCTIONS = ")
    return text[begin:text.index("\n# END: functions")]


def test_get_info_fields():
    got = info.get_info()
    assert got["backend_name"] == "tricount"
    assert got["default_config"] == {"backend": "auto"}
    for entry in got["functions"].values():
        assert set(entry) == {"additional_docs", "additional_parameters"}


def test_get_info_imports_no_cupy_networkx_or_kernels():
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "import tricount\n"
        "after_tricount = set(sys.modules)\n"
        "from tricount.nx.info import get_info\n"
        "get_info()\n"
        "new = set(sys.modules) - after_tricount\n"
        "assert not any(m.split('.')[0] in ('cupy', 'numba', 'networkx') for m in new), new\n"
        "assert 'cupy' not in sys.modules and 'networkx' not in sys.modules\n"
        "print('numba' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    if out.stdout.strip() == "True":
        pytest.xfail("`import tricount` itself loads Numba (outside tricount.nx)")


def test_autoconfig_fills_only_unset_variables():
    code = (
        "import os\n"
        "os.environ['TRICOUNT_NX_AUTOCONFIG'] = 'True'\n"
        "os.environ['NETWORKX_FALLBACK_TO_NX'] = 'False'\n"
        "for key in ('NETWORKX_BACKEND_PRIORITY', 'NETWORKX_CACHE_CONVERTED_GRAPHS'):\n"
        "    os.environ.pop(key, None)\n"
        "from tricount.nx.info import get_info\n"
        "get_info()\n"
        "print(os.environ['NETWORKX_BACKEND_PRIORITY'], os.environ['NETWORKX_FALLBACK_TO_NX'])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["tricount", "False"]


def test_entry_points_when_installed():
    entry_points = importlib.metadata.entry_points
    backends = {ep.name: ep.value for ep in entry_points(group="networkx.backends")}
    if "tricount" not in backends:
        pytest.skip("tricount's networkx entry points are not installed (pip install -e .)")
    infos = {ep.name: ep.value for ep in entry_points(group="networkx.backend_info")}
    assert backends["tricount"] == "tricount.nx.interface:BackendInterface"
    assert infos["tricount"] == "tricount.nx.info:get_info"
    assert "tricount" in nx.triangles.backends
