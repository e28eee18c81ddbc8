"""CUDA C++ sources of the GPU kernels (package data, read with importlib.resources).

One ``.cu`` file per method or pass, beside its launcher: ``methods/<method>.py``
for the counting methods, ``prepare/`` for ``prep.cu`` and ``slice.cu``, and
``per_vertex.py``, ``edge_support.py``, ``truss.py`` for the local kernels;
``common.cuh``, ``local.cuh``, ``wedge.cuh`` and ``wedge_chunks.cuh`` hold what
several files share. ``timing.cu`` belongs to the benchmark's timer
(:mod:`tricount.bench.gpu_timer`).
"""
