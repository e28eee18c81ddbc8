// bitwedge.cu: the wedges of a pair list, cut into tasks of equal cost, each
// wedge closed by one bit test against a bitmap of the table vertex's
// out-list (tricount's own method, for graphs whose n-bit bitmaps fit on chip).
//
// Counts: distinct triangles of a simple undirected graph.
// Preconditions: the DAG of common.cuh; a list of *pairs* (x_p, y_p), grouped
// by x (all pairs of one x consecutive), each pair an oriented edge between x
// and y given to exactly one of its ends, with work_p > 0 wedges: the first
// work_p entries of N+(y_p), among which is every w that closes a triangle
// with that edge. `before` is the exclusive running sum of the work. Tasks
// are ranges of pairs (task k: task_first[k] .. task_first[k + 1]), cut by the
// launcher so that wedges, pairs and changes of x cost about the same in each.
// The launcher builds the pairs either from the edges u -> v themselves
// (x = u, y = v, work d+(v)) or from hash's owner plan (x = the end with the
// longer out-list, y the other).
// Counted once: pair p adds |N+(x_p) ∩ N+(y_p)|: a common out-neighbour w of
// the edge's ends is the third vertex of exactly one triangle, and a triangle
// a < b < c in orientation order has only a -> b with c in both lists. Every
// pair lies in exactly one task.
// Warp: takes tasks k, k + W, k + 2W, ... (W warps in the grid). It reads a
// task's pairs 32 at a time (lane j: pair first + j, with the bounds of N+(x)
// and N+(y)), and for each run of lanes with the same x: if the warp's bitmap
// does not hold N+(x) yet, it clears the old vertex's bits (each lane's first
// entry kept in a register, the rest reloaded) and sets x's (one atomicOr per
// entry); then the lanes walk the run's wedges together, lane i taking wedges
// base + i, base + i + 32, ... The pair a wedge belongs to is found without a
// search: the lanes whose first wedge falls in the current window of 32 mark
// one bit each, one warp-wide OR gathers them, and a population count below
// the lane gives the pair (every pair has work > 0, so first wedges are
// distinct). Each wedge is one load of w from N+(y) -- consecutive lanes read
// consecutive entries -- and one bit test. TC_UNROLL windows' loads are in
// flight before their tests.
// Bitmaps: n bits per warp, in shared memory (TC_ON_CHIP) or in the warp's
// slice of a global array (all zero at launch, left zero at exit).
// Work: Σ work_p wedges, one 4-byte load and one bit test each, plus d+(x)
// atomics and stores each time the bitmap changes vertex.

#ifndef TC_BLOCK_SIZE
#define TC_BLOCK_SIZE 256
#endif

#ifndef TC_UNROLL
#define TC_UNROLL 4  // windows of 32 wedges whose loads are in flight together
#endif

#ifndef TC_MIN_BLOCKS
#define TC_MIN_BLOCKS 1  // __launch_bounds__ minimum resident blocks
#endif

#ifndef TC_ON_CHIP
#define TC_ON_CHIP 1  // 1: bitmaps in shared memory; 0: in global memory
#endif

#ifndef TC_SET_BATCH
#define TC_SET_BATCH 4  // list entries per lane loaded together when setting bits
#endif

// Positions of pairs and of list entries (edge_t): 32-bit unsigned when the
// launcher knows they are below 2^31.
#include "wedge.cuh"

// Wedge positions (values of `before`): 32-bit unsigned when the total fits.
#ifndef TC_WEDGE_T
#define TC_WEDGE_T unsigned long long
#endif
typedef TC_WEDGE_T wedge_t;

#if TC_UNROLL < 1 || TC_UNROLL > 8
#error "TC_UNROLL must be in 1 .. 8"
#endif

// Sets the bits of N+(x) = cols[lo, hi) in `bits`. TC_SET_BATCH entries per
// lane are loaded before their atomics, so their loads overlap.
__device__ __forceinline__ void tc_set_list(unsigned* bits, const vertex_t* __restrict__ cols,
                                            edge_t lo, edge_t hi, int lane) {
    for (edge_t i = lo + lane; i < hi; i += (edge_t)TC_SET_BATCH * TC_WARP) {
        vertex_t w[TC_SET_BATCH];
#pragma unroll
        for (int k = 0; k < TC_SET_BATCH; ++k) {
            const edge_t at = i + (edge_t)k * TC_WARP;
            w[k] = at < hi ? cols[at] : (vertex_t)-1;
        }
#pragma unroll
        for (int k = 0; k < TC_SET_BATCH; ++k) {
            if (w[k] >= 0) atomicOr(&bits[w[k] >> 5], 1u << (w[k] & 31));
        }
    }
}

// Clears what tc_set_list set, storing whole zero words (the bitmap holds no
// other vertex's bits). `first` is this lane's first entry (or -1), kept in a
// register since the set: lists of up to 32 entries need no reload.
__device__ __forceinline__ void tc_clear_list(unsigned* bits, const vertex_t* __restrict__ cols,
                                              edge_t lo, edge_t hi, int lane, vertex_t first) {
    if (first >= 0) bits[first >> 5] = 0u;
    for (edge_t i = lo + TC_WARP + lane; i < hi; i += TC_WARP) bits[cols[i] >> 5] = 0u;
}

__device__ __forceinline__ unsigned tc_test_bit(const unsigned* bits, vertex_t w) {
#if TC_ON_CHIP
    const unsigned word = bits[w >> 5];
#else
    const unsigned word = __ldcg(bits + (w >> 5));  // set by atomics in L2: skip L1
#endif
    return (word >> (w & 31)) & 1u;
}

extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE, TC_MIN_BLOCKS)
tc_bitwedge(const edge_t* __restrict__ indptr, const vertex_t* __restrict__ cols,
            const vertex_t* __restrict__ pair_table, const vertex_t* __restrict__ pair_probe,
            const wedge_t* __restrict__ before, const edge_t* __restrict__ task_first,
            offset_t n_tasks, offset_t n_words, unsigned* __restrict__ global_bits,
            count_t* __restrict__ result) {
    const int lane = threadIdx.x % TC_WARP;
    const offset_t warp_id = ((offset_t)blockIdx.x * TC_BLOCK_SIZE + threadIdx.x) / TC_WARP;
    const offset_t n_warps = (offset_t)gridDim.x * TC_WARPS_PER_BLOCK;
#if TC_ON_CHIP
    extern __shared__ unsigned tc_bitwedge_shared[];
    unsigned* bits = tc_bitwedge_shared + (threadIdx.x / TC_WARP) * n_words;
    for (offset_t i = lane; i < n_words; i += TC_WARP) bits[i] = 0u;
    __syncwarp();
#else
    unsigned* bits = global_bits + warp_id * n_words;
#endif
    const unsigned at_or_below = (2u << lane) - 1u;  // lanes 0 .. lane (all 32 at lane 31)
    // The vertex whose out-list the bitmap holds (-1: none), its list, and
    // this lane's first entry of it.
    vertex_t loaded = -1, loaded_first = -1;
    edge_t loaded_lo = 0, loaded_hi = 0;
    count_t found = 0;
    for (offset_t task = warp_id; task < n_tasks; task += n_warps) {
        const edge_t p_lo = task_first[task], p_hi = task_first[task + 1];
        if (p_lo == p_hi) continue;  // uniform: an empty task
        const wedge_t hi = before[p_hi];
        for (edge_t first = p_lo; first < p_hi; first += TC_WARP) {
            // Lane j: pair first + j; pairs past the task are empty (start = end = hi).
            const edge_t p = first + lane;
            wedge_t start = hi, end = hi;
            vertex_t x = -1;
            edge_t shift = 0, x_lo = 0, x_hi = 0;  // wedge t is cols[t + shift]
            if (p < p_hi) {
                start = before[p];
                end = before[p + 1];
                x = pair_table[p];
                const vertex_t y = pair_probe[p];
                x_lo = indptr[x];
                x_hi = indptr[x + 1];
                shift = indptr[y] - (edge_t)start;
            }
            const unsigned live = __ballot_sync(TC_FULL_MASK, p < p_hi);  // lanes 0 .. k-1
            const vertex_t x_before = __shfl_up_sync(TC_FULL_MASK, x, 1);
            unsigned runs = __ballot_sync(TC_FULL_MASK, p < p_hi && (lane == 0 || x != x_before));
            while (runs) {  // uniform: every lane sees the same masks
                const int r = __ffs(runs) - 1;
                runs &= runs - 1;
                const int r_last = (runs ? __ffs(runs) - 1 : 32 - __clz(live)) - 1;
                const vertex_t xr = __shfl_sync(TC_FULL_MASK, x, r);
                const wedge_t run_lo = __shfl_sync(TC_FULL_MASK, start, r);
                const wedge_t run_hi = __shfl_sync(TC_FULL_MASK, end, r_last);
                if (xr != loaded) {
                    __syncwarp();  // every test of the old bits done
                    if (loaded >= 0) tc_clear_list(bits, cols, loaded_lo, loaded_hi, lane, loaded_first);
                    loaded = xr;
                    loaded_lo = __shfl_sync(TC_FULL_MASK, x_lo, r);
                    loaded_hi = __shfl_sync(TC_FULL_MASK, x_hi, r);
                    loaded_first = loaded_lo + lane < loaded_hi ? cols[loaded_lo + lane] : (vertex_t)-1;
                    __syncwarp();  // cleared before any new bit is set
                    if (loaded_first >= 0) atomicOr(&bits[loaded_first >> 5], 1u << (loaded_first & 31));
                    tc_set_list(bits, cols, loaded_lo + TC_WARP, loaded_hi, lane);
                    __syncwarp();
                }
                int pairs_before = r;  // live lanes whose first wedge is below the window
                unsigned run_found = 0;  // at most one per window: below 2^32
                for (wedge_t base = run_lo; base < run_hi; base += (wedge_t)TC_UNROLL * TC_WARP) {
                    vertex_t w[TC_UNROLL];
#pragma unroll
                    for (int k = 0; k < TC_UNROLL; ++k) {
                        const wedge_t window = base + (wedge_t)k * TC_WARP;
                        const int owner = tc_round_owner(p < p_hi, start, window, at_or_below,
                                                         pairs_before);
                        const wedge_t t = window + lane;
                        const edge_t at = (edge_t)t + __shfl_sync(TC_FULL_MASK, shift, owner & 31);
                        w[k] = t < run_hi ? cols[at] : (vertex_t)-1;
                    }
#pragma unroll
                    for (int k = 0; k < TC_UNROLL; ++k) {
                        if (w[k] >= 0) run_found += tc_test_bit(bits, w[k]);
                    }
                }
                found += run_found;
            }
        }
    }
#if !TC_ON_CHIP
    __syncwarp();
    if (loaded >= 0) tc_clear_list(bits, cols, loaded_lo, loaded_hi, lane, loaded_first);
#endif
    tc_block_add(found, result);
}
