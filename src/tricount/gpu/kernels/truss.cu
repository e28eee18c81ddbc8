// truss.cu: one frontier of the level-synchronous truss peeling (PKT).
//
// Computes: removing the frontier `curr` (every edge in it has support exactly
// `level` among the edges still present) lowers, by one per destroyed
// triangle, the support of each surviving edge of those triangles. An edge
// whose support falls from level + 1 to level is appended to `next_buf` (the
// next frontier); a decrement that would go below `level` is undone, because
// such an edge leaves at this level anyway. The host driver
// (tricount/local/_truss.py) repeats frontiers and levels.
// Preconditions: the symmetric CSR (`adj_indptr`, `adj_cols`, rows sorted)
// with the undirected edge id of each entry (`adj_eid`); `edge_lo`/`edge_hi`
// give each edge's endpoints; `removed` marks edges removed by earlier
// frontiers and `in_curr` this frontier's. Supports are int: at most the
// maximum degree.
// Counted once: a destroyed triangle (e, e1, e2) with e in the frontier lowers
// e1 and e2 when neither is in the frontier; when e1 is in it too, both e and
// e1 find the triangle and only the smaller edge id lowers e2; when all three
// are, nothing is lowered. Triangles with a removed edge were destroyed before.
// Group: one frontier edge (u, v) at a time (grid stride); its lanes split the
// shorter of N(u), N(v) and binary-search the longer (local.cuh). Every
// support update and every append is one atomic; no group reduction is
// needed, so groups need not stay in step.
// Load balancing: the frontier is spread over the whole grid; hub edges are
// split TC_GROUP_SIZE ways.
// Source: H. Kabir and K. Madduri, "Parallel k-truss decomposition on
// multicore systems", HPEC 2017; J. Wang and J. Cheng, "Truss decomposition
// in massive networks", VLDB 2012.

#ifndef TC_BLOCK_SIZE
#define TC_BLOCK_SIZE 256
#endif

#ifndef TC_GROUP_SIZE
#define TC_GROUP_SIZE 32  // full adjacency lists are longer than oriented ones; not yet measured
#endif

#include "local.cuh"

// Remove one triangle from `edge`'s support, clamped at `level`.
__device__ __forceinline__ void tc_lower_support(int* __restrict__ support, edge_t edge, int level,
                                                 edge_t* __restrict__ next_buf,
                                                 unsigned long long* __restrict__ next_count) {
    const int old = atomicSub(support + edge, 1);
    if (old == level + 1)
        next_buf[atomicAdd(next_count, 1ull)] = edge;  // each edge crosses level + 1 once
    else if (old <= level)
        atomicAdd(support + edge, 1);
}

extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE)
tc_truss_peel(const offset_t* __restrict__ adj_indptr, const vertex_t* __restrict__ adj_cols,
              const edge_t* __restrict__ adj_eid, const vertex_t* __restrict__ edge_lo,
              const vertex_t* __restrict__ edge_hi, const edge_t* __restrict__ curr,
              offset_t n_curr, int level, int* __restrict__ support,
              const unsigned char* __restrict__ in_curr, const unsigned char* __restrict__ removed,
              edge_t* __restrict__ next_buf, unsigned long long* __restrict__ next_count) {
    const int lane = threadIdx.x % TC_GROUP_SIZE;
    const offset_t n_groups = (offset_t)gridDim.x * (TC_BLOCK_SIZE / TC_GROUP_SIZE);
    for (offset_t g = ((offset_t)blockIdx.x * TC_BLOCK_SIZE + threadIdx.x) / TC_GROUP_SIZE;
         g < n_curr; g += n_groups) {
        const edge_t e = curr[g];
        const vertex_t u = edge_lo[e], v = edge_hi[e];
        offset_t short_begin, n_short, long_begin, n_long;
        tc_short_long(adj_indptr, u, v, short_begin, n_short, long_begin, n_long);
        tc_group_intersect(adj_cols + short_begin, n_short, adj_cols + long_begin, n_long, lane,
                           [&](offset_t i, offset_t p) {
            const edge_t e1 = adj_eid[short_begin + i], e2 = adj_eid[long_begin + p];
            if (removed[e1] || removed[e2]) return;  // destroyed by an earlier frontier
            const bool c1 = in_curr[e1], c2 = in_curr[e2];
            if (!c1 && !c2) {
                tc_lower_support(support, e1, level, next_buf, next_count);
                tc_lower_support(support, e2, level, next_buf, next_count);
            } else if (c1 && !c2) {
                if (e < e1) tc_lower_support(support, e2, level, next_buf, next_count);
            } else if (c2 && !c1) {
                if (e < e2) tc_lower_support(support, e1, level, next_buf, next_count);
            }
        });
    }
}
