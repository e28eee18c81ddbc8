"""The floors of docs/architecture.md hold: every import in src/tricount points down.

Each module of ``tricount`` belongs to a *unit*, the first name under
``tricount`` (``tricount.io._text`` is in ``io``; the package's own
``__init__.py`` is ``tricount``), and each unit to a floor. A module may import
its own unit, a unit of a lower floor, and the sideways pairs listed below;
imports inside functions count as much as those at the top, so a function-local
import never hides an upward one. The table is the doc's; change both together.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "tricount"

#: Unit -> floor, bottom (1) to top (10), as drawn in docs/architecture.md.
FLOORS = {
    "errors": 1, "result": 1, "reference": 1, "_threads": 1, "_progress": 1, "_std_streams": 1,
    "_frame_columns": 1.5,  # pandas/polars/pyarrow columns as host arrays, for inputs
    "prep": 2,
    "graph": 3, "generate": 3,
    "io": 4,
    "inputs": 4.5,  # any graph a user holds -> CSRGraph (reads paths through io)
    "cpu": 5, "gpu": 5,
    "backends": 6,
    "partition": 7,
    "api": 8, "local": 8, "listing": 8, "directed": 8, "weighted": 8,
    "tricount": 8.5,  # the package root re-exports api and local
    "nx": 9, "bench": 9, "cli": 9,
    "cli_local": 9,  # until cli/ is one package (one module per subcommand)
    "__main__": 10,
}

#: Imports between two units of one floor that the house allows: (importer, imported).
SIDEWAYS = {
    ("local", "api"),     # local functions take what count() takes, through api.as_graph
    ("local", "directed"),  # clustering of a directed graph is Fagiolo's
    ("local", "weighted"),  # clustering with weight= is the weighted one
    ("weighted", "directed"),  # weighted directed clustering uses the direction mask
    ("cli", "bench"),     # `tricount bench` runs the benchmark
    ("cli", "cli_local"),
}

#: Upward imports that other branches of this round remove (issue 20: generate/cli.py and
#: bench/cli.py move into cli/; io's GPU reader stops importing gpu/). Listed exactly, so
#: that a new one fails, and so does an entry left behind once its import is gone.
KNOWN: set = set()


def _modules():
    for path in sorted(SRC.rglob("*.py")):
        parts = path.relative_to(SRC.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield ".".join(parts), path


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "tricount"


def _is_module(dotted: str) -> bool:
    path = SRC.parent.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _imported(module: str, path: Path, node) -> list[str]:
    """The tricount modules an import statement names (relative imports resolved)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        package = module.split(".")
        if path.name != "__init__.py":
            package = package[:-1]
        package = package[: len(package) - node.level + 1]
        base = ".".join(package + ([base] if base else []))
    # `from tricount import local` imports a module; `from tricount import count`, the package.
    return [f"{base}.{alias.name}" if _is_module(f"{base}.{alias.name}") else base
            for alias in node.names]


def imports():
    """Every ``(importer, imported, line)`` between tricount modules, at any depth."""
    for module, path in _modules():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _imported(module, path, node):
                    if target == "tricount" or target.startswith("tricount."):
                        yield module, target, node.lineno


def _allowed(importer: str, imported: str) -> bool:
    a, b = _unit(importer), _unit(imported)
    return a == b or FLOORS[b] < FLOORS[a] or (a, b) in SIDEWAYS


def test_every_unit_has_a_floor():
    units = {_unit(m) for m, _ in _modules()}
    assert units - set(FLOORS) == set(), "add the new unit to FLOORS and docs/architecture.md"


def test_imports_point_down_the_floors():
    upward = {}
    for importer, imported, line in imports():
        if not _allowed(importer, imported):
            upward.setdefault((importer, _top(imported)), []).append(line)
    new = {pair: lines for pair, lines in upward.items() if pair not in KNOWN}
    assert not new, "upward imports (importer, imported): lines\n" + "\n".join(
        f"  {a} -> {b}: {lines}" for (a, b), lines in sorted(new.items()))
    gone = KNOWN - set(upward)
    assert not gone, f"remove from KNOWN, these imports are gone: {sorted(gone)}"


def _top(module: str) -> str:
    """``tricount.<unit>`` of a module (the unit is what a floor rule is about)."""
    return ".".join(module.split(".")[:2])


@pytest.mark.parametrize("source,expected", [
    ("from tricount.io import read_graph", {"tricount.io"}),
    ("from tricount import local, count", {"tricount.local", "tricount"}),
    ("def f():\n    import tricount.gpu.engine\n", {"tricount.gpu.engine"}),
])
def test_the_checker_sees_every_kind_of_import(source, expected, tmp_path):
    path = tmp_path / "m.py"
    path.write_text(source)
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.update(_imported("tricount.m", path, node))
    assert found == expected


def test_the_checker_refuses_an_upward_import():
    assert not _allowed("tricount.prep.canonical", "tricount.gpu.prepare")
    assert not _allowed("tricount.cpu.engine", "tricount.gpu")  # same floor, not sideways
    assert _allowed("tricount.gpu.prepare", "tricount.prep.canonical")
    assert _allowed("tricount.local", "tricount.api")
