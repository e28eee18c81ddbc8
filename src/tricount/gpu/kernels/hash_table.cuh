// hash_table.cuh: the owner's on-chip hash set and the task schedule of the
// owner-centric kernels (hash.cu counts with them, listing.cu lists).
//
// Set: owner x's out-list N+(x) inserted into a linear-probing table of
// 2^k >= TC_TABLE_SPREAD d+(x) slots in shared memory (atomicCAS; the keys are
// distinct), every slot TC_EMPTY between tasks; an owner whose table does not
// fit is looked up by binary search in its sorted list instead (slower, exact).
// Schedule (tc_run_tasks): one launch; every block first takes block tasks, one
// at a time, from an atomic counter, until none is left, then each of its warps
// takes warp tasks (TC_WARP_CLAIM per atomic). Task k is owner task_owner[k]
// with partners task_begin[k] .. task_end[k] (prep/partners.py); the launcher
// puts block tasks first. A warp task's owner fits TC_WARP_SLOTS slots.

#ifndef TRICOUNT_HASH_TABLE_CUH
#define TRICOUNT_HASH_TABLE_CUH

// The tunables both includers share (each includer sets TC_BLOCK_SIZE first).
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

template <int GROUP>
__device__ __forceinline__ void tc_group_sync() {
    if (GROUP == TC_WARP) __syncwarp(); else __syncthreads();
}

// Owner x's set for one task: its table in `table` when 2^k slots fit `slots`
// (on_chip, uniform across the group), else its sorted list own[0 .. own_n).
struct tc_owner_set {
    vertex_t* table;
    int shift;
    unsigned mask;
    bool on_chip;
    const vertex_t* own;
    edge_t own_n;
};

// Build x's set on a group of GROUP threads (t: the caller's place); the table
// holds `slots` slots, all TC_EMPTY on entry.
template <int GROUP>
__device__ __forceinline__ tc_owner_set tc_owner_set_build(vertex_t x, int t, vertex_t* table,
                                                           offset_t slots,
                                                           const edge_t* __restrict__ indptr,
                                                           const vertex_t* __restrict__ cols) {
    const edge_t xb = indptr[x], xe = indptr[x + 1];
    const int bits = tc_table_bits(xe - xb);
    const tc_owner_set set = {table, 32 - bits, (1u << bits) - 1u,
                              ((offset_t)1 << bits) <= slots, cols + xb, xe - xb};
    if (set.on_chip) {
        for (edge_t i = xb + t; i < xe; i += GROUP)
            tc_table_insert(table, cols[i], set.shift, set.mask);
        tc_group_sync<GROUP>();
    }
    return set;
}

// Every slot of the set's table back to TC_EMPTY, after every probe of the group.
template <int GROUP>
__device__ __forceinline__ void tc_owner_set_clear(const tc_owner_set& set, int t) {
    if (set.on_chip) {
        tc_group_sync<GROUP>();  // every probe done before the slots are emptied
        for (edge_t i = t; i <= (edge_t)set.mask; i += GROUP) set.table[i] = TC_EMPTY;
        tc_group_sync<GROUP>();
    }
}

// A group's size as a type, so that one generic task body serves blocks and warps.
template <int N> struct tc_group { static constexpr int size = N; };

// Run every task once: task(k, tc_group<G>(), t, table, slots) for task k on a
// group of G threads (t: the caller's place in it) with a table of `slots`
// slots, all TC_EMPTY on entry, which the task must leave TC_EMPTY. Must be
// reached by every thread of the block. Dynamic shared memory:
// max(block_slots, TC_WARPS_PER_BLOCK * TC_WARP_SLOTS) slots.
template <class Task>
__device__ __forceinline__ void tc_run_tasks(offset_t n_block_tasks, offset_t n_tasks,
                                             offset_t block_slots,
                                             unsigned long long* __restrict__ next_task,
                                             vertex_t* table, Task task) {
    const offset_t total_slots = tc_max(block_slots, (offset_t)TC_WARPS_PER_BLOCK * TC_WARP_SLOTS);
    for (offset_t i = threadIdx.x; i < total_slots; i += TC_BLOCK_SIZE) table[i] = TC_EMPTY;
    __syncthreads();
    __shared__ offset_t claimed;
    for (;;) {
        if (threadIdx.x == 0) claimed = (offset_t)atomicAdd(next_task, 1ull);
        __syncthreads();
        const offset_t k = claimed;
        __syncthreads();  // every thread has read `claimed` before it is rewritten
        if (k >= n_block_tasks) break;  // uniform across the block
        task(k, tc_group<TC_BLOCK_SIZE>(), (int)threadIdx.x, table, block_slots);
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
            task(k, tc_group<TC_WARP>(), lane, warp_table, (offset_t)TC_WARP_SLOTS);
    }
}

#endif  // TRICOUNT_HASH_TABLE_CUH
