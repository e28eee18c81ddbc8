"""What the GPU launchers of triangles as data share: their kernels and their launch.

The kernels of ``kernels/listing.cu``, ``kernels/directed.cu`` and
``kernels/weighted.cu`` all run the schedule of ``kernels/triangle_visit.cuh``:
a group of lanes per oriented edge over a range of edges, grid stride. They
are compiled by :mod:`tricount.gpu._module` (memoized per device and defines)
and looked up by name in :data:`TRIANGLE_ENTRY_POINTS`. Nothing here imports
CuPy at module import.
"""

from __future__ import annotations

from tricount.errors import TricountError
from tricount.gpu._common import ceil_div, cupy, launch, resident_grid

__all__ = ["TRIANGLE_ENTRY_POINTS", "BLOCK_SIZE", "GROUP_SIZE", "get_triangle_kernel",
           "launch_edge_range"]

#: Every ``extern "C"`` kernel of these files, as (source stem, name).
TRIANGLE_ENTRY_POINTS = (
    ("listing", "tc_list_count"),
    ("listing", "tc_list_write"),
    ("directed", "tc_directed"),
    ("weighted", "tc_weighted"),
)

#: 256 threads per block: CuPy's and CUB's usual default; not tuned.
BLOCK_SIZE = 256
#: Lanes per edge, as :data:`tricount.gpu.per_vertex.PER_VERTEX_GROUP_SIZE`; not yet measured.
GROUP_SIZE = 8


def get_triangle_kernel(stem: str, name: str, **defines):
    """The compiled kernel ``name`` of ``kernels/<stem>.cu`` for the current device.

    ``defines`` become ``-DTC_<NAME>=value`` flags, as for
    :func:`tricount.gpu._module.get_kernel`, which serves these kernels once
    they are listed in its ``ENTRY_POINTS``; until then they are compiled by
    the same memoized path under this module's own list.
    """
    from tricount.gpu import _module

    if (stem, name) not in TRIANGLE_ENTRY_POINTS:
        raise TricountError(f"no kernel {name!r} in kernels/{stem}.cu; see TRIANGLE_ENTRY_POINTS")
    if (stem, name) in _module.ENTRY_POINTS:
        return _module.get_kernel(stem, name, **defines)
    key = tuple(sorted((f"TC_{k.upper()}", str(v)) for k, v in defines.items()))
    return _module._kernel(cupy().cuda.Device().id, stem, name, key)


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
