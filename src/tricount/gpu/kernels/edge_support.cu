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

#include "local.cuh"

extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE)
tc_edge_support(TC_COO_CSR_ARGS, count_t* __restrict__ support) {
    tc_group_per_edge(
        indptr, rows, cols, n_edges,
        [&](offset_t s, offset_t l) {
            atomicAdd(support + s, 1ull);  // u -> c or v -> c
            atomicAdd(support + l, 1ull);  // the other one
        },
        [&](offset_t e, vertex_t, vertex_t, count_t found) { atomicAdd(support + e, found); });
}
