"""The bounded build's keys: how a line packs, how buckets are cut, where their keys are kept.

A key packs a line ``((lo << s | hi) << 1) | reversed`` (:class:`Packing`;
``lo * base + hi`` when two ids need more than 63 bits); buckets are contiguous
ranges of ``lo`` cut from the survey's histogram (:func:`cut_buckets`); the
:class:`KeyStore` holds each bucket's keys in one host array, or in an unnamed
temporary file when the host cannot hold them, and, after the bucket's sort,
its row entries in place.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from dataclasses import dataclass

import numpy as np

from tricount.errors import TricountError
from tricount.prep.outofcore._runtime import kernels, parallel, threads
from tricount.prep.xp import bits_for

__all__ = ["Packing", "KeyStore", "cut_buckets", "distinct_keys"]


@dataclass(frozen=True)
class Packing:
    """How a key packs two table ids: by ``shift`` bits (``shift`` > 0) or by ``base``."""

    shift: int
    base: int

    @classmethod
    def for_table(cls, table: int) -> "Packing":
        bits = bits_for(max(0, table - 1))
        if 2 * bits + 1 <= 64:
            return cls(bits, 1 << bits)
        return cls(0, table)  # table <= MAX_VERTICES: (table * table) << 1 < 2**64

    def row_key(self, row: int) -> int:
        """The least key of table row ``row``."""
        return (row << self.shift if self.shift else row * self.base) << 1


def cut_buckets(hist, target: int, min_buckets: int, limit_bin: int):
    """Buckets of whole histogram bins, none starting at or past ``limit_bin``:
    ``(first bin of each, its count)``, each count at most ``target`` (lowered to give
    ``min_buckets``) unless one bin holds more; that bin is then a bucket of its own."""
    hist = np.ascontiguousarray(hist, dtype=np.int64)
    total = int(hist.sum())
    if min_buckets > 1:
        target = min(target, max(1, -(-total // min_buckets)))
    return kernels().plan_cuts(hist, int(target), int(limit_bin))


def distinct_keys(keys):
    """The distinct keys of ``keys`` (sorted, a copy)."""
    keys = np.sort(keys)
    return keys[: kernels().unique_sorted(keys)]


@contextlib.contextmanager
def _spilling(folder):
    """Errors of the temporary file of keys as a :class:`TricountError` naming its folder."""
    try:
        yield
    except OSError as exc:
        raise TricountError(
            f"the bounded build could not use its temporary file of edge keys in {folder} "
            f"({exc.strerror or exc}); free space there or pass BuildPlan(spill_dir=...) on "
            "a larger disk") from None


def _pwrite(fd, buffer, offset: int) -> None:
    view = memoryview(buffer).cast("B")
    while len(view):
        done = os.pwrite(fd, view, offset)
        view, offset = view[done:], offset + done


def _pread(fd, buffer, offset: int) -> None:
    view = memoryview(buffer).cast("B")
    while len(view):
        done = os.preadv(fd, [view], offset)
        if done <= 0:
            raise TricountError("a temporary file of edge keys ended early (was it removed?)")
        view, offset = view[done:], offset + done


class KeyStore:
    """The buckets' keys: regions of one array in host memory, or of a temporary file.

    Region ``b`` starts at ``start[b]`` keys and holds ``fill[b]`` of at most
    ``count[b]``; after its sweep it holds the bucket's row entries in its first
    bytes. The file is unnamed (``O_TMPFILE`` where the system has it) and is gone
    when closed, whatever ends the process.
    """

    def __init__(self, counts, spill_dir=None):
        self.count = np.asarray(counts, dtype=np.int64)
        self.start = np.zeros(self.count.shape[0] + 1, dtype=np.int64)
        np.cumsum(self.count, out=self.start[1:])
        self.fill = np.zeros(self.count.shape[0], dtype=np.int64)
        self.file = None
        self.keys = None
        self.folder = spill_dir
        if spill_dir is None:
            self.keys = np.empty(int(self.start[-1]), dtype=np.uint64)
        else:
            with _spilling(spill_dir):
                self.file = tempfile.TemporaryFile(dir=spill_dir, prefix=".tricount-keys-")

    @property
    def spilled_bytes(self) -> int:
        return 0 if self.file is None else 8 * int(self.start[-1])

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None
        self.keys = None

    def scatter(self, keys, locate, counts=None) -> None:
        """Append a host chunk's keys (loops as DROP) to their buckets, found by
        ``locate`` (``(bounds, bin_bucket, bin_shift)``, see the kernels); ``counts`` per
        thread and bucket, when the caller has them, else counted here."""
        K = kernels()
        if counts is None:
            counts = np.zeros((threads(), self.count.shape[0]), dtype=np.int64)
            with parallel(keys.shape[0]):
                K.route_buckets(keys, *locate, counts, keys, False)
        per = counts.sum(axis=0)
        if bool((self.fill + per > self.count).any()):  # never past a bucket's own room
            raise TricountError("an edge chunk holds more keys for a bucket than the first "
                                "pass counted: the source changed between the passes")
        cursors = np.cumsum(counts, axis=0) - counts  # lines of earlier threads first
        if self.file is None:
            cursors += self.start[:-1] + self.fill
            out = self.keys
        else:
            stage_start = np.cumsum(per) - per
            cursors += stage_start
            out = np.empty(int(per.sum()), dtype=np.uint64)
        with parallel(keys.shape[0]):
            K.route_buckets(keys, *locate, cursors, out, True)
        if self.file is not None:
            for b in np.flatnonzero(per):
                a = int(stage_start[b])
                with _spilling(self.folder):
                    _pwrite(self.file.fileno(), out[a: a + int(per[b])],
                            8 * int(self.start[b] + self.fill[b]))
        self.fill += per

    def writable(self, b: int, k: int):
        """A host array to put ``k`` more keys of bucket ``b`` in (then :meth:`commit`)."""
        if self.file is None:
            a = int(self.start[b] + self.fill[b])
            return self.keys[a: a + k]
        return np.empty(k, dtype=np.uint64)

    def commit(self, b: int, written) -> None:
        if self.file is not None:
            with _spilling(self.folder):
                _pwrite(self.file.fileno(), written, 8 * int(self.start[b] + self.fill[b]))
        self.fill[b] += written.shape[0]

    def load(self, b: int, a: int = 0, k: int | None = None):
        """Keys ``a .. a+k`` of bucket ``b`` (all of them by default): a view or a copy."""
        k = int(self.fill[b]) - a if k is None else k
        at = int(self.start[b]) + a
        if self.file is None:
            return self.keys[at: at + k]
        out = np.empty(k, dtype=np.uint64)
        with _spilling(self.folder):
            _pread(self.file.fileno(), out, 8 * at)
        return out

    def pieces(self, b: int, room: int):
        """Bucket ``b``'s keys in copies of at most ``room`` keys."""
        fill = int(self.fill[b])
        for a in range(0, fill, room):
            piece = self.load(b, a, min(room, fill - a))
            yield piece if self.file is not None else piece.copy()

    def keep(self, b: int, entries, at: int = 0) -> None:
        """Store row entries of bucket ``b`` from entry ``at`` of its region (the memory
        store's sweep writes them in place)."""
        if self.file is not None:
            with _spilling(self.folder):
                _pwrite(self.file.fileno(), entries,
                        8 * int(self.start[b]) + at * entries.itemsize)

    def entries(self, b: int, k: int, idx):
        """The ``k`` row entries bucket ``b`` kept (type ``idx``)."""
        if self.file is None:
            a = int(self.start[b])
            return self.keys[a: a + int(self.count[b])].view(idx)[:k]
        out = np.empty(k, dtype=idx)
        with _spilling(self.folder):
            _pread(self.file.fileno(), out, 8 * int(self.start[b]))
        return out
