"""tricount: exact triangle counting on GPUs and CPUs.

>>> import tricount
>>> tricount.count_triangles(([0, 1, 2], [1, 2, 0]), backend="cpu")
1

Importing tricount loads neither CuPy nor any compiled kernel; both load on
first use. The submodules users call (``tricount.generate``, ``tricount.io``,
``tricount.nx``, ``tricount.partition``, ``tricount.bench``) are imported on
first attribute access, so ``tricount.generate.rmat(...)`` works after a bare
``import tricount``:

>>> src, dst = tricount.generate.rmat(4, 4, seed=1)
>>> src.shape == dst.shape
True
"""

# Side effects first, before any kernel can run: tricount._threads asks Numba for a fork-safe
# threading layer (imports no Numba); tricount.gpu registers the GPU's preparation twins
# with tricount.prep.accel (imports no CuPy).
import tricount._threads
import tricount.gpu
import importlib

from tricount import directed, errors, inputs, listing, local, weighted
from tricount.api import count, count_triangles, load_graph
from tricount.directed import directed_triangle_counts, triadic_census
from tricount.errors import (
    BackendUnavailableError,
    GraphFormatError,
    InvalidArgumentError,
    InvalidEdgesError,
    TricountError,
    UnknownMethodError,
    UnsupportedGraphError,
)
from tricount.graph import CSRGraph, Graph
from tricount.local import (
    average_clustering,
    clustering,
    edge_dict,
    edge_support,
    k_truss,
    transitivity,
    triangles,
    truss_decomposition,
    vertex_dict,
)
from tricount.listing import list_triangles, write_triangles
from tricount.result import CountResult

__version__ = "0.1.0"

__all__ = [
    "count", "count_triangles", "load_graph",
    *(name for name in local.__all__ if name != "OUTPUTS"),
    "list_triangles", "write_triangles", "directed_triangle_counts", "triadic_census",
    "CSRGraph", "Graph", "CountResult",
    *(name for name in errors.__all__ if name.endswith("Error")),
]

#: Submodules imported on first attribute access (they load Numba, NetworkX or Dask).
LAZY_SUBMODULES = ("generate", "io", "nx", "partition", "bench", "backends", "reference")


def __getattr__(name):
    if name in LAZY_SUBMODULES:
        return importlib.import_module(f"tricount.{name}")
    raise AttributeError(f"module 'tricount' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(LAZY_SUBMODULES))
