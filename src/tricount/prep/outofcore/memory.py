"""Whether an edge list fits one piece, and the memory a bounded build may use.

:func:`needs_bounded_build` weighs edge arrays against the host's available
memory (NumPy) or the device's free memory (CuPy) with the one-piece builds'
measured bytes a line (:func:`in_memory_bytes`); :class:`tricount.CSRGraph`
asks it before building, and ``tricount generate`` before drawing a graph.
"""

from __future__ import annotations

import os

import numpy as np

from tricount.prep.accel import lookup
from tricount.prep.canonical import DENSE_ID_FACTOR
from tricount.prep.xp import array_namespace

__all__ = ["available_memory", "in_memory_bytes", "needs_bounded_build", "gib",
           "HOST_SHARE", "DEVICE_SHARE"]

#: Share of the available host memory the build plans to use.
HOST_SHARE = 0.7
#: Share of the device's free memory one bucket's sort plans to use.
DEVICE_SHARE = 0.8
#: Host bytes per input line of the one-piece build beyond the input itself:
#: measured 51.3 B/line with tracemalloc on R-MAT 16 and 18 (2026-11-26),
#: rounded up; plus the byte map and compact map per id.
IN_MEMORY_BYTES_PER_LINE = 56
#: Edge lines built in one piece whatever the memory reads (a few MiB at most): a 17-edge
#: graph took the bounded build, and failed, when the host reported MemAvailable near 0 for
#: a moment (a shared 2-core machine, 2026-11-28).
SMALL_BUILD_LINES = 1 << 16
IN_MEMORY_BYTES_PER_ID = 9
#: The fused GPU build's device bytes per line beyond the input (keys, the sort's
#: double buffer, flags, positions, decoded ends; gpu/prepare/fused.py), rounded up.
FUSED_BYTES_PER_LINE = 40


def available_memory() -> int | None:
    """Bytes of host memory available to a new allocation (Linux MemAvailable), or None."""
    try:
        with open("/proc/meminfo", "rb") as f:
            for line in f:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def gib(n: float) -> str:
    """Bytes in the unit that reads best (GiB, MiB or KiB)."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20)):
        if n >= size:
            return f"{n / size:.2f} {unit}"
    return f"{n / 2**10:.1f} KiB"


def in_memory_bytes(n_lines: int, max_id: int, *, device: bool = False) -> int:
    """Bytes the one-piece build of ``n_lines`` lines needs beyond its input: host
    memory (:func:`tricount.prep.canonical.canonical_edges`), or device memory for
    the fused GPU build. Ids cost memory only while dense enough to be marked in a
    byte map (below ``DENSE_ID_FACTOR`` per endpoint); sparser ones are sorted."""
    dense = max_id < DENSE_ID_FACTOR * 2 * n_lines + 1024
    if device:
        return FUSED_BYTES_PER_LINE * n_lines + (5 * (max_id + 1) if dense else 0)
    return IN_MEMORY_BYTES_PER_LINE * n_lines + (
        IN_MEMORY_BYTES_PER_ID * (max_id + 1) if dense else 0)


def needs_bounded_build(src, dst, *, max_memory: int | None = None) -> str | None:
    """Why the edge arrays must take the bounded build, or None when one piece fits.

    NumPy arrays are weighed against the host memory available, CuPy arrays against
    the device's free memory; ``max_memory`` (bytes) caps either. Cheap: the
    largest id is read only when the lines alone could not fit.
    """
    xp = array_namespace(src, dst)
    shape = getattr(src, "shape", None)
    if shape is None or len(shape) != 1 or getattr(dst, "shape", None) != shape:
        return None  # sequences, or bad shapes that validation refuses
    m = int(shape[0])
    on_device = xp is not np
    if max_memory is None and m <= SMALL_BUILD_LINES:
        return None  # never a reason: a moment's low reading of the memory available is not
    if on_device:
        free_bytes = lookup(xp, "free_bytes")
        room = free_bytes() if free_bytes is not None else None
    else:
        room = available_memory()
    if room is not None:
        room = int((DEVICE_SHARE if on_device else 1.0) * room)
    if max_memory is not None:
        room = max_memory if room is None else min(room, max_memory)
    if room is None or m == 0 or getattr(src.dtype, "kind", "O") not in "iu" \
            or src.dtype != dst.dtype:
        return None  # validation converts (and refuses) other types: the one-piece path
    # Validation widens narrower ids to int64: 16 more bytes a line.
    widened = 0 if src.dtype.itemsize == 8 or on_device else 16 * m
    densest = DENSE_ID_FACTOR * 2 * m + 1023  # the most a byte map can cost
    if in_memory_bytes(m, densest, device=on_device) + widened <= room:
        return None
    need = in_memory_bytes(m, 0, device=on_device) + widened
    if need <= room:  # the lines fit: do the ids? (one read of the arrays)
        top = int(max(int(src.max()), int(dst.max())))
        need = in_memory_bytes(m, top, device=on_device) + widened
        if need <= room:
            return None
    where = "GPU" if on_device else "host"
    return (f"building {m:,} edge lines in one piece needs about {gib(need)} of {where} "
            f"memory beyond the input, more than the {gib(room)} {where} memory "
            + ("allowed (max_memory)" if max_memory is not None and room == max_memory
               else "available"))
