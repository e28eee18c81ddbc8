// listing.cu: every triangle written once, window by window (count -> prefix sum -> write).
//
// Lists: each triangle {a, b, c} as one row of three vertex ids, the row
// sorted by compact id; rows are stored column by column (all u, then all v,
// then all w) so that consecutive lanes write consecutive addresses and a
// window is one contiguous block to copy to the host.
// Preconditions: the DAG of common.cuh (COO+CSR, rows sorted, each undirected
// edge once); the launcher passes the degree orientation.
// Listed once: the triangle a < b < c (orientation order) is found only from
// the edge a -> b, as the common out-neighbour c (triangle_visit.cuh).
// Steps: tc_list_count stores, for every oriented edge, the triangles it
// closes (< 2^31: at most the longer out-list); the launcher turns them into
// int64 offsets by a prefix sum (offsets[e] numbers the first triangle of e);
// tc_list_write then writes the triangles numbered t_begin .. t_end - 1, which
// lie on the edges e_begin .. e_end - 1: triangle number offsets[e] + rank,
// rank being c's place among e's hits in increasing id order, goes to row
// number - t_begin. Every window is written by the same numbering, so the rows
// and their order are the same for any window size, and the same as the CPU
// lister's (tricount/cpu/listing.py).
// Group: one oriented edge at a time (grid stride), lanes splitting the shorter
// out-list (local.cuh); a ballot ranks the group's hits.
// Source: the count-then-write pattern of stream compaction (prefix sum over
// per-item counts, Blelloch 1990); the intersection of Pearson et al., HPEC 2019.

#ifndef TC_BLOCK_SIZE
#define TC_BLOCK_SIZE 256
#endif

#include "triangle_visit.cuh"

// counts[e] = the triangles oriented edge e closes, for every e < n_edges.
extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE)
tc_list_count(const offset_t* __restrict__ indptr, const vertex_t* __restrict__ rows,
              const vertex_t* __restrict__ cols, offset_t n_edges,
              unsigned int* __restrict__ counts) {
    tc_visit_triangles<false>(
        indptr, rows, cols, 0, n_edges,
        [&](offset_t, vertex_t, vertex_t, offset_t, offset_t, count_t) {},
        [&](offset_t e, vertex_t, vertex_t, count_t found) { counts[e] = (unsigned int)found; });
}

// Rows t_begin .. t_end - 1 into out[0 .. k), out[k .. 2k), out[2k .. 3k) with
// k = t_end - t_begin: the u, v and w columns, each the id labels[x] of the
// compact vertex x (x itself when labels is null).
extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE)
tc_list_write(const offset_t* __restrict__ indptr, const vertex_t* __restrict__ rows,
              const vertex_t* __restrict__ cols, const long long* __restrict__ offsets,
              const long long* __restrict__ labels, offset_t e_begin, offset_t e_end,
              long long t_begin, long long t_end, long long* __restrict__ out) {
    const long long k = t_end - t_begin;
    tc_visit_triangles<true>(
        indptr, rows, cols, e_begin, e_end,
        [&](offset_t e, vertex_t u, vertex_t v, offset_t pu, offset_t, count_t rank) {
            const long long t = offsets[e] + (long long)rank;
            if (t < t_begin || t >= t_end) return;  // the window cuts this edge
            vertex_t a = u, b = v, c = cols[pu];
            tc_sort3(a, b, c);
            const long long row = t - t_begin;
            out[row] = labels ? labels[a] : (long long)a;
            out[k + row] = labels ? labels[b] : (long long)b;
            out[2 * k + row] = labels ? labels[c] : (long long)c;
        },
        [&](offset_t, vertex_t, vertex_t, count_t) {});
}
