"""The GPU backend (CuPy + CUDA C++). Importing this package does not import CuPy.

:mod:`tricount.gpu.plan` decides how a graph is counted (pure: statistics in,
a plan and its reason out); :mod:`tricount.gpu.engine` executes the plan:
:mod:`tricount.gpu.prepare` orients the graph on the device and one of
:data:`GPU_METHODS` (:mod:`tricount.gpu.methods`, each a launcher beside its
kernel in ``kernels/``) counts it. ``per_vertex``, ``edge_support`` and
``truss`` are the local computations' kernels.
"""

from __future__ import annotations

import functools
import importlib.util
import sys

from tricount.gpu.context import start_cupyx_import, start_primary_context
from tricount.gpu.device import device_facts
from tricount.gpu.plan import GPU_METHODS
from tricount.prep import accel

__all__ = ["probe", "cupy_installed", "GPU_METHODS"]


# CuPy arrays get the GPU's fused preparation steps (imported only when first asked for).
accel.register("cupy", "tricount.gpu.prepare")


@functools.lru_cache(maxsize=1)
def cupy_installed() -> bool:
    """Whether CuPy can be imported here, looked up once per process (no import)."""
    return "cupy" in sys.modules or importlib.util.find_spec("cupy") is not None


def probe() -> tuple[bool, str]:
    """Say whether a GPU is usable here, and why not when it is not.

    Imports CuPy (only when called) and asks the CUDA runtime for devices; in a
    process where CuPy was not imported yet, device 0's context is first started on
    a thread (:mod:`tricount.gpu.context`), made while CuPy imports. Without
    CuPy the answer is :func:`cupy_installed`'s: a failed ``import`` searches every
    path again, which cost every listing of a small graph about 0.1 ms.
    """
    missing = (False, 'CuPy is not installed (from a tricount clone: pip install ".[cuda13]" '
                      'or ".[cuda12]")')
    if not cupy_installed():
        return missing
    start_primary_context()  # in a fresh process, the device's context is made while CuPy imports
    try:
        import cupy
    except ImportError:
        return missing
    except Exception as exc:  # a broken CuPy install fails in many ways
        return False, f"CuPy failed to import: {exc}"
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        return False, f"CUDA reports no usable device: {exc}"
    if n == 0:
        return False, "CUDA reports no GPU"
    try:
        name = device_facts().name  # asked once per device (the query costs milliseconds)
    except Exception as exc:
        return False, f"the GPU cannot be used: {exc}"
    start_cupyx_import()  # what CuPy's first array-scalar operator imports, on a thread
    return True, f"GPU {name}"
