"""What the GPU launchers of triangles as data share: their kernels and their launch.

The kernels of ``kernels/directed.cu`` and ``kernels/weighted.cu`` run the
schedule of ``kernels/triangle_visit.cuh`` (built on ``local.cuh``): a group of
lanes per oriented edge over a range of edges, grid stride. (The listing's
kernels run the hash method's tasks: :mod:`tricount.gpu.listing`.) They are listed in :data:`tricount.gpu._module.ENTRY_POINTS`
and compiled by :func:`tricount.gpu._module.get_kernel` (memoized per device
and defines), with every define of the file passed from here. Nothing here
imports CuPy at module import.
"""

from __future__ import annotations

from tricount.gpu._local import local_defines
from tricount.gpu._module import get_kernel
from tricount.gpu.device import ceil_div, launch, resident_grid

__all__ = ["BLOCK_SIZE", "GROUP_SIZE", "default_defines", "get_triangle_kernel",
           "launch_edge_range"]

#: 256 threads per block: CuPy's and CUB's usual default; not tuned.
BLOCK_SIZE = 256
#: Lanes per edge, as :data:`tricount.gpu.per_vertex.PER_VERTEX_GROUP_SIZE`; not yet measured.
GROUP_SIZE = 8


def default_defines(stem: str) -> dict:
    """``{stem: defines}``: the ``#ifndef`` defaults of ``kernels/<stem>.cu``, a launcher's
    ``DEFAULT_DEFINES`` (tests/gpu/test_kernel_defines.py compares them with the file)."""
    return {stem: local_defines(block_size=BLOCK_SIZE, group_size=GROUP_SIZE, vertex_t="int",
                                edge_t="int")}


def get_triangle_kernel(stem: str, name: str, oriented, *, block_size: int = BLOCK_SIZE,
                        group_size: int = GROUP_SIZE, vertex_t: str = "int"):
    """The compiled kernel ``name`` of ``kernels/<stem>.cu`` for ``oriented`` on the current
    device, every define of the file given (``vertex_t``: the C type of its ids)."""
    edge_t = "int" if oriented.n_edges < 2**31 else "long long"
    return get_kernel(stem, name, local_defines(block_size=block_size, group_size=group_size,
                                                vertex_t=vertex_t, edge_t=edge_t))


def launch_edge_range(kernel, n_edges: int, args: tuple, *, block_size: int = BLOCK_SIZE,
                      group_size: int = GROUP_SIZE, grid_size: int | None = None) -> None:
    """Launch a kernel of the triangle_visit.cuh schedule over ``n_edges`` edges.

    A grid of ``None`` fills the device once, capped at one group per edge.
    Nothing is launched for an empty range.
    """
    if n_edges <= 0:
        return
    if grid_size is None:
        grid_size = resident_grid(kernel, block_size,
                                  work_blocks=ceil_div(n_edges, block_size // group_size))
    launch(kernel, grid_size, block_size, args)
