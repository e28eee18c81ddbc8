"""The rank-ordered CSR (Numba orientation) and its column blocks, against NumPy's orientation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tricount
from tricount.io import write_native
from tricount.partition import count_partitioned, prepare_ranked, ranked_csr
from tricount.partition.blocks import column_block, open_source
from tricount.partition.ranked import apex_probes, in_degrees, open_ranked, rank_graph
from tricount.prep.orient import orient_by_rank

from graphs import NAMED


def numpy_rank_orientation(graph):
    lo, hi = graph.edges()
    return orient_by_rank(lo, hi, graph.n_vertices, graph.degrees)


def column_counts(r):
    return np.bincount(np.asarray(r.indices, dtype=np.int64), minlength=r.n_vertices)


class TestRankOrientation:
    @pytest.mark.parametrize("name", sorted(NAMED))
    def test_named_graphs_match_numpy(self, name):
        src, dst, _, _ = NAMED[name]
        graph = tricount.Graph.from_edges(src, dst)
        r, expected = rank_graph(graph), numpy_rank_orientation(graph)
        assert r.indptr.tolist() == expected.indptr.tolist()
        assert r.indices.tolist() == expected.indices.tolist()
        assert in_degrees(r).tolist() == column_counts(r).tolist()

    def test_rmat_matches_numpy(self):
        from tricount.generate import rmat

        graph = tricount.Graph.from_edges(*rmat(11, 8, seed=2))
        r, expected = rank_graph(graph), numpy_rank_orientation(graph)
        np.testing.assert_array_equal(r.indptr, expected.indptr)
        np.testing.assert_array_equal(r.indices, expected.indices)
        np.testing.assert_array_equal(in_degrees(r), column_counts(r))
        # The rank is a permutation, and every row holds only higher ranks.
        assert sorted(r.rank.tolist()) == list(range(graph.n_vertices))
        rows = np.repeat(np.arange(r.n_vertices), np.diff(r.indptr))
        assert np.all(r.indices > rows)

    def test_ranked_graph_is_kept_as_is(self):
        # Bowtie relabelled in rank order: degrees 2, 2, 2, 2, 4 are non-decreasing by id.
        graph = tricount.Graph.from_edges([0, 0, 1, 2, 2, 3], [1, 4, 4, 3, 4, 4])
        r = rank_graph(graph)
        assert r.rank is None
        assert np.shares_memory(r.indices, graph.indices)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 25), st.integers(0, 25)), max_size=120))
def test_random_graphs_match_numpy(edges):
    graph = tricount.Graph.from_edges([u for u, _ in edges], [v for _, v in edges])
    r, expected = rank_graph(graph), numpy_rank_orientation(graph)
    assert r.indptr.tolist() == expected.indptr.tolist()
    assert r.indices.tolist() == expected.indices.tolist()
    # Probes per apex: Σ over edges b -> c of in(b), by brute force.
    ind = column_counts(r)
    want = np.zeros(r.n_vertices, dtype=np.int64)
    for b in range(r.n_vertices):
        for c in r.indices[r.indptr[b]:r.indptr[b + 1]]:
            want[c] += ind[b]
    assert apex_probes(r).tolist() == want.tolist()


class TestColumnBlock:
    def test_literal(self):
        # K5 minus edge {0, 1}: degrees 3, 3, 4, 4, 4, so rank = id. Oriented CSR:
        #   row 0: 2 3 4       indptr  = [0, 3, 6, 8, 9, 9]
        #   row 1: 2 3 4       indices = [2, 3, 4, 2, 3, 4, 3, 4, 4]
        #   row 2: 3 4
        #   row 3: 4
        # Column block [3, 4): rows 0..3 cut to the entries equal to 3.
        src, dst, _, _ = NAMED["K5-minus-edge"]
        r = ranked_csr(tricount.Graph.from_edges(src, dst))
        assert r.indptr.tolist() == [0, 3, 6, 8, 9, 9]
        block = column_block(r, 3, 4)
        assert block.indptr.tolist() == [0, 1, 2, 3, 3]
        assert block.indices.tolist() == [3, 3, 3]
        whole = column_block(r, 0, 5)
        assert whole.indices is r.indices  # the whole range is the CSR itself

    def test_blocks_partition_the_entries(self):
        from tricount.generate import rmat

        r = rank_graph(tricount.Graph.from_edges(*rmat(10, 8, seed=4)))
        bounds = [0, 100, 101, 700, r.n_vertices]
        pieces = [column_block(r, a, b) for a, b in zip(bounds[:-1], bounds[1:])]
        assert sum(p.n_entries for p in pieces) == r.n_edges
        for p in pieces:
            assert np.all((p.indices >= p.lo) & (p.indices < p.hi))
            assert np.all(np.diff(p.indptr) >= 0)


class TestFiles:
    def test_prepare_ranked_round_trip(self, tmp_path):
        from tricount.generate import rmat

        graph = tricount.Graph.from_edges(*rmat(10, 8, seed=6))
        plain, ranked_path = tmp_path / "g.tcsr", tmp_path / "g.ranked.tcsr"
        write_native(plain, graph)
        prepare_ranked(plain, ranked_path)
        opened = open_ranked(ranked_path)
        assert opened.rank is None and opened.path == str(ranked_path)  # used as read
        np.testing.assert_array_equal(opened.indices, rank_graph(graph).indices)
        # The same graph, renamed: the original ids travel with it.
        again = tricount.load_graph(ranked_path)
        assert sorted(again.vertex_ids.tolist()) == sorted(graph.vertex_ids.tolist())
        expected = tricount.count_triangles(graph, backend="cpu")
        for source in (plain, ranked_path):
            assert count_partitioned(source, partitions=3)[0] == expected
        assert open_source(str(ranked_path)) is open_source(str(ranked_path))  # read once

    def test_prepare_ranked_never_writes_over_its_input(self, tmp_path):
        from tricount.errors import TricountError

        path = tmp_path / "g.tcsr"
        write_native(path, tricount.Graph.from_edges([0, 1, 2], [1, 2, 0]))
        before = path.read_bytes()
        with pytest.raises(TricountError, match="over its input"):
            prepare_ranked(path, tmp_path / "." / "g.tcsr")
        assert path.read_bytes() == before
