"""The bounded build equals CSRGraph.from_edges, array for array, whatever the chunks and buckets.

Plans force tiny chunks, tiny buckets, keys spilled to a temporary file and buckets
split again by key ranges, so that every boundary (chunk, bucket, histogram bin,
sort room, compact-id gap) is crossed on small graphs.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tricount
from graphs import NAMED, NOISY
from tricount.errors import InvalidEdgesError, TricountError
from tricount.generate import rmat
from tricount.graph import CSRGraph
from tricount.prep.outofcore import (ArrayChunks, BuildPlan, build_bounded, in_memory_bytes,
                                     needs_bounded_build)
from tricount.prep.outofcore.memory import IN_MEMORY_BYTES_PER_LINE

#: Plans that cross every boundary: one chunk and one bucket; tiny chunks and buckets in
#: memory; keys spilled with sorts of 4 keys (every bucket split again by key ranges).
PLANS = {
    "whole": BuildPlan(device="cpu"),
    "tiny": BuildPlan(device="cpu", chunk_edges=3, bucket_keys=5, buckets=4),
    "spilled": BuildPlan(device="cpu", chunk_edges=5, bucket_keys=4, spill=True),
}


def assert_same(built, expected: CSRGraph):
    """Every array and count of a bounded build equals the one-piece build's."""
    assert built.n_vertices == expected.n_vertices
    assert built.n_edges == expected.n_edges
    assert built.indptr.dtype == np.int64
    np.testing.assert_array_equal(built.indptr, expected.indptr)
    assert built.indices.dtype == expected.indices.dtype
    np.testing.assert_array_equal(built.indices, expected.indices)
    assert built.vertex_ids.dtype == np.asarray(expected.vertex_ids).dtype
    np.testing.assert_array_equal(built.vertex_ids, expected.vertex_ids)
    assert (built.self_loops_dropped, built.duplicates_dropped) == (
        expected.self_loops_dropped, expected.duplicates_dropped)


def bounded(src, dst, plan, **kwargs):
    return build_bounded(ArrayChunks(src, dst, plan.chunk_edges), plan=plan, **kwargs)


class TestNamedGraphs:
    @pytest.mark.parametrize("plan", PLANS)
    @pytest.mark.parametrize("name", list(NAMED) + list(NOISY))
    def test_equals_from_edges(self, name, plan):
        src, dst, n_triangles, _ = {**NAMED, **NOISY}[name]
        src, dst = np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64)
        built = bounded(src, dst, PLANS[plan])
        assert_same(built, CSRGraph.from_edges(src, dst))
        g = CSRGraph.from_upper_csr(built.indptr, built.indices, built.n_vertices,
                                    vertex_ids=built.vertex_ids)
        assert tricount.count_triangles(g, backend="reference") == n_triangles

    def test_declared_vertices_keep_isolated_ones(self):
        # 0 .. 5 with edges 1-2, 2-3 (written twice) and a loop on 5: 0 and 4 are isolated.
        src, dst = np.array([1, 2, 3, 5]), np.array([2, 3, 2, 5])
        for plan in PLANS.values():
            built = bounded(src, dst, plan, n_vertices=6)
            assert_same(built, CSRGraph.from_edges(src, dst, n_vertices=6))
            assert built.indptr.tolist() == [0, 0, 1, 2, 2, 2, 2]

    def test_id_past_declared_vertices_is_refused(self):
        with pytest.raises(InvalidEdgesError, match="out of range"):
            bounded(np.array([0, 1]), np.array([1, 6]), PLANS["tiny"], n_vertices=6)

    def test_empty_and_loops_only(self):
        empty = np.zeros(0, dtype=np.int64)
        for plan in PLANS.values():
            assert_same(bounded(empty, empty, plan), CSRGraph.from_edges(empty, empty))
            loops = np.array([7, 7, 3])
            assert_same(bounded(loops, loops, plan), CSRGraph.from_edges(loops, loops))


class TestRandomGraphs:
    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(m=st.integers(0, 300), id_bits=st.sampled_from([2, 6, 20, 40, 63, 64]),
           seed=st.integers(0, 2**32 - 1), plan=st.sampled_from(sorted(PLANS)),
           chunk=st.integers(1, 50))
    def test_multigraphs_with_loops_repeats_and_huge_ids(self, m, id_bits, seed, plan, chunk):
        rng = np.random.default_rng(seed)
        top = (1 << id_bits) - 1
        src = rng.integers(0, top, m, dtype=np.uint64, endpoint=True)
        dst = rng.integers(0, top, m, dtype=np.uint64, endpoint=True)
        src[: m // 8] = dst[: m // 8]  # self-loops
        src = np.concatenate([src, dst[: m // 3], src[: m // 5]])  # reverses, repeats
        dst = np.concatenate([dst, src[: m // 3], dst[: m // 5]])
        if id_bits < 64:  # int64 ids, as validation makes them
            src, dst = src.astype(np.int64), dst.astype(np.int64)
        p = PLANS[plan]
        built = build_bounded(ArrayChunks(src, dst, chunk), plan=p)
        assert_same(built, CSRGraph.from_edges(src, dst))


class TestSources:
    def setup_method(self):
        rng = np.random.default_rng(5)
        self.src = rng.integers(0, 500, 2000)
        self.dst = rng.integers(0, 500, 2000)
        self.expected = CSRGraph.from_edges(self.src, self.dst)
        self.pieces = [(self.src[a: a + 300], self.dst[a: a + 300]) for a in range(0, 2000, 300)]

    def test_a_list_of_chunks_in_mixed_integer_types(self):
        chunks = [(s.astype(np.int32), d.astype(np.uint16)) for s, d in self.pieces]
        assert_same(build_bounded(chunks, plan=PLANS["tiny"]), self.expected)

    def test_a_callable_is_called_once_per_pass(self):
        calls = []

        def make():
            calls.append(1)
            return iter(self.pieces)

        assert_same(build_bounded(make, plan=PLANS["spilled"]), self.expected)
        assert len(calls) == 2

    def test_a_one_pass_generator_is_kept_for_the_second_pass(self):
        gen = ((s.copy(), d.copy()) for s, d in self.pieces)
        assert_same(build_bounded(gen, plan=PLANS["tiny"]), self.expected)

    def test_a_one_pass_generator_past_the_memory_it_may_keep_is_refused(self):
        gen = ((s.copy(), d.copy()) for s, d in self.pieces)
        with pytest.raises(TricountError, match="iterated twice"):
            build_bounded(gen, plan=BuildPlan(device="cpu", host_bytes=1000))

    def test_negative_ids_are_refused(self):
        with pytest.raises(InvalidEdgesError, match="negative"):
            build_bounded([(np.array([1, -2]), np.array([2, 3]))], plan=PLANS["tiny"])

    def test_float_ids_are_checked_as_from_edges_checks_them(self):
        chunks = [(s.astype(np.float64), d.astype(np.float64)) for s, d in self.pieces]
        assert_same(build_bounded(chunks, plan=PLANS["tiny"]), self.expected)
        with pytest.raises(InvalidEdgesError, match="fractional"):
            build_bounded([(np.array([1.5]), np.array([2.0]))], plan=PLANS["tiny"])


class TestLargeBuckets:
    """Buckets past the sort room are split by key ranges, down to single pairs."""

    def test_a_hub_row_longer_than_the_room(self):
        # Star: hub 0 and 400 leaves, every edge three times (twice reversed).
        leaves = np.arange(1, 401)
        hub = np.zeros_like(leaves)
        src, dst = np.concatenate([hub, leaves, hub]), np.concatenate([leaves, hub, leaves])
        plan = BuildPlan(device="cpu", chunk_edges=64, bucket_keys=16, spill=True)
        built = bounded(src, dst, plan)
        assert_same(built, CSRGraph.from_edges(src, dst))
        assert built.duplicates_dropped == 400

    def test_one_edge_repeated_past_the_room(self):
        src, dst = np.full(900, 3), np.full(900, 9)
        src[::3] = 9
        dst[::3] = 3  # a third written the other way: not duplicates of those
        built = bounded(src, dst, BuildPlan(device="cpu", chunk_edges=50, bucket_keys=8,
                                            spill=True))
        assert_same(built, CSRGraph.from_edges(src, dst))
        assert (built.n_edges, built.duplicates_dropped) == (1, 898)

    def test_spilled_keys_leave_no_file(self, tmp_path):
        src, dst = np.arange(1000), np.arange(1, 1001)
        built = bounded(src, dst, BuildPlan(device="cpu", chunk_edges=100, bucket_keys=64,
                                            spill=True, spill_dir=str(tmp_path)))
        assert built.note["spilled_bytes"] == 8 * 1000 and not built.note["keys_in_memory"]
        assert list(tmp_path.iterdir()) == []

    def test_an_unwritable_spill_folder_is_an_error_naming_it(self):
        if not os.path.isdir("/proc/self"):
            pytest.skip("no /proc")
        plan = BuildPlan(device="cpu", spill=True, spill_dir="/proc")  # no file can go there
        with pytest.raises(TricountError, match="/proc"):
            bounded(np.arange(10), np.arange(1, 11), plan)


class TestFromEdges:
    def test_max_memory_takes_the_bounded_build_and_says_why(self):
        src, dst = rmat(10, 8, seed=3)
        g = CSRGraph.from_edges(src, dst, max_memory=200_000)
        assert g.build["path"] == "bounded" and "max_memory" in g.build["reason"]
        expected = CSRGraph.from_edges(src, dst)
        assert expected.build == {"path": "in-memory"}
        np.testing.assert_array_equal(g.indptr, expected.indptr)
        np.testing.assert_array_equal(g.indices, expected.indices)
        np.testing.assert_array_equal(g.vertex_ids, expected.vertex_ids)
        assert tricount.count_triangles(g, backend="cpu") == tricount.count_triangles(
            expected, backend="reference")

    def test_too_little_memory_for_the_graph_itself_is_an_error(self):
        src, dst = rmat(10, 8, seed=3)
        with pytest.raises(TricountError, match="more than the .* allowed"):
            CSRGraph.from_edges(src, dst, max_memory=1000)

    def test_routing_estimates(self):
        src = np.zeros(1000, dtype=np.int64)
        assert needs_bounded_build(src, src) is None
        assert needs_bounded_build(src, src, max_memory=10**9) is None
        assert "max_memory" in needs_bounded_build(src, src, max_memory=1000)
        # Lines that fit, but dense ids up to 7,000: the byte map may not.
        wide = np.arange(1000) * 7
        need = in_memory_bytes(1000, 6993)
        assert need > in_memory_bytes(1000, 0)
        assert needs_bounded_build(wide, wide, max_memory=need - 1) is not None
        assert needs_bounded_build(wide, wide, max_memory=need) is None
        # Ids too sparse for a byte map are sorted: they cost nothing per id.
        assert in_memory_bytes(2, 10**9) == 2 * IN_MEMORY_BYTES_PER_LINE
        assert needs_bounded_build([1, 2], [2, 3], max_memory=1) is None  # lists: one piece


def test_shared_graphs_from_their_edge_lines(shared_graphs):
    """The small real graphs' lines, as read from their files, built in tiny buckets."""
    from tricount.io import read_edges

    for row in [r for r in shared_graphs if r["edges"] <= 20_000][:4]:
        src, dst = read_edges(row["path"])
        built = bounded(src, dst, BuildPlan(device="cpu", chunk_edges=997, bucket_keys=1500,
                                            spill=True))
        assert_same(built, CSRGraph.from_edges(src, dst))
        g = CSRGraph.from_upper_csr(built.indptr, built.indices, built.n_vertices,
                                    vertex_ids=built.vertex_ids)
        assert tricount.count_triangles(g, backend="reference") == row["triangles"]


class _Changing:
    """A source whose second pass is not its first (a callable drawing from a shared RNG)."""

    def __init__(self, change):
        self.change, self.passes = change, 0

    def __iter__(self):
        self.passes += 1
        s = np.arange(100, dtype=np.int64)
        d = (s * 7 + 1) % 100
        if self.passes == 1 or self.change == "none":
            yield s[:50], d[:50]
            yield s[50:], d[50:]
        elif self.change == "other lines":
            yield s[:50], (d[:50] + 1) % 100
            yield s[50:], d[50:]
        elif self.change == "more lines":
            yield s[:50], d[:50]
            yield s[50:], d[50:]
            yield s[:5], d[:5]
        elif self.change == "fewer lines":
            yield s[:50], d[:50]


@pytest.mark.parametrize("spill", [False, True])
@pytest.mark.parametrize("change", ["other lines", "more lines", "fewer lines"])
def test_a_source_that_changes_between_its_passes_is_refused(change, spill, tmp_path):
    """Pass 2 filled the buckets pass 1 had sized: other or more lines overflowed them (a
    heap corruption: 'corrupted size vs. prev_size', rc 134) and fewer gave a wrong graph
    (49 edges, 50 duplicates of 100 distinct lines)."""
    plan = BuildPlan(device="cpu", spill=spill, bucket_keys=7)
    with pytest.raises(TricountError, match="other lines on its second pass"):
        build_bounded(_Changing(change), plan=plan)
    with pytest.raises(TricountError, match="other lines on its second pass"):
        tricount.io.write_native_edges(tmp_path / "g.tcsr", _Changing(change), plan=plan)
    assert os.listdir(tmp_path) == []
    same = build_bounded(_Changing("none"), plan=plan)
    assert same.n_edges == CSRGraph.from_edges(np.arange(100), (np.arange(100) * 7 + 1) % 100
                                                ).n_edges


def test_a_stream_target_spills_to_the_temporary_folder(monkeypatch, tmp_path, capfdbinary):
    """Spilled keys went beside the target: for - that was the current folder (read-only
    there: an error), for /dev/stdout on a pipe /proc/PID/fd."""
    from tricount.prep.outofcore import build as build_module

    seen = []
    real = build_module.KeyStore

    def store(counts, spill):
        seen.append(spill)
        return real(counts, spill)

    monkeypatch.setattr(build_module, "KeyStore", store)
    monkeypatch.chdir(tmp_path)
    s, d = rmat(8, 8, seed=2)
    tricount.io.write_native_edges("-", ArrayChunks(s, d, 500),
                                   plan=BuildPlan(device="cpu", spill=True))
    assert seen and seen[0] not in (str(tmp_path), os.getcwd())
    assert capfdbinary.readouterr().out[:8] == b"\x89TCSR\r\n\x1a"


def test_a_small_graph_is_built_in_one_piece_whatever_the_memory_reads(monkeypatch):
    # A shared host reported MemAvailable near 0 for a moment: a 17-edge graph took the
    # bounded build and failed ("needs 0.2 KiB ... more than the 0.0 KiB allowed").
    import tricount
    from tricount.prep.outofcore import build, memory

    monkeypatch.setattr(memory, "available_memory", lambda: 0)
    monkeypatch.setattr(build, "available_memory", lambda: 0)
    src, dst = np.array([0, 1, 2]), np.array([1, 2, 0])
    assert memory.needs_bounded_build(src, dst) is None
    assert tricount.count_triangles((src, dst), backend="cpu") == 1
    assert memory.needs_bounded_build(src, dst, max_memory=1) is not None  # asked for
