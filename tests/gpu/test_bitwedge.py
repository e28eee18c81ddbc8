"""The bitwedge method: its pairs, and exact counts where tasks and runs cut lists
anywhere.

The kernel cuts the wedge space into equal tasks, so a task may start or end
inside any partner list and a warp's 32 pairs may span several table
vertices; tiny tasks (``min_task=1``) and many tasks per warp put those cuts
everywhere. Every count is judged by the CPU engine.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
from gpu_support import (  # noqa: E402
    complete_graph,
    cpu_count,
    edges_graph,
    gpu_count,
    load_real,
    real_graphs,
    require_gpu,
)

pytestmark = pytest.mark.gpu
require_gpu()

import cupy  # noqa: E402

from tricount import CSRGraph  # noqa: E402
from tricount.generate import rmat  # noqa: E402
from tricount.gpu.methods.bitwedge import wedge_pairs  # noqa: E402
from tricount.gpu.prepare import orient_by_rank, plan_partners  # noqa: E402

#: Options that move every cut: tasks of 1 wedge to whole lists, 1 to 8 windows
#: in flight, one-warp blocks, both pairings, both bitmap places, 64-bit positions.
CUT_VARIANTS = [
    {"min_task": 1, "tasks_per_warp": 1000},
    {"min_task": 1, "tasks_per_warp": 1000, "pairs": "anchor", "unroll": 1},
    {"min_task": 3, "tasks_per_warp": 50, "unroll": 2, "block_size": 32, "pairs": "anchor"},
    {"min_task": 31, "tasks_per_warp": 9, "unroll": 5, "bitmaps": "global"},
    {"min_task": 33, "tasks_per_warp": 1000, "unroll": 8, "edge32": False, "wedge32": False},
    {"min_task": 1 << 30, "pairs": "anchor"},  # one task: one warp walks everything
    {"min_task": 1, "anchor_cost": 0, "pair_cost": 1, "tasks_per_warp": 3},
]


def oriented(graph, orientation):
    dev = graph.to_device(cupy)
    if orientation == "rank":
        lo, hi = dev.edges()
        return orient_by_rank(lo, hi, dev.n_vertices, dev.degrees)
    return dev.oriented()


def reference_anchor_pairs(o):
    """The anchor pairs by the rule, edge by edge, in NumPy."""
    indptr = cupy.asnumpy(o.indptr)
    rows, cols = cupy.asnumpy(o.rows), cupy.asnumpy(o.indices)
    out_degree = np.diff(indptr)
    table, probe, work = [], [], []
    for e, (u, v) in enumerate(zip(rows, cols)):
        last_of_row = e == indptr[u + 1] - 1
        closes = not last_of_row if o.order == "rank" else out_degree[u] >= 2
        if closes and out_degree[v] > 0:
            table.append(u)
            probe.append(v)
            work.append(out_degree[v])
    return np.array(table), np.array(probe), np.concatenate([[0], np.cumsum(work)])


@pytest.mark.parametrize("orientation", ["rank", "degree"])
@pytest.mark.parametrize("graph", [complete_graph(9), CSRGraph.from_edges(*rmat(9, 8, seed=3))],
                         ids=["K9", "rmat-s9"])
def test_anchor_pairs_follow_the_rule(graph, orientation):
    o = oriented(graph, orientation)
    table, probe, before = wedge_pairs(o, "anchor")
    want_table, want_probe, want_before = reference_anchor_pairs(o)
    np.testing.assert_array_equal(cupy.asnumpy(table), want_table)
    np.testing.assert_array_equal(cupy.asnumpy(probe), want_probe)
    np.testing.assert_array_equal(cupy.asnumpy(before), want_before)


def test_owner_pairs_are_the_hash_plan():
    o = oriented(CSRGraph.from_edges(*rmat(10, 8, seed=4)), "rank")
    table, probe, before = wedge_pairs(o, "owner")
    plan = plan_partners(o)
    np.testing.assert_array_equal(cupy.asnumpy(table), cupy.asnumpy(plan.owners))
    np.testing.assert_array_equal(cupy.asnumpy(probe), cupy.asnumpy(plan.partners))
    np.testing.assert_array_equal(cupy.asnumpy(before), cupy.asnumpy(plan.running))
    assert bool((cupy.diff(before) > 0).all())  # the kernel needs work > 0 on every pair


@pytest.mark.parametrize("orientation", ["rank", "degree", "id"])
@pytest.mark.parametrize("options", CUT_VARIANTS, ids=[str(i) for i in range(len(CUT_VARIANTS))])
@pytest.mark.parametrize("name", ["K40", "K200", "rmat-s12", "star-with-rim"])
def test_cuts_anywhere(name, options, orientation):
    graph = {
        "K40": lambda: complete_graph(40),
        "K200": lambda: complete_graph(200),
        "rmat-s12": lambda: CSRGraph.from_edges(*rmat(12, 16, seed=5)),
        "star-with-rim": lambda: edges_graph([(0, k) for k in range(1, 300)]
                                             + [(k, k + 1) for k in range(1, 299)]),
    }[name]()
    assert gpu_count(graph, "bitwedge", options, orientation=orientation) == cpu_count(graph)


@pytest.mark.parametrize("options", CUT_VARIANTS[:3], ids=["0", "1", "2"])
@pytest.mark.parametrize("name", [r["name"] for r in real_graphs()
                                  if r["name"] in ("ego-Facebook", "ca-HepPh", "email-Enron")])
def test_real_graphs_with_cuts_everywhere(name, options):
    row = next(r for r in real_graphs() if r["name"] == name)
    assert gpu_count(load_real(name), "bitwedge", options) == row["triangles"]


edge_lists = st.lists(st.tuples(st.integers(0, 60), st.integers(0, 60)), max_size=400)


@settings(max_examples=40, deadline=None)
@given(edge_lists, st.integers(1, 40), st.integers(1, 8), st.sampled_from(["anchor", "owner"]),
       st.sampled_from(["shared", "global"]))
def test_drawn_graphs(pairs, min_task, unroll, pairing, bitmaps):
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    graph = CSRGraph.from_edges(pairs[:, 0], pairs[:, 1])
    options = {"min_task": min_task, "tasks_per_warp": 1000, "unroll": unroll, "pairs": pairing,
               "bitmaps": bitmaps}
    assert gpu_count(graph, "bitwedge", options) == cpu_count(graph)


def test_shared_memory_at_the_48_kib_boundary():
    # 49,152 vertices: 8 warps x 6 KiB of bitmaps = exactly 48 KiB of dynamic shared
    # memory, which with the kernel's static shared memory needs the opt-in.
    graph = edges_graph([(a, b) for a in range(6) for b in range(a + 1, 6)]
                        + [(49_000, 49_151), (49_151, 7)], n_vertices=49_152)
    assert graph.n_vertices == 49_152
    assert gpu_count(graph, "bitwedge", {"bitmaps": "shared"}) == cpu_count(graph) == 20


def test_bad_options_name_the_method():
    from tricount.errors import UnknownMethodError

    with pytest.raises(UnknownMethodError, match="bitwedge"):
        gpu_count(complete_graph(4), "bitwedge", {"pairs": "nope"})
    with pytest.raises(UnknownMethodError, match="bitwedge"):
        gpu_count(complete_graph(4), "bitwedge", {"block_size": 48})
