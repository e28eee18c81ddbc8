"""Named small graphs whose triangle counts can be checked on paper.

Each entry is (src, dst, n_triangles, per_vertex) with per_vertex keyed by
vertex id; ``sum(per_vertex.values()) == 3 * n_triangles`` always.
"""

from __future__ import annotations

from itertools import combinations

import pytest


def _complete(n):
    pairs = list(combinations(range(n), 2))
    return [u for u, _ in pairs], [v for _, v in pairs]


def _graph(edges, n_triangles, per_vertex):
    src = [u for u, _ in edges]
    dst = [v for _, v in edges]
    return src, dst, n_triangles, per_vertex


#   0 - 1          one edge, no triangle
EDGE = _graph([(0, 1)], 0, {0: 0, 1: 0})

#     0            the triangle
#    / \
#   1 - 2
TRIANGLE = _graph([(0, 1), (1, 2), (2, 0)], 1, {0: 1, 1: 1, 2: 1})

# K4: C(4, 3) = 4 triangles, each vertex in C(3, 2) = 3 of them.
K4 = _graph(list(combinations(range(4), 2)), 4, {v: 3 for v in range(4)})

# K5 minus the edge {0, 1}: C(5, 3) = 10 triangles, minus the 3 that used edge {0, 1}:
#   {0,2,3} {0,2,4} {0,3,4} {1,2,3} {1,2,4} {1,3,4} {2,3,4}
K5_MINUS_EDGE = _graph([e for e in combinations(range(5), 2) if e != (0, 1)], 7,
                       {0: 3, 1: 3, 2: 5, 3: 5, 4: 5})

#   0       3      bowtie: two triangles sharing vertex 2
#   | \   / |
#   |  2    |
#   | /   \ |
#   1       4
BOWTIE = _graph([(0, 1), (0, 2), (1, 2), (2, 3), (2, 4), (3, 4)], 2,
                {0: 1, 1: 1, 2: 2, 3: 1, 4: 1})

# Star with hub 0 and 6 leaves: no triangles.
STAR = _graph([(0, leaf) for leaf in range(1, 7)], 0, {v: 0 for v in range(7)})

# Path 0-1-2-3-4: no triangles.
PATH = _graph([(i, i + 1) for i in range(4)], 0, {v: 0 for v in range(5)})

# Disconnected: a triangle {0,1,2}, a K4 {10..13} and an isolated edge {20, 21}.
DISCONNECTED = _graph(
    [(0, 1), (1, 2), (0, 2)] + [(a + 10, b + 10) for a, b in combinations(range(4), 2)]
    + [(20, 21)],
    5,
    {0: 1, 1: 1, 2: 1, 10: 3, 11: 3, 12: 3, 13: 3, 20: 0, 21: 0},
)

EMPTY = ([], [], 0, {})

NAMED = {
    "empty": EMPTY,
    "edge": EDGE,
    "triangle": TRIANGLE,
    "K4": K4,
    "K5-minus-edge": K5_MINUS_EDGE,
    "bowtie": BOWTIE,
    "star": STAR,
    "path": PATH,
    "disconnected": DISCONNECTED,
}


def with_noise(entry):
    """The same graph written badly: reversed copies, repeats and self-loops added."""
    src, dst, n_triangles, per_vertex = entry
    noisy_src = list(src) + list(dst) + list(src[:2]) + [v for v in per_vertex][:2]
    noisy_dst = list(dst) + list(src) + list(dst[:2]) + [v for v in per_vertex][:2]
    return noisy_src, noisy_dst, n_triangles, per_vertex


NOISY = {f"{name}+noise": with_noise(entry) for name, entry in NAMED.items()}


def complete_graph(n):
    """Edges of K_n; it has C(n, 3) triangles."""
    return _complete(n)


#: On a test that takes the ``real_graphs`` fixture (tests/conftest.py): the small real
#: graphs in the default suite, the large ones marked slow.
BY_REAL_SIZE = pytest.mark.parametrize(
    "real_graphs", ["small", pytest.param("large", marks=pytest.mark.slow)], indirect=True)
