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


@pytest.mark.parametrize("n", [0, 1, 2, 3, 30])
def test_complete_and_empty(n):
    src, dst = np.triu_indices(n, k=1)
    g = tricount.Graph.from_edges(src, dst)
    assert count_wedges_numpy(g.oriented()) == comb(n, 3)
