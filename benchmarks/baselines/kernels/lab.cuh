// lab.cuh: what the lab kernels share (benchmarks/baselines/kernels): the
// set intersections of the published methods tricount compares against.
//
// Polak's two-pointer merge (merge.cu, dynamic.cu, shared.cu), Pearson et
// al.'s binary searches by a thread and by a warp (binary.cu, dynamic.cu),
// the thread-per-edge schedule of merge.cu and binary.cu, and a float warp sum
// (dynamic.cu). Built on the package's common.cuh; the production kernels use
// none of it.

#ifndef TRICOUNT_LAB_CUH
#define TRICOUNT_LAB_CUH

#include "common.cuh"

__device__ __forceinline__ float tc_warp_sum_float(float value) {
    for (int delta = TC_WARP / 2; delta > 0; delta /= 2)
        value += __shfl_xor_sync(TC_FULL_MASK, value, delta);
    return value;
}

// |a ∩ b| for sorted lists a[0 .. na) and b[0 .. nb): Polak's two-pointer merge
// with one read per step (§III-D.3): only the side that moved is re-read.
// The read index is clamped to the list's last element, so the read after a
// list ends stays in bounds; the loop ends before that value is compared.
__device__ __forceinline__ count_t tc_merge_count(const vertex_t* __restrict__ a, offset_t na,
                                                  const vertex_t* __restrict__ b, offset_t nb) {
    if (na <= 0 || nb <= 0) return 0;
    count_t found = 0;
    offset_t i = 0, j = 0;
    const offset_t a_last = na - 1, b_last = nb - 1;
    vertex_t x = a[0], y = b[0];
    while (i < na && j < nb) {
        const bool step_a = x <= y, step_b = x >= y;
        if (step_a) x = a[tc_min(++i, a_last)];
        if (step_b) y = b[tc_min(++j, b_last)];
        found += (step_a && step_b);
    }
    return found;
}

// |a ∩ b| by searching each element of the shorter list in the longer one
// (Pearson et al. §II-D.2): na·log2(nb) reads. The short list is sorted, so
// each search starts where the previous one stopped.
__device__ __forceinline__ count_t tc_binary_count(const vertex_t* __restrict__ a, offset_t na,
                                                   const vertex_t* __restrict__ b, offset_t nb) {
    if (na > nb) { const vertex_t* t = a; a = b; b = t; offset_t tn = na; na = nb; nb = tn; }
    count_t found = 0;
    offset_t lo = 0;
    for (offset_t i = 0; i < na && lo < nb; ++i) {
        const vertex_t key = a[i];
        lo = tc_lower_bound(b, lo, nb, key);
        found += (lo < nb && b[lo] == key);
    }
    return found;
}

// The warp's share of |a ∩ b| (Pearson's WARPBINCNT): lane k searches the
// elements k, k+32, ... of the shorter list in the whole longer list. Lanes
// return partial counts; the caller sums them.
__device__ __forceinline__ count_t tc_warp_binary_count(const vertex_t* __restrict__ a, offset_t na,
                                                        const vertex_t* __restrict__ b, offset_t nb,
                                                        int lane) {
    if (na > nb) { const vertex_t* t = a; a = b; b = t; offset_t tn = na; na = nb; nb = tn; }
    count_t found = 0;
    for (offset_t i = lane; i < na; i += TC_WARP) {
        const vertex_t key = a[i];
        const offset_t p = tc_lower_bound(b, 0, nb, key);
        found += (p < nb && b[p] == key);
    }
    return found;
}

// One thread per oriented edge u -> v, grid-stride: the sum over the thread's
// edges of count_pair(N+(u), d+(u), N+(v), d+(v)) (the merge and binary-thread
// kernels; count_pair is one of the intersections above).
template <class CountPair>
__device__ __forceinline__ count_t tc_thread_per_edge_sum(const offset_t* __restrict__ indptr,
                                                          const vertex_t* __restrict__ rows,
                                                          const vertex_t* __restrict__ cols,
                                                          offset_t n_edges, CountPair count_pair) {
    count_t found = 0;
    const offset_t stride = (offset_t)gridDim.x * TC_BLOCK_SIZE;
    for (offset_t e = (offset_t)blockIdx.x * TC_BLOCK_SIZE + threadIdx.x; e < n_edges; e += stride) {
        const vertex_t u = rows[e], v = cols[e];
        const offset_t ub = indptr[u], vb = indptr[v];
        found += count_pair(cols + ub, indptr[u + 1] - ub, cols + vb, indptr[v + 1] - vb);
    }
    return found;
}

#endif  // TRICOUNT_LAB_CUH
