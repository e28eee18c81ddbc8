"""A chunk's row per entry (``Chunk.rows``, kernel ``tc_slice_entry_rows``) on a real GPU.

Judged by ``np.repeat`` of the row ids over the rows' lengths, on CSRs whose rows
are separated by runs of empty rows of every length around the kernel's step
limit and past a million (where a lane searches instead of stepping), cut into
chunks of every size, whole rows and pieces of rows.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from gpu_support import require_gpu  # noqa: E402

pytestmark = pytest.mark.gpu
require_gpu()

import cupy  # noqa: E402

from tricount.gpu.chunks import DeviceCSR  # noqa: E402


def csr_with_empty_runs(runs, seed):
    """Offsets of rows of 1-40 entries, each followed by an empty run from ``runs``."""
    rng = np.random.default_rng(seed)
    lengths = []
    for run in runs:
        lengths.append(int(rng.integers(1, 41)))
        lengths.extend([0] * run)
    lengths.append(int(rng.integers(1, 41)))
    return np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("runs", [
    [0, 1, 2, 15, 16, 17, 31, 32, 33, 100],
    [0] * 50 + [3] * 50,
    [1 << 20, 5, (1 << 20) + 3, 0, 16, 1 << 21],
])
def test_rows_of_every_chunk_across_runs_of_empty_rows(runs, dtype):
    indptr = csr_with_empty_runs(runs, seed=len(runs))
    n_rows, n_entries = indptr.size - 1, int(indptr[-1])
    want = np.repeat(np.arange(n_rows, dtype=np.int64), np.diff(indptr))
    csr = DeviceCSR(cupy.asarray(indptr), cupy.arange(n_entries, dtype=cupy.int32))
    for max_entries in (1, 7, 33, 1000, n_entries):
        seen = 0
        for chunk in csr.chunks(0, n_rows, max_entries):
            got = cupy.asnumpy(chunk.rows(dtype))
            assert got.dtype == dtype
            np.testing.assert_array_equal(got, want[chunk.e0:chunk.e1],
                                          err_msg=f"{max_entries=} chunk {chunk.r0}..{chunk.r1}")
            seen += chunk.n_entries
        assert seen == n_entries
