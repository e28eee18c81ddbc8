// slice.cu: the passes of the memory-bounded preparation (tricount/gpu/sliced.py), and the
// pair stream of a partitioned count (tc_slice_block_pairs, tricount/gpu/apex.py).
//
// Counts nothing. The standard preparation (prep.cu) sorts one 64-bit key per
// edge at once; here the rank orientation and the hash plan are built one
// slice of vertices at a time, so only a slice's keys (and the sort's second
// buffer for them) are alive. Every pass reads the built graph's edge list
// {lo[i], hi[i]} and renames both ends by rank on the fly: no oriented COO
// array is ever stored.
//
// What one thread does: for every index i of its grid-stride range it reads
// edge i, renames it, and either adds one to a per-vertex counter, or places
// the edge in its row of the oriented CSR (tc_slice_scatter), or, when the
// edge belongs to the slice [first, end), appends its key to the slice's
// buffer. Appends are warp-aggregated: one atomic on the slice's cursor per
// warp and round, each taking lane its position by a population count. The
// order of the appended keys is therefore arbitrary; the caller sorts them,
// and since the keys of a slice are distinct (each undirected edge is stored
// once) the sorted slice is the same whatever the order of the appends.
//
// What must hold: every edge belongs to exactly one slice (slices partition
// the vertex range and an edge is keyed by one end, its oriented source or
// its owner), so the slices together hold every oriented edge, and every plan
// pair, exactly once. The caller checks each slice's cursor against the count
// the histogram pass predicted before using the slice.

#ifndef TC_BLOCK_SIZE
#define TC_BLOCK_SIZE 256
#endif

#include "common.cuh"

typedef unsigned long long packed_t;

// Grid-stride rounds that every lane of a warp runs the same number of times
// (the tail lanes run with i >= n_items), so warp votes see all 32 lanes.
__device__ __forceinline__ long long tc_slice_round_start() {
    return (long long)blockIdx.x * blockDim.x + threadIdx.x - (threadIdx.x % TC_WARP);
}

__device__ __forceinline__ long long tc_slice_stride() { return (long long)gridDim.x * blockDim.x; }

// Appends `key` to out[*cursor ...] for every lane with take set; all 32 lanes call it.
__device__ __forceinline__ void tc_slice_append(bool take, packed_t key, packed_t* __restrict__ out,
                                                count_t* __restrict__ cursor) {
    const unsigned mask = __ballot_sync(TC_FULL_MASK, take);
    if (mask == 0u) return;
    const int lane = threadIdx.x % TC_WARP, leader = __ffs(mask) - 1;
    count_t base = 0;
    if (lane == leader) base = atomicAdd(cursor, (count_t)__popc(mask));
    base = __shfl_sync(TC_FULL_MASK, base, leader);
    if (take) out[base + __popc(mask & ((1u << lane) - 1u))] = key;
}

// The oriented edge of {lo[i], hi[i]}: both ends renamed by rank, source the smaller.
__device__ __forceinline__ void tc_slice_oriented(const vertex_t* __restrict__ lo,
                                                  const vertex_t* __restrict__ hi,
                                                  const vertex_t* __restrict__ rank, long long i,
                                                  vertex_t& source, vertex_t& target) {
    const vertex_t a = rank[lo[i]], b = rank[hi[i]];
    source = a < b ? a : b;
    target = a < b ? b : a;
}

// out_degree[source] += 1 for every oriented edge: the oriented graph's row lengths.
extern "C" __global__ void tc_slice_out_degree(const vertex_t* __restrict__ lo,
                                               const vertex_t* __restrict__ hi,
                                               const vertex_t* __restrict__ rank, long long n_edges,
                                               int* __restrict__ out_degree) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n_edges;
         i += tc_slice_stride()) {
        vertex_t source, target;
        tc_slice_oriented(lo, hi, rank, i, source, target);
        atomicAdd(out_degree + source, 1);
    }
}

// Appends key_of's key for every edge i for which key_of(i, key) returns true:
// the loop of every slice pass, in warp-uniform rounds.
template <typename KeyOf>
__device__ __forceinline__ void tc_slice_collect(long long n_edges, KeyOf key_of,
                                                 packed_t* __restrict__ keys,
                                                 count_t* __restrict__ cursor) {
    const int lane = threadIdx.x % TC_WARP;
    for (long long round = tc_slice_round_start(); round < n_edges; round += tc_slice_stride()) {
        const long long i = round + lane;
        packed_t key = 0;
        const bool take = i < n_edges && key_of(i, key);
        tc_slice_append(take, key, keys, cursor);
    }
}

// Keys (source << shift | target) of the oriented edges whose source lies in
// [first, end): sorted, they are those rows of the oriented CSR in order.
extern "C" __global__ void tc_slice_rank_keys(const vertex_t* __restrict__ lo,
                                              const vertex_t* __restrict__ hi,
                                              const vertex_t* __restrict__ rank, long long n_edges,
                                              int shift, long long first, long long end,
                                              packed_t* __restrict__ keys,
                                              count_t* __restrict__ cursor) {
    tc_slice_collect(n_edges, [&](long long i, packed_t& key) {
        vertex_t source, target;
        tc_slice_oriented(lo, hi, rank, i, source, target);
        key = ((packed_t)source << shift) | (packed_t)target;
        return source >= first && source < end;
    }, keys, cursor);
}

// The keys of tc_slice_rank_keys for every edge, each appended to the group of
// the share of ranks its source lies in: share j holds the sources
// [bounds[j], bounds[j + 1]) (bounds[parts] = n), and its group is
// keys[starts[j] ...], filled through cursors[j]. Several devices orienting one
// graph together (tricount/partition/shared_prep.py) each run it over their
// share of the rows and send group j to device j. Appends are aggregated per
// group: the lanes of a warp with the same share take their places with one
// atomic (__match_any_sync), so a round costs at most `parts` atomics.
extern "C" __global__ void tc_slice_rank_keys_by_share(const vertex_t* __restrict__ lo,
                                                       const vertex_t* __restrict__ hi,
                                                       const vertex_t* __restrict__ rank,
                                                       long long n_edges, int shift,
                                                       const long long* __restrict__ bounds,
                                                       int parts,
                                                       const long long* __restrict__ starts,
                                                       packed_t* __restrict__ keys,
                                                       count_t* __restrict__ cursors) {
    const int lane = threadIdx.x % TC_WARP;
    for (long long round = tc_slice_round_start(); round < n_edges; round += tc_slice_stride()) {
        const long long i = round + lane;
        int share = -1;
        packed_t key = 0;
        if (i < n_edges) {
            vertex_t source, target;
            tc_slice_oriented(lo, hi, rank, i, source, target);
            key = ((packed_t)source << shift) | (packed_t)target;
            share = 0;
            while (share + 1 < parts && (long long)source >= bounds[share + 1]) ++share;
        }
        const unsigned group = __match_any_sync(TC_FULL_MASK, share);
        if (share < 0) continue;
        const int leader = __ffs(group) - 1;
        count_t base = 0;
        if (lane == leader) base = atomicAdd(cursors + share, (count_t)__popc(group));
        base = __shfl_sync(group, base, leader);
        keys[starts[share] + (long long)base + __popc(group & ((1u << lane) - 1u))] = key;
    }
}

// The hash plan's owner of the oriented edge source -> target, as in prep.cu's
// tc_prep_plan_keys: the end with the longer out-list (the source on ties);
// false when the edge closes nothing (d+(source) < 2 or d+(target) = 0).
__device__ __forceinline__ bool tc_slice_owner(vertex_t source, vertex_t target,
                                               const int* __restrict__ out_degree,
                                               vertex_t& owner, vertex_t& partner, int& shorter) {
    const int ds = out_degree[source], dt = out_degree[target];
    if (ds < 2 || dt < 1) return false;
    const bool owner_is_source = ds >= dt;
    owner = owner_is_source ? source : target;
    partner = owner_is_source ? target : source;
    shorter = owner_is_source ? dt : ds;
    return true;
}

// pairs[owner] += 1 for every edge the plan keeps: the plan's row lengths.
extern "C" __global__ void tc_slice_owner_pairs(const vertex_t* __restrict__ lo,
                                                const vertex_t* __restrict__ hi,
                                                const vertex_t* __restrict__ rank,
                                                const int* __restrict__ out_degree,
                                                long long n_edges, int* __restrict__ pairs) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n_edges;
         i += tc_slice_stride()) {
        vertex_t source, target, owner, partner;
        int shorter;
        tc_slice_oriented(lo, hi, rank, i, source, target);
        if (tc_slice_owner(source, target, out_degree, owner, partner, shorter))
            atomicAdd(pairs + owner, 1);
    }
}

// Plan keys of the pairs whose owner lies in [first, end), with the owner
// made local to the slice: ((owner - first) << (id_bits + len_bits)) |
// ((max_out - shorter length) << id_bits) | partner. Sorted, they list the
// slice's owners in order and each owner's partners longest first.
extern "C" __global__ void tc_slice_plan_keys(const vertex_t* __restrict__ lo,
                                              const vertex_t* __restrict__ hi,
                                              const vertex_t* __restrict__ rank,
                                              const int* __restrict__ out_degree, long long n_edges,
                                              int id_bits, int len_bits, packed_t max_out,
                                              long long first, long long end,
                                              packed_t* __restrict__ keys,
                                              count_t* __restrict__ cursor) {
    tc_slice_collect(n_edges, [&](long long i, packed_t& key) {
        vertex_t source, target, owner, partner;
        int shorter;
        tc_slice_oriented(lo, hi, rank, i, source, target);
        if (!tc_slice_owner(source, target, out_degree, owner, partner, shorter)
            || owner < first || owner >= end)
            return false;
        key = ((packed_t)(owner - first) << (id_bits + len_bits))
              | ((max_out - (packed_t)shorter) << id_bits) | (packed_t)partner;
        return true;
    }, keys, cursor);
}

// The scattered orientation (tricount/gpu/apex.py, scatter_oriented): every
// oriented edge source -> target is placed at the next free position of its
// source's row, cursor[source] (which starts at the row's offset), so one pass
// over the graph writes the whole rank-ordered CSR, each row's entries in an
// arbitrary order (the rows are sorted afterwards by tc_slice_row_keys' keys).
// Each edge takes one position: after the pass cursor[r] must equal the end of
// row r, which the caller checks before the CSR is used.
extern "C" __global__ void tc_slice_scatter(const vertex_t* __restrict__ lo,
                                            const vertex_t* __restrict__ hi,
                                            const vertex_t* __restrict__ rank, long long n_edges,
                                            count_t* __restrict__ cursor,
                                            vertex_t* __restrict__ cols) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n_edges;
         i += tc_slice_stride()) {
        vertex_t source, target;
        tc_slice_oriented(lo, hi, rank, i, source, target);
        cols[atomicAdd(cursor + source, (count_t)1)] = target;
    }
}

// keys[i] = rows[i] << shift | cols[i]: an oriented CSR's entries as rank keys
// (rows and cols already ranks), so that sorting a slice of rows' keys sorts
// each row, the rows staying where they are.
extern "C" __global__ void tc_slice_row_keys(const vertex_t* __restrict__ rows,
                                             const vertex_t* __restrict__ cols, long long count,
                                             int shift, packed_t* __restrict__ keys) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count;
         i += tc_slice_stride())
        keys[i] = ((packed_t)rows[i] << shift) | (packed_t)cols[i];
}

// low[j] = keys[j] & low_mask: the targets of a sorted slice of rank keys,
// written straight into the slice's rows of the oriented CSR.
extern "C" __global__ void tc_slice_low_ids(const packed_t* __restrict__ keys, long long count,
                                            packed_t low_mask, vertex_t* __restrict__ low) {
    for (long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x; j < count;
         j += tc_slice_stride())
        low[j] = (vertex_t)(keys[j] & low_mask);
}

// The pairs of one chunk of a partitioned count's pair stream, as plan keys
// (tricount/gpu/apex.py; the scheme is in tricount/partition/plan.py).
// rows[i] -> cols[i] is an entry of the rank-ordered CSR: ids are ranks and
// rows[i] < cols[i]. len[] holds the lengths of the column block's lists
// R(u) = N+(u) ∩ [lo, hi), one per rank below hi. The entry is a pair when its
// target lies below hi and the two lists can share an element: len[target] >= 1
// and len[source] >= 1, or >= 2 when the target lies in [lo, hi) itself (it is
// then one of the source's entries, and never one of its own). Its owner is the
// end with the longer list (the source on ties), as in tc_slice_owner, and only
// owners in [first, end) are kept, made local to that window:
//   ((owner - first) << (id_bits + len_bits)) | ((max_len - bits(shorter)) << id_bits) | partner
// with bits(x) the bit length of x (1 .. 31 for x >= 1). Sorted, the keys list the
// owners in order and each owner's partners longest list first by bit length, then
// by id: every list of at least 2^j entries comes before every shorter one, which is
// all tc_hash needs of a power-of-two TC_LONG_LIST (its warps read the long lists of
// a task first and stop at the first short one). Exact lengths, as tc_slice_plan_keys
// packs them, do not fit beside two global ids past 2^28 ranks. The caller checks
// the number of keys against an independent count of the same predicate.
//
// tc_block_pair_key: that key of the edge source -> target (source < target), for
// tc_slice_block_pairs and tc_slice_csr_pairs; false when the edge is no pair of the
// window's owners.
__device__ __forceinline__ bool tc_block_pair_key(vertex_t source, vertex_t target,
                                                  const int* __restrict__ len, long long lo,
                                                  long long hi, int id_bits, int len_bits,
                                                  packed_t max_len, long long first,
                                                  long long end, packed_t& key) {
    if (target >= hi) return false;
    const int ls = len[source], lt = len[target];
    if (lt < 1 || ls < 1 + (target >= lo ? 1 : 0)) return false;
    const bool owner_is_source = ls >= lt;
    const vertex_t owner = owner_is_source ? source : target;
    if (owner < first || owner >= end) return false;
    const vertex_t partner = owner_is_source ? target : source;
    const unsigned shorter = (unsigned)(owner_is_source ? lt : ls);
    const packed_t bits = (packed_t)(32 - __clz(shorter));
    key = ((packed_t)(owner - first) << (id_bits + len_bits))
          | ((max_len - bits) << id_bits) | (packed_t)partner;
    return true;
}

extern "C" __global__ void tc_slice_block_pairs(const vertex_t* __restrict__ rows,
                                                const vertex_t* __restrict__ cols,
                                                long long n_entries, const int* __restrict__ len,
                                                long long lo, long long hi, int id_bits,
                                                int len_bits, packed_t max_len, long long first,
                                                long long end, packed_t* __restrict__ keys,
                                                count_t* __restrict__ cursor) {
    tc_slice_collect(n_entries, [&](long long i, packed_t& key) {
        return tc_block_pair_key(rows[i], cols[i], len, lo, hi, id_bits, len_bits, max_len,
                                 first, end, key);
    }, keys, cursor);
}

// How many entries tc_slice_block_pairs appends for the same arguments, added to *count:
// its predicate written out again here (not tc_block_pair_key's), so that the caller checks
// the keys' number against an independent count. An entry source -> target is a pair when
// target < hi, len[target] >= 1 and len[source] >= 1, or >= 2 when lo <= target; its owner
// (the end with the longer list, the source on ties) must lie in [first, end). One atomic
// per block (tc_block_add), every thread of which reaches it.
extern "C" __global__ void tc_slice_block_pair_count(const vertex_t* __restrict__ rows,
                                                     const vertex_t* __restrict__ cols,
                                                     long long n_entries,
                                                     const int* __restrict__ len, long long lo,
                                                     long long hi, long long first,
                                                     long long end, count_t* __restrict__ count) {
    count_t mine = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n_entries;
         i += tc_slice_stride()) {
        const long long a = (long long)rows[i], b = (long long)cols[i];
        if (b >= hi) continue;
        const int la = len[a], lb = len[b];
        if (lb < 1 || la < (b >= lo ? 2 : 1)) continue;
        const long long owner = la >= lb ? a : b;
        mine += (owner >= first && owner < end) ? 1 : 0;
    }
    tc_block_add(mine, count);
}

// Steps a lane takes row by row before it searches instead (tc_slice_csr_rounds).
#define TC_SLICE_ROW_STEPS 16

// The offsets of a chunk's rows as stored (`indptr`, of the whole CSR's entries), read
// local to the chunk's entries [e0, e1): clamped to them, from 0. A chunk's first and
// last rows may be pieces of rows; rows outside the entries are empty.
struct tc_chunk_offsets {
    const long long* __restrict__ indptr;
    long long e0, e1;
    __device__ __forceinline__ long long operator()(long long r) const {
        const long long v = indptr[r];
        return (v < e0 ? e0 : (v > e1 ? e1 : v)) - e0;
    }
};

// The row that holds entry i: the last row a .. b whose offset is <= i, given
// offset(a) <= i < offset(b + 1) (empty rows share their successor's offset, so
// the last such row is the non-empty one).
__device__ __forceinline__ long long tc_slice_row_of(const tc_chunk_offsets& offset,
                                                     long long a, long long b, long long i) {
    while (a < b) {
        const long long mid = (a + b + 1) / 2;
        if (offset(mid) <= i) a = mid; else b = mid - 1;
    }
    return a;
}

// Calls visit(valid, row, i) for every entry i of a chunk's rows 0 .. n_rows (offsets
// `indptr` as stored, the chunk's entries [e0, e1), i local to them), in warp-uniform
// rounds (every lane of a warp calls it each round; `valid` false past the warp's
// entries), without a row per entry.
// What one warp does: it takes one contiguous segment of entries, finds the row of
// its first entry by a binary search of the offsets, then reads the segment 32
// entries a round; each lane steps from the round's first row to its own entry's
// row (rows average m / n entries), or, past TC_SLICE_ROW_STEPS steps (a run of
// empty rows), searches the rest, and lane 31's row starts the next round. Every
// entry lies in one segment: each is visited once.
template <typename Visit>
__device__ __forceinline__ void tc_slice_csr_rounds(const long long* __restrict__ indptr,
                                                    long long n_rows, long long e0,
                                                    long long e1, Visit visit) {
    const tc_chunk_offsets offset{indptr, e0, e1};
    const long long n_entries = e1 - e0;
    const int lane = threadIdx.x % TC_WARP;
    const long long warp = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / TC_WARP;
    const long long n_warps = tc_slice_stride() / TC_WARP;
    const long long per = (n_entries + n_warps - 1) / n_warps;
    const long long s = warp * per, e = s + per < n_entries ? s + per : n_entries;
    if (s >= e) return;  // the same for the whole warp
    long long row = tc_slice_row_of(offset, 0, n_rows - 1, s);
    for (long long round = s; round < e; round += TC_WARP) {
        const long long i = round + lane;
        long long r = row;
        if (i < e) {
            // Invariant: offset(r) <= i < offset(n_rows), so the row sought is r or later.
            for (int step = 0; offset(r + 1) <= i; ++step) {
                if (step == TC_SLICE_ROW_STEPS) {
                    r = tc_slice_row_of(offset, r + 1, n_rows - 1, i);
                    break;
                }
                ++r;
            }
        }
        visit(i < e, r, i);
        row = __shfl_sync(TC_FULL_MASK, r, TC_WARP - 1);
    }
}

// tc_slice_block_pairs's keys read from a chunk's rows r0 .. r0 + n_rows (offsets
// `indptr` as stored, entries [e0, e1), `cols` the chunk's ids) by tc_slice_csr_rounds:
// for owner pieces, which read every row of the graph once each (a row per entry would
// be a pass of its own).
extern "C" __global__ void tc_slice_csr_pairs(const long long* __restrict__ indptr,
                                              const vertex_t* __restrict__ cols,
                                              long long n_rows, long long e0, long long e1,
                                              long long r0,
                                              const int* __restrict__ len, long long lo,
                                              long long hi, int id_bits, int len_bits,
                                              packed_t max_len, long long first, long long end,
                                              packed_t* __restrict__ keys,
                                              count_t* __restrict__ cursor) {
    tc_slice_csr_rounds(indptr, n_rows, e0, e1, [&](bool valid, long long r, long long i) {
        packed_t key = 0;
        const bool take = valid && tc_block_pair_key((vertex_t)(r0 + r), cols[i], len, lo, hi,
                                                     id_bits, len_bits, max_len, first, end,
                                                     key);
        tc_slice_append(take, key, keys, cursor);
    });
}

// Per owner o of the whole block (len = the out-degrees): pairs[o] += 1 and
// work[o] += min(len) + entry_cost for every pair o owns, read as tc_slice_csr_pairs
// reads a chunk's rows r0 .. r0 + n_rows. The predicate is written out here on its own
// (not tc_block_pair_key's), so that the pair keys' number is checked against an
// independent count: a pair is an edge a -> b with len[b] >= 1 and len[a] >= 2,
// owned by a when len[a] >= len[b], else by b.
extern "C" __global__ void tc_slice_owner_work(const long long* __restrict__ indptr,
                                               const vertex_t* __restrict__ cols,
                                               long long n_rows, long long e0, long long e1,
                                               long long r0, const int* __restrict__ len,
                                               long long entry_cost, count_t* __restrict__ work,
                                               count_t* __restrict__ pairs) {
    tc_slice_csr_rounds(indptr, n_rows, e0, e1, [&](bool valid, long long r, long long i) {
        if (!valid) return;
        const long long a = r0 + r, b = (long long)cols[i];
        const int la = len[a], lb = len[b];
        if (la < 2 || lb < 1) return;
        const long long owner = la >= lb ? a : b;
        atomicAdd(work + owner, (count_t)((la < lb ? la : lb) + entry_cost));
        atomicAdd(pairs + owner, (count_t)1);
    });
}

// rows[i] = r0 + the row of entry i, for a chunk's rows 0 .. n_rows (offsets `indptr` as
// stored, entries [e0, e1)), read as tc_slice_csr_rounds reads them: a chunk's row per
// entry (tricount/gpu/chunks.py, Chunk.rows) with no compaction of its non-empty rows,
// whose size the host would have to wait for, and no copy of its offsets. Every entry
// lies in one warp's segment: each is written once.
extern "C" __global__ void tc_slice_entry_rows(const long long* __restrict__ indptr,
                                               long long n_rows, long long e0, long long e1,
                                               long long r0, vertex_t* __restrict__ rows) {
    tc_slice_csr_rounds(indptr, n_rows, e0, e1, [&](bool valid, long long r, long long i) {
        if (valid) rows[i] = (vertex_t)(r0 + r);
    });
}

// deg[r0 + r] += the length of row r of a chunk (offsets `indptr` as stored, entries
// [e0, e1)), for its rows 0 .. n_rows: a degree pass's rows (tricount/gpu/apex.py,
// add_degrees), with no copy of the offsets. One thread a row: each is added once (a
// row cut across chunks is added by each, one launch after the other).
extern "C" __global__ void tc_slice_row_lengths(const long long* __restrict__ indptr,
                                                long long n_rows, long long e0, long long e1,
                                                long long r0, unsigned int* __restrict__ deg) {
    const tc_chunk_offsets offset{indptr, e0, e1};
    for (long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x; r < n_rows;
         r += tc_slice_stride()) {
        deg[r0 + r] += (unsigned int)(offset(r + 1) - offset(r));
    }
}
