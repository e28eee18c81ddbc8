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
