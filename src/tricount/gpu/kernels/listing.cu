// listing.cu: every triangle written once, window by window (count -> prefix sum
// -> write), on the owner-centric hash sets of hash.cu.
//
// Lists: each triangle {a, b, c} as one row of three vertex ids, the row
// sorted by compact id; a window is stored row by row (for NumPy's (k, 3)
// arrays) or column by column (all u, then all v, then all w: Parquet's
// columns), either way one contiguous block to copy to the host.
// Preconditions: the DAG of common.cuh and the owner/partner plan of
// prep/partners.py cut into tasks, block tasks first (as hash.cu); the
// launcher passes the degree orientation.
// Listed once: the triangle a < b < c (orientation order) is closed only by the
// edge a -> b, as the common out-neighbour c; that edge is one pair p (owner x,
// partner y = partners[p]) of the plan, and c one hit of y's out-list in x's set.
// Numbering: the rows are numbered by pair, then by c. tc_list_count stores,
// for every pair p, the triangles it closes (counts[p] < 2^31: at most one
// out-list); the launcher turns counts into int64 offsets by a prefix sum.
// tc_list_write walks the same tasks again and writes triangle number
// offsets[p] + rank, rank being c's place among p's hits (y's list is sorted,
// so list order is c's increasing order), into row number - t_begin when it
// lies in the window t_begin .. t_end - 1; a task's pairs are consecutive, so
// its rows are offsets[begin] .. offsets[end] - 1, and a task whose rows miss
// the window is skipped before its table is built. The numbering depends on
// the plan alone, not on the schedule, the launch shape or the window, so the
// rows and their order are the same for any window size and any shape.
// Why by pair: the threads of a warp take consecutive pairs, so their rows are
// neighbours and each thread's hits fill consecutive rows; numbered by oriented
// edge (the CPU lister's order) the same stores landed on scattered rows, each
// 8-byte store a partial 32-byte sector, and the write pass ran at a quarter
// of the card's write bandwidth (R-MAT 21 on an H100: 29 ms for 22.8 GB).
// Group: a block or a warp per task (tc_run_tasks, hash_table.cuh); it puts
// N+(x) in its shared-memory set (or, too long for the block's table, probes
// x's sorted list by binary search), then probes each partner list: lists of
// TC_LONG_LIST or more by a whole warp, TC_LONG_UNROLL loads of 32 in flight,
// a ballot per load ranking the warp's hits; shorter lists by one thread, in
// order.
// Source: the count-then-write pattern of stream compaction (prefix sum over
// per-item counts, Blelloch 1990) over the sets of TRUST (Pandey et al., 2021).

#ifndef TC_BLOCK_SIZE
#define TC_BLOCK_SIZE 256
#endif

#include "hash_table.cuh"

// Entries of a warp's staging area in tc_list_write: a round of a long list's hits
// on top of fewer than 32 not yet written (flushed when 32 or more are staged).
#define TC_LIST_STAGE ((TC_LONG_UNROLL + 1) * TC_WARP)

// Owner x's task over partners[pb .. pe) on a group of GROUP threads (t: the
// caller's place): for every pair p (partner y = partners[p]), need =
// expect(p) (uniform per pair; 0: skip the pair, else stop after `need` hits),
// visit(p, x, y, c, rank) for every hit c of y's list in x's set, rank its
// place among p's hits when Ranked (else 0), then done(p, found) once per
// pair, by one thread. Ranked, a warp's long-list hits are staged in `stage`
// (TC_LIST_STAGE entries of this warp) and visited by consecutive lanes in
// rank order, so that consecutive lanes write consecutive rows. `table` holds
// `slots` slots, TC_EMPTY on entry and on return.
template <int GROUP, bool Ranked, class Expect, class Visit, class Done>
__device__ __forceinline__ void tc_task_visit(vertex_t x, edge_t pb, edge_t pe, int t,
                                              vertex_t* table, offset_t slots,
                                              vertex_t* stage,
                                              const edge_t* __restrict__ indptr,
                                              const vertex_t* __restrict__ cols,
                                              const vertex_t* __restrict__ partners,
                                              Expect expect, Visit visit, Done done) {
    const tc_owner_set set = tc_owner_set_build<GROUP>(x, t, table, slots, indptr, cols);
    auto has = [&](vertex_t w) {
        return set.on_chip ? tc_table_has(table, w, set.shift, set.mask)
                           : tc_list_has(set.own, set.own_n, w);
    };
    const int lane = t % TC_WARP, team = t / TC_WARP;
    const unsigned lanes_below = (1u << lane) - 1u;
    constexpr int TEAMS = GROUP / TC_WARP;
    // Long lists: one warp per list; load k of a round holds positions
    // base + 32 k + lane, so (round, k, lane) is list order.
    for (edge_t p = pb + team; p < pe; p += TEAMS) {
        const vertex_t y = partners[p];
        const edge_t yb = indptr[y], ye = indptr[y + 1];
        if (ye - yb < TC_LONG_LIST) break;  // uniform in the warp; the rest are shorter
        const unsigned need = expect(p);  // uniform: one pair per warp
        if (need == 0) continue;
        unsigned found = 0, staged = 0;  // ranked: warp-uniform, found = visited + staged
        auto flush = [&]() {
            __syncwarp();
            for (unsigned i = lane; i < staged; i += TC_WARP)
                visit(p, x, y, stage[i], found - staged + i);
            __syncwarp();  // read before the next round overwrites
            staged = 0;
        };
        for (edge_t base = yb; base < ye && (!Ranked || found < need);
             base += TC_LONG_UNROLL * TC_WARP) {
            vertex_t w[TC_LONG_UNROLL];
#pragma unroll
            for (int k = 0; k < TC_LONG_UNROLL; ++k) {
                const edge_t j = base + (edge_t)(k * TC_WARP + lane);
                w[k] = j < ye ? cols[j] : TC_EMPTY;
            }
#pragma unroll
            for (int k = 0; k < TC_LONG_UNROLL; ++k) {
                const bool hit = w[k] != TC_EMPTY && has(w[k]);
                if (Ranked) {
                    const unsigned hits = __ballot_sync(TC_FULL_MASK, hit);
                    if (hit) stage[staged + __popc(hits & lanes_below)] = w[k];
                    staged += __popc(hits);
                    found += __popc(hits);
                } else {
                    found += hit;
                }
            }
            if (Ranked && staged > TC_LIST_STAGE - TC_LONG_UNROLL * TC_WARP) flush();
        }
        if (Ranked) flush();
        if (!Ranked) found = (unsigned)tc_warp_sum(found);  // ranked: every lane has the total
        if (lane == 0) done(p, found);
    }
    // Short lists: one thread per list, four loads in flight, hits in list order.
    for (edge_t q = pb + t; q < pe; q += GROUP) {
        const vertex_t y = partners[q];
        const edge_t yb = indptr[y], ye = indptr[y + 1];
        if (ye - yb >= TC_LONG_LIST) continue;  // read by a warp above
        const unsigned need = expect(q);
        if (need == 0) continue;
        unsigned found = 0;
        for (edge_t j = yb; j < ye && found < need; j += 4) {
            vertex_t w[4];
#pragma unroll
            for (int k = 0; k < 4; ++k) w[k] = j + k < ye ? cols[j + k] : TC_EMPTY;
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                if (w[k] != TC_EMPTY && has(w[k])) {
                    visit(q, x, y, w[k], found);
                    ++found;
                }
            }
        }
        done(q, found);
    }
    tc_owner_set_clear<GROUP>(set, t);
}

// a <= b <= c after the call (three compare-exchanges).
__device__ __forceinline__ void tc_sort3(vertex_t& a, vertex_t& b, vertex_t& c) {
    vertex_t s;
    if (a > b) { s = a; a = b; b = s; }
    if (b > c) { s = b; b = c; c = s; }
    if (a > b) { s = a; a = b; b = s; }
}

// counts[p] = the triangles pair p closes, for every pair p of the tasks.
extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE, TC_MIN_BLOCKS)
tc_list_count(const edge_t* __restrict__ indptr, const vertex_t* __restrict__ cols,
              const vertex_t* __restrict__ partners, const vertex_t* __restrict__ task_owner,
              const edge_t* __restrict__ task_begin, const edge_t* __restrict__ task_end,
              offset_t n_block_tasks, offset_t n_tasks, offset_t block_slots,
              unsigned long long* __restrict__ next_task, unsigned int* __restrict__ counts) {
    extern __shared__ __align__(8) unsigned char tc_list_shared[];
    tc_run_tasks(n_block_tasks, n_tasks, block_slots, next_task, (vertex_t*)tc_list_shared,
                 [&](offset_t k, auto group, int t, vertex_t* table, offset_t slots) {
        tc_task_visit<decltype(group)::size, false>(
            task_owner[k], task_begin[k], task_end[k], t, table, slots, nullptr, indptr, cols,
            partners, [](edge_t) { return ~0u; },
            [](edge_t, vertex_t, vertex_t, vertex_t, unsigned) {},
            [&](edge_t p, unsigned found) { counts[p] = found; });
    });
}

// Rows t_begin .. t_end - 1 into out: the row's u, v and w, each the id
// labels[x] of the compact vertex x (x itself when labels is null), of row r =
// number - t_begin at out[r * row_stride + j * column_stride], j = 0, 1, 2 (the
// launcher's layouts: columns, strides (1, n) with n = t_end - t_begin; rows,
// strides (3, 1)). Dynamic shared memory: tc_run_tasks' tables, then
// TC_LIST_STAGE entries per warp.
extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE, TC_MIN_BLOCKS)
tc_list_write(const edge_t* __restrict__ indptr, const vertex_t* __restrict__ cols,
              const vertex_t* __restrict__ partners, const vertex_t* __restrict__ task_owner,
              const edge_t* __restrict__ task_begin, const edge_t* __restrict__ task_end,
              offset_t n_block_tasks, offset_t n_tasks, offset_t block_slots,
              unsigned long long* __restrict__ next_task,
              const long long* __restrict__ offsets, const long long* __restrict__ labels,
              long long t_begin, long long t_end, long long row_stride,
              long long column_stride, long long* __restrict__ out) {
    extern __shared__ __align__(8) unsigned char tc_list_shared[];
    // Each warp's staging area follows the tables (the launcher adds its bytes).
    vertex_t* stage = (vertex_t*)tc_list_shared
        + tc_max(block_slots, (offset_t)TC_WARPS_PER_BLOCK * TC_WARP_SLOTS)
        + (offset_t)(threadIdx.x / TC_WARP) * TC_LIST_STAGE;
    tc_run_tasks(n_block_tasks, n_tasks, block_slots, next_task, (vertex_t*)tc_list_shared,
                 [&](offset_t k, auto group, int t, vertex_t* table, offset_t slots) {
        // Uniform across the group: a task none of whose rows is in the window is skipped.
        const edge_t pb = task_begin[k], pe = task_end[k];
        if (offsets[pe] <= t_begin || offsets[pb] >= t_end) return;
        tc_task_visit<decltype(group)::size, true>(
            task_owner[k], pb, pe, t, table, slots, stage, indptr, cols, partners,
            [&](edge_t p) {  // p's rows in the window: all of them, or 0 when none
                const long long first = offsets[p], last = offsets[p + 1];
                return (last <= t_begin || first >= t_end) ? 0u : (unsigned)(last - first);
            },
            [&](edge_t p, vertex_t x, vertex_t y, vertex_t c, unsigned rank) {
                const long long number = offsets[p] + (long long)rank;
                if (number < t_begin || number >= t_end) return;  // the window cuts this pair
                vertex_t a = x, b = y;
                tc_sort3(a, b, c);
                long long* row = out + (number - t_begin) * row_stride;
                row[0] = labels ? labels[a] : (long long)a;
                row[column_stride] = labels ? labels[b] : (long long)b;
                row[2 * column_stride] = labels ? labels[c] : (long long)c;
            },
            [](edge_t, unsigned) {});
    });
}
