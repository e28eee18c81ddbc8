"""Seeded graph generators (NumPy on the CPU, CuPy on the GPU; same seed, same graph).

Every generator returns the raw edge list as two int64 arrays ``(src, dst)`` in
the array module ``xp`` (``numpy`` by default, ``cupy`` for the GPU). Random
ones draw only from the counter-based stream of :mod:`tricount.generate._hash`
(integer hashing and exact conversions, never ``numpy.random``), so a seed gives
bit-identical arrays on both. Graph construction then drops loops and repeats.

- ``rmat``: R-MAT / Kronecker, graph500 parameters (spec ``rmat:scale=18``);
  ``rmat_chunks`` yields the same edges a chunk at a time, for graphs whose edge
  list does not fit in memory;
- ``erdos_renyi``: G(n, m), exactly m distinct edges (``er:n=1000,m=5000``);
- ``barabasi_albert``: preferential attachment (``ba:n=1000,m=4``);
- ``watts_strogatz``: rewired ring lattice (``ws:n=1000,k=10,p=0.1``);
- ``complete``: K_n, C(n, 3) triangles (``complete:n=100``);
- ``star``: a hub and leaves, no triangle (``star:n=1000``);
- ``grid``: 2-D grid or torus, no triangle (a torus with a side of 3 closes that
  side's rings into triangles) (``grid:rows=30,cols=40``).

Specs (:mod:`tricount.generate.spec`) name a generated graph in one string, for
``tricount bench`` and ``tricount generate``.

>>> from tricount.generate import complete, generate_spec
>>> src, dst = complete(5)
>>> int(src.shape[0])  # C(5, 2)
10
"""

from tricount.generate.barabasi_albert import barabasi_albert
from tricount.generate.complete import complete
from tricount.generate.erdos_renyi import erdos_renyi
from tricount.generate.grid import grid
from tricount.generate.rmat import RmatChunks, rmat, rmat_chunks, rmat_name
from tricount.generate.spec import GENERATORS, generate_spec, is_spec, parse_spec
from tricount.generate.star import star
from tricount.generate.watts_strogatz import watts_strogatz

__all__ = [
    "rmat",
    "rmat_name",
    "rmat_chunks",
    "RmatChunks",
    "erdos_renyi",
    "barabasi_albert",
    "watts_strogatz",
    "complete",
    "star",
    "grid",
    "GENERATORS",
    "generate_spec",
    "parse_spec",
    "is_spec",
]
