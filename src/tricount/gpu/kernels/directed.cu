// directed.cu: directed 3-cycles and feed-forward loops at every vertex, and the triad codes.
//
// Counts, over every undirected triangle {a, b, c} of a directed graph kept as
// its undirected simple graph plus a 2-bit direction mask per edge:
// per_vertex[0 n + x] the 3-cycles through x, per_vertex[1 n + x],
// [2 n + x], [3 n + x] the feed-forward loops (s -> m, m -> t, s -> t) with x
// as source, middle and sink (Fagiolo 2007: (A^3)_xx, (A A A^T)_xx,
// (A A^T A)_xx, (A^T A A)_xx), and codes[k] the triangles whose six arcs form
// code k (bit 0 a -> b, 1 b -> a, 2 a -> c, 3 c -> a, 4 b -> c, 5 c -> b with
// a < b < c in the orientation order). The same counts as tricount/cpu/directed.py.
// Counts are 64-bit (count_t), zeroed by the launcher; per_vertex may be null.
// Preconditions: the DAG of common.cuh (the launcher passes the degree
// orientation) and omask[p], the mask of entry p relative to the orientation:
// bit 0 the arc row -> column, bit 1 the arc column -> row.
// Counted once: the triangle a < b < c is seen only from the edge a -> b
// (triangle_visit.cuh), with the masks of a -> b, a -> c and b -> c at hand.
// Group: one oriented edge at a time (grid stride), lanes splitting the shorter
// out-list (local.cuh). Each hit adds its code to the block's histogram in
// shared memory (flushed once per block) and its roles to the three corners
// with global atomics, skipping zeros.

#ifndef TC_BLOCK_SIZE
#define TC_BLOCK_SIZE 256
#endif

#include "triangle_visit.cuh"

#define TC_N_CODES 64

// Add one corner's cycles and roles to the four rows of per_vertex.
__device__ __forceinline__ void tc_credit_roles(count_t* __restrict__ per_vertex, long long n,
                                                vertex_t x, unsigned cycles, unsigned source,
                                                unsigned middle, unsigned sink) {
    if (cycles) atomicAdd(per_vertex + x, (count_t)cycles);
    if (source) atomicAdd(per_vertex + n + x, (count_t)source);
    if (middle) atomicAdd(per_vertex + 2 * n + x, (count_t)middle);
    if (sink) atomicAdd(per_vertex + 3 * n + x, (count_t)sink);
}

extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE)
tc_directed(const offset_t* __restrict__ indptr, const vertex_t* __restrict__ rows,
            const vertex_t* __restrict__ cols, const unsigned char* __restrict__ omask,
            offset_t n_edges, long long n_vertices, count_t* __restrict__ per_vertex,
            count_t* __restrict__ codes) {
    __shared__ count_t block_codes[TC_N_CODES];
    for (int i = threadIdx.x; i < TC_N_CODES; i += TC_BLOCK_SIZE) block_codes[i] = 0;
    __syncthreads();
    tc_visit_triangles(
        indptr, rows, cols, 0, n_edges,
        [&](offset_t e, vertex_t u, vertex_t v, offset_t pu, offset_t pv) {
            const unsigned m_ab = omask[e], m_ac = omask[pu], m_bc = omask[pv];
            atomicAdd(block_codes + (m_ab | (m_ac << 2) | (m_bc << 4)), 1ull);
            if (per_vertex == nullptr) return;
            const unsigned ab = m_ab & 1, ba = m_ab >> 1, ac = m_ac & 1, ca = m_ac >> 1;
            const unsigned bc = m_bc & 1, cb = m_bc >> 1;
            const unsigned n_ab = ab + ba, n_ac = ac + ca, n_bc = bc + cb;
            const unsigned cycles = (ab & bc & ca) + (ac & cb & ba);
            tc_credit_roles(per_vertex, n_vertices, u, cycles, (ab & ac) * n_bc,
                            (ba & ac & bc) + (ca & ab & cb), (ba & ca) * n_bc);
            tc_credit_roles(per_vertex, n_vertices, v, cycles, (ba & bc) * n_ac,
                            (ab & bc & ac) + (cb & ba & ca), (ab & cb) * n_ac);
            tc_credit_roles(per_vertex, n_vertices, cols[pu], cycles, (ca & cb) * n_ab,
                            (ac & cb & ab) + (bc & ca & ba), (ac & bc) * n_ab);
        });
    __syncthreads();
    for (int i = threadIdx.x; i < TC_N_CODES; i += TC_BLOCK_SIZE)
        if (block_codes[i]) atomicAdd(codes + i, block_codes[i]);
}
