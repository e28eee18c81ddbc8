"""The CPU engine: Numba kernels over the degree-oriented CSR, SciPy's SpGEMM, a NumPy counter.

One method per file (``merge.py``, ``bitmap.py``, ``spgemm.py``, ``wedge_numpy.py``), the local
kernels beside them (``per_vertex.py``, ``edge_support.py``, ``truss.py``),
and :mod:`tricount.cpu.engine`, which resolves a method and times the count.
Importing this package imports no Numba; a kernel module compiles (or loads
from Numba's on-disk cache) when first imported and called. ``spgemm`` (SciPy) and
``numpy`` (NumPy alone) compile nothing: a first run's counters.

Threads and ``fork``: every kernel is a ``prange`` loop run inside
:func:`tricount._threads.parallel_region`, on the threading layer that
``import tricount`` asks Numba for: a fork-safe one (TBB where installed, else
Numba's workqueue on Linux), so that a process forked after a count, as
``multiprocessing`` does, can count again. The region holds one process-wide
lock, so counts started from several Python threads take turns instead of
aborting the workqueue layer. Set ``NUMBA_THREADING_LAYER`` to choose another
layer (``omp`` is thread safe but not fork safe with GNU OpenMP).
"""

#: Methods the CPU backend implements; ``auto`` resolves to one of them.
CPU_METHODS = ("merge", "bitmap", "spgemm", "numpy")
#: Methods that exist only on the GPU backend.
GPU_ONLY_METHODS = ("hash", "wedge", "bitwedge")

__all__ = ["CPU_METHODS", "GPU_ONLY_METHODS"]
