// local.cuh: what the per-vertex, edge-support and truss kernels share, and
// the edge loop under triangle_visit.cuh's directed and weighted ones.
//
// The schedule: a *group* of TC_GROUP_SIZE lanes (a power of two, at most a
// warp) takes one edge at a time, striding over the edges of the grid. The
// lanes split the shorter of the two neighbour lists: lane k takes entries
// k, k + G, k + 2G, ... and binary-searches each in the longer list (Pearson
// et al.'s WARPBINCNT, narrowed to a group so that short lists, the common
// case under degree orientation, do not leave most of a warp idle). Each
// lane's keys increase, so its searches start where its last one stopped.
// Edge ids: TC_EDGE_T (int while the graph has fewer than 2^31 edges; the
// launcher passes "long long" otherwise).
//
// Only CUDA built-ins are used, so every kernel file compiles alone under
// nvcc -c and under NVRTC (the loader pastes this file in place).

#ifndef TRICOUNT_LOCAL_CUH
#define TRICOUNT_LOCAL_CUH

#ifndef TC_BLOCK_SIZE
#define TC_BLOCK_SIZE 256
#endif

#include "common.cuh"

#ifndef TC_GROUP_SIZE
#define TC_GROUP_SIZE 8  // not yet measured; the launchers pass their own
#endif

#if TC_GROUP_SIZE < 1 || TC_GROUP_SIZE > 32 || (TC_GROUP_SIZE & (TC_GROUP_SIZE - 1)) != 0
#error "TC_GROUP_SIZE must be a power of two in 1 .. 32"
#endif

#ifndef TC_EDGE_T
#define TC_EDGE_T int
#endif

typedef TC_EDGE_T edge_t;

#define TC_GROUPS_PER_WARP (TC_WARP / TC_GROUP_SIZE)

// Sum of `value` over the lane's group; every lane of the group gets it.
// All 32 lanes of the warp must call it together (full-mask shuffle).
__device__ __forceinline__ count_t tc_group_sum(count_t value) {
    for (int delta = TC_GROUP_SIZE / 2; delta > 0; delta /= 2)
        value += __shfl_xor_sync(TC_FULL_MASK, value, delta, TC_GROUP_SIZE);
    return value;
}

// The lane's share of short ∩ long: visit(i, p) for every entry short[i] that
// equals long[p]. Both lists are sorted and hold no repeats.
template <class Visit>
__device__ __forceinline__ void tc_group_intersect(const vertex_t* __restrict__ short_list,
                                                   offset_t n_short,
                                                   const vertex_t* __restrict__ long_list,
                                                   offset_t n_long, int lane, Visit visit) {
    offset_t lo = 0;
    for (offset_t i = lane; i < n_short && lo < n_long; i += TC_GROUP_SIZE) {
        const vertex_t key = short_list[i];
        lo = tc_lower_bound(long_list, lo, n_long, key);
        if (lo < n_long && long_list[lo] == key) visit(i, lo);
    }
}

// Where the shorter and the longer of N(u), N(v) start in `cols`, and their lengths.
__device__ __forceinline__ void tc_short_long(const offset_t* __restrict__ indptr, vertex_t u,
                                              vertex_t v, offset_t& short_begin, offset_t& n_short,
                                              offset_t& long_begin, offset_t& n_long) {
    const offset_t ub = indptr[u], un = indptr[u + 1] - ub;
    const offset_t vb = indptr[v], vn = indptr[v + 1] - vb;
    const bool u_short = un <= vn;
    short_begin = u_short ? ub : vb;
    n_short = u_short ? un : vn;
    long_begin = u_short ? vb : ub;
    n_long = u_short ? vn : un;
}

// The edge loop of every oriented-edge kernel (tc_group_per_edge below,
// tc_visit_triangles in triangle_visit.cuh): a group per oriented edge
// e = u -> v of [e_begin, e_end), grid-stride. For an edge of the range,
// edge(e, u, v, short_begin, n_short, long_begin, n_long) runs on the group's
// lanes (the shorter and the longer of N+(u), N+(v) in `cols`, as
// tc_short_long) and returns the lane's hits; then after(e, u, v, hits) runs
// on every lane on every trip, past the range too (e >= e_end: u = v = 0,
// hits 0), so that it may hold the group's shuffles. The warp's first group
// decides the trip count, so all 32 lanes run the same iterations and a group
// shuffle never splits the warp.
template <class Edge, class After>
__device__ __forceinline__ void tc_group_edges(const offset_t* __restrict__ indptr,
                                               const vertex_t* __restrict__ rows,
                                               const vertex_t* __restrict__ cols,
                                               offset_t e_begin, offset_t e_end, Edge edge,
                                               After after) {
    const offset_t n_groups = (offset_t)gridDim.x * (TC_BLOCK_SIZE / TC_GROUP_SIZE);
    const offset_t warp_first =
        ((offset_t)blockIdx.x * TC_BLOCK_SIZE + (threadIdx.x / TC_WARP) * TC_WARP) / TC_GROUP_SIZE;
    const offset_t in_warp = (threadIdx.x % TC_WARP) / TC_GROUP_SIZE;
    for (offset_t base = e_begin + warp_first; base < e_end; base += n_groups) {
        const offset_t e = base + in_warp;
        count_t found = 0;
        vertex_t u = 0, v = 0;
        if (e < e_end) {
            u = rows[e];
            v = cols[e];
            offset_t short_begin, n_short, long_begin, n_long;
            tc_short_long(indptr, u, v, short_begin, n_short, long_begin, n_long);
            found = edge(e, u, v, short_begin, n_short, long_begin, n_long);
        }
        after(e, u, v, found);
    }
}

// The schedule of the per-vertex and edge-support kernels: tc_group_edges over
// every oriented edge, the lanes splitting the shorter list (tc_group_intersect).
// hit(s, l) runs for every common out-neighbour, found at cols[s] in the
// shorter list and cols[l] in the longer; then one lane of the group calls
// done(e, u, v, hits) when the edge closed any triangle.
template <class Hit, class Done>
__device__ __forceinline__ void tc_group_per_edge(const offset_t* __restrict__ indptr,
                                                  const vertex_t* __restrict__ rows,
                                                  const vertex_t* __restrict__ cols,
                                                  offset_t n_edges, Hit hit, Done done) {
    const int lane = threadIdx.x % TC_GROUP_SIZE;
    tc_group_edges(
        indptr, rows, cols, 0, n_edges,
        [&](offset_t, vertex_t, vertex_t, offset_t short_begin, offset_t n_short,
            offset_t long_begin, offset_t n_long) {
            count_t found = 0;
            tc_group_intersect(cols + short_begin, n_short, cols + long_begin, n_long, lane,
                               [&](offset_t i, offset_t p) {
                                   hit(short_begin + i, long_begin + p);
                                   ++found;
                               });
            return found;
        },
        [&](offset_t e, vertex_t u, vertex_t v, count_t found) {
            found = tc_group_sum(found);
            if (lane == 0 && found != 0ull) done(e, u, v, found);
        });
}

#endif  // TRICOUNT_LOCAL_CUH
