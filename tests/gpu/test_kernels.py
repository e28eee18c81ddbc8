"""Each GPU kernel on a literal graph, in a tiny launch, and at sizes around warp and block edges.

The literal graph (5 vertices, 6 edges, 2 triangles {0,1,2} and {0,2,3})::

    0 ----- 1
    | \\     |
    |   \\   |
    3 ----- 2 ----- 4

Degrees 0:3 1:2 2:4 3:2 4:1, so the (degree, id) order is 4 < 1 < 3 < 0 < 2
and the oriented COO+CSR is::

    vertex   0    1       2    3       4
    out      [2]  [0, 2]  []   [0, 2]  [2]
    indptr = [0, 1, 3, 3, 5, 6]
    rows   = [0, 1, 1, 3, 3, 4]
    cols   = [2, 0, 2, 0, 2, 2]

Edge 1 -> 0 closes {0,1,2} (common out-neighbour 2) and edge 3 -> 0 closes
{0,2,3}; no other edge has a common out-neighbour.
"""

from __future__ import annotations

import sys
from math import comb
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from gpu_support import (SMALL_GRAPH_IDS, SMALL_GRAPH_VARIANTS, complete_graph,  # noqa: E402
                         cpu_count, fan_graph, gpu_count, require_gpu)

pytestmark = pytest.mark.gpu
require_gpu()

import cupy  # noqa: E402

from baselines import method_plan  # noqa: E402  (gpu_support put benchmarks/ on the path)
from tricount import CSRGraph  # noqa: E402
from tricount.bench.gpu_timer import KernelTimer  # noqa: E402
from tricount.gpu.engine import count_oriented  # noqa: E402
from tricount.prep.orient import OrientedCSR  # noqa: E402

INDPTR = [0, 1, 3, 3, 5, 6]
ROWS = [0, 1, 1, 3, 3, 4]
COLS = [2, 0, 2, 0, 2, 2]
DRAWN_EDGES = ([0, 0, 0, 1, 2, 2], [1, 2, 3, 2, 3, 4])


def literal_csr(dtype=np.int32) -> OrientedCSR:
    return OrientedCSR(cupy.asarray(INDPTR, dtype=cupy.int64), cupy.asarray(ROWS, dtype=dtype),
                       cupy.asarray(COLS, dtype=dtype), 5, 6, 2, "degree")


#: Each kernel (and each of its paths) as (method, launch-shape fields).
LAUNCHER_CASES = {
    "tc_merge": ("merge", {}),
    "tc_binary_thread": ("binary", {"variant": "thread"}),
    "tc_binary_warp": ("binary", {"variant": "warp"}),
    "tc_dynamic[linear]": ("dynamic", {"sf": 1e9}),
    "tc_dynamic[binary]": ("dynamic", {"sf": 0.0}),
    "tc_bitmap_shared": ("bitmap", {"variant": "shared"}),
    "tc_bitmap_global": ("bitmap", {"variant": "global"}),
    "tc_shared": ("shared", {}),
    "tc_shared[global columns]": ("shared", {"capacity": 1}),
    "tc_radix_*": ("radix", {}),
    "tc_radix_*[threshold 1]": ("radix", {"threshold": 1, "radix_bits": 1, "tile": 1}),
    "spgemm": ("spgemm", {}),
    "tc_hash": ("hash", {}),
    "tc_hash[blocks]": ("hash", {"block_work": 0}),
    "tc_hash[lists in global memory]": ("hash", {"block_work": 0, "block_table_bytes": 4}),
    "tc_hash[one probe per task]": ("hash", {"max_task": 1, "spread": 4}),
    "tc_wedge": ("wedge", {"layout": "csr"}),
    "tc_wedge_fp": ("wedge", {"layout": "fingerprint"}),
    "tc_bitwedge[shared]": ("bitwedge", {"bitmaps": "shared"}),
    "tc_bitwedge[global]": ("bitwedge", {"bitmaps": "global"}),
}
CASE_NAMES = list(LAUNCHER_CASES)


def count_literal(case, dtype=np.int32):
    method, options = LAUNCHER_CASES[case]
    return count_oriented(literal_csr(dtype), plan=method_plan(method, options), timer=KernelTimer)


class TestLiteralGraph:
    def test_gpu_orientation_gives_the_drawn_arrays(self):
        g = CSRGraph.from_edges(cupy.asarray(DRAWN_EDGES[0]), cupy.asarray(DRAWN_EDGES[1]))
        o = g.oriented()
        assert isinstance(o.indptr, cupy.ndarray)
        assert o.indptr.get().tolist() == INDPTR
        assert o.rows.get().tolist() == ROWS
        assert o.indices.get().tolist() == COLS
        assert o.max_out_degree == 2

    @pytest.mark.parametrize("case", CASE_NAMES)
    def test_kernel_counts_two(self, case):
        out = count_literal(case)
        assert out.n_triangles == 2
        assert out.method == LAUNCHER_CASES[case][0] and "kernel_s" in out.timings

    @pytest.mark.parametrize("case", CASE_NAMES)
    def test_kernel_with_64_bit_ids(self, case):
        assert count_literal(case, np.int64).n_triangles == 2

    def test_wedge_keys(self):
        # Rows 1 and 3 each hold the wedge pair (0, 2): E' = [(0,2), (0,2)], both in E.
        from baselines.radix import wedge_count

        assert wedge_count(literal_csr()) == 2


class TestTinyLaunch:
    """One block of one warp does all the work: every grid-stride and claim loop runs long."""

    TINY = {
        "merge": {"block_size": 32, "grid_size": 1},
        "binary-thread": {"variant": "thread", "block_size": 32, "grid_size": 1},
        "binary-warp": {"variant": "warp", "block_size": 32, "grid_size": 1},
        "dynamic": {"block_size": 32, "grid_size": 1},
        "bitmap-shared": {"variant": "shared", "block_size": 32, "grid_size": 1},
        "bitmap-global": {"variant": "global", "block_size": 32, "grid_size": 1},
        "shared": {"block_size": 32, "grid_size": 1},
        "radix": {"block_size": 32, "grid_size": 1, "tile": 50, "threshold": 4},
    }

    @pytest.mark.parametrize("case", list(TINY))
    def test_tiny_launch(self, case):
        method = case.split("-")[0]
        g = complete_graph(40)
        assert gpu_count(g, method, self.TINY[case]) == comb(40, 3)
        g = fan_graph(1000)
        assert gpu_count(g, method, self.TINY[case]) == cpu_count(g)


COMPLETE_SIZES = [3, 4, 5, 31, 32, 33, 63, 64, 65, 127, 128, 129]
FAN_SIZES = [1, 2, 3, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1023, 1024, 1025,
             4095, 4096, 4097]


class TestBoundarySizes:
    """Lists and edge counts just below, at and above 32 (a warp) and the block sizes."""

    @pytest.mark.parametrize("n", COMPLETE_SIZES)
    @pytest.mark.parametrize("variant", SMALL_GRAPH_VARIANTS, ids=SMALL_GRAPH_IDS)
    def test_complete(self, variant, n):
        assert gpu_count(complete_graph(n), *variant) == comb(n, 3)

    @pytest.mark.parametrize("m", FAN_SIZES)
    @pytest.mark.parametrize("variant", SMALL_GRAPH_VARIANTS, ids=SMALL_GRAPH_IDS)
    def test_fan(self, variant, m):
        g = fan_graph(m)
        assert g.n_edges == m
        assert gpu_count(g, *variant) == cpu_count(g)
