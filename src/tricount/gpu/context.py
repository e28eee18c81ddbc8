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

The third thing is CuPy's first operator between an array and a scalar (``deg * n``,
``x == 0``): CuPy hands it to NumPy's ufunc, whose call comes back to
``cupy.ndarray.__array_ufunc__``, which imports ``cupyx.scipy.special``, and with
it ``cupyx``, SciPy's sparse module and, through SciPy's array-API layer, every
NumPy submodule: 0.39 s of the first count of R-MAT 26 from its ``.tcsr`` on an
H100 machine's host whose packages had no bytecode cached, so that each import also
compiled them (device runs 5-11 of 2026-11-27, ``-X importtime``; a ufunc called
directly, ``cupy.multiply(x, n)``, imports nothing). Every count makes such
an operation, so :func:`start_cupyx_import` makes that import on a thread once CuPy
is imported, while the caller reads its file or prepares its arrays. The thread
imports only what CuPy itself is about to import (no module of tricount), so the
two threads' imports wait on each other's module locks but never in a cycle; the
process's exit waits for it (the import does not stop half-way).
"""

from __future__ import annotations

import atexit
import ctypes
import functools
import importlib
import sys
import threading

__all__ = ["start_primary_context", "start_cupyx_import", "DRIVER_LIBRARY", "CUPYX_MODULE"]

#: The CUDA driver's library (Linux; elsewhere the load fails and nothing starts).
DRIVER_LIBRARY = "libcuda.so.1"
#: How long the process's exit waits for a thread of this module still working (seconds):
#: the driver must not be torn down while the thread is inside it, nor an import stopped
#: half-way.
EXIT_WAIT_S = 10.0

#: What ``cupy.ndarray.__array_ufunc__`` imports at CuPy's first array-scalar operator.
CUPYX_MODULE = "cupyx.scipy.special"

_started: threading.Thread | None = None
_cupyx_import: threading.Thread | None = None


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


def _start_daemon(target, name: str, *args) -> threading.Thread:
    """``target(*args)`` on a daemon thread that the process's exit waits for."""
    thread = threading.Thread(target=target, args=args, name=name, daemon=True)
    atexit.register(functools.partial(thread.join, EXIT_WAIT_S))
    thread.start()
    return thread


def start_primary_context(ordinal: int = 0) -> threading.Thread | None:
    """Start making device ``ordinal``'s primary context on a thread, once per process and
    only while CuPy is not imported; the thread, or None when nothing was started."""
    global _started
    if _started is not None or "cupy" in sys.modules:
        return None
    _started = _start_daemon(_retain_primary_context, "tricount-cuda-context", ordinal)
    return _started


def _import_cupyx() -> None:
    try:
        importlib.import_module(CUPYX_MODULE)
    except Exception:  # the operator imports it (or reports what fails) itself
        return


def start_cupyx_import() -> threading.Thread | None:
    """Import :data:`CUPYX_MODULE` on a thread (see the module doc), once per process, when
    CuPy is imported and it is not; the thread, or None when nothing was started."""
    global _cupyx_import
    if _cupyx_import is not None or "cupy" not in sys.modules or CUPYX_MODULE in sys.modules:
        return None
    _cupyx_import = _start_daemon(_import_cupyx, "tricount-cupyx-import")
    return _cupyx_import
