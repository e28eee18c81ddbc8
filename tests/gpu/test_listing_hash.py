"""The GPU lister on the hash method's sets (kernels/listing.cu), judged by the CPU lister.

Every case asks for the same rows as
:func:`tricount.cpu.listing.list_triangles_cpu` (sorted, the two are equal:
each triangle once), in one order for every launch shape and chunk size (the
hash plan's pair order, which docs/api.md promises fixed by the graph), and
for a total equal to the count. The shapes force each path of
the kernel on small graphs: every list read by a warp (ballot ranks) or by one
thread, every task a block's, tables too small for the owner (the binary-search
fallback), one-probe tasks (many tasks, most skipped by a small window), the
widest block, tasks in owner order. A hub of out-degree 5,000 takes the
fallback under the default shape (its table needs more than the block's 32 KiB).
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

import tricount  # noqa: E402
import tricount.gpu.listing as gpu_listing  # noqa: E402
from tricount.cpu.listing import list_triangles_cpu  # noqa: E402
from tricount.generate import rmat  # noqa: E402
from tricount.gpu.listing import GpuLister, iter_columns_gpu, list_triangles_gpu  # noqa: E402
from tricount.gpu.plan import HashShape  # noqa: E402
from tricount.prep.orient import OrientedCSR  # noqa: E402

# tests/ is on the path (pyproject.toml): the graph builders of the older GPU listing tests.
from analytics.test_analytics_gpu import complete, fan, graph_of  # noqa: E402

SHAPES = {
    "default": None,
    "warp-lists": HashShape(long_list=1),
    "thread-lists": HashShape(long_list=1 << 30),
    "block-fallback": HashShape(block_work=0, block_table_bytes=128),
    "tiny-tasks": HashShape(block_size=64, warp_slots=32, max_task=1, min_task=1, unroll=1),
    "wide": HashShape(block_size=1024, warp_slots=64, unroll=2, spread=2),
    "by-owner": HashShape(by_owner=True, unroll=8),
}


GRAPHS = {f"K{n}": complete(n) for n in (3, 9, 40)} | {"fan300": fan(300)} | \
    {f"rmat{s}": tricount.Graph.from_edges(*rmat(s, 8, seed=s)) for s in (8, 11)}


def wide(oriented):
    """The same CSR with int64 vertex ids (TC_VERTEX_T = long long)."""
    return OrientedCSR(oriented.indptr, oriented.rows.astype(cupy.int64),
                       oriented.indices.astype(cupy.int64), oriented.n_vertices,
                       oriented.n_edges, oriented.max_out_degree, oriented.order)


def sorted_rows(rows):
    return rows[np.lexsort(rows.T[::-1])]


def want_rows(upper_cpu, labels):
    """The CPU lister's rows (from the graph's upper CSR), sorted: every triangle once."""
    n = upper_cpu.n_vertices
    labels = np.arange(n, dtype=np.int64) if labels is None else labels
    chunks = list(list_triangles_cpu(upper_cpu, labels, 1 << 20))
    return sorted_rows(np.concatenate(chunks) if chunks else np.zeros((0, 3), dtype=np.int64))


def got_rows(oriented_gpu, labels, chunk_size, **tunables):
    chunks = list(list_triangles_gpu(oriented_gpu, labels, chunk_size, **tunables))
    return np.concatenate(chunks) if chunks else np.zeros((0, 3), dtype=np.int64)


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_same_rows_as_the_cpu(name, shape):
    g = GRAPHS[name]
    labels = np.arange(g.n_vertices, dtype=np.int64) * 7 + 3
    want = want_rows(g.upper(), labels)
    oriented = g.to_device(cupy).oriented()
    order = got_rows(oriented, labels, 1 << 20)  # the default shape's
    got = got_rows(oriented, labels, 1 << 20, shape=SHAPES[shape])
    assert np.array_equal(sorted_rows(got), want)
    assert np.array_equal(got, order)  # the order depends on the graph alone
    lister = GpuLister(wide(oriented), shape=SHAPES[shape])
    assert lister.n_triangles == want.shape[0] == tricount.count(g, backend="gpu").n_triangles
    assert np.array_equal(labels[got_rows(lister, None, 1 << 20)], order)


@pytest.mark.parametrize("share", [None, 0.0, 1e-7])
@pytest.mark.parametrize("shape", ["default", "tiny-tasks", "block-fallback"])
def test_windows_of_every_size(shape, share, monkeypatch):
    # share: the batch memory of the stream; 0 writes one chunk per launch, 1e-7 of the
    # card's free bytes a few to a hundred chunks per launch, None all in one launch.
    if share is not None:
        monkeypatch.setattr(gpu_listing, "BATCH_MEMORY_SHARE", share)
    g = GRAPHS["rmat11"]
    lister = GpuLister(g.to_device(cupy).oriented(), shape=SHAPES[shape])
    want = got_rows(lister, None, 1 << 20)
    assert np.array_equal(sorted_rows(want), want_rows(g.upper(), None))
    for size in (1, 2, 3, 7, 64, 1000, want.shape[0] - 1, want.shape[0], want.shape[0] + 1):
        chunks = list(list_triangles_gpu(lister, None, size))
        assert all(c.shape == (size, 3) for c in chunks[:-1])
        assert np.array_equal(np.concatenate(chunks), want), size
    pinned = np.concatenate([c.T.copy() for c in iter_columns_gpu(lister, None, 333)])
    assert np.array_equal(pinned, want)
    for size in (5, 1000):  # one launch per chunk, into device arrays
        device = list(list_triangles_gpu(lister, None, size, to_host=False))
        assert np.array_equal(np.concatenate([cupy.asnumpy(c) for c in device]), want)


@pytest.mark.parametrize("n_rim", [1500, 5000])
def test_a_hub_too_long_for_the_shared_table(n_rim):
    # Id orientation keeps the hub 0 as the source of every spoke: out-degree n_rim.
    g = fan(n_rim)
    labels = np.arange(g.n_vertices, dtype=np.int64)[::-1].copy()
    want = want_rows(g.upper(), labels)
    assert want.shape[0] == n_rim - 1
    for ids in (lambda o: o, wide):
        oriented = ids(g.to_device(cupy).upper())
        assert oriented.max_out_degree == n_rim
        order = got_rows(oriented, labels, 1 << 20)
        assert np.array_equal(sorted_rows(order), want)
        assert np.array_equal(got_rows(oriented, labels, 17), order)


def test_shared_graphs_equal_the_cpu(real_graphs):
    assert real_graphs
    for row, g in real_graphs:
        want = want_rows(g.upper(), None)
        lister = GpuLister(g.to_device(cupy).oriented())
        assert lister.n_triangles == want.shape[0] == row["triangles"], row["file"]
        assert np.array_equal(sorted_rows(got_rows(lister, None, 1 << 16)), want), row["file"]


def test_no_triangles_and_no_edges():
    for g in (fan(1), graph_of([(0, 1), (1, 2), (2, 3)]), graph_of(np.zeros((0, 2)))):
        lister = GpuLister(g.to_device(cupy).oriented())
        assert lister.n_triangles == 0 and got_rows(lister, None, 10).shape == (0, 3)
