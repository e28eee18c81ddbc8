import json
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def data_dir() -> Path | None:
    """The real graphs: $TRICOUNT_DATA, else ../shared/data/graphs beside the repo."""
    env = os.environ.get("TRICOUNT_DATA")
    candidates = [Path(env)] if env else []
    candidates.append(REPO.parent / "shared" / "data" / "graphs")
    for path in candidates:
        if (path / "graphs.json").is_file():
            return path
    return None


def real_graphs() -> list[dict]:
    d = data_dir()
    if d is None:
        return []
    rows = json.loads((d / "graphs.json").read_text())
    for row in rows:
        row["path"] = str(d / row["file"])
    return rows


@pytest.fixture(scope="session")
def shared_graphs():
    rows = real_graphs()
    if not rows:
        pytest.skip("../shared/data/graphs is absent (set TRICOUNT_DATA to its folder)")
    return rows
