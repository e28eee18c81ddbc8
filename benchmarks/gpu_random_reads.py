"""How fast the GPU serves independent random reads of a few bytes: the floor of
a kernel that fetches one short neighbour list per edge at a random place.

For each read width (16 to 128 bytes, aligned) and number of reads a thread
keeps in flight, every resident thread reads random places of an array larger
than L2 (``kernels/random_reads.cu``); also one streaming pass over the array.
Prints a Markdown table: reads per second and the bytes they deliver.

    python benchmarks/gpu_random_reads.py [--gib 2] [--reads 268435456] [--out FILE]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

KERNELS = Path(__file__).resolve().parent / "kernels" / "random_reads.cu"
BLOCK = 256


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=float, default=2.0, help="array size in GiB")
    parser.add_argument("--reads", type=int, default=1 << 28, help="reads per measurement")
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--windows", type=int, nargs="*", default=[8, 16, 32],
                        help="window sizes in MiB for the L2 reads")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)

    import cupy as cp

    device = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(device.id)
    sms = props["multiProcessorCount"]
    n_vectors = int(args.gib * 2**30) // 16
    data = cp.random.default_rng(1).integers(0, 2**31, size=n_vectors * 4,
                                             dtype=cp.int64).astype(cp.uint32).view(cp.uint32)
    data = data.reshape(-1, 4)
    source = KERNELS.read_text()
    threads = sms * (2048 // BLOCK) * BLOCK
    out = cp.empty(threads, dtype=cp.uint32)

    def timed(kernel, grid, kernel_args):
        kernel((grid,), (BLOCK,), kernel_args)  # warm-up (and compile)
        times = []
        for _ in range(args.trials):
            start, stop = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            kernel((grid,), (BLOCK,), kernel_args)
            stop.record()
            stop.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
        return sorted(times)[len(times) // 2]

    lines = [f"# Random reads on {props['name'].decode()} ({sms} SMs)", "",
             f"Array {args.gib:g} GiB (L2 {props['l2CacheSize'] / 2**20:.0f} MiB); "
             f"{threads} threads (2,048 per SM); about {args.reads:,} reads per measurement; "
             f"median of {args.trials}. Command: `python benchmarks/gpu_random_reads.py "
             f"--gib {args.gib:g} --reads {args.reads}`.", "",
             "| read width (bytes) | in flight per thread | ms | G reads/s | GB/s delivered |",
             "|--:|--:|--:|--:|--:|"]
    for width in (16, 32, 64, 128):
        for in_flight in (1, 2, 4, 8):
            module = cp.RawModule(code=source, options=(f"-DRR_WIDTH={width}",
                                                        f"-DRR_IN_FLIGHT={in_flight}"))
            kernel = module.get_function("rr_random_reads")
            n_places = n_vectors // (width // 16)
            reads = max(in_flight, args.reads // threads // in_flight * in_flight)
            seconds = timed(kernel, threads // BLOCK,
                            (data, cp.uint64(n_places), cp.int32(reads), out))
            total = reads * threads
            lines.append(f"| {width} | {in_flight} | {seconds * 1e3:.3f} | "
                         f"{total / seconds / 1e9:.1f} | {total * width / seconds / 1e9:.0f} |")
    module = cp.RawModule(code=source)
    seconds = timed(module.get_function("rr_stream"), threads // BLOCK,
                    (data, cp.uint64(n_vectors), out))
    lines += ["", f"Streaming the whole array once: {seconds * 1e3:.3f} ms, "
              f"{n_vectors * 16 / seconds / 1e9:.0f} GB/s.", "",
              "Random reads inside a window at the array's start, alone and each paired with "
              "as many bytes streamed from the rest of the array (evict-first: the stream's "
              "loads marked so in L2):", "",
              "| window MiB | read width | stream | ms | G random reads/s | GB/s in all |",
              "|--:|--:|---|--:|--:|--:|"]
    for window_mib in args.windows:
        for width in (32, 64):
            for stream in ("none", "plain", "evict-first"):
                module = cp.RawModule(code=source, options=(
                    f"-DRR_WIDTH={width}", "-DRR_IN_FLIGHT=4",
                    f"-DRR_EVICT_FIRST={int(stream == 'evict-first')}"))
                n_places = window_mib * 2**20 // width
                reads = max(4, args.reads // threads // 4 * 4)
                if stream == "none":
                    kernel_args = (data, cp.uint64(n_places), cp.int32(reads), out)
                    seconds = timed(module.get_function("rr_random_reads"), threads // BLOCK,
                                    kernel_args)
                    moved = reads * threads * width
                else:
                    rest = data[window_mib * 2**20 // 16:]
                    pieces = rest.shape[0] // (width // 16)
                    kernel_args = (data, cp.uint64(n_places), rest, cp.uint64(pieces),
                                   cp.int32(reads), out)
                    seconds = timed(module.get_function("rr_mixed"), threads // BLOCK,
                                    kernel_args)
                    moved = 2 * reads * threads * width
                lines.append(f"| {window_mib} | {width} | {stream} | {seconds * 1e3:.3f} | "
                             f"{reads * threads / seconds / 1e9:.1f} | "
                             f"{moved / seconds / 1e9:.0f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
