"""The graph as the GPU executor reads it: a :class:`GraphSource` (an upper CSR on the host,
on a device or in an unread ``.tcsr``), made from what the user passed (:func:`graph_source`).
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field

import numpy as np

from tricount.errors import InvalidArgumentError
from tricount.partition.device_plan import DevicePlan

__all__ = ["GraphSource", "graph_source", "reads_file_to_device"]


def _cupy():
    from tricount.gpu.device import cupy

    return cupy()


@dataclass
class GraphSource:
    """An upper CSR for the executor: NumPy arrays, or CuPy arrays on device ``device``.

    ``ranked`` is True when the ids already are (degree, id) ranks (a
    :class:`~tricount.partition.ranked.RankedCSR`, a file written in rank
    order), None when the degrees will tell. ``in_degree`` (host int64, by
    rank) when known. ``summary`` holds the graph's facts for the result.
    """

    indptr: object
    indices: object
    n_vertices: int
    n_edges: int
    ranked: bool | None = None
    in_degree: object = None
    device: int | None = None
    summary: dict = field(default_factory=dict)
    rank: object = None  # host: the rank of every vertex of the graph this was ordered from
    #: A plain ``.tcsr`` not read yet (:func:`graph_source` with ``unread_file``): its arrays
    #: are None until :meth:`read_host` reads them, or a device reads the file itself
    #: (:meth:`~tricount.partition.device_worker.DeviceWorker._reader`, when its plan
    #: copies the graph there whole).
    file: object = None

    @property
    def index_dtype(self) -> np.dtype:
        if self.indices is None:
            return self.file.stored_index_dtype
        return np.dtype(self.indices.dtype)

    @property
    def index_bytes(self) -> int:
        return int(self.index_dtype.itemsize)

    @property
    def unread(self) -> bool:
        """A file whose arrays are not read yet."""
        return self.indices is None

    def read_host(self) -> "GraphSource":
        """This source with its arrays in host memory (a file read now, as
        :func:`tricount.io.load_graph` reads it); itself when they are."""
        if not self.unread:
            return self
        from tricount.io import load_graph

        graph = load_graph(self.file.path)
        return dataclasses.replace(self, indptr=graph.indptr, indices=graph.indices, file=None)

    def to_host(self) -> "GraphSource":
        """The same graph in NumPy arrays (for devices other than the one holding it)."""
        cp = _cupy()
        return dataclasses.replace(self, indptr=cp.asnumpy(self.indptr),
                                   indices=cp.asnumpy(self.indices), device=None)


def graph_source(graph, *, unread_file: bool = False) -> GraphSource:
    """A :class:`GraphSource` of a CSRGraph (host or device), a RankedCSR or a graph file
    (read into host memory; with ``unread_file``, a plain ``.tcsr`` whose index type is the
    graph's is left unread: only its header is checked, see :meth:`GraphSource.read_host`)."""
    from tricount.graph import CSRGraph
    from tricount.partition.ranked import RankedCSR

    if isinstance(graph, (str, os.PathLike)):
        from tricount.io import load_graph

        if unread_file:
            from tricount.io.native import native_file
            from tricount.prep.xp import index_dtype

            native = native_file(graph)
            if native is not None and native.stored_index_dtype == index_dtype(
                    native.n_vertices):
                return GraphSource(None, None, native.n_vertices, native.n_edges,
                                   summary=native.summary, file=native)

        graph = load_graph(graph)
    if isinstance(graph, RankedCSR):
        from tricount.io import graph_name

        name = graph_name(graph.path) if graph.path else None
        return GraphSource(graph.indptr, graph.indices, graph.n_vertices, graph.n_edges,
                           ranked=True, in_degree=graph.in_degree,
                           summary={"graph": name, "vertices": graph.n_vertices,
                                    "edges": graph.n_edges})
    if isinstance(graph, CSRGraph):
        device = None if graph.xp is np else int(graph.indptr.device.id)
        return GraphSource(graph.indptr, graph.indices, graph.n_vertices, graph.n_edges,
                           device=device,
                           summary={"graph": graph.name, "vertices": graph.n_vertices,
                                    "edges": graph.n_edges,
                                    "self_loops_dropped": graph.self_loops_dropped,
                                    "duplicates_dropped": graph.duplicates_dropped})
    raise InvalidArgumentError(f"the GPU partitioned count takes a Graph, a RankedCSR or a graph "
                               f"file path, got {type(graph).__name__}")


def reads_file_to_device(dplans: list[DevicePlan]) -> bool:
    """Whether an unread ``.tcsr`` goes straight from the file to each device
    (:mod:`tricount.io.native_gpu`) rather than through host memory: where every device
    copies the graph whole before its statistics (``upload_first``) and keeps the
    rank-ordered CSR. Each device then reads the file and prepares it on its own, where
    from host arrays several devices share the preparation (:mod:`shared_prep`)."""
    return all(p.upload_first and p.ranked_resident for p in dplans)
