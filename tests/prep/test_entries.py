"""Edge entries straight to the rank-oriented DAG (tricount.prep.entries), on NumPy.

The GPU builds the same arrays by bucketing (tests/gpu/test_entries.py compares them
with these); here the route itself is checked against the graph a user's entries
make: the same edges each once, up the ranks of (raw degree, id), rows sorted, the
summary's facts equal to the built graph's, and the triangles the reference counts.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tricount import CSRGraph
from tricount.prep.entries import orient_entries, raw_degrees
from tricount.reference import count_triangles

entry_lists = st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), min_size=1,
                       max_size=200)


def arrays(entries):
    return (np.array([u for u, _ in entries], dtype=np.int64),
            np.array([v for _, v in entries], dtype=np.int64))


def dag_triangles(oriented) -> int:
    """Triangles of a DAG by out-list intersections, each from its first edge."""
    out = [set(oriented.indices[oriented.indptr[u]:oriented.indptr[u + 1]].tolist())
           for u in range(oriented.n_vertices)]
    return sum(len(out[u] & out[v]) for u in range(oriented.n_vertices) for v in out[u])


@settings(max_examples=120, deadline=None)
@given(entry_lists)
def test_the_dag_holds_each_edge_once_up_the_raw_degree_ranks(entries):
    src, dst = arrays(entries)
    route = orient_entries(src, dst)
    o = route.oriented
    n = int(max(src.max(), dst.max())) + 1
    assert o.n_vertices == n and o.order == "rank"
    deg = raw_degrees(src, dst, n)
    order = np.argsort(deg * n + np.arange(n), kind="stable")  # vertex of each rank
    edges = {frozenset((u, v)) for u, v in entries if u != v}
    rows, cols = o.rows.astype(np.int64), o.indices.astype(np.int64)
    assert bool(np.all(rows < cols))
    assert {frozenset((int(order[r]), int(order[c]))) for r, c in zip(rows, cols)} == edges
    assert o.n_edges == len(edges) == int(o.indptr[-1])
    for r in range(n):
        begin, end = o.indptr[r], o.indptr[r + 1]
        assert bool(np.all(np.diff(o.indices[begin:end]) > 0))
        assert bool(np.all(rows[begin:end] == r))
    assert o.max_out_degree == int(np.diff(o.indptr).max())


@settings(max_examples=120, deadline=None)
@given(entry_lists)
def test_the_summary_is_the_built_graphs(entries):
    src, dst = arrays(entries)
    built = CSRGraph.from_edges(src, dst).summary()
    route = orient_entries(src, dst).summary()
    for fact in ("vertices", "edges", "self_loops_dropped", "duplicates_dropped"):
        assert route[fact] == built[fact], fact
    assert route["max_degree"] is None


@settings(max_examples=120, deadline=None)
@given(entry_lists)
def test_the_dag_has_the_graphs_triangles(entries):
    src, dst = arrays(entries)
    assert dag_triangles(orient_entries(src, dst).oriented) == count_triangles(src, dst)


def test_a_complete_graph_with_repeats_and_loops():
    n = 12
    u, v = np.triu_indices(n, 1)
    src = np.concatenate([u, v, u, [3, 3, 7]])
    dst = np.concatenate([v, u, v, [3, 3, 7]])
    route = orient_entries(src, dst)
    assert dag_triangles(route.oriented) == n * (n - 1) * (n - 2) // 6
    assert route.summary()["duplicates_dropped"] == len(u)  # the third copies; loops apart
    assert route.self_loops_dropped == 3
    assert route.oriented.max_out_degree == n - 1
