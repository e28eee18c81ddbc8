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
// Sources: the on-chip set per anchor of TRUST (Pandey et al., TPDS 2021) and
// the heavy/light split into block and warp groups of GroupTC; giving each
// edge to the end with the longer list is what makes the probes the minimum.

#ifndef TC_BLOCK_SIZE
#define TC_BLOCK_SIZE 256
#endif

#ifndef TC_WARP_SLOTS
#define TC_WARP_SLOTS 1024  // slots of a warp's table: owners with spread * d+ <= slots
#endif

#ifndef TC_LONG_LIST
#define TC_LONG_LIST 32  // partner lists this long are read by a whole warp
#endif

#ifndef TC_WARP_CLAIM
#define TC_WARP_CLAIM 1  // warp tasks taken per atomic
#endif

#ifndef TC_LONG_UNROLL
#define TC_LONG_UNROLL 4  // loads in flight per lane on long lists
#endif

#ifndef TC_BATCH_BOUNDS
#define TC_BATCH_BOUNDS 1  // a warp fetches 32 partner lists' bounds at once (0: one by one)
#endif

#ifndef TC_MIN_BLOCKS
#define TC_MIN_BLOCKS 6  // __launch_bounds__ minimum resident blocks (caps registers)
#endif

#ifndef TC_TABLE_SPREAD
#define TC_TABLE_SPREAD 4  // table slots >= TC_TABLE_SPREAD * d+(x): load <= 1/spread
#endif

#include "common.cuh"

// Edge positions inside the kernel (indptr values, pair positions): 32-bit
// unsigned when the launcher knows every one is below 2^31 (fewer registers,
// so more resident warps), else 64-bit.
#ifndef TC_EDGE_T
#define TC_EDGE_T long long
#endif
typedef TC_EDGE_T edge_t;

#if (TC_WARP_SLOTS & (TC_WARP_SLOTS - 1)) != 0 || TC_WARP_SLOTS < 32
#error "TC_WARP_SLOTS must be a power of two >= 32"
#endif

#define TC_EMPTY ((vertex_t)-1)

// Fibonacci hashing: the top `bits` bits of the product (shift = 32 - bits).
// 32-bit ids hash alone (two instructions: the probe loop is issue-bound);
// 64-bit ids fold their high half in first.
__device__ __forceinline__ unsigned tc_hash_slot(int w, int shift) {
    return ((unsigned)w * 2654435761u) >> shift;
}
__device__ __forceinline__ unsigned tc_hash_slot(long long w, int shift) {
    const unsigned long long x = (unsigned long long)w;
    return ((unsigned)(x ^ (x >> 32)) * 2654435761u) >> shift;
}

// log2 of the table size for an out-list of `degree` keys.
__device__ __forceinline__ int tc_table_bits(offset_t degree) {
    int bits = 5;
    while (((offset_t)1 << bits) < TC_TABLE_SPREAD * degree) ++bits;
    return bits;
}

// Claim an empty slot for w; false when another key holds it.
__device__ __forceinline__ bool tc_claim_slot(int* slot, int w) {
    return atomicCAS(slot, -1, w) == -1;
}
__device__ __forceinline__ bool tc_claim_slot(long long* slot, long long w) {
    return atomicCAS((unsigned long long*)slot, ~0ull, (unsigned long long)w) == ~0ull;
}

__device__ __forceinline__ void tc_table_insert(vertex_t* table, vertex_t w, int shift,
                                                unsigned mask) {
    unsigned s = tc_hash_slot(w, shift);
    while (!tc_claim_slot(table + s, w)) s = (s + 1) & mask;
}

// 1 when w is in the table. Terminates: at most half the slots are taken.
__device__ __forceinline__ unsigned tc_table_has(const vertex_t* table, vertex_t w, int shift,
                                                unsigned mask) {
    unsigned s = tc_hash_slot(w, shift);
    for (;;) {
        const vertex_t key = table[s];
        if (key == w) return 1;
        if (key == TC_EMPTY) return 0;
        s = (s + 1) & mask;
    }
}

// 1 when w is in the sorted list (the fallback for a table that does not fit).
__device__ __forceinline__ unsigned tc_list_has(const vertex_t* __restrict__ list, offset_t n,
                                               vertex_t w) {
    return tc_sorted_has(list, 0, n, w);
}

// 1 when w is in the owner's set: its table, or (ON_CHIP false) its sorted list.
template <bool ON_CHIP>
__device__ __forceinline__ unsigned tc_owner_has(vertex_t w, const vertex_t* table, int shift,
                                                 unsigned mask, const vertex_t* __restrict__ own,
                                                 edge_t own_n) {
    return ON_CHIP ? tc_table_has(table, w, shift, mask) : tc_list_has(own, own_n, w);
}

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

template <int GROUP>
__device__ __forceinline__ void tc_group_sync() {
    if (GROUP == TC_WARP) __syncwarp(); else __syncthreads();
}

// The triangles owner x closes with partners[pb .. pe), as seen by thread t
// of a group of GROUP threads (the caller sums over the group). `table` holds
// `slots` slots, all TC_EMPTY on entry and on return.
template <int GROUP>
__device__ count_t tc_task_count(vertex_t x, edge_t pb, edge_t pe, int t, vertex_t* table,
                                 offset_t slots, const edge_t* __restrict__ indptr,
                                 const vertex_t* __restrict__ cols,
                                 const vertex_t* __restrict__ partners) {
    const edge_t xb = indptr[x], xe = indptr[x + 1];
    const int bits = tc_table_bits(xe - xb);
    const bool on_chip = ((offset_t)1 << bits) <= slots;  // uniform across the group
    const int shift = 32 - bits;
    const unsigned mask = (1u << bits) - 1u;
    if (on_chip) {
        for (edge_t i = xb + t; i < xe; i += GROUP) tc_table_insert(table, cols[i], shift, mask);
        tc_group_sync<GROUP>();
    }
    const vertex_t* own = cols + xb;
    const edge_t own_n = xe - xb;
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
    if (on_chip) {
        tc_group_sync<GROUP>();  // every probe done before the slots are emptied
        for (edge_t i = t; i <= (edge_t)mask; i += GROUP) table[i] = TC_EMPTY;
        tc_group_sync<GROUP>();
    }
    return found;
}

// One launch for the whole graph: every block first takes block tasks, one
// at a time, until none is left, then each of its warps takes warp tasks.
// Task k: owner task_owner[k], partners task_begin[k] .. task_end[k].
// Dynamic shared memory: max(block_slots, TC_WARPS_PER_BLOCK * TC_WARP_SLOTS)
// slots; a warp task's owner needs at most TC_WARP_SLOTS (the launcher's split).
extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE, TC_MIN_BLOCKS)
tc_hash(const edge_t* __restrict__ indptr, const vertex_t* __restrict__ cols,
        const vertex_t* __restrict__ partners, const vertex_t* __restrict__ task_owner,
        const edge_t* __restrict__ task_begin, const edge_t* __restrict__ task_end,
        offset_t n_block_tasks, offset_t n_tasks, offset_t block_slots,
        unsigned long long* __restrict__ next_task, count_t* __restrict__ result) {
    extern __shared__ __align__(8) unsigned char tc_hash_shared[];
    vertex_t* table = (vertex_t*)tc_hash_shared;
    const offset_t total_slots = tc_max(block_slots, (offset_t)TC_WARPS_PER_BLOCK * TC_WARP_SLOTS);
    for (offset_t i = threadIdx.x; i < total_slots; i += TC_BLOCK_SIZE) table[i] = TC_EMPTY;
    __syncthreads();
    __shared__ offset_t claimed;
    count_t found = 0;
    for (;;) {
        if (threadIdx.x == 0) claimed = (offset_t)atomicAdd(next_task, 1ull);
        __syncthreads();
        const offset_t k = claimed;
        __syncthreads();  // every thread has read `claimed` before it is rewritten
        if (k >= n_block_tasks) break;  // uniform across the block
        found += tc_task_count<TC_BLOCK_SIZE>(task_owner[k], task_begin[k], task_end[k],
                                              threadIdx.x, table, block_slots, indptr, cols,
                                              partners);
    }
    const int lane = threadIdx.x % TC_WARP, warp = threadIdx.x / TC_WARP;
    vertex_t* warp_table = table + (offset_t)warp * TC_WARP_SLOTS;
    for (;;) {
        unsigned long long first = 0;
        if (lane == 0) first = atomicAdd(next_task + 1, (unsigned long long)TC_WARP_CLAIM);
        first = __shfl_sync(TC_FULL_MASK, first, 0);
        const offset_t k0 = n_block_tasks + (offset_t)first;
        if (k0 >= n_tasks) break;  // uniform across the warp
        const offset_t k1 = tc_min(k0 + TC_WARP_CLAIM, n_tasks);
        for (offset_t k = k0; k < k1; ++k)
            found += tc_task_count<TC_WARP>(task_owner[k], task_begin[k], task_end[k], lane,
                                            warp_table, TC_WARP_SLOTS, indptr, cols, partners);
    }
    tc_block_add(found, result);
}
