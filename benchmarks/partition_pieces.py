"""Where a partitioned GPU count goes, piece by piece and device by device (issue 22): the
report's phases, each device's preparation steps, copies and kernel seconds, every piece's
rows, anchor entries, estimated work and kernel seconds, and a sample of the worker threads'
Python stacks every 0.25 s. Each argument after the file is ``host:D`` (the file read into
host arrays first) or ``file:D`` (reading included), D ``1`` or ``all``.

The devices' ``peak_bytes`` it prints are not to be trusted: the sampler holds other
threads' frames, so an array can be freed in its thread, where the counting thread's CuPy
memory hook does not hear it (R-MAT 29 on one H100 printed 217 GiB; ``partition_gpu.py``'s
section c, without a sampler, 63 GiB). Take memory from ``partition_gpu.py``.

    python benchmarks/partition_pieces.py r29.tcsr host:all host:1 file:all file:1
"""
import collections
import json
import sys
import threading
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from partition_gpu import host_rmat  # noqa: E402

import tricount  # noqa: E402
from tricount.bench.gpu_timer import KernelTimer  # noqa: E402
from tricount.partition.gpu import count_gpu  # noqa: E402

path = sys.argv[1]
t0 = time.perf_counter()
graph = tricount.load_graph(path)
print(f"read {graph.n_edges} edges in {time.perf_counter() - t0:.1f} s", flush=True)
count_gpu(host_rmat(16), devices="all")

stacks = collections.Counter()
stop = threading.Event()


def sample():
    me = threading.get_ident()
    while not stop.wait(0.25):
        for tid, frame in sys._current_frames().items():
            if tid == me:
                continue
            st = traceback.extract_stack(frame)[-4:]
            key = " <- ".join(f"{f.name}:{f.lineno}" for f in reversed(st))
            if "tricount" in "".join(f.filename for f in st):
                stacks[key] += 1


for what in sys.argv[2:]:
    where, devices = what.split(":")
    devices = [0] if devices == "1" else "all"
    subject = graph if where == "host" else path
    stacks.clear()
    stop.clear()
    th = threading.Thread(target=sample, daemon=True)
    th.start()
    t0 = time.perf_counter()
    n, rep = count_gpu(subject, devices=devices, timer=KernelTimer)
    s = time.perf_counter() - t0
    stop.set()
    th.join()
    timings = json.dumps({k: round(v, 3) for k, v in rep.timings.items()})
    print(f"\n== {where} devices={devices}: {n} in {s:.2f} s; timings {timings}")
    print("reason:", rep.reason)
    for d in rep.devices:
        print("device", {k: (round(v, 3) if isinstance(v, float) else v) for k, v in d.items()
                         if k != "prepare_steps"})
        print("   steps", {k: round(v, 3) for k, v in d.get("prepare_steps", {}).items()})
    for r in rep.subproblems[:48]:
        print("piece", r["where"], r["rows"], "anchor entries", r["anchor_entries"], "est",
              r["estimated_work"], "block", round(r["block_s"], 3), "count", round(r["count_s"], 3),
              "kernel", None if r["kernel_s"] is None else round(r["kernel_s"], 3))
    print("stack samples (0.25 s):")
    for k, c in stacks.most_common(25):
        print(f"  {c:5d} {k}")
