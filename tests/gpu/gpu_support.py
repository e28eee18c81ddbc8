"""Shared pieces of the GPU tests: where the data is, the method table, the CPU judge.

Test modules import it by path (pytest runs with --import-mode=importlib, so
test folders are not packages). It puts ``benchmarks/`` on ``sys.path``, so
that the lab methods of ``benchmarks/baselines`` run beside the production
ones in every graph test.

The real graphs live in ``../shared/data/graphs`` beside the repository, or
wherever ``TRICOUNT_DATA`` points (scripts/gpu_suite.sh copies them into the
repository for the device machine, where ``shared/`` is absent).
"""

from __future__ import annotations

import functools
import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import baselines  # noqa: E402
from tricount.gpu import engine  # noqa: E402

#: Environment variable naming a folder with graphs.json and the .txt.gz files.
DATA_ENV = "TRICOUNT_DATA"


def data_dir() -> Path:
    env = os.environ.get(DATA_ENV)
    if env:
        return Path(env)
    return (Path(__file__).parents[2] / "../shared/data/graphs").resolve()


def real_graphs() -> list[dict]:
    """Rows of graphs.json (name, file, triangles, ...); empty when the data is absent."""
    index = data_dir() / "graphs.json"
    if not index.exists():
        return []
    return json.loads(index.read_text())


#: Every (method, options) the GPU tests run; each variant reaches a different
#: kernel or code path (sf = 0 makes every warp binary-search, a huge sf makes
#: every warp merge; a tiny capacity sends columns to global memory; threshold
#: 1, 3-bit digits and small tiles make radix recurse to the last digit, and
#: 2^20-key batches cut E' of the larger graphs into several batches).
METHOD_VARIANTS = [
    ("merge", {}),
    ("binary", {"variant": "thread"}),
    ("binary", {"variant": "warp"}),
    ("dynamic", {}),
    ("dynamic", {"sf": 0.0}),
    ("dynamic", {"sf": 1e9}),
    ("bitmap", {"variant": "shared"}),
    ("bitmap", {"variant": "global"}),
    ("shared", {}),
    ("shared", {"columns_per_block": 1, "capacity": 4}),
    ("radix", {}),
    ("radix", {"threshold": 1, "radix_bits": 3, "batch_keys": 1 << 20, "tile": 96}),
    ("spgemm", {}),
    ("hash", {}),
    ("hash", {"block_work": 0}),
    ("hash", {"block_work": 1 << 60, "warp_slots": 32, "long_list": 1}),
    ("hash", {"block_table_bytes": 128, "long_list": 1 << 30, "warp_claim": 3}),
    ("hash", {"max_task": 1, "spread": 8, "block_size": 64}),
    ("hash", {"unroll": 1, "min_blocks": 8, "long_list": 1}),
    ("hash", {"batch_bounds": False, "unroll": 3, "min_blocks": 1}),
    ("hash", {"edge32": False}),
    ("hash", {"warp_slots": 512, "long_list": 16}),  # the defaults from 10^7 edges
    ("hash", {"warp_slots": 512, "long_list": 16, "block_size": 512,  # and from 10^8
              "block_table_bytes": 64 * 1024, "unroll": 6, "min_blocks": 8}),
    ("hash", {"unroll": 6, "min_blocks": 8, "by_owner": True, "tasks_per_warp": 64}),
    ("wedge", {}),
    ("wedge", {"layout": "fingerprint"}),
    ("wedge", {"layout": "fingerprint", "chunk": 1, "span_slots": 1, "unroll": 1}),
    ("wedge", {"layout": "fingerprint", "chunk": 100, "span_slots": 64, "unroll": 3,
               "edge32": False, "block_size": 32, "filter_bits": 32}),
    ("wedge", {"layout": "fingerprint", "chunk": 4000, "span_slots": 4095, "unroll": 8,
               "min_blocks": 1, "block_size": 32, "align": 1, "filter_anchors": 255,
               "filter_bits": 1024}),
    ("wedge", {"layout": "fingerprint", "align": 3, "unroll": 2, "filter_anchors": 0}),
    ("wedge", {"layout": "fingerprint", "lanes": "wedges"}),
    ("wedge", {"layout": "fingerprint", "lanes": "wedges", "chunk": 100, "align": 3,
               "filter_anchors": 100, "filter_bits": 32, "edge32": False, "block_size": 32}),
    ("wedge", {"layout": "fingerprint", "chunk": 100, "align": 8, "filter_anchors": 100,
               "filter_bits": 32, "edge32": False, "block_size": 32}),
    ("wedge", {"layout": "csr"}),
    ("wedge", {"layout": "csr", "chunk": 1, "span_slots": 1, "unroll": 1}),
    ("wedge", {"layout": "csr", "chunk": 100, "span_slots": 64, "unroll": 3, "edge32": False,
               "block_size": 32}),
    ("bitwedge", {}),
    ("bitwedge", {"pairs": "anchor"}),
    ("bitwedge", {"bitmaps": "global", "unroll": 1, "min_task": 1, "block_size": 32}),
    ("bitwedge", {"pairs": "anchor", "bitmaps": "global", "edge32": False, "wedge32": False,
                  "unroll": 3, "tasks_per_warp": 7}),
    ("bitwedge", {"bitmaps": "shared", "anchor_cost": 0, "pair_cost": 1, "block_size": 32}),
    ("bitwedge", {"min_task": 1, "tasks_per_warp": 1000, "unroll": 8, "block_size": 64,
                  "min_blocks": 16}),
    ("auto", {}),
]


def variant_id(variant) -> str:
    method, options = variant
    if not options:
        return method
    return method + "[" + ",".join(f"{k}={v}" for k, v in options.items()) + "]"


VARIANT_IDS = [variant_id(v) for v in METHOD_VARIANTS]

#: On small graphs only: E' cut into batches of 1000 keys (many batches).
SMALL_GRAPH_VARIANTS = METHOD_VARIANTS + [
    ("radix", {"threshold": 1, "radix_bits": 3, "batch_keys": 1000, "tile": 96}),
]
SMALL_GRAPH_IDS = [variant_id(v) for v in SMALL_GRAPH_VARIANTS]


@functools.lru_cache(maxsize=None)
def load_real(name: str):
    import tricount

    row = next(r for r in real_graphs() if r["name"] == name)
    return tricount.load_graph(data_dir() / row["file"])


def cpu_count(graph) -> int:
    """The judge: the CPU engine's exact count (Numba)."""
    from tricount.cpu.engine import count

    return count(graph).n_triangles


def gpu_count(graph, method, options, *, orientation="auto", **extra) -> int:
    """The GPU engine's count of ``graph`` by ``method`` (production or lab) with
    launch-shape ``options``."""
    plan = baselines.method_plan(method, dict(options, orientation=orientation))
    return engine.count(graph, plan=plan, **extra).n_triangles


def edges_graph(pairs, n_vertices=None, name=None):
    """A CSRGraph from a list of (u, v) pairs (host arrays)."""
    from tricount import CSRGraph

    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    return CSRGraph.from_edges(pairs[:, 0], pairs[:, 1], n_vertices=n_vertices, name=name)


def complete_graph(n: int):
    i, j = np.triu_indices(n, 1)
    return edges_graph(np.stack([i, j], axis=1), n_vertices=n, name=f"K{n}")


def fan_graph(n_edges: int):
    """Exactly ``n_edges`` edges from the sequence hub-1, hub-2, 1-2, hub-3, 2-3, ...

    Vertex 0 is the hub; every rim edge closes one triangle with it.
    """
    pairs = []
    k = 1
    while len(pairs) < n_edges:
        pairs.append((0, k))
        if k > 1 and len(pairs) < n_edges:
            pairs.append((k - 1, k))
        k += 1
    return edges_graph(pairs, name=f"fan-m{n_edges}")


def hub_graph(hub_degree: int = 100_000):
    """A star with a hub of the given degree plus the rim path 1-2-...: one triangle per rim edge."""
    leaves = np.arange(1, hub_degree + 1, dtype=np.int64)
    spokes = np.stack([np.zeros_like(leaves), leaves], axis=1)
    rim = np.stack([leaves[:-1], leaves[1:]], axis=1)
    return edges_graph(np.concatenate([spokes, rim]), name=f"hub{hub_degree}")


def require_gpu():
    """Skip the calling test module cleanly unless CuPy and a usable GPU are here."""
    pytest.importorskip("cupy")
    from tricount.gpu import probe

    usable, why = probe()
    if not usable:
        pytest.skip(f"no usable GPU: {why}", allow_module_level=True)
