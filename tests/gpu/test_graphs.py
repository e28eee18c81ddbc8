"""Every GPU method on every real graph and on generated graphs equals the CPU engine exactly.

Real graphs: every row of graphs.json (checked against its verified count
too). Generated: R-MAT, a star whose hub has degree 10^5 (plus a rim path, so
it has triangles), complete graphs, the empty graph, one edge, and K_3000,
whose C(3000, 3) = 4,495,501,000 triangles exceed 2^32. Counts must also
repeat exactly over 20 runs (a race would make them wander).
"""

from __future__ import annotations

import sys
from math import comb
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from gpu_support import (METHOD_VARIANTS, VARIANT_IDS, complete_graph, cpu_count,  # noqa: E402
                         data_dir, edges_graph, gpu_count, hub_graph, load_real, real_graphs,
                         require_gpu)

pytestmark = pytest.mark.gpu
require_gpu()

import cupy  # noqa: E402

from tricount import CSRGraph  # noqa: E402
from tricount.generate import rmat  # noqa: E402

REAL = real_graphs()
REAL_NAMES = [row["name"] for row in REAL]


def test_real_graphs_are_present():
    assert REAL, f"no graphs.json under {data_dir()} (set TRICOUNT_DATA)"


@pytest.mark.parametrize("name", REAL_NAMES)
@pytest.mark.parametrize("variant", METHOD_VARIANTS, ids=VARIANT_IDS)
def test_real_graph(variant, name):
    row = next(r for r in REAL if r["name"] == name)
    g = load_real(name)
    got = gpu_count(g, *variant)
    assert got == row["triangles"]
    assert got == cpu_count(g)


@pytest.mark.parametrize("name", REAL_NAMES)
@pytest.mark.parametrize("method", ["merge", "binary", "dynamic", "bitmap", "shared", "hash", "wedge",
                                    "bitwedge"])
@pytest.mark.parametrize("orientation", ["id", "degree"])
def test_real_graph_other_orientations(orientation, method, name):
    row = next(r for r in REAL if r["name"] == name)
    assert gpu_count(load_real(name), method, {}, orientation=orientation) == row["triangles"]


GENERATED = {
    "empty": lambda: edges_graph(np.zeros((0, 2), dtype=np.int64)),
    "one-edge": lambda: edges_graph([(0, 1)]),
    "triangle": lambda: edges_graph([(0, 1), (1, 2), (2, 0)]),
    "K2": lambda: complete_graph(2),
    "K20": lambda: complete_graph(20),
    "K200": lambda: complete_graph(200),
    "rmat-s12": lambda: CSRGraph.from_edges(*rmat(12, 16, seed=1)),
    "rmat-s15": lambda: CSRGraph.from_edges(*rmat(15, 16, seed=2)),
    "hub-1e5": lambda: hub_graph(100_000),
}
_cache = {}


def generated(name):
    if name not in _cache:
        _cache[name] = GENERATED[name]()
    return _cache[name]


@pytest.mark.parametrize("name", list(GENERATED))
@pytest.mark.parametrize("variant", METHOD_VARIANTS, ids=VARIANT_IDS)
def test_generated_graph(variant, name):
    g = generated(name)
    assert gpu_count(g, *variant) == cpu_count(g)


@pytest.mark.parametrize("method", ["merge", "binary", "dynamic", "bitmap", "shared", "hash", "wedge",
                                    "bitwedge"])
def test_hub_with_id_orientation(method):
    # By id, the hub keeps all 10^5 edges as out-edges: one list of 10^5.
    g = generated("hub-1e5")
    assert gpu_count(g, method, {}, orientation="id") == 99_999


@pytest.fixture(scope="module")
def k3000():
    return complete_graph(3000)


class TestPast32Bits:
    """K_3000: 4,495,501,000 triangles, more than 2^32 = 4,294,967,296."""

    EXPECTED = comb(3000, 3)

    def test_closed_form_is_past_2_32(self):
        assert self.EXPECTED == 4_495_501_000 > 2**32

    def test_cpu_judge(self, k3000):
        assert cpu_count(k3000) == self.EXPECTED

    # The threshold-1 radix variant would cut E' (4.5e9 keys) into 4,300 batches.
    @pytest.mark.parametrize("variant", [v for v in METHOD_VARIANTS if v[1].get("threshold") != 1],
                             ids=[i for v, i in zip(METHOD_VARIANTS, VARIANT_IDS)
                                  if v[1].get("threshold") != 1])
    def test_k3000(self, k3000, variant):
        assert gpu_count(k3000, *variant) == self.EXPECTED


@pytest.mark.parametrize("variant", METHOD_VARIANTS, ids=VARIANT_IDS)
def test_twenty_runs_agree(variant):
    g = generated("rmat-s15")
    expected = cpu_count(g)
    counts = {gpu_count(g, *variant) for _ in range(20)}
    assert counts == {expected}


def test_graph_built_on_the_gpu_matches_the_host():
    src, dst = rmat(14, 16, seed=3)
    host = CSRGraph.from_edges(src, dst)
    dev = CSRGraph.from_edges(cupy.asarray(src), cupy.asarray(dst))
    assert isinstance(dev.indices, cupy.ndarray)
    assert dev.n_vertices == host.n_vertices and dev.n_edges == host.n_edges
    assert np.array_equal(dev.indices.get(), host.indices)
    ho, do = host.oriented(), dev.oriented()
    assert np.array_equal(do.indptr.get(), ho.indptr)
    assert np.array_equal(do.indices.get(), ho.indices)
    assert gpu_count(dev, "merge", {}) == cpu_count(host)


def test_rmat_on_the_gpu_matches_numpy():
    s_np, d_np = rmat(12, 8, seed=5)
    s_cp, d_cp = rmat(12, 8, seed=5, xp=cupy)
    assert np.array_equal(s_cp.get(), s_np) and np.array_equal(d_cp.get(), d_np)


@pytest.mark.parametrize("staged", [False, True], ids=["pageable", "staged"])
def test_a_host_graph_copied_to_the_device_either_way(monkeypatch, staged):
    # CSRGraph.to_device takes the pinned, staged copy (its csr_to_device twin) past
    # STAGED_COPY_MIN_BYTES (forced here for a small graph) and CuPy's own copy below it:
    # the same arrays, the same count.
    import tricount
    from tricount.gpu import chunks

    monkeypatch.setattr(chunks, "STAGED_COPY_MIN_BYTES", 0 if staged else 1 << 62)
    host = CSRGraph.from_edges(*rmat(12, 16, seed=7))
    dev = host.to_device(cupy)
    assert isinstance(dev.indices, cupy.ndarray) and dev.indices.dtype == host.indices.dtype
    assert (cupy.asnumpy(dev.indptr) == host.indptr).all()
    assert (cupy.asnumpy(dev.indices) == host.indices).all()
    assert tricount.count(dev, backend="gpu").n_triangles == cpu_count(host)
