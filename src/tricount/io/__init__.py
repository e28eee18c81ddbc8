"""Reading graphs from files.

``load_graph(path)`` reads a SNAP-style edge list, plain or gzip-compressed.
"""

from __future__ import annotations

import os

from tricount.graph import CSRGraph
from tricount.io.snap import read_snap, write_snap

__all__ = ["load_graph", "read_edges", "write_snap", "graph_name"]


def graph_name(path) -> str:
    """A short label for a file: its name without directory and known suffixes."""
    name = os.path.basename(os.fspath(path))
    for suffix in (".gz", ".txt", ".tsv", ".el", ".edges"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name


def read_edges(path):
    """Read a file's edge endpoints as ``(src, dst)`` int64 NumPy arrays."""
    return read_snap(path)


def load_graph(path) -> CSRGraph:
    """Load a graph file into a :class:`~tricount.CSRGraph`.

    Parameters
    ----------
    path : str or os.PathLike
        A SNAP-style edge list: ``#`` or ``%`` comment lines, then one
        ``source<whitespace>target`` line per edge; extra columns ignored;
        plain or gzip-compressed. Any non-negative 64-bit ids.

    Raises
    ------
    GraphFormatError
        Naming the file, the line and what was expected.
    """
    src, dst = read_edges(path)
    return CSRGraph.from_edges(src, dst, name=graph_name(path))
