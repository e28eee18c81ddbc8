"""The CPU's parallel runtime: a Numba threading layer that survives ``fork``, one loop at a time.

Numba runs ``prange`` loops on a *threading layer* chosen once per process, at
the first parallel launch. On Linux without TBB its default is GNU OpenMP, and
a child forked after OpenMP has started in the parent dies at its first
parallel loop ("fork() called from a process already using GNU OpenMP, this is
unsafe"), which breaks ``multiprocessing`` after any count. Importing tricount
therefore asks Numba for its ``forksafe`` layer: TBB where it is installed,
else Numba's own workqueue on Linux (a fork-safe OpenMP elsewhere). The request
is made through ``NUMBA_THREADING_LAYER`` (and ``numba.config`` when Numba was
imported first), so Numba itself is not imported; a layer the user chose
through that variable or ``numba.config`` is left alone, and one already
started cannot be changed.

The workqueue layer is not thread safe: two parallel loops launched at once
from two Python threads abort the process. Every parallel loop of tricount
therefore runs inside :func:`parallel_region`, which holds one process-wide
lock: calls from several threads take turns, each using every core.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading

__all__ = ["FORK_SAFE_LAYER", "request_fork_safe_layer", "parallel_region"]

#: Numba's name for "a layer that survives fork" (see the module doc).
FORK_SAFE_LAYER = "forksafe"

_REGION_LOCK = threading.RLock()


def request_fork_safe_layer() -> None:
    """Ask Numba for :data:`FORK_SAFE_LAYER` unless the user chose a layer (see the module doc)."""
    if "NUMBA_THREADING_LAYER" in os.environ:
        return
    numba = sys.modules.get("numba")
    if numba is not None and numba.config.THREADING_LAYER != "default":
        return  # set through numba.config before tricount was imported
    os.environ["NUMBA_THREADING_LAYER"] = FORK_SAFE_LAYER
    if numba is not None:  # its config was read at its import: set it there too
        numba.config.THREADING_LAYER = FORK_SAFE_LAYER


@contextlib.contextmanager
def parallel_region(chunk_size: int = 0):
    """Run one Numba parallel loop: hold the process-wide lock, and hand out
    ``chunk_size`` iterations at a time (0: Numba's equal split)."""
    import numba  # loaded with the first kernel, never by ``import tricount``

    with _REGION_LOCK, numba.parallel_chunksize(chunk_size):
        yield


request_fork_safe_layer()
