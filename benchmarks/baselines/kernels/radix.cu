// radix.cu: Tirpankar & Sundar's two-step count, done level by level:
// Algorithm 1 writes the candidate closing edges E' of all wedges, and
// Algorithm 2 counts |E ∩ E'| by MSD radix bucketing of E and E' together.
//
// Counts: distinct triangles of a simple undirected graph.
// Preconditions: E is the sorted array of 64-bit keys (lo << id_bits) | hi,
// one per undirected edge, lo < hi by id; the wedges come from a DAG of
// common.cuh (degree orientation by default), rows sorted by id.
// Counted once: a wedge v <- u -> w with v < w both in N+(u) is one E' key
// (v, w); it closes a triangle iff (v, w) is in E. The triangle a < b < c
// (orientation order) has exactly one wedge at its first vertex a, so each
// triangle adds one match. E has distinct keys, so a key of E' matches at most
// one element of E, and equal keys of E' (one pair closing wedges at several
// centres) are distinct triangles, each counted.
//
// Algorithm 1 (tc_radix_wedges): a warp per oriented edge e = u -> v at
// position p in row u writes the pairs (v, N+(u)[q]) for q > p at the
// exclusive offset the launcher scanned from the per-edge pair counts, lanes
// on consecutive q, so the writes are coalesced and no two warps write the
// same place (the EREW offsets of the paper's line 9). The launcher cuts the
// edges into batches whose pairs fit in device memory.
//
// Algorithm 2, one level per launch group instead of dynamic parallelism
// (the paper's conclusion asks for an iterative version): a segment is a
// bucket of keys sharing their top bits, with its slice of E and of E'. At
// each level every live segment splits on the next TC_RADIX_BITS bits:
//   tc_radix_split_e   E is sorted, so its stable MOVE is the identity; the
//                      child buckets are found by binary search (E's COUNT).
//   tc_radix_histogram a block per tile of E' counts its digits (COUNT).
//   (launcher)         scans the tile-by-digit counts (INC_SUM_SCAN), drops
//                      buckets empty on either side, marks a child "leaf" when
//                      either side has at most `threshold` keys, else "live".
//   tc_radix_move      a block per tile moves live keys to their child bucket
//                      at scanned offsets, stably (warp match + per-warp
//                      counts, no atomics: exclusive writes), and counts each
//                      leaf key by binary search in its child's slice of E
//                      (SEQ_INTERSECT_CNT).
// At the last level every key is fully known, so no bucket stays live.
// Load balancing: tiles of a fixed number of keys, whatever the bucket sizes.
// Source: N. Tirpankar and H. Sundar, "Towards triangle counting on GPU using
// stable radix binning", HPEC 2018 (Algorithms 1 and 2).

#ifndef TC_BLOCK_SIZE
#define TC_BLOCK_SIZE 256
#endif

#ifndef TC_RADIX_BITS
#define TC_RADIX_BITS 8  // 256 buckets per level
#endif

#include "lab.cuh"

typedef unsigned long long radix_key_t;  // (lo << id_bits) | hi

#define TC_DIGITS (1 << TC_RADIX_BITS)
#define TC_STATUS_PRUNED 0
#define TC_STATUS_LEAF 1
#define TC_STATUS_LIVE 2

// Algorithm 1, line 10: every wedge of every edge in [e_begin, e_end), as a
// (lo, hi) key at out[pair_offset[e] - out_base + ...].
extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE)
tc_radix_wedges(const offset_t* __restrict__ indptr, const vertex_t* __restrict__ rows,
                const vertex_t* __restrict__ cols, offset_t e_begin, offset_t e_end,
                const offset_t* __restrict__ pair_offset, offset_t out_base, int id_bits,
                radix_key_t* __restrict__ out) {
    const int lane = threadIdx.x % TC_WARP;
    const offset_t n_warps = (offset_t)gridDim.x * TC_WARPS_PER_BLOCK;
    for (offset_t e = e_begin + (offset_t)blockIdx.x * TC_WARPS_PER_BLOCK + threadIdx.x / TC_WARP;
         e < e_end; e += n_warps) {
        const offset_t row_end = indptr[rows[e] + 1];
        const radix_key_t lo = (radix_key_t)cols[e] << id_bits;  // cols[q] > cols[e] for q > e: rows sorted
        const offset_t first = pair_offset[e] - out_base - (e + 1);  // + q gives the slot of q
        for (offset_t q = e + 1 + lane; q < row_end; q += TC_WARP) out[first + q] = lo | (radix_key_t)cols[q];
    }
}

// E's side of COUNT for every live segment s: bounds[s][d] = first position in
// E[e_begin[s], e_end[s]) whose bucket at this level is >= d, for d = 0..DIGITS.
extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE)
tc_radix_split_e(const radix_key_t* __restrict__ edges, const radix_key_t* __restrict__ pairs,
                 const offset_t* __restrict__ seg_pair_begin, const offset_t* __restrict__ seg_edge_begin,
                 const offset_t* __restrict__ seg_edge_end, offset_t n_segments, int shift,
                 offset_t* __restrict__ bounds) {
    const offset_t n_items = n_segments * (TC_DIGITS + 1);
    const offset_t stride = (offset_t)gridDim.x * TC_BLOCK_SIZE;
    for (offset_t t = (offset_t)blockIdx.x * TC_BLOCK_SIZE + threadIdx.x; t < n_items; t += stride) {
        const offset_t s = t / (TC_DIGITS + 1);
        const radix_key_t d = (radix_key_t)(t % (TC_DIGITS + 1));
        // Every key of the segment shares the bits above this level's digit.
        const radix_key_t prefix = pairs[seg_pair_begin[s]] >> (shift + TC_RADIX_BITS);
        const radix_key_t target = (prefix << TC_RADIX_BITS) + d;
        offset_t lo = seg_edge_begin[s], hi = seg_edge_end[s];
        while (lo < hi) {
            const offset_t mid = lo + (hi - lo) / 2;
            if ((edges[mid] >> shift) < target) lo = mid + 1; else hi = mid;
        }
        bounds[t] = lo;
    }
}

// E''s side of COUNT: hist[t][d] = keys of tile t whose digit is d.
extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE)
tc_radix_histogram(const radix_key_t* __restrict__ pairs, const offset_t* __restrict__ tile_begin,
                   const offset_t* __restrict__ tile_end, offset_t n_tiles, int shift,
                   int* __restrict__ hist) {
    __shared__ int counts[TC_DIGITS];
    for (offset_t t = blockIdx.x; t < n_tiles; t += gridDim.x) {
        for (int d = threadIdx.x; d < TC_DIGITS; d += TC_BLOCK_SIZE) counts[d] = 0;
        __syncthreads();
        for (offset_t p = tile_begin[t] + threadIdx.x; p < tile_end[t]; p += TC_BLOCK_SIZE)
            atomicAdd(&counts[(pairs[p] >> shift) & (TC_DIGITS - 1)], 1);
        __syncthreads();
        for (int d = threadIdx.x; d < TC_DIGITS; d += TC_BLOCK_SIZE) hist[t * TC_DIGITS + d] = counts[d];
        __syncthreads();  // counts are read before the next tile zeroes them
    }
}

// MOVE live keys of each tile to their child bucket (stable, exclusive writes)
// and count leaf keys against E. status and bounds are indexed by segment.
extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE)
tc_radix_move(const radix_key_t* __restrict__ pairs, radix_key_t* __restrict__ moved,
              const radix_key_t* __restrict__ edges, const offset_t* __restrict__ tile_segment,
              const offset_t* __restrict__ tile_begin, const offset_t* __restrict__ tile_end,
              offset_t n_tiles, int shift, const int* __restrict__ status,
              const offset_t* __restrict__ bounds, const offset_t* __restrict__ tile_base,
              count_t* __restrict__ result) {
    __shared__ int warp_counts[TC_WARPS_PER_BLOCK][TC_DIGITS];
    __shared__ int cursor[TC_DIGITS];  // live keys of each digit already placed from this tile
    const int lane = threadIdx.x % TC_WARP, warp = threadIdx.x / TC_WARP;
    const unsigned int lanes_before = (1u << lane) - 1u;
    count_t found = 0;
    for (offset_t t = blockIdx.x; t < n_tiles; t += gridDim.x) {
        const offset_t s = tile_segment[t];
        for (int d = threadIdx.x; d < TC_DIGITS; d += TC_BLOCK_SIZE) cursor[d] = 0;
        for (offset_t start = tile_begin[t]; start < tile_end[t]; start += TC_BLOCK_SIZE) {
            const offset_t p = start + threadIdx.x;
            const bool valid = p < tile_end[t];
            const radix_key_t key = valid ? pairs[p] : 0ull;
            const int digit = (int)((key >> shift) & (TC_DIGITS - 1));
            const int state = valid ? status[s * TC_DIGITS + digit] : TC_STATUS_PRUNED;
            if (state == TC_STATUS_LEAF) {
                offset_t lo = bounds[s * (TC_DIGITS + 1) + digit];
                offset_t hi = bounds[s * (TC_DIGITS + 1) + digit + 1];
                while (lo < hi) {
                    const offset_t mid = lo + (hi - lo) / 2;
                    if (edges[mid] < key) lo = mid + 1; else hi = mid;
                }
                found += (lo < bounds[s * (TC_DIGITS + 1) + digit + 1] && edges[lo] == key);
            }
            // Rank among this warp's live keys of the same digit (stable order).
            const unsigned int group = state == TC_STATUS_LIVE ? (unsigned int)digit : 0xffffffffu;
            const unsigned int peers = __match_any_sync(TC_FULL_MASK, group);
            for (int i = threadIdx.x; i < TC_WARPS_PER_BLOCK * TC_DIGITS; i += TC_BLOCK_SIZE)
                (&warp_counts[0][0])[i] = 0;
            __syncthreads();
            if (state == TC_STATUS_LIVE && (peers & lanes_before) == 0u)
                warp_counts[warp][digit] = __popc(peers);
            __syncthreads();
            // Per digit: exclusive scan over the warps, continuing the tile's cursor.
            for (int d = threadIdx.x; d < TC_DIGITS; d += TC_BLOCK_SIZE) {
                int running = cursor[d];
                for (int w = 0; w < TC_WARPS_PER_BLOCK; ++w) {
                    const int c = warp_counts[w][d];
                    warp_counts[w][d] = running;
                    running += c;
                }
                cursor[d] = running;
            }
            __syncthreads();
            if (state == TC_STATUS_LIVE)
                moved[tile_base[t * TC_DIGITS + digit] + warp_counts[warp][digit] +
                      __popc(peers & lanes_before)] = key;
            __syncthreads();  // warp_counts are read before the next round zeroes them
        }
    }
    tc_block_add(found, result);
}
