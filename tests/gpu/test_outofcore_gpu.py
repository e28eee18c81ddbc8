"""The bounded build's GPU twin (tricount.gpu.prepare.outofcore) returns the CPU build's arrays.

Host edges sorted bucket by bucket on the device, CuPy edges surveyed and bucketed
on the device, buckets past the device's room sent back to the CPU, keys spilled
to a file: every array and count equals ``CSRGraph.from_edges``'s, and a streamed
``.tcsr`` generated on the GPU is byte for byte the in-memory one.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
from gpu_support import require_gpu  # noqa: E402

pytestmark = pytest.mark.gpu
require_gpu()

import cupy  # noqa: E402

from tricount import CSRGraph, count_triangles  # noqa: E402
from tricount.generate import rmat, rmat_chunks, rmat_name  # noqa: E402
from tricount.io import write_native, write_native_edges  # noqa: E402
from tricount.prep.outofcore import ArrayChunks, BuildPlan, build_bounded  # noqa: E402

#: GPU plans: whole; tiny buckets (hub bins past the room go back to the CPU); spilled keys.
PLANS = {
    "whole": BuildPlan(device="gpu"),
    "tiny": BuildPlan(device="gpu", chunk_edges=61, bucket_keys=40, buckets=7),
    "spilled": BuildPlan(device="gpu", chunk_edges=500, bucket_keys=300, spill=True),
}


def assert_same(built, expected):
    assert (built.n_vertices, built.n_edges) == (expected.n_vertices, expected.n_edges)
    np.testing.assert_array_equal(built.indptr, cupy.asnumpy(expected.indptr))
    assert built.indices.dtype == expected.indices.dtype
    np.testing.assert_array_equal(built.indices, cupy.asnumpy(expected.indices))
    np.testing.assert_array_equal(built.vertex_ids, cupy.asnumpy(expected.vertex_ids))
    assert (built.self_loops_dropped, built.duplicates_dropped) == (
        expected.self_loops_dropped, expected.duplicates_dropped)


def drawn_edges(seed, m, top):
    rng = np.random.default_rng(seed)
    src = rng.integers(0, top, m, dtype=np.int64)
    dst = rng.integers(0, top, m, dtype=np.int64)
    src[: m // 8] = dst[: m // 8]
    return np.concatenate([src, dst[: m // 3], src[:9]]), np.concatenate([dst, src[: m // 3],
                                                                           dst[:9]])


@pytest.mark.parametrize("plan", PLANS)
@pytest.mark.parametrize("on_device", [False, True], ids=["host-edges", "device-edges"])
@pytest.mark.parametrize("top", [50, 5000, 2**40], ids=["dense", "gaps", "sparse"])
def test_equals_from_edges(plan, on_device, top):
    src, dst = drawn_edges(7, 3000, top)
    expected = CSRGraph.from_edges(src, dst)
    xp = cupy if on_device else np
    built = build_bounded(ArrayChunks(xp.asarray(src), xp.asarray(dst), PLANS[plan].chunk_edges),
                          plan=PLANS[plan])
    assert built.note["device"] == "gpu"
    assert_same(built, expected)


@settings(max_examples=15, deadline=None)
@given(m=st.integers(0, 400), bits=st.sampled_from([3, 10, 33, 64]), seed=st.integers(0, 999),
       chunk=st.integers(1, 64), on_device=st.booleans())
def test_random_multigraphs(m, bits, seed, chunk, on_device):
    rng = np.random.default_rng(seed)
    src = rng.integers(0, 2**bits - 1, m, dtype=np.uint64, endpoint=True)
    dst = rng.integers(0, 2**bits - 1, m, dtype=np.uint64, endpoint=True)
    src = np.concatenate([src, dst[: m // 2]])
    dst = np.concatenate([dst, src[: m // 2]])
    if bits < 64:
        src, dst = src.astype(np.int64), dst.astype(np.int64)
    xp = cupy if on_device else np
    plan = BuildPlan(device="gpu", chunk_edges=chunk, bucket_keys=32, buckets=3)
    built = build_bounded(ArrayChunks(xp.asarray(src), xp.asarray(dst), chunk), plan=plan)
    assert_same(built, CSRGraph.from_edges(src, dst))


def test_declared_vertices_on_the_device():
    src, dst = cupy.asarray([1, 2, 3]), cupy.asarray([2, 3, 2])
    built = build_bounded(ArrayChunks(src, dst, 2), n_vertices=6, plan=PLANS["tiny"])
    assert built.indptr.tolist() == [0, 0, 1, 2, 2, 2, 2]


@pytest.mark.parametrize("scale,chunk", [(10, 1000), (13, 1 << 14)])
def test_generated_on_the_gpu_streams_the_same_file(tmp_path, scale, chunk):
    name = rmat_name(scale, 16, 1)
    write_native(tmp_path / "memory.tcsr", CSRGraph.from_edges(*rmat(scale, 16, seed=1),
                                                               name=name))
    for k, plan in enumerate(PLANS.values()):
        write_native_edges(tmp_path / f"gpu{k}.tcsr",
                           rmat_chunks(scale, 16, seed=1, chunk_edges=chunk, xp=cupy),
                           name=name, plan=plan)
        assert (tmp_path / f"gpu{k}.tcsr").read_bytes() == (tmp_path / "memory.tcsr").read_bytes()


def test_from_edges_on_cupy_past_its_budget_comes_back_on_the_device():
    src, dst = rmat(12, 16, seed=2, xp=cupy)
    fused = CSRGraph.from_edges(src, dst)
    bounded = CSRGraph.from_edges(src, dst, max_memory=1 << 20)
    assert bounded.build["path"] == "bounded" and bounded.xp is cupy
    assert isinstance(bounded.vertex_ids, cupy.ndarray)
    for a, b in ((bounded.indptr, fused.indptr), (bounded.indices, fused.indices),
                 (bounded.vertex_ids, fused.vertex_ids)):
        np.testing.assert_array_equal(cupy.asnumpy(a), cupy.asnumpy(b))
    assert count_triangles(bounded, backend="gpu") == count_triangles(fused, backend="cpu")
