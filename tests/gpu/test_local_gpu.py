"""Per-vertex and per-edge counts, clustering and truss on the GPU, judged by the CPU.

Every GPU result must equal the CPU engine's exactly (the CPU is judged
against NetworkX and the oracle in tests/local/). Sizes straddle the warp
(32), group (8) and block (256) boundaries; one run uses the tiniest launch
(one block of one warp); one forces 64-bit vertex and edge ids.
"""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu
cupy = pytest.importorskip("cupy")

from tricount.gpu import probe  # noqa: E402

_usable, _why = probe()
if not _usable:
    pytest.skip(f"no usable GPU: {_why}", allow_module_level=True)

import networkx as nx  # noqa: E402

import tricount  # noqa: E402
from tricount.backends._local import support_aligned  # noqa: E402
from tricount.backends.gpu import GPU  # noqa: E402
from tricount.cpu.edge_support import edge_support_merge  # noqa: E402
from tricount.prep.edge_ids import oriented_edge_ids  # noqa: E402
from tricount.prep.orient import OrientedCSR  # noqa: E402

from graphs import NAMED, NOISY  # noqa: E402


def graph_of(pairs, n_vertices=None):
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    return tricount.Graph.from_edges(pairs[:, 0], pairs[:, 1], n_vertices=n_vertices)


def complete(n):
    i, j = np.triu_indices(n, 1)
    return graph_of(np.stack([i, j], axis=1), n_vertices=n)


def fan(n_rim):
    """Hub 0 joined to 1..n_rim, plus the rim path: one triangle per rim edge."""
    leaves = np.arange(1, n_rim + 1)
    spokes = np.stack([np.zeros_like(leaves), leaves], axis=1)
    rim = np.stack([leaves[:-1], leaves[1:]], axis=1)
    return graph_of(np.concatenate([spokes, rim]))


def rmat_graph(scale, edge_factor=16, seed=1):
    from tricount.generate import rmat

    src, dst = rmat(scale, edge_factor, seed=seed)
    return tricount.Graph.from_edges(src, dst, name=f"rmat-s{scale}")


SIZES = [complete(n) for n in (3, 7, 8, 9, 31, 32, 33, 65, 257)] + \
        [fan(n) for n in (7, 8, 9, 31, 32, 33, 255, 256, 257, 2049)]


def assert_same_everywhere(g):
    for name in ("triangles", "edge_support", "clustering", "truss_decomposition"):
        want = getattr(tricount, name)(g, backend="cpu")
        got = getattr(tricount, name)(g, backend="gpu")
        assert isinstance(got, np.ndarray) and got.dtype == want.dtype, name
        assert np.array_equal(got, want), (name, g)
    assert tricount.transitivity(g, backend="gpu") == tricount.transitivity(g, backend="cpu")
    for k in (3, 4, 5):
        h_gpu, h_cpu = (tricount.k_truss(g, k, backend=b) for b in ("gpu", "cpu"))
        assert h_gpu.vertex_ids.tolist() == h_cpu.vertex_ids.tolist(), k
        assert all(np.array_equal(cupy.asnumpy(a), np.asarray(b))
                   for a, b in zip(h_gpu.edges(), h_cpu.edges())), k


@pytest.mark.parametrize("name", sorted({**NAMED, **NOISY}))
def test_named_graphs(name):
    src, dst, n_triangles, per_vertex = {**NAMED, **NOISY}[name]
    g = tricount.Graph.from_edges(src, dst)
    got = tricount.triangles(g, backend="gpu")
    assert tricount.vertex_dict(g, got) == per_vertex
    assert int(got.sum()) == 3 * n_triangles
    assert int(tricount.edge_support(g, backend="gpu").sum()) == 3 * n_triangles
    assert_same_everywhere(g)


@pytest.mark.parametrize("index", range(len(SIZES)))
def test_sizes_across_warp_group_and_block_boundaries(index):
    assert_same_everywhere(SIZES[index])


@pytest.mark.parametrize("scale", [8, 11, 14])
def test_rmat_graphs(scale):
    g = rmat_graph(scale)
    n_triangles = tricount.count_triangles(g, backend="cpu")
    assert int(tricount.triangles(g, backend="gpu").sum()) == 3 * n_triangles
    assert int(tricount.edge_support(g, backend="gpu").sum()) == 3 * n_triangles
    assert_same_everywhere(g)


def test_networkx_agrees_through_the_gpu():
    G = nx.powerlaw_cluster_graph(500, 5, 0.3, seed=3)
    g = tricount.Graph.from_networkx(G)
    assert tricount.vertex_dict(g, tricount.triangles(g, backend="gpu")) == nx.triangles(G)
    assert tricount.vertex_dict(g, tricount.clustering(g, backend="gpu")) == nx.clustering(G)
    assert tricount.transitivity(g, backend="gpu") == nx.transitivity(G)


def test_graph_already_on_the_device():
    g = rmat_graph(10).to_device(cupy)
    host = rmat_graph(10)
    assert np.array_equal(tricount.triangles(g, backend="gpu"),
                          tricount.triangles(host, backend="cpu"))
    h = tricount.k_truss(g, 4, backend="gpu")
    assert h.n_edges == tricount.k_truss(host, 4, backend="cpu").n_edges


def test_tiny_launches_and_every_group_size():
    from tricount.gpu.edge_support import edge_support_counts
    from tricount.gpu.per_vertex import per_vertex_counts

    g = rmat_graph(9)
    oriented = g.to_device(cupy).oriented()
    want_pv = tricount.triangles(g, backend="cpu")
    want_es = support_aligned(g, edge_support_merge)
    order = cupy.asnumpy(oriented_edge_ids(g.to_device(cupy), oriented))
    for group in (1, 2, 4, 8, 16, 32):
        for block, grid in ((32, 1), (256, None)):
            pv = per_vertex_counts(oriented, block_size=block, group_size=group, grid_size=grid)
            assert np.array_equal(cupy.asnumpy(pv), want_pv), (group, block, grid)
            es = cupy.asnumpy(edge_support_counts(oriented, block_size=block, group_size=group,
                                                  grid_size=grid))
            assert np.array_equal(es, want_es[order]), (group, block, grid)


def test_truss_group_sizes():
    import functools

    from tricount.gpu import truss as gpu_truss

    g = rmat_graph(10)
    want = tricount.truss_decomposition(g, backend="cpu")
    original = gpu_truss.peel_frontier
    try:
        for group in (1, 4, 32):
            gpu_truss.peel_frontier = functools.partial(original, group_size=group, block_size=64)
            got, removed = GPU.peel(g)
            assert removed.all() and np.array_equal(got, want), group
    finally:
        gpu_truss.peel_frontier = original


def test_64_bit_vertex_and_edge_ids():
    from tricount.gpu.edge_support import edge_support_counts
    from tricount.gpu.per_vertex import per_vertex_counts
    from tricount.gpu.truss import peel_frontier
    from tricount.prep.edge_ids import adjacency_with_edge_ids
    from tricount.backends._local import peel

    g = rmat_graph(9).to_device(cupy)
    o = g.oriented()
    wide = OrientedCSR(o.indptr, o.rows.astype(cupy.int64), o.indices.astype(cupy.int64),
                       o.n_vertices, o.n_edges, o.max_out_degree, o.order)
    assert np.array_equal(cupy.asnumpy(per_vertex_counts(wide)), cupy.asnumpy(per_vertex_counts(o)))
    adj = adjacency_with_edge_ids(g)
    support = support_aligned(g, edge_support_counts).astype(cupy.int32)
    lo, hi = g.edges()
    wide_adj = (adj.indptr, adj.cols.astype(cupy.int64), adj.eid.astype(cupy.int64))
    got, _ = peel(wide_adj, lo.astype(cupy.int64), hi.astype(cupy.int64), support.copy(),
                  peel_frontier=peel_frontier)
    want = tricount.truss_decomposition(rmat_graph(9), backend="cpu")
    assert np.array_equal(cupy.asnumpy(got), want)
