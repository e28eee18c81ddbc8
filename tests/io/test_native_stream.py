"""Streamed .tcsr files: byte for byte what the in-memory path writes, whole or not at all."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import tricount
from tricount.cli import main
from tricount.errors import GraphFormatError
from tricount.generate import rmat, rmat_chunks, rmat_name
from tricount.graph import CSRGraph
from tricount.io import load_graph, write_native, write_native_edges
from tricount.io.native import BLOCK_BYTES, NativeWriter
from tricount.prep.outofcore import ArrayChunks, BuildPlan

SRC = Path(__file__).resolve().parents[2] / "src"

#: Plans of the bounded build: one bucket; buckets of 500 keys; keys spilled to a file.
PLANS = [BuildPlan(device="cpu"), BuildPlan(device="cpu", bucket_keys=500),
         BuildPlan(device="cpu", bucket_keys=300, spill=True)]


def temporaries(folder: Path) -> list:
    return [p.name for p in folder.iterdir() if ".tricount-" in p.name]


@pytest.mark.parametrize("scale,chunk", [(8, 97), (8, 777), (11, 4096), (14, 65_537)])
def test_generated_file_is_byte_identical_to_the_in_memory_one(tmp_path, scale, chunk):
    name = rmat_name(scale, 16, 1)
    src, dst = rmat(scale, 16, seed=1)
    write_native(tmp_path / "memory.tcsr", CSRGraph.from_edges(src, dst, name=name))
    expected = (tmp_path / "memory.tcsr").read_bytes()
    for k, plan in enumerate(PLANS):
        path = tmp_path / f"stream{k}.tcsr"
        built = write_native_edges(path, rmat_chunks(scale, 16, seed=1, chunk_edges=chunk),
                                   name=name, plan=plan)
        assert path.read_bytes() == expected, plan
        assert built.indptr is None and built.n_edges == load_graph(path).n_edges
    assert temporaries(tmp_path) == []


def test_ids_with_gaps_uint64_and_declared_vertices_round_trip(tmp_path):
    src = np.array([2**63 - 1, 5, 5, 9, 9], dtype=np.uint64)  # the largest id a file holds
    dst = np.array([5, 9, 9, 5, 9], dtype=np.uint64)
    write_native_edges(tmp_path / "a.tcsr", ArrayChunks(src, dst, 2), plan=PLANS[2])
    write_native(tmp_path / "b.tcsr", CSRGraph.from_edges(src, dst))
    assert (tmp_path / "a.tcsr").read_bytes() == (tmp_path / "b.tcsr").read_bytes()
    assert load_graph(tmp_path / "a.tcsr").vertex_ids.tolist() == [5, 9, 2**63 - 1]
    src[0] = 2**64 - 1  # stored as the int64 -1 before: refused by both writers
    for write in (lambda: write_native_edges(tmp_path / "c.tcsr", ArrayChunks(src, dst, 2),
                                             plan=PLANS[2]),
                  lambda: write_native(tmp_path / "c.tcsr", CSRGraph.from_edges(src, dst))):
        with pytest.raises(GraphFormatError, match="past 2\\*\\*63-1"):
            write()
        assert not (tmp_path / "c.tcsr").exists()
    s, d = np.array([1, 2]), np.array([2, 3])
    write_native_edges(tmp_path / "c.tcsr", [(s, d)], n_vertices=6, plan=PLANS[1])
    g = load_graph(tmp_path / "c.tcsr")
    assert g.n_vertices == 6 and g.indptr.tolist() == [0, 0, 1, 2, 2, 2, 2]


def test_pieces_crossing_checksum_blocks(tmp_path):
    # A path of 2.5 M edges: 20 MB of row offsets, 10 MB of indices and 20 MB of ids,
    # six 8 MiB blocks, the indices written in odd pieces.
    n = 2_500_001
    indptr = np.minimum(np.arange(n + 1, dtype=np.int64), n - 1)
    indices = np.arange(1, n, dtype=np.int32)
    g = CSRGraph.from_upper_csr(indptr, indices, n, vertex_ids=np.arange(n) * 3, name="path")
    write_native(tmp_path / "whole.tcsr", g)
    with open(tmp_path / "pieces.tcsr", "wb") as f:
        w = NativeWriter(f, n_vertices=n, n_edges=n - 1, index_bytes=4, has_ids=True, name="path")
        w.write_indptr(indptr)
        for a in range(0, n - 1, 734_567):
            w.write_indices(indices[a: a + 734_567])
        w.write_vertex_ids(np.arange(n) * 3)
        w.close(g.max_degree)
    whole = (tmp_path / "whole.tcsr").read_bytes()
    assert len(whole) > 2 * BLOCK_BYTES and (tmp_path / "pieces.tcsr").read_bytes() == whole
    assert load_graph(tmp_path / "pieces.tcsr").n_edges == n - 1


def test_writer_refuses_more_than_it_declared(tmp_path):
    with open(tmp_path / "x.tcsr", "wb") as f:
        w = NativeWriter(f, n_vertices=2, n_edges=1, index_bytes=4, has_ids=False)
        w.write_indptr(np.array([0, 1, 1]))
        with pytest.raises(ValueError, match="more payload"):
            w.write_indices(np.arange(100, dtype=np.int32))


class TestWholeOrNotAtAll:
    def chunks_then(self, failure):
        """R-MAT 10 in chunks, ``failure`` raised on the second pass's third chunk."""
        passes = []

        def make():
            passes.append(1)
            for k, chunk in enumerate(rmat_chunks(10, 16, seed=1, chunk_edges=1000)):
                if len(passes) == 2 and k == 3:
                    raise failure
                yield chunk
        return make

    @pytest.mark.parametrize("failure", [RuntimeError("disk gone"), KeyboardInterrupt()])
    def test_a_failure_midway_leaves_the_old_file(self, tmp_path, failure):
        path = tmp_path / "g.tcsr"
        path.write_bytes(b"old content")
        with pytest.raises(type(failure)):
            write_native_edges(path, self.chunks_then(failure), plan=PLANS[2])
        assert path.read_bytes() == b"old content"
        assert temporaries(tmp_path) == []

    def test_a_full_disk_is_an_output_error_naming_the_file(self, tmp_path, monkeypatch):
        import errno

        from tricount.io.output import OutputError

        def full(self, data):
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(NativeWriter, "_put", full)
        with pytest.raises(OutputError, match="g.tcsr: cannot write: no space left"):
            write_native_edges(tmp_path / "g.tcsr", rmat_chunks(6, 4), plan=PLANS[2])
        assert list(tmp_path.iterdir()) == []

    def test_ctrl_c_from_the_progress_callback(self, tmp_path):
        def progress(phase, done, total):
            if phase == "sort":
                raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            write_native_edges(tmp_path / "g.tcsr", rmat_chunks(9, 4, chunk_edges=100),
                               plan=PLANS[1], progress=progress)
        assert list(tmp_path.iterdir()) == []

    def test_sigint_ends_the_command_and_removes_its_temporary(self, tmp_path):
        # R-MAT 24 in chunks of 4096 edges: tens of thousands of chunks, so the write is far
        # from done when the signal comes (R-MAT 20 could finish between two looks at the
        # folder on a 16-core machine with a GPU).
        env = dict(os.environ, PYTHONPATH=str(SRC))
        proc = subprocess.Popen(
            [sys.executable, "-m", "tricount", "generate", "rmat", "--scale", "24",
             "--chunk-edges", "4096", "-o", str(tmp_path / "big.tcsr")],
            env=env, stderr=subprocess.PIPE)
        try:
            for _ in range(6000):  # wait (at most a minute) for the temporary to exist
                if temporaries(tmp_path) or proc.poll() is not None:
                    break
                time.sleep(0.01)
            assert temporaries(tmp_path), "the command ended before writing"
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
        assert proc.returncode == 130 and b"interrupted" in err
        assert list(tmp_path.iterdir()) == []


class TestGenerateCommand:
    def test_chunked_and_whole_writes_agree(self, tmp_path, capsys):
        argv = ["generate", "rmat", "--scale", "9", "--ef", "8", "--seed", "4"]
        assert main([*argv, "--chunk-edges", "999", "-o", str(tmp_path / "a.tcsr")]) == 0
        assert "bounded build" in capsys.readouterr().err
        assert main([*argv, str(tmp_path / "b.tcsr")]) == 0
        assert (tmp_path / "a.tcsr").read_bytes() == (tmp_path / "b.tcsr").read_bytes()
        g = load_graph(tmp_path / "a.tcsr")
        src, dst = rmat(9, 8, seed=4)
        assert tricount.count_triangles(g, backend="cpu") == tricount.count_triangles(
            (src, dst), backend="reference")

    def test_output_given_twice_or_never_is_a_usage_error(self, tmp_path, capsys):
        out = str(tmp_path / "a.tcsr")
        assert main(["generate", "rmat", "--scale", "4", out, "-o", out]) == 2
        assert main(["generate", "rmat", "--scale", "4"]) == 2
        assert "-o FILE" in capsys.readouterr().err


def test_a_long_name_is_cut_at_a_character(tmp_path):
    """The name is kept to 4096 bytes: cut inside a character it read back ending in U+FFFD."""
    name = "a" * 4095 + "é"
    write_native(tmp_path / "g.tcsr", CSRGraph.from_edges([0, 1], [1, 2], name=name))
    assert load_graph(tmp_path / "g.tcsr").name == "a" * 4095


def test_blocks_smaller_than_the_last_padding_are_written(tmp_path, monkeypatch):
    # The padding that ends the payload went to the CRC pool after it was shut down
    # (RuntimeError: cannot schedule new futures after shutdown) for blocks under 64 bytes.
    import tricount
    from tricount.io import load_graph, native, write_native

    g = tricount.Graph.from_edges([0, 1, 2, 2], [1, 2, 0, 3])
    for size in (1, 3, 16, 32):
        monkeypatch.setattr(native, "BLOCK_BYTES", size)
        path = tmp_path / f"b{size}.tcsr"
        write_native(str(path), g)
        assert tricount.count_triangles(load_graph(str(path)), backend="cpu") == 1
