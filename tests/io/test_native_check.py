"""The structure check of a ``.tcsr`` read (:func:`tricount.io.native.csr_is_valid`).

It runs in tasks of ``CHECK_ENTRIES`` entries; here that is made tiny so that rows and
row starts fall across every task boundary, and each verdict is compared with a
row-by-row reading of the definition (rows in range, increasing, above their row).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tricount.io import native


def valid_by_rows(indptr, indices, n) -> bool:
    if indptr[0] != 0 or indptr[n] != len(indices):
        return False
    for r in range(n):
        a, b = int(indptr[r]), int(indptr[r + 1])
        if a > b or a < 0 or b > len(indices):
            return False
        previous = r
        for c in indices[a:b]:
            if not previous < c < n:
                return False
            previous = int(c)
    return True


@st.composite
def upper_csrs(draw):
    """A strictly upper CSR, then perhaps one entry or one offset changed."""
    n = draw(st.integers(1, 14))
    rows = [sorted(draw(st.sets(st.integers(r + 1, n - 1), max_size=n))) if r < n - 1 else []
            for r in range(n)]
    indptr = np.zeros(n + 1, dtype=np.int64)
    indptr[1:] = np.cumsum([len(row) for row in rows])
    indices = np.array([c for row in rows for c in row], dtype=np.int32)
    change = draw(st.sampled_from(["none", "entry", "swap", "offset"]))
    if change == "entry" and len(indices):
        indices[draw(st.integers(0, len(indices) - 1))] = draw(st.integers(-2, n + 1))
    elif change == "swap" and len(indices) > 1:
        i, j = draw(st.integers(0, len(indices) - 1)), draw(st.integers(0, len(indices) - 1))
        indices[i], indices[j] = indices[j], indices[i]
    elif change == "offset" and n > 1:
        indptr[draw(st.integers(1, n - 1))] = draw(st.integers(0, len(indices)))
    return indptr, indices, n


@pytest.mark.parametrize("task_entries", [1, 3, 7, 1 << 24])
@settings(max_examples=150, deadline=None)
@given(csr=upper_csrs())
def test_the_check_agrees_with_the_definition(csr, task_entries):
    indptr, indices, n = csr
    ends_ok = indptr[0] == 0 and indptr[n] == len(indices)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(native, "CHECK_ENTRIES", task_entries)
        got = bool(ends_ok and native.csr_is_valid(indptr, indices, n))
    assert got == valid_by_rows(indptr, indices, n)


def test_an_entry_below_its_row_across_a_task_boundary(monkeypatch):
    # Rows 0 and 1 of a 4-vertex graph; row 1's first entry (1) is not above its row, and
    # it is the first entry of the second task.
    monkeypatch.setattr(native, "CHECK_ENTRIES", 2)
    indptr = np.array([0, 2, 3, 3, 3])
    assert native.csr_is_valid(indptr, np.array([1, 2, 2], dtype=np.int32), 4)
    assert not native.csr_is_valid(indptr, np.array([1, 2, 1], dtype=np.int32), 4)
    # A row continuing across the boundary must still increase there.
    indptr = np.array([0, 3, 3, 3, 3])
    assert native.csr_is_valid(indptr, np.array([1, 2, 3], dtype=np.int32), 4)
    assert not native.csr_is_valid(indptr, np.array([1, 3, 2], dtype=np.int32), 4)
