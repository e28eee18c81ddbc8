"""Property: a random graph written in any format, line ending and compression, read
from a file or through a pipe in any chunking (one byte at a time included), counts
as the in-memory graph does (issue 23)."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import sys
import threading
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tricount
from tricount.graph import CSRGraph
from tricount.io import _text, load_graph, source as _source, write_graph

sys.path.insert(0, str(Path(__file__).parent))
from io_support import feed_pipe  # noqa: E402

SETTINGS = settings(max_examples=30, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

#: format -> (file name, format= needed when the name is not seen, declares vertices)
FORMATS = {"snap": ("g.txt", "snap"), "graphchallenge": ("g_adj.tsv", "graphchallenge"),
           "mtx": ("g.mtx", "auto"), "mtx-real": ("g.mtx", "auto"), "metis": ("g.graph", "metis"),
           "metis-weights": ("g.graph", "metis"), "npy": ("g.npy", "auto"),
           "npz": ("g.npz", "auto"), "native": ("g.tcsr", "auto")}
COMPRESS = {None: lambda b: b, "gzip": gzip.compress, "bzip2": bz2.compress,
            "xz": lzma.compress}
try:
    import zstandard

    COMPRESS["zstd"] = lambda b: zstandard.ZstdCompressor(write_checksum=True).compress(b)
except ImportError:  # zstd support is optional
    pass


def text_of(fmt, src, dst, n, end, blank, sep):
    """The file's text; ``blank`` leading blank lines, ``sep`` between columns."""
    rows = []
    if fmt == "snap":
        rows = ["# random graph"] + [f"{u}{sep}{v}" for u, v in zip(src, dst)]
    elif fmt == "graphchallenge":
        rows = [f"{u + 1}{sep}{v + 1}{sep}1" for u, v in zip(src, dst)]
    elif fmt in ("mtx", "mtx-real"):
        field = "pattern" if fmt == "mtx" else "real"
        value = "" if fmt == "mtx" else f"{sep}-1.5e0"
        rows = [f"%%MatrixMarket matrix coordinate {field} general", "% c",
                f"{n} {n} {len(src)}"] + [f"{u + 1}{sep}{v + 1}{value}" for u, v in zip(src, dst)]
        blank = 0  # the banner is the first line
    else:  # METIS: the simple graph's adjacency, every edge at both ends
        adj = [set() for _ in range(n)]
        for u, v in zip(src, dst):
            if u != v:
                adj[u].add(v)
                adj[v].add(u)
        m = sum(len(a) for a in adj) // 2
        weights = fmt == "metis-weights"
        rows = ["% metis", f"{n} {m}" + (" 011" if weights else "")]
        for a in adj:
            rows.append(sep.join((["3"] if weights else [])
                                 + [f"{v + 1}{sep}2" if weights else str(v + 1)
                                    for v in sorted(a)]))
    return ("\n" * blank + "\n".join(rows) + "\n").replace("\n", end).encode()


def bytes_of(fmt, src, dst, n, end, blank, sep, tmp_path):
    if fmt == "npy":
        f = io.BytesIO()
        np.save(f, np.stack([src, dst], axis=1).astype(np.int64).reshape(-1, 2))
        return f.getvalue()
    if fmt == "npz":
        f = io.BytesIO()
        np.savez(f, src=np.asarray(src, dtype=np.int64), dst=np.asarray(dst, dtype=np.int64))
        return f.getvalue()
    if fmt == "native":
        path = tmp_path / "tmp.tcsr"
        write_graph(path, CSRGraph.from_edges(np.asarray(src, dtype=np.int64),
                                              np.asarray(dst, dtype=np.int64)))
        return path.read_bytes()
    return text_of(fmt, src, dst, n, end, blank, sep)


def load(data, name, fmt, delivery, tmp_path):
    if delivery == "file":
        path = tmp_path / name
        path.write_bytes(data)
        return load_graph(path)
    read_end, write_end = os.pipe()
    writer = threading.Thread(target=feed_pipe, args=(write_end, data, delivery))
    writer.start()
    try:
        return load_graph(f"/dev/fd/{read_end}", format=fmt)
    finally:
        writer.join()
        os.close(read_end)


@SETTINGS
@given(edges=st.lists(st.tuples(st.integers(0, 25), st.integers(0, 25)), max_size=80),
       fmt=st.sampled_from(sorted(FORMATS)), end=st.sampled_from(["\n", "\r\n", "\r"]),
       compression=st.sampled_from(sorted(COMPRESS, key=str)),
       delivery=st.sampled_from(["file", 1, 7, 4096]), blank=st.integers(0, 2),
       sep=st.sampled_from([" ", "\t", "  \t"]), chunk=st.sampled_from([None, 16, 300]))
def test_every_format_ending_compression_and_chunking(tmp_path, edges, fmt, end, compression,
                                                      delivery, blank, sep, chunk):
    src = np.array([e[0] for e in edges], dtype=np.int64)
    dst = np.array([e[1] for e in edges], dtype=np.int64)
    n = int(max(src.max(), dst.max())) + 1 if edges else 0
    want = CSRGraph.from_edges(src, dst)
    expected = tricount.count_triangles((src, dst), backend="reference")
    name, fmt_arg = FORMATS[fmt]
    data = COMPRESS[compression](bytes_of(fmt, src.tolist(), dst.tolist(), n, end, blank,
                                          sep, tmp_path))
    saved = _source.CHUNK_BYTES, _text.MIN_PIECE_BYTES
    if chunk:
        _source.CHUNK_BYTES, _text.MIN_PIECE_BYTES = chunk, 4
    try:
        got = load(data, name, fmt_arg, delivery, tmp_path)
    finally:
        _source.CHUNK_BYTES, _text.MIN_PIECE_BYTES = saved
    assert tricount.count_triangles(got, backend="cpu") == expected
    assert got.n_edges == want.n_edges
    if fmt in ("snap", "graphchallenge", "npy", "npz", "native"):
        assert got.n_vertices == want.n_vertices
