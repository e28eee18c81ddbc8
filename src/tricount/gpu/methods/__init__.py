"""The counting methods ``auto`` can pick, each a launcher beside its kernel in ``../kernels``.

- :mod:`.hash`: owner-centric hash sets (``hash.cu``): skewed graphs;
- :mod:`.wedge`: wedge-parallel chunks of edges (``wedge.cu``, and ``wedge_fp.cu``
  over the fingerprint layout of :mod:`.fingerprints`): flat graphs;
- :mod:`.bitwedge`: wedges closed by bit tests against per-warp bitmaps
  (``bitwedge.cu``): graphs whose bitmaps stay on chip or in cache.

Every launcher is ``count_<method>(oriented, shape, timed) -> int``: an
oriented CSR on the device, its resolved launch shape from
:mod:`tricount.gpu.plan`, and a factory of context managers that the launcher
wraps around its kernel launches (timing, when the caller asks for it).
Methods kept only to compare against live in ``benchmarks/baselines``.
"""
