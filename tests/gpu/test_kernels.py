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

from tricount import CSRGraph  # noqa: E402
from tricount.prep.orient import OrientedCSR  # noqa: E402

INDPTR = [0, 1, 3, 3, 5, 6]
ROWS = [0, 1, 1, 3, 3, 4]
COLS = [2, 0, 2, 0, 2, 2]
DRAWN_EDGES = ([0, 0, 0, 1, 2, 2], [1, 2, 3, 2, 3, 4])


def literal_csr(dtype=np.int32) -> OrientedCSR:
    return OrientedCSR(cupy.asarray(INDPTR, dtype=cupy.int64), cupy.asarray(ROWS, dtype=dtype),
                       cupy.asarray(COLS, dtype=dtype), 5, 6, 2, "degree")


def launcher_cases():
    from tricount.gpu.binary import count_binary
    from tricount.gpu.bitmap import count_bitmap
    from tricount.gpu.dynamic import count_dynamic
    from tricount.gpu.hash import count_hash
    from tricount.gpu.merge import count_merge
    from tricount.gpu.radix import count_radix
    from tricount.gpu.shared import count_shared
    from tricount.gpu.spgemm import count_spgemm

    return {
        "tc_merge": lambda g: count_merge(g),
        "tc_binary_thread": lambda g: count_binary(g, variant="thread"),
        "tc_binary_warp": lambda g: count_binary(g, variant="warp"),
        "tc_dynamic[linear]": lambda g: count_dynamic(g, sf=1e9),
        "tc_dynamic[binary]": lambda g: count_dynamic(g, sf=0.0),
        "tc_bitmap_shared": lambda g: count_bitmap(g, variant="shared"),
        "tc_bitmap_global": lambda g: count_bitmap(g, variant="global"),
        "tc_shared": lambda g: count_shared(g),
        "tc_shared[global columns]": lambda g: count_shared(g, capacity=1),
        "tc_radix_*": lambda g: count_radix(g),
        "tc_radix_*[threshold 1]": lambda g: count_radix(g, threshold=1, radix_bits=1, tile=1),
        "spgemm": lambda g: count_spgemm(g),
        "tc_hash": lambda g: count_hash(g),
        "tc_hash[blocks]": lambda g: count_hash(g, block_work=0),
        "tc_hash[lists in global memory]": lambda g: count_hash(g, block_work=0, block_table_bytes=4),
        "tc_hash[one probe per task]": lambda g: count_hash(g, max_task=1, spread=4),
    }


CASE_NAMES = list(launcher_cases())


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
        n_triangles, kernel_s = launcher_cases()[case](literal_csr())
        assert n_triangles == 2
        assert kernel_s >= 0.0

    @pytest.mark.parametrize("case", CASE_NAMES)
    def test_kernel_with_64_bit_ids(self, case):
        n_triangles, _ = launcher_cases()[case](literal_csr(np.int64))
        assert n_triangles == 2

    def test_wedge_keys(self):
        # Rows 1 and 3 each hold the wedge pair (0, 2): E' = [(0,2), (0,2)], both in E.
        from tricount.gpu.radix import wedge_count

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
