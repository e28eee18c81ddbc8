"""The GPU lister on random graphs (hypothesis): the CPU lister's rows, in one order for
any chunk size, under the default shape and one of one-probe tasks (tests/gpu/test_listing_hash.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gpu
cupy = pytest.importorskip("cupy")
hypothesis = pytest.importorskip("hypothesis")

from tricount.gpu import probe  # noqa: E402

_usable, _why = probe()
if not _usable:
    pytest.skip(f"no usable GPU: {_why}", allow_module_level=True)

sys.path.insert(0, str(Path(__file__).parent))

from test_listing_hash import SHAPES, got_rows, graph_of, sorted_rows, want_rows  # noqa: E402

st = hypothesis.strategies


@hypothesis.settings(max_examples=40, deadline=None)
@hypothesis.given(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), max_size=300),
                  st.integers(1, 50))
def test_random_graphs(pairs, chunk_size):
    g = graph_of(pairs if pairs else np.zeros((0, 2)))
    want = want_rows(g.upper(), None)
    oriented = g.to_device(cupy).oriented()
    order = got_rows(oriented, None, 1 << 20)
    assert np.array_equal(sorted_rows(order), want)
    for shape in (None, SHAPES["tiny-tasks"]):
        assert np.array_equal(got_rows(oriented, None, chunk_size, shape=shape), order)
