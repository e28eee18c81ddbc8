"""One prepared graph per worker process, kept across the tasks of one count.

A Dask worker counts several pieces of one graph. Reading the file, copying it to the GPU
and checking its order once per piece would cost more than the pieces' counts (R-MAT 26:
a 6.7 s read against 2.4 s of counting, 2026-11-25), so the first task of a count on a
process prepares the graph (:mod:`tricount.partition.counters`: a host graph or a device
graph) and leaves it here, and the count's next tasks on that process find it.

- **Key**: ``(owner, identity)``. ``owner`` is the count's token, so one count never
  frees or uses another's graph by accident; ``identity`` names the graph: a file's
  absolute path, or ``"scattered"`` for a graph the driver scattered (the owner alone then
  names it). The file's identity when it was read (:func:`file_key`: size, times, inode)
  travels with the graph, and the executor refuses a count whose workers read different
  files (:mod:`tricount.partition.dask_executor`).
- **Bounded**: one graph per process. Preparing another releases the one held first, so
  its device memory is free before the new graph takes any.
- **Released**: by the driver at the end of every count, finished or failed (one release
  task per worker, :mod:`tricount.partition.dask_executor`); here when a task using the
  graph raises (an error may leave a device's arrays in any state: they go with the
  graph), and when a preparation fails (the builder frees what it made). A worker process
  that dies takes its device memory with it.
- **One user at a time**: the lock is held while a task uses the graph, so the threads of
  one worker take turns (a device's stream, its block and its memory hook serve one
  thread at a time; the CPU's loops hold the process's parallel region anyway).

A held value needs ``close()``, which frees what it holds and returns what to report
(a dict, or None).
"""

from __future__ import annotations

import contextlib
import os
import threading

__all__ = ["PreparedCache", "PREPARED", "file_key"]


def file_key(path) -> tuple:
    """``(absolute path, size, mtime_ns, inode, ctime_ns)`` of a file: changes when the file
    is rewritten or replaced, even by one of the same size whose modification time was
    kept (``cp -p``, ``rsync -t``, a .tcsr of another graph of as many vertices and edges):
    the status change time cannot be set back, and a replacement is another inode. No
    device number: workers of a shared file system see the file on their own devices."""
    path = os.path.abspath(os.fspath(path))
    st = os.stat(path)
    return (path, int(st.st_size), int(st.st_mtime_ns), int(st.st_ino), int(st.st_ctime_ns))


class PreparedCache:
    """At most one prepared graph, under a key; see the module's account."""

    def __init__(self):
        self._lock = threading.Lock()
        self._key = None
        self._value = None
        self.builds = 0  # graphs prepared by this cache (tests read it)

    @property
    def key(self):
        """The key of the graph held, or None."""
        return self._key

    @contextlib.contextmanager
    def use(self, key, build):
        """Hold the lock and yield ``(graph, built)``: the graph under ``key``, made by
        ``build()`` (``built`` True) when it is not the one held. An exception raised
        inside releases the graph."""
        with self._lock:
            built = self._key != key
            if built:
                self._drop()  # the old graph's memory goes before the new one is made
                value = build()  # raises with nothing held; a builder frees its own partial work
                self._key, self._value = key, value
                self.builds += 1
            try:
                yield self._value, built
            except BaseException:
                self._drop()
                raise

    def release(self, owner=None):
        """Free the graph held (only if its key's owner is ``owner``, when given); returns
        what its ``close()`` reported, or None when nothing was released."""
        with self._lock:
            if self._value is None or (owner is not None and self._key[0] != owner):
                return None
            return self._drop()

    def _drop(self):
        value, self._key, self._value = self._value, None, None
        return None if value is None else value.close()


#: This process's cache (a Dask worker's tasks share it).
PREPARED = PreparedCache()
