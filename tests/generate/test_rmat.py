"""The seeded R-MAT generator: reproducible, graph500-shaped, permuted."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from tricount.errors import InvalidArgumentError
from tricount.generate import rmat
from tricount.generate.rmat import random_permutation


def test_same_seed_same_graph_and_different_seed_different_graph():
    a = rmat(10, 4, seed=7)
    b = rmat(10, 4, seed=7)
    c = rmat(10, 4, seed=8)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(a[0], c[0])


def test_sizes_and_ranges():
    src, dst = rmat(8, 16, seed=1)
    assert src.shape == dst.shape == (16 * 256,)
    assert src.dtype == np.int64 and int(src.min()) >= 0 and int(max(src.max(), dst.max())) < 256


def test_permutation_is_a_permutation():
    label = random_permutation(1000, 5)
    assert sorted(label.tolist()) == list(range(1000))
    assert not np.array_equal(label, np.arange(1000))


def test_unpermuted_rmat_is_skewed_towards_low_ids():
    # With a = 0.57 the top-left quadrant dominates: vertex 0 is the biggest hub.
    src, dst = rmat(12, 16, seed=1, permute=False)
    deg = np.bincount(np.concatenate([src, dst]), minlength=1 << 12)
    assert int(np.argmax(deg)) == 0


def test_batches_do_not_change_the_stream(monkeypatch):
    mod = importlib.import_module("tricount.generate.rmat")  # the module, not the function

    whole = rmat(9, 8, seed=2)
    monkeypatch.setattr(mod, "BATCH_EDGES", 1000)
    batched = rmat(9, 8, seed=2)
    assert all(np.array_equal(x, y) for x, y in zip(whole, batched))


def test_quadrant_probabilities_are_parameters():
    # a = 1: every edge stays in the top-left quadrant at every level: all (0, 0) before
    # permutation, a single self-loop id after it.
    src, dst = rmat(6, 2, seed=1, a=1.0, b=0.0, c=0.0, permute=False)
    assert not src.any() and not dst.any()
    # b = 1: always the top-right quadrant: src stays 0, dst takes every bit.
    src, dst = rmat(6, 2, seed=1, a=0.0, b=1.0, c=0.0, permute=False)
    assert not src.any() and (dst == 63).all()


@pytest.mark.parametrize("kwargs,name", [
    (dict(scale=-1), "scale"), (dict(scale=41), "scale"), (dict(scale=3.5), "scale"),
    (dict(edge_factor=-1), "edge_factor"), (dict(edge_factor=2.5), "edge_factor"),
    (dict(seed=1.5), "seed"), (dict(a=0.6, b=0.3, c=0.2), "a \\+ b \\+ c"), (dict(a=-0.1), "a"),
])
def test_bad_parameters_raise_naming_the_parameter(kwargs, name):
    args = dict(scale=4, edge_factor=2) | kwargs
    with pytest.raises(InvalidArgumentError, match=f"^{name} must"):
        rmat(args.pop("scale"), args.pop("edge_factor"), **args)


def test_the_chunks_cross_processes_and_copies():
    # RmatChunks held its array module: pickle and deepcopy raised "cannot pickle 'module'".
    import copy
    import pickle

    from tricount.generate import RmatChunks

    chunks = RmatChunks(8, 4, seed=3, chunk_edges=100, permute=False)
    want = [np.concatenate(side) for side in zip(*chunks)]
    for again in (pickle.loads(pickle.dumps(chunks)), copy.deepcopy(chunks)):
        assert again.xp is np and vars(again) == vars(chunks)
        got = [np.concatenate(side) for side in zip(*again)]
        assert all((a == b).all() for a, b in zip(got, want))
