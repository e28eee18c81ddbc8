"""A count from device edge arrays without the graph's build (the entries route).

tricount.gpu.prepare.entries buckets the entries straight into the rank-oriented
DAG (kernels/rows.cu); every array it returns is compared element by element with
the portable route of tricount.prep.entries run on the same CuPy input: drawn entry
lists (loops, repeats, one or both directions, sparse ids), R-MAT graphs, and rows
long enough for each of the unique kernels' three paths (registers, a warp's shared
memory, a block). Counts through tricount.count are checked against the reference
and the built graph's count, with the summary the built graph reports.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
from gpu_support import require_gpu  # noqa: E402

pytestmark = pytest.mark.gpu
require_gpu()

import cupy  # noqa: E402

import tricount  # noqa: E402
from tricount import CSRGraph  # noqa: E402
from tricount.generate import rmat  # noqa: E402
from tricount.gpu import engine  # noqa: E402
from tricount.gpu.prepare import entries as gpu_entries  # noqa: E402
from tricount.prep import entries as portable  # noqa: E402
from tricount.reference import count_triangles  # noqa: E402


def same(a, b):
    a, b = cupy.asnumpy(a), cupy.asnumpy(b)
    assert a.shape == b.shape
    np.testing.assert_array_equal(a.astype(np.int64), b.astype(np.int64))


def same_route(src, dst):
    """The GPU's route of device arrays ``src``, ``dst``, checked against the portable one."""
    src, dst = cupy.asarray(src), cupy.asarray(dst)
    got = gpu_entries.orient_entries(src, dst)
    assert got is not None
    want = portable.orient_entries(src, dst)
    for name in ("indptr", "rows", "indices"):
        same(getattr(got.oriented, name), getattr(want.oriented, name))
    for name in ("n_vertices", "n_edges", "max_out_degree", "order"):
        assert getattr(got.oriented, name) == getattr(want.oriented, name), name
    assert got.summary() == want.summary()
    return got


def both_directions(src, dst):
    return np.concatenate([src, dst]), np.concatenate([dst, src])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 60), st.integers(0, 60)), min_size=1, max_size=400),
       st.booleans(), st.sampled_from([np.int32, np.int64]))
def test_drawn_entries_give_the_portable_arrays(pairs, symmetric, dtype):
    src = np.array([u for u, _ in pairs], dtype=dtype)
    dst = np.array([v for _, v in pairs], dtype=dtype)
    if symmetric:
        src, dst = both_directions(src, dst)
    same_route(src, dst)


@pytest.mark.parametrize("n", [9, 40, 600])  # rows of 16, 78 and 1,198 entries
def test_complete_graphs_take_every_unique_path(n):
    u, v = np.triu_indices(n, 1)
    src, dst = both_directions(u, v)
    route = same_route(src, dst)
    assert route.oriented.n_edges == n * (n - 1) // 2
    got = tricount.count((cupy.asarray(src), cupy.asarray(dst)), backend="gpu")
    assert got.n_triangles == n * (n - 1) * (n - 2) // 6


def test_a_row_of_repeats_longer_than_a_warps_share():
    # 6,000 copies of one edge in both directions: one row of 12,000 entries (a block's).
    src = np.concatenate([np.zeros(6000, np.int64), np.ones(6000, np.int64), [0, 1, 2]])
    dst = np.concatenate([np.ones(6000, np.int64), np.zeros(6000, np.int64), [2, 2, 0]])
    route = same_route(src, dst)
    assert route.duplicates_dropped == 2 * 5999  # (0, 2) and (2, 0): two directed lines


def test_a_row_past_a_blocks_shared_memory_takes_the_build():
    src = cupy.concatenate([cupy.zeros(200_000, cupy.int64), cupy.arange(1, 4)])
    dst = cupy.concatenate([cupy.ones(200_000, cupy.int64), cupy.array([2, 3, 1])])
    assert gpu_entries.orient_entries(src, dst) is None
    assert tricount.count((src, dst), backend="gpu").n_triangles == 1  # 1-2-3


@pytest.mark.parametrize("scale", [10, 14, 16])
def test_rmat_graphs_give_the_portable_arrays_and_the_built_count(scale):
    src, dst = rmat(scale, 16, seed=scale, xp=cupy)
    src, dst = cupy.concatenate([src, dst]), cupy.concatenate([dst, src])
    route = same_route(src, dst)
    got, summary = engine.count_entries(src, dst)
    built = CSRGraph.from_edges(src, dst)
    assert got.n_triangles == engine.count(built).n_triangles
    for fact in ("vertices", "edges", "self_loops_dropped", "duplicates_dropped"):
        assert summary[fact] == built.summary()[fact], fact
    assert route.oriented.n_edges == built.n_edges
    if scale == 10:
        assert got.n_triangles == count_triangles(cupy.asnumpy(src), cupy.asnumpy(dst))


@pytest.mark.parametrize("method", ["auto", "hash", "wedge", "bitwedge"])
def test_the_public_count_takes_the_route(monkeypatch, method):
    taken = []
    real = engine.count_entries

    def spy(*args, **kwargs):
        taken.append(True)
        return real(*args, **kwargs)

    monkeypatch.setattr(engine, "ENTRIES_ROUTE_MIN", 0)
    monkeypatch.setattr(engine, "count_entries", spy)
    src, dst = rmat(12, 16, seed=3, xp=cupy)
    src, dst = cupy.concatenate([src, dst, src[:50]]), cupy.concatenate([dst, src, dst[:50]])
    got = tricount.count((src, dst), backend="gpu", method=method)
    built = CSRGraph.from_edges(src, dst)
    assert taken == [True]
    assert got.n_triangles == count_triangles(cupy.asnumpy(src), cupy.asnumpy(dst))
    for fact in ("vertices", "edges", "self_loops_dropped", "duplicates_dropped"):
        assert got.graph[fact] == built.summary()[fact], fact
    assert got.timings["load_s"] == 0.0 and got.timings["preprocess_s"] > 0.0
    if method != "auto":
        assert got.method == method


def test_options_the_route_does_not_take_build_the_graph(monkeypatch):
    monkeypatch.setattr(engine, "ENTRIES_ROUTE_MIN", 0)
    monkeypatch.setattr(engine, "count_entries", lambda *a, **k: pytest.fail("route taken"))
    src, dst = rmat(10, 16, seed=2, xp=cupy)
    want = count_triangles(cupy.asnumpy(src), cupy.asnumpy(dst))
    assert tricount.count((src, dst), backend="gpu", orientation="id").n_triangles == want
    assert tricount.count((src, dst), backend="gpu", max_memory=2**30).n_triangles == want
    assert tricount.count((cupy.asnumpy(src), cupy.asnumpy(dst)),
                          backend="gpu").n_triangles == want


def test_bad_ids_are_named_by_the_build():
    src, dst = cupy.array([0, 1, -2]), cupy.array([1, 2, 0])
    assert gpu_entries.orient_entries(src, dst) is None
    with pytest.raises(tricount.TricountError):
        tricount.count((src, dst), backend="gpu")
