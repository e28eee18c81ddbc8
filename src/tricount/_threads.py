"""The CPU's parallel runtime: a Numba threading layer that survives ``fork``, one loop at a time.

Numba runs ``prange`` loops on a *threading layer* chosen once per process, at
the first parallel launch. On Linux without TBB its default is GNU OpenMP, and
a child forked after OpenMP has started in the parent dies at its first
parallel loop ("fork() called from a process already using GNU OpenMP, this is
unsafe"), which breaks ``multiprocessing`` after any count. Importing tricount
therefore asks Numba for its ``forksafe`` layer: TBB where it is installed,
else Numba's own workqueue on Linux (a fork-safe OpenMP elsewhere). The request
is made through ``NUMBA_THREADING_LAYER`` (and ``numba.config`` when Numba was
imported first), so Numba itself is not imported; a layer the user chose
through that variable or ``numba.config`` is left alone, and one already
started cannot be changed.

The workqueue layer is not thread safe: two parallel loops launched at once
from two Python threads abort the process. Every parallel loop of tricount
therefore runs inside :func:`parallel_region`, which holds one process-wide
lock: calls from several threads take turns, each using every core.

Numba's start-up: the first kernel a process compiles or loads from the disk
cache makes Numba fill its CPU target's registries, and one of them
(``numba.np.arraymath``) probes for BLAS by importing ``scipy.linalg``, which
drags in SciPy's array-API layer and ``numpy.f2py``: 0.56 s of the 0.93 s that
the first cached kernel cost on the 2-core development machine (2026-11-25,
cProfile), where tricount's kernels use no BLAS. :func:`load_numba` fills the
registries with that probe answered "not yet" and then tells Numba the truth
(SciPy is installed), so the probe's only user, ``np.correlate``/``np.convolve``
compiled later, imports SciPy's BLAS then, as Numba would have at start-up.
Every tricount module with Numba kernels imports Numba through it.

TBB, installed with tricount on Linux x86-64 (a dependency there; elsewhere
``pip install tbb`` where a wheel exists), is the layer that scales: it schedules
the chunks a loop asks for (``parallel_region``'s ``chunk_size``; the other layers
split a loop into equal parts, numba/numba#8284), its threads wait without
spinning, and a parallel region costs a third of the workqueue layer's (karate's
bitmap count in regions on 16 cores 0.33 -> 0.11 ms, 2026-11-27). Numba looks for
``libtbb.so.12`` on the loader's path, which a virtual environment's ``lib`` folder
is not on, so the pip-installed TBB would go unused; :func:`load_numba` loads it
first, from where its wheel put it, and Numba's own lookup then finds it.

Numba's disk cache: every kernel is compiled with ``cache=True``, and Numba refuses to
define one ("cannot cache function ...: no locator available") where it finds no writable
place for its cache (the package folder, ``NUMBA_CACHE_DIR``, the user's cache folder):
a read-only install with a read-only home, as containers and cluster nodes have, failed
every command that used such a kernel. :func:`load_numba` gives Numba one more place,
tried last: a folder of this process's own under the temporary directory, removed at exit
(private, so no other user's files are ever loaded as code). Such a process compiles its
kernels once for itself, seconds, and counts as any other.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import os
import shutil
import sys
import tempfile
import threading

__all__ = ["FORK_SAFE_LAYER", "request_fork_safe_layer", "parallel_region", "load_numba",
           "renew_in_child",
           "numba_started", "thread_count", "serial_bound"]

#: The CPU engine counts a graph of fewer edges on the calling thread, each parallel
#: kernel's serial twin in place of its parallel region (tricount.prep._parallel): below
#: it a region's entry (about 0.1 ms; a bitmap count enters six, merge one) costs more
#: than the threads win. benchmarks/results/cpu_calling_thread.md (2-core development
#: machine, 2026-11-26, calling thread against parallel regions): bitmap wins on the
#: calling thread up to polblogs (16,715 edges, 1.33x), and between 22,000 and 26,000
#: edges the two swap from run to run; merge wins up to ca-GrQc (14,484, 1.13x) and loses
#: from polblogs (0.55x). One bound for both, the power of two under merge's crossover.
#: Not measured on 16 cores, where threads win sooner and a region costs more.
SERIAL_MAX_EDGES = 1 << 14
#: The bitmap counter's one pass (tricount.cpu.bitmap.count_one_pass) on two threads or
#: fewer: it wins up to four times that bound. benchmarks/results/cpu_calling_thread.md
#: (2-core development machine, 2026-11-27 10:38-10:45 UTC, the engine's bitmap count,
#: medians): ca-HepTh (25,973 edges) 2.95x faster on the calling thread, ppi (37,845)
#: 1.15-1.78x, R-MAT 12 (48,504) 1.49x, R-MAT 13 with edge factor 8 (55,377) 0.95x, R-MAT
#: 13 (102,096) 0.71x; the regions' medians are bimodal there (R-MAT 12: their min 0.98 ms
#: against the one pass's 1.19, their median 1.80). Those are the workqueue layer's regions;
#: on TBB (a region 0.05 ms on two threads) the two swap from graph to graph between 16,715
#: and 55,377 edges (ppi 0.77 against 0.60 ms in regions, R-MAT 12 1.20 against 1.37,
#: ca-HepTh 0.34 against 0.39), so the bound serves both. On 16 threads the regions win from
#: 16,715 to 25,973 edges (cpu_vs_gapbs_16_h100.md), so more threads keep the bound.
BITMAP_FEW_THREADS = 2
BITMAP_FEW_THREADS_FACTOR = 4
#: A serial twin's qualified name is its kernel's plus this (Numba's cache files are named
#: by it, which tricount.backends.facts reads).
SERIAL_TWIN_SUFFIX = "_serial"

#: Numba's name for "a layer that survives fork" (see the module doc).
FORK_SAFE_LAYER = "forksafe"

_REGION_LOCK = threading.RLock()
_START_LOCK = threading.Lock()
_CACHE_LOCK = threading.Lock()
_started = False


def renew_in_child(namespace: dict, **makers) -> None:
    """In a forked child, set each ``namespace[name]`` (a module's globals) to ``make()``.

    A child forked while another thread of the parent held a lock inherits it held, and no
    thread of its own will ever release it: its first parallel loop waited forever (a count
    in a thread, then a fork; the fork-safe layer itself was fine). Module-level locks, and
    what belongs to the parent's threads (a thread pool, its temporaries), start anew there.
    """
    os.register_at_fork(after_in_child=lambda: namespace.update(
        {name: make() for name, make in makers.items()}))


renew_in_child(globals(), _REGION_LOCK=threading.RLock, _START_LOCK=threading.Lock,
               _CACHE_LOCK=threading.Lock)

#: The module whose import is Numba's BLAS probe (``numba.np.linalg.ensure_blas``).
_BLAS_PROBE = "scipy.linalg.cython_blas"


def request_fork_safe_layer() -> None:
    """Ask Numba for :data:`FORK_SAFE_LAYER` unless the user chose a layer (see the module doc)."""
    if "NUMBA_THREADING_LAYER" in os.environ:
        return
    numba = sys.modules.get("numba")
    if numba is not None and numba.config.THREADING_LAYER != "default":
        return  # set through numba.config before tricount was imported
    os.environ["NUMBA_THREADING_LAYER"] = FORK_SAFE_LAYER
    if numba is not None:  # its config was read at its import: set it there too
        numba.config.THREADING_LAYER = FORK_SAFE_LAYER


def numba_started() -> bool:
    """Whether this process has Numba imported and its CPU target filled, by
    :func:`load_numba` or by any kernel run (a kernel then costs its cache load or its
    compilation, not Numba's start-up)."""
    return _started or "numba.np.arraymath" in sys.modules


def thread_count() -> int:
    """The threads a parallel loop runs on: Numba's count once it has started, else what
    it will take (``NUMBA_NUM_THREADS``, or the CPUs this process may run on)."""
    numba = sys.modules.get("numba")
    if numba is not None and _started:
        return int(numba.get_num_threads())
    try:
        return max(1, int(os.environ["NUMBA_NUM_THREADS"]))
    except (KeyError, ValueError):
        pass
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def serial_bound(method: str, threads: int, bound: int = SERIAL_MAX_EDGES) -> int:
    """The edges under which ``method``'s count runs on the calling thread when it would
    have ``threads`` threads: ``bound`` (:data:`SERIAL_MAX_EDGES`, or a caller's own), times
    :data:`BITMAP_FEW_THREADS_FACTOR` for the bitmap counter on at most
    :data:`BITMAP_FEW_THREADS` threads.

    >>> serial_bound("merge", 2), serial_bound("bitmap", 2), serial_bound("bitmap", 16)
    (16384, 65536, 16384)
    """
    few = method == "bitmap" and threads <= BITMAP_FEW_THREADS
    return bound * BITMAP_FEW_THREADS_FACTOR if few else bound


def load_numba():
    """The ``numba`` module, its CPU target filled without the BLAS probe (see the module doc).

    Idempotent and thread safe; costs nothing once done. Where Numba's internals
    differ from what this expects, Numba starts as it would have.
    """
    global _started
    import numba

    if _started:
        return numba
    with _START_LOCK:
        if not _started:
            _preload_tbb()
            _add_last_cache_place()
            _fill_target()
            _started = True
    return numba


_private_cache = None  # (folder, the process that made it)


def _private_cache_folder() -> str:
    """This process's own cache folder (made at the first call, removed at its exit; a
    forked child keeps using it and leaves it to its parent)."""
    global _private_cache
    with _CACHE_LOCK:
        if _private_cache is None:
            _private_cache = (tempfile.mkdtemp(prefix="tricount-numba-"), os.getpid())
            atexit.register(_remove_private_cache, *_private_cache)
    return _private_cache[0]


def _remove_private_cache(folder: str, owner: int) -> None:
    if os.getpid() == owner:
        shutil.rmtree(folder, ignore_errors=True)


def _add_last_cache_place() -> None:
    """Append a locator of :func:`_private_cache_folder` to Numba's (see the module doc)."""
    try:
        from numba.core import caching

        base, places = caching.UserProvidedCacheLocator, caching.CacheImpl._locator_classes
    except (ImportError, AttributeError):  # another Numba: it caches as it would have
        return
    if any(getattr(place, "tricount_private", False) for place in places):
        return

    class PrivateCacheLocator(base):
        tricount_private = True

        def __init__(self, py_func, py_file):
            super().__init__(py_func, py_file)
            self._cache_path = os.path.join(_private_cache_folder(),
                                            self.get_suitable_cache_subpath(py_file))

        @classmethod
        def from_function(cls, py_func, py_file):
            # Past UserProvidedCacheLocator's test of NUMBA_CACHE_DIR: the mixin's own.
            return super(base, cls).from_function(py_func, py_file)

    places.append(PrivateCacheLocator)


#: The TBB library Numba's TBB layer opens by name (Linux; Numba needs interface 12060+).
_LIBTBB = "libtbb.so.12"


def _preload_tbb() -> str | None:
    """Load the pip-installed TBB (see the module doc); its path, or None when there
    is none, the layer asked for is not one TBB serves, or it fails to load."""
    layer = os.environ.get("NUMBA_THREADING_LAYER", "default")
    if not sys.platform.startswith("linux") or layer not in ("default", "forksafe",
                                                                "threadsafe", "tbb"):
        return None
    try:
        from importlib import metadata

        files = metadata.distribution("tbb").files or ()
        found = [f for f in files if f.name == _LIBTBB]
        path = str(found[0].locate()) if found else None
    except Exception:  # no tbb distribution, or metadata we cannot read
        return None
    if path is None or not os.path.exists(path):
        return None
    import ctypes

    try:
        ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    except OSError:
        return None
    return path


def _fill_target() -> None:
    """Fill Numba's CPU registries with its BLAS probe answered "not yet", then set the
    probe's answer to whether SciPy is installed (as it would have been)."""
    if "scipy.linalg" in sys.modules:  # the probe is free: nothing to defer
        return
    held = _BLAS_PROBE not in sys.modules
    if held:
        sys.modules[_BLAS_PROBE] = None  # import raises ImportError at once
    try:
        from numba.core.registry import cpu_target

        cpu_target.target_context.refresh()
    except Exception:  # another Numba: it starts on its own at the first kernel
        return
    finally:
        if held and sys.modules.get(_BLAS_PROBE, 0) is None:
            del sys.modules[_BLAS_PROBE]
    arraymath = sys.modules.get("numba.np.arraymath")
    if arraymath is not None and hasattr(arraymath, "_HAVE_BLAS"):
        arraymath._HAVE_BLAS = importlib.util.find_spec("scipy") is not None


@contextlib.contextmanager
def parallel_region(chunk_size: int = 0):
    """Run one Numba parallel loop: hold the process-wide lock, and hand out
    ``chunk_size`` iterations at a time (0: Numba's equal split)."""
    numba = load_numba()  # loaded with the first kernel, never by ``import tricount``

    with _REGION_LOCK, numba.parallel_chunksize(chunk_size):
        yield


request_fork_safe_layer()
