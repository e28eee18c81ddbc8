"""Graph preparation written once against an array namespace (NumPy or CuPy).

`canonical` turns raw edge arrays into the undirected simple graph; `orient`
turns that graph into the degree-oriented CSR the counting kernels read.
"""

from tricount.prep.canonical import CanonicalEdges, canonical_edges, validate_edge_arrays
from tricount.prep.orient import OrientedCSR, orient_by_degree

__all__ = [
    "CanonicalEdges",
    "canonical_edges",
    "validate_edge_arrays",
    "OrientedCSR",
    "orient_by_degree",
]
