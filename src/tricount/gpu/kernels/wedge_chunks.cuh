// wedge_chunks.cuh: the chunk schedule that wedge.cu and wedge_fp.cu walk.
//
// A warp claims TC_CHUNK consecutive edges with one atomic (work stealing),
// then walks them 32 edges at a time with the helpers of wedge.cuh. Here: the
// tunables of that walk (a file defines its own values first) and the claim.

#ifndef TRICOUNT_WEDGE_CHUNKS_CUH
#define TRICOUNT_WEDGE_CHUNKS_CUH

#ifndef TC_CHUNK
#define TC_CHUNK 64  // edges a warp claims at once
#endif

#ifndef TC_SPAN_SLOTS
#define TC_SPAN_SLOTS 256  // shared slots per warp for the anchors' lists
#endif

#ifndef TC_ID_ORDER
#define TC_ID_ORDER 0  // 1: every edge u -> v has v > u (rank and id orientations)
#endif

#include "wedge.cuh"

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

#endif  // TRICOUNT_WEDGE_CHUNKS_CUH
