// small.cu: the short route of small graphs, from an upper-triangular CSR on the
// device to the triangle count in four launches with no host synchronisation
// between them (tricount's own route; launcher: gpu/small.py).
//
// Counts: distinct triangles of a simple undirected graph.
// Preconditions: the graph's own upper-triangular CSR, as CSRGraph keeps it:
// `indptr` (int64, n + 1 entries) and `cols` (vertex_t), row u holding each
// neighbour v > u once, in any order (nothing here needs sorted rows); every
// id below 2^31 - 1 and m below 2^31 (the launcher's bound is far smaller).
// The workspace `ws` (int32 words, laid out by tc_small_layout, mirrored by
// gpu/small.py's workspace_words) has its first 8 + 2n + tiles words zeroed by
// the launcher before kernel 1 (tiles: ceil(n / TC_SCAN_TILE)), and the 4m words
// after them too when the hash count kernel runs; `offsets` holds n + 1 64-bit
// words; `host` is a pinned host word that the count kernel writes the count into.
//
// The four kernels, launched in this order on one stream:
// 1. tc_small_degrees: the degree of every vertex, one thread per stored edge
//    (atomicAdd on the column's degree) and per vertex (its row length).
// 2. tc_small_orient: orients each edge u -> v (u < v) forward when
//    (deg u, u) < (deg v, v), i.e. deg u <= deg v, else backward, and counts
//    each vertex's out-degree d+ (atomicAdd); it keeps the direction in the
//    sign of a COO row word for kernel 3. An edge finds its row by binary search.
// 3. tc_small_place: the out-lists. Each block takes a ticket in the order the
//    blocks start. The first `tiles` tickets each scan one tile of TC_SCAN_TILE
//    out-degrees into `offsets` (the first position of each vertex's out-list)
//    in one pass: a tile publishes its sum (plus one, so that zero means "not
//    yet"), then adds the sums of the tiles of lower tickets, which have all
//    started and publish theirs before waiting on anything, so the wait ends.
//    Once every tile is scanned (a counter, after a __threadfence, as in the
//    CUDA samples' threadFenceReduction), every block writes its edges into
//    their sources' out-lists at slots taken by atomicSub (lists come out
//    unsorted), records the source of every slot, and, for the hash count
//    kernel, inserts the edge into its source's global hash table when that
//    vertex's table would not fit a warp's shared one.
// 4. tc_small_count: the m slots of the lists cut into n_tasks tasks of equal
//    slots, one warp per task, tasks k, k + W, ... (W warps in the grid; the
//    launcher gives each warp TASKS_PER_WARP of them). The warp reads its
//    task's slots 32 at a time, lane i the slot of edge u_i -> v_i:
//    - a slot whose source has a light list (d+(u) <= TC_LIGHT_LIST) is counted
//      by its lane alone: N+(u) in registers, each w of N+(v) compared with all
//      of them (tc_light_slot);
//    - the other slots, in runs of one source u (a vertex's slots are
//      consecutive), against u's set: unless the warp holds it already, it
//      empties the set it holds and puts N+(u) in it -- its shared hash table
//      (linear probing, a power of two >= 2 d+(u) slots, so at most half full;
//      keys are ids + 1, 0 marks an empty slot), unless u's table is global.
//      Lane i takes the run's i-th v and its list N+(v); the non-empty lists
//      move to the first lanes, a warp prefix sum of their lengths lays their
//      wedges (u, v, w) end to end, and the lanes walk them 32 x
//      TC_WEDGE_UNROLL at a time, lane j taking wedges base + j, base + 32 + j,
//      ... (their loads in flight together); a wedge's list is found by one
//      ballot and one OR per window of 32 wedges (tc_task_wedges), and each
//      wedge is one probe of w in u's set.
//    Per-run 32-bit counts, per-lane 64-bit ones, one atomicAdd per block; the
//    last block to finish stores the total into the host word (no copy after).
// 4'. tc_small_count_bits, the count kernel taken instead of 4 when an n-bit
//    bitmap per warp fits shared memory (the launcher decides): the same tasks,
//    slots and wedge walk, but u's set is a bitmap (one atomicOr per entry,
//    one word test per wedge, one store per entry to empty it) instead of a
//    hash table, so no probe sequence and no table in global memory (the bit
//    test of Bisson and Fatica's bitmap method). Both kernels walk their tasks
//    in tc_small_tasks; the warp's set of N+(u) is tc_own_table or tc_own_bits
//    (fill, walk, empty).
// Counted once: the orientation by (degree, id) is a total order, so each
// triangle {a, b, c} with a < b < c in that order is found only at u = a,
// v = b, as w = c in N+(a) ∩ N+(b); the edge a -> b has one slot of a's list,
// which lies in exactly one task (the tasks cut 0 .. m into consecutive
// ranges) and is counted there once, by its lane or in one run. Under this
// order d+(u) <= sqrt(2m), which bounds a table and a slot's work.
// Tables that do not fit a warp's TC_WARP_SLOTS: a vertex whose table needs
// more slots gets one in global memory, 4 words per out-list entry from
// 4 * (its first position), which holds its power of two (< 4 d+ when
// d+ > 16): disjoint regions, zeroed by the launcher, built by kernel 3 and
// only read by kernel 4. The bound is decided on the device from d+, never
// read back by the host.
// Sources: the (degree, id) orientation of Schank and Wagner (2005) and GAPBS's
// tc.cc; an on-chip set per owner as in TRUST (Pandey et al., TPDS 2021);
// wedges laid out by a prefix sum, as in tricount's wedge and bitwedge kernels.

#ifndef TC_BLOCK_SIZE
#define TC_BLOCK_SIZE 256  // threads per block of every kernel
#endif

#ifndef TC_VERTEX_T
#define TC_VERTEX_T int  // the type of the input's column ids
#endif

#ifndef TC_WARP_SLOTS
#define TC_WARP_SLOTS 512  // slots of a warp's shared table (a power of two >= 32)
#endif

#ifndef TC_SCAN_ITEMS
#define TC_SCAN_ITEMS 8  // out-degrees per thread of the scan kernels (tiles of blocks x items)
#endif

#ifndef TC_WEDGE_UNROLL
#define TC_WEDGE_UNROLL 4  // wedges per lane per round (loads in flight)
#endif

#ifndef TC_LIGHT_LIST
#define TC_LIGHT_LIST 8  // out-lists up to this long are held in a lane's registers (0: none)
#endif

#include "common.cuh"

#if (TC_WARP_SLOTS & (TC_WARP_SLOTS - 1)) != 0 || TC_WARP_SLOTS < 32
#error "TC_WARP_SLOTS must be a power of two of at least 32"
#endif

#if TC_SCAN_ITEMS < 1
#error "TC_SCAN_ITEMS must be at least 1"
#endif

#if TC_WEDGE_UNROLL < 1
#error "TC_WEDGE_UNROLL must be at least 1"
#endif

#if TC_LIGHT_LIST < 0
#error "TC_LIGHT_LIST must be at least 0"
#endif

// Vertices per tile of the scan kernels.
#define TC_SCAN_TILE (TC_BLOCK_SIZE * TC_SCAN_ITEMS)

// Tiles of the scan of kernel 3: ceil(n / TC_SCAN_TILE), at least one.
__device__ __forceinline__ unsigned tc_small_tiles(long long n) {
    return n > 0 ? static_cast<unsigned>((n + TC_SCAN_TILE - 1) / TC_SCAN_TILE) : 1u;
}

// The workspace's parts, in the order of its words (gpu/small.py's workspace_words).
struct tc_small_parts {
    count_t* result;       // words 0-1: the count (zeroed)
    unsigned* ticket;      // word 2: tickets of kernel 3 taken (zeroed)
    unsigned* scanned;     // word 3: tiles of kernel 3 scanned (zeroed)
    unsigned* finished;    // word 4: blocks of kernel 4 finished (zeroed); words 5-7 unused
    int* degree;           // n words (zeroed)
    int* out_degree;       // n words (zeroed; kernel 3 takes them back to 0)
    int* tile_sums;        // tiles words (zeroed): each tile's out-degree sum + 1, once known
    int* tables;           // 4m words (zeroed for the hash count kernel): global hash tables
    int* rows;             // m words: the COO row of each stored edge, ~row when backward
    int* lists;            // m words: the oriented out-lists, from `offsets`
    int* sources;          // m words: the source u of each slot of `lists`
};

__device__ __forceinline__ tc_small_parts tc_small_layout(int* ws, long long n, long long m) {
    tc_small_parts p;
    p.result = reinterpret_cast<count_t*>(ws);  // the workspace is 256-byte aligned
    p.ticket = reinterpret_cast<unsigned*>(ws + 2);
    p.scanned = reinterpret_cast<unsigned*>(ws + 3);
    p.finished = reinterpret_cast<unsigned*>(ws + 4);
    p.degree = ws + 8;
    p.out_degree = p.degree + n;
    p.tile_sums = p.out_degree + n;
    p.tables = p.tile_sums + tc_small_tiles(n);
    p.rows = p.tables + 4 * m;
    p.lists = p.rows + m;
    p.sources = p.lists + m;
    return p;
}

// Slots of u's table: the smallest power of two >= 2 d+(u), at least 32, so
// that a table is at most half full and every probe ends at an empty slot.
__device__ __forceinline__ unsigned tc_table_slots(unsigned out_degree) {
    const unsigned want = 2u * out_degree;
    return want <= 32u ? 32u : 1u << (32 - __clz(want - 1u));
}

// The first slot of key in a table of `slots` (a power of two): Fibonacci hashing.
__device__ __forceinline__ unsigned tc_first_slot(unsigned key, unsigned slots) {
    return (key * 2654435769u) >> (__clz(slots) + 1);
}

// Insert a key (an id + 1, never 0) absent from the table; keys are distinct.
__device__ __forceinline__ void tc_table_insert(int* table, unsigned slots, int key) {
    unsigned s = tc_first_slot(static_cast<unsigned>(key), slots);
    while (atomicCAS(table + s, 0, key) != 0) s = (s + 1u) & (slots - 1u);
}

// 1 when key is in the table, else 0 (the table is at most half full: the walk ends).
__device__ __forceinline__ unsigned tc_table_has(const int* table, unsigned slots, int key) {
    unsigned s = tc_first_slot(static_cast<unsigned>(key), slots);
    for (;;) {
        const int held = table[s];
        if (held == key) return 1u;
        if (held == 0) return 0u;
        s = (s + 1u) & (slots - 1u);
    }
}

// Kernel 1: degree[v] += 1 for every stored edge's column v, degree[u] += its row length.
extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE) tc_small_degrees(
    const offset_t* __restrict__ indptr, const vertex_t* __restrict__ cols, long long n,
    long long m, int* ws) {
    const tc_small_parts p = tc_small_layout(ws, n, m);
    const long long items = n > m ? n : m;
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < items;
         i += stride) {
        if (i < m) atomicAdd(p.degree + cols[i], 1);
        if (i < n) {
            const int up = static_cast<int>(indptr[i + 1] - indptr[i]);
            if (up != 0) atomicAdd(p.degree + i, up);
        }
    }
}

// The row of stored edge e: the u with indptr[u] <= e < indptr[u + 1] (0 <= e < m).
__device__ __forceinline__ long long tc_row_of(const offset_t* __restrict__ indptr, long long n,
                                               long long e) {
    long long lo = 0, hi = n;  // invariant: indptr[lo] <= e < indptr[hi]
    while (hi - lo > 1) {
        const long long mid = lo + (hi - lo) / 2;
        if (indptr[mid] <= e) lo = mid; else hi = mid;
    }
    return lo;
}

// Exclusive prefix sum over the block of each thread's `value`; `total` gets the sum.
// Reached by every thread of the block (it synchronizes, also on entry, so that it
// may be called again).
__device__ __forceinline__ unsigned long long tc_block_exclusive(unsigned long long value,
                                                                 unsigned long long* total) {
    __shared__ unsigned long long warp_before[32];
    __shared__ unsigned long long block_total;
    const int lane = threadIdx.x % TC_WARP, warp = threadIdx.x / TC_WARP;
    const int n_warps = blockDim.x / TC_WARP;
    unsigned long long inclusive = value;
    for (int delta = 1; delta < TC_WARP; delta *= 2) {
        const unsigned long long below = __shfl_up_sync(TC_FULL_MASK, inclusive, delta);
        if (lane >= delta) inclusive += below;
    }
    __syncthreads();  // a previous call's readers are done with warp_before
    if (lane == TC_WARP - 1) warp_before[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
        const unsigned long long own = lane < n_warps ? warp_before[lane] : 0ull;
        unsigned long long running = own;
        for (int delta = 1; delta < TC_WARP; delta *= 2) {
            const unsigned long long below = __shfl_up_sync(TC_FULL_MASK, running, delta);
            if (lane >= delta) running += below;
        }
        warp_before[lane] = running - own;  // every lane read its word before the shuffles
        if (lane == TC_WARP - 1) block_total = running;
    }
    __syncthreads();
    *total = block_total;
    return warp_before[warp] + inclusive - value;
}

// Kernel 2: orient every edge by (degree, id) and count out-degrees.
extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE) tc_small_orient(
    const offset_t* __restrict__ indptr, const vertex_t* __restrict__ cols, long long n,
    long long m, int* ws) {
    const tc_small_parts p = tc_small_layout(ws, n, m);
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; e < m;
         e += stride) {
        const int u = static_cast<int>(tc_row_of(indptr, n, e));
        const int v = static_cast<int>(cols[e]);
        // u < v, so a tie in degree leaves u first: (deg u, u) < (deg v, v).
        const bool forward = p.degree[u] <= p.degree[v];
        atomicAdd(p.out_degree + (forward ? u : v), 1);
        p.rows[e] = forward ? u : ~u;
    }
}

// Kernel 3's scan of tile `tile` (the block of that ticket): offsets[u] = the sum of
// out_degree[x] over x < u for the tile's u (thread t: TC_SCAN_ITEMS consecutive
// vertices), and offsets[n] by the last tile. The tile publishes its sum before it
// waits for the sums of the tiles before it (whose tickets are lower: those blocks
// have started, and publish theirs before waiting on anything), and counts itself
// scanned once its offsets are visible device-wide.
__device__ __forceinline__ void tc_small_scan_tile(const tc_small_parts& p, long long n,
                                                   unsigned long long* offsets, unsigned tile,
                                                   unsigned tiles) {
    __shared__ unsigned long long tile_prefix;
    const long long first =
        static_cast<long long>(tile) * TC_SCAN_TILE + threadIdx.x * TC_SCAN_ITEMS;
    int out_degree[TC_SCAN_ITEMS];
    unsigned long long sum = 0;
#pragma unroll
    for (int k = 0; k < TC_SCAN_ITEMS; ++k) {
        out_degree[k] = first + k < n ? p.out_degree[first + k] : 0;
        sum += static_cast<unsigned long long>(out_degree[k]);
    }
    unsigned long long total;
    unsigned long long before = tc_block_exclusive(sum, &total);
    // The sum is at most m < 2^31 - 1, so sum + 1 fits a word and is never 0.
    if (threadIdx.x == 0) atomicExch(p.tile_sums + tile, static_cast<int>(total + 1ull));
    if (threadIdx.x < TC_WARP) {  // warp 0 adds the published sums of tiles 0 .. tile - 1
        unsigned long long prior = 0;
        for (unsigned t = threadIdx.x; t < tile; t += TC_WARP) {
            int published;
            while ((published = *reinterpret_cast<volatile int*>(p.tile_sums + t)) == 0) {
            }
            prior += static_cast<unsigned long long>(published - 1);
        }
        prior = tc_warp_sum(prior);
        if (threadIdx.x == 0) tile_prefix = prior;
    }
    __syncthreads();
    before += tile_prefix;
#pragma unroll
    for (int k = 0; k < TC_SCAN_ITEMS; ++k) {
        if (first + k < n) offsets[first + k] = before;
        before += static_cast<unsigned long long>(out_degree[k]);
    }
    // The last thread of the last tile has added every out-degree: the total.
    if (tile == tiles - 1 && threadIdx.x == blockDim.x - 1) offsets[n] = before;
    __threadfence();  // this thread's offsets are visible before the tile counts as scanned
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(p.scanned, 1u);
}

// Kernel 3: the out-lists (the module doc, 3), in at least `tiles` blocks. `offsets`
// is written by the scan and read by the scatter in this one launch: it is read
// through L2 (__ldcg), never through the read-only path.
extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE) tc_small_place(
    const vertex_t* __restrict__ cols, long long n, long long m, int* ws,
    unsigned long long* offsets, long long tables) {
    const tc_small_parts p = tc_small_layout(ws, n, m);
    __shared__ unsigned block_ticket;
    if (threadIdx.x == 0) block_ticket = atomicAdd(p.ticket, 1u);
    __syncthreads();
    const unsigned ticket = block_ticket, tiles = tc_small_tiles(n);
    if (ticket < tiles) tc_small_scan_tile(p, n, offsets, ticket, tiles);
    if (threadIdx.x == 0) {  // every tile's blocks have started: the wait ends
        while (*reinterpret_cast<volatile unsigned*>(p.scanned) < tiles) __nanosleep(64);
        __threadfence();
    }
    __syncthreads();
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long e = static_cast<long long>(ticket) * blockDim.x + threadIdx.x; e < m;
         e += stride) {
        const int row = p.rows[e];
        const int u = row >= 0 ? row : ~row, v = static_cast<int>(cols[e]);
        const int source = row >= 0 ? u : v, target = row >= 0 ? v : u;
        const unsigned first = static_cast<unsigned>(__ldcg(offsets + source));
        const unsigned out_degree = static_cast<unsigned>(__ldcg(offsets + source + 1)) - first;
        // The counter falls from d+ to 0: slots d+ - 1 .. 0, each taken once.
        const unsigned slot = static_cast<unsigned>(atomicSub(p.out_degree + source, 1) - 1);
        p.lists[first + slot] = target;
        p.sources[first + slot] = source;
        const unsigned slots = tc_table_slots(out_degree);
        if (tables && slots > TC_WARP_SLOTS)
            tc_table_insert(p.tables + 4ll * first, slots, target + 1);
    }
}

// The wedges of one task against u's table, walked by the warp; this lane's closed
// wedges. Lane i < n_lists holds list i: its first position `list_begin` and `start`,
// the wedges of the lists before it (lists are not empty, so starts increase strictly
// from 0); lanes past the lists hold start 0xffffffff. Wedge j belongs to list
// holder(j) = #{i >= 1 : start_i <= j}: per window of 32 wedges, a ballot counts the
// lists started by its first wedge and an OR of one bit per list starting inside it
// marks the rest, so a lane finds its wedge's list with one population count.
// The two sets a task's wedges are probed against: u's hash table, or u's bitmap.
struct tc_hash_set {
    const int* table;
    unsigned slots;
    __device__ __forceinline__ unsigned has(int w) const {
        return tc_table_has(table, slots, w + 1);
    }
};

struct tc_bit_set {
    const unsigned* bits;
    __device__ __forceinline__ unsigned has(int w) const {
        return (bits[w >> 5] >> (w & 31)) & 1u;
    }
};

template <class Set>
__device__ __forceinline__ unsigned tc_task_wedges(const Set set, const int* __restrict__ lists,
                                                   unsigned list_begin, unsigned start,
                                                   unsigned wedges, int lane) {
    unsigned found = 0;  // per task and lane: below 2^32 (a task has < 2^31 wedges)
    const unsigned up_to_lane = (2u << lane) - 1u;  // bits 0 .. lane (all 32 for lane 31)
    for (unsigned base = 0; base < wedges; base += TC_WEDGE_UNROLL * TC_WARP) {
        int w[TC_WEDGE_UNROLL];
#pragma unroll
        for (int k = 0; k < TC_WEDGE_UNROLL; ++k) {
            const unsigned window = base + k * TC_WARP;
            const unsigned opened =
                __popc(__ballot_sync(TC_FULL_MASK, lane > 0 && start <= window));
            const unsigned marks = __reduce_or_sync(
                TC_FULL_MASK, lane > 0 && start > window && start - window < TC_WARP
                                  ? 1u << (start - window) : 0u);
            const int holder = static_cast<int>(opened + __popc(marks & up_to_lane));
            const unsigned from = __shfl_sync(TC_FULL_MASK, list_begin, holder);
            const unsigned skip = __shfl_sync(TC_FULL_MASK, start, holder);
            const unsigned j = window + lane;
            w[k] = j < wedges ? __ldg(lists + from + (j - skip)) : -1;
        }
#pragma unroll
        for (int k = 0; k < TC_WEDGE_UNROLL; ++k)
            if (w[k] >= 0) found += set.has(w[k]);
    }
    return found;
}

// One run's lists: lane i < n_lists holds the i-th non-empty list N+(v) of the run's
// slots (the lanes `in_run`, each with its slot `slot`, one source u): its first
// position in `list_begin`, the wedges of the lists before it in `start` (0xffffffff
// past the lists); the run's wedge total is returned.
__device__ __forceinline__ unsigned tc_task_lists(const int* __restrict__ lists,
                                                  const unsigned long long* __restrict__ offsets,
                                                  long long slot, bool in_run, int lane,
                                                  unsigned* list_begin_out, unsigned* start_out) {
    unsigned list_begin = 0, length = 0;
    if (in_run) {
        const int v = __ldg(lists + slot);
        list_begin = static_cast<unsigned>(__ldg(offsets + v));
        length = static_cast<unsigned>(__ldg(offsets + v + 1)) - list_begin;
    }
    // The non-empty lists to lanes 0, 1, ...: lane r takes the (r + 1)-th one.
    const unsigned nonempty = __ballot_sync(TC_FULL_MASK, length > 0);
    const int n_lists = __popc(nonempty);
    const int source = lane < n_lists ? static_cast<int>(__fns(nonempty, 0, lane + 1)) : 0;
    list_begin = __shfl_sync(TC_FULL_MASK, list_begin, source);
    const unsigned moved = __shfl_sync(TC_FULL_MASK, length, source);
    length = lane < n_lists ? moved : 0u;
    unsigned inclusive = length;
    for (int delta = 1; delta < TC_WARP; delta *= 2) {
        const unsigned below = __shfl_up_sync(TC_FULL_MASK, inclusive, delta);
        if (lane >= delta) inclusive += below;
    }
    *list_begin_out = list_begin;
    *start_out = lane < n_lists ? inclusive - length : 0xffffffffu;
    return __shfl_sync(TC_FULL_MASK, inclusive, TC_WARP - 1);
}

// |N+(u) ∩ N+(v)| for one slot u -> v whose u has a light list (d+(u) <= TC_LIGHT_LIST,
// `u_begin`, `u_length`), by one lane alone: N+(u) in registers, each w of N+(v)
// compared with all of them (TC_WEDGE_UNROLL loads in flight).
__device__ __forceinline__ unsigned tc_light_slot(const int* __restrict__ lists,
                                                  unsigned u_begin, unsigned u_length,
                                                  unsigned v_begin, unsigned v_length) {
    int held[TC_LIGHT_LIST > 0 ? TC_LIGHT_LIST : 1];
#pragma unroll
    for (int k = 0; k < TC_LIGHT_LIST; ++k)
        held[k] = static_cast<unsigned>(k) < u_length ? __ldg(lists + u_begin + k) : -1;
    unsigned found = 0;
    for (unsigned j = 0; j < v_length; j += TC_WEDGE_UNROLL) {
        int w[TC_WEDGE_UNROLL];
#pragma unroll
        for (int k = 0; k < TC_WEDGE_UNROLL; ++k)
            w[k] = j + k < v_length ? __ldg(lists + v_begin + j + k) : -2;
#pragma unroll
        for (int k = 0; k < TC_WEDGE_UNROLL; ++k) {
            unsigned hit = 0;
#pragma unroll
            for (int h = 0; h < TC_LIGHT_LIST; ++h) hit |= held[h] == w[k];
            found += hit;
        }
    }
    return found;
}

// u's out-list as a warp holds it for its runs: filled, probed by the runs' wedges,
// emptied before another vertex's (every call by the whole warp). The hash table of
// kernel 4: in the warp's shared slots, or, for a list too long for them, the table
// kernel 3 built in global memory (neither filled nor emptied here).
struct tc_own_table {
    int* shared;             // the warp's TC_WARP_SLOTS slots, zero but the held set's
    int* global;             // p.tables
    unsigned slots = 0, first = 0;
    bool on_chip = false;
    __device__ __forceinline__ void fill(const int* __restrict__ lists, unsigned begin,
                                         unsigned end, int lane) {
        slots = tc_table_slots(end - begin);
        first = begin;
        on_chip = slots <= TC_WARP_SLOTS;
        if (on_chip)
            for (unsigned i = begin + lane; i < end; i += TC_WARP)
                tc_table_insert(shared, slots, __ldg(lists + i) + 1);
    }
    __device__ __forceinline__ unsigned walk(const int* __restrict__ lists, unsigned list_begin,
                                             unsigned start, unsigned wedges, int lane) const {
        return on_chip ? tc_task_wedges(tc_hash_set{shared, slots}, lists, list_begin, start,
                                        wedges, lane)
                       : tc_task_wedges(tc_hash_set{global + 4ll * first, slots}, lists,
                                        list_begin, start, wedges, lane);
    }
    __device__ __forceinline__ void empty(const int* __restrict__, unsigned, unsigned, int lane) {
        if (on_chip)
            for (unsigned i = lane; i < slots; i += TC_WARP) shared[i] = 0;
    }
};

// The bitmap of kernel 4': n bits of the warp's shared memory, zero but the held set's.
struct tc_own_bits {
    unsigned* bits;
    __device__ __forceinline__ void fill(const int* __restrict__ lists, unsigned begin,
                                         unsigned end, int lane) {
        for (unsigned i = begin + lane; i < end; i += TC_WARP) {
            const int w = __ldg(lists + i);
            atomicOr(bits + (w >> 5), 1u << (w & 31));
        }
    }
    __device__ __forceinline__ unsigned walk(const int* __restrict__ lists, unsigned list_begin,
                                             unsigned start, unsigned wedges, int lane) const {
        return tc_task_wedges(tc_bit_set{bits}, lists, list_begin, start, wedges, lane);
    }
    __device__ __forceinline__ void empty(const int* __restrict__ lists, unsigned begin,
                                          unsigned end, int lane) {
        for (unsigned i = begin + lane; i < end; i += TC_WARP) bits[__ldg(lists + i) >> 5] = 0u;
    }
};

// One warp's tasks k, k + W, k + 2W, ... (W warps in the grid), task t the slots
// [t m / n_tasks, (t + 1) m / n_tasks); this lane's closed wedges (the module doc, 4).
template <class Own>
__device__ __forceinline__ count_t tc_small_tasks(const tc_small_parts& p, long long m,
                                                  const unsigned long long* __restrict__ offsets,
                                                  long long n_tasks, Own& own, int lane,
                                                  int warp) {
    const long long warps = static_cast<long long>(gridDim.x) * TC_WARPS_PER_BLOCK;
    const int* const lists = p.lists;
    count_t found = 0;  // 64-bit: one lane may close more than 2^32 wedges in all
    int held = -1;      // the vertex whose set `own` holds (-1: none)
    unsigned held_first = 0, held_end = 0;
    for (long long task = static_cast<long long>(blockIdx.x) * TC_WARPS_PER_BLOCK + warp;
         task < n_tasks; task += warps) {
        const long long first = task * m / n_tasks, end = (task + 1) * m / n_tasks;
        // Windows of 32 slots, lane i taking slot chunk + i: the slots of light sources
        // (d+(u) <= TC_LIGHT_LIST), each by its lane alone; then the others, in runs of one
        // source u (a vertex's slots are consecutive) against u's set.
        for (long long chunk = first; chunk < end; chunk += TC_WARP) {
            const long long slot = chunk + lane;
            const bool valid = slot < end;
            const int mine = valid ? __ldg(p.sources + slot) : -1;
            unsigned u_begin = 0, u_length = 0;
            if (valid) {
                u_begin = static_cast<unsigned>(__ldg(offsets + mine));
                u_length = static_cast<unsigned>(__ldg(offsets + mine + 1)) - u_begin;
            }
            const bool light = valid && u_length <= TC_LIGHT_LIST;
            if (light) {
                const int v = __ldg(lists + slot);
                const unsigned v_begin = static_cast<unsigned>(__ldg(offsets + v));
                const unsigned v_length = static_cast<unsigned>(__ldg(offsets + v + 1)) - v_begin;
                found += tc_light_slot(lists, u_begin, u_length, v_begin, v_length);
            }
            unsigned heavy = __ballot_sync(TC_FULL_MASK, valid && !light);
            while (heavy) {  // uniform: every lane has the same mask
                const int u = __shfl_sync(TC_FULL_MASK, mine, __ffs(heavy) - 1);
                const unsigned run = __ballot_sync(TC_FULL_MASK, valid && !light && mine == u);
                heavy &= ~run;
                if (u != held) {
                    if (held >= 0) {
                        own.empty(lists, held_first, held_end, lane);
                        __syncwarp();  // emptied before any lane fills the set again
                    }
                    held_first = static_cast<unsigned>(__ldg(offsets + u));
                    held_end = static_cast<unsigned>(__ldg(offsets + u + 1));
                    own.fill(lists, held_first, held_end, lane);
                    held = u;
                }
                unsigned list_begin, start;
                const unsigned wedges = tc_task_lists(lists, offsets, slot, (run >> lane) & 1u,
                                                      lane, &list_begin, &start);
                __syncwarp();  // u's set is complete
                found += own.walk(lists, list_begin, start, wedges, lane);
                __syncwarp();  // every lane's probes are done before the set may change
            }
        }
    }
    return found;
}

// The grid's count into *host: every block adds its part to the workspace's count;
// the last block to finish (a counter after a __threadfence, thread 0 being the one
// that added) stores the total into the pinned host word, which the host reads after
// synchronizing the stream: no copy is launched after the kernel.
__device__ __forceinline__ void tc_small_finish(count_t value, const tc_small_parts& p,
                                                count_t* host) {
    tc_block_add(value, p.result);  // thread 0 added the block's part
    if (threadIdx.x == 0) {
        __threadfence();
        if (atomicAdd(p.finished, 1u) == gridDim.x - 1) {
            __threadfence();
            *reinterpret_cast<volatile count_t*>(host) = atomicAdd(p.result, 0ull);
        }
    }
}

// Kernel 4: count, one warp per task; needs TC_WARPS_PER_BLOCK * TC_WARP_SLOTS words of
// dynamic shared memory.
extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE) tc_small_count(
    long long n, long long m, int* ws, const unsigned long long* __restrict__ offsets,
    long long n_tasks, count_t* host) {
    extern __shared__ int warp_tables[];
    const tc_small_parts p = tc_small_layout(ws, n, m);
    const int lane = threadIdx.x % TC_WARP, warp = threadIdx.x / TC_WARP;
    tc_own_table own{warp_tables + warp * TC_WARP_SLOTS, p.tables};
    for (int i = lane; i < TC_WARP_SLOTS; i += TC_WARP) own.shared[i] = 0;
    __syncwarp();
    tc_small_finish(tc_small_tasks(p, m, offsets, n_tasks, own, lane, warp), p, host);
}

// Kernel 4': count as kernel 4, u's out-list as a bitmap of n bits per warp; needs
// TC_WARPS_PER_BLOCK * ceil(n / 32) words of dynamic shared memory. Every bit is zero
// but those of the held vertex's N+(u), whose words are zeroed before another's.
extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE) tc_small_count_bits(
    long long n, long long m, int* ws, const unsigned long long* __restrict__ offsets,
    long long n_tasks, count_t* host) {
    extern __shared__ unsigned warp_bits[];
    const tc_small_parts p = tc_small_layout(ws, n, m);
    const int lane = threadIdx.x % TC_WARP, warp = threadIdx.x / TC_WARP;
    const long long n_words = (n + 31) / 32;
    tc_own_bits own{warp_bits + warp * n_words};
    for (long long i = lane; i < n_words; i += TC_WARP) own.bits[i] = 0u;
    __syncwarp();
    tc_small_finish(tc_small_tasks(p, m, offsets, n_tasks, own, lane, warp), p, host);
}
