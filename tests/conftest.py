"""Shared test fixtures: the real graphs of ../shared/data/graphs, each read once per session.

Tests over real graphs take ``real_graphs``, parametrised indirectly by size
(``graphs.BY_REAL_SIZE``): ``"small"`` (at most :data:`SMALL_EDGES` edges) runs
in the default suite, ``"large"`` is marked slow (the GPU machine and nightly
runs take it).
"""

import json
import os
import sys
from pathlib import Path

# Bytecode is cached (Python's default) even where PYTHONDONTWRITEBYTECODE is set, as on the
# CI machine: every xdist worker, and every later step of a CI run, then loads the package
# and the assertion-rewritten tests instead of compiling them again (seconds a worker).
sys.dont_write_bytecode = False

import pytest

import tricount

REPO = Path(__file__).resolve().parents[1]

@pytest.fixture(autouse=True)
def _fresh_warm_up_ledger():
    """Every test starts with an empty ledger of warm-ups (tricount.backends.costs.WARM_UPS):
    what earlier tests counted in this worker does not move auto's picks in the next."""
    from tricount.backends import costs

    costs.WARM_UPS.clear()
    yield


#: Real graphs up to this many edges run in the default suite; the others only with -m slow.
SMALL_EDGES = 30_000

def data_dir() -> Path | None:
    """The real graphs: $TRICOUNT_DATA, else ../shared/data/graphs beside the repo."""
    env = os.environ.get("TRICOUNT_DATA")
    candidates = [Path(env)] if env else []
    candidates.append(REPO.parent / "shared" / "data" / "graphs")
    for path in candidates:
        if (path / "graphs.json").is_file():
            return path
    return None


def real_graph_rows() -> list[dict]:
    d = data_dir()
    if d is None:
        return []
    rows = json.loads((d / "graphs.json").read_text())
    for row in rows:
        row["path"] = str(d / row["file"])
    return rows


_LOADED: dict[str, tricount.Graph] = {}


def load_shared(row: dict) -> tricount.Graph:
    """The graph of a graphs.json row, read once per session (tests only read graphs)."""
    if row["path"] not in _LOADED:
        _LOADED[row["path"]] = tricount.load_graph(row["path"])
    return _LOADED[row["path"]]


@pytest.fixture(scope="session")
def shared_graphs():
    rows = real_graph_rows()
    if not rows:
        pytest.skip("../shared/data/graphs is absent (set TRICOUNT_DATA to its folder)")
    return rows


#: Edge ranges (lo, hi]: the sizes a test can ask ``real_graphs`` for.
SIZES = {"small": (0, SMALL_EDGES), "large": (SMALL_EDGES, float("inf")),
         "all": (0, float("inf"))}


@pytest.fixture
def real_graphs(request, shared_graphs):
    """``(row, graph)`` for the real graphs of the requested size: a name of :data:`SIZES`, or
    an edge range ``(lo, hi]`` (see the module doc)."""
    param = getattr(request, "param", "all")
    lo, hi = SIZES[param] if isinstance(param, str) else param
    return [(row, load_shared(row)) for row in shared_graphs if lo < row["edges"] <= hi]
