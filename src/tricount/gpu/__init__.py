"""The GPU backend (CuPy + CUDA C++). Importing this package does not import CuPy.

``engine.count`` orients the graph on the GPU and runs one of
:data:`GPU_METHODS`; each method is a launcher ``tricount/gpu/<method>.py``
beside its kernel ``tricount/gpu/kernels/<method>.cu`` (``spgemm`` uses
cuSPARSE instead).
"""

from __future__ import annotations

from tricount.prep import accel

__all__ = ["probe", "GPU_METHODS"]

#: Methods the GPU backend implements; ``auto`` resolves to one of them.
GPU_METHODS = ("merge", "binary", "dynamic", "bitmap", "shared", "radix", "spgemm", "hash", "wedge",
               "bitwedge")


# CuPy arrays get the GPU's fused preparation steps (imported only when first asked for).
accel.register("cupy", "tricount.gpu.prepare")


def probe() -> tuple[bool, str]:
    """Say whether a GPU is usable here, and why not when it is not.

    Imports CuPy (only when called) and asks the CUDA runtime for devices.
    """
    try:
        import cupy
    except ImportError:
        return False, "CuPy is not installed (pip install 'tricount[cuda13]' or 'tricount[cuda12]')"
    except Exception as exc:  # a broken CuPy install fails in many ways
        return False, f"CuPy failed to import: {exc}"
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        return False, f"CUDA reports no usable device: {exc}"
    if n == 0:
        return False, "CUDA reports no GPU"
    try:
        from tricount.gpu._common import device_facts

        name = device_facts()["name"]  # asked once per device (the query costs milliseconds)
    except Exception as exc:
        return False, f"the GPU cannot be used: {exc}"
    return True, f"GPU {name}"
