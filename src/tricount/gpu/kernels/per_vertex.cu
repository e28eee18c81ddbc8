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

#ifndef TC_BLOCK_SIZE
#define TC_BLOCK_SIZE 256
#endif

#include "local.cuh"

extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE)
tc_per_vertex(const offset_t* __restrict__ indptr, const vertex_t* __restrict__ rows,
              const vertex_t* __restrict__ cols, offset_t n_edges,
              count_t* __restrict__ per_vertex) {
    const int lane = threadIdx.x % TC_GROUP_SIZE;
    const offset_t n_groups = (offset_t)gridDim.x * (TC_BLOCK_SIZE / TC_GROUP_SIZE);
    // The warp's first group decides the trip count, so all 32 lanes run the
    // same iterations and the group shuffle never splits the warp.
    const offset_t warp_first =
        ((offset_t)blockIdx.x * TC_BLOCK_SIZE + (threadIdx.x / TC_WARP) * TC_WARP) / TC_GROUP_SIZE;
    const offset_t in_warp = (threadIdx.x % TC_WARP) / TC_GROUP_SIZE;
    for (offset_t base = warp_first; base < n_edges; base += n_groups) {
        const offset_t e = base + in_warp;
        count_t found = 0;
        vertex_t u = 0, v = 0;
        if (e < n_edges) {
            u = rows[e];
            v = cols[e];
            const offset_t ub = indptr[u], un = indptr[u + 1] - ub;
            const offset_t vb = indptr[v], vn = indptr[v + 1] - vb;
            const bool u_short = un <= vn;
            const vertex_t* short_list = cols + (u_short ? ub : vb);
            tc_group_intersect(short_list, u_short ? un : vn, cols + (u_short ? vb : ub),
                               u_short ? vn : un, lane, [&](offset_t i, offset_t) {
                                   atomicAdd(per_vertex + short_list[i], 1ull);
                                   ++found;
                               });
        }
        found = tc_group_sum(found);
        if (lane == 0 && found != 0ull) {
            atomicAdd(per_vertex + u, found);
            atomicAdd(per_vertex + v, found);
        }
    }
}
