"""Preprocessing invariants: canonical edges, degree orientation, literal CSRs."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tricount import Graph
from tricount.cpu.bitmap import count_bitmap
from tricount.cpu.merge import count_merge
from tricount.prep.orient import orient_by_degree, orient_by_rank


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), max_size=200))
def test_orientation_keeps_each_edge_once_from_lower_to_higher_rank(edges):
    g = Graph.from_edges([u for u, _ in edges], [v for _, v in edges])
    o = g.oriented()
    deg = g.degrees
    rows, cols = o.rows.astype(np.int64), o.indices.astype(np.int64)
    assert o.n_edges == g.n_edges
    pairs = {(min(a, b), max(a, b)) for a, b in zip(rows.tolist(), cols.tolist())}
    lo, hi = g.edges()
    assert pairs == set(zip(lo.tolist(), hi.tolist()))
    rank_src = deg[rows] * (g.n_vertices + 1) + rows
    rank_dst = deg[cols] * (g.n_vertices + 1) + cols
    assert bool(np.all(rank_src < rank_dst))
    for u in range(g.n_vertices):
        row = o.indices[o.indptr[u]:o.indptr[u + 1]]
        assert bool(np.all(np.diff(row) > 0))  # rows strictly sorted
    assert o.max_out_degree == (int(np.diff(o.indptr).max()) if g.n_vertices else 0)


def test_literal_csr_kernels():
    # Oriented CSR of a K4 on {0,1,2,3} minus edge {0,3}, all degrees (2,3,3,2):
    #   rank order by (degree, id): 0 < 3 < 1 < 2
    #   0 -> 1, 2        two triangles: {0,1,2} and {1,2,3}
    #   3 -> 1, 2        each found once, from its lowest-ranked corner
    #   1 -> 2
    #   2 -> (none)
    src = [0, 0, 1, 1, 2]
    dst = [1, 2, 2, 3, 3]
    lo, hi = np.array(src, np.int32), np.array(dst, np.int32)
    o = orient_by_degree(lo, hi, 4)
    assert o.indptr.tolist() == [0, 2, 3, 3, 5]
    assert o.indices.tolist() == [1, 2, 2, 1, 2]
    assert count_merge(o) == 2
    assert count_bitmap(o) == 2


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), max_size=200))
def test_rank_orientation_is_the_degree_dag_renamed(edges):
    g = Graph.from_edges([u for u, _ in edges], [v for _, v in edges])
    lo, hi = g.edges()
    by_rank = orient_by_rank(lo, hi, g.n_vertices, g.degrees)
    by_degree = g.oriented()
    assert by_rank.n_edges == g.n_edges and by_rank.order == "rank"
    assert bool(np.all(by_rank.rows < by_rank.indices))
    assert sorted(np.diff(by_rank.indptr).tolist()) == sorted(np.diff(by_degree.indptr).tolist())
    assert by_rank.max_out_degree == by_degree.max_out_degree
    assert count_merge(by_rank) == count_merge(by_degree)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([1, 2, 5, 2**20, 2**31, 2**31 + 1, 3_037_000_499]),
       st.integers(0, 2**32 - 1), st.integers(1, 200))
def test_pair_keys_sort_as_pairs_and_split_back(n, seed, size):
    # Shifted keys up to 2**31 vertices, products past it (up to the largest supported
    # count): either way the keys' order is (row, col)'s and split_keys inverts them.
    from tricount.prep.orient import pair_keys, split_keys

    rng = np.random.default_rng(seed)
    rows = rng.integers(0, n, size=size, dtype=np.int64)
    cols = rng.integers(0, n, size=size, dtype=np.int64)
    rows[:1], cols[:1] = n - 1, n - 1  # the largest pair always there
    keys = pair_keys(rows, cols, n)
    order = np.argsort(keys, kind="stable")
    expected = np.lexsort((cols, rows))
    assert (rows[order] == rows[expected]).all() and (cols[order] == cols[expected]).all()
    back_rows, back_cols = split_keys(keys, n, np.int64)
    assert (back_rows == rows).all() and (back_cols == cols).all()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), max_size=120),
       st.sampled_from([41, 32_768, 32_769, 1 << 20]))
def test_canonical_edges_alike_whatever_the_key_width(edges, n_vertices):
    # canonical_edges packs (lo, hi, direction) in 32-bit keys up to 32,768 vertices and in
    # shifted 64-bit keys past them: the same graph each way, loops and repeats counted
    # alike, as the set of pairs says. (Past 2**31 vertices the keys are lo * n + hi, as
    # before the shifts; a test there would allocate the ids of 2**31 vertices.)
    from tricount.prep.canonical import canonical_edges

    pairs = np.array(edges, dtype=np.int64).reshape(-1, 2)
    canon = canonical_edges(pairs[:, 0], pairs[:, 1], n_vertices=n_vertices)
    expected = sorted({(min(u, v), max(u, v)) for u, v in edges if u != v})
    assert list(zip(canon.lo.tolist(), canon.hi.tolist())) == expected
    assert canon.self_loops_dropped == sum(u == v for u, v in edges)
    directed = {(u, v) for u, v in edges if u != v}
    assert canon.duplicates_dropped == len(edges) - canon.self_loops_dropped - len(directed)
