"""Triangles as data through the public API on the GPU, judged by the CPU.

Device arrays (CuPy, ``__cuda_array_interface__``, DLPack) are built on the GPU
and counted there without a copy to the host; listing, directed and weighted
clustering and the triad census through ``backend="gpu"`` (and the NetworkX
backend with its engine set to the GPU) equal the CPU's results: the same
rows in the same order, the same integers, floats within 1e-12.
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
from tricount.generate import rmat  # noqa: E402
from tricount.inputs import as_graph  # noqa: E402


@pytest.fixture(scope="module")
def edges():
    return rmat(10, 8, seed=11)  # 8,192 lines, thousands of triangles


def test_device_arrays_stay_on_the_device(edges):
    src, dst = (cupy.asarray(a) for a in edges)
    want = tricount.count_triangles(edges, backend="cpu")
    for graph in ((src, dst), cupy.stack([src, dst], axis=1),
                  _Interface(cupy.stack([src, dst], axis=1))):
        g, _ = as_graph(graph)
        assert g.xp is cupy  # built there, never copied to the host
        assert tricount.count_triangles(graph, backend="gpu") == want
    dl = cupy.stack([src, dst], axis=1)
    assert tricount.count_triangles(_DLPack(dl), backend="gpu") == want


class _Interface:
    """Only ``__cuda_array_interface__`` (as Numba's and PyTorch's device arrays)."""

    def __init__(self, a):
        self.__cuda_array_interface__ = a.__cuda_array_interface__
        self._keep = a


class _DLPack:
    def __init__(self, a):
        self._a = a

    def __dlpack__(self, **kwargs):
        return self._a.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


def test_listing_equals_the_cpu(edges):
    # The same rows; the GPU's order (the hash plan's pairs) is its own, fixed by the graph.
    order = None
    for chunk in (1000, 1 << 20):
        cpu = np.concatenate(list(tricount.list_triangles(edges, backend="cpu", chunk_size=chunk)))
        gpu = np.concatenate(list(tricount.list_triangles(edges, backend="gpu", chunk_size=chunk)))
        assert np.array_equal(cpu[np.lexsort(cpu.T[::-1])], gpu[np.lexsort(gpu.T[::-1])])
        order = gpu if order is None else order
        assert np.array_equal(gpu, order)


def test_directed_weighted_and_census_equal_the_cpu(edges):
    src, dst = edges
    w = np.random.default_rng(4).uniform(0.5, 4.0, src.shape[0])
    arcs = (src, dst)
    for kwargs in ({"directed": True}, {"weight": w}, {"weight": w, "directed": True}, {}):
        cpu = tricount.clustering(arcs, backend="cpu", **kwargs)
        gpu = tricount.clustering(arcs, backend="gpu", **kwargs)
        assert np.allclose(cpu, gpu, rtol=1e-12, atol=1e-15), kwargs
    assert tricount.triadic_census(arcs, backend="gpu") == \
        tricount.triadic_census(arcs, backend="cpu")


@pytest.mark.skipif(not hasattr(nx.config.backends, "tricount"),
                    reason="tricount's networkx entry points are not installed (pip install -e .)")
def test_networkx_backend_on_the_gpu(monkeypatch):
    D = nx.gnp_random_graph(80, 0.1, seed=2, directed=True)
    for u, v in D.edges():
        D[u][v]["weight"] = (u * 7 + v) % 5 + 1
    with nx.config.backends.tricount(backend="gpu"):
        assert nx.clustering(D, backend="tricount") == nx.clustering(D)
        assert nx.triadic_census(D, backend="tricount") == nx.triadic_census(D)
        got = nx.clustering(D, weight="weight", backend="tricount")
        want = nx.clustering(D, weight="weight")
        assert got == {k: pytest.approx(v, rel=1e-12, abs=1e-15) for k, v in want.items()}
        G = D.to_undirected()
        assert sorted(nx.all_triangles(G, backend="tricount")) == sorted(nx.all_triangles(G))


# -- host edge arrays counted on the GPU are built there (tricount.gpu.host_edges) --------


@pytest.fixture(scope="module")
def host_rmat16():
    """R-MAT 16's 2^20 lines (past DEVICE_BUILD_MIN_LINES), loops and repeats included."""
    from tricount.gpu.host_edges import DEVICE_BUILD_MIN_LINES

    src, dst = rmat(16, 16, seed=3)
    assert src.shape[0] >= DEVICE_BUILD_MIN_LINES
    return src, dst


def _same_graph(g, want):
    assert g.xp is cupy
    for name in ("indptr", "indices", "vertex_ids"):
        np.testing.assert_array_equal(cupy.asnumpy(getattr(g, name)), getattr(want, name))
    assert (g.n_vertices, g.n_edges, g.self_loops_dropped, g.duplicates_dropped) == (
        want.n_vertices, want.n_edges, want.self_loops_dropped, want.duplicates_dropped)


def _device_built(pair):
    from tricount.gpu.host_edges import edges_for_device

    on_device = edges_for_device(pair)
    assert on_device is not pair  # handed to the device
    return as_graph(on_device)[0]


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint32])
def test_host_edges_for_the_gpu_build_there_array_for_array(host_rmat16, dtype):
    src, dst = (a.astype(dtype) for a in host_rmat16)
    want, _ = as_graph((src, dst))  # the host's build
    assert want.xp is np
    _same_graph(_device_built((src, dst)), want)


def test_sparse_ids_keep_their_labels_on_the_device(host_rmat16):
    src, dst = (a * 1_000_003 + 7 for a in host_rmat16)  # ids far apart: sorted, not mapped
    want, _ = as_graph((src, dst))
    _same_graph(_device_built((src, dst)), want)


def test_lines_past_one_piece_are_built_in_buckets_on_the_device(host_rmat16, monkeypatch):
    from tricount.gpu import host_edges

    src, dst = host_rmat16
    want, _ = as_graph((src, dst))
    g = host_edges.build_bounded_on_device(src, dst, chunk_lines=100_003)
    assert g.xp is np  # the bounded build's graph is the host's, to be counted in parts
    for name in ("indptr", "indices", "vertex_ids"):
        np.testing.assert_array_equal(getattr(g, name), getattr(want, name))
    assert (g.n_vertices, g.n_edges, g.self_loops_dropped, g.duplicates_dropped) == (
        want.n_vertices, want.n_edges, want.self_loops_dropped, want.duplicates_dropped)
    expected = tricount.count(host_rmat16, backend="cpu").n_triangles
    monkeypatch.setattr(host_edges, "builds_on_device", lambda *a: False)  # as if too large
    monkeypatch.setattr(host_edges, "BOUNDED_CHUNK_LINES", 250_000)
    called = []
    real = host_edges.build_bounded_on_device
    monkeypatch.setattr(host_edges, "build_bounded_on_device",
                        lambda *a, **k: called.append(1) or real(*a, **k))
    assert tricount.count(host_rmat16, backend="gpu").n_triangles == expected
    assert tricount.count(host_rmat16, devices="all").n_triangles == expected
    assert called == [1, 1]


@pytest.mark.parametrize("chunk_lines", [1, 1000, 12_345, 1 << 23])
def test_upload_edges_copies_every_chunk(chunk_lines):
    from tricount.gpu.host_edges import upload_edges

    rng = np.random.default_rng(chunk_lines)
    n = 3 if chunk_lines == 1 else 100_003
    for dtype in (np.int64, np.int16, np.uint32):
        src = rng.integers(0, 30_000, n).astype(dtype)
        dst = rng.integers(0, 30_000, n).astype(dtype)
        s, d = upload_edges(src, dst, chunk_lines=chunk_lines)
        assert s.dtype == d.dtype == cupy.int64
        np.testing.assert_array_equal(cupy.asnumpy(s), src.astype(np.int64))
        np.testing.assert_array_equal(cupy.asnumpy(d), dst.astype(np.int64))


def test_host_edges_count_on_the_gpu_as_on_the_cpu(host_rmat16):
    want = tricount.count(host_rmat16, backend="cpu").n_triangles
    assert tricount.count(host_rmat16, backend="gpu").n_triangles == want
    for options in ({"partitions": 3}, {"devices": "all"}, {"devices": [0], "partitions": 2}):
        result = tricount.count(host_rmat16, backend="gpu", **options)
        assert result.n_triangles == want, options


def test_a_bad_id_in_host_edges_is_the_host_builds_error(host_rmat16):
    src, dst = (a.copy() for a in host_rmat16)
    src[12_345] = -4
    with pytest.raises(tricount.InvalidEdgesError) as on_host:
        as_graph((src, dst))
    with pytest.raises(tricount.InvalidEdgesError) as on_device:
        _device_built((src, dst))
    assert str(on_device.value) == str(on_host.value)
    with pytest.raises(tricount.InvalidEdgesError):
        tricount.count((src, dst), backend="gpu")


@pytest.mark.parametrize("where", [0, 500_000, 1_048_575])
def test_an_id_past_int32_in_any_chunk_widens_what_went_narrow(host_rmat16, where, monkeypatch):
    """int64 ids travel as int32 until a chunk holds one past 2**31 - 1: the graph is still
    the host's, array for array, whichever chunk it is in."""
    from tricount import _threads
    from tricount.gpu import host_edges

    monkeypatch.setattr(_threads, "numba_started", lambda: True)  # the narrowing's condition
    monkeypatch.setattr(host_edges, "UPLOAD_CHUNK_LINES", 100_003)
    src, dst = (a.copy() for a in host_rmat16)
    src[where] = 2**31 + 12
    want, _ = as_graph((src, dst))
    _same_graph(_device_built((src, dst)), want)
    s, d = host_edges.upload_edges(src, dst, chunk_lines=100_003)
    np.testing.assert_array_equal(cupy.asnumpy(s), src)
    np.testing.assert_array_equal(cupy.asnumpy(d), dst)


def test_arrays_and_tables_of_ids_count_on_the_gpu_as_on_the_cpu(host_rmat16, monkeypatch):
    pd = pytest.importorskip("pandas")

    from tricount.gpu import host_edges

    want = tricount.count(host_rmat16, backend="cpu").n_triangles
    rows = np.stack(host_rmat16, axis=1)
    handed = []
    real = host_edges.edges_for_device
    monkeypatch.setattr(host_edges, "edges_for_device",
                        lambda graph: handed.append(graph) or real(graph))
    for graph in (rows, pd.DataFrame({"source": rows[:, 0], "target": rows[:, 1]})):
        for options in ({}, {"devices": "all"}):
            result = tricount.count(graph, backend="gpu", **options)
            assert result.n_triangles == want, (type(graph), options)
    assert len(handed) == 4 and all(isinstance(g, tuple) and len(g) == 2 for g in handed)
