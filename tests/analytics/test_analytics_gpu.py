"""Listing, directed and weighted triangles on the GPU, judged by the CPU.

The CPU twins are judged against NetworkX and the oracles in this folder; here
every GPU result must equal the CPU's exactly (listing: the same rows in the
same order; directed: the same counts), or within 1e-12 for the float sums of
weighted clustering. Sizes straddle the group (8), warp (32) and block (256)
boundaries; one run of directed and weighted uses the tiniest launch (one block
of one warp, one lane per edge; the listing's shapes are swept in
tests/gpu/test_listing_hash.py), one forces 64-bit vertex ids, and the stream
is cut at chunk sizes 1, 2 and exact multiples and closed early.
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
from tricount.cpu.directed import directed_triangles_cpu  # noqa: E402
from tricount.cpu.listing import list_triangles_cpu  # noqa: E402
from tricount.cpu.weighted import weighted_triangle_sums_cpu  # noqa: E402
from tricount.directed import directed_graph  # noqa: E402
from tricount.generate import rmat  # noqa: E402
from tricount.gpu.directed import directed_triangles_gpu  # noqa: E402
from tricount.gpu.listing import GpuLister, iter_columns_gpu, list_triangles_gpu  # noqa: E402
from tricount.gpu.weighted import weighted_triangle_sums_gpu  # noqa: E402
from tricount.listing import list_triangles, write_triangles  # noqa: E402
from tricount.prep.edge_ids import oriented_mask  # noqa: E402
from tricount.prep.orient import OrientedCSR  # noqa: E402

TUNINGS = [{}, {"block_size": 32, "group_size": 1}, {"block_size": 1024, "group_size": 32},
           {"group_size": 4}]


def graph_of(pairs):
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    return tricount.Graph.from_edges(pairs[:, 0], pairs[:, 1])


def complete(n):
    i, j = np.triu_indices(n, 1)
    return graph_of(np.stack([i, j], axis=1))


def fan(n_rim):
    leaves = np.arange(1, n_rim + 1)
    spokes = np.stack([np.zeros_like(leaves), leaves], axis=1)
    rim = np.stack([leaves[:-1], leaves[1:]], axis=1)
    return graph_of(np.concatenate([spokes, rim]))


GRAPHS = {f"K{n}": complete(n) for n in (3, 8, 9, 33, 65)} | \
    {f"fan{n}": fan(n) for n in (7, 31, 257, 2049)} | \
    {"rmat10": tricount.Graph.from_edges(*rmat(10, 8, seed=4))}


def oriented_pair(g):
    return g.oriented(), g.to_device(cupy).oriented()


@pytest.fixture(params=[(name, tuning) for name in sorted(GRAPHS) for tuning in TUNINGS],
                ids=lambda p: f"{p[0]}-{p[1]}")
def case(request):
    """(graph, CPU oriented CSR, GPU oriented CSR, launch tunables) for every graph and tuning."""
    name, tuning = request.param
    g = GRAPHS[name]
    return (g, *oriented_pair(g), tuning)


def with_wide_ids(oriented):
    """The same CSR with int64 vertex ids (the kernels' TC_VERTEX_T = long long)."""
    return OrientedCSR(oriented.indptr, oriented.rows.astype(cupy.int64),
                       oriented.indices.astype(cupy.int64), oriented.n_vertices,
                       oriented.n_edges, oriented.max_out_degree, oriented.order)


def sorted_rows(rows):
    return rows[np.lexsort(rows.T[::-1])]


class TestListing:
    # The GPU lists the CPU's rows in its own fixed order (the hash plan's pairs): each
    # comparison with the CPU (which lists from the graph's upper CSR) sorts both; the
    # GPU's order is compared with itself.
    @pytest.mark.parametrize("name", sorted(GRAPHS))
    def test_same_rows(self, name):
        # The listing's launch shapes are swept in tests/gpu/test_listing_hash.py.
        g = GRAPHS[name]
        _, gpu = oriented_pair(g)
        labels = np.arange(g.n_vertices, dtype=np.int64) * 7 + 3
        want = np.concatenate(list(list_triangles_cpu(g.upper(), labels, 1 << 20)))
        got = np.concatenate(list(list_triangles_gpu(gpu, labels, 1 << 20)))
        assert np.array_equal(sorted_rows(got), sorted_rows(want))

    def test_chunk_boundaries(self):
        g = GRAPHS["fan257"]  # 256 triangles
        _, gpu = oriented_pair(g)
        want = np.concatenate(list(list_triangles_gpu(gpu, None, 1000)))
        assert np.array_equal(sorted_rows(want), sorted_rows(np.concatenate(
            list(list_triangles_cpu(g.upper(), np.arange(g.n_vertices), 1000)))))
        for size in (1, 2, 3, 64, 128, 255, 256, 257):
            chunks = list(list_triangles_gpu(gpu, None, size))
            assert all(c.shape == (size, 3) for c in chunks[:-1])
            assert np.array_equal(np.concatenate(chunks), want), size

    def test_device_chunks(self):
        g = GRAPHS["rmat10"]
        _, gpu = oriented_pair(g)
        want = np.concatenate(list(list_triangles_gpu(gpu, None, 100)))
        chunks = list(list_triangles_gpu(gpu, None, 100, to_host=False))
        assert all(isinstance(c, cupy.ndarray) for c in chunks)
        assert np.array_equal(np.concatenate([cupy.asnumpy(c) for c in chunks]), want)
        assert np.array_equal(sorted_rows(want), sorted_rows(np.concatenate(
            list(list_triangles_cpu(g.upper(), np.arange(g.n_vertices), 100)))))

    def test_wide_vertex_ids(self):
        g = GRAPHS["K33"]
        _, gpu = oriented_pair(g)
        want = np.concatenate(list(list_triangles_cpu(g.upper(), np.arange(g.n_vertices), 999)))
        got = np.concatenate(list(list_triangles_gpu(with_wide_ids(gpu), None, 999)))
        assert np.array_equal(sorted_rows(got), sorted_rows(want))

    def test_closed_early_and_reused_buffers(self):
        g = GRAPHS["rmat10"]
        _, gpu = oriented_pair(g)
        stream = iter_columns_gpu(gpu, None, 50)
        first = next(stream).copy()
        stream.close()  # synchronizes; nothing is left running on freed buffers
        again = next(iter_columns_gpu(gpu, None, 50))
        assert np.array_equal(first, again)

    def test_offsets_are_int64(self):
        lister = GpuLister(GRAPHS["K65"].to_device(cupy).oriented())
        assert lister.offsets.dtype == cupy.int64 and lister.n_triangles == 43680

    def test_front_and_parquet(self, tmp_path):
        pq = pytest.importorskip("pyarrow.parquet")
        g = GRAPHS["rmat10"]
        cpu = np.concatenate(list(list_triangles(g, backend="cpu", chunk_size=1000)))
        gpu = np.concatenate(list(list_triangles(g, backend="gpu", chunk_size=1000)))
        assert np.array_equal(sorted_rows(cpu), sorted_rows(gpu))
        n = write_triangles(g, tmp_path / "t.parquet", backend="gpu", chunk_size=1000)
        table = pq.read_table(tmp_path / "t.parquet")
        assert n == cpu.shape[0] and np.array_equal(table["w"].to_numpy(), gpu[:, 2])

    def test_networkx_labels(self):
        G = nx.les_miserables_graph()
        rows = np.concatenate(list(list_triangles(tricount.Graph.from_networkx(G),
                                                  backend="gpu", chunk_size=100)))
        assert set(map(tuple, rows.tolist())) == set(nx.all_triangles(G))


def random_masks(g, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(1, 4, g.n_edges).astype(np.uint8)


class TestDirected:
    def test_same_counts(self, case):
        _g, cpu, gpu, tuning = case
        mask = random_masks(cpu, 1)
        want = directed_triangles_cpu(cpu, mask)
        got = directed_triangles_gpu(gpu, cupy.asarray(mask), **tuning)
        assert np.array_equal(cupy.asnumpy(got[0]), want[0])
        assert np.array_equal(cupy.asnumpy(got[1]), want[1])
        codes_only = directed_triangles_gpu(gpu, cupy.asarray(mask), per_vertex=False)
        assert np.array_equal(cupy.asnumpy(codes_only[1]), want[1])
        assert not cupy.asnumpy(codes_only[0]).any()

    def test_front_matches_networkx(self):
        rng = np.random.default_rng(3)
        src, dst = rng.integers(0, 40, 300), rng.integers(0, 40, 300)
        G = nx.DiGraph()
        G.add_nodes_from(range(40))
        G.add_edges_from(zip(src.tolist(), dst.tolist()))
        from tricount.directed import directed_clustering, triadic_census

        assert triadic_census(G, backend="gpu") == nx.triadic_census(G)
        want = nx.clustering(G)
        assert directed_clustering(G, backend="gpu").tolist() == [want[v] for v in G]
        dg = directed_graph(G).to_device(cupy)
        assert oriented_mask(dg.graph, dg.graph.oriented(), dg.mask).dtype == cupy.uint8


class TestWeighted:
    def test_same_sums(self, case):
        g, cpu, gpu, tuning = case
        factors = np.random.default_rng(2).uniform(0.1, 1.0, g.n_edges)
        want = weighted_triangle_sums_cpu(cpu, factors)
        got = cupy.asnumpy(weighted_triangle_sums_gpu(gpu, cupy.asarray(factors), **tuning))
        assert np.allclose(got, want, rtol=1e-12, atol=1e-12)

    def test_front_matches_networkx(self):
        from tricount.weighted import weighted_clustering

        G = nx.karate_club_graph()
        want = nx.clustering(G, weight="weight")
        got = weighted_clustering(G, backend="gpu")
        assert np.allclose(got, [want[v] for v in G], rtol=1e-12, atol=1e-12)
