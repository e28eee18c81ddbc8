"""2-D grids: ``rows x cols`` lattice graphs, triangle-free.

Vertex ``(r, c)`` has id ``r * cols + c`` and is joined to its right and lower
neighbours. A grid is bipartite (colour by ``r + c``), so it has no odd cycle
and no triangle. With ``periodic=True`` the grid wraps into a torus; a torus
whose sides are both at least 4 is still triangle-free, while a side of 3 closes
each row or column of that length into a triangle.
"""

from __future__ import annotations

import numpy as np

from tricount.errors import InvalidArgumentError
from tricount.generate._common import check_int, check_lines, check_xp
from tricount.prep.canonical import MAX_VERTICES


def grid_name(rows: int, cols: int, periodic: bool = False) -> str:
    return f"{'torus' if periodic else 'grid'}-{rows}x{cols}"


def grid(rows: int, cols: int, *, periodic: bool = False, xp=np):
    """Generate a ``rows x cols`` grid (or torus) graph.

    Parameters
    ----------
    rows, cols : int
        Grid sides; ``rows * cols`` vertices.
    periodic : bool
        Wrap both sides (a torus; needs ``rows, cols >= 3``).

    Returns
    -------
    (src, dst) : int64 arrays
        ``rows * (cols - 1) + cols * (rows - 1)`` edges, or ``2 * rows * cols``
        on a torus: horizontal edges first, then vertical ones.

    Examples
    --------
    >>> src, dst = grid(2, 3)
    >>> list(zip(src.tolist(), dst.tolist()))
    [(0, 1), (1, 2), (3, 4), (4, 5), (0, 3), (1, 4), (2, 5)]
    >>> import tricount
    >>> tricount.count_triangles((src, dst), backend="cpu")
    0
    """
    xp = check_xp(xp)
    rows = check_int("rows", rows)
    cols = check_int("cols", cols)
    if not isinstance(periodic, (bool, np.bool_)):  # "no" is truthy: a torus nobody asked for
        raise InvalidArgumentError(f"periodic must be True or False, got {periodic!r}")
    if rows * cols > MAX_VERTICES:
        raise InvalidArgumentError(f"a {rows} x {cols} grid has more than {MAX_VERTICES} vertices")
    if periodic and min(rows, cols) < 3:
        raise InvalidArgumentError(
            f"a periodic grid needs both sides >= 3 (smaller sides repeat edges), "
            f"got {rows} x {cols}"
        )
    lines = 2 * rows * cols if periodic else rows * (cols - 1) + cols * (rows - 1)
    check_lines(lines, f"the {rows} x {cols} grid", xp)
    vertex = xp.arange(rows * cols, dtype=xp.int64).reshape(rows, cols)
    if periodic:
        right = xp.roll(vertex, -1, axis=1)
        down = xp.roll(vertex, -1, axis=0)
        src = xp.concatenate([vertex.ravel(), vertex.ravel()])
        dst = xp.concatenate([right.ravel(), down.ravel()])
    else:
        src = xp.concatenate([vertex[:, :-1].ravel(), vertex[:-1, :].ravel()])
        dst = xp.concatenate([vertex[:, 1:].ravel(), vertex[1:, :].ravel()])
    return src, dst
