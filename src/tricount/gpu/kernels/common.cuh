// common.cuh: types and device helpers shared by every counting kernel.
//
// What lives here: the index and count types, the reductions that fold a
// thread's count into the one global 64-bit counter, the arguments of an
// edge-parallel kernel, and the binary search that several methods reuse.
// Nothing here decides how work is split; each kernel file does. (The lab
// kernels' intersections are in benchmarks/baselines/kernels/lab.cuh.)
//
// Preconditions every kernel shares: the graph is a DAG in COO+CSR form,
// `indptr` (offset_t, n+1 entries), `rows` (COO source of every edge) and
// `cols` (vertex_t, each row sorted by increasing id, no repeats), with each
// undirected edge stored once. Any acyclic orientation counts each triangle
// once: the triangle {a, b, c} with a < b < c in the orientation order is
// found only from the edge a -> b, as the common out-neighbour c.
//
// Only CUDA built-ins are used (no headers), so a file compiles alone under
// nvcc -c and under NVRTC, where the loader pastes this file in its place.

#ifndef TRICOUNT_COMMON_CUH
#define TRICOUNT_COMMON_CUH

#ifndef TC_BLOCK_SIZE
#error "define TC_BLOCK_SIZE (threads per block) before including common.cuh"
#endif

#if TC_BLOCK_SIZE % 32 != 0 || TC_BLOCK_SIZE < 32 || TC_BLOCK_SIZE > 1024
#error "TC_BLOCK_SIZE must be a multiple of 32 in 32 .. 1024"
#endif

// Vertex ids: int while every id fits in 31 bits (the loader passes
// -DTC_VERTEX_T="long long" otherwise).
#ifndef TC_VERTEX_T
#define TC_VERTEX_T int
#endif

typedef TC_VERTEX_T vertex_t;
// Edge positions are 64-bit: a graph may hold more than 2^31 stored edges.
typedef long long offset_t;
// Counts are 64-bit unsigned from the first increment to the host: graph500
// scale 24 alone has about 10^10 triangles, past 2^32.
typedef unsigned long long count_t;

#define TC_WARP 32
#define TC_FULL_MASK 0xffffffffu
#define TC_WARPS_PER_BLOCK (TC_BLOCK_SIZE / TC_WARP)

// The arguments an edge-parallel kernel starts with: the DAG as COO+CSR and its
// number of edges.
#define TC_COO_CSR_ARGS                                                       \
    const offset_t* __restrict__ indptr, const vertex_t* __restrict__ rows, \
        const vertex_t* __restrict__ cols, offset_t n_edges

__device__ __forceinline__ offset_t tc_min(offset_t a, offset_t b) { return a < b ? a : b; }
__device__ __forceinline__ offset_t tc_max(offset_t a, offset_t b) { return a > b ? a : b; }

// Sum of `value` over the warp; every lane gets the sum (butterfly).
__device__ __forceinline__ count_t tc_warp_sum(count_t value) {
    for (int delta = TC_WARP / 2; delta > 0; delta /= 2)
        value += __shfl_xor_sync(TC_FULL_MASK, value, delta);
    return value;
}

// Add every thread's `value` into *result with one atomicAdd per block.
// Must be reached by all TC_BLOCK_SIZE threads of the block (it synchronizes).
__device__ __forceinline__ void tc_block_add(count_t value, count_t* result) {
    __shared__ count_t warp_sums[TC_WARPS_PER_BLOCK];
    const int lane = threadIdx.x % TC_WARP, warp = threadIdx.x / TC_WARP;
    value = tc_warp_sum(value);
    if (lane == 0) warp_sums[warp] = value;
    __syncthreads();
    if (warp == 0) {
        value = lane < TC_WARPS_PER_BLOCK ? warp_sums[lane] : 0ull;
        value = tc_warp_sum(value);
        if (lane == 0 && value != 0ull) atomicAdd(result, value);
    }
}

// T itself, in a context that template deduction ignores (lo takes hi's type).
template <class T> struct tc_same { typedef T type; };

// First position p in [lo, hi) with list[p] >= key (hi when none). Index is
// offset_t for global lists, a narrower type for shared-memory ones; Value is
// vertex_t except for wedge_fp.cu's 16-bit fingerprints.
template <class Index, class Value>
__device__ __forceinline__ Index tc_lower_bound(const Value* __restrict__ list,
                                                typename tc_same<Index>::type lo, Index hi,
                                                typename tc_same<Value>::type key) {
    while (lo < hi) {
        const Index mid = lo + (hi - lo) / 2;
        if (list[mid] < key) lo = mid + 1; else hi = mid;
    }
    return lo;
}

// 1 when key is in the sorted list[lo .. hi).
template <class Index>
__device__ __forceinline__ unsigned tc_sorted_has(const vertex_t* __restrict__ list,
                                                  typename tc_same<Index>::type lo, Index hi,
                                                  vertex_t key) {
    const Index p = tc_lower_bound(list, lo, hi, key);
    return p < hi && list[p] == key ? 1u : 0u;
}

#endif  // TRICOUNT_COMMON_CUH
