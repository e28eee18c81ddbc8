"""The GPU plan (tricount.gpu.plan) on the CPU: every auto decision from statistics alone.

No GPU and no CuPy: the plan is pure, so these run in CI. Graph sizes are the
measured graphs' (R-MAT graph500, edge factor 16, seed 1; the real graphs of
``../shared/data/graphs``; uniform random G(n, 16 n)).
"""

from __future__ import annotations

import dataclasses

import pytest

from tricount.errors import UnknownMethodError, UnsupportedGraphError
from tricount.gpu import plan as gp
from tricount.gpu.plan import (BitwedgeShape, DeviceFacts, GraphStats, HashShape, Plan,
                               WedgeShape, choose_id_order, choose_method, make_plan,
                               plan_memory, plan_method, plan_orientation, request, tuned)

H100 = DeviceFacts(sm_count=132, shared_per_block_optin=227 * 1024, name="H100")
GiB = 1 << 30


def stats(n, m, max_out=None, *, id_out=None, idx=4, on_device=True, free=80 * GiB,
          max_degree=None, device=H100, name=""):
    return GraphStats(n, m, idx, on_device, free, device=device, max_out_degree_id=id_out,
                      max_degree=max_degree, max_out_degree=max_out, name=name)


class TestChooseMethod:
    def test_no_edges_takes_a_production_method(self):
        method, reason = choose_method(stats(10, 0, 0))
        assert method in gp.GPU_METHODS and "no edges" in reason

    @pytest.mark.parametrize("n, m, max_out, expected, words", [
        (36_692, 183_831, 70, "wedge", "small"),                     # email-Enron
        (10_312, 333_983, 173, "wedge", "small"),                    # blogcatalog
        (57_344, 8 * 57_344, 20, "wedge", "small"),                  # flat, on chip
        (75_879, 405_740, 121, "wedge", "small"),                    # soc-Epinions1
        (5_000, 2_000_000, 900, "bitwedge", "shared memory"),        # dense and on chip
        (173_963, 3_805_744, 416, "bitwedge", "skewed and small"),   # R-MAT 18
        (1 << 18, 16 << 18, 30, "wedge", "flat"),                    # G(2^18, 2^22)
        (335_328, 7_742_860, 500, "hash", "skewed"),                 # R-MAT 19
        (1_245_329, 31_771_938, 824, "hash", "skewed"),              # R-MAT 21
        (1 << 24, 16 << 24, 30, "wedge", "flat"),                    # uniform random
    ])
    def test_measured_graphs(self, n, m, max_out, expected, words):
        method, reason = choose_method(stats(n, m, max_out))
        assert method == expected and reason.startswith("auto:") and words in reason

    def test_the_on_chip_bound_is_bitwedges_shared_bitmaps(self):
        n = gp.AUTO_BITWEDGE_ON_CHIP_VERTICES
        assert gp.bitmap_bytes(n) == gp.BITWEDGE_SHARED_MAX_BYTES
        assert choose_method(stats(n, 64 * n, 10))[0] == "bitwedge"  # work 4096 n: not small
        assert choose_method(stats(n + 1, 64 * n, 10))[0] == "wedge"  # flat past it

    def test_small_work_counts_the_preparation(self):
        # wedge's count (kernel + preparation) beat bitwedge's up to work m^2/n near 6.6e7;
        # R-MAT 18 (8.3e7) went back to bitwedge (gpu_issue7_h100.md).
        limit = gp.AUTO_WEDGE_SMALL_WORK
        n = 100_000
        m_edge = int((limit * n) ** 0.5)
        assert choose_method(stats(n, m_edge, 1000))[0] == "wedge"
        assert choose_method(stats(n, m_edge + 100, 1000))[0] == "bitwedge"  # skewed, small n
        assert not gp.small_work(stats(gp.AUTO_BITWEDGE_MAX_VERTICES + 1, 100, 2))
        assert not gp.small_work(stats(10, 0, 0))


class TestChooseIdOrder:
    def test_uniform_random_is_flat_in_id_order(self):
        reason = choose_id_order(stats(1 << 24, 16 << 24, id_out=60))
        assert reason.startswith("auto:") and "id order" in reason and "60" in reason

    @pytest.mark.parametrize("n, m, id_out, flat", [
        (1 << 24, 16 << 24, gp.AUTO_ID_MAX_OUT_DEGREE, True),
        (1 << 24, 16 << 24, gp.AUTO_ID_MAX_OUT_DEGREE + 1, False),
        (1_245_329, 31_771_938, 60_000, False),                      # R-MAT 21's hubs
        (gp.AUTO_BITWEDGE_ON_CHIP_VERTICES, 64 << 16, 20, False),   # bitwedge's graphs
        (gp.AUTO_BITWEDGE_ON_CHIP_VERTICES, 8 << 16, 20, True),     # small: wedge's
        (75_879, 405_740, 3_853, True),                  # soc-Epinions1's id-order hub
        (75_879, 405_740, gp.AUTO_SMALL_ID_MAX_OUT_DEGREE + 1, False),
        (gp.AUTO_BITWEDGE_ON_CHIP_VERTICES + 1, 8 << 16, 20, True),
        (1 << 20, 0, 0, False),
        (1 << 20, 1 << 22, None, False),                             # not measured
    ])
    def test_bounds(self, n, m, id_out, flat):
        assert (choose_id_order(stats(n, m, id_out=id_out)) is not None) == flat

    def test_asked_for_only_where_it_can_apply(self):
        big, dense, small = stats(1 << 20, 1 << 24), stats(1000, 300_000), stats(1000, 5000)
        fused = plan_memory(big, Plan())
        assert gp.wants_id_order_degree(fused, big)
        assert not gp.wants_id_order_degree(plan_memory(dense, Plan()), dense)  # bitwedge's
        assert gp.wants_id_order_degree(plan_memory(small, Plan()), small)
        assert not gp.wants_id_order_degree(plan_memory(big, Plan(method="hash")), big)
        assert not gp.wants_id_order_degree(plan_memory(big, Plan(orientation="rank")), big)


class TestMemory:
    def test_fused_when_it_fits(self):
        s = stats(1 << 20, 1 << 24)
        prep = plan_memory(s, Plan()).preparation
        assert prep.kind == "fused" and not prep.sliced
        resident = gp.graph_device_bytes(1 << 20, 1 << 24, 4)
        assert prep.need_bytes == gp.fused_bytes(1 << 20, 1 << 24, 4, True) + resident
        assert prep.budget_bytes == int(gp.MEMORY_SAFETY * 80 * GiB) + resident

    def test_a_host_graph_pays_its_copy(self):
        on_host = gp.fused_bytes(1000, 10_000, 4, False)
        assert on_host == gp.fused_bytes(1000, 10_000, 4, True) + 8 * 1001 + 8 * 10_000

    def test_max_memory_is_the_budget_when_smaller(self):
        s = stats(1 << 20, 1 << 24)
        need = plan_memory(s, Plan()).preparation.need_bytes
        assert plan_memory(s, Plan(), max_memory=need).preparation.kind == "fused"
        sliced = plan_memory(s, Plan(), max_memory=need - 1)
        assert sliced.preparation.sliced and sliced.preparation.budget_bytes == need - 1
        assert sliced.method == "hash" and sliced.orientation == "rank"
        assert sliced.reason == "auto: hash is the method that counts in slices"
        assert plan_memory(s, Plan(method="hash"), max_memory=1).reason == "requested"

    @pytest.mark.parametrize("request_", [Plan(method="wedge"), Plan(orientation="degree"),
                                          Plan(method="hash", orientation="id")])
    def test_only_hash_by_rank_counts_in_slices(self, request_):
        with pytest.raises(UnsupportedGraphError, match="only method 'hash'") as info:
            plan_memory(stats(1 << 20, 1 << 24, name="g"), request_, max_memory=1 << 20)
        assert "graph g with 1048576 vertices" in str(info.value)

    def test_slice_capacity_from_the_budget(self):
        n, m = 1 << 20, 1 << 24
        s = stats(n, m, max_degree=10**6)
        budget = gp.graph_device_bytes(n, m, 4) + gp.sliced_resident_bytes(n, m, 4) \
            + gp.SLICE_BYTES_PER_KEY * (m // 5)
        planned = plan_orientation(s, plan_memory(s, Plan(), max_memory=budget))
        assert planned.preparation.capacity == m // 5
        with pytest.raises(UnsupportedGraphError, match="at least 1000000 are needed"):
            plan_orientation(s, plan_memory(s, Plan(), max_memory=budget - 4 * m))

    def test_too_many_slices_are_refused(self):
        assert gp.slice_capacity(10**12, 0, 10, 100_000, 4, 2) == 100_000
        with pytest.raises(UnsupportedGraphError, match="at least"):
            gp.slice_capacity(10 ** 6, 0, 10, 10 ** 9, 4, 2)  # would need > 1024 slices


class TestOrientation:
    def test_auto_is_rank_for_a_named_method(self):
        s = stats(1 << 24, 16 << 24, 30, id_out=30)
        assert make_plan(s, method="hash").orientation == "rank"
        assert make_plan(s, method="wedge").reason == "requested"

    def test_auto_counts_a_flat_graph_by_wedge_in_id_order(self):
        s = dataclasses.replace(stats(1 << 24, 16 << 24, 59, id_out=59))
        planned = make_plan(s)
        assert (planned.method, planned.orientation) == ("wedge", "id")
        assert "id order" in planned.reason and planned.shape.layout == "fingerprint"

    def test_named_orientations_are_kept(self):
        s = stats(1 << 24, 16 << 24, 30, id_out=30)
        planned = make_plan(s, orientation="rank")
        assert planned.orientation == "rank" and "id order" not in planned.reason
        assert make_plan(s, orientation="degree").orientation == "degree"


class TestHashShape:
    def test_small_graphs(self):
        shape = make_plan(stats(173_963, 3_805_744, 416), method="hash").shape
        assert (shape.block_size, shape.warp_slots, shape.long_list, shape.unroll,
                shape.min_blocks, shape.block_table_bytes, shape.spread) == (
            256, 1024, 32, 4, 6, 32 * 1024, 4)

    def test_from_ten_million_edges(self):
        shape = make_plan(stats(1_245_329, 31_771_938, 824), method="hash").shape
        assert (shape.warp_slots, shape.long_list, shape.unroll, shape.min_blocks,
                shape.block_size) == (512, 16, 6, 8, 256)

    def test_from_a_hundred_million_edges(self):
        shape = make_plan(stats(8_871_645, 260_379_520, 2000), method="hash").shape
        assert (shape.block_size, shape.block_table_bytes) == (512, 64 * 1024)
        assert shape.min_blocks == 4  # 8 capped to 2,048 threads per SM

    def test_set_fields_are_kept(self):
        planned = make_plan(stats(1000, 5000, 10), tuned("hash", warp_slots=32, unroll=1))
        assert (planned.shape.warp_slots, planned.shape.unroll) == (32, 1)
        assert planned.shape.long_list == 32

    def test_tables(self):
        shape = HashShape().resolve(0)
        # spread 4 x 416 -> 2,048 slots, under 32 KiB / 4 bytes; warps: 8 x 1,024 slots.
        assert shape.tables(416, 4) == (2048, 8 * 1024 * 4)
        assert shape.tables(10_000, 4) == (8192, 8192 * 4)  # capped at the 32 KiB table
        assert shape.tables(1, 8)[0] == 32

    def test_tables_over_the_device_are_refused(self):
        small = DeviceFacts(sm_count=1, shared_per_block_optin=16 * 1024)
        with pytest.raises(UnknownMethodError, match="hash: .* bytes of tables"):
            make_plan(stats(1000, 5000, 10, device=small), method="hash")
        assert make_plan(stats(1000, 0, 0, device=small), method="hash").method == "hash"

    @pytest.mark.parametrize("options", [{"warp_slots": 48}, {"spread": 3}, {"unroll": 9},
                                         {"min_blocks": 0}, {"block_size": 48}])
    def test_bad_knobs_name_the_method(self, options):
        with pytest.raises(UnknownMethodError, match="hash"):
            HashShape(**options)

    def test_task_cap(self):
        assert gp.task_cap(10**9, 132) == 10**9 // (4 * 64 * 132)
        assert gp.task_cap(10, 132) == gp.HASH_MIN_TASK


class TestWedgeShape:
    def test_fingerprints_for_short_lists(self):
        shape = make_plan(stats(1 << 24, 16 << 24, 30), method="wedge").shape
        assert (shape.layout, shape.unroll, shape.min_blocks, shape.edge32) == (
            "fingerprint", gp.WEDGE_FP_UNROLL, gp.WEDGE_EDGE_LANES_MIN_BLOCKS, True)

    def test_csr_for_long_lists_or_no_room(self):
        shape = make_plan(stats(1 << 20, 1 << 24, 65), method="wedge").shape
        assert (shape.layout, shape.unroll, shape.min_blocks) == (
            "csr", gp.WEDGE_UNROLL, gp.WEDGE_MIN_BLOCKS)
        need = gp.fingerprint_layout_bytes(1 << 20, 1 << 24, gp.WEDGE_ALIGN)
        tight = stats(1 << 20, 1 << 24, 30, free=int(need / gp.MEMORY_SAFETY) - 1)
        oriented = plan_orientation(tight, plan_memory(stats(1 << 20, 1 << 24),
                                                       tuned("wedge", layout="fingerprint")))
        forced = plan_method(tight, oriented).shape
        assert forced.layout == "csr" and forced.unroll == gp.WEDGE_UNROLL

    def test_lanes_over_wedges_keep_eight_blocks(self):
        shape = make_plan(stats(1 << 20, 1 << 24, 30), tuned("wedge", lanes="wedges")).shape
        assert shape.min_blocks == gp.WEDGE_MIN_BLOCKS

    def test_positions_past_2_31_are_64_bit(self):
        n, m = 1 << 27, (1 << 31) - (1 << 27) * 15
        assert not make_plan(stats(n, m, 30, free=1 << 45), method="wedge").shape.edge32
        assert make_plan(stats(n, m, 30, free=1 << 45),
                         tuned("wedge", layout="csr")).shape.edge32

    def test_a_batch_of_wedges_past_2_31_is_64_bit(self):
        # A warp's 32 edges can reach 32 lists of the longest: 2**28 wedges of a hub in id
        # order wrapped a 32-bit running sum to 0 (an H100, 2026-11-28: 0 triangles of 32).
        n, m = (1 << 28) + 100, (1 << 28) + 64
        hub = make_plan(stats(n, m, 1 << 28, free=1 << 45), tuned("wedge", layout="csr"),
                        orientation="id").shape
        assert not hub.edge32
        below = make_plan(stats(n, m, (1 << 26) - 64, free=1 << 45),
                          tuned("wedge", layout="csr"), orientation="id").shape
        assert below.edge32

    def test_shared_bytes(self):
        fp = WedgeShape(layout="fingerprint", unroll=3, min_blocks=6)
        assert fp.shared_bytes(4) == 8 * (512 + 2 * 32 * 4 + 8 * 2048 // 8)
        assert WedgeShape(layout="csr").shared_bytes(8) == 8 * 256 * 8

    @pytest.mark.parametrize("options", [{"layout": "nope"}, {"lanes": "nope"},
                                         {"filter_bits": 100}, {"layout": "fingerprint",
                                                                "span_slots": 4096}])
    def test_bad_knobs_name_the_method(self, options):
        with pytest.raises(UnknownMethodError, match="wedge"):
            WedgeShape(**options)


class TestBitwedgeShape:
    def test_bitmaps_on_chip_up_to_7_kib(self):
        assert make_plan(stats(4039, 88_234, 70), method="bitwedge").shape.bitmaps == "shared"
        assert make_plan(stats(75_879, 405_740, 121), method="bitwedge").shape.bitmaps == "global"

    def test_forced_shared_bitmaps_must_fit_a_block(self):
        with pytest.raises(UnknownMethodError, match="bitmaps='global'"):
            make_plan(stats(10**6, 10**7, 50), tuned("bitwedge", bitmaps="shared"))

    @pytest.mark.parametrize("options", [{"pairs": "nope"}, {"block_size": 48},
                                         {"bitmaps": "nope"}, {"unroll": 0}])
    def test_bad_knobs_name_the_method(self, options):
        with pytest.raises(UnknownMethodError, match="bitwedge"):
            BitwedgeShape(**options)


class TestRequest:
    def test_unknown_method_lists_the_gpu_methods(self):
        with pytest.raises(UnknownMethodError) as info:
            request("merge")
        assert all(name in str(info.value) for name in gp.GPU_METHODS)

    def test_unknown_orientation(self):
        with pytest.raises(UnknownMethodError, match="orientation"):
            request("hash", "random")

    def test_auto_takes_no_shape(self):
        with pytest.raises(UnknownMethodError, match="auto"):
            request("auto", plan=Plan(shape=HashShape()))
        with pytest.raises(UnknownMethodError, match="auto"):
            tuned("auto", sf=2.0)

    def test_a_shape_belongs_to_its_method(self):
        with pytest.raises(UnknownMethodError, match="WedgeShape"):
            request(plan=Plan(method="hash", shape=WedgeShape()))
        with pytest.raises(UnknownMethodError, match="disagrees"):
            request("wedge", plan=Plan(method="hash"))

    def test_a_lab_method_comes_with_its_shape(self):
        @dataclasses.dataclass(frozen=True)
        class LabShape:
            method = "lab"
            launcher = "nowhere:nothing"

        assert request(plan=Plan(method="lab", shape=LabShape())).method == "lab"
        planned = make_plan(stats(1000, 5000, 10), Plan(method="lab", shape=LabShape()))
        assert planned.shape == LabShape() and planned.reason == "requested"

    def test_unknown_option_is_named(self):
        with pytest.raises(UnknownMethodError, match="'blocks'"):
            tuned("hash", blocks=3)


def test_a_made_plan_passes_through_the_steps_unchanged():
    for s in (stats(1 << 24, 16 << 24, 59, id_out=59), stats(75_879, 405_740, 121),
              stats(1_245_329, 31_771_938, 824)):
        planned = make_plan(s)
        again = plan_method(s, plan_orientation(s, plan_memory(s, request(plan=planned))))
        assert again == planned


def test_make_plan_with_everything_known():
    planned = make_plan(stats(8_871_645, 260_379_520, 2000, id_out=100_000))
    assert planned.method == "hash" and planned.orientation == "rank"
    assert planned.preparation.kind == "fused" and planned.shape.block_size == 512


class TestChooseShortRoute:
    """The short route's routing (tricount.gpu.small): a bare auto on a small graph."""

    def test_the_five_real_graphs_of_issue_25_take_it(self):
        for n, m in ((36_692, 183_831), (4_039, 88_234), (12_008, 118_489), (75_879, 405_740),
                     (10_312, 333_983)):
            why = gp.choose_short_route(n, m)
            assert why is not None and why.startswith("auto: short route") and str(m) in why

    def test_the_bounds_are_inclusive(self):
        n_max, m_max = gp.SHORT_ROUTE_MAX_VERTICES, gp.SHORT_ROUTE_MAX_EDGES
        assert gp.choose_short_route(n_max, m_max) is not None
        assert gp.choose_short_route(n_max + 1, m_max) is None
        assert gp.choose_short_route(n_max, m_max + 1) is None
        assert gp.choose_short_route(3, 1) is not None

    def test_a_graph_without_edges_is_planned(self):
        assert gp.choose_short_route(5, 0) is None
        assert gp.choose_short_route(0, 0) is None

    @pytest.mark.parametrize("request_", [
        {"method": "hash"}, {"method": "wedge"}, {"method": "bitwedge"}, {"orientation": "rank"},
        {"orientation": "id"}, {"orientation": "degree"}, {"plan": Plan()},
        {"plan": tuned("hash")}, {"max_memory": 1 << 40},
    ], ids=["hash", "wedge", "bitwedge", "rank", "id", "degree", "empty-plan", "plan",
            "max-memory"])
    def test_any_request_beyond_auto_is_planned(self, request_):
        assert gp.choose_short_route(1000, 5000, **request_) is None

    def test_the_bound_is_read_at_each_call(self, monkeypatch):
        monkeypatch.setattr(gp, "SHORT_ROUTE_MAX_EDGES", 10)
        assert gp.choose_short_route(100, 10) is not None
        assert gp.choose_short_route(100, 11) is None
