"""The device's CUDA context, started on a thread while CuPy is imported.

A fresh process's first GPU count waits for two things that do not depend on
each other: CuPy's import (Python code, which holds the interpreter's lock) and
the device's primary context (the driver's work, no Python). CUDA's runtime,
and so CuPy, uses the device's *primary* context: when the driver has made it
already, the runtime's first call finds it and goes on. So :func:`tricount.gpu.probe`
calls :func:`start_primary_context` before it imports CuPy: a thread asks the
driver (``libcuda``, through ``ctypes``, which lets go of the interpreter's lock
for the call) to make the context while the main thread imports.

Only in a process where CuPy is not imported yet (nothing there has used CUDA
through it), once, for device 0 (the device tricount counts on unless told
otherwise). When the driver cannot be loaded or any call fails, the thread stops
and the runtime makes the context itself later, as it would have. The thread
holds one reference to the primary context for the life of the process, as the
runtime does, so the context is the same one either way.
"""

from __future__ import annotations

import atexit
import ctypes
import sys
import threading

__all__ = ["start_primary_context", "DRIVER_LIBRARY"]

#: The CUDA driver's library (Linux; elsewhere the load fails and nothing starts).
DRIVER_LIBRARY = "libcuda.so.1"
#: How long the process's exit waits for a context still being made (seconds): the
#: driver must not be torn down by the exit while the thread is inside it.
EXIT_WAIT_S = 10.0

_started: threading.Thread | None = None


def _retain_primary_context(ordinal: int) -> None:
    """``cuInit``, then ``cuDevicePrimaryCtxRetain`` of device ``ordinal``; any failure
    ends it quietly (the runtime then reports the device's state itself)."""
    try:
        driver = ctypes.CDLL(DRIVER_LIBRARY)
        if driver.cuInit(0) != 0:
            return
        device = ctypes.c_int()
        if driver.cuDeviceGet(ctypes.byref(device), ordinal) != 0:
            return
        context = ctypes.c_void_p()
        driver.cuDevicePrimaryCtxRetain(ctypes.byref(context), device)
    except (OSError, AttributeError):
        return


def _wait_at_exit() -> None:
    if _started is not None:
        _started.join(EXIT_WAIT_S)


def start_primary_context(ordinal: int = 0) -> threading.Thread | None:
    """Start making device ``ordinal``'s primary context on a thread, once per process and
    only while CuPy is not imported; the thread, or None when nothing was started."""
    global _started
    if _started is not None or "cupy" in sys.modules:
        return None
    _started = threading.Thread(target=_retain_primary_context, args=(ordinal,),
                                name="tricount-cuda-context", daemon=True)
    atexit.register(_wait_at_exit)
    _started.start()
    return _started
