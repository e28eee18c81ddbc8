// merge.cu: Polak's forward algorithm on the GPU, one thread per edge.
//
// Counts: distinct triangles of a simple undirected graph.
// Preconditions: the DAG of common.cuh (COO+CSR, rows sorted by id); the
// launcher passes the degree orientation by default (out-degree <= sqrt(2m)).
// Counted once: for each oriented edge u -> v, the thread adds |N+(u) ∩ N+(v)|;
// a triangle a < b < c (orientation order) is seen only from edge a -> b.
// Thread: takes edges i, i + T, i + 2T, ... (T threads in the grid, Polak's
// grid-stride "index modulo the number of threads"), reads u = rows[i] and
// v = cols[i] from the COO half, finds both lists through indptr, and merges
// them with the one-read-per-step loop of Polak §III-D.3 (tc_merge_count).
// Inputs are `const __restrict__` so loads may go through the read-only cache
// (Polak §III-D.4). Block: folds its threads' 64-bit counts with one atomicAdd.
// Load balancing: none beyond the grid stride; a thread's work is
// d+(u) + d+(v) steps, bounded by 2·sqrt(2m) under degree orientation.
// Source: A. Polak, "Counting triangles in large graphs on GPU", IPDPS
// Workshops 2016, §III-C (kernel) and §III-D (optimizations).

#ifndef TC_BLOCK_SIZE
#define TC_BLOCK_SIZE 256  // Polak: 64; on an H100 256 x 32 blocks per SM was best
#endif

#include "lab.cuh"

extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE)
tc_merge(TC_COO_CSR_ARGS, count_t* __restrict__ result) {
    tc_block_add(tc_thread_per_edge_sum(indptr, rows, cols, n_edges, tc_merge_count), result);
}
