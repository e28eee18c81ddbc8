// timing.cu: holds a stream while the host enqueues the launches it times.
//
// KernelTimer (gpu/_common.py) launches tc_hold_stream, records its start
// event, enqueues the counting launches and the stop event, and only then
// raises a flag in pinned host memory. The GPU reaches the start event when
// the hold ends, so the events bracket the GPU's own time for the launches,
// without the host's time to enqueue them (NVBench's blocking kernel does the
// same). One thread polls the flag, sleeping about a microsecond between
// reads; after timeout_ns it stops waiting, so a region that synchronizes
// (or a host that never raises the flag) costs at most that long. A hold
// released by the flag writes its ticket to *released (pinned host memory
// too), so the host can tell a clean measurement from a timed-out one.

#ifndef TC_BLOCK_SIZE
#define TC_BLOCK_SIZE 32
#endif

#include "common.cuh"

__device__ __forceinline__ unsigned long long tc_global_ns() {
    unsigned long long ns;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
    return ns;
}

// Waits until *flag >= ticket or timeout_ns have passed.
extern "C" __global__ void tc_hold_stream(const volatile unsigned long long* flag,
                                          volatile unsigned long long* released,
                                          unsigned long long ticket, long long timeout_ns) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    const unsigned long long t0 = tc_global_ns();
    for (;;) {
        if (*flag >= ticket) {
            *released = ticket;
            return;
        }
        if (tc_global_ns() - t0 >= (unsigned long long)timeout_ns) return;
        __nanosleep(1000);
    }
}
