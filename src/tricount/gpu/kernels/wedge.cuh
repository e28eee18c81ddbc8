// wedge.cuh: what the wedge-walking kernels (wedge.cu, wedge_fp.cu,
// bitwedge.cu) share.
//
// All three flatten the lists of up to 32 segments (edges or pairs) into one
// run of wedges and let the warp's lanes walk it together, each wedge's
// segment found by the lane mask below. Here: the tunables common to them (a
// file defines its own values first), the edge-position type, the warp's
// prefix sum and the owner of a round's wedges. wedge.cu and wedge_fp.cu also
// walk the same schedule of claimed chunks (wedge_chunks.cuh).

#ifndef TRICOUNT_WEDGE_CUH
#define TRICOUNT_WEDGE_CUH

#ifndef TC_BLOCK_SIZE
#define TC_BLOCK_SIZE 256
#endif

#ifndef TC_UNROLL
#define TC_UNROLL 4  // wedge loads in flight per lane
#endif

#ifndef TC_MIN_BLOCKS
#define TC_MIN_BLOCKS 8  // __launch_bounds__ minimum resident blocks
#endif

#include "common.cuh"

// Edge positions inside the kernels (indptr values, chunk bounds, list
// positions): 32-bit unsigned when the launcher knows every one is below 2^31
// (fewer registers, so more resident warps), else 64-bit.
#ifndef TC_EDGE_T
#define TC_EDGE_T long long
#endif
typedef TC_EDGE_T edge_t;

// Inclusive prefix sum over the warp.
__device__ __forceinline__ edge_t tc_warp_inclusive_sum(edge_t value, int lane) {
#pragma unroll
    for (int delta = 1; delta < TC_WARP; delta *= 2) {
        const edge_t other = __shfl_up_sync(TC_FULL_MASK, value, delta);
        if (lane >= delta) value += other;
    }
    return value;
}

// Lanes 0 .. lane, as a mask.
__device__ __forceinline__ unsigned tc_lanemask_le() {
    unsigned mask;
    asm("mov.u32 %0, %%lanemask_le;" : "=r"(mask));
    return mask;
}

// The segment that wedge round + lane belongs to, for segments held by lanes
// 0 .. k-1 (`live`: this lane holds one) whose first wedges `start` strictly
// increase over the lanes: the last segment starting at or before the wedge.
// Each live segment starting inside [round, round + 32) sets one bit, one
// warp-wide OR gathers them, and the bits in `at_or_below` (lanes 0 .. lane)
// count the segments started so far. `before` counts the live segments
// starting below `round` and is moved past this round, so rounds go in
// increasing order. A signed Position needs `live` false where start < round
// (unsigned ones wrap past 32 there). Every lane must call it (a warp-wide OR).
template <class Position>
__device__ __forceinline__ int tc_round_owner(bool live, Position start, Position round,
                                              unsigned at_or_below, int& before) {
    const Position into = start - round;  // < 32 only for starts in this round
    const unsigned head = live && into < (Position)TC_WARP ? 1u << (unsigned)into : 0u;
    const unsigned heads = __reduce_or_sync(TC_FULL_MASK, head);
    const int owner = before + __popc(heads & at_or_below) - 1;
    before += __popc(heads);
    return owner;
}

#endif  // TRICOUNT_WEDGE_CUH
