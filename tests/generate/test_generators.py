"""Every generator's contract: sizes, degrees, closed-form triangle counts, seeds.

The random generators are also checked against plain sequential Python
versions of their definitions (one draw at a time), so the parallel NumPy code
provably computes the documented process.
"""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest

import tricount
from tricount import reference
from tricount.errors import InvalidArgumentError
from tricount.generate import (
    barabasi_albert,
    complete,
    erdos_renyi,
    grid,
    star,
    watts_strogatz,
)
from tricount.generate._common import unrank_pairs
from tricount.generate._hash import below, bernoulli, stream_key


def n_triangles(src, dst) -> int:
    return tricount.count_triangles((src, dst), backend="cpu", method="merge")


def degrees(src, dst, n):
    """Degrees of the simple graph (loops and repeats dropped)."""
    g = tricount.Graph.from_edges(src, dst, n_vertices=n)
    return g.degrees


def same(a, b) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a, b))


class TestUnrankPairs:
    def test_small_ranks_are_colex_pairs(self):
        lo, hi = unrank_pairs(np.arange(10, dtype=np.uint64))
        assert list(zip(lo.tolist(), hi.tolist())) == [
            (0, 1), (0, 2), (1, 2), (0, 3), (1, 3), (2, 3), (0, 4), (1, 4), (2, 4), (3, 4)]

    def test_huge_ranks_are_exact(self):
        # Near 2**62 the float square root is inexact; the integer correction is not.
        ranks = [2**62 - 1, 2**62, 2**62 + 12345, 2**53 + 1, 2**53 - 1, 4_294_967_295 * 2]
        lo, hi = unrank_pairs(np.array(ranks, dtype=np.uint64))
        for r, u, v in zip(ranks, lo.tolist(), hi.tolist()):
            assert 0 <= u < v and v * (v - 1) // 2 + u == r


class TestErdosRenyi:
    def test_exactly_m_distinct_edges_without_loops(self):
        src, dst = erdos_renyi(500, 3000, seed=4)
        pairs = set(zip(src.tolist(), dst.tolist()))
        assert src.shape == (3000,) and len(pairs) == 3000
        assert (src < dst).all() and int(src.min()) >= 0 and int(dst.max()) < 500
        assert tricount.Graph.from_edges(src, dst).n_edges == 3000

    def test_dense_case_leaves_out_the_rest(self):
        # m above half of C(n, 2) takes the complement path; still exactly m edges.
        src, dst = erdos_renyi(40, 700, seed=2)  # C(40, 2) = 780
        assert len(set(zip(src.tolist(), dst.tolist()))) == 700 and (src < dst).all()

    def test_all_pairs_is_complete_and_zero_is_empty(self):
        src, dst = erdos_renyi(12, 66)
        assert n_triangles(src, dst) == math.comb(12, 3)
        assert erdos_renyi(12, 0)[0].shape == (0,)

    def test_is_the_first_m_distinct_draws_of_the_stream(self):
        # The definition, one draw at a time.
        n, m, seed = 30, 200, 9
        bound = n * (n - 1) // 2
        key = stream_key(seed, 11)
        seen, expected, i = set(), [], 0
        while len(expected) < m:
            r = int(below(np.array([i], dtype=np.uint64), key, np.uint64(bound))[0])
            if r not in seen:
                seen.add(r)
                expected.append(r)
            i += 1
        lo, hi = erdos_renyi(n, m, seed=seed)
        assert (hi * (hi - 1) // 2 + lo).tolist() == expected

    @pytest.mark.parametrize("bound", [3 << 62, (1 << 63) + 12345, 5, 1 << 40])
    def test_every_rank_is_equally_likely(self, bound):
        """``splitmix64 % bound`` drew the ranks below 2**64 mod bound more often: with
        bound = 3 * 2**62 the first third of the ranks twice as often as the rest (at
        C(n, 2) near 2**62, n = 2.8e9, the vertices above 2.35e9 had 17 % fewer edges).
        The draws of the uneven tail are skipped: the definition, one draw at a time."""
        from tricount.generate._hash import splitmix64
        from tricount.generate.erdos_renyi import first_distinct

        k, key = 400, stream_key(3, 11)
        limit = (2**64 // bound) * bound
        expected, seen, i = [], set(), 0
        while len(expected) < min(k, bound // 2):
            raw = int(splitmix64(np.array([i], dtype=np.uint64), key)[0])
            i += 1
            if raw < limit and raw % bound not in seen:
                seen.add(raw % bound)
                expected.append(raw % bound)
        got = first_distinct(len(expected), bound, key).tolist()
        assert got == expected
        if bound == 3 << 62:  # a third of the ranks lie below 2**64 - bound = 2**62
            low = np.mean(np.array(first_distinct(20000, bound, key)) < (1 << 62))
            assert abs(low - 1 / 3) < 0.02  # 0.5 with the bias; std 0.0033

    def test_block_size_does_not_change_the_graph(self, monkeypatch):
        mod = importlib.import_module("tricount.generate.erdos_renyi")
        whole = erdos_renyi(2000, 20000, seed=5)
        monkeypatch.setattr(mod, "DRAW_SLACK", 0.01)  # forces the block to be redrawn longer
        assert same(whole, erdos_renyi(2000, 20000, seed=5))

    def test_seed_decides(self):
        assert same(erdos_renyi(300, 900, seed=1), erdos_renyi(300, 900, seed=1))
        assert not same(erdos_renyi(300, 900, seed=1), erdos_renyi(300, 900, seed=2))

    def test_degrees_are_binomial_like(self):
        src, dst = erdos_renyi(20000, 100000, seed=1)
        deg = degrees(src, dst, 20000)
        assert float(deg.mean()) == pytest.approx(10.0)  # 2m / n exactly
        assert int(deg.max()) < 40  # Poisson(10) tail: P(X >= 40) ~ 1e-11 per vertex

    def test_too_many_edges_raise(self):
        with pytest.raises(InvalidArgumentError, match="at most 45 edges"):
            erdos_renyi(10, 46)


class TestBarabasiAlbert:
    def test_sizes_and_targets_are_earlier_vertices(self):
        n, m = 1000, 4
        src, dst = barabasi_albert(n, m, seed=3)
        assert src.shape == dst.shape == (m * (n - m),)
        assert (dst < src).all() and int(src.max()) == n - 1
        # the seed star: m edges (i, 0)
        assert src[:m].tolist() == list(range(1, m + 1)) and not dst[:m].any()
        # each later vertex brings exactly m edge lines
        assert (np.bincount(src[m:], minlength=n)[m + 1:] == m).all()

    def test_every_vertex_is_attached(self):
        src, dst = barabasi_albert(3000, 3, seed=1)
        deg = degrees(src, dst, 3000)
        assert int(deg.min()) >= 1
        assert int(deg[4:].min()) >= 1  # every new vertex has at least one distinct target

    def test_m1_is_a_tree(self):
        src, dst = barabasi_albert(500, 1, seed=8)
        g = tricount.Graph.from_edges(src, dst)
        assert g.n_vertices == 500 and g.n_edges == 499 and n_triangles(src, dst) == 0

    def test_preferential_attachment_makes_hubs(self):
        src, dst = barabasi_albert(20000, 3, seed=1)
        deg = degrees(src, dst, 20000)
        # uniform attachment would give a max degree near 3 ln n ~ 30
        assert int(deg.max()) > 100 and float(deg.mean()) < 6.0

    def test_is_the_sequential_batagelj_brandes_process(self):
        # Filling endpoint positions one by one, as the paper's loop does.
        n, m, seed = 60, 3, 4
        key = stream_key(seed, 21)
        n_edges = m * (n - m)
        pos = [0] * (2 * n_edges)
        for e in range(m):
            pos[2 * e], pos[2 * e + 1] = e + 1, 0
        for v in range(m + 1, n):
            first = m + (v - m - 1) * m
            for i in range(m):
                e = first + i
                r = int(below(np.array([e], dtype=np.uint64), key, np.uint64(2 * first))[0])
                pos[2 * e], pos[2 * e + 1] = v, pos[r]
        src, dst = barabasi_albert(n, m, seed=seed)
        assert src.tolist() == pos[0::2] and dst.tolist() == pos[1::2]

    def test_seed_decides(self):
        assert same(barabasi_albert(400, 2, seed=5), barabasi_albert(400, 2, seed=5))
        assert not same(barabasi_albert(400, 2, seed=5), barabasi_albert(400, 2, seed=6))

    @pytest.mark.parametrize("n,m", [(3, 3), (5, 0), (2, 5)])
    def test_bad_sizes_raise(self, n, m):
        with pytest.raises(InvalidArgumentError):
            barabasi_albert(n, m)


class TestWattsStrogatz:
    @pytest.mark.parametrize("n,k", [(10, 2), (10, 4), (13, 6), (100, 10), (31, 20)])
    def test_lattice_has_closed_form_triangles(self, n, k):
        src, dst = watts_strogatz(n, k, 0.0)
        h = k // 2
        assert src.shape == (n * h,)
        assert (degrees(src, dst, n) == k).all()
        expected = n * h * (h - 1) // 2 if n > 3 * h else reference.count_triangles(src, dst)
        assert n_triangles(src, dst) == expected

    def test_every_edge_rewired_at_p1_and_none_loops(self):
        src, dst = watts_strogatz(1000, 6, 1.0, seed=2)
        lattice = watts_strogatz(1000, 6, 0.0)[1]
        assert (src != dst).all()
        # a rewired end is uniform over 999 vertices, so it keeps the lattice end ~1/999 of the time
        assert int((dst == lattice).sum()) < 30

    def test_rewired_fraction_follows_p(self):
        n, k, p = 20000, 10, 0.2
        dst = watts_strogatz(n, k, p, seed=1)[1]
        lattice = watts_strogatz(n, k, 0.0)[1]
        changed = float((dst != lattice).mean())
        # Binomial(100000, ~0.2): the standard deviation is 0.0013
        assert changed == pytest.approx(p * (1 - 1 / (n - 1)), abs=0.01)

    def test_bernoulli_threshold_is_exact_at_the_ends(self):
        c = np.arange(1000, dtype=np.uint64)
        assert not bernoulli(c, 7, 0.0).any() and bernoulli(c, 7, 1.0).all()

    def test_seed_decides(self):
        assert same(watts_strogatz(300, 4, 0.3, seed=1), watts_strogatz(300, 4, 0.3, seed=1))
        assert not same(watts_strogatz(300, 4, 0.3, seed=1), watts_strogatz(300, 4, 0.3, seed=2))

    @pytest.mark.parametrize("n,k,p", [(10, 3, 0.1), (10, 10, 0.1), (10, 4, 1.5), (10, 4, -0.1)])
    def test_bad_parameters_raise(self, n, k, p):
        with pytest.raises(InvalidArgumentError):
            watts_strogatz(n, k, p)


class TestComplete:
    @pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 5, 31, 32, 33, 100])
    def test_triangles_are_n_choose_3(self, n):
        src, dst = complete(n)
        assert src.shape == (math.comb(n, 2),)
        assert len(set(zip(src.tolist(), dst.tolist()))) == math.comb(n, 2)
        assert n_triangles(src, dst) == math.comb(n, 3)

    def test_k4_per_vertex(self):
        src, dst = complete(4)
        per_vertex = reference.triangles_per_vertex(src, dst)
        assert per_vertex == {0: 3, 1: 3, 2: 3, 3: 3} and sum(per_vertex.values()) == 3 * 4


class TestStar:
    @pytest.mark.parametrize("leaves", [0, 1, 2, 10, 1000])
    def test_no_triangles_and_hub_degree(self, leaves):
        src, dst = star(leaves)
        assert src.shape == (leaves,) and n_triangles(src, dst) == 0
        if leaves:
            deg = degrees(src, dst, leaves + 1)
            assert int(deg[0]) == leaves and (deg[1:] == 1).all()


class TestGrid:
    @pytest.mark.parametrize("rows,cols", [(1, 1), (1, 5), (2, 2), (3, 4), (17, 9)])
    def test_edges_degrees_and_no_triangles(self, rows, cols):
        src, dst = grid(rows, cols)
        assert src.shape == (rows * (cols - 1) + cols * (rows - 1),)
        if src.shape[0]:
            assert int(degrees(src, dst, rows * cols).max()) <= 4
        assert n_triangles(src, dst) == 0

    def test_torus(self):
        src, dst = grid(5, 6, periodic=True)
        assert src.shape == (60,) and (degrees(src, dst, 30) == 4).all()
        assert n_triangles(src, dst) == 0
        # a side of 3 closes each of the 5 columns into a triangle
        assert n_triangles(*grid(3, 5, periodic=True)) == 5

    def test_bad_torus_raises(self):
        with pytest.raises(InvalidArgumentError, match=">= 3"):
            grid(2, 5, periodic=True)


@pytest.mark.parametrize("make", [
    lambda xp: tricount.generate.rmat(4, 2, xp=xp),
    lambda xp: erdos_renyi(10, 5, xp=xp),
    lambda xp: complete(4, xp=xp),
    lambda xp: star(3, xp=xp),
    lambda xp: tuple(np.concatenate(side) for side in zip(*tricount.generate.rmat_chunks(
        4, 2, chunk_edges=7, xp=xp))),
], ids=["rmat", "erdos_renyi", "complete", "star", "rmat_chunks"])
def test_xp_is_the_module_or_its_name(make):
    by_module, by_name = make(np), make("numpy")
    assert all(np.array_equal(a, b) for a, b in zip(by_module, by_name))
    for bad in ("torch", 5, None):
        with pytest.raises(InvalidArgumentError, match="xp must be numpy or cupy"):
            make(bad)


@pytest.mark.parametrize("make", [
    lambda seed: tricount.generate.rmat(4, seed=seed),
    lambda seed: erdos_renyi(10, 5, seed=seed),
    lambda seed: barabasi_albert(10, 2, seed=seed),
    lambda seed: watts_strogatz(10, 2, 0.5, seed=seed),
])
@pytest.mark.parametrize("seed, message", [(-1, "seed must be 0 .. "),
                                           (2**64, "seed must be 0 .. "),
                                           (1.5, "seed must be an integer")])
def test_a_seed_is_a_64_bit_unsigned_integer(make, seed, message):
    """Seeds wrapped modulo 2**64: seed -1 gave seed 2**64 - 1's graph under another name."""
    with pytest.raises(InvalidArgumentError, match=message):
        make(seed)
    assert same(make(2**64 - 1), make(2**64 - 1))


def test_probabilities_that_sum_to_one_in_decimals_are_accepted():
    """0.33 + 0.56 + 0.11 is 1.0000000000000002 in floats: d = 0 was refused."""
    src, dst = tricount.generate.rmat(8, 4, a=0.33, b=0.56, c=0.11, seed=2)
    assert src.shape[0] == 4 << 8
    with pytest.raises(InvalidArgumentError, match="a \\+ b \\+ c must be at most 1"):
        tricount.generate.rmat(8, 4, a=0.34, b=0.56, c=0.11)


def test_a_grid_is_periodic_only_when_asked_with_a_boolean():
    with pytest.raises(InvalidArgumentError, match="periodic must be True or False"):
        grid(4, 4, periodic="no")
    assert grid(4, 4, periodic=np.bool_(False))[0].shape[0] == 24
