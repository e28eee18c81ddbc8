"""tricount: exact triangle counting on GPUs and CPUs.

>>> import tricount
>>> tricount.count_triangles(([0, 1, 2], [1, 2, 0]), backend="cpu")
1

Importing tricount loads neither CuPy nor any compiled kernel; both load on
first use.
"""

# Side effects first, before any kernel can run: tricount._threads asks Numba for a fork-safe
# threading layer (imports no Numba); tricount.gpu registers the GPU's preparation twins
# with tricount.prep.accel (imports no CuPy).
import tricount._threads
import tricount.gpu
from tricount import errors, local
from tricount.api import count, count_triangles, load_graph
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
from tricount.result import CountResult

__version__ = "0.1.0"

__all__ = [
    "count", "count_triangles", "load_graph",
    *local.__all__,
    "CSRGraph", "Graph", "CountResult",
    *(name for name in errors.__all__ if name.endswith("Error")),
]
