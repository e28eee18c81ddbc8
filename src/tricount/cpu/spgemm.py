"""CPU linear-algebra counter: sum((L @ L) .* L) with SciPy sparse (Sandia_LL).

Counts: distinct triangles. L is the strictly lower-triangular adjacency of the
degree-oriented graph (entry (v, u) for the oriented edge u -> v). (L @ L)[c, a]
counts paths c <- b <- a, i.e. a -> b -> c; masking by L keeps the ones closed
by a -> c, so each triangle a < b < c is counted once, at entry (c, a).
SciPy's product is single-threaded; this method exists to compare formulations.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def count_spgemm(oriented) -> int:
    """Triangles of a degree-oriented CSR (NumPy arrays) as sum((L @ L) .* L)."""
    n = oriented.n_vertices
    if oriented.n_edges == 0:
        return 0
    data = np.ones(oriented.n_edges, dtype=np.int64)  # int64: entries of L @ L can exceed 2**31
    upper = sp.csr_array((data, oriented.indices, oriented.indptr), shape=(n, n))
    lower = upper.T.tocsr()
    product = lower @ lower
    return int(product.multiply(lower).sum())
