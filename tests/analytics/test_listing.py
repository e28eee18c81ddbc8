"""Listing triangles on the CPU: every triangle once, in fixed order, in chunks of any size.

Judged by the set oracle (tests/analytics/triangle_oracles.py), by NetworkX's
``all_triangles`` (which yields each triangle in node order, as the rows are
sorted) and by the reference backend. The writers are judged by reading the
files back.
"""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tricount
from tricount.cpu import listing as cpu_listing
from tricount.cpu import walk_numpy
from tricount.cpu.listing import CpuLister, list_triangles_cpu, stream_triangles_cpu
from tricount.cpu.walk_numpy import stream_triangles_numpy
from tricount.cpu.text_rows import format_rows
from tricount.io.text_numpy import format_rows_numpy
from tricount.errors import TricountError
from tricount.generate import rmat
from tricount import listing as listing_module
from tricount.listing import list_triangles, write_triangles

from graphs import NAMED, NOISY

sys.path.insert(0, str(Path(__file__).parent))
from triangle_oracles import rows_of, triangle_set  # noqa: E402

ALL_NAMED = {**NAMED, **NOISY}


def listed(graph, **kwargs) -> np.ndarray:
    return rows_of(list_triangles(graph, backend="cpu", **kwargs))


def assert_sorted_rows(rows):
    assert rows.dtype == np.int64 and rows.shape[1] == 3
    assert (rows[:, 0] < rows[:, 1]).all() and (rows[:, 1] < rows[:, 2]).all()


class TestListTriangles:
    @pytest.mark.parametrize("name", sorted(ALL_NAMED))
    def test_named_graphs(self, name):
        src, dst, n_triangles, _per_vertex = ALL_NAMED[name]
        rows = listed((src, dst))
        assert rows.shape == (n_triangles, 3)
        assert_sorted_rows(rows)
        assert set(map(tuple, rows.tolist())) == triangle_set(src, dst)

    def test_k4_rows(self):
        #   0 - 1      K4: 4 triangles, each a sorted row
        #   | X |
        #   2 - 3
        g = tricount.Graph.from_edges([0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3])
        assert sorted(map(tuple, listed(g).tolist())) == [(0, 1, 2), (0, 1, 3), (0, 2, 3),
                                                          (1, 2, 3)]

    def test_original_ids_come_back(self):
        # A bowtie on sparse ids: two triangles sharing vertex 10**12.
        big = 10**12
        src = [5, 5, 7, big, big, 2**62]
        dst = [7, big, big, 2**62, 9, 9]
        rows = listed((src, dst))
        assert sorted(map(tuple, rows.tolist())) == [(5, 7, big), (9, big, 2**62)]

    def test_matches_networkx_tuples(self):
        # String labels: rows come back as labels, each in NetworkX's node order.
        G = nx.les_miserables_graph()
        g = tricount.Graph.from_networkx(G)
        rows = rows_of(list_triangles(g, backend="cpu", chunk_size=100))
        assert rows.dtype == object
        assert set(map(tuple, rows.tolist())) == set(nx.all_triangles(G))
        assert rows.shape[0] == sum(nx.triangles(G).values()) // 3

    def test_reference_backend_agrees(self):
        src, dst = rmat(7, 8, seed=2)
        cpu = listed((src, dst))
        ref = rows_of(list_triangles((src, dst), backend="reference"))
        assert sorted(map(tuple, cpu.tolist())) == sorted(map(tuple, ref.tolist()))

    def test_shared_graph(self, shared_graphs):
        row = min(shared_graphs, key=lambda r: r["edges"] if r["triangles"] else 1e18)
        rows = listed(row["path"])
        assert rows.shape[0] == row["triangles"]
        assert_sorted_rows(rows)
        assert np.unique(rows, axis=0).shape[0] == rows.shape[0]

    @pytest.mark.parametrize("chunk_size", [0, -1, None, 2.5, "10", True])
    def test_rejects_bad_chunk_size(self, chunk_size):
        with pytest.raises(TricountError, match="chunk_size must be"):
            list_triangles(([0], [1]), backend="cpu", chunk_size=chunk_size)


class TestChunks:
    """Every chunk size gives the same stream, cut at every boundary."""

    @pytest.fixture(scope="class")
    @classmethod
    def graph(cls):
        src, dst = rmat(5, 8, seed=5)  # 180 triangles
        return tricount.Graph.from_edges(src, dst)

    def test_every_chunk_size(self, graph):
        whole = listed(graph, chunk_size=1 << 30)
        total = whole.shape[0]
        assert total == tricount.count_triangles(graph, backend="cpu") == 180
        for size in (1, 2, 3, 7, total // 4, total // 2, total - 1, total, total + 1):
            chunks = list(list_triangles(graph, backend="cpu", chunk_size=size))
            assert all(c.shape == (size, 3) for c in chunks[:-1]), size
            assert 1 <= chunks[-1].shape[0] <= size
            assert all(c.flags.c_contiguous for c in chunks)
            assert np.array_equal(np.concatenate(chunks), whole), size

    def test_parallel_kernels_write_the_same_stream(self, graph, monkeypatch):
        # Small graphs run the one pass; force the counted route's parallel kernels.
        import tricount.cpu.listing as cpu_listing

        serial = listed(graph, chunk_size=50)
        monkeypatch.setattr(cpu_listing, "PARALLEL_MIN_EDGES", 0)
        monkeypatch.setattr(cpu_listing, "ONE_PASS_MAX_THREADS", 0)
        assert not cpu_listing.one_pass(graph.n_edges) or numba_threads() == 1
        for size in (1, 50, 1 << 20):
            assert np.array_equal(listed(graph, chunk_size=size), serial), size

    def test_exact_multiples(self, graph):
        total = listed(graph).shape[0]
        divisor = next(d for d in (4, 3, 5, 7, 11, 13, 2) if total % d == 0)
        chunks = list(list_triangles(graph, backend="cpu", chunk_size=total // divisor))
        assert [c.shape[0] for c in chunks] == [total // divisor] * divisor

    def test_windows_past_2_to_the_40(self, graph):
        # Number the same triangles from 2^40 on: the window arithmetic is int64
        # throughout, so the rows are the same.
        lister = CpuLister(graph.upper(), np.arange(graph.n_vertices, dtype=np.int64))
        total = lister.n_triangles
        want = np.empty((3, total), dtype=np.int64)
        lister.write(0, total, *want)
        shift = 1 << 40
        lister.offsets += shift
        lister.n_triangles += shift
        got = np.empty((3, total), dtype=np.int64)
        half = total // 2
        lister.write(shift, shift + half, *got[:, :half])
        lister.write(shift + half, shift + total, *got[:, half:])
        assert np.array_equal(got, want)
        assert lister.offsets.dtype == np.int64

    def test_empty_and_triangle_free(self):
        assert list(list_triangles(([], []), backend="cpu")) == []
        assert list(list_triangles(([0, 1, 2], [1, 2, 3]), backend="cpu")) == []


def numba_threads() -> int:
    import numba

    return numba.get_num_threads()


def counted(graph, chunk_size: int) -> np.ndarray:
    """The counted route's stream (count, prefix sum, windows) of a graph's compact ids."""
    return rows_of(list_triangles_cpu(CpuLister(graph.upper()), None, chunk_size))


def streamed(graph, chunk_size: int) -> list:
    """The one-pass route's chunks of a graph's compact ids."""
    return list(stream_triangles_cpu(graph.upper(), None, chunk_size))


def numpy_streamed(graph, chunk_size: int, labels=None) -> list:
    """The NumPy lister's chunks (compact ids, or ``labels`` of them)."""
    return list(stream_triangles_numpy(graph.upper(), labels, chunk_size))


class TestRoutes:
    """The one pass (chunk by chunk, no count) and the counted route write the same rows."""

    def test_chunks_that_end_inside_an_edge(self):
        # K7: the first pair, (0, 1), closes 5 triangles, so every chunk size from 1 to
        # 6 ends some chunk inside a pair; the pass resumes there.
        self._every_chunk_size_of_k7()

    @pytest.mark.parametrize("first_rows", [1, 2, 5, 34, 35, 36])
    def test_a_small_first_buffer(self, monkeypatch, first_rows):
        # The first chunk is written into FIRST_ROWS rows and moved to the chunk's own
        # buffer only when they fill (K7's 35 triangles: inside it, at it, past it).
        monkeypatch.setattr(cpu_listing, "FIRST_ROWS", first_rows)
        self._every_chunk_size_of_k7()

    def test_the_counted_route_in_parallel(self, monkeypatch):
        # Past the serial bounds the counted route sorts the deferred pairs in blocks of
        # equal pairs, counts and writes in parallel blocks of pairs: the one pass's rows.
        monkeypatch.setattr(cpu_listing, "PARALLEL_MIN_EDGES", 1)
        monkeypatch.setattr(cpu_listing, "PARALLEL_MIN_ROWS", 1)
        g = tricount.Graph.from_edges(*rmat(9, 8, seed=11))
        whole = np.concatenate(streamed(g, 1 << 20))
        for size in (97, 1 << 20):
            assert np.array_equal(counted(g, size), whole), size

    @pytest.mark.parametrize("threads", [1, 2, 3, 64])
    def test_deferred_runs_sorted_in_blocks_of_equal_pairs(self, threads):
        # Runs of 0-40 pairs a vertex (insertion sort up to 32, NumPy's past it), shuffled;
        # every block of _sort_bounds sorts its vertices' runs, and the blocks cover all.
        rng = np.random.default_rng(5)
        lengths = rng.integers(0, 41, size=50)
        lengths[[0, 7, 49]] = 0
        deferred_ptr = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
        rest_begin = rng.permutation(deferred_ptr[-1]).astype(np.int32)
        want = rest_begin.copy()
        for v in range(50):
            want[deferred_ptr[v]:deferred_ptr[v + 1]].sort()
        bounds = cpu_listing._sort_bounds(deferred_ptr, threads)
        assert bounds[0] == 0 and bounds[-1] == 50 and np.all(np.diff(bounds) > 0)
        cpu_listing._sort_runs(deferred_ptr, bounds, rest_begin)
        assert np.array_equal(rest_begin, want)

    @pytest.mark.parametrize("first_rows", [16, 64, 500])
    def test_a_first_buffer_that_grows(self, monkeypatch, first_rows):
        # A first buffer that fills grows to the rows the walk predicts (at least twice
        # its rows), maybe several times, and the rows come back whole or as a view of a
        # buffer at most four times their size; the same rows as the counted route.
        monkeypatch.setattr(cpu_listing, "FIRST_ROWS", first_rows)
        g = tricount.Graph.from_edges(*rmat(8, 8, seed=3))
        whole = counted(g, 1 << 20)
        assert whole.shape[0] > 4 * first_rows
        for size in (first_rows, first_rows + 1, 3 * first_rows, whole.shape[0] - 1,
                     whole.shape[0], 1 << 20):
            chunks = streamed(g, size)
            assert [c.shape[0] for c in chunks[:-1]] == [size] * (len(chunks) - 1), size
            assert all(c.flags.owndata or c.base.nbytes <= 4 * c.nbytes for c in chunks)
            assert np.array_equal(np.concatenate(chunks), whole), size

    @staticmethod
    def _every_chunk_size_of_k7():
        n = 7
        src, dst = zip(*[(u, v) for u in range(n) for v in range(u + 1, n)])
        g = tricount.Graph.from_edges(src, dst)
        whole = counted(g, 1 << 20)
        assert whole.shape == (35, 3)
        for size in range(1, 37):
            chunks = streamed(g, size)
            assert [c.shape[0] for c in chunks[:-1]] == [size] * (len(chunks) - 1), size
            assert 1 <= chunks[-1].shape[0] <= size
            # Each chunk owns its rows, or is a view of a buffer of at most 4x them.
            assert all(c.flags.c_contiguous for c in chunks)
            assert all(c.flags.owndata or c.base.nbytes <= 4 * c.nbytes for c in chunks)
            assert np.array_equal(np.concatenate(chunks), whole), size

    def test_chunks_that_end_inside_a_deferred_pair(self):
        # Upper rows 0: 1 2 3 4 | 1: 2 3 4 5 6 | 2: 3. The pair (0, 1) has 3 entries after
        # 1 in 0's row and N+(1) holds 5: it is settled at 1, after 1's own pair (1, 2),
        # and closes three triangles there. So the rows come as
        #   at 0: (0, 2, 3)   at 1: (1, 2, 3), then deferred (0, 1, 2) (0, 1, 3) (0, 1, 4)
        # and chunks of 1 to 4 rows end inside the deferred pair; the pass resumes there.
        src = [0, 0, 0, 0, 1, 1, 1, 1, 1, 2]
        dst = [1, 2, 3, 4, 2, 3, 4, 5, 6, 3]
        g = tricount.Graph.from_edges(src, dst)
        want = [[0, 2, 3], [1, 2, 3], [0, 1, 2], [0, 1, 3], [0, 1, 4]]
        assert counted(g, 1 << 20).tolist() == want
        assert rows_of(numpy_streamed(g, 2)).tolist() == want
        for size in range(1, 7):
            chunks = streamed(g, size)
            assert [c.shape[0] for c in chunks[:-1]] == [size] * (len(chunks) - 1), size
            assert rows_of(chunks).tolist() == want, size
            assert counted(g, size).tolist() == want, size

    def test_one_chunk_is_one_exact_array(self):
        g = tricount.Graph.from_edges(*rmat(6, 8, seed=3))
        (chunk,) = streamed(g, 1 << 20)  # the common case: one kernel call, trimmed
        assert chunk.dtype == np.int64 and chunk.flags.owndata
        assert chunk.shape == (tricount.count_triangles(g, backend="cpu"), 3)
        assert np.array_equal(chunk, counted(g, 7))

    def test_labels_or_compact_ids(self):
        g = tricount.Graph.from_edges(*rmat(6, 8, seed=4))
        o = g.upper()
        labels = np.arange(g.n_vertices, dtype=np.int64) * 10 + 3
        compact = rows_of(stream_triangles_cpu(o, None, 100))
        assert np.array_equal(rows_of(stream_triangles_cpu(o, labels, 100)), labels[compact])
        assert np.array_equal(rows_of(list_triangles_cpu(CpuLister(o, labels), None, 100)),
                              labels[compact])

    def test_triangle_free_and_empty(self):
        path = tricount.Graph.from_edges([0, 1, 2], [1, 2, 3])
        star = tricount.Graph.from_edges([0, 0, 0], [1, 2, 3])
        empty = tricount.Graph.from_edges([], [])
        for g in (path, star, empty):
            assert streamed(g, 1) == [] and streamed(g, 1 << 20) == []

    def test_the_backend_counts_only_when_asked(self):
        from tricount.backends.cpu import CPU

        g = tricount.Graph.from_edges(*rmat(5, 8, seed=5))
        n, chunks = CPU.list_triangles(g, chunk_size=50, count_first=True)
        whole = rows_of(chunks)
        assert n == whole.shape[0] == 180
        n, chunks = CPU.list_triangles(g, chunk_size=50, count_first=False)
        assert n is None and np.array_equal(rows_of(chunks), whole)
        n, columns = CPU.list_triangles(g, chunk_size=50, count_first=False, columns=True)
        assert n is None and np.array_equal(np.concatenate([c.T for c in columns]), whole)

    def test_route_choice(self, monkeypatch):
        import tricount.cpu.listing as cpu_listing

        small, mid = cpu_listing.PARALLEL_MIN_EDGES - 1, cpu_listing.ONE_PASS_MAX_EDGES - 1
        threads = numba_threads()
        assert cpu_listing.one_pass(small)
        assert cpu_listing.one_pass(mid) == (threads <= cpu_listing.ONE_PASS_MAX_THREADS)
        assert cpu_listing.one_pass(cpu_listing.ONE_PASS_MAX_EDGES) == (threads == 1)
        monkeypatch.setattr(cpu_listing, "ONE_PASS_MAX_THREADS", 0)
        assert cpu_listing.one_pass(small) and cpu_listing.one_pass(mid) == (threads == 1)

    def test_progress_or_not_the_same_file(self, tmp_path):
        g = tricount.Graph.from_edges(*rmat(6, 8, seed=6))
        calls = []
        write_triangles(g, tmp_path / "a.tsv", backend="cpu", chunk_size=64,
                        progress=lambda done, total: calls.append((done, total)))
        write_triangles(g, tmp_path / "b.tsv", backend="cpu", chunk_size=64)
        assert (tmp_path / "a.tsv").read_bytes() == (tmp_path / "b.tsv").read_bytes()
        total = calls[-1][1]
        assert calls[0] == (0, total) and calls[-1] == (total, total)


def edge_lists(max_n: int, max_size: int):
    """Edge lists on 0 .. n - 1 for a drawn n <= max_n: loops and repeats allowed."""
    return st.integers(1, max_n).flatmap(lambda n: st.lists(
        st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=max_size))


def ends(edges) -> tuple[list, list]:
    return [u for u, _ in edges], [v for _, v in edges]


@settings(max_examples=60, deadline=None)
@given(edges=edge_lists(24, 150), chunk_size=st.integers(1, 40))
def test_routes_agree_on_random_graphs(edges, chunk_size):
    # The one pass and the counted route: the same rows in the same order, every chunk
    # but the last full, and the rows those of the set oracle.
    src, dst = ends(edges)
    g = tricount.Graph.from_edges(src, dst)
    chunks = streamed(g, chunk_size)
    assert all(c.shape == (chunk_size, 3) for c in chunks[:-1])
    rows = rows_of(chunks)
    assert np.array_equal(rows, counted(g, chunk_size))
    # The NumPy lister: the same rows, in the same order and chunks.
    in_numpy = numpy_streamed(g, chunk_size)
    assert [c.shape for c in in_numpy] == [c.shape for c in chunks]
    assert all(c.dtype == np.int64 and c.flags.c_contiguous for c in in_numpy)
    assert np.array_equal(rows_of(in_numpy), rows)
    ids = g.vertex_ids
    assert sorted(map(tuple, ids[rows].tolist())) == sorted(triangle_set(src, dst))


@settings(max_examples=40, deadline=None)
@given(edges=edge_lists(30, 200), chunk_size=st.integers(1, 50))
def test_random_graphs_match_the_oracle(edges, chunk_size):
    src, dst = ends(edges)
    rows = listed((src, dst), chunk_size=chunk_size) if edges else np.zeros((0, 3), np.int64)
    assert sorted(map(tuple, rows.tolist())) == sorted(triangle_set(src, dst))


def test_numpy_lister_on_named_graphs_with_labels():
    # Labels (sparse original ids) and a chunk size that cuts the rows: the Numba lister's
    # chunks, exactly.
    for name in sorted(ALL_NAMED):
        src, dst, n_triangles, _ = ALL_NAMED[name]
        g = tricount.Graph.from_edges(src, dst)
        labels = np.arange(g.n_vertices, dtype=np.int64) * 7 + 3
        want = list(stream_triangles_cpu(g.upper(), labels, 5))
        got = numpy_streamed(g, 5, labels)
        assert [c.shape for c in got] == [c.shape for c in want], name
        assert np.array_equal(rows_of(got), rows_of(want)), name
        assert rows_of(got).shape == (n_triangles, 3)


class TestNumpyRoute:
    """Which lister the CPU backend takes (tricount.cpu.walk_numpy.takes)."""

    @pytest.fixture
    def fresh(self, monkeypatch):
        monkeypatch.setattr(walk_numpy, "numba_started", lambda: False)
        monkeypatch.setattr(walk_numpy, "_ledger", {"lost_s": 0.0})
        return tricount.Graph.from_edges(*rmat(8, 8, seed=3))

    def test_a_small_graph_without_numba(self, fresh):
        assert walk_numpy.takes(fresh.oriented(), 0.5)

    def test_not_once_numba_has_started(self, fresh, monkeypatch):
        monkeypatch.setattr(walk_numpy, "numba_started", lambda: True)
        assert not walk_numpy.takes(fresh.oriented(), 0.5)

    def test_not_past_the_bounds(self, fresh, monkeypatch):
        monkeypatch.setattr(walk_numpy, "MAX_WEDGES", 0)
        assert not walk_numpy.takes(fresh.oriented(), 0.5)
        monkeypatch.setattr(walk_numpy, "MAX_EDGES", 0)
        assert not walk_numpy.takes(tricount.Graph.from_edges([0], [1]).oriented(), 0.5)

    def test_not_past_the_vertex_bound(self, fresh, monkeypatch):
        # The walk's byte map has a row of n bytes at least.
        g = tricount.Graph.from_edges([0, 0, 1], [1, 2, 2], n_vertices=walk_numpy.MAX_VERTICES + 1)
        assert not walk_numpy.takes(g.oriented(), 0.5)
        monkeypatch.setattr(walk_numpy, "MAX_VERTICES", g.n_vertices)
        assert walk_numpy.takes(g.oriented(), 0.5)

    def test_many_listings_start_numba_at_the_break_even(self, fresh, monkeypatch):
        # Ski rental: each listing here adds its loss; once the loss reaches Numba's
        # start, the next one is Numba's.
        o = fresh.oriented()
        wedges = int(np.diff(o.indptr)[o.indices].sum())
        monkeypatch.setattr(walk_numpy, "EXTRA_S_PER_CALL", 0.0)
        monkeypatch.setattr(walk_numpy, "EXTRA_S_PER_WEDGE", 0.5 / (2.5 * wedges))
        assert [walk_numpy.takes(o, 0.5) for _ in range(4)] == [True, True, True, False]

    def test_each_call_counts_even_with_few_wedges(self, fresh, monkeypatch):
        # A call loses its fixed cost whatever its wedges: a tiny graph listed over and
        # over reaches the break-even too.
        monkeypatch.setattr(walk_numpy, "EXTRA_S_PER_WEDGE", 0.0)
        monkeypatch.setattr(walk_numpy, "EXTRA_S_PER_CALL", 0.2)
        assert [walk_numpy.takes(fresh.oriented(), 0.5) for _ in range(4)] == \
            [True, True, True, False]

    def test_the_backend_lists_the_same_rows_either_way(self, fresh, monkeypatch):
        want = rows_of(list_triangles(fresh, backend="cpu", chunk_size=50))
        monkeypatch.setattr(walk_numpy, "takes", lambda oriented, price: False)
        assert np.array_equal(rows_of(list_triangles(fresh, backend="cpu", chunk_size=50)), want)


def test_a_fresh_process_lists_a_small_graph_without_numba(tmp_path):
    # TSV and the Python API: the NumPy lister and formatter, the same bytes as Numba's.
    import subprocess

    src, dst = rmat(7, 8, seed=9)
    g = tricount.Graph.from_edges(src * 3 + 1, dst * 3 + 1)
    write_triangles(g, tmp_path / "numba.tsv", backend="cpu")  # this process: Numba
    np.save(tmp_path / "src.npy", src * 3 + 1)
    np.save(tmp_path / "dst.npy", dst * 3 + 1)
    code = (
        "import sys, numpy as np, tricount; "
        f"src, dst = np.load({str(tmp_path / 'src.npy')!r}), "
        f"np.load({str(tmp_path / 'dst.npy')!r}); "
        "g = tricount.Graph.from_edges(src, dst); "
        f"print(tricount.write_triangles(g, {str(tmp_path / 'numpy.tsv')!r}, backend='cpu'), "
        "'numba.np.arraymath' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    rows = (tmp_path / "numba.tsv").read_bytes()
    assert out.stdout.split() == [str(rows.count(b"\n")), "False"]
    assert (tmp_path / "numpy.tsv").read_bytes() == rows


def test_lister_on_a_literal_csr():
    # The upper CSR of K4 minus {0, 1} plus a pendant 4 on 2:
    #   0 -> 2, 3      1 -> 2, 3      2 -> 3, 4      3, 4 -> (none)
    # At anchor 0 the pair (0, 2) has rest {3} after 2 in 0's row, shorter than
    # N+(2) = {3, 4}: it is deferred to 2; so is (1, 2). The pairs (0, 3) and (1, 3)
    # are last in their rows and close nothing. At anchor 2 the two deferred pairs,
    # by increasing anchor, find 3 in 2's marks: rows {0, 2, 3} then {1, 2, 3}.
    from tricount.prep.orient import OrientedCSR

    upper = OrientedCSR(np.array([0, 2, 4, 6, 6, 6]),
                        np.array([0, 0, 1, 1, 2, 2], dtype=np.int32),
                        np.array([2, 3, 2, 3, 3, 4], dtype=np.int32), 5, 6, 2, "id")
    labels = np.array([10, 11, 12, 13, 14])
    lister = CpuLister(upper, labels)
    # The pair sequence: 0's row (2 slots), 1's row (2), 2's row (2) and its two
    # deferred pairs; the pairs that close a triangle are the deferred ones.
    assert lister.offsets.tolist() == [0, 0, 0, 0, 0, 0, 0, 1, 2]
    want = [[10, 12, 13], [11, 12, 13]]
    assert rows_of(list_triangles_cpu(lister, None, chunk_size=1)).tolist() == want
    assert rows_of(stream_triangles_cpu(upper, labels, chunk_size=1)).tolist() == want
    assert rows_of(stream_triangles_numpy(upper, labels, chunk_size=1)).tolist() == want


def test_the_listers_refuse_the_degree_orientation():
    g = tricount.Graph.from_edges(*rmat(5, 8, seed=5))
    for lister in (lambda o: list(stream_triangles_cpu(o)), CpuLister):
        with pytest.raises(ValueError, match="point up"):
            lister(g.oriented())


class TestWriters:
    @pytest.fixture(scope="class")
    @classmethod
    def graph(cls):
        src, dst = rmat(7, 8, seed=9)
        return tricount.Graph.from_edges(src * 3 + 1, dst * 3 + 1)  # ids not compact

    @pytest.mark.parametrize("least, group", [(100, 100), (250, 300)])
    def test_parquet_row_groups_of_chunks(self, graph, tmp_path, monkeypatch, least, group):
        """A row group a chunk, chunks smaller than PARQUET_MIN_ROW_GROUP gathered: chunks of
        7 rows made K_400's listing 1.5 M row groups, a footer pyarrow refused to read."""
        pq = pytest.importorskip("pyarrow.parquet")
        monkeypatch.setattr(listing_module, "PARQUET_MIN_ROW_GROUP", least)
        path = tmp_path / "t.parquet"
        n = write_triangles(graph, path, backend="cpu", chunk_size=100)
        whole = listed(graph)
        assert n == whole.shape[0]
        f = pq.ParquetFile(path)
        assert f.num_row_groups == -(-n // group)
        assert f.metadata.row_group(0).num_rows == group
        table = f.read()
        assert table.column_names == ["u", "v", "w"]
        got = np.stack([table[c].to_numpy() for c in ("u", "v", "w")], axis=1)
        assert np.array_equal(got, whole)
        assert os.listdir(tmp_path) == ["t.parquet"]

    def test_parquet_with_names(self, graph, tmp_path):
        pq = pytest.importorskip("pyarrow.parquet")
        names = np.array([f"v{i}" for i in range(int(graph.vertex_ids.max()) + 1)], dtype=object)
        write_triangles(graph, tmp_path / "n.pq", backend="cpu", names=names)
        table = pq.read_table(tmp_path / "n.pq")
        whole = listed(graph)
        assert table["u"].to_pylist() == [f"v{i}" for i in whole[:, 0]]

    def test_an_unknown_codec_is_refused_before_the_count(self, graph, tmp_path, monkeypatch):
        pytest.importorskip("pyarrow")
        monkeypatch.setattr(listing_module, "_prepare", lambda *a: pytest.fail("counted"))
        with pytest.raises(tricount.InvalidArgumentError, match="'bogus' is not a Parquet codec"):
            write_triangles(graph, tmp_path / "t.parquet", compression="bogus")
        assert os.listdir(tmp_path) == []

    @pytest.mark.parametrize("codec", ["none", "ZSTD", "gzip"])
    def test_codecs_by_name(self, graph, tmp_path, codec):
        pq = pytest.importorskip("pyarrow.parquet")
        write_triangles(graph, tmp_path / "t.parquet", backend="cpu", compression=codec)
        assert pq.read_table(tmp_path / "t.parquet").num_rows == listed(graph).shape[0]

    @pytest.mark.parametrize("suffix, opener", [(".gz", "gzip"), (".bz2", "bz2"),
                                                (".xz", "lzma")])
    def test_tsv_compressed_by_its_name(self, graph, tmp_path, suffix, opener):
        """tri.tsv.gz held plain text under a .gz name."""
        import importlib

        path = tmp_path / f"t.tsv{suffix}"
        names = np.array([f"v{i}" for i in range(int(graph.vertex_ids.max()) + 1)],
                         dtype=object)
        for kept in (None, names):
            write_triangles(graph, path, backend="cpu", chunk_size=64, names=kept)
            with importlib.import_module(opener).open(path, "rt") as f:
                text = f.read()
            rows = listed(graph).tolist()
            label = (lambda i: str(i)) if kept is None else (lambda i: f"v{i}")
            assert text == "".join("\t".join(map(label, row)) + "\n" for row in rows)

    def test_a_codec_for_tsv_and_a_compressed_parquet_name_are_refused(self, graph, tmp_path):
        """--compression zstd with a TSV output did nothing (exit 0, plain text)."""
        with pytest.raises(tricount.InvalidArgumentError, match="is a Parquet codec; a TSV"):
            write_triangles(graph, tmp_path / "t.tsv", backend="cpu", compression="zstd")
        with pytest.raises(TricountError, match="a Parquet file compresses inside"):
            write_triangles(graph, tmp_path / "t.parquet.gz", backend="cpu")
        assert os.listdir(tmp_path) == []

    def test_tsv_text(self, graph, tmp_path):
        path = tmp_path / "t.tsv"
        write_triangles(graph, path, backend="cpu", chunk_size=64)
        want = "".join(f"{u}\t{v}\t{w}\n" for u, v, w in listed(graph).tolist())
        assert path.read_text() == want

    def test_tsv_to_stdout(self, graph, capfdbinary):
        n = write_triangles(graph, "-", backend="cpu", chunk_size=64)
        out = capfdbinary.readouterr().out
        assert out.count(b"\n") == n and out.startswith(
            "\t".join(map(str, listed(graph)[0])).encode())

    def test_named_tsv(self, tmp_path):
        pytest.importorskip("pyarrow")
        G = nx.Graph([("ann", "bob"), ("bob", "cy"), ("cy", "ann"), ("cy", "dan")])
        write_triangles(tricount.Graph.from_networkx(G), tmp_path / "t.tsv", backend="cpu")
        assert (tmp_path / "t.tsv").read_text() == "ann\tbob\tcy\n"

    def test_failed_write_leaves_nothing(self, graph, tmp_path):
        pytest.importorskip("pyarrow")
        path = tmp_path / "t.parquet"
        path.write_bytes(b"old")
        with pytest.raises(Exception):
            write_triangles(graph, path, backend="cpu", names=["too", "few"])
        assert path.read_bytes() == b"old"  # the old file stands, no temporary is left
        assert os.listdir(tmp_path) == ["t.parquet"]

    def test_parquet_stopped_midway_leaves_nothing(self, graph, tmp_path):
        # Two row groups are in the temporary (pyarrow's own file) when the stream fails.
        pytest.importorskip("pyarrow")
        seen = []

        def progress(done, total):
            seen.append(done)
            if done >= 200:
                raise RuntimeError("stop")

        with pytest.raises(RuntimeError, match="stop"):
            write_triangles(graph, tmp_path / "t.parquet", backend="cpu", chunk_size=100,
                            progress=progress)
        assert seen == [0, 100, 200] and os.listdir(tmp_path) == []

    def test_names_are_checked_before_the_count(self, graph, tmp_path):
        # names[i] is written for vertex id i: too few entries (sparse ids), a dict, labels
        # that are no one column, nested labels in TSV; bytes holding a tab.
        pytest.importorskip("pyarrow")
        top = int(graph.vertex_ids.max())
        cases = [(graph, {"names": ["a"] * top}, f"vertex ids up to {top}"),
                 (graph, {"names": {0: "a"}}, "names must be a sequence"),
                 (nx.relabel_nodes(nx.complete_graph(3), {2: "a"}), {}, "not one column"),
                 (nx.relabel_nodes(nx.complete_graph(3), {0: 2**70}), {}, "not one column"),
                 (nx.relabel_nodes(nx.complete_graph(3), {0: (0, 0), 1: (0, 1), 2: (1, 0)}), {},
                  "TSV line cannot hold"),
                 (([b"a\tx", b"b", b"c"], [b"b", b"c", b"a\tx"]), {}, "holds a tab")]
        for g, kwargs, message in cases:
            with pytest.raises(TricountError, match=message):
                write_triangles(g, tmp_path / "t.tsv", backend="cpu", **kwargs)
        assert os.listdir(tmp_path) == []
        grid = nx.relabel_nodes(nx.complete_graph(3), {0: (0, 0), 1: (0, 1), 2: (1, 0)})
        assert write_triangles(grid, tmp_path / "t.parquet", backend="cpu") == 1  # lists

    def test_unknown_format(self, graph, tmp_path):
        with pytest.raises(TricountError, match="parquet, tsv"):
            write_triangles(graph, tmp_path / "x", backend="cpu", format="csv")


class TestFormatRows:
    def test_digits(self):
        columns = np.array([[0, 9, 10, 2**63 - 1], [1, 99, 100, 12345]], dtype=np.int64)
        want = "".join(f"{a}\t{b}\n" for a, b in columns.T.tolist()).encode()
        assert bytes(format_rows(columns)) == want
        assert format_rows_numpy(columns) == want

    def test_empty(self):
        assert bytes(format_rows(np.zeros((3, 0), dtype=np.int64))) == b""
        assert format_rows_numpy(np.zeros((3, 0), dtype=np.int64)) == b""

    @settings(max_examples=60, deadline=None)
    @given(n_cols=st.integers(1, 4), n_rows=st.integers(0, 30),
           top=st.sampled_from([1, 9, 10, 11, 10**6, 10**18, 2**63 - 1]), seed=st.integers(0, 99))
    def test_numpy_writes_the_same_bytes(self, n_cols, n_rows, top, seed):
        # Every digit count, powers of ten and their neighbours among the ids.
        rng = np.random.default_rng(seed)
        columns = rng.integers(0, top, size=(n_cols, n_rows), dtype=np.int64, endpoint=True)
        powers = np.minimum([0, 1, 9, 10, 99, 100, 10**17, 10**18 - 1, 10**18, top], top)
        columns[:, : min(n_rows, powers.size)] = powers[: min(n_rows, powers.size)]
        assert format_rows_numpy(columns) == bytes(format_rows(columns))

    def test_refuses_negative_ids(self):
        with pytest.raises(ValueError):
            format_rows(np.array([[-1]]))


def test_io_stream_accepts_a_file_object(tmp_path):
    buffer = io.BytesIO()
    from tricount.listing import _write_tsv

    n = _write_tsv(iter([np.array([[1, 2], [3, 4], [5, 6]])]), buffer, None)
    assert n == 2 and buffer.getvalue() == b"1\t3\t5\n2\t4\t6\n"


def test_the_text_formatter_route(monkeypatch):
    # NumPy formats while Numba has not started, up to MAX_ROWS rows written in all.
    from tricount.io import text_numpy

    monkeypatch.setattr("tricount._threads.numba_started", lambda: False)
    assert text_numpy.takes(text_numpy.MAX_ROWS) and not text_numpy.takes(text_numpy.MAX_ROWS + 1)
    monkeypatch.setattr("tricount._threads.numba_started", lambda: True)
    assert not text_numpy.takes(1)
