"""The CPU backend: Numba kernels over the degree-oriented CSR, and SciPy's SpGEMM."""

#: Methods the CPU backend implements; ``auto`` resolves to one of them.
CPU_METHODS = ("merge", "bitmap", "spgemm")
#: Methods that exist only on the GPU backend.
GPU_ONLY_METHODS = ("binary", "dynamic", "shared", "radix", "hash", "wedge", "bitwedge")

__all__ = ["CPU_METHODS", "GPU_ONLY_METHODS"]
