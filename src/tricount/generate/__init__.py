"""Seeded graph generators (NumPy on the CPU, CuPy on the GPU; same seed, same graph)."""

from tricount.generate.rmat import rmat, rmat_name

__all__ = ["rmat", "rmat_name"]
