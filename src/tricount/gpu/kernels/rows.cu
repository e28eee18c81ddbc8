// rows.cu: edge entries to the rank-oriented CSR by bucketing, without a global sort.
//
// The input is what a user holds: `src`, `dst` (vertex_t ids, any direction, with
// repeats and self-loops). The output is the graph's DAG up the (raw degree, id)
// ranks, rows sorted, each undirected edge once, as gpu/prepare/entries.py
// assembles it from these passes:
//
// 1. tc_rows_degrees: one thread an entry adds 1 to the raw degree of both ends
//    (self-loops excluded; a vertex with only loops is marked in `looped`, and the
//    loops are counted).
// 2. (host) rank[v]: v's position in the order (raw degree, id).
// 3. tc_rows_lengths: one thread an entry adds 1 to the length of the row of its
//    end of lower rank; (host) the row starts are their running sum.
// 4. tc_rows_scatter: one thread an entry claims a slot in that row (counting the
//    row's length down) and writes the other end as (rank << 1 | reversed), where
//    reversed says the entry ran down the ranks.
// 5. tc_rows_unique_warp / tc_rows_unique_block: one warp a row (at most
//    TC_WARP_ROW entries; in registers up to 32), or one block a longer row, sorts
//    the row (bitonic) and keeps each distinct rank once at the row's front,
//    counting the distinct (rank, reversed) pairs too: the distinct directed lines.
// 6. (host) the new row starts are the running sum of the kept lengths;
//    tc_rows_compact: one warp a row moves the kept ranks there and writes the row
//    of every edge.
//
// Why each undirected edge is counted once: both entries of an edge {u, v} (and all
// its repeats) go to the same row, that of the end of lower rank, with the same
// other end, so the row's sort puts them side by side and the unique step keeps
// one. Ranks are a strict total order (ties broken by id), so the result is a DAG
// whose triangles are the graph's, each once (common.cuh's precondition).
//
// Why a row fits: an entry in row r adds 1 to r's raw degree and goes to an end w
// whose raw degree is at least r's, so a row of L entries holds entries to ends of
// raw degree >= L; without repeats that bounds L by sqrt(2 * entries). Repeats can
// lengthen a row past a block's shared memory; entries.py then takes the sorting
// route instead.
//
// Ranks and row positions fit 32 bits (entries.py sends graphs of fewer than 2^31
// entries and ids here): a value (rank << 1 | reversed) is an unsigned int.

#ifndef TC_BLOCK_SIZE
#define TC_BLOCK_SIZE 256
#endif

#ifndef TC_WARP_ROW
#define TC_WARP_ROW 1024  // longest row one warp sorts in its part of shared memory (a power of 2)
#endif

#include "common.cuh"

#if TC_WARP_ROW < 64 || (TC_WARP_ROW & (TC_WARP_ROW - 1)) != 0
#error "TC_WARP_ROW must be a power of 2, at least 64"
#endif

typedef unsigned int value_t;
#define TC_PAD 0xffffffffu  // pads a row to a power of 2; sorts last, never kept

__device__ __forceinline__ long long tc_first_index() {
    return (long long)blockIdx.x * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ long long tc_stride() { return (long long)gridDim.x * blockDim.x; }

__device__ __forceinline__ void tc_warp_add(count_t value, count_t* counter) {
    value = tc_warp_sum(value);
    if (threadIdx.x % TC_WARP == 0 && value != 0ull) atomicAdd(counter, value);
}

extern "C" __global__ void tc_rows_degrees(const vertex_t* __restrict__ src,
                                           const vertex_t* __restrict__ dst, long long n_entries,
                                           unsigned int* __restrict__ degree,
                                           unsigned char* __restrict__ looped,
                                           count_t* __restrict__ loops) {
    count_t mine = 0;
    for (long long i = tc_first_index(); i < n_entries; i += tc_stride()) {
        const vertex_t s = src[i], d = dst[i];
        if (s == d) {
            looped[s] = 1;  // racing stores of the same byte
            ++mine;
            continue;
        }
        atomicAdd(degree + s, 1u);
        atomicAdd(degree + d, 1u);
    }
    tc_warp_add(mine, loops);
}

extern "C" __global__ void tc_rows_lengths(const vertex_t* __restrict__ src,
                                           const vertex_t* __restrict__ dst, long long n_entries,
                                           const int* __restrict__ rank,
                                           unsigned int* __restrict__ length) {
    for (long long i = tc_first_index(); i < n_entries; i += tc_stride()) {
        const vertex_t s = src[i], d = dst[i];
        if (s == d) continue;
        const int a = rank[s], b = rank[d];
        atomicAdd(length + (a < b ? a : b), 1u);
    }
}

// `left` holds each row's length on entry and zeros on exit: slots are claimed from
// the row's end down, so no second array of cursors is needed.
extern "C" __global__ void tc_rows_scatter(const vertex_t* __restrict__ src,
                                           const vertex_t* __restrict__ dst, long long n_entries,
                                           const int* __restrict__ rank,
                                           const long long* __restrict__ start,
                                           unsigned int* __restrict__ left,
                                           value_t* __restrict__ values) {
    for (long long i = tc_first_index(); i < n_entries; i += tc_stride()) {
        const vertex_t s = src[i], d = dst[i];
        if (s == d) continue;
        const int a = rank[s], b = rank[d];
        const int row = a < b ? a : b, other = a < b ? b : a;
        const unsigned int slot = atomicSub(left + row, 1u) - 1u;
        values[start[row] + slot] = ((value_t)other << 1) | (value_t)(a > b);
    }
}

// Bitonic sort, ascending, of the 32 lanes' values.
__device__ __forceinline__ value_t tc_warp_sort(value_t v, int lane) {
    for (int k = 2; k <= TC_WARP; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
            const value_t other = __shfl_xor_sync(TC_FULL_MASK, v, j);
            const bool ascending = (lane & k) == 0, lower = (lane & j) == 0;
            v = (lower == ascending) ? min(v, other) : max(v, other);
        }
    }
    return v;
}

// Bitonic sort, ascending, of s[0 .. size) (a power of 2) by `threads` threads, this
// one `thread`; the steps are ordered by __syncthreads for a block, by __syncwarp
// for a warp.
template <bool Block>
__device__ __forceinline__ void tc_shared_sort(value_t* s, int size, int thread, int threads) {
    for (int k = 2; k <= size; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
            for (int t = thread; t < size / 2; t += threads) {
                const int i = (t / j) * 2 * j + t % j, partner = i + j;
                const value_t x = s[i], y = s[partner];
                if ((x > y) == ((i & k) == 0)) {
                    s[i] = y;
                    s[partner] = x;
                }
            }
            if (Block) __syncthreads(); else __syncwarp();
        }
    }
}

__device__ __forceinline__ int tc_power_of_two_at_least(int n) {
    int p = 1;
    while (p < n) p <<= 1;
    return p;
}

// The distinct flags of sorted value `v` after `before` (valid: position > 0): a new
// rank (kept), a new (rank, reversed) pair (a distinct directed line).
__device__ __forceinline__ bool tc_new_rank(value_t v, value_t before, bool first) {
    return first || (v >> 1) != (before >> 1);
}

__device__ __forceinline__ unsigned int tc_lanes_below(int lane) {
    return (1u << lane) - 1u;
}

// Rows of at most TC_WARP_ROW entries: one warp a row, in a grid-stride loop over
// rows. Longer rows are left to tc_rows_unique_block (which writes their `kept`).
// Dynamic shared memory: TC_WARP_ROW values per warp of the block.
extern "C" __global__ void tc_rows_unique_warp(const long long* __restrict__ start,
                                               long long n_rows, value_t* __restrict__ values,
                                               unsigned int* __restrict__ kept,
                                               count_t* __restrict__ directed) {
    extern __shared__ value_t scratch[];
    const int lane = threadIdx.x % TC_WARP;
    value_t* mine = scratch + (threadIdx.x / TC_WARP) * TC_WARP_ROW;
    const long long warps = tc_stride() / TC_WARP;
    count_t lines = 0;
    for (long long r = tc_first_index() / TC_WARP; r < n_rows; r += warps) {
        const long long b = start[r];
        const int len = (int)(start[r + 1] - b);  // the same in every lane: uniform branches
        if (len > TC_WARP_ROW) continue;
        value_t* row = values + b;
        if (len <= 1) {  // most rows of a sparse graph: nothing to sort
            if (lane == 0) {
                if (len == 1) row[0] >>= 1;
                kept[r] = len;
                lines += len;
            }
            continue;
        }
        if (len <= TC_WARP) {
            value_t v = tc_warp_sort(lane < len ? row[lane] : TC_PAD, lane);
            const value_t before = __shfl_up_sync(TC_FULL_MASK, v, 1);
            const bool valid = lane < len;
            const unsigned int keep =
                __ballot_sync(TC_FULL_MASK, valid && tc_new_rank(v, before, lane == 0));
            const unsigned int line =
                __ballot_sync(TC_FULL_MASK, valid && (lane == 0 || v != before));
            if (valid && ((keep >> lane) & 1u)) row[__popc(keep & tc_lanes_below(lane))] = v >> 1;
            if (lane == 0) {
                kept[r] = __popc(keep);
                lines += __popc(line);
            }
            continue;
        }
        const int size = tc_power_of_two_at_least(len);
        for (int i = lane; i < size; i += TC_WARP) mine[i] = i < len ? row[i] : TC_PAD;
        __syncwarp();
        tc_shared_sort<false>(mine, size, lane, TC_WARP);
        int written = 0;
        for (int i0 = 0; i0 < len; i0 += TC_WARP) {
            const int i = i0 + lane;
            const bool valid = i < len;
            const value_t v = valid ? mine[i] : TC_PAD, before = (valid && i > 0) ? mine[i - 1] : 0u;
            const unsigned int keep =
                __ballot_sync(TC_FULL_MASK, valid && tc_new_rank(v, before, i == 0));
            const unsigned int line = __ballot_sync(TC_FULL_MASK, valid && (i == 0 || v != before));
            if (valid && ((keep >> lane) & 1u))
                row[written + __popc(keep & tc_lanes_below(lane))] = v >> 1;
            written += __popc(keep);
            if (lane == 0) lines += __popc(line);
        }
        if (lane == 0) kept[r] = written;
        __syncwarp();  // the next row reuses the scratch
    }
    tc_warp_add(lines, directed);
}

// Rows longer than TC_WARP_ROW, listed in `long_rows`: one block a row. Dynamic shared
// memory: the longest row's power of 2 in values, then one count per warp.
extern "C" __global__ void tc_rows_unique_block(const long long* __restrict__ start,
                                                const long long* __restrict__ long_rows,
                                                long long n_long, int size_cap,
                                                value_t* __restrict__ values,
                                                unsigned int* __restrict__ kept,
                                                count_t* __restrict__ directed) {
    extern __shared__ value_t scratch[];
    unsigned int* warp_keep = scratch + size_cap;  // TC_WARPS_PER_BLOCK counts
    const int lane = threadIdx.x % TC_WARP, warp = threadIdx.x / TC_WARP;
    count_t lines = 0;
    for (long long j = blockIdx.x; j < n_long; j += gridDim.x) {
        const long long r = long_rows[j], b = start[r];
        const int len = (int)(start[r + 1] - b);
        value_t* row = values + b;
        const int size = tc_power_of_two_at_least(len);
        for (int i = threadIdx.x; i < size; i += TC_BLOCK_SIZE) scratch[i] = i < len ? row[i] : TC_PAD;
        __syncthreads();
        tc_shared_sort<true>(scratch, size, threadIdx.x, TC_BLOCK_SIZE);
        int written = 0;  // the same in every thread
        for (int i0 = 0; i0 < len; i0 += TC_BLOCK_SIZE) {
            const int i = i0 + threadIdx.x;
            const bool valid = i < len;
            const value_t v = valid ? scratch[i] : TC_PAD;
            const value_t before = (valid && i > 0) ? scratch[i - 1] : 0u;
            const unsigned int keep =
                __ballot_sync(TC_FULL_MASK, valid && tc_new_rank(v, before, i == 0));
            const unsigned int line = __ballot_sync(TC_FULL_MASK, valid && (i == 0 || v != before));
            if (lane == 0) {
                warp_keep[warp] = __popc(keep);
                lines += __popc(line);
            }
            __syncthreads();
            int below = 0, chunk = 0;
            for (int w = 0; w < TC_WARPS_PER_BLOCK; ++w) {
                below += w < warp ? (int)warp_keep[w] : 0;
                chunk += (int)warp_keep[w];
            }
            if (valid && ((keep >> lane) & 1u))
                row[written + below + __popc(keep & tc_lanes_below(lane))] = v >> 1;
            written += chunk;
            __syncthreads();  // warp_keep is rewritten by the next chunk
        }
        if (threadIdx.x == 0) kept[r] = written;
        __syncthreads();  // the next row reuses the scratch
    }
    tc_warp_add(lines, directed);
}

// One warp a row: the row's kept ranks to their place in the compact CSR, with the
// row id of each.
extern "C" __global__ void tc_rows_compact(const long long* __restrict__ start,
                                           const long long* __restrict__ indptr, long long n_rows,
                                           const value_t* __restrict__ values,
                                           int* __restrict__ cols, int* __restrict__ rows) {
    const int lane = threadIdx.x % TC_WARP;
    const long long warps = tc_stride() / TC_WARP;
    for (long long r = tc_first_index() / TC_WARP; r < n_rows; r += warps) {
        const long long from = start[r], to = indptr[r], len = indptr[r + 1] - to;
        for (long long i = lane; i < len; i += TC_WARP) {
            cols[to + i] = (int)values[from + i];
            rows[to + i] = (int)r;
        }
    }
}
