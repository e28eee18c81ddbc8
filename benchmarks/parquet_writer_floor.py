"""pyarrow's Parquet writer alone, from host memory: the floor under write_triangles' rate.

Writes ``GIB`` GiB of three random int64 columns (4 Mi rows per row group,
no dictionary, no statistics, as write_triangles) into ``FOLDER`` through
each sink, fsynced, twice each, then snappy once per sink, with the disk's
own rate (64 MiB blocks, fsync) before and after:

- ``python-file``: a Python file object (pyarrow calls back into Python per write);
- ``OSFile``: pyarrow's own file (write_triangles' sink since issue 24);
- ``OSFile`` with 8 MiB data pages; ``buffered-16M``: pyarrow's buffered stream;
- ``queued-thread``: a Python sink whose writes a second thread passes to ``os.write``
  (encoding and the write system calls overlapped).

    python benchmarks/parquet_writer_floor.py 3 /tmp
"""
import os
import queue
import sys
import threading
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ROWS = 1 << 22
GIB = float(sys.argv[1]) if len(sys.argv) > 1 else 6
FOLDER = sys.argv[2] if len(sys.argv) > 2 else "/tmp"
COLUMNS = [np.random.default_rng(i).integers(0, 1 << 21, ROWS) for i in range(3)]
SCHEMA = pa.schema([("u", pa.int64()), ("v", pa.int64()), ("w", pa.int64())])
N_GROUPS = int(GIB * (1 << 30) / (24 * ROWS))
PATH = os.path.join(FOLDER, "parquet_writer_floor.parquet")


class QueuedSink:
    """A file-like sink: write() queues the bytes, a thread writes them in order."""

    def __init__(self, path):
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        self.pending = queue.Queue(maxsize=256)
        self.pos, self.closed = 0, False
        self.thread = threading.Thread(target=self._drain)
        self.thread.start()

    def _drain(self):
        while (data := self.pending.get()) is not None:
            view = memoryview(data)
            while view:
                view = view[os.write(self.fd, view):]

    def write(self, data):
        self.pending.put(data)
        self.pos += len(data)
        return len(data)

    def tell(self):
        return self.pos

    def flush(self):
        pass

    def close(self):
        if not self.closed:
            self.closed = True
            self.pending.put(None)
            self.thread.join()
            os.fsync(self.fd)
            os.close(self.fd)


def disk():
    block = np.random.default_rng(0).integers(0, 255, 64 << 20, dtype=np.uint8).tobytes()
    t0 = time.perf_counter()
    with open(PATH, "wb") as f:
        for _ in range(int(GIB * 16)):
            f.write(block)
        f.flush()
        os.fsync(f.fileno())
    print(f"disk: {int(GIB * 16) * len(block) / (time.perf_counter() - t0) / 1e9:.2f} GB/s",
          flush=True)
    os.unlink(PATH)


def run(label, opener, compression="none", **options):
    t0 = time.perf_counter()
    sink = opener()
    writer = pq.ParquetWriter(sink, SCHEMA, use_dictionary=False, compression=compression,
                              write_statistics=False, **options)
    for _ in range(N_GROUPS):
        table = pa.Table.from_arrays([pa.array(c) for c in COLUMNS], schema=SCHEMA)
        writer.write_table(table, row_group_size=ROWS)
    writer.close()
    if isinstance(sink, QueuedSink):
        sink.close()
    else:
        if not isinstance(sink, pa.NativeFile):
            sink.flush()
        sink.close()
        fd = os.open(PATH, os.O_RDONLY)
        os.fsync(fd)
        os.close(fd)
    seconds = time.perf_counter() - t0
    print(f"{label} {compression} {options or ''}: {N_GROUPS * ROWS * 24 / seconds / 1e9:.2f} "
          f"GB/s (file {os.path.getsize(PATH) / 1e9:.2f} GB, {seconds:.2f} s)", flush=True)
    os.unlink(PATH)


if __name__ == "__main__":
    disk()
    for _ in range(2):
        run("python-file", lambda: open(PATH, "wb"))
        run("OSFile", lambda: pa.OSFile(PATH, "wb"))
        run("OSFile", lambda: pa.OSFile(PATH, "wb"), data_page_size=8 << 20)
        run("buffered-16M", lambda: pa.output_stream(PATH, buffer_size=16 << 20))
        run("queued-thread", lambda: QueuedSink(PATH))
    run("OSFile", lambda: pa.OSFile(PATH, "wb"), compression="snappy")
    run("queued-thread", lambda: QueuedSink(PATH), compression="snappy")
    disk()
