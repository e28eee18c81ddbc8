"""CUDA C++ sources of the GPU counting kernels (package data, read with importlib.resources).

One ``.cu`` file per method, beside its launcher ``tricount/gpu/<method>.py``;
``common.cuh`` holds the types and device helpers they share.
"""
