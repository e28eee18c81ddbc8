// triangle_visit.cuh: each triangle handed to a visitor with its three edges.
//
// What the listing, directed and weighted kernels share: the schedule of
// local.cuh (a group of TC_GROUP_SIZE lanes per oriented edge u -> v, grid
// stride, the lanes splitting the shorter of N+(u), N+(v) and binary-searching
// the longer), but the visitor learns more than a position: the edge e, its
// ends u and v, where the third vertex c sits in row u (the edge u -> c) and in
// row v (the edge v -> c), and, when asked, c's rank among the common
// out-neighbours of e in increasing id order, so that a writer can place the
// triangles of an edge in a fixed order.
// Counted once: under any acyclic orientation the triangle a < b < c is found
// only from the edge a -> b (common.cuh), so the visitor sees it once, with
// u = a, v = b, and c above both.
// Ranks: the group walks the shorter list in rounds of TC_GROUP_SIZE entries
// (every lane of a group runs the same number of rounds); a ballot over the
// group's lanes orders the hits of a round, a running total orders the rounds.
// Both lists are sorted, so the short list's order is c's increasing order.

#ifndef TRICOUNT_TRIANGLE_VISIT_CUH
#define TRICOUNT_TRIANGLE_VISIT_CUH

#include "local.cuh"

// The lanes of the calling lane's group, as a warp lane mask.
__device__ __forceinline__ unsigned tc_group_lanes() {
#if TC_GROUP_SIZE == TC_WARP
    return TC_FULL_MASK;
#else
    return ((1u << TC_GROUP_SIZE) - 1u) << ((threadIdx.x % TC_WARP) / TC_GROUP_SIZE * TC_GROUP_SIZE);
#endif
}

// For every oriented edge e = u -> v in [e_begin, e_end) (one group each, grid
// stride: local.cuh's tc_group_edges): visit(e, u, v, pu, pv, rank) for every
// c = cols[pu] = cols[pv] in N+(u) ∩ N+(v), pu in row u and pv in row v; rank
// is c's index among the edge's hits when Ranked (else 0). Then lane 0 of the
// group calls done(e, u, v, found) for every edge of the range, found 0
// included.
template <bool Ranked, class Visit, class Done>
__device__ __forceinline__ void tc_visit_triangles(const offset_t* __restrict__ indptr,
                                                   const vertex_t* __restrict__ rows,
                                                   const vertex_t* __restrict__ cols,
                                                   offset_t e_begin, offset_t e_end,
                                                   Visit visit, Done done) {
    const int lane = threadIdx.x % TC_GROUP_SIZE;
    const unsigned group = tc_group_lanes();
    const unsigned lanes_below = (1u << (threadIdx.x % TC_WARP)) - 1u;
    tc_group_edges(
        indptr, rows, cols, e_begin, e_end,
        [&](offset_t e, vertex_t u, vertex_t v, offset_t short_begin, offset_t n_short,
            offset_t long_begin, offset_t n_long) {
            const bool u_short = short_begin == indptr[u] && n_short == indptr[u + 1] - indptr[u];
            count_t found = 0;
            offset_t lo = 0;  // each lane's keys increase: its searches only move right
            for (offset_t round = 0; round < n_short; round += TC_GROUP_SIZE) {
                const offset_t i = round + lane;
                bool hit = false;
                if (i < n_short) {
                    const vertex_t key = cols[short_begin + i];
                    lo = tc_lower_bound(cols + long_begin, lo, n_long, key);
                    hit = lo < n_long && cols[long_begin + lo] == key;
                }
                count_t rank = 0;
                if (Ranked) {
                    // Group-uniform: every lane of the group runs this round.
                    const unsigned hits = __ballot_sync(group, hit) & group;
                    rank = found + __popc(hits & lanes_below);
                    found += __popc(hits);
                } else {
                    found += hit;
                }
                if (hit) {
                    const offset_t ps = short_begin + i, pl = long_begin + lo;
                    visit(e, u, v, u_short ? ps : pl, u_short ? pl : ps, rank);
                }
            }
            return found;
        },
        [&](offset_t e, vertex_t u, vertex_t v, count_t found) {
            if (!Ranked) found = tc_group_sum(found);  // ranked: every lane holds the total
            if (lane == 0 && e < e_end) done(e, u, v, found);
        });
}

// a <= b <= c after the call (three compare-exchanges).
__device__ __forceinline__ void tc_sort3(vertex_t& a, vertex_t& b, vertex_t& c) {
    vertex_t t;
    if (a > b) { t = a; a = b; b = t; }
    if (b > c) { t = b; b = c; c = t; }
    if (a > b) { t = a; a = b; b = t; }
}

#endif  // TRICOUNT_TRIANGLE_VISIT_CUH
