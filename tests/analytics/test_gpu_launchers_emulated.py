"""The GPU launchers' host logic, run without a GPU: NumPy in CuPy's place, kernels in Python.

What this checks: the windows and the tasks they skip, the double-buffered
stream (every window once, in order, each chunk a copy that outlives its
buffer), early closing, and the arguments each launcher passes, read the way
the kernels' signatures declare them. The emulated kernels visit each
triangle from its edge a -> b like ``triangle_visit.cuh`` (the listing's: from
the pairs of the hash plan's tasks, like ``listing.cu``) and are judged by the
CPU twins. What it cannot check: the CUDA itself (tests/analytics/test_analytics_gpu.py
on the GPU machine does).
"""

from __future__ import annotations

import ctypes
import types

import numpy as np
import pytest

import tricount
from tricount.cpu.directed import _roles, directed_triangles_cpu
from tricount.cpu.listing import list_triangles_cpu
from tricount.cpu.weighted import weighted_triangle_sums_cpu
from tricount.generate import rmat


class _Stream:
    ptr = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def record(self):
        return self

    def wait_event(self, event):
        pass

    def synchronize(self):
        pass


class _DeviceArray(np.ndarray):
    @property
    def data(self):  # CuPy's MemoryPointer, as far as the launchers read it
        return types.SimpleNamespace(ptr=self.ctypes.data)


def _memcpy_2d(dst, dpitch, src, spitch, width, height, kind, stream):
    for row in range(height):
        ctypes.memmove(dst + row * dpitch, src + row * spitch, width)


def _fake_cupy():
    cp = types.SimpleNamespace(**{name: getattr(np, name) for name in (
        "zeros", "full", "diff", "cumsum", "searchsorted", "asarray", "ascontiguousarray",
        "int64", "uint64", "uint32", "uint8", "float64")})
    cp.empty = lambda n, dtype: np.empty(n, dtype=dtype).view(_DeviceArray)
    cp.asnumpy = np.asarray
    cp.cuda = types.SimpleNamespace(Stream=_Stream, runtime=types.SimpleNamespace(
        memcpyAsync=lambda dst, src, size, kind, stream: ctypes.memmove(dst, src, size),
        memcpy2DAsync=_memcpy_2d))
    return cp


def _visits(indptr, rows, cols, e_begin, e_end):
    """(e, u, v, pu, pv) for each triangle, as triangle_visit.cuh hands them out."""
    for e in range(int(e_begin), int(e_end)):
        u, v = rows[e], cols[e]
        in_u = {cols[p]: p for p in range(indptr[u], indptr[u + 1])}
        for pv in range(indptr[v], indptr[v + 1]):
            if cols[pv] in in_u:
                yield e, u, v, in_u[cols[pv]], pv


def _null(pointer):
    return isinstance(pointer, np.uint64)


def _launch(kernel, n_edges, args, **tunables):
    """The kernels of directed.cu and weighted.cu, by their signatures."""
    if kernel == "tc_directed":
        indptr, rows, cols, omask, n_edges, n, per_vertex, codes = args
        for _e, u, v, pu, pv in _visits(indptr, rows, cols, 0, n_edges):
            m_ab, m_ac, m_bc = int(omask[_e]), int(omask[pu]), int(omask[pv])
            codes[m_ab | m_ac << 2 | m_bc << 4] += 1
            if not _null(per_vertex):
                r = _roles.py_func(m_ab, m_ac, m_bc)
                for x, roles in ((u, r[1::3]), (v, r[2::3]), (cols[pu], r[3::3])):
                    for row, count in enumerate((r[0], *roles)):
                        per_vertex[row * n + x] += count
    elif kernel == "tc_weighted":
        indptr, rows, cols, ow, n_edges, sums = args
        for e, u, v, pu, pv in _visits(indptr, rows, cols, 0, n_edges):
            for x in (u, v, cols[pu]):
                sums[x] += ow[e] * ow[pu] * ow[pv]
    else:
        raise AssertionError(kernel)


def _pair_hits(indptr, cols, x, y):
    """The common out-neighbours of the pair (owner x, partner y) in y's list order, as
    listing.cu's tc_task_visit finds them."""
    row_x = set(cols[indptr[x]:indptr[x + 1]].tolist())
    return [w for w in cols[indptr[y]:indptr[y + 1]].tolist() if w in row_x]


def _launch_tasks(kernel, grid, block, args, shared_bytes=0):
    """The kernels of listing.cu (tasks of the hash plan), by their signatures."""
    indptr, cols, partners, owner, begin, end, _n_block, n_tasks, _slots, _next, *tail = args
    for k in range(int(n_tasks)):
        pairs = range(int(begin[k]), int(end[k]))
        if kernel == "tc_list_count":
            (counts,) = tail
            for q in pairs:
                counts[q] = len(_pair_hits(indptr, cols, owner[k], partners[q]))
            continue
        assert kernel == "tc_list_write", kernel
        offsets, labels, t_begin, t_end, row_stride, column_stride, out = tail
        if offsets[pairs.stop] <= t_begin or offsets[pairs.start] >= t_end:
            continue
        flat = out.reshape(-1)  # the kernel's pointer: (k, 3) rows or 3 k column entries
        for q in pairs:
            for rank, c in enumerate(_pair_hits(indptr, cols, owner[k], partners[q])):
                t = offsets[q] + rank
                if t_begin <= t < t_end:
                    for column, x in enumerate(sorted((owner[k], partners[q], c))):
                        flat[(t - t_begin) * row_stride + column * column_stride] = (
                            x if _null(labels) else labels[x])


def _plan_tasks(shape, plan, owner_degree, owner_ids, edge_dtype):
    """Tasks of at most 3 probes, in pair order, all for warps."""
    from tricount.prep.partners import split_tasks

    tasks = split_tasks(plan, owner_degree, 3)
    return tasks.owner, tasks.begin, tasks.end, 0


@pytest.fixture
def gpu(monkeypatch):
    """The launcher modules with the fake CuPy and the Python kernels."""
    import tricount.gpu.directed as directed
    import tricount.gpu.listing as listing
    import tricount.gpu.weighted as weighted

    cp = _fake_cupy()
    monkeypatch.setitem(__import__("sys").modules, "cupyx",
                        types.SimpleNamespace(empty_pinned=lambda n, dtype: np.empty(n, dtype)))
    from tricount.prep.partners import plan_partners

    for module in (listing, directed, weighted):
        monkeypatch.setattr(module, "cupy", lambda: cp)
        monkeypatch.setattr(module, "kernel_arrays",
                            lambda o: (o.indptr, o.rows, o.indices, "int"))
    for module in (directed, weighted):
        monkeypatch.setattr(module, "get_triangle_kernel", lambda stem, name, oriented, **d: name)
        monkeypatch.setattr(module, "launch_edge_range", _launch)
    monkeypatch.setattr(listing, "plan_partners", plan_partners)
    monkeypatch.setattr(listing, "plan_tasks", _plan_tasks)
    monkeypatch.setattr(listing, "hash_kernel", lambda shape, cols, m, degree, *, stem, name:
                        (name, np.int64, 32, 0))
    monkeypatch.setattr(listing, "task_grid", lambda *args: 1)
    monkeypatch.setattr(listing, "launch", _launch_tasks)
    # Batches of 1 to 52 chunks: 2,500 bytes for the two batches of 24-byte rows.
    monkeypatch.setattr(listing, "free_device_bytes", lambda: 10_000)
    return types.SimpleNamespace(listing=listing, directed=directed, weighted=weighted)


@pytest.fixture(scope="module")
def oriented():
    return tricount.Graph.from_edges(*rmat(5, 8, seed=5)).oriented()  # 180 triangles


def _sorted_rows(rows):
    return rows[np.lexsort(rows.T[::-1])]


def test_listing_stream(gpu, oriented):
    # The GPU's rows are the CPU's in the hash plan's pair order, the same for every size.
    labels = np.arange(oriented.n_vertices) * 7 + 3
    upper = tricount.Graph.from_edges(*rmat(5, 8, seed=5)).upper()  # the same graph
    cpu = np.concatenate(list(list_triangles_cpu(upper, labels, 1000)))
    want = np.concatenate(list(gpu.listing.list_triangles_gpu(oriented, labels, 1000)))
    assert np.array_equal(_sorted_rows(want), _sorted_rows(cpu))
    for size in (1, 5, 7, 180, 1000):
        chunks = list(gpu.listing.list_triangles_gpu(oriented, labels, size))
        assert all(c.shape == (size, 3) for c in chunks[:-1])
        assert np.array_equal(np.concatenate(chunks), want), size
        device = list(gpu.listing.list_triangles_gpu(oriented, labels, size, to_host=False))
        assert np.array_equal(np.concatenate(device), want), size
    compact = np.concatenate(list(gpu.listing.list_triangles_gpu(oriented, None, 100)))
    assert np.array_equal(labels[compact], want)
    for size in (7, 1000):  # Parquet's columns: the same rows, column by column
        columns = [c.copy() for c in gpu.listing.iter_columns_gpu(oriented, labels, size)]
        assert np.array_equal(np.concatenate(columns, axis=1).T, want), size
    stream = gpu.listing.iter_columns_gpu(oriented, None, 10)
    next(stream)
    stream.close()


def test_directed_and_weighted(gpu, oriented):
    mask = np.random.default_rng(1).integers(1, 4, oriented.n_edges).astype(np.uint8)
    want = directed_triangles_cpu(oriented, mask)
    got = gpu.directed.directed_triangles_gpu(oriented, mask)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    counts, codes = gpu.directed.directed_triangles_gpu(oriented, mask, per_vertex=False)
    assert np.array_equal(codes, want[1]) and not counts.any()
    factors = np.random.default_rng(2).uniform(0.1, 1.0, oriented.n_edges)
    assert np.allclose(gpu.weighted.weighted_triangle_sums_gpu(oriented, factors),
                       weighted_triangle_sums_cpu(oriented, factors), rtol=1e-12)


def test_batches_hold_whole_chunks():
    from tricount.gpu.listing import BATCH_MEMORY_SHARE, batch_rows

    assert batch_rows(100, 7, 0) == 7
    assert batch_rows(100, 7, 10**12) == 105  # every row, in whole chunks
    free = int(2 * 24 * 7 * 3 / BATCH_MEMORY_SHARE)  # room for two batches of three chunks
    assert batch_rows(100, 7, free) == 21
