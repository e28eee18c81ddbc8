// random_reads.cu: how fast the GPU serves independent reads of `width` bytes
// at random aligned places of a large array (the access of a counting kernel
// that fetches one short neighbour list per edge).
//
// One thread: `reads` reads, `in_flight` of them issued before any is used;
// each read is `width` / 16 consecutive 16-byte loads at a place drawn by a
// 64-bit mix of (thread, read). The XOR of everything read is written out so
// that no load is dropped. rr_mixed: the same random reads confined to a
// window (meant to fit L2), each paired with the thread's next `width` bytes
// of a stream through a large array (consecutive threads read consecutive
// pieces), the stream's loads marked evict-first in L2 when RR_EVICT_FIRST.

#ifndef RR_WIDTH
#define RR_WIDTH 32  // bytes per read: 16, 32, 64 or 128
#endif
#ifndef RR_IN_FLIGHT
#define RR_IN_FLIGHT 4
#endif

__device__ __forceinline__ unsigned long long rr_mix(unsigned long long x) {
    x ^= x >> 33; x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

extern "C" __global__ void rr_random_reads(const uint4* __restrict__ data,
                                           unsigned long long n_places, int reads,
                                           unsigned* __restrict__ out) {
    constexpr int vectors = RR_WIDTH / 16;
    const unsigned long long thread = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    unsigned acc = 0;
    for (int r = 0; r < reads; r += RR_IN_FLIGHT) {
        uint4 got[RR_IN_FLIGHT][vectors];
#pragma unroll
        for (int k = 0; k < RR_IN_FLIGHT; ++k) {
            const unsigned long long place = rr_mix(thread * 1000003ull + r + k) % n_places;
#pragma unroll
            for (int j = 0; j < vectors; ++j) got[k][j] = __ldg(data + place * vectors + j);
        }
#pragma unroll
        for (int k = 0; k < RR_IN_FLIGHT; ++k)
#pragma unroll
            for (int j = 0; j < vectors; ++j)
                acc ^= got[k][j].x ^ got[k][j].y ^ got[k][j].z ^ got[k][j].w;
    }
    out[thread] = acc;
}

extern "C" __global__ void rr_stream(const uint4* __restrict__ data, unsigned long long n_vectors,
                                     unsigned* __restrict__ out) {
    const unsigned long long thread = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    unsigned acc = 0;
    const unsigned long long threads = gridDim.x * (unsigned long long)blockDim.x;
    for (unsigned long long i = thread; i < n_vectors; i += threads) {
        const uint4 q = __ldg(data + i);
        acc ^= q.x ^ q.y ^ q.z ^ q.w;
    }
    out[thread] = acc;
}

#ifndef RR_EVICT_FIRST
#define RR_EVICT_FIRST 0
#endif

// ld.global.cs: allocated evict-first in L1 and L2 (streaming).
__device__ __forceinline__ uint4 rr_stream_load(const uint4* p) {
    return RR_EVICT_FIRST ? __ldcs(p) : __ldg(p);
}

extern "C" __global__ void rr_mixed(const uint4* __restrict__ window, unsigned long long n_places,
                                    const uint4* __restrict__ stream,
                                    unsigned long long stream_pieces, int reads,
                                    unsigned* __restrict__ out) {
    constexpr int vectors = RR_WIDTH / 16;
    const unsigned long long thread = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    const unsigned long long threads = gridDim.x * (unsigned long long)blockDim.x;
    unsigned acc = 0;
    for (int r = 0; r < reads; r += RR_IN_FLIGHT) {
        uint4 got[RR_IN_FLIGHT][2 * vectors];
#pragma unroll
        for (int k = 0; k < RR_IN_FLIGHT; ++k) {
            const unsigned long long place = rr_mix(thread * 1000003ull + r + k) % n_places;
            const unsigned long long piece = ((r + k) * threads + thread) % stream_pieces;
#pragma unroll
            for (int j = 0; j < vectors; ++j) {
                got[k][j] = __ldg(window + place * vectors + j);
                got[k][vectors + j] = rr_stream_load(stream + piece * vectors + j);
            }
        }
#pragma unroll
        for (int k = 0; k < RR_IN_FLIGHT; ++k)
#pragma unroll
            for (int j = 0; j < 2 * vectors; ++j)
                acc ^= got[k][j].x ^ got[k][j].y ^ got[k][j].z ^ got[k][j].w;
    }
    out[thread] = acc;
}
