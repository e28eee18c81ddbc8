"""Shared helpers for the io tests: graph files written in every format.

Writers take a canonical graph's edges ``(lo, hi)`` (0-based compact ids, each
edge once) and produce a file the reader must turn back into the same graph.
"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import numpy as np
import pytest

import tricount

REPO = Path(__file__).resolve().parents[2]


def data_dir() -> Path | None:
    """$TRICOUNT_DATA, else <repo>/../shared/data/graphs (None when absent)."""
    env = os.environ.get("TRICOUNT_DATA")
    for path in ([Path(env)] if env else []) + [REPO.parent / "shared" / "data" / "graphs"]:
        if (path / "graphs.json").is_file():
            return path
    return None


def shared_rows(names):
    """graphs.json rows for ``names``, or a skip naming the missing folder."""
    d = data_dir()
    if d is None:
        pytest.skip("shared graphs absent: set TRICOUNT_DATA to the folder holding graphs.json "
                    "(default <repo>/../shared/data/graphs)")
    rows = {r["name"]: r for r in json.loads((d / "graphs.json").read_text())}
    out = []
    for name in names:
        row = dict(rows[name])
        row["path"] = str(d / row["file"])
        out.append(row)
    return out


def write_text(path, text: str | bytes, *, compress=None) -> Path:
    data = text.encode() if isinstance(text, str) else text
    path = Path(path)
    if compress == "gzip" or (compress is None and path.suffix == ".gz"):
        data = gzip.compress(data)
    path.write_bytes(data)
    return path


def messy_edges(seed, n_lines, id_range):
    """Random edges with self-loops (every 13th line), reversed lines and repeats appended."""
    rng = np.random.default_rng(seed)
    src = rng.integers(0, id_range, n_lines)
    dst = rng.integers(0, id_range, n_lines)
    src[::13] = dst[::13]
    k = n_lines // 50
    src, dst = np.concatenate([src, dst[:k], src[:k]]), np.concatenate([dst, src[:k], dst[:k]])
    return src, dst


def edge_lines(src, dst, sep="\t") -> str:
    """``src<sep>dst`` lines, each ending in a newline."""
    return "".join(f"{u}{sep}{v}\n" for u, v in zip(src.tolist(), dst.tolist()))


def canonical(graph):
    """(lo, hi) of a graph as original ids, sorted: comparable across formats."""
    lo, hi = graph.edges()
    ids = np.asarray(graph.vertex_ids)
    a, b = ids[np.asarray(lo)], ids[np.asarray(hi)]
    order = np.lexsort((b, a))
    return a[order], b[order]


def count(graph) -> int:
    return tricount.count_triangles(graph, backend="cpu")


# -- writers: (lo, hi) 0-based compact edges of n vertices -> file ------------------------------

def write_snap(path, lo, hi, n):
    lines = ["# FromNodeId\tToNodeId", "% a percent comment too"]
    lines += [f"{u}\t{v}" for u, v in zip(lo.tolist(), hi.tolist())]
    return path, "\n".join(lines) + "\n"


def write_graphchallenge(path, lo, hi, n):
    rows = [f"{u + 1}\t{v + 1}\t1" for u, v in zip(lo.tolist(), hi.tolist())]
    rows += [f"{v + 1}\t{u + 1}\t1" for u, v in zip(lo.tolist(), hi.tolist())]
    return path, "\n".join(rows) + "\n"


def write_mtx_symmetric(path, lo, hi, n):
    body = [f"{v + 1} {u + 1}" for u, v in zip(lo.tolist(), hi.tolist())]  # lower triangle
    head = ["%%MatrixMarket matrix coordinate pattern symmetric", "% comment",
            f"{n} {n} {len(body)}"]
    return path, "\n".join(head + body) + "\n"


def write_mtx_general_real(path, lo, hi, n):
    body = [f"{u + 1} {v + 1} 1.5" for u, v in zip(lo.tolist(), hi.tolist())]
    body += [f"{v + 1} {u + 1} 1.5e0" for u, v in zip(lo.tolist(), hi.tolist())]
    head = ["%%MatrixMarket matrix coordinate real general", f"{n} {n} {len(body)}"]
    return path, "\r\n".join(head + body) + "\r\n"


def write_metis(path, lo, hi, n, *, weights=False):
    adj = [[] for _ in range(n)]
    for u, v in zip(lo.tolist(), hi.tolist()):
        adj[u].append(v + 1)
        adj[v].append(u + 1)
    if weights:
        lines = [" ".join(f"{v} 7" for v in a) for a in adj]
        head = f"% METIS with edge weights\n{n} {len(lo)} 001"
    else:
        lines = [" ".join(map(str, a)) for a in adj]
        head = f"{n} {len(lo)}"
    return path, head + "\n" + "\n".join(lines) + "\n"


TEXT_WRITERS = {
    "snap.txt": write_snap,
    "snap.txt.gz": write_snap,
    "x_adj.tsv": write_graphchallenge,
    "sym.mtx": write_mtx_symmetric,
    "real_adj.mmio": write_mtx_general_real,
    "g.graph": write_metis,
    "w.graph": lambda p, lo, hi, n: write_metis(p, lo, hi, n, weights=True),
}


def feed_pipe(fd, data: bytes, step: int) -> None:
    """Write ``data`` into the pipe end ``fd`` in pieces of ``step`` bytes, then close it
    (run in a thread while the reader reads the other end)."""
    try:
        for k in range(0, len(data), step):
            os.write(fd, data[k: k + step])
    finally:
        os.close(fd)
