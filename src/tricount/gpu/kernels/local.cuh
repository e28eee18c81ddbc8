// local.cuh: what the per-vertex, edge-support and truss kernels share.
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

#endif  // TRICOUNT_LOCAL_CUH
