// shared.cu: Iakovidis's column kernel, n_T = sum over the pattern of L of
// (LᵀL), with one block per group of k columns held in shared memory.
//
// Counts: distinct triangles of a simple undirected graph.
// Preconditions: the DAG of common.cuh. Column i of L holds the vertices after
// i in the orientation order that are adjacent to i, i.e. N+(i) = row i of
// the oriented CSR, sorted by id; the entry (j, i) of L is the edge i -> j.
// Counted once: (LᵀL)[i, j] = |col i ∩ col j| = |N+(i) ∩ N+(j)|, summed over
// the entries of L; a triangle a < b < c is counted at the single entry for
// the edge a -> b (Iakovidis §3 shows sum_L(LᵀL) = n_T).
// Block: owns columns [g·k, g·k + k) for its group g (grid stride over
// groups). It packs consecutive columns of the group into shared memory as
// long as their entries fit in `capacity` (a column longer than that is read
// from global memory on its own), synchronizes, and then each thread takes one
// entry e (the edge i -> j with i = rows[e], j = cols[e]) and merges column i
// from shared memory with column j from global memory (two pointers, one read
// per step). Each column is loaded from global memory once (Iakovidis §7).
// Load balancing: k consecutive columns give the block enough entries for its
// threads on sparse graphs (Iakovidis: k = 27 at 7.3 entries per column, k = 1
// on dense graphs); the launcher picks k from the mean out-degree.
// Source: I. Iakovidis, "Finding the number of triangles in a graph" (2019),
// §3 (the LᵀL identity) and §5–7 (columns per block, shared memory).

#ifndef TC_BLOCK_SIZE
#define TC_BLOCK_SIZE 128  // Iakovidis §9: 128 threads per block
#endif

#include "lab.cuh"

extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE)
tc_shared(const offset_t* __restrict__ indptr, const vertex_t* __restrict__ rows,
          const vertex_t* __restrict__ cols, offset_t n_vertices, offset_t columns_per_block,
          offset_t capacity, count_t* __restrict__ result) {
    extern __shared__ vertex_t block_cols[];  // `capacity` entries, sized by the launcher
    __shared__ offset_t round_end_col;
    count_t found = 0;
    const offset_t n_groups = (n_vertices + columns_per_block - 1) / columns_per_block;
    for (offset_t g = blockIdx.x; g < n_groups; g += gridDim.x) {
        const offset_t group_end = tc_min((g + 1) * columns_per_block, n_vertices);
        offset_t c = g * columns_per_block;
        while (c < group_end) {
            const offset_t base = indptr[c];
            if (threadIdx.x == 0) {
                // Largest c2 in (c, group_end] with entries of [c, c2) fitting,
                // or c + 1 when column c alone is too long (then read globally).
                offset_t lo = c + 1, hi = group_end;
                while (lo < hi) {
                    const offset_t mid = lo + (hi - lo + 1) / 2;
                    if (indptr[mid] - base <= capacity) lo = mid; else hi = mid - 1;
                }
                round_end_col = lo;
            }
            __syncthreads();
            const offset_t c2 = round_end_col;
            const offset_t n_entries = indptr[c2] - base;
            const bool in_shared = n_entries <= capacity;  // uniform across the block
            if (in_shared)
                for (offset_t t = threadIdx.x; t < n_entries; t += TC_BLOCK_SIZE)
                    block_cols[t] = cols[base + t];
            __syncthreads();
            for (offset_t e = base + threadIdx.x; e < base + n_entries; e += TC_BLOCK_SIZE) {
                const vertex_t i = rows[e], j = cols[e];
                const offset_t ib = indptr[i], jb = indptr[j];
                const vertex_t* column_i = in_shared ? block_cols + (ib - base) : cols + ib;
                found += tc_merge_count(column_i, indptr[i + 1] - ib, cols + jb, indptr[j + 1] - jb);
            }
            __syncthreads();  // done with block_cols and round_end_col before reuse
            c = c2;
        }
    }
    tc_block_add(found, result);
}
