"""The loaders' counting-sort build agrees with CSRGraph.from_edges, array for array."""

from __future__ import annotations

import numpy as np
import pytest

from tricount.graph import CSRGraph


def build_graph(chunks, **kwargs):
    return CSRGraph.from_chunks(chunks, **kwargs)


def _chunked(src, dst, rng):
    chunks, k = [], 0
    while k < src.shape[0]:
        step = int(rng.integers(1, 60))
        dtype = np.int32 if (src.shape[0] == 0 or max(src.max(), dst.max()) < 2**31) else np.int64
        chunks.append((src[k:k + step].astype(dtype), dst[k:k + step].astype(dtype)))
        k += step
    return chunks


def _assert_same(a: CSRGraph, b: CSRGraph):
    assert (a.n_vertices, a.n_edges) == (b.n_vertices, b.n_edges)
    assert (a.self_loops_dropped, a.duplicates_dropped) == (b.self_loops_dropped,
                                                            b.duplicates_dropped)
    np.testing.assert_array_equal(a.indptr, b.indptr)
    np.testing.assert_array_equal(a.indices, b.indices)
    np.testing.assert_array_equal(a.vertex_ids, b.vertex_ids)
    assert a.indices.dtype == b.indices.dtype


@pytest.mark.parametrize("id_range", [8, 1000, 10**7, 2**62], ids=["tiny", "dense", "sparse",
                                                                   "huge"])
@pytest.mark.parametrize("seed", range(3))
def test_agrees_with_from_edges(id_range, seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(0, 2000))
    src = rng.integers(0, id_range, m, dtype=np.int64)
    dst = rng.integers(0, id_range, m, dtype=np.int64)
    if m:
        src[: m // 10] = dst[: m // 10]  # self-loops
        src = np.concatenate([src, dst[: m // 3], src[: m // 5]])  # reverses and repeats
        dst = np.concatenate([dst, src[: m // 3], dst[: m // 5]])
    expected = CSRGraph.from_edges(src, dst)
    max_id = int(max(src.max(), dst.max())) if src.shape[0] else -1
    _assert_same(build_graph(_chunked(src, dst, rng), max_id=max_id), expected)


def test_hubs_take_the_radix_path():
    # A star plus a clique: rows far longer than the radix threshold.
    hub = np.zeros(5000, dtype=np.int64)
    leaves = np.arange(1, 5001, dtype=np.int64)[::-1].copy()
    src, dst = np.concatenate([hub, leaves]), np.concatenate([leaves, hub])
    expected = CSRGraph.from_edges(src, dst)
    _assert_same(build_graph([(src.copy(), dst.copy())], max_id=5000), expected)


def test_declared_vertices_keep_isolated_ones():
    src, dst = np.array([1, 2], dtype=np.int32), np.array([2, 3], dtype=np.int32)
    g = build_graph([(src, dst)], max_id=3, n_vertices=6, id_base=1)
    assert g.n_vertices == 6 and g.vertex_ids.tolist() == [1, 2, 3, 4, 5, 6]
    assert g.indices.tolist() == [1, 2]


def test_empty():
    g = build_graph([], max_id=-1)
    assert (g.n_vertices, g.n_edges) == (0, 0)
