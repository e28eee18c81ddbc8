// wedge.cu: wedge-parallel counting, a warp per chunk of consecutive edges
// (tricount's own method, for graphs of short out-lists).
//
// Counts: distinct triangles of a simple undirected graph.
// Preconditions: the DAG of common.cuh (COO+CSR; any acyclic orientation).
// Counted once: a wedge is (u -> v, w) with w in N+(v); it closes a
// triangle when w is also in N+(u). A triangle a < b < c (orientation order)
// has the wedges (a -> b, c), closed; (a -> c, ·) and (b -> c, ·) would need
// b in N+(c) or a in N+(b), which the DAG forbids. So every triangle is found
// exactly once, from the edge a -> b, and each wedge belongs to one edge,
// which lies in one chunk.
// Warp: claims the next TC_CHUNK consecutive edges (one atomic per chunk:
// work stealing). Their anchors u are consecutive vertices, so the anchors'
// out-lists are one contiguous span of `cols`; when the span fits
// TC_SPAN_SLOTS it is copied into the warp's shared memory. Then, 32 edges at
// a time (lane k: edge k), each lane reads the bounds of N+(v) for its edge,
// the warp prefix-sums the list lengths, and the lanes walk the batch's
// wedges together: lane k takes wedges k, k + 32, ..., finds the edge a
// wedge belongs to by a binary search over the lanes' prefix sums (shuffles),
// loads w (consecutive lanes read consecutive elements of the same list:
// coalesced) and binary-searches it in N+(u): in the shared copy or, when the
// span did not fit, in global memory. TC_UNROLL loads are in flight per lane
// before the searches. With TC_ID_ORDER (the orientation follows the ids, as
// "rank" and "id" do) w > v, so only the part of N+(u) after v is searched.
// Every lane is busy however short the lists are, which is the point: on a
// flat graph (out-lists of ~16) a thread or a warp per edge leaves most
// lanes idle or waits on one short list at a time. The loop is issue-bound
// (Nsight Compute, docs/gpu.md): a shared-memory hash table of the span
// instead of the sorted copy was measured slower (lanes
// diverge on probe chains).
// Work: Σ over edges u -> v of d+(v) wedges, each one 4-byte load of w plus
// at most log2 d+(u) shared loads; the loads of N+(v) are the DRAM traffic.
// Source: the wedge-parallel mapping of WeTriC (Spaan, Chen, Bader,
// Varbanescu, Euro-Par 2025), whose code is not public; this schedule (edge
// chunks, anchors' span on chip, shuffle search) is ours.

#include "wedge_chunks.cuh"

// Span positions travel as 16-bit halves of one word.
#if TC_SPAN_SLOTS < 1 || TC_SPAN_SLOTS > 65535
#error "TC_SPAN_SLOTS must be in 1 .. 65535"
#endif

// The last lane j with start[j] <= t (start is nondecreasing over the lanes,
// start[0] = 0 <= t). Every lane must call it (shuffles).
__device__ __forceinline__ int tc_owner_lane(edge_t start, edge_t t) {
    int j = 0;
#pragma unroll
    for (int step = TC_WARP / 2; step > 0; step /= 2) {
        const edge_t s = __shfl_sync(TC_FULL_MASK, start, j + step);
        if (s <= t) j += step;
    }
    return j;
}

// This lane's closed wedges among edges [lo, hi) of one chunk (at most 32
// edges: lane k takes edge lo + k). ON_CHIP: N+(u) is searched in the
// span's shared copy `own` (positions relative to span_lo); else in cols.
// The count is 32-bit: a lane probes at most 32 lists per batch.
template <bool ON_CHIP>
__device__ __forceinline__ unsigned tc_batch_count(const edge_t* __restrict__ indptr,
                                                   const vertex_t* __restrict__ rows,
                                                   const vertex_t* __restrict__ cols,
                                                   offset_t lo, offset_t hi, int lane,
                                                   const vertex_t* own, edge_t span_lo) {
    const offset_t e = lo + lane;
    edge_t anchor_lo = 0, anchor_hi = 0, list_lo = 0, length = 0;
    if (e < hi) {
        const vertex_t u = rows[e], v = cols[e];
        // w in N+(u) ∩ N+(v) comes after v in N+(u) when the order is the ids'.
        anchor_lo = TC_ID_ORDER ? (edge_t)e + 1 : indptr[u];
        anchor_hi = indptr[u + 1];
        if (anchor_hi - anchor_lo >= (TC_ID_ORDER ? 1 : 2)) {  // else nothing can close
            list_lo = indptr[v];
            length = indptr[v + 1] - list_lo;
        }
    }
    // On chip, u's part of the span travels as one word: 16-bit positions.
    const unsigned anchor_local = ON_CHIP
        ? (unsigned)(anchor_lo - span_lo) | ((unsigned)(anchor_hi - span_lo) << 16) : 0u;
    const edge_t inclusive = tc_warp_inclusive_sum(length, lane);
    const edge_t start = inclusive - length;
    // Wedge t of this lane's edge is cols[t + shift] (unsigned wrap-around is fine).
    const edge_t shift_to_list = list_lo - start;
    const edge_t total = __shfl_sync(TC_FULL_MASK, inclusive, TC_WARP - 1);
    unsigned found = 0;
    for (edge_t base = 0; base < total; base += (edge_t)TC_UNROLL * TC_WARP) {
        vertex_t w[TC_UNROLL];
        int from[TC_UNROLL];
#pragma unroll
        for (int k = 0; k < TC_UNROLL; ++k) {
            const edge_t t = base + (edge_t)k * TC_WARP + lane;
            from[k] = tc_owner_lane(start, t);
            const edge_t at = t + __shfl_sync(TC_FULL_MASK, shift_to_list, from[k]);
            w[k] = t < total ? cols[at] : (vertex_t)-1;
        }
#pragma unroll
        for (int k = 0; k < TC_UNROLL; ++k) {
            if (ON_CHIP) {
                const unsigned range = __shfl_sync(TC_FULL_MASK, anchor_local, from[k]);
                if (w[k] < 0) continue;  // past the batch's last wedge (ids are >= 0)
                found += tc_sorted_has(own, range & 0xffffu, range >> 16, w[k]);
            } else {
                const edge_t a_lo = __shfl_sync(TC_FULL_MASK, anchor_lo, from[k]);
                const edge_t a_hi = __shfl_sync(TC_FULL_MASK, anchor_hi, from[k]);
                if (w[k] < 0) continue;
                found += tc_sorted_has(cols, a_lo, a_hi, w[k]);
            }
        }
    }
    return found;
}

extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE, TC_MIN_BLOCKS)
tc_wedge(const edge_t* __restrict__ indptr, const vertex_t* __restrict__ rows,
         const vertex_t* __restrict__ cols, offset_t n_edges,
         unsigned long long* __restrict__ next_chunk, count_t* __restrict__ result) {
    // Dynamic shared memory: TC_SPAN_SLOTS vertex slots per warp.
    extern __shared__ __align__(8) unsigned char tc_wedge_shared[];
    const int lane = threadIdx.x % TC_WARP;
    vertex_t* own = (vertex_t*)tc_wedge_shared + (threadIdx.x / TC_WARP) * TC_SPAN_SLOTS;
    count_t found = 0;
    for (;;) {
        const offset_t lo = tc_claim_chunk(next_chunk, lane);
        if (lo >= n_edges) break;  // uniform across the warp
        const offset_t hi = tc_min(lo + TC_CHUNK, n_edges);
        // The anchors' lists: from the first anchor's first edge to the last
        // anchor's last edge (a chunk may start or end inside a list).
        const edge_t span_lo = indptr[rows[lo]], span_hi = indptr[rows[hi - 1] + 1];
        const bool on_chip = span_hi - span_lo <= (edge_t)TC_SPAN_SLOTS;  // uniform
        if (on_chip) {
            for (edge_t i = lane; i < span_hi - span_lo; i += TC_WARP) own[i] = cols[span_lo + i];
            __syncwarp();
        }
        for (offset_t batch = lo; batch < hi; batch += TC_WARP) {
            const offset_t batch_hi = tc_min(batch + TC_WARP, hi);
            found += on_chip
                ? tc_batch_count<true>(indptr, rows, cols, batch, batch_hi, lane, own, span_lo)
                : tc_batch_count<false>(indptr, rows, cols, batch, batch_hi, lane, own, span_lo);
        }
        __syncwarp();  // every search in `own` done before the next chunk overwrites it
    }
    tc_block_add(found, result);
}
