// bitmap.cu: Bisson & Fatica's bitmap intersection, as Iakovidis §8 describes
// it: a block marks the out-neighbours of one vertex in a bitmap, then probes
// the second-hop lists against it.
//
// Counts: distinct triangles of a simple undirected graph.
// Preconditions: the DAG of common.cuh; every bitmap word is zero at launch,
// and the kernel leaves it zero.
// Counted once: with anchor a marked, the block tests every w in N+(b) for
// every b in N+(a); w is marked iff a -> w, so each triangle a < b < c
// (orientation order) is found once, from its first vertex a, at b.
// Block: claims the next TC_BITMAP_CLAIM anchors through an atomic counter
// and takes them one by one, skipping those with fewer than two out-neighbours
// (they close no triangle). For anchor u it sets the bits of N+(u)
// (atomicOr, since threads may share a word), synchronizes, then warp k
// takes the out-neighbours v = N+(u)[k], N+(u)[k + W], ... and its lanes probe
// N+(v) 32 at a time with one bit test each; finally the block clears only the
// words it set. That is sum over u -> v of d+(v) probes, each one load.
// Load balancing: anchors are handed out a few at a time through the counter,
// so a block that drew a heavy anchor does not hold back the others.
// tc_bitmap_shared: the bitmap (n bits) lives in shared memory, zeroed once
//   per block, for graphs small enough (B&F's shared-memory block kernel).
// tc_bitmap_global: each block owns a slice of `bitmaps` in global memory
//   (n bits each), for any n (Iakovidis: "a bitarray stored in global memory").
// Sources: M. Bisson and M. Fatica, "Static graph challenge on GPU", HPEC
// 2017, and its 2018 update; I. Iakovidis, "Finding the number of triangles in
// a graph" (2019), §8.

#ifndef TC_BLOCK_SIZE
#define TC_BLOCK_SIZE 128
#endif

#ifndef TC_BITMAP_CLAIM
#define TC_BITMAP_CLAIM 16  // anchors per claim: fewer atomics, still fine-grained
#endif

#include "lab.cuh"

__device__ __forceinline__ void tc_bitmap_anchors(const offset_t* __restrict__ indptr,
                                                  const vertex_t* __restrict__ cols,
                                                  offset_t n_vertices, unsigned int* bits,
                                                  unsigned long long* __restrict__ next_anchor,
                                                  count_t* __restrict__ result) {
    __shared__ offset_t claimed;
    const int lane = threadIdx.x % TC_WARP, warp = threadIdx.x / TC_WARP;
    count_t found = 0;
    for (;;) {
        if (threadIdx.x == 0) claimed = (offset_t)atomicAdd(next_anchor, (unsigned long long)TC_BITMAP_CLAIM);
        __syncthreads();
        const offset_t first = claimed;
        __syncthreads();  // all threads read `claimed` before thread 0 may rewrite it
        if (first >= n_vertices) break;  // uniform across the block
        const offset_t last = tc_min(first + TC_BITMAP_CLAIM, n_vertices);
        for (offset_t u = first; u < last; ++u) {
            const offset_t ub = indptr[u], ue = indptr[u + 1];
            if (ue - ub < 2) continue;  // uniform: every thread has the same u
            for (offset_t i = ub + threadIdx.x; i < ue; i += TC_BLOCK_SIZE) {
                const vertex_t w = cols[i];
                atomicOr(&bits[w >> 5], 1u << (w & 31));
            }
            __syncthreads();
            for (offset_t i = ub + warp; i < ue; i += TC_WARPS_PER_BLOCK) {
                const vertex_t v = cols[i];
                const offset_t ve = indptr[v + 1];
                for (offset_t j = indptr[v] + lane; j < ve; j += TC_WARP) {
                    const vertex_t w = cols[j];
                    found += (bits[w >> 5] >> (w & 31)) & 1u;
                }
            }
            __syncthreads();
            for (offset_t i = ub + threadIdx.x; i < ue; i += TC_BLOCK_SIZE) bits[cols[i] >> 5] = 0u;
            __syncthreads();  // cleared before the next anchor's bits are set
        }
    }
    tc_block_add(found, result);
}

extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE)
tc_bitmap_shared(const offset_t* __restrict__ indptr, const vertex_t* __restrict__ cols,
                 offset_t n_vertices, offset_t n_words, unsigned long long* __restrict__ next_anchor,
                 count_t* __restrict__ result) {
    extern __shared__ unsigned int shared_bits[];  // n_words words, sized by the launcher
    for (offset_t i = threadIdx.x; i < n_words; i += TC_BLOCK_SIZE) shared_bits[i] = 0u;
    __syncthreads();
    tc_bitmap_anchors(indptr, cols, n_vertices, shared_bits, next_anchor, result);
}

extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE)
tc_bitmap_global(const offset_t* __restrict__ indptr, const vertex_t* __restrict__ cols,
                 offset_t n_vertices, offset_t n_words, unsigned int* __restrict__ bitmaps,
                 unsigned long long* __restrict__ next_anchor, count_t* __restrict__ result) {
    unsigned int* bits = bitmaps + (offset_t)blockIdx.x * n_words;  // this block's slice, all zero
    tc_bitmap_anchors(indptr, cols, n_vertices, bits, next_anchor, result);
}
