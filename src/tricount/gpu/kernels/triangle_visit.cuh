// triangle_visit.cuh: each triangle handed to a visitor with its three edges.
//
// What the directed and weighted kernels share: the schedule of local.cuh (a
// group of TC_GROUP_SIZE lanes per oriented edge u -> v, grid stride, the
// lanes splitting the shorter of N+(u), N+(v) and binary-searching the longer),
// but the visitor learns more than a position: the edge e, its ends u and v,
// and where the third vertex c sits in row u (the edge u -> c) and in row v
// (the edge v -> c). (The listing runs the hash count's sets instead:
// listing.cu.)
// Counted once: under any acyclic orientation the triangle a < b < c is found
// only from the edge a -> b (common.cuh), so the visitor sees it once, with
// u = a, v = b, and c above both.

#ifndef TRICOUNT_TRIANGLE_VISIT_CUH
#define TRICOUNT_TRIANGLE_VISIT_CUH

#include "local.cuh"

// For every oriented edge e = u -> v in [e_begin, e_end) (one group each, grid
// stride: local.cuh's tc_group_edges): visit(e, u, v, pu, pv) for every
// c = cols[pu] = cols[pv] in N+(u) ∩ N+(v), pu in row u and pv in row v, on
// the lane that found it.
template <class Visit>
__device__ __forceinline__ void tc_visit_triangles(const offset_t* __restrict__ indptr,
                                                   const vertex_t* __restrict__ rows,
                                                   const vertex_t* __restrict__ cols,
                                                   offset_t e_begin, offset_t e_end,
                                                   Visit visit) {
    const int lane = threadIdx.x % TC_GROUP_SIZE;
    tc_group_edges(
        indptr, rows, cols, e_begin, e_end,
        [&](offset_t e, vertex_t u, vertex_t v, offset_t short_begin, offset_t n_short,
            offset_t long_begin, offset_t n_long) {
            const bool u_short = short_begin == indptr[u] && n_short == indptr[u + 1] - indptr[u];
            tc_group_intersect(cols + short_begin, n_short, cols + long_begin, n_long, lane,
                               [&](offset_t i, offset_t p) {
                                   const offset_t ps = short_begin + i, pl = long_begin + p;
                                   visit(e, u, v, u_short ? ps : pl, u_short ? pl : ps);
                               });
            return (count_t)0;
        },
        [](offset_t, vertex_t, vertex_t, count_t) {});
}

#endif  // TRICOUNT_TRIANGLE_VISIT_CUH
