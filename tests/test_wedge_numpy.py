"""The NumPy counter (tricount.cpu.wedge_numpy) across its block boundaries.

Blocks end where their wedges reach BLOCK_WEDGES or their anchors fill the byte map's rows;
shrunk to a few wedges and rows, every graph crosses many boundaries, rows are split between
blocks, and the count must not change.
"""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

import tricount
from tricount.cpu import wedge_numpy
from tricount.cpu.wedge_numpy import count_wedges_numpy
from tricount.generate import rmat
from tricount.prep.orient import csr_from_sorted


def test_bowtie_on_a_literal_csr():
    # Two triangles sharing vertex 2, oriented by id (row u holds its v > u):
    #   u:       0      1     2      3     4
    #           [1 2]  [2]   [3 4]  [4]   []
    #   indptr  = 0 2 3 5 6 6
    #   indices = 1 2 2 3 4 4
    bowtie = csr_from_sorted(np.array([0, 0, 1, 2, 2, 3]), np.array([1, 2, 2, 3, 4, 4]), 5, "id")
    assert count_wedges_numpy(bowtie) == 2


@pytest.mark.parametrize("block_wedges, map_bytes", [(1, 1), (3, 64), (17, 1000), (1 << 20, 1 << 22)])
@pytest.mark.parametrize("seed", range(3))
def test_same_count_whatever_the_blocks(monkeypatch, block_wedges, map_bytes, seed):
    monkeypatch.setattr(wedge_numpy, "BLOCK_WEDGES", block_wedges)
    monkeypatch.setattr(wedge_numpy, "MIN_MAP_BYTES", map_bytes)
    monkeypatch.setattr(wedge_numpy, "MAX_MAP_BYTES", map_bytes)
    g = tricount.Graph.from_edges(*rmat(8, 8, seed=seed))
    expected = tricount.count_triangles(g, backend="reference")
    assert count_wedges_numpy(g.oriented()) == expected
    assert count_wedges_numpy(g.upper()) == expected  # any orientation counts each once


@pytest.mark.parametrize("threads", [1, 2, 3, 8])
@pytest.mark.parametrize("seed", range(3))
def test_same_count_on_any_number_of_threads(monkeypatch, threads, seed):
    """Each thread counts every k-th block with a map of its own: with few wedges and rows a
    block, every thread gets blocks, some more than others, and the sum must not change."""
    monkeypatch.setattr(wedge_numpy, "BLOCK_WEDGES", 5)
    monkeypatch.setattr(wedge_numpy, "MIN_THREAD_WEDGES", 1)
    monkeypatch.setattr(wedge_numpy, "MAX_THREADS", 64)
    monkeypatch.setattr(wedge_numpy, "MIN_MAP_BYTES", 200)
    monkeypatch.setattr(wedge_numpy, "MAX_MAP_BYTES", 200)
    g = tricount.Graph.from_edges(*rmat(9, 8, seed=seed))
    expected = tricount.count_triangles(g, backend="reference")
    assert count_wedges_numpy(g.oriented(), threads=threads) == expected


def test_threads_share_blocks_within_the_maps_bound(monkeypatch):
    """No more threads than blocks, nor than MAX_THREADS, MAX_MAPS_BYTES of maps or
    MIN_THREAD_WEDGES allow."""
    started = []
    real = wedge_numpy.ThreadPoolExecutor

    def pool(max_workers, **kwargs):
        started.append(max_workers)
        return real(max_workers=max_workers, **kwargs)

    monkeypatch.setattr(wedge_numpy, "ThreadPoolExecutor", pool)
    g = tricount.Graph.from_edges(*rmat(9, 8, seed=1))
    expected = tricount.count_triangles(g, backend="reference")
    assert count_wedges_numpy(g.oriented(), threads=4) == expected
    assert started == []  # one block (a small graph): no pool
    monkeypatch.setattr(wedge_numpy, "BLOCK_WEDGES", 100)
    monkeypatch.setattr(wedge_numpy, "MIN_THREAD_WEDGES", 100)
    assert count_wedges_numpy(g.oriented(), threads=4) == expected
    assert started == [4]
    assert count_wedges_numpy(g.oriented(), threads=16) == expected
    assert started == [4, wedge_numpy.MAX_THREADS]
    del started[1:]
    map_bytes = wedge_numpy.map_rows(g.n_vertices) * g.n_vertices
    monkeypatch.setattr(wedge_numpy, "MAX_MAPS_BYTES", 2 * map_bytes)
    assert count_wedges_numpy(g.oriented(), threads=4) == expected
    assert started == [4, 2]
    monkeypatch.setattr(wedge_numpy, "MIN_THREAD_WEDGES", 1 << 40)
    assert count_wedges_numpy(g.oriented(), threads=4) == expected
    assert started == [4, 2]  # too few wedges for a second thread


@pytest.mark.parametrize("dense_max", [0, 1 << 40], ids=["walk", "dense"])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 30])
def test_complete_and_empty(monkeypatch, n, dense_max):
    monkeypatch.setattr(wedge_numpy, "DENSE_MAX_CELLS", dense_max)
    src, dst = np.triu_indices(n, k=1)
    g = tricount.Graph.from_edges(src, dst)
    assert count_wedges_numpy(g.oriented()) == comb(n, 3)


@pytest.mark.parametrize("seed", range(4))
def test_the_dense_count_and_the_walk_agree(monkeypatch, seed):
    """Graphs small enough for the dense count (module doc), counted both ways, by the
    degree orientation and by id, against the reference."""
    rng = np.random.default_rng(seed)
    for n in (5, 20, 60):
        src, dst = rng.integers(0, n, size=(2, 4 * n))
        g = tricount.Graph.from_edges(src, dst)
        expected = tricount.count_triangles(g, backend="reference")
        for oriented in (g.oriented(), g.upper()):
            assert g.n_vertices * g.n_edges <= wedge_numpy.DENSE_MAX_CELLS
            assert count_wedges_numpy(oriented) == expected
            monkeypatch.setattr(wedge_numpy, "DENSE_MAX_CELLS", 0)
            assert count_wedges_numpy(oriented) == expected
            monkeypatch.undo()
