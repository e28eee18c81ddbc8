// weighted.cu: the sum over each vertex's triangles of a product of edge factors.
//
// Computes sums[x] = sum over the triangles {x, y, z} of q_xy q_xz q_yz, q the
// entry factors the launcher passes (for NetworkX's weighted clustering the
// cube roots of the normalised weights, so that the term is the triangle's
// geometric mean weight; tricount/weighted.py); each triangle adds the same
// term to its three corners. The same terms as tricount/cpu/weighted.py,
// (q_ab q_ac) q_bc; the sums are float64 atomics, so their last bits depend
// on the order the adds land in. sums is zeroed by the launcher.
// Preconditions: the DAG of common.cuh (the launcher passes the degree
// orientation) and ow[p], the factor of entry p.
// Counted once: the triangle a < b < c is seen only from the edge a -> b
// (triangle_visit.cuh), with the positions of a -> c and b -> c at hand.
// Group: one oriented edge at a time (grid stride), lanes splitting the shorter
// out-list (local.cuh); a hit adds its term to a, b and c (three atomicAdds on
// doubles, native since sm_60).

#ifndef TC_BLOCK_SIZE
#define TC_BLOCK_SIZE 256
#endif

#include "triangle_visit.cuh"

extern "C" __global__ void __launch_bounds__(TC_BLOCK_SIZE)
tc_weighted(const offset_t* __restrict__ indptr, const vertex_t* __restrict__ rows,
            const vertex_t* __restrict__ cols, const double* __restrict__ ow, offset_t n_edges,
            double* __restrict__ sums) {
    tc_visit_triangles(
        indptr, rows, cols, 0, n_edges,
        [&](offset_t e, vertex_t u, vertex_t v, offset_t pu, offset_t pv) {
            const double term = ow[e] * ow[pu] * ow[pv];
            atomicAdd(sums + u, term);
            atomicAdd(sums + v, term);
            atomicAdd(sums + cols[pu], term);
        });
}
