// binary.cu: binary-search intersection (Pearson et al. §II-D.2), per thread
// and per warp.
//
// Counts: distinct triangles of a simple undirected graph.
// Preconditions: the DAG of common.cuh (COO+CSR, rows sorted by id).
// Counted once: for each oriented edge u -> v, |N+(u) ∩ N+(v)| is added once;
// the triangle a < b < c (orientation order) belongs to edge a -> b only.
// Cost: each element of the shorter list is sought in the longer one,
// min·log2(max) reads instead of the merge's d+(u) + d+(v); it wins when the
// two lengths differ a lot (power-law graphs keep such pairs after orienting).
// tc_binary_thread: one thread per edge (grid stride), searching the short
//   list's elements in order, each search starting where the last ended.
// tc_binary_warp: one warp per edge (grid stride over warps); lane k searches
//   elements k, k+32, ... of the short list, so a long pair is split 32 ways
//   and neighbouring lanes probe nearby addresses (Pearson: "adjacent threads'
//   accesses ... to the same or similar locations").
// Block: one atomicAdd of its 64-bit sum (Pearson's BLOCKSUM + ATOMICADD).
// Source: C. Pearson et al., "Update on triangle counting on GPU", HPEC 2019,
// §II-D.2 and §II-E.

#ifndef TC_BLOCK_SIZE
#define TC_BLOCK_SIZE 256
#endif

#include "lab.cuh"

extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE)
tc_binary_thread(TC_COO_CSR_ARGS, count_t* __restrict__ result) {
    tc_block_add(tc_thread_per_edge_sum(indptr, rows, cols, n_edges, tc_binary_count), result);
}

extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE)
tc_binary_warp(TC_COO_CSR_ARGS, count_t* __restrict__ result) {
    count_t found = 0;
    const int lane = threadIdx.x % TC_WARP;
    const offset_t n_warps = (offset_t)gridDim.x * TC_WARPS_PER_BLOCK;
    for (offset_t e = (offset_t)blockIdx.x * TC_WARPS_PER_BLOCK + threadIdx.x / TC_WARP; e < n_edges;
         e += n_warps) {
        // e is the same in every lane: the whole warp works on one edge.
        const vertex_t u = rows[e], v = cols[e];
        const offset_t ub = indptr[u], vb = indptr[v];
        found += tc_warp_binary_count(cols + ub, indptr[u + 1] - ub, cols + vb, indptr[v + 1] - vb, lane);
    }
    tc_block_add(found, result);
}
