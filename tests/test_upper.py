"""The upper-triangular CSR with lazy COO rows: loaders skip the rows, readers still see them."""

from __future__ import annotations

import numpy as np
import pytest

import tricount
from tricount.generate import rmat
from tricount.io import write_graph
from tricount.prep.upper import UpperCSR, coo_rows, rows_by_steps


def _random_csr(rng, n):
    # Empty rows at the start, the end and in between.
    deg = rng.integers(0, 5, n) * (rng.random(n) < 0.5)
    return np.concatenate([[0], np.cumsum(deg)]).astype(np.int64), deg


@pytest.mark.parametrize("seed", range(20))
def test_rows_of_a_csr(seed):
    rng = np.random.default_rng(seed)
    indptr, deg = _random_csr(rng, int(rng.integers(1, 40)))
    want = np.repeat(np.arange(deg.shape[0]), deg)
    for dtype in (np.int32, np.int64):
        got = coo_rows(indptr, dtype)  # the Numba loop
        assert got.dtype == dtype and got.tolist() == want.tolist()
        if want.shape[0]:
            # The running-sum form the GPU uses, run here on NumPy.
            assert rows_by_steps(np, indptr, int(indptr[-1]), dtype).tolist() == want.tolist()


def test_rows_wait_until_read():
    #   K4 minus the edge {0, 3}: rows 0:[1, 2]  1:[2, 3]  2:[3]  3:[]
    indptr = np.array([0, 2, 4, 5, 5], dtype=np.int64)
    indices = np.array([1, 2, 2, 3, 3], dtype=np.int32)
    g = tricount.Graph.from_upper_csr(indptr, indices, 4, vertex_ids=np.arange(4))
    upper = g.upper()
    assert isinstance(upper, UpperCSR) and "rows" not in vars(upper)
    assert g.degrees.tolist() == [2, 3, 3, 2] and "rows" not in vars(upper)
    assert g.max_degree == 3 and g.n_edges == 5 and "rows" not in vars(upper)
    lo, hi = g.edges()
    assert lo.tolist() == [0, 0, 1, 1, 2] and hi.tolist() == [1, 2, 2, 3, 3]
    assert upper.rows is lo and upper.max_out_degree == 2
    assert tricount.count_triangles(g, backend="cpu") == 2


def test_a_reloaded_native_file_has_rows_on_demand(tmp_path):
    src, dst = rmat(10, 8, seed=3)
    g = tricount.Graph.from_edges(src, dst)
    path = tmp_path / "g.tcsr"
    write_graph(path, g)
    back = tricount.load_graph(path)
    assert "rows" not in vars(back.upper())
    np.testing.assert_array_equal(back.edges()[0], g.edges()[0])
    np.testing.assert_array_equal(back.degrees, g.degrees)
    assert tricount.count_triangles(back, backend="cpu") == tricount.count_triangles(
        g, backend="cpu")
