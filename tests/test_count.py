"""Exact counts: every CPU method and the oracle, on named, real and random graphs."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tricount
import tricount.gpu
from tricount.backends import facts
from tricount import reference
from tricount.cpu import CPU_METHODS
from tricount.generate import rmat

from graphs import BY_REAL_SIZE, NAMED, NOISY, complete_graph

ALL_NAMED = {**NAMED, **NOISY}
CPU_RUNS = [("cpu", m) for m in CPU_METHODS] + [("cpu", "auto"), ("reference", "auto")]


@pytest.mark.parametrize("backend,method", CPU_RUNS)
@pytest.mark.parametrize("name", sorted(ALL_NAMED))
def test_named_graphs(name, backend, method):
    src, dst, n_triangles, _ = ALL_NAMED[name]
    assert tricount.count_triangles((src, dst), backend=backend, method=method) == n_triangles


@pytest.mark.parametrize("name", sorted(ALL_NAMED))
def test_oracle_on_named_graphs(name):
    src, dst, n_triangles, per_vertex = ALL_NAMED[name]
    assert reference.count_triangles(src, dst) == n_triangles
    assert reference.triangles_per_vertex(src, dst) == per_vertex
    assert sum(per_vertex.values()) == 3 * n_triangles


@pytest.mark.parametrize("n", [3, 4, 5, 17, 64, 100])
def test_complete_graphs_match_closed_form(n):
    src, dst = complete_graph(n)
    for method in CPU_METHODS:
        assert tricount.count_triangles((src, dst), backend="cpu", method=method) == comb(n, 3)


def complete_upper_csr(n):
    """K_n built straight as its canonical CSR (row u holds u+1 .. n-1): no sort of its edges."""
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.arange(n - 1, -1, -1), out=indptr[1:])
    indices = np.triu_indices(n, k=1)[1].astype(np.int32)
    return tricount.Graph.from_upper_csr(indptr, indices, n, vertex_ids=np.arange(n))


@pytest.mark.slow
@pytest.mark.parametrize("method", ["bitmap", "merge"])
def test_count_beyond_32_bits(method):
    # K_2955 has C(2955, 3) = 4,296,157,285 > 2**32 triangles: every accumulator from the
    # kernel's threads to the returned int must be 64-bit. Slow: 4.3e9 probes (bitmap: 5 s on
    # two cores, merge minutes); .ci/run runs the bitmap one after the default suite.
    count = tricount.count_triangles(complete_upper_csr(2955), backend="cpu", method=method)
    assert count == comb(2955, 3) == 4_296_157_285
    assert count > 2**32


@BY_REAL_SIZE
def test_real_graphs_every_cpu_method(real_graphs):
    for row, graph in real_graphs:
        assert graph.n_edges == row["edges"], row["name"]
        # Vertices that appear only in self-loops are vertices too (NetworkX agrees);
        # graphs.json counts vertices with at least one non-loop edge.
        assert int(np.count_nonzero(graph.degrees)) == row["vertices"], row["name"]
        assert graph.max_degree == row["max_degree"], row["name"]
        for method in CPU_METHODS:
            if method == "spgemm" and row["edges"] > 200_000:
                continue  # single-threaded SciPy product: minutes on the largest graphs
            got = tricount.count_triangles(graph, backend="cpu", method=method)
            assert got == row["triangles"], (row["name"], method)


@pytest.mark.parametrize("real_graphs", ["small"], indirect=True)
def test_real_graphs_oracle_agrees(real_graphs):
    # The oracle is slow: judge it on the small real graphs.
    for row, graph in real_graphs:
        assert tricount.count_triangles(graph, backend="reference") == row["triangles"], row["name"]


def test_rmat_example_matches_oracle():
    src, dst = rmat(10, 8, seed=3)
    expected = reference.count_triangles(src.tolist(), dst.tolist())
    for method in CPU_METHODS:
        assert tricount.count_triangles((src, dst), backend="cpu", method=method) == expected


# -- property-based: random multigraphs against the oracle ------------------------------------

multigraphs = st.integers(min_value=1, max_value=40).flatmap(
    lambda n: st.lists(
        st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), min_size=0, max_size=250
    )
)


@settings(max_examples=150, deadline=None)
@given(edges=multigraphs, method=st.sampled_from(CPU_METHODS))
def test_random_multigraphs_match_oracle(edges, method):
    src = [u for u, _ in edges]
    dst = [v for _, v in edges]
    expected = reference.count_triangles(src, dst)
    assert tricount.count_triangles((src, dst), backend="cpu", method=method) == expected


@settings(max_examples=50, deadline=None)
@given(edges=multigraphs, data=st.data())
def test_relabelling_with_sparse_ids_never_changes_count(edges, data):
    src = [u for u, _ in edges]
    dst = [v for _, v in edges]
    n = max(src + dst, default=-1) + 1
    # Distinct arbitrary 63-bit ids: order scrambled, gaps everywhere.
    new_ids = data.draw(st.lists(st.integers(0, 2**63 - 1), min_size=n, max_size=n, unique=True))
    relabelled_src = np.array([new_ids[u] for u in src], dtype=np.int64)
    relabelled_dst = np.array([new_ids[v] for v in dst], dtype=np.int64)
    base = tricount.count_triangles((src, dst), backend="cpu")
    assert tricount.count_triangles((relabelled_src, relabelled_dst), backend="cpu") == base
    graph = tricount.Graph.from_edges(relabelled_src, relabelled_dst)
    assert sorted(graph.vertex_ids.tolist()) == sorted({new_ids[v] for v in src + dst})


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 120), p=st.floats(0.0, 0.6), seed=st.integers(0, 2**32 - 1))
def test_random_simple_graphs_all_methods_agree(n, p, seed):
    rng = np.random.default_rng(seed)
    src, dst = np.triu_indices(n, k=1)
    keep = rng.random(src.shape[0]) < p
    src, dst = src[keep], dst[keep]
    expected = reference.count_triangles(src.tolist(), dst.tolist())
    counts = {m: tricount.count_triangles((src, dst), backend="cpu", method=m) for m in CPU_METHODS}
    assert set(counts.values()) == {expected}


def test_count_returns_python_int_and_result_records_choice():
    result = tricount.count(([0, 1, 2], [1, 2, 0]), backend="cpu")
    assert type(result.n_triangles) is int and result.n_triangles == 1
    assert result.backend == "cpu" and result.backend_reason == "requested"
    assert result.method in CPU_METHODS and result.method_reason.startswith("auto")
    assert set(result.timings) >= {"load_s", "preprocess_s", "count_s", "total_s"}


def test_auto_backend_without_gpu_falls_back_and_says_why(monkeypatch):
    # The GPU is ruled out without a probe (no CuPy, no device node) ...
    monkeypatch.setattr(facts, "gpu_presence", lambda: ("absent", "no GPU in this test"))
    result = tricount.count(([0, 1, 2], [1, 2, 0]))
    assert result.backend == "cpu"
    assert "no GPU in this test" in result.backend_reason
    # ... or by the probe, where a GPU route would have been the fastest.
    monkeypatch.setattr(facts, "gpu_presence", lambda: ("unknown", "a device node"))
    monkeypatch.setattr(tricount.gpu, "probe", lambda: (False, "the probe found none"))
    big = facts.Workload("device-edges", 1 << 24, 1 << 28)
    chosen = tricount.backends.select("auto", big)
    assert chosen.backend.name == "cpu" and "the probe found none" in chosen.reason


def test_explicit_gpu_without_gpu_raises(monkeypatch):
    monkeypatch.setattr(tricount.gpu, "probe", lambda: (False, "no GPU in this test"))
    with pytest.raises(tricount.BackendUnavailableError, match="no GPU in this test"):
        tricount.count_triangles(([0], [1]), backend="gpu")


@pytest.mark.parametrize("method", ["hash", "wedge", "bitwedge"])
def test_cpu_names_gpu_only_methods(method):
    with pytest.raises(tricount.UnknownMethodError, match="only on the GPU"):
        tricount.count_triangles(([0], [1]), backend="cpu", method=method)


def test_unknown_method_and_backend():
    with pytest.raises(tricount.UnknownMethodError, match="unknown method 'nope'"):
        tricount.count_triangles(([0], [1]), backend="cpu", method="nope")
    with pytest.raises(tricount.InvalidArgumentError, match="backend must be one of"):
        tricount.count_triangles(([0], [1]), backend="tpu")


@pytest.mark.parametrize("call,name", [
    (lambda: tricount.count_triangles(([0], [1]), backend=1), "backend"),
    (lambda: tricount.count_triangles(([0], [1]), backend="cpu", method=None), "method"),
    (lambda: tricount.count(b"0 1"), "graph"),
    (lambda: tricount.count(42), "graph"),
])
def test_arguments_are_checked_at_the_boundary(call, name):
    with pytest.raises(tricount.InvalidArgumentError, match=f"^{name} must be") as info:
        call()
    assert isinstance(info.value, TypeError)


def test_path_input(tmp_path):
    path = tmp_path / "k4.txt"
    path.write_text("# K4\n0 1\n0 2\n0 3\n1 2\n1 3\n2 3\n")
    assert tricount.count_triangles(path, backend="cpu") == 4
    assert tricount.count_triangles(str(path), backend="cpu") == 4


def test_a_gpu_orientation_with_auto_counts_on_the_cpu_and_says_so(monkeypatch):
    """count(g, orientation='id') raised 'the CPU backend takes no method options' where
    auto took the CPU (a machine without a GPU): a script tuned for a GPU could not run."""
    monkeypatch.setattr(tricount.gpu, "probe", lambda: (False, "no GPU here"))
    k4 = ([0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3])
    result = tricount.count(k4, orientation="id")
    assert (result.n_triangles, result.backend) == (4, "cpu")
    assert "orientation='id' is the GPU engine's, not used on the cpu" in result.backend_reason
    with pytest.raises(tricount.UnknownMethodError, match="takes no method options"):
        tricount.count(k4, orientation="id", backend="cpu")  # asked for both: a conflict
