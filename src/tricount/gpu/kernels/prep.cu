// prep.cu: the preparation passes of the GPU path (tricount/gpu/prepare.py).
//
// Counts nothing. Each kernel is one grid-stride pass over an edge array
// that does what the portable NumPy/CuPy code of tricount/prep does in
// several element-wise passes, each with a full temporary array: on R-MAT
// scale 24 (537 M input entries) those passes cost more than the sorts
// between them (benchmarks/results/gpu_prep_steps_h100.md).
//
// What one thread does: for every index i of its grid-stride range it reads
// the inputs at i, computes, and writes the outputs at i; kernels that also
// count fold their thread's count into one global counter per warp.
//
// What must hold (the rest of tricount relies on it, and tests compare every
// output with the portable code's): a key packs two ids by shifting, the
// first above the second, so sorting keys sorts the pairs lexicographically
// and decoding a key gives back exactly its pair. The all-ones key marks an
// element to drop: it sorts after every real key, and no real key is all
// ones because the two ids of a pair differ. Every distinct undirected edge
// survives exactly once, every self-loop is dropped: a wrong graph here is a
// wrong count everywhere.

#ifndef TC_BLOCK_SIZE
#define TC_BLOCK_SIZE 256
#endif

#ifndef TC_MARK
#define TC_MARK 0  // 1: tc_prep_edge_keys and tc_prep_unpack mark the ids they meet in present
#endif

#ifndef TC_GATHER
#define TC_GATHER 0  // 1: tc_prep_unpack reads keys[positions[j]] instead of keys[j]
#endif

#ifndef TC_HIST_T
#define TC_HIST_T unsigned long long  // tc_prep_histogram's counters ("unsigned int": 32-bit)
#endif

#include "common.cuh"

typedef unsigned long long packed_t;
typedef TC_HIST_T hist_t;
#define TC_DROP (~0ull)

__device__ __forceinline__ long long tc_first_index() {
    return (long long)blockIdx.x * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ long long tc_stride() { return (long long)gridDim.x * blockDim.x; }

// Add every lane's value into *counter with one atomic per warp. All 32 lanes
// of the warp must call it (the kernels call it after their loops, which every
// lane leaves).
__device__ __forceinline__ void tc_warp_add(count_t value, count_t* counter) {
    value = tc_warp_sum(value);
    if (threadIdx.x % TC_WARP == 0 && value != 0ull) atomicAdd(counter, value);
}

// One key per input entry (src[i], dst[i]): ((lo << shift | hi) << 1 | reversed)
// with lo < hi the entry's two ends and reversed = 1 when src > dst; a
// self-loop gets TC_DROP (and, when TC_MARK, marks its vertex present: a
// vertex with only loops is still a vertex). Sorting these keys groups copies
// of a directed edge (equal keys) and both directions of an undirected edge
// (equal keys >> 1), as prep/canonical.py's do.
extern "C" __global__ void tc_prep_edge_keys(const long long* __restrict__ src,
                                             const long long* __restrict__ dst,
                                             long long n_entries, int shift,
                                             packed_t* __restrict__ keys,
                                             unsigned char* __restrict__ present) {
    for (long long i = tc_first_index(); i < n_entries; i += tc_stride()) {
        const long long s = src[i], d = dst[i];
        if (s == d) {
            keys[i] = TC_DROP;
#if TC_MARK
            present[s] = 1;
#endif
            continue;
        }
        const packed_t lo = (packed_t)(s < d ? s : d), hi = (packed_t)(s < d ? d : s);
        keys[i] = (((lo << shift) | hi) << 1) | (packed_t)(s > d);
    }
}

// Over sorted edge keys: first_pair[i] = 1 where a new undirected edge starts
// (the key without its direction bit differs from the one before), and the
// counters gain the distinct directed keys (counts[0]) and the dropped
// entries (counts[1]).
extern "C" __global__ void tc_prep_pair_flags(const packed_t* __restrict__ keys, long long n_keys,
                                              unsigned char* __restrict__ first_pair,
                                              count_t* __restrict__ counts) {
    count_t directed = 0, dropped = 0;
    for (long long i = tc_first_index(); i < n_keys; i += tc_stride()) {
        const packed_t k = keys[i];
        if (k == TC_DROP) { first_pair[i] = 0; ++dropped; continue; }
        const bool first = i == 0;
        const packed_t before = first ? 0ull : keys[i - 1];
        directed += (first || k != before);
        first_pair[i] = (first || (k >> 1) != (before >> 1)) ? 1 : 0;
    }
    tc_warp_add(directed, counts);
    tc_warp_add(dropped, counts + 1);
}

// Decode keys: k = key >> drop_bits, high[j] = k >> high_shift,
// low[j] = k & low_mask; the key is keys[positions[j]] when TC_GATHER, else
// keys[j]. When TC_MARK, both ids are marked in present (racing stores of the
// same 1 byte: any order leaves it 1).
extern "C" __global__ void tc_prep_unpack(const packed_t* __restrict__ keys,
                                          const long long* __restrict__ positions,
                                          long long count, int drop_bits, int high_shift,
                                          packed_t low_mask, vertex_t* __restrict__ high,
                                          vertex_t* __restrict__ low,
                                          unsigned char* __restrict__ present) {
    for (long long j = tc_first_index(); j < count; j += tc_stride()) {
#if TC_GATHER
        const packed_t k = keys[positions[j]] >> drop_bits;
#else
        const packed_t k = keys[j] >> drop_bits;
#endif
        const vertex_t a = (vertex_t)(k >> high_shift), b = (vertex_t)(k & low_mask);
        high[j] = a;
        low[j] = b;
#if TC_MARK
        present[a] = 1;
        present[b] = 1;
#endif
    }
}

// The edge {lo[i], hi[i]} renamed by rank, as the key (min << shift | max):
// sorted, the keys are the rank-oriented edges in row order (prep/orient.py's
// orient_by_rank).
extern "C" __global__ void tc_prep_rank_keys(const vertex_t* __restrict__ lo,
                                             const vertex_t* __restrict__ hi,
                                             const vertex_t* __restrict__ rank, long long n_edges,
                                             int shift, packed_t* __restrict__ keys) {
    for (long long i = tc_first_index(); i < n_edges; i += tc_stride()) {
        const packed_t a = (packed_t)rank[lo[i]], b = (packed_t)rank[hi[i]];
        keys[i] = a < b ? (a << shift) | b : (b << shift) | a;
    }
}

// The hash method's plan key of the oriented edge rows[i] -> cols[i]
// (prep/partners.py): the end with the longer out-list owns the edge,
// (owner << (id_bits + len_bits)) | ((max_out - shorter length) << id_bits) | partner,
// so a sort groups owners and lists each owner's partners longest first.
// Edges that close nothing (d+(u) < 2 or d+(v) = 0) get TC_DROP; counts[0]
// gains the edges kept.
extern "C" __global__ void tc_prep_plan_keys(const vertex_t* __restrict__ rows,
                                             const vertex_t* __restrict__ cols,
                                             const int* __restrict__ out_degree, long long n_edges,
                                             int id_bits, int len_bits, packed_t max_out,
                                             packed_t* __restrict__ keys,
                                             count_t* __restrict__ counts) {
    count_t kept = 0;
    for (long long i = tc_first_index(); i < n_edges; i += tc_stride()) {
        const vertex_t u = rows[i], v = cols[i];
        const int du = out_degree[u], dv = out_degree[v];
        if (du < 2 || dv < 1) { keys[i] = TC_DROP; continue; }
        const bool owner_is_u = du >= dv;
        const packed_t owner = (packed_t)(owner_is_u ? u : v), partner = (packed_t)(owner_is_u ? v : u);
        const packed_t shorter = (packed_t)(owner_is_u ? dv : du);
        keys[i] = (owner << (id_bits + len_bits)) | ((max_out - shorter) << id_bits) | partner;
        ++kept;
    }
    tc_warp_add(kept, counts);
}

// Where the hash method's tasks begin (prep/partners.py's split_tasks): pair i
// starts a task when it is its owner's first, or when the owner's probes before
// it, (running[i] - running[ptr[owner]]) / max_probes, enter a new multiple of
// max_probes. running is the exclusive running sum of the partners' out-degrees.
extern "C" __global__ void tc_prep_task_starts(const vertex_t* __restrict__ owners,
                                               const long long* __restrict__ ptr,
                                               const long long* __restrict__ running,
                                               long long n_pairs, long long max_probes,
                                               unsigned char* __restrict__ starts) {
    for (long long i = tc_first_index(); i < n_pairs; i += tc_stride()) {
        const long long first = ptr[owners[i]];
        unsigned char start = 1;
        if (i != first) {
            const long long base = running[first];
            start = (running[i] - base) / max_probes != (running[i - 1] - base) / max_probes;
        }
        starts[i] = start;
    }
}

// counts[ids[i]] += 1 for every i: CuPy's bincount spends about 7 ms even on a
// few million ids (H100), this one pass 0.45 ms at R-MAT scale 21. Counts are
// hist_t: 32-bit when the caller knows none can pass 2^32 - 1 (fewer ids), so
// that twice as many counters share the L2 the random atomics land in.
extern "C" __global__ void tc_prep_histogram(const vertex_t* __restrict__ ids, long long n_ids,
                                             hist_t* __restrict__ counts) {
    for (long long i = tc_first_index(); i < n_ids; i += tc_stride())
        atomicAdd(counts + ids[i], (hist_t)1);
}
