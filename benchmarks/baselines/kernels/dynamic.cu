// dynamic.cu: Pearson et al.'s edge-oriented dynamic kernel (Algorithm 2):
// persistent warps steal 32 edges at a time and pick, per group, a linear or a
// binary-search intersection by a cost model.
//
// Counts: distinct triangles of a simple undirected graph.
// Preconditions: the DAG of common.cuh (COO+CSR, rows sorted by id).
// Counted once: every oriented edge u -> v is claimed by exactly one warp
// (the atomic counter hands out disjoint groups of 32 edge positions) and
// contributes |N+(u) ∩ N+(v)| once; a triangle a < b < c belongs to a -> b.
// Warp: lane 0 takes the next 32 edges with atomicAdd on a global counter and
// broadcasts the first; lane k loads edge first + k and its two list lengths.
// The warp sums the linear cost (d+(u) + d+(v)) and the binary cost
// sf · min · log2(max) over its 32 edges; if the linear sum is smaller, each
// lane merges its own edge (THSEQCNT, here Polak's loop), else the warp
// searches the 32 edges one after another, all lanes on one edge
// (WARPBINCNT). A larger sf favours the linear path.
// Load balancing: the grid is sized to fill the device once (persistent
// threads); a warp stuck on a long group delays only itself, as the other
// warps keep stealing. Block: one atomicAdd of its 64-bit sum at the end.
// Source: C. Pearson et al., "Update on triangle counting on GPU", HPEC 2019,
// §II-F and Algorithm 2 (sf = 2 chosen in their Fig. 2). The pseudocode's
// exit test "wi > nnz + 32" is read as "no edge left" (wi >= nnz).

#ifndef TC_BLOCK_SIZE
#define TC_BLOCK_SIZE 256
#endif

#include "lab.cuh"

extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE)
tc_dynamic(TC_COO_CSR_ARGS, float sf, unsigned long long* __restrict__ next_edge,
           count_t* __restrict__ result) {
    const int lane = threadIdx.x % TC_WARP;
    count_t found = 0;
    for (;;) {
        unsigned long long first = 0;
        if (lane == 0) first = atomicAdd(next_edge, (unsigned long long)TC_WARP);
        first = __shfl_sync(TC_FULL_MASK, first, 0);
        if ((offset_t)first >= n_edges) break;  // uniform across the warp
        const offset_t e = (offset_t)first + lane;
        offset_t ub = 0, un = 0, vb = 0, vn = 0;
        if (e < n_edges) {
            const vertex_t u = rows[e], v = cols[e];
            ub = indptr[u]; un = indptr[u + 1] - ub;
            vb = indptr[v]; vn = indptr[v + 1] - vb;
        }
        const offset_t shorter = tc_min(un, vn), longer = tc_max(un, vn);
        float linear_cost = (float)(un + vn);
        float binary_cost = shorter > 0 ? sf * (float)shorter * log2f((float)longer) : 0.0f;
        linear_cost = tc_warp_sum_float(linear_cost);  // every lane holds the sums,
        binary_cost = tc_warp_sum_float(binary_cost);  // so the branch is uniform
        if (linear_cost < binary_cost) {
            found += tc_merge_count(cols + ub, un, cols + vb, vn);
        } else {
            for (int k = 0; k < TC_WARP && (offset_t)first + k < n_edges; ++k) {
                const offset_t kb = __shfl_sync(TC_FULL_MASK, ub, k);
                const offset_t kn = __shfl_sync(TC_FULL_MASK, un, k);
                const offset_t lb = __shfl_sync(TC_FULL_MASK, vb, k);
                const offset_t ln = __shfl_sync(TC_FULL_MASK, vn, k);
                found += tc_warp_binary_count(cols + kb, kn, cols + lb, ln, lane);
            }
        }
    }
    tc_block_add(found, result);
}
