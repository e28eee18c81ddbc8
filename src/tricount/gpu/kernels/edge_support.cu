// edge_support.cu: the triangles on every edge (its support).
//
// Counts: support[e] = the triangles that contain edge e, indexed by position
// in the oriented CSR; the array sums to 3 × the number of triangles. 64-bit
// counters (count_t), zeroed by the launcher.
// Preconditions: the DAG of common.cuh (COO+CSR, rows sorted, each undirected
// edge once); the launcher passes the degree orientation and maps positions
// back to the graph's edge order.
// Counted once: the triangle a < b < c (orientation order) is found only from
// the edge a -> b, as the common out-neighbour c. The search stands at c's
// position in row a (the edge a -> c) and in row b (the edge b -> c), so the
// group credits all three edges without another search.
// Group: one oriented edge u -> v at a time (grid stride); its lanes split the
// shorter of N+(u), N+(v) and binary-search the longer (local.cuh). A hit adds
// 1 to the two edges that reach c, atomically (other groups credit the same
// edges); the group sums its hits and one lane adds the sum to u -> v.
// Load balancing: as per_vertex.cu.
// Source: Pearson et al., HPEC 2019 (binary-search intersection per warp);
// Wang & Cheng, VLDB 2012 (support as the first step of truss decomposition).

#ifndef TC_BLOCK_SIZE
#define TC_BLOCK_SIZE 256
#endif

#include "local.cuh"

extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE)
tc_edge_support(const offset_t* __restrict__ indptr, const vertex_t* __restrict__ rows,
                const vertex_t* __restrict__ cols, offset_t n_edges,
                count_t* __restrict__ support) {
    const int lane = threadIdx.x % TC_GROUP_SIZE;
    const offset_t n_groups = (offset_t)gridDim.x * (TC_BLOCK_SIZE / TC_GROUP_SIZE);
    // Warp-uniform trip count, as in per_vertex.cu.
    const offset_t warp_first =
        ((offset_t)blockIdx.x * TC_BLOCK_SIZE + (threadIdx.x / TC_WARP) * TC_WARP) / TC_GROUP_SIZE;
    const offset_t in_warp = (threadIdx.x % TC_WARP) / TC_GROUP_SIZE;
    for (offset_t base = warp_first; base < n_edges; base += n_groups) {
        const offset_t e = base + in_warp;
        count_t found = 0;
        if (e < n_edges) {
            const vertex_t u = rows[e], v = cols[e];
            const offset_t ub = indptr[u], un = indptr[u + 1] - ub;
            const offset_t vb = indptr[v], vn = indptr[v + 1] - vb;
            const bool u_short = un <= vn;
            const offset_t short_begin = u_short ? ub : vb, long_begin = u_short ? vb : ub;
            tc_group_intersect(cols + short_begin, u_short ? un : vn, cols + long_begin,
                               u_short ? vn : un, lane, [&](offset_t i, offset_t p) {
                                   atomicAdd(support + short_begin + i, 1ull);  // u -> c or v -> c
                                   atomicAdd(support + long_begin + p, 1ull);   // the other one
                                   ++found;
                               });
        }
        found = tc_group_sum(found);
        if (lane == 0 && found != 0ull) atomicAdd(support + e, found);
    }
}
