"""Complete graphs K_n: every pair of distinct vertices, C(n, 3) triangles.

No randomness; the pairs are produced in colex order (``(0, 1), (0, 2), (1, 2),
(0, 3), ...``) by unranking ``0 .. C(n, 2) - 1``, on NumPy or CuPy alike.
K₂₉₅₅ has C(2955, 3) = 4,296,157,285 triangles, past 2³².
"""

from __future__ import annotations

import numpy as np

from tricount.generate._common import check_int, check_lines, check_xp, n_pairs, unrank_pairs
from tricount.prep.canonical import MAX_VERTICES


def complete(n: int, *, xp=np):
    """Generate the complete graph on ``n`` vertices.

    Parameters
    ----------
    n : int
        Vertices ``0 .. n-1``.

    Returns
    -------
    (src, dst) : int64 arrays of length ``n * (n - 1) / 2``, ``src < dst``

    Examples
    --------
    K4 has 6 edges and 4 triangles; each vertex lies in 3 of them.

    >>> src, dst = complete(4)
    >>> list(zip(src.tolist(), dst.tolist()))
    [(0, 1), (0, 2), (1, 2), (0, 3), (1, 3), (2, 3)]
    >>> import tricount
    >>> tricount.count_triangles((src, dst), backend="cpu")
    4
    """
    xp = check_xp(xp)
    n = check_int("n", n, high=MAX_VERTICES)
    check_lines(n_pairs(n), f"the complete graph on {n} vertices", xp)
    return unrank_pairs(xp.arange(n_pairs(n), dtype=xp.uint64), xp)
