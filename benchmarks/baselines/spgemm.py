"""The linear-algebra count on the GPU: sum((L @ L) ∘ L) through cuSPARSE, in row blocks.

Counts: distinct triangles. L is the strictly lower-triangular adjacency of
the oriented graph (entry (v, u) for the oriented edge u -> v). (L @ L)[c, a]
counts the paths a -> b -> c; the mask L keeps the ones closed by a -> c, so
the triangle a < b < c (orientation order) is counted once, at (c, a).
``cupyx.scipy.sparse`` runs the product with cuSPARSE SpGEMM in float64, whose
integers are exact below 2^53 (an entry is at most the max out-degree); the
masked entries are converted to int64 before the sum.

Memory: cuSPARSE's default SpGEMM keeps buffers that grow with the
intermediate products (row c of L @ L costs sum of |row b of L| over the b in
row c). Rows of L are therefore taken in blocks whose products fit in the
free memory and stay under :data:`SPGEMM_MAX_BLOCK_PRODUCTS`, each block
giving (L[r0:r1] @ L) ∘ L[r0:r1]; the blocks' sums add up to the total. When
cuSPARSE still reports insufficient resources, the block is halved and tried
again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from tricount.errors import UnsupportedGraphError
from tricount.gpu import device
from tricount.gpu.device import cupy

__all__ = ["count_spgemm", "SpgemmShape", "SPGEMM_BYTES_PER_PRODUCT"]

#: Device bytes per intermediate product assumed when sizing a row block
#: (cuSPARSE does not publish its buffer sizes; a conservative planning figure).
SPGEMM_BYTES_PER_PRODUCT = 24
#: Share of the free memory one block may plan to use.
SPGEMM_MEMORY_SHARE = 0.5
#: At most this many intermediate products per cuSPARSE call: K_3000 in one
#: call (4.5e9 products) failed with CUSPARSE_STATUS_INSUFFICIENT_RESOURCES
#: on an H100 (2026-11-22); 2^28 keeps every call well inside 32-bit counts.
SPGEMM_MAX_BLOCK_PRODUCTS = 1 << 28


@dataclass(frozen=True)
class SpgemmShape:
    """``max_products`` caps the intermediate products per row block (default: what
    fits in half the free memory)."""

    method: ClassVar[str] = "spgemm"
    launcher: ClassVar[str] = "baselines.spgemm:count_spgemm"

    max_products: int | None = None  # per cuSPARSE call; None: half the free memory


SHAPE = SpgemmShape


def count_spgemm(oriented, shape: SpgemmShape, timed) -> int:
    """Triangles of an oriented CSR; the timed region has the host waiting inside it."""
    cp = cupy()
    import cupyx.scipy.sparse as sparse  # CuPy's own module: imported with it, on first use

    max_products = shape.max_products
    m, n = oriented.n_edges, oriented.n_vertices
    if m == 0:
        return 0
    device.require_memory(40 * m + 16 * n, f"spgemm on {m} edges (L and its transpose)")
    rows = cp.asarray(oriented.rows).astype(cp.int64)
    indices = cp.asarray(oriented.indices).astype(cp.int32)
    indptr = cp.asarray(oriented.indptr)
    total = 0
    with timed(host_syncs=True):
        upper = sparse.csr_matrix((cp.ones(m, dtype=cp.float64), indices, indptr), shape=(n, n))
        lower = upper.T.tocsr()  # row c of L: the a with a -> c, sorted
        # Products of row c of L @ L: sum over edges b -> c of |row b of L| = in-degree of b.
        in_deg = cp.diff(lower.indptr).astype(cp.int64)
        row_products = cp.bincount(cp.asarray(oriented.indices), weights=in_deg[rows].astype(cp.float64),
                                   minlength=n).astype(cp.int64)
        ends = cp.cumsum(row_products)
        n_products = int(ends[-1])
        budget = max_products or min(SPGEMM_MAX_BLOCK_PRODUCTS, int(
            SPGEMM_MEMORY_SHARE * device.free_device_bytes() // SPGEMM_BYTES_PER_PRODUCT))
        widest = int(row_products.max())
        if budget < widest:
            raise UnsupportedGraphError(
                f"spgemm: one row of L @ L has {widest} products, more than the {budget} that "
                "fit in GPU memory; use another method")
        r0, done = 0, 0
        while r0 < n and done < n_products:
            limit = cp.asarray([done + budget], dtype=cp.int64)
            r1 = int(cp.searchsorted(ends, limit, side="right")[0])
            r1 = min(max(r1, r0 + 1), n)
            block = lower[r0:r1]
            try:
                masked = (block @ lower).multiply(block)
            except Exception as exc:  # OutOfMemoryError, or CuSparseError: insufficient resources
                if "INSUFFICIENT_RESOURCES" not in str(exc) and \
                        not isinstance(exc, cp.cuda.memory.OutOfMemoryError):
                    raise
                if budget // 2 < widest:
                    raise UnsupportedGraphError(
                        f"spgemm: cuSPARSE could not multiply rows {r0}..{r1} of L ({exc}); "
                        "use another method") from exc
                budget //= 2  # a smaller block, same rows first
                continue
            if masked.nnz:
                total += int(masked.data.astype(cp.int64).sum())
            done = int(ends[r1 - 1])
            r0 = r1
    return total
