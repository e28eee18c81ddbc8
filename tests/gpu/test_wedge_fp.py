"""The wedge method's fingerprint layout: the arrays it builds, and exact counts where
16-bit fingerprints collide.

With more than 65,536 vertices a fingerprint is ``w >> shift`` and many ids share
one; a match must be confirmed on the full ids. These graphs put colliding ids
in N+(u) and N+(v) of the same edge on purpose: gadgets with and without a
common neighbour, several anchor entries under one fingerprint, and a dense
random graph inside a narrow window of ids (about 30 ids per fingerprint).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from gpu_support import (complete_graph, cpu_count, edges_graph, gpu_count,  # noqa: E402
                         require_gpu)

pytestmark = pytest.mark.gpu
require_gpu()

import cupy  # noqa: E402

from tricount.gpu import engine  # noqa: E402
from tricount.gpu.device import kernel_arrays  # noqa: E402
from tricount.gpu.methods import wedge  # noqa: E402
from tricount.gpu.methods.fingerprints import fingerprint_lists  # noqa: E402
from tricount.gpu.plan import WedgeShape, tuned  # noqa: E402

LAYOUT_VARIANTS = [{"layout": "fingerprint", **options} for options in [
    {},
    {"align": 1},
    {"align": 5, "unroll": 1, "chunk": 7},
    {"span_slots": 8},  # most chunks take the full-id path
    {"filter_anchors": 0},
    {"filter_bits": 32, "filter_anchors": 1},
    {"span_slots": 4095, "chunk": 2000, "filter_anchors": 200, "block_size": 64},
    {"edge32": False, "block_size": 32},
    {"align": 8, "filter_bits": 32, "filter_anchors": 1},
    {"lanes": "wedges"},  # the warp's lanes over the flattened wedges
    {"lanes": "wedges", "align": 5, "unroll": 1, "chunk": 7},
    {"lanes": "wedges", "filter_bits": 32, "filter_anchors": 1, "min_blocks": 8},
    {"lanes": "wedges", "span_slots": 4095, "chunk": 2000, "filter_anchors": 200,
     "block_size": 64},
]]


def gadget_graph(n_vertices: int = 1 << 20, n_gadgets: int = 300, noise: int = 20_000,
                 seed: int = 3):
    """Edges u -> v whose lists share fingerprints: every other gadget closes one triangle."""
    rng = np.random.default_rng(seed)
    pairs = []
    shift = max(0, (n_vertices - 1).bit_length() - 16)
    bucket = 1 << shift
    bases = rng.choice(np.arange(n_vertices // 2, n_vertices - bucket, bucket), n_gadgets,
                       replace=False)
    for i, base in enumerate(bases):
        u, v = 2 * i, 2 * i + 1  # below every base: id order is u < v < the bucket
        closes = i % 2 == 0
        anchor = [base + 1, base + 2, base + 5]  # one fingerprint, three entries
        other = [base + 3, base + 5 if closes else base + 6, base + 7]
        pairs.append((u, v))
        pairs += [(u, a) for a in anchor] + [(v, w) for w in other]
    extra = rng.integers(0, n_vertices, size=(noise, 2))
    pairs = np.concatenate([np.asarray(pairs, dtype=np.int64), extra])
    return edges_graph(pairs, n_vertices=n_vertices, name="fingerprint-gadgets")


def window_graph(n_vertices: int = 1 << 22, width: int = 2000, m: int = 60_000, seed: int = 5):
    """A random graph on ids [n/2, n/2 + width): about 30 ids share each fingerprint."""
    rng = np.random.default_rng(seed)
    pairs = n_vertices // 2 + rng.integers(0, width, size=(m, 2))
    return edges_graph(pairs, n_vertices=n_vertices, name="fingerprint-window")


@pytest.mark.parametrize("options", LAYOUT_VARIANTS, ids=str)
@pytest.mark.parametrize("orientation", ["id", "rank", "degree"])
@pytest.mark.parametrize("make", [gadget_graph, window_graph], ids=["gadgets", "window"])
def test_colliding_fingerprints_count_exactly(make, orientation, options):
    graph = make()
    expected = cpu_count(graph)
    assert expected > 0
    assert gpu_count(graph, "wedge", options, orientation=orientation) == expected
    assert gpu_count(graph, "wedge", {"layout": "csr"}, orientation=orientation) == expected


@pytest.mark.parametrize("options", LAYOUT_VARIANTS, ids=str)
def test_gadgets_alone_close_one_triangle_each_other_gadget(options):
    graph = gadget_graph(n_gadgets=300, noise=0)
    assert cpu_count(graph) == 150
    assert gpu_count(graph, "wedge", options, orientation="id") == 150


@pytest.mark.parametrize("n_vertices, shift", [(1000, 0), (1 << 16, 0), ((1 << 16) + 1, 1),
                                               (1 << 22, 6)])
@pytest.mark.parametrize("align", [1, 4, 16])
def test_layout_arrays(n_vertices, shift, align):
    rng = np.random.default_rng(n_vertices + align)
    pairs = rng.integers(0, n_vertices, size=(5000, 2))
    oriented = edges_graph(pairs, n_vertices=n_vertices).to_device(cupy).upper()
    indptr, rows, cols, vertex = kernel_arrays(oriented)
    shape = WedgeShape(layout="fingerprint", align=align, unroll=3, min_blocks=6)
    lists = fingerprint_lists(oriented, indptr, rows, cols, align=align,
                              defines=lambda **layout: wedge.kernel_defines(
                                  shape, vertex_t=vertex, edge_t="long long", id_order=1, **layout))
    assert lists.shift == shift
    ip, cl = cupy.asnumpy(indptr), cupy.asnumpy(cols)
    out_degree = np.diff(ip)
    fp, meta = cupy.asnumpy(lists.fp), cupy.asnumpy(lists.meta).astype(np.uint64)
    starts = np.concatenate([[0], np.cumsum(-(-out_degree // align) * align)])
    assert fp.shape[0] == starts[-1]
    for u in np.flatnonzero(out_degree):
        got = fp[starts[u]:starts[u] + out_degree[u]]
        np.testing.assert_array_equal(got, (cl[ip[u]:ip[u + 1]] >> shift).astype(np.uint16))
    lengths = meta & np.uint64((1 << lists.len_bits) - 1)
    np.testing.assert_array_equal(lengths, out_degree[cl])
    np.testing.assert_array_equal((meta >> np.uint64(lists.len_bits)) * np.uint64(align),
                                  starts[cl])


def test_plain_layout_when_the_fingerprints_do_not_fit(monkeypatch):
    # The plan takes the plain layout when the fingerprints would not fit the free memory.
    calls = []
    monkeypatch.setattr(wedge, "fingerprint_lists",
                        lambda *a, **k: calls.append(1) or pytest.fail("layout built"))
    monkeypatch.setattr(engine, "free_device_bytes", lambda: 0)
    graph = window_graph()
    oriented = graph.to_device(cupy).upper()
    out = engine.count_oriented(oriented, plan=tuned("wedge", layout="fingerprint"))
    assert out.n_triangles == cpu_count(graph)
    assert not calls


@pytest.mark.parametrize("make, builds",
                         [(window_graph, True), (lambda: complete_graph(200), False)],
                         ids=["flat", "long-lists"])
def test_auto_layout_takes_fingerprints_only_for_short_lists(monkeypatch, make, builds):
    calls = []
    real = wedge.fingerprint_lists
    monkeypatch.setattr(wedge, "fingerprint_lists", lambda *a, **k: calls.append(1) or real(*a, **k))
    graph = make()
    assert gpu_count(graph, "wedge", {}) == cpu_count(graph)
    assert bool(calls) == builds
