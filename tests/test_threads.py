"""The CPU's parallel runtime survives fork and concurrent threads (tricount._threads).

The scenario runs in a fresh interpreter, without NUMBA_THREADING_LAYER in its
environment (so tricount makes the choice), because a failure there is the death
of the process: "fork() called from a process already using GNU OpenMP" in the
child, or the workqueue layer's abort on concurrent launches.
"""

from __future__ import annotations

import os
import subprocess
import sys
from math import comb
from pathlib import Path
from types import SimpleNamespace

import pytest

from tricount import _threads

SRC = Path(__file__).resolve().parents[1] / "src"

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")

#: K_60 has C(60, 3) = 34,220 triangles; the scenario counts it.
assert comb(60, 3) == 34_220
SETUP = """
import os, sys, threading
import numpy as np
import tricount
src, dst = np.triu_indices(60, k=1)
EXPECTED = 34_220
def count(method="bitmap"):
    return tricount.count_triangles((src, dst), backend="cpu", method=method)
"""


def run(script: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_THREADING_LAYER"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-c", SETUP + script], capture_output=True,
                          text=True, env=env, timeout=300)


@needs_fork
def test_threads_take_turns_and_a_forked_child_counts():
    # One interpreter for both scenarios (each start costs seconds of imports):
    # four threads count at once (the workqueue layer aborts on concurrent launches
    # unless tricount serialises them), then a child forked after those parallel
    # counts counts again and exits 0 only if its counts are right.
    out = run("""
results = []
def work():
    results.extend(count(m) for m in ("bitmap", "merge") * 10)
threads = [threading.Thread(target=work) for _ in range(4)]
for t in threads: t.start()
for t in threads: t.join()
print(len(results), sorted(set(results)))
pid = os.fork()
if pid == 0:
    os._exit(0 if count("merge") == EXPECTED and count("bitmap") == EXPECTED else 1)
_, status = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(status))
""")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["80 [34220]", "0"], out.stderr


@needs_fork
def test_a_child_forked_while_another_thread_holds_the_locks_counts():
    # A child forked while another thread of the parent held the parallel region (a count
    # in a thread pool, then a fork) inherited the lock held and waited for it forever at
    # its first parallel loop. K_200's 19,900 edges take the parallel route. The child also
    # starts with none of the parent's temporaries to remove.
    out = run("""
import tricount._threads as T, tricount.io.output as O, tricount.partition.ranked as R
import tricount.partition.blocks as B, tricount.backends.costs as C
import tricount.cpu.walk_numpy as W
src, dst = np.triu_indices(200, k=1)
assert count("merge") == 1_313_400
held, go = threading.Event(), threading.Event()
def hold():
    with T._REGION_LOCK, T._START_LOCK, O._LIVE_LOCK, R._LOCK, B._OPEN_LOCK, \\
            C._CANDIDATES_LOCK, W._lock:
        held.set()
        go.wait()
O._LIVE.add("/nonexistent/.parent-temporary")
threading.Thread(target=hold).start()
held.wait()
pid = os.fork()
if pid == 0:
    ok = count("merge") == 1_313_400 and count("bitmap") == 1_313_400 and not O._LIVE
    os._exit(0 if ok else 1)
_, status = os.waitpid(pid, 0)
go.set()
print(os.waitstatus_to_exitcode(status))
""")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["0"], out.stderr


def test_the_fork_safe_layer_is_requested_unless_the_user_chose(monkeypatch):
    # A stand-in for an already imported Numba, so the real one's layer is never touched.
    numba = SimpleNamespace(config=SimpleNamespace(THREADING_LAYER="default"))
    monkeypatch.setitem(sys.modules, "numba", numba)
    monkeypatch.delenv("NUMBA_THREADING_LAYER", raising=False)
    _threads.request_fork_safe_layer()
    assert os.environ["NUMBA_THREADING_LAYER"] == "forksafe"
    assert numba.config.THREADING_LAYER == "forksafe"
    # The user's choice, through the environment or through numba.config, stays.
    numba.config.THREADING_LAYER = "default"
    monkeypatch.setenv("NUMBA_THREADING_LAYER", "tbb")
    _threads.request_fork_safe_layer()
    assert os.environ["NUMBA_THREADING_LAYER"] == "tbb" and numba.config.THREADING_LAYER == "default"
    monkeypatch.delenv("NUMBA_THREADING_LAYER")
    numba.config.THREADING_LAYER = "omp"
    _threads.request_fork_safe_layer()
    assert "NUMBA_THREADING_LAYER" not in os.environ and numba.config.THREADING_LAYER == "omp"


class TestPreloadTbb:
    """Numba opens TBB by name; tricount loads the pip-installed one first (or nothing)."""

    @staticmethod
    def _distribution(monkeypatch, files):
        from importlib import metadata

        def distribution(name):
            if name != "tbb":
                raise metadata.PackageNotFoundError(name)
            return SimpleNamespace(files=files)

        monkeypatch.setattr(metadata, "distribution", distribution)

    def test_nothing_without_a_tbb_distribution(self, monkeypatch):
        from importlib import metadata

        def missing(name):
            raise metadata.PackageNotFoundError(name)

        monkeypatch.setattr(metadata, "distribution", missing)
        monkeypatch.delenv("NUMBA_THREADING_LAYER", raising=False)
        assert _threads._preload_tbb() is None

    def test_nothing_for_a_layer_tbb_does_not_serve(self, monkeypatch):
        from importlib import metadata

        asked = []
        monkeypatch.setattr(metadata, "distribution", asked.append)
        monkeypatch.setenv("NUMBA_THREADING_LAYER", "workqueue")
        assert _threads._preload_tbb() is None and asked == []  # not even looked for

    def test_a_listed_library_that_is_missing_is_skipped(self, monkeypatch, tmp_path):
        monkeypatch.setenv("NUMBA_THREADING_LAYER", "forksafe")
        gone = SimpleNamespace(name="libtbb.so.12", locate=lambda: tmp_path / "libtbb.so.12")
        self._distribution(monkeypatch, [gone])
        assert _threads._preload_tbb() is None

    def test_a_library_that_fails_to_load_is_skipped(self, monkeypatch, tmp_path):
        monkeypatch.setenv("NUMBA_THREADING_LAYER", "forksafe")
        broken = tmp_path / "libtbb.so.12"
        broken.write_bytes(b"not a shared object")
        listed = SimpleNamespace(name="libtbb.so.12", locate=lambda: broken)
        self._distribution(monkeypatch, [listed])
        if not sys.platform.startswith("linux"):
            pytest.skip("the TBB preload is for Linux")
        assert _threads._preload_tbb() is None


def test_kernels_compile_where_no_cache_place_is_writable(tmp_path):
    # A read-only install with a read-only home: Numba found no place for its cache and
    # refused to define a kernel ("cannot cache function ...: no locator available"), a
    # traceback for every command that used one. Numba's own places are taken away here;
    # the private folder tricount adds is used, and removed when the process ends.
    out = run("""
from numba.core import caching
from tricount import _threads
_threads.load_numba()
places = caching.CacheImpl._locator_classes
places[:] = [p for p in places if getattr(p, "tricount_private", False)]
assert len(places) == 1
src, dst = np.triu_indices(200, k=1)
print(count("merge") == count("bitmap") == 1_313_400)
folder = _threads._private_cache[0]
print(any(name.endswith(".nbi") for _, _, names in os.walk(folder) for name in names))
print(folder)
""")
    assert out.returncode == 0, out.stderr
    ok, cached, folder = out.stdout.splitlines()
    assert (ok, cached) == ("True", "True") and not os.path.exists(folder)
