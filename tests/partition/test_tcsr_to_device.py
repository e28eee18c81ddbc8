"""A plain .tcsr read straight into device memory (tricount.io.native_gpu), with CuPy emulated.

Where the partitioned count's plan copies the graph to the device whole, the file's blocks go
from the file to pinned buffers to the device, checksummed on the way, and the CSR is
checked on the device; everywhere else the file is read into host memory as before. The
real copies run in test_partition_gpu.py on a GPU.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tricount
from tricount.errors import GraphFormatError

sys.path.insert(0, str(Path(__file__).parent))
import emulated_gpu  # noqa: E402
from partition_gpu_support import count_gpu as gpu_count  # noqa: E402
from partition_gpu_support import oracle, rmat_graph, shrink  # noqa: E402

fake_gpu = emulated_gpu.fake_gpu  # the fixture, shared with test_partition_gpu_emulated


@pytest.fixture
def reads(monkeypatch):
    """The files read straight to a device, and those read into host memory, by path."""
    import tricount.io
    from tricount.io import native_gpu

    seen = {"device": [], "host": []}
    to_device, to_host = native_gpu.read_to_device, tricount.io.load_graph

    def spy_device(native, **kw):
        seen["device"].append(Path(native.path).name)
        return to_device(native, **kw)

    def spy_host(path, **kw):
        seen["host"].append(Path(path).name)
        return to_host(path, **kw)

    monkeypatch.setattr(native_gpu, "read_to_device", spy_device)
    monkeypatch.setattr(tricount.io, "load_graph", spy_host)
    return seen


@contextlib.contextmanager
def _blocks(block_bytes):
    """Files written meanwhile have checksum blocks of ``block_bytes`` (None: the default)."""
    from tricount.io import native

    before = native.BLOCK_BYTES
    native.BLOCK_BYTES = block_bytes or before
    try:
        yield
    finally:
        native.BLOCK_BYTES = before


def _files(tmp_path, graph, block_bytes=None):
    """The graph as a plain .tcsr and in rank order (small checksum blocks if asked)."""
    from tricount.io import write_native
    from tricount.partition import prepare_ranked

    plain, ranked = tmp_path / "g.tcsr", tmp_path / "g.ranked.tcsr"
    with _blocks(block_bytes):
        write_native(plain, graph)
        prepare_ranked(graph, ranked)
    return plain, ranked


def test_a_file_the_device_keeps_goes_straight_there(fake_gpu, reads, tmp_path, monkeypatch):
    graph = rmat_graph(seed=11)
    plain, ranked = _files(tmp_path, graph, block_bytes=512)
    expected = oracle(graph)
    for path in (plain, ranked):
        for k in (None, 1, 3):
            n, report = gpu_count(str(path), partitions=k)
            assert n == expected, (path.name, k)
            assert report.graph["edges"] == graph.n_edges
    assert reads == {"device": ["g.tcsr"] * 3 + ["g.ranked.tcsr"] * 3, "host": []}


def test_every_device_reads_the_file_itself(fake_gpu, reads, tmp_path):
    graph = rmat_graph(seed=13)
    plain, ranked = _files(tmp_path, graph)
    expected = oracle(graph)
    for path in (plain, ranked):
        n, report = gpu_count(str(path), devices=[0, 0])  # two workers, each its own copy
        assert n == expected and report.n_subproblems == 1
        # which device counts which piece is the work queue's choice (one may take all)
        assert sum(d["items"] for d in report.devices) == len(report.subproblems)
    assert reads == {"device": ["g.tcsr"] * 2 + ["g.ranked.tcsr"] * 2, "host": []}


def test_a_file_streamed_is_read_into_host_memory(fake_gpu, reads, tmp_path, monkeypatch):
    graph = rmat_graph(seed=13)
    plain, ranked = _files(tmp_path, graph)
    expected = oracle(graph)
    shrink(monkeypatch)  # the rank-ordered CSR never stays on the device: streamed
    for path in (plain, ranked):
        assert gpu_count(str(path), partitions=2)[0] == expected
        assert gpu_count(str(path), devices=[0, 0])[0] == expected
    assert reads == {"device": [], "host": ["g.tcsr"] * 2 + ["g.ranked.tcsr"] * 2}


@pytest.mark.parametrize("threads,chunk_blocks", [(1, 1), (3, 2), (8, 64)])
def test_the_arrays_read_are_the_files(fake_gpu, tmp_path, monkeypatch, threads, chunk_blocks):
    # Checksum blocks of 256 bytes: the payload is many chunks, read by several threads
    # into two pinned buffers each; a graph with original ids has a section left unread.
    from tricount.io import load_graph
    from tricount.io.native import native_file
    from tricount.io.native_gpu import read_to_device

    graph = rmat_graph(scale=8, seed=17)
    plain, ranked = _files(tmp_path, graph, block_bytes=256)
    named = tmp_path / "named.tcsr"
    relabelled = tricount.Graph.from_edges(*(3 * np.asarray(e) + 5 for e in graph.edges()))
    with _blocks(256):
        tricount.io.write_native(named, relabelled)
    for path in (plain, ranked, named):
        native = native_file(str(path))
        assert native.header["block_bytes"] == 256 and native.header["size"] > 30 * 256
        indptr, indices = read_to_device(native, threads=threads, chunk_blocks=chunk_blocks,
                                         check_entries=97)
        host = load_graph(str(path))
        assert np.array_equal(fake_gpu.asnumpy(indptr), host.indptr)
        assert np.array_equal(fake_gpu.asnumpy(indices), host.indices)
        assert indices.dtype == host.indices.dtype


def test_a_corrupt_or_truncated_file_is_refused(fake_gpu, tmp_path, monkeypatch):
    from tricount.io.native import native_file
    from tricount.io.native_gpu import read_to_device

    graph = rmat_graph(scale=8, seed=19)
    plain, _ = _files(tmp_path, graph, block_bytes=256)
    native = native_file(str(plain))
    data = bytearray(plain.read_bytes())
    at = native.header["header_bytes"] + native.header["indices_at"] + 1000
    data[at] ^= 0x10
    corrupt = tmp_path / "corrupt.tcsr"
    corrupt.write_bytes(bytes(data))
    with pytest.raises(GraphFormatError, match="corrupt.tcsr.*checksum mismatch in bytes"):
        read_to_device(native_file(str(corrupt)), threads=2, chunk_blocks=1)
    # Truncated after its header was checked (another process rewriting it): a short read.
    plain.write_bytes(bytes(plain.read_bytes()[: at]))
    with pytest.raises(GraphFormatError, match="g.tcsr.*truncated"):
        read_to_device(native, threads=2, chunk_blocks=3)
    # And through the count: the user sees the file named, no count.
    with pytest.raises(GraphFormatError, match="corrupt.tcsr.*checksum"):
        gpu_count(str(corrupt))


def test_files_other_than_plain_native_ones_are_read_as_before(fake_gpu, reads, tmp_path):
    import gzip

    from tricount.io import write_graph
    from tricount.io.native import native_file

    graph = rmat_graph(scale=7, seed=23)
    plain, _ = _files(tmp_path, graph)
    packed = tmp_path / "g.tcsr.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    text = tmp_path / "g.txt"
    write_graph(text, graph)
    assert native_file(str(packed)) is None and native_file(str(text)) is None
    for path in (packed, text):
        assert gpu_count(str(path))[0] == oracle(graph)
    assert reads == {"device": [], "host": ["g.tcsr.gz", "g.txt"]}


@st.composite
def _csrs(draw):
    """An upper CSR of a random simple graph, perhaps with one offset or id spoilt."""
    n = draw(st.integers(1, 24))
    pairs = draw(st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=60))
    edges = sorted({(min(a, b), max(a, b)) for a, b in pairs if a != b})
    indptr = np.zeros(n + 1, dtype=np.int64)
    for u, _ in edges:
        indptr[u + 1] += 1
    indptr = np.cumsum(indptr)
    indices = np.array([v for _, v in edges], dtype=np.int32)
    if edges and draw(st.booleans()):
        indices[draw(st.integers(0, len(edges) - 1))] = draw(st.integers(-1, n))
    if n > 1 and draw(st.integers(0, 4)) == 0:
        indptr[draw(st.integers(1, n - 1))] = draw(st.integers(0, len(edges)))
    return indptr, indices, n, draw(st.integers(2, 9))


@settings(max_examples=400, deadline=None)
@given(_csrs())
def test_the_device_check_agrees_with_the_host_check(case):
    from tricount.io.native import csr_is_valid
    from tricount.io.native_gpu import csr_is_valid_on_device

    indptr, indices, n, window = case
    monotone = indptr[0] == 0 and indptr[n] == indices.shape[0] and bool(
        (indptr[1:] >= indptr[:-1]).all())
    expected = monotone and csr_is_valid(indptr, indices, n)
    assert csr_is_valid_on_device(indptr, indices, n, window=window) == expected


def test_count_sends_a_file_that_does_not_fit_to_parts_unread(fake_gpu, reads, tmp_path,
                                                              monkeypatch):
    # tricount.count("big.tcsr", backend="gpu") of a graph whose in-memory count does not fit
    # (R-MAT 28 on one H100): decided from the header, the file goes to the partitioned
    # count as a path, and the device reads it; the host never holds the graph.
    import tricount.partition.gpu as partition_gpu

    graph = rmat_graph(seed=31)
    plain, _ = _files(tmp_path, graph)
    monkeypatch.setattr(partition_gpu, "fits_in_memory",
                        lambda *a, **k: (False, "the in-memory count does not fit: (test)"))
    result = tricount.count(str(plain), backend="gpu")
    assert result.n_triangles == oracle(graph)
    assert result.partition["why"] == "the in-memory count does not fit: (test)"
    assert result.graph["edges"] == graph.n_edges
    assert reads == {"device": ["g.tcsr"], "host": []}


def test_count_reads_the_header_to_choose(fake_gpu, tmp_path, monkeypatch):
    # The memory check itself (no stand-in): 28 KB cannot hold the in-memory count's
    # graph and oriented copy (about 32 KB here), the partitioned count can; the default
    # budget holds the in-memory count (which reads the file on the host, as before).
    from tricount.partition import device_plan

    shrink(monkeypatch)
    monkeypatch.setattr(device_plan, "ORIENT_KEY_BYTES", 100)
    monkeypatch.setattr(device_plan, "PAIR_ENTRY_BYTES", 200)
    graph = rmat_graph(scale=8, seed=19)
    plain, _ = _files(tmp_path, graph)
    result = tricount.count(str(plain), backend="gpu", max_memory=28_000)
    assert result.n_triangles == oracle(graph)
    assert result.partition["why"].startswith("the in-memory count does not fit")
    from tricount.api import _file_does_not_fit  # the default budget: the in-memory count

    assert _file_does_not_fit("gpu", str(plain), "auto", "auto", None, {}) is None
    assert _file_does_not_fit("cpu", str(plain), "auto", "auto", 28_000, {}) is None
