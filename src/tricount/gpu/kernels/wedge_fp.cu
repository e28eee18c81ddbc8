// wedge_fp.cu: wedge-parallel counting over 16-bit fingerprints of the
// out-lists (the wedge method's layout for short lists; wedge.cu is the
// plain one).
//
// Counts: distinct triangles of a simple undirected graph.
// Preconditions: the DAG of common.cuh (COO+CSR; any acyclic orientation),
// plus the layout that tc_wedge_fp_layout writes from it:
//   fp    every out-list again, each entry w as its fingerprint w >> shift
//         (the top 16 bits of the ids), each list starting at a multiple of
//         TC_ALIGN entries, so that a list of up to 16 entries is one 32-byte
//         sector (padding entries are never read);
//   meta  for each edge u -> v, where N+(v) starts in fp (in units of
//         TC_ALIGN entries) and its length, in one word of TC_META_T:
//         (start / TC_ALIGN) << TC_LEN_BITS | d+(v).
// Counted once: as in wedge.cu, a wedge is (u -> v, w) with w in N+(v) and
// closes a triangle when w is also in N+(u); the triangle a < b < c
// (orientation order) is found only from the edge a -> b, and each wedge
// belongs to one edge, which lies in one chunk. A fingerprint match is only a
// candidate: unless shift is 0, it is confirmed by comparing the full ids
// (cols), so a collision never counts.
// Why: on a flat graph (uniform random, 2^24 vertices) wedge.cu moves about
// 117 bytes per edge from DRAM: the two indptr words of v (a random 32-byte
// sector) and N+(v) as 4-byte ids at any alignment (2.2 sectors). Here an
// edge costs its meta word (read in order), and N+(v) as aligned 2-byte
// fingerprints (1.2 sectors): about 50 bytes (benchmarks/results/wedge_traffic_er22.md).
// Warp: claims the next TC_CHUNK consecutive edges (one atomic per chunk:
// work stealing). Their anchors' lists are one contiguous span of cols; when
// it fits TC_SPAN_SLOTS its fingerprints are copied into the warp's shared
// memory. Then, 32 edges at a time, the edges whose wedges can close are
// packed into slots 0 .. k-1, the warp prefix-sums their list lengths, and
// the lanes walk the wedges together: lane i takes wedges i, i + 32, ....
// A round's owners come from one warp-wide OR of the slots' start bits (the
// heads of the round's segments) and a population count, not a search; the
// lane loads w's fingerprint (consecutive lanes read consecutive entries:
// coalesced) and binary-searches it in N+(u)'s shared fingerprints. When the
// chunk's anchors are at most TC_FILTER_ANCHORS consecutive vertices, each
// anchor also gets a filter in shared memory, a bitmap of TC_FILTER_BITS set
// at its fingerprints' low bits; a wedge whose bit is clear skips the search
// (most do: 16 fingerprints set about 1 % of 2048 bits), which cut the
// executed instructions on the uniform graph from 10.5 to 7.8 G. With
// TC_EDGE_LANES such a filtered chunk is walked a lane per edge instead
// (tc_fp_edge_lane; 4.6 G instructions). When the span did not fit shared
// memory, the batch reads full ids through indptr and searches cols, as
// wedge.cu does, one load at a time. With TC_ID_ORDER (the orientation follows
// the ids) w > v, so only the part of N+(u) after v is searched.
// Bound (Nsight Compute, docs/gpu.md): with a lane per edge, DRAM's
// random reads: each edge reads N+(v) at a random place, 2.4 DRAM sectors per
// edge, and the H100 serves 23-32 G such reads per second however many are in
// flight (benchmarks/results/random_reads_h100.md): 8.4 ms (32-byte lists) to
// 11.6 ms (64-byte) for the uniform graph's 268 M edges; the kernel takes 9.6.

#ifndef TC_FILTER_ANCHORS
#define TC_FILTER_ANCHORS 8  // anchors per chunk that get a filter (0: no filter)
#endif

#ifndef TC_FILTER_BITS
#define TC_FILTER_BITS 2048  // bits of each anchor's filter
#endif

#ifndef TC_ALIGN
#define TC_ALIGN 16  // fp entries per unit of a list's start
#endif

#ifndef TC_LEN_BITS
#define TC_LEN_BITS 8  // bits of meta holding d+(v)
#endif

#ifndef TC_META_T
#define TC_META_T unsigned int
#endif

#ifndef TC_EDGE_LANES
#define TC_EDGE_LANES 1  // 1: filtered chunks walk a lane per edge (tc_fp_edge_lane)
#endif

#ifndef TC_UNROLL
#define TC_UNROLL 3  // wedge loads in flight per lane
#endif

#ifndef TC_MIN_BLOCKS
#define TC_MIN_BLOCKS 6  // __launch_bounds__ minimum resident blocks
#endif

#include "wedge_chunks.cuh"

typedef TC_META_T meta_t;
typedef unsigned short fp_t;

// Span positions travel as two 12-bit fields of one word, beside the anchor.
#if TC_SPAN_SLOTS < 1 || TC_SPAN_SLOTS > 4095
#error "TC_SPAN_SLOTS must be in 1 .. 4095"
#endif
#if TC_FILTER_ANCHORS < 0 || TC_FILTER_ANCHORS > 255
#error "TC_FILTER_ANCHORS must be in 0 .. 255"
#endif
#if TC_FILTER_BITS < 32 || TC_FILTER_BITS > 65536 || (TC_FILTER_BITS & (TC_FILTER_BITS - 1)) != 0
#error "TC_FILTER_BITS must be a power of two in 32 .. 65536"
#endif
#define TC_FILTER_WORDS (TC_FILTER_BITS / 32)
#if TC_LEN_BITS < 1 || TC_LEN_BITS > 40
#error "TC_LEN_BITS must be in 1 .. 40"
#endif

// The per-warp shared memory: the span's fingerprints; for each slot of the
// batch its edge and the first wedge index (read when a fingerprint match is
// confirmed); the anchors' filters.
#define TC_SPAN_BYTES ((TC_SPAN_SLOTS * 2 + 7) / 8 * 8)
#define TC_SLOT_BYTES (2 * TC_WARP * sizeof(edge_t))
#define TC_FILTER_BYTES (TC_FILTER_ANCHORS * TC_FILTER_WORDS * 4)
#define TC_WARP_SHARED_BYTES (TC_SPAN_BYTES + TC_SLOT_BYTES + TC_FILTER_BYTES)

// The filter bit of fingerprint `print` for the anchor at `anchor` (word, bit).
__device__ __forceinline__ unsigned tc_filter_word(unsigned anchor, unsigned print) {
    return anchor * TC_FILTER_WORDS + (print / 32 & (TC_FILTER_WORDS - 1));
}

// 1 when the full id of wedge t, whose fingerprint matched own[p], is in
// N+(u): compares w with every anchor entry from p on that has the same
// fingerprint. The slot's edge and first wedge come from shared memory.
__device__ __forceinline__ unsigned tc_fp_confirm(const edge_t* __restrict__ indptr,
                                               const vertex_t* __restrict__ cols,
                                               const fp_t* own, unsigned p, unsigned hi,
                                               fp_t print, edge_t span_lo, edge_t t,
                                               edge_t slot_edge, edge_t slot_start) {
    const vertex_t v = cols[slot_edge];
    const vertex_t w = cols[indptr[v] + (t - slot_start)];
    for (; p < hi && own[p] == print; ++p)
        if (cols[span_lo + p] == w) return 1u;
    return 0u;
}

// This lane's closed wedges among edges [lo, hi) of one chunk (at most 32
// edges). ON_CHIP: fingerprints, searched in the span's shared copy `own`
// (positions relative to span_lo); else full ids through indptr, searched in
// cols. When `filtered` (on chip only; uniform), a fingerprint whose bit is
// clear in its anchor's filter cannot match and skips the search; the anchor
// is u - first_anchor. The count is 32-bit: a lane probes at most 32 lists
// per batch. Off chip, one load at a time: less code for the rare path.
template <bool ON_CHIP>
__device__ __forceinline__ unsigned tc_fp_batch(const edge_t* __restrict__ indptr,
                                                const vertex_t* __restrict__ rows,
                                                const vertex_t* __restrict__ cols,
                                                const fp_t* __restrict__ fp,
                                                const meta_t* __restrict__ meta, int shift,
                                                offset_t lo, offset_t hi, int lane,
                                                const fp_t* own, const unsigned* filter,
                                                edge_t* slot_edges, edge_t* slot_starts,
                                                edge_t span_lo, vertex_t first_anchor,
                                                bool filtered) {
    const offset_t e = lo + lane;
    edge_t anchor_lo = 0, anchor_hi = 0, list_lo = 0, length = 0;
    unsigned anchor = 0;
    if (e < hi) {
        const vertex_t u = rows[e];
        anchor = (unsigned)(u - first_anchor);
        // w in N+(u) ∩ N+(v) comes after v in N+(u) when the order is the ids'.
        anchor_lo = TC_ID_ORDER ? (edge_t)e + 1 : indptr[u];
        anchor_hi = indptr[u + 1];
        if (anchor_hi - anchor_lo >= (TC_ID_ORDER ? 1 : 2)) {  // else nothing can close
            if (ON_CHIP) {
                const meta_t word = meta[e];
                length = (edge_t)(word & (((meta_t)1 << TC_LEN_BITS) - 1));
                list_lo = (edge_t)(word >> TC_LEN_BITS) * TC_ALIGN;
            } else {
                const vertex_t v = cols[e];
                list_lo = indptr[v];
                length = indptr[v + 1] - list_lo;
            }
        }
    }
    // Pack the edges with wedges into slots 0 .. n_slots-1, in edge order, so
    // that the slots' first wedges strictly increase (a head bit each).
    const unsigned busy = __ballot_sync(TC_FULL_MASK, length > 0);
    if (busy == 0u) return 0u;
    const int n_slots = __popc(busy);
    if (length > 0) slot_edges[__popc(busy & (tc_lanemask_le() >> 1))] = (edge_t)e;
    __syncwarp();
    const edge_t my_edge = slot_edges[lane < n_slots ? lane : 0];
    const int from_lane = lane < n_slots ? (int)(my_edge - (edge_t)lo) : 0;
    length = __shfl_sync(TC_FULL_MASK, length, from_lane);
    list_lo = __shfl_sync(TC_FULL_MASK, list_lo, from_lane);
    anchor_lo = __shfl_sync(TC_FULL_MASK, anchor_lo, from_lane);
    anchor_hi = __shfl_sync(TC_FULL_MASK, anchor_hi, from_lane);
    anchor = __shfl_sync(TC_FULL_MASK, anchor, from_lane);
    if (lane >= n_slots) length = 0;
    const edge_t inclusive = tc_warp_inclusive_sum(length, lane);
    const edge_t start = inclusive - length;
    if (ON_CHIP) slot_starts[lane] = start;
    __syncwarp();
    // On chip, u's part of the span and its filter travel as one word: two
    // 12-bit positions and the anchor.
    const unsigned anchor_local = ON_CHIP
        ? (unsigned)(anchor_lo - span_lo) | (unsigned)(anchor_hi - span_lo) << 12
          | anchor << 24
        : 0u;
    // Wedge t of this slot's edge is list[t + shift_to_list] (unsigned wrap-around is fine).
    const edge_t shift_to_list = list_lo - start;
    const edge_t total = __shfl_sync(TC_FULL_MASK, inclusive, TC_WARP - 1);
    const unsigned at_or_below = tc_lanemask_le();
    const bool heads_here = lane < n_slots;
    int before = 0;  // slots whose first wedge lies before this round
    unsigned found = 0;
    constexpr int unroll = ON_CHIP ? TC_UNROLL : 1;
    for (edge_t base = 0; base < total; base += (edge_t)unroll * TC_WARP) {
        // On chip a wedge travels as one word, its slot << 16 | fingerprint
        // (all ones past the batch's last wedge); off chip as (slot, w).
        vertex_t w[unroll];
        int from[unroll];
#pragma unroll
        for (int k = 0; k < unroll; ++k) {
            const edge_t round = base + (edge_t)k * TC_WARP;
            const int slot = tc_round_owner(heads_here && start >= round, start, round,
                                            at_or_below, before);
            const edge_t t = round + lane;
            const edge_t at = t + __shfl_sync(TC_FULL_MASK, shift_to_list, slot);
            if (ON_CHIP) {
                w[k] = t < total ? (vertex_t)((unsigned)slot << 16 | fp[at]) : (vertex_t)-1;
            } else {
                from[k] = slot;
                w[k] = t < total ? cols[at] : (vertex_t)-1;
            }
        }
#pragma unroll
        for (int k = 0; k < unroll; ++k) {
            if (ON_CHIP) {
                const int slot = (int)((unsigned)w[k] >> 16 & 31u);
                const unsigned range = __shfl_sync(TC_FULL_MASK, anchor_local, slot);
                if (w[k] < 0) continue;  // past the batch's last wedge
                const fp_t print = (fp_t)w[k];
                if (filtered && !(filter[tc_filter_word(range >> 24, print)] >> (print % 32) & 1u))
                    continue;  // not in N+(u)
                const unsigned range_hi = range >> 12 & 0xfffu;
                const unsigned p = tc_lower_bound(own, range & 0xfffu, range_hi, print);
                if (p < range_hi && own[p] == print) {
                    const edge_t t = base + (edge_t)k * TC_WARP + lane;
                    found += shift == 0 ? 1u
                        : tc_fp_confirm(indptr, cols, own, p, range_hi, print, span_lo, t,
                                        slot_edges[slot], slot_starts[slot]);
                }
            } else {
                const edge_t a_lo = __shfl_sync(TC_FULL_MASK, anchor_lo, from[k]);
                const edge_t a_hi = __shfl_sync(TC_FULL_MASK, anchor_hi, from[k]);
                if (w[k] < 0) continue;
                found += tc_sorted_has(cols, a_lo, a_hi, w[k]);
            }
        }
    }
    __syncwarp();  // slot_edges and slot_starts read before the next batch writes them
    return found;
}

// Entries 0 .. 31 of the fingerprint list of `length` entries at fp + lo,
// two per word (entry j in the half j % 2 of pairs[j / 2]); entries at or past
// `length` hold anything (a 16-byte load that starts inside the list may read
// the padding after it) and must be masked by the caller.
__device__ __forceinline__ void tc_fp_load32(const fp_t* __restrict__ fp, edge_t lo,
                                             unsigned length, unsigned pairs[16]) {
#if TC_ALIGN % 8 == 0
    // Lists start at multiples of 8 entries and are padded to them, so a
    // 16-byte load that starts inside the list stays inside its padding.
    const uint4* vectors = (const uint4*)(fp + lo);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        uint4 q = make_uint4(0, 0, 0, 0);
        if (8u * i < length) q = __ldg(vectors + i);
        pairs[4 * i] = q.x; pairs[4 * i + 1] = q.y; pairs[4 * i + 2] = q.z; pairs[4 * i + 3] = q.w;
    }
#else
#pragma unroll
    for (int i = 0; i < 16; ++i) {
        const unsigned j = 2u * i;
        pairs[i] = (j < length ? (unsigned)fp[lo + j] : 0u)
            | (j + 1 < length ? (unsigned)fp[lo + j + 1] << 16 : 0u);
    }
#endif
}

__device__ __forceinline__ unsigned tc_fp_entry(const unsigned pairs[16], int j) {
    return pairs[j / 2] >> (16 * (j % 2)) & 0xffffu;
}

// Bit j set when entry j's bit is set in an anchor's filter `bits`.
__device__ __forceinline__ unsigned tc_fp_filter_hits(const unsigned pairs[16],
                                                      const unsigned* bits) {
    unsigned hits = 0;
#pragma unroll
    for (int j = 0; j < 32; ++j) {
        const unsigned print = tc_fp_entry(pairs, j);
        hits |= (bits[tc_filter_word(0u, print)] >> (print % 32) & 1u) << j;
    }
    return hits;
}

// Lane per edge, for filtered chunks (TC_EDGE_LANES): the closed wedges of
// edge e = u -> v, walked by this lane alone. Where tc_fp_batch spends about 58
// warp instructions per round of 32 wedges on owners, loads and the filter
// (the uniform graph, docs/gpu.md), here a lane reads N+(v)'s
// fingerprints 32 at a time (four 16-byte loads from the aligned list) and
// tests each against its anchor's filter with a shift, a shared load and a
// mask; the wedges whose bit is set (about 1 % on the uniform graph) are
// searched in N+(u)'s shared fingerprints and confirmed on the full ids one at
// a time. Lanes idle while a longer list in the warp finishes, which is why
// this is for chunks whose anchors are few, i.e. short lists.
__device__ __forceinline__ unsigned tc_fp_edge_lane(const edge_t* __restrict__ indptr,
                                                    const vertex_t* __restrict__ rows,
                                                    const vertex_t* __restrict__ cols,
                                                    const fp_t* __restrict__ fp,
                                                    const meta_t* __restrict__ meta, int shift,
                                                    offset_t e, const fp_t* own,
                                                    const unsigned* filter, edge_t span_lo,
                                                    vertex_t first_anchor) {
    const vertex_t u = rows[e];
    // w in N+(u) ∩ N+(v) comes after v in N+(u) when the order is the ids'.
    const edge_t anchor_lo = TC_ID_ORDER ? (edge_t)e + 1 : indptr[u];
    const edge_t anchor_hi = indptr[u + 1];
    if (anchor_hi - anchor_lo < (TC_ID_ORDER ? 1 : 2)) return 0u;  // nothing can close
    const meta_t word = meta[e];
    const unsigned length = (unsigned)(word & (((meta_t)1 << TC_LEN_BITS) - 1));
    const edge_t list_lo = (edge_t)(word >> TC_LEN_BITS) * TC_ALIGN;
    const unsigned* bits = filter + (unsigned)(u - first_anchor) * TC_FILTER_WORDS;
    const unsigned own_lo = (unsigned)(anchor_lo - span_lo);
    const unsigned own_hi = (unsigned)(anchor_hi - span_lo);
    unsigned found = 0;
    for (unsigned k = 0; k < length; k += 32) {
        unsigned pairs[16];
        tc_fp_load32(fp, list_lo + k, length - k, pairs);
        unsigned hits = tc_fp_filter_hits(pairs, bits);
        const unsigned rest = length - k;
        if (rest < 32) hits &= (1u << rest) - 1u;
        while (hits != 0u) {  // rare: a set filter bit
            const unsigned j = (unsigned)__ffs(hits) - 1u;
            hits &= hits - 1u;
            const fp_t print = fp[list_lo + k + j];  // not pairs[j / 2]: no local copy
            const unsigned p = tc_lower_bound(own, own_lo, own_hi, print);
            if (p < own_hi && own[p] == print)
                found += shift == 0 ? 1u
                    : tc_fp_confirm(indptr, cols, own, p, own_hi, print, span_lo,
                                    (edge_t)(k + j), (edge_t)e, (edge_t)0);
        }
    }
    return found;
}

extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE, TC_MIN_BLOCKS)
tc_wedge_fp(const edge_t* __restrict__ indptr, const vertex_t* __restrict__ rows,
            const vertex_t* __restrict__ cols, const fp_t* __restrict__ fp,
            const meta_t* __restrict__ meta, int shift, offset_t n_edges,
            unsigned long long* __restrict__ next_chunk, count_t* __restrict__ result) {
    // Dynamic shared memory: TC_WARP_SHARED_BYTES per warp.
    extern __shared__ __align__(8) unsigned char tc_wedge_fp_shared[];
    const int lane = threadIdx.x % TC_WARP;
    unsigned char* mine = tc_wedge_fp_shared + (threadIdx.x / TC_WARP) * TC_WARP_SHARED_BYTES;
    fp_t* own = (fp_t*)mine;
    edge_t* slot_edges = (edge_t*)(mine + TC_SPAN_BYTES);
    edge_t* slot_starts = slot_edges + TC_WARP;
    unsigned* filter = (unsigned*)(mine + TC_SPAN_BYTES + TC_SLOT_BYTES);
    count_t found = 0;
    for (;;) {
        const offset_t lo = tc_claim_chunk(next_chunk, lane);
        if (lo >= n_edges) break;  // uniform across the warp
        const offset_t hi = tc_min(lo + TC_CHUNK, n_edges);
        // The anchors' lists: from the first anchor's first edge to the last
        // anchor's last edge (a chunk may start or end inside a list).
        const vertex_t first_anchor = rows[lo], last_anchor = rows[hi - 1];
        const edge_t span_lo = indptr[first_anchor], span_hi = indptr[last_anchor + 1];
        // Both uniform across the warp.
        const bool on_chip = span_hi - span_lo <= (edge_t)TC_SPAN_SLOTS;
        const bool filtered = on_chip && last_anchor - first_anchor < (vertex_t)TC_FILTER_ANCHORS;
        if (filtered) {
            const int words = (int)(last_anchor - first_anchor + 1) * TC_FILTER_WORDS;
            for (int i = lane; i < words; i += TC_WARP) filter[i] = 0u;
            __syncwarp();
        }
        if (on_chip) {
            for (edge_t i = lane; i < span_hi - span_lo; i += TC_WARP) {
                const fp_t print = (fp_t)(cols[span_lo + i] >> shift);
                own[i] = print;
                if (filtered) {
                    const unsigned anchor = (unsigned)(rows[span_lo + i] - first_anchor);
                    atomicOr(filter + tc_filter_word(anchor, print), 1u << (print % 32));
                }
            }
            __syncwarp();
        }
        if (TC_EDGE_LANES && filtered) {
            for (offset_t e = lo + lane; e < hi; e += TC_WARP)
                found += tc_fp_edge_lane(indptr, rows, cols, fp, meta, shift, e, own, filter,
                                         span_lo, first_anchor);
            __syncwarp();
            continue;
        }
        for (offset_t batch = lo; batch < hi; batch += TC_WARP) {
            const offset_t batch_hi = tc_min(batch + TC_WARP, hi);
            found += on_chip
                ? tc_fp_batch<true>(indptr, rows, cols, fp, meta, shift, batch, batch_hi, lane,
                                    own, filter, slot_edges, slot_starts, span_lo, first_anchor,
                                    filtered)
                : tc_fp_batch<false>(indptr, rows, cols, fp, meta, shift, batch, batch_hi, lane,
                                     own, filter, slot_edges, slot_starts, span_lo, first_anchor,
                                     false);
        }
        __syncwarp();  // every search in `own` done before the next chunk overwrites it
    }
    tc_block_add(found, result);
}

// The layout, one thread per edge u -> v (grid-stride): N+(u)'s entry at
// position e - indptr[u] goes to fp[e + padding[u]] (padding[u] = where N+(u)
// starts in fp minus where it starts in cols), as v's fingerprint, and meta[e]
// is v's word vertex_meta[v]: where N+(v) starts in fp and how long it is.
// One random read per edge (vertex_meta[v]); the rest is in order.
extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE)
tc_wedge_fp_layout(const vertex_t* __restrict__ rows, const vertex_t* __restrict__ cols,
                   const long long* __restrict__ padding,
                   const meta_t* __restrict__ vertex_meta, offset_t n_edges, int shift,
                   fp_t* __restrict__ fp, meta_t* __restrict__ meta) {
    for (offset_t e = blockIdx.x * (offset_t)blockDim.x + threadIdx.x; e < n_edges;
         e += (offset_t)gridDim.x * blockDim.x) {
        const vertex_t u = rows[e], v = cols[e];
        fp[e + padding[u]] = (fp_t)(v >> shift);
        meta[e] = vertex_meta[v];
    }
}
