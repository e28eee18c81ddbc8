"""The per-process cache of prepared graphs (tricount.partition.worker_cache), on its own.

A stand-in graph records when it is made and closed; keys are built as the Dask executor
builds them, ``(count token, file_key(path))``.
"""

from __future__ import annotations

import os

import pytest

from tricount.partition.worker_cache import PreparedCache, file_key


class Held:
    """A prepared graph that says when it was closed."""

    def __init__(self, name):
        self.name, self.closed = name, False

    def close(self):
        self.closed = True
        return {"device": self.name}


@pytest.fixture
def graph_file(tmp_path):
    path = tmp_path / "g.tcsr"
    path.write_bytes(b"x" * 10)
    return path


class TestPreparedCache:
    def test_second_use_of_a_key_reuses_the_graph(self, graph_file):
        cache, key = PreparedCache(), ("count-1", file_key(graph_file))
        with cache.use(key, lambda: Held("a")) as (first, built):
            assert built
        with cache.use(key, lambda: Held("b")) as (second, built):
            assert not built and second is first
        assert cache.builds == 1 and not first.closed

    def test_a_rewritten_file_is_another_key(self, graph_file):
        cache = PreparedCache()
        old_key = ("count-1", file_key(graph_file))
        with cache.use(old_key, lambda: Held("old")) as (old, _):
            pass
        graph_file.write_bytes(b"y" * 11)  # another size (and modification time)
        new_key = ("count-1", file_key(graph_file))
        assert new_key != old_key
        with cache.use(new_key, lambda: Held("new")) as (new, built):
            assert built and new is not old
        assert old.closed and not new.closed and cache.builds == 2

    def test_same_size_new_mtime_is_another_key(self, graph_file):
        key = file_key(graph_file)
        st = os.stat(graph_file)
        os.utime(graph_file, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
        assert file_key(graph_file) != key and file_key(graph_file)[1] == key[1]

    def test_a_replacement_of_the_same_size_and_time_is_another_key(self, graph_file,
                                                                      tmp_path):
        # cp -p / rsync -t of another graph of as many vertices and edges: the same size
        # and modification time, and the workers would have read two graphs unnoticed.
        key = file_key(graph_file)
        other = tmp_path / "other.bin"
        data = bytearray(open(graph_file, "rb").read())
        data[-1] ^= 0xFF
        other.write_bytes(bytes(data))
        st = os.stat(graph_file)
        os.utime(other, ns=(st.st_atime_ns, st.st_mtime_ns))
        os.replace(other, graph_file)
        new = file_key(graph_file)
        assert new[:3] == key[:3] and new != key

    def test_one_graph_per_process(self):
        cache = PreparedCache()
        with cache.use(("c1", "a"), lambda: Held("a")) as (a, _):
            pass
        with cache.use(("c2", "b"), lambda: Held("b")) as (b, _):
            assert a.closed  # the old one went before the new one was made
        assert cache.key == ("c2", "b") and not b.closed

    def test_release_frees_the_graph_of_its_owner_only(self):
        cache = PreparedCache()
        with cache.use(("c1", "a"), lambda: Held("a")) as (a, _):
            pass
        assert cache.release("c2") is None and not a.closed  # another count's token
        assert cache.release("c1") == {"device": "a"}
        assert a.closed and cache.key is None
        assert cache.release("c1") is None  # nothing held

    def test_an_exception_while_used_releases_the_graph(self):
        cache = PreparedCache()
        with pytest.raises(RuntimeError):
            with cache.use(("c1", "a"), lambda: Held("a")) as (a, _):
                raise RuntimeError("out of memory, say")
        assert a.closed and cache.key is None

    def test_a_failed_build_holds_nothing(self):
        cache = PreparedCache()
        with cache.use(("c1", "a"), lambda: Held("a")) as (a, _):
            pass

        def fails():
            raise MemoryError("no room")

        with pytest.raises(MemoryError):
            with cache.use(("c1", "b"), fails):
                pass
        assert a.closed and cache.key is None and cache.builds == 1


def test_a_worker_rereads_a_replaced_file_of_the_same_size_and_time(tmp_path):
    # partition.blocks.open_source kept a file read by (path, size, mtime): a replacement of
    # the same size with its time kept (rsync -t) was counted as the old graph, 4 for 2.
    import shutil

    import tricount
    from tricount.partition.cpu import count_subproblem
    from tricount.partition.plan import SubProblem
    from tricount.partition.ranked import rank_graph, write_ranked

    k4 = tricount.Graph.from_edges([0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3], n_vertices=5)
    two = tricount.Graph.from_edges([0, 0, 0, 1, 1, 2], [1, 2, 4, 2, 3, 4], n_vertices=5)
    a, b, path = tmp_path / "a.tcsr", tmp_path / "b.tcsr", tmp_path / "g.tcsr"
    write_ranked(rank_graph(k4), a)
    write_ranked(rank_graph(two), b)
    assert a.stat().st_size == b.stat().st_size
    whole = SubProblem(index=0, apex_lo=0, apex_hi=5, entries=0, work=0, memory=0)
    shutil.copy2(a, path)
    assert count_subproblem(str(path), whole)["n_triangles"] == 4
    st = path.stat()
    shutil.copy2(b, tmp_path / "new.tcsr")
    os.replace(tmp_path / "new.tcsr", path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert count_subproblem(str(path), whole)["n_triangles"] == 2
