"""Stars: one hub joined to ``n_leaves`` leaves, no triangles at all.

The hub is vertex 0 and the leaves are ``1 .. n_leaves`` (NetworkX's
``star_graph(n_leaves)``). The hub's degree is ``n_leaves``, the worst case for
kernels that give a vertex's whole list to one thread, yet there is no wedge
closed: a star has exactly zero triangles.
"""

from __future__ import annotations

import numpy as np

from tricount.generate._common import check_int, check_lines, check_xp
from tricount.prep.canonical import MAX_VERTICES


def star(n_leaves: int, *, xp=np):
    """Generate the star with hub 0 and leaves ``1 .. n_leaves``.

    Returns
    -------
    (src, dst) : int64 arrays of length ``n_leaves``; ``src`` is all zeros

    Examples
    --------
    >>> src, dst = star(4)
    >>> src.tolist(), dst.tolist()
    ([0, 0, 0, 0], [1, 2, 3, 4])
    >>> import tricount
    >>> tricount.count_triangles((src, dst), backend="cpu")
    0
    """
    xp = check_xp(xp)
    n_leaves = check_int("n_leaves", n_leaves, high=MAX_VERTICES - 1)
    check_lines(n_leaves, f"the star of {n_leaves} leaves", xp)
    return xp.zeros(n_leaves, dtype=xp.int64), xp.arange(1, n_leaves + 1, dtype=xp.int64)
