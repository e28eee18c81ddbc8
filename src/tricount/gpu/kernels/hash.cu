// hash.cu: owner-centric counting with an on-chip hash set per owner, the
// set given to the longer out-list of every edge (tricount's own method).
//
// Counts: distinct triangles of a simple undirected graph.
// Preconditions: the DAG of common.cuh plus the plan of prep/partners.py:
// every edge that can close a triangle appears once, as (owner x, partner y)
// with d+(y) <= d+(x); x's partners are listed together, longest out-list
// first, and cut into tasks (x, partners[begin .. end)) of bounded work.
// Tasks for a whole block come first (n_block_tasks of them), then tasks for
// a warp, each part in decreasing order of work. Every table slot is
// TC_EMPTY between tasks.
// Counted once: the edge {x, y} contributes |N+(x) ∩ N+(y)|: every w in
// N+(y) is looked up in the set N+(x). A triangle a < b < c is closed only by
// the edge a -> b (c in both out-lists); that edge has exactly one owner and
// lies in exactly one task, so the triangle is counted once.
// Group: a block (block tasks) or a warp (the others) takes one task at a
// time from an atomic counter (work stealing, heaviest first). It inserts
// N+(x) into a linear-probing table of 2^k >= TC_TABLE_SPREAD d+(x) slots in
// shared memory (atomicCAS; the keys are distinct), syncs, then probes:
// partner lists of at least TC_LONG_LIST elements are read by a whole warp,
// 32 elements at a time (coalesced), one list per warp; shorter lists by one
// thread each — sorted by length, so neighbouring threads run for about as
// long. The group then empties the table. A block task whose table would not
// fit (more than block_slots slots) is probed by binary search in the owner's
// sorted out-list in global memory instead: slower, still exact.
// Instruction issue bounds the probes (Nsight Compute at R-MAT 21: 93 % SM
// throughput, 0.93 warps issued per cycle, DRAM 25 %; docs/gpu.md),
// so a probe is kept short: a two-instruction hash for 32-bit ids, 32-bit
// counts per list, the owner's set chosen once per list. Each lane keeps
// TC_LONG_UNROLL loads in flight (98 % of probes are in lists of 16 or more),
// a warp fetches the bounds of its next 32 lists at once, and the launcher
// caps registers so that 48 or 64 warps fit a multiprocessor.
// Work per probe: one load of w (from L1/L2) and one or two shared loads.
// Probes in all: Σ over edges of min(d+(u), d+(v)) (prep/partners.py).
// The set, its fallback and the task schedule: hash_table.cuh (listing.cu
// lists triangles with the same three).
// Sources: the on-chip set per anchor of TRUST (Pandey et al., TPDS 2021) and
// the heavy/light split into block and warp groups of GroupTC; giving each
// edge to the end with the longer list is what makes the probes the minimum.

#ifndef TC_BLOCK_SIZE
#define TC_BLOCK_SIZE 256
#endif

#ifndef TC_BATCH_BOUNDS
#define TC_BATCH_BOUNDS 1  // a warp fetches 32 partner lists' bounds at once (0: one by one)
#endif

#include "hash_table.cuh"

// This lane's share of probing cols[yb .. ye) (a warp reads the list together).
// The count is 32-bit: it is at most the list's length.
template <bool ON_CHIP>
__device__ __forceinline__ unsigned tc_warp_probe_list(const vertex_t* __restrict__ cols,
                                                       edge_t yb, edge_t ye, int lane,
                                                       const vertex_t* table, int shift,
                                                       unsigned mask,
                                                       const vertex_t* __restrict__ own,
                                                       edge_t own_n) {
    unsigned found = 0;
    for (edge_t j = yb + lane; j < ye; j += TC_LONG_UNROLL * TC_WARP) {
        // One base pointer per round: the k loads use immediate offsets.
        const vertex_t* __restrict__ at = cols + j;
        const edge_t left = ye - j;  // > 0
        vertex_t w[TC_LONG_UNROLL];
#pragma unroll
        for (int k = 0; k < TC_LONG_UNROLL; ++k)
            w[k] = (edge_t)k * TC_WARP < left ? at[k * TC_WARP] : TC_EMPTY;
#pragma unroll
        for (int k = 0; k < TC_LONG_UNROLL; ++k) {
            if (w[k] == TC_EMPTY) continue;  // past the list's end (ids are >= 0)
            found += tc_owner_has<ON_CHIP>(w[k], table, shift, mask, own, own_n);
        }
    }
    return found;
}

// tc_warp_probe_list with the owner's set chosen once for the whole list.
__device__ __forceinline__ unsigned tc_warp_probe(bool on_chip, const vertex_t* __restrict__ cols,
                                                  edge_t yb, edge_t ye, int lane,
                                                  const vertex_t* table, int shift, unsigned mask,
                                                  const vertex_t* __restrict__ own, edge_t own_n) {
    return on_chip
        ? tc_warp_probe_list<true>(cols, yb, ye, lane, table, shift, mask, own, own_n)
        : tc_warp_probe_list<false>(cols, yb, ye, lane, table, shift, mask, own, own_n);
}

// The triangles owner x closes with partners[pb .. pe), as seen by thread t
// of a group of GROUP threads (the caller sums over the group). `table` holds
// `slots` slots, all TC_EMPTY on entry and on return.
template <int GROUP>
__device__ count_t tc_task_count(vertex_t x, edge_t pb, edge_t pe, int t, vertex_t* table,
                                 offset_t slots, const edge_t* __restrict__ indptr,
                                 const vertex_t* __restrict__ cols,
                                 const vertex_t* __restrict__ partners) {
    const tc_owner_set set = tc_owner_set_build<GROUP>(x, t, table, slots, indptr, cols);
    const bool on_chip = set.on_chip;  // uniform across the group
    const int shift = set.shift;
    const unsigned mask = set.mask;
    const vertex_t* own = set.own;
    const edge_t own_n = set.own_n;
    count_t found = 0;
    // Long lists: one warp per list, lanes read consecutive elements, each lane
    // with TC_LONG_UNROLL loads in flight before it probes. With
    // TC_BATCH_BOUNDS the warp looks up the bounds of its next 32 lists at
    // once (lane k: list k) instead of one list at a time.
    const int lane = t % TC_WARP, team = t / TC_WARP;
    constexpr int TEAMS = GROUP / TC_WARP;
#if TC_BATCH_BOUNDS
    bool long_done = false;
    for (edge_t base = pb + team; base < pe && !long_done; base += (edge_t)TEAMS * TC_WARP) {
        const edge_t q = base + (edge_t)lane * TEAMS;
        edge_t my_begin = 0, my_end = 0;  // an empty list past pe ends the long lists
        if (q < pe) {
            const vertex_t y = partners[q];
            my_begin = indptr[y];
            my_end = indptr[y + 1];
        }
        for (int i = 0; i < TC_WARP; ++i) {
            const edge_t yb = __shfl_sync(TC_FULL_MASK, my_begin, i);
            const edge_t ye = __shfl_sync(TC_FULL_MASK, my_end, i);
            if (ye - yb < TC_LONG_LIST) { long_done = true; break; }  // uniform: sorted lengths
            found += tc_warp_probe(on_chip, cols, yb, ye, lane, table, shift, mask, own, own_n);
        }
    }
#else
    for (edge_t p = pb + team; p < pe; p += TEAMS) {
        const vertex_t y = partners[p];
        const edge_t yb = indptr[y], ye = indptr[y + 1];
        if (ye - yb < TC_LONG_LIST) break;  // uniform in the warp; the rest are shorter
        found += tc_warp_probe(on_chip, cols, yb, ye, lane, table, shift, mask, own, own_n);
    }
#endif
    // Short lists: one thread per list, four loads in flight before probing.
    for (edge_t q = pb + t; q < pe; q += GROUP) {
        const vertex_t y = partners[q];
        const edge_t yb = indptr[y], ye = indptr[y + 1];
        if (ye - yb >= TC_LONG_LIST) continue;  // read by a warp above
        edge_t j = yb;
        for (; j + 4 <= ye; j += 4) {
            const vertex_t w0 = cols[j], w1 = cols[j + 1], w2 = cols[j + 2], w3 = cols[j + 3];
            if (on_chip) {
                found += tc_table_has(table, w0, shift, mask) + tc_table_has(table, w1, shift, mask)
                       + tc_table_has(table, w2, shift, mask) + tc_table_has(table, w3, shift, mask);
            } else {
                found += tc_list_has(own, own_n, w0) + tc_list_has(own, own_n, w1)
                       + tc_list_has(own, own_n, w2) + tc_list_has(own, own_n, w3);
            }
        }
        for (; j < ye; ++j) {
            const vertex_t w = cols[j];
            found += on_chip ? tc_table_has(table, w, shift, mask) : tc_list_has(own, own_n, w);
        }
    }
    tc_owner_set_clear<GROUP>(set, t);
    return found;
}

// One launch for the whole graph, tasks scheduled by tc_run_tasks
// (hash_table.cuh); every thread's count is added into *result once.
extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE, TC_MIN_BLOCKS)
tc_hash(const edge_t* __restrict__ indptr, const vertex_t* __restrict__ cols,
        const vertex_t* __restrict__ partners, const vertex_t* __restrict__ task_owner,
        const edge_t* __restrict__ task_begin, const edge_t* __restrict__ task_end,
        offset_t n_block_tasks, offset_t n_tasks, offset_t block_slots,
        unsigned long long* __restrict__ next_task, count_t* __restrict__ result) {
    extern __shared__ __align__(8) unsigned char tc_hash_shared[];
    count_t found = 0;
    tc_run_tasks(n_block_tasks, n_tasks, block_slots, next_task, (vertex_t*)tc_hash_shared,
                 [&](offset_t k, auto group, int t, vertex_t* table, offset_t slots) {
                     found += tc_task_count<decltype(group)::size>(
                         task_owner[k], task_begin[k], task_end[k], t, table, slots, indptr,
                         cols, partners);
                 });
    tc_block_add(found, result);
}
