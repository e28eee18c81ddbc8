// per_vertex.cu: the triangles at every vertex, each corner credited once.
//
// Counts: per_vertex[x] = the triangles that contain x, so the array sums to
// 3 × the number of triangles. Counts are 64-bit (count_t) from the first
// atomicAdd: a hub of a large graph lies in more than 2^32 triangles.
// Preconditions: the DAG of common.cuh (COO+CSR, rows sorted, each undirected
// edge once); the launcher passes the degree orientation. `per_vertex` is
// zeroed by the launcher.
// Counted once: the triangle a < b < c (orientation order) is found only from
// the edge a -> b, as the common out-neighbour c. The group that owns a -> b
// credits c once per hit and a and b once each with the number of hits.
// Group: one oriented edge u -> v at a time (grid stride); its lanes split the
// shorter of N+(u), N+(v) and binary-search the longer (local.cuh). A hit adds
// 1 to per_vertex[c] atomically; the group then sums its hits with shuffles
// and one lane adds the sum to per_vertex[u] and per_vertex[v].
// Load balancing: degree orientation bounds every out-list by sqrt(2m); the
// group splits a long pair TC_GROUP_SIZE ways.
// Source: Pearson et al., "Update on triangle counting on GPU", HPEC 2019
// (binary-search intersection per warp); Polak, IPDPS Workshops 2016
// (orientation, edge-parallel COO+CSR).

#include "local.cuh"

extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE)
tc_per_vertex(TC_COO_CSR_ARGS, count_t* __restrict__ per_vertex) {
    tc_group_per_edge(
        indptr, rows, cols, n_edges,
        [&](offset_t s, offset_t) { atomicAdd(per_vertex + cols[s], 1ull); },  // c
        [&](offset_t, vertex_t u, vertex_t v, count_t found) {
            atomicAdd(per_vertex + u, found);
            atomicAdd(per_vertex + v, found);
        });
}
