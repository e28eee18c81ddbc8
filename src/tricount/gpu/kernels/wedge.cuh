// wedge.cuh: what the two wedge kernels (wedge.cu, wedge_fp.cu) share.
//
// Both walk the same schedule: a warp claims TC_CHUNK consecutive edges with
// one atomic (work stealing), and 32 edges at a time its lanes walk their
// wedges together, each wedge's edge found from the warp's prefix sum of the
// list lengths. Here: the tunables common to both (a file defines its own
// values first), the edge-position type, the claim and the prefix sum.

#ifndef TRICOUNT_WEDGE_CUH
#define TRICOUNT_WEDGE_CUH

#ifndef TC_BLOCK_SIZE
#define TC_BLOCK_SIZE 256
#endif

#ifndef TC_CHUNK
#define TC_CHUNK 64  // edges a warp claims at once
#endif

#ifndef TC_SPAN_SLOTS
#define TC_SPAN_SLOTS 256  // shared slots per warp for the anchors' lists
#endif

#ifndef TC_ID_ORDER
#define TC_ID_ORDER 0  // 1: every edge u -> v has v > u (rank and id orientations)
#endif

#ifndef TC_UNROLL
#define TC_UNROLL 4  // wedge loads in flight per lane
#endif

#ifndef TC_MIN_BLOCKS
#define TC_MIN_BLOCKS 1  // __launch_bounds__ minimum resident blocks
#endif

#include "common.cuh"

// Edge positions inside the kernels (indptr values, chunk bounds, list
// positions): 32-bit unsigned when the launcher knows every one is below 2^31
// (fewer registers, so more resident warps), else 64-bit.
#ifndef TC_EDGE_T
#define TC_EDGE_T long long
#endif
typedef TC_EDGE_T edge_t;

#if TC_CHUNK < 1
#error "TC_CHUNK must be >= 1"
#endif

// The first edge of the warp's next chunk (the same on every lane; n_edges
// or more once the edges are used up). Every lane must call it (shuffle).
__device__ __forceinline__ offset_t tc_claim_chunk(unsigned long long* next_chunk, int lane) {
    unsigned long long chunk = 0;
    if (lane == 0) chunk = atomicAdd(next_chunk, 1ull);
    chunk = __shfl_sync(TC_FULL_MASK, chunk, 0);
    return (offset_t)chunk * TC_CHUNK;
}

// Inclusive prefix sum over the warp.
__device__ __forceinline__ edge_t tc_warp_inclusive_sum(edge_t value, int lane) {
#pragma unroll
    for (int delta = 1; delta < TC_WARP; delta *= 2) {
        const edge_t other = __shfl_up_sync(TC_FULL_MASK, value, delta);
        if (lane >= delta) value += other;
    }
    return value;
}

#endif  // TRICOUNT_WEDGE_CUH
