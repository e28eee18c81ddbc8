"""The facts the cost model (:mod:`tricount.backends.costs`) reads: what is counted
(:class:`Workload`, :func:`workload_of`), and what this process and this machine's disk
caches already hold (:class:`Warmth`, :func:`observe`), found without importing Numba or
CuPy.

What is counted: a graph's own sizes; for edge arrays their length; for a file its size,
its compression (a gzip member ends with its uncompressed size modulo 2^32) and the
lines of its first 64 KiB, from which the bytes per edge line and so the edges are
estimated (a Matrix Market or METIS header states them).

What is warm:

- **Numba**: whether it has started in this process (:func:`tricount._threads.numba_started`),
  and for each group of kernels a route needs (:data:`KERNEL_GROUPS`) whether every
  kernel is compiled in memory already, cached on disk (Numba's index file for it exists,
  was written by this Numba and for this source), or must be compiled. Numba looks for its
  cache, per function, in ``NUMBA_CACHE_DIR`` when set, else in ``__pycache__`` beside the
  source when that can be written, else in the user-wide cache (``$XDG_CACHE_HOME/numba``
  or ``~/.cache/numba``); :func:`numba_cache_dir` follows the same order, so an installed
  package in a read-only folder is cached per user.
- **SciPy**: whether ``scipy.sparse`` is imported (its import costs 0.2-0.5 s).
- **The GPU**: whether CuPy is importable and a device node exists (no CuPy import), whether
  CuPy is imported, whether this process has already counted on the GPU (the context is up,
  the kernels are loaded), and whether the route's kernels were compiled on this machine
  before (:mod:`tricount.gpu.warm`'s marker files; CuPy keeps the compiled code in its own
  disk cache, ``~/.cupy/kernel_cache``).

Every check is a file-system look-up or a ``sys.modules`` read: a few milliseconds in all.
Asked before every count, they are kept while nothing can have changed them: the kernels'
states while Numba has compiled or loaded nothing since (it takes its compiler lock for
either, and :class:`_CompileWatch` hears it through Numba's event API) and the disk's
answers are younger than :data:`DISK_RECHECK_S`; :func:`observe` returns the last
:class:`Warmth` itself when every fact is as before, so the routes predicted for it are
found again (:func:`tricount.backends.costs.candidates`).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib.util
import os
import re
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from tricount._threads import SERIAL_TWIN_SUFFIX, numba_started, thread_count
from tricount.gpu import cupy_installed
from tricount.gpu.host_edges import takes_ids

__all__ = ["Workload", "Warmth", "KERNEL_GROUPS", "KINDS", "workload_of", "observe",
           "numba_cache_dir", "kernel_state", "group_state", "gpu_presence"]

PACKAGE = Path(__file__).resolve().parents[1]

#: The Numba kernels (called from Python) of each piece of a CPU route, by source file
#: under ``src/tricount`` and function name. A kernel one of these calls is compiled and
#: cached with it. A renamed one reads as "not cached", which costs a wrong guess, never a
#: wrong count (``tests/test_costs.py`` checks that every one exists).
#: Kernels of :data:`KERNEL_GROUPS` compiled without ``parallel=True``: called as they are,
#: they have no serial twin.
_NOT_PARALLEL = {"_rank_by_degree"}

KERNEL_GROUPS = {
    "parse": (("io/_text.py", "parse_chunk"), ("io/_text.py", "gather_pieces")),
    "build": (("prep/build.py", "_count_rows"), ("prep/build.py", "_cursors_in_place"),
              ("prep/build.py", "_scatter"), ("prep/rowsort.py", "dedupe_rows")),
    "orient-rank": (("prep/_orient_cpu.py", "_split_rows"),
                    ("prep/_orient_cpu.py", "_rank_by_degree"),
                    ("prep/_orient_cpu.py", "_place_ranked"),
                    ("prep/_orient_cpu.py", "_sort_runs")),
    "orient-degree": (("prep/_orient_cpu.py", "_split_rows"),
                      ("prep/_orient_cpu.py", "_sort_runs")),
    "bitmap": (("cpu/bitmap.py", "_deferred_pairs"), ("cpu/bitmap.py", "_place_deferred"),
               ("cpu/bitmap.py", "_count_bitmap")),
    "merge": (("cpu/merge.py", "_count_merge"),),
}
# A graph under SERIAL_MAX_EDGES runs the parallel kernels' serial twins (their names plus
# SERIAL_TWIN_SUFFIX: tricount.prep._parallel), compiled and cached apart; the bitmap
# counter runs its one pass there instead (cpu/bitmap.py, count_one_pass).
KERNEL_GROUPS |= {
    f"{group}{SERIAL_TWIN_SUFFIX}": tuple(
        (relative, name if name in _NOT_PARALLEL else name + SERIAL_TWIN_SUFFIX)
        for relative, name in KERNEL_GROUPS[group])
    for group in ("orient-rank", "orient-degree", "merge")}
KERNEL_GROUPS[f"bitmap{SERIAL_TWIN_SUFFIX}"] = (("cpu/bitmap.py", "_count_one_pass"),)
# A mid-sized graph's bitmap count estimates its anchors' probes, and most such graphs are
# then counted in one region (cpu/one_region.py).
KERNEL_GROUPS["bitmap-anchors"] = (("cpu/bitmap.py", "_sampled_out_degree"),
                                   ("cpu/bitmap.py", "_count_at_anchors"))

#: A kernel's state: in memory in this process, in Numba's disk cache, or to compile.
LOADED, CACHED, COMPILE = "loaded", "cached", "compile"


#: The kinds of argument a count starts from.
KINDS = ("text", "binary", "edges", "host", "device", "device-edges")


@dataclass(frozen=True)
class Workload:
    """What is counted: ``kind`` (:data:`KINDS`: a text file to parse, a binary file, edge
    arrays on the host, a built graph on the host or the GPU, edge arrays on the GPU),
    undirected edges (``n_edges``, estimated for files and edge arrays: ``exact`` False),
    vertices, and for text files the bytes to parse, whether they are compressed and
    the format."""

    kind: str
    n_vertices: int
    n_edges: int
    text_bytes: int = 0
    compressed: bool = False
    exact: bool = True
    format: str = ""
    device_build: bool = False  # edge arrays the GPU builds itself (gpu.host_edges.takes_ids)

    @property
    def mean_degree(self) -> float:
        return 2.0 * self.n_edges / max(1, self.n_vertices)


@dataclass(frozen=True)
class Warmth:
    """The facts (see the module doc). ``kernels`` maps each group of
    :data:`KERNEL_GROUPS` to how many of its kernels are loaded, cached, to compile."""

    threads: int = 1
    numba_started: bool = False
    kernels: dict = field(default_factory=dict)
    scipy_sparse: bool = False
    numpy_formats: frozenset = frozenset()  # text formats io parses with NumPy alone
    numpy_max_bytes: int | None = None  # ... up to this much text (None: no limit known)
    gpu: str = "absent"          # "absent", "unknown" (CuPy and a device node: probe to know)
    gpu_why: str = ""            # why the GPU is absent
    cupy_imported: bool = False
    gpu_used: bool = False       # this process has counted on the GPU: context up, kernels loaded
    gpu_compiled: frozenset = frozenset()  # GPU routes compiled on this machine before

    def group(self, name: str) -> tuple[int, int, int]:
        """``(loaded, cached, to_compile)`` kernels of a group (all to compile if unknown)."""
        return self.kernels.get(name, (0, 0, len(KERNEL_GROUPS[name])))

    @functools.cached_property
    def key(self) -> tuple:
        """Every fact as one hashable value (``kernels`` as sorted pairs): equal keys, equal
        predictions (the route model's memo, :func:`tricount.backends.costs.candidates`)."""
        return tuple(tuple(sorted(value.items())) if isinstance(value, dict) else value
                     for value in (getattr(self, f.name) for f in _WARMTH_FIELDS))


_WARMTH_FIELDS = dataclasses.fields(Warmth)


# -- Numba's disk cache --------------------------------------------------------------------


def _user_cache_root() -> Path:
    """Numba's user-wide cache folder (its ``AppDirs("numba").user_cache_dir`` on Linux)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return Path(base) / "numba"


def _subpath(source: Path) -> str:
    """Numba's folder name for a source file's cache outside the source tree."""
    folder = os.path.dirname(os.path.abspath(source))
    return "_".join([os.path.split(folder)[-1], hashlib.sha1(folder.encode()).hexdigest()])


def _writable_folder(folder: Path) -> bool:
    """Whether Numba could make ``folder`` and write in it (its ``ensure_cache_path``)."""
    probe = folder
    while not probe.exists():
        probe = probe.parent
    return probe.is_dir() and os.access(probe, os.W_OK | os.X_OK)


def numba_cache_dir(source) -> Path:
    """Where Numba caches the kernels of ``source`` (a ``.py`` file), in its own order."""
    source = Path(source)
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"]) / _subpath(source)
    in_tree = source.parent / "__pycache__"
    if _writable_folder(in_tree):
        return in_tree
    return _user_cache_root() / _subpath(source)


_DEF = re.compile(rb"^def (\w+)\(", re.MULTILINE)
_VERSION = re.compile(r'"version": "([^"]+)"')


@functools.lru_cache(maxsize=64)
def _source_facts(source: str, mtime_ns: int, size: int) -> tuple[bytes, dict]:
    """The source's SHA-256 (Numba's stamp) and each module-level function's first line:
    its first decorator's, as ``co_firstlineno`` says."""
    text = Path(source).read_bytes()
    rows = text.split(b"\n")
    lines = {}
    line, at = 0, 0  # the 0-based line of offset ``at``, counted forward once
    for match in _DEF.finditer(text):
        line += text.count(b"\n", at, match.start())
        at = match.start()
        first = line
        while first > 0 and rows[first - 1].startswith(b"@"):
            first -= 1
        lines[match.group(1).decode()] = first + 1
    return hashlib.sha256(text).digest(), lines


@functools.lru_cache(maxsize=1)
def _numba_version() -> str | None:
    """The installed Numba's version, read from its ``_version.py`` (no import)."""
    spec = importlib.util.find_spec("numba")
    if spec is None or not spec.origin:
        return None
    try:
        found = _VERSION.search((Path(spec.origin).parent / "_version.py").read_text())
    except OSError:
        return None
    return found.group(1) if found else None


def _on_disk(source: Path, name: str, listings: dict) -> bool:
    """Whether Numba's index for ``name`` in ``source`` exists, is this Numba's and this
    source's (the stamp is the source's SHA-256, pickled as raw bytes in the index), and
    names a data file beside it. The signature is not checked (it needs Numba's types).
    ``listings`` caches each cache folder's file names for one observation."""
    try:
        st = os.stat(source)
        stamp, lines = _source_facts(str(source), st.st_mtime_ns, st.st_size)
    except OSError:
        return False
    defined = name[:-len(SERIAL_TWIN_SUFFIX)] if name.endswith(SERIAL_TWIN_SUFFIX) else name
    if defined not in lines:  # a twin's cache files carry its kernel's first line
        return False
    folder = str(numba_cache_dir(source))
    if folder not in listings:
        try:
            listings[folder] = set(os.listdir(folder))
        except OSError:
            listings[folder] = set()
    py = f"py{sys.version_info[0]}{sys.version_info[1]}{getattr(sys, 'abiflags', '')}"
    base = f"{source.stem}.{name}-{lines[defined]}.{py}"
    if f"{base}.nbi" not in listings[folder] or f"{base}.1.nbc" not in listings[folder]:
        return False
    try:
        with open(os.path.join(folder, f"{base}.nbi"), "rb") as f:
            index = f.read()
    except OSError:
        return False
    version = _numba_version()
    return stamp in index and not (version and version.encode() not in index[:64])


@functools.lru_cache(maxsize=None)
def _module_name(relative: str) -> str:
    """``tricount.cpu.bitmap`` for ``cpu/bitmap.py``."""
    return "tricount." + relative[:-len(".py")].replace("/", ".")


def _in_memory(relative: str, name: str) -> bool:
    """Whether the kernel's module is imported and the kernel compiled in this process."""
    kernel = getattr(sys.modules.get(_module_name(relative)), name, None)
    if kernel is None and name.endswith(SERIAL_TWIN_SUFFIX):
        twins = getattr(sys.modules.get("tricount.prep._parallel"), "TWINS", {})
        kernel = twins.get((_module_name(relative), name))
    return bool(getattr(kernel, "overloads", None))


#: Kernels seen compiled in this process: they stay so (Numba never drops an overload).
_LOADED: set = set()
#: The last disk answer per kernel, with the stamps it was read under: ``(relative,
#: name) -> (when, (cache folder, its mtime, the source's mtime), cached?)``. A compile
#: (here or in another process) adds files to the folder and so changes its mtime.
_DISK: dict = {}
#: An answer younger than this is taken without a look at the disk: what changes it
#: there is another process compiling, and guessing that a moment late costs a
#: prediction, never a count (the stat calls cost 0.2-0.5 ms a count otherwise).
DISK_RECHECK_S = 1.0


@functools.lru_cache(maxsize=None)
def _cache_folder(relative: str, numba_cache_env: str | None) -> str:
    """:func:`numba_cache_dir` of a kernel source, as a string, per ``NUMBA_CACHE_DIR``."""
    return str(numba_cache_dir(PACKAGE / relative))


def _disk_stamp(relative: str, listings: dict) -> tuple | None:
    """``(folder, folder mtime, source mtime)`` of a kernel source, or None when either
    is missing; ``listings`` caches each folder's stamp for one observation."""
    folder = _cache_folder(relative, os.environ.get("NUMBA_CACHE_DIR"))
    key = ("stamp", folder)
    if key not in listings:
        try:
            listings[key] = os.stat(folder).st_mtime_ns
        except OSError:
            listings[key] = None
    try:
        source_mtime = os.stat(os.path.join(PACKAGE, relative)).st_mtime_ns
    except OSError:
        return None
    return None if listings[key] is None else (folder, listings[key], source_mtime)


def kernel_state(relative: str, name: str, listings: dict | None = None) -> str:
    """:data:`LOADED`, :data:`CACHED` or :data:`COMPILE` for one kernel.

    Cheap when asked again (every ``tricount.count`` asks): a kernel once seen
    loaded is loaded for good, and the disk is read again only when the cache
    folder or the source changed since the last answer (two ``stat`` calls).
    """
    listings = {} if listings is None else listings
    if (relative, name) in _LOADED:
        return LOADED
    if _in_memory(relative, name):
        _LOADED.add((relative, name))
        return LOADED
    now = time.monotonic()
    known = _DISK.get((relative, name))
    if known is not None and now - known[0] < DISK_RECHECK_S:
        return CACHED if known[2] else COMPILE
    stamp = _disk_stamp(relative, listings)
    if stamp is None or known is None or known[1] != stamp:
        cached = stamp is not None and _on_disk(PACKAGE / relative, name, listings)
    else:
        cached = known[2]
    if stamp is not None:
        _DISK[(relative, name)] = (now, stamp, cached)
    return CACHED if cached else COMPILE


def group_state(group: str, listings: dict | None = None) -> tuple[int, int, int]:
    """``(loaded, cached, to_compile)`` over the kernels of one of :data:`KERNEL_GROUPS`."""
    listings = {} if listings is None else listings
    states = [kernel_state(relative, name, listings) for relative, name in KERNEL_GROUPS[group]]
    return states.count(LOADED), states.count(CACHED), states.count(COMPILE)


# -- the GPU, without CuPy ------------------------------------------------------------------


def gpu_presence() -> tuple[str, str]:
    """``(state, why)``: "unknown" when CuPy is installed and a device node exists (only a
    probe, which imports CuPy, can tell more), "present" once this process has used the
    GPU, else "absent" and why."""
    device = sys.modules.get("tricount.gpu.device")
    if device is not None and device._device_facts.cache_info().currsize:
        return "present", "this process has used the GPU"
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and visible.strip() in ("", "-1"):
        return "absent", f"CUDA_VISIBLE_DEVICES={visible!r} hides every GPU"
    if not cupy_installed():
        return "absent", ('CuPy is not installed (pip install ".[cuda13]" or ".[cuda12]" '
                          "from a tricount clone)")
    if not (os.path.exists("/dev/nvidiactl") or os.path.exists("/dev/dxg")):
        return "absent", "no NVIDIA device node (/dev/nvidiactl)"
    return "unknown", "CuPy is installed and a device node exists"


def _gpu_compiled() -> frozenset:
    from tricount.gpu import warm

    return warm.compiled_routes()


def numpy_formats() -> frozenset:
    """The text formats io can parse without Numba (``tricount.io.NUMPY_PARSE_FORMATS``,
    read with ``read_graph(..., parser="numpy")``), none where io has no such parser."""
    return frozenset(getattr(sys.modules.get("tricount.io"), "NUMPY_PARSE_FORMATS", ()))


def numpy_max_bytes() -> int | None:
    """The text io's NumPy parser reads at most (``tricount.io.NUMPY_PARSE_MAX_BYTES``)."""
    return getattr(sys.modules.get("tricount.io"), "NUMPY_PARSE_MAX_BYTES", None)


class _CompileWatch:
    """Counts the times Numba takes its compiler lock in this process: every kernel that
    is compiled or loaded from the disk cache takes it (``Dispatcher.compile``), and a
    call of a loaded kernel does not. While the count stands, no kernel has become
    loaded, so the states of :func:`kernel_states` stand too, up to the disk's
    (:data:`DISK_RECHECK_S`). Listens through Numba's event API once Numba is imported;
    until it is, nothing can load."""

    def __init__(self):
        self.compiles = 0
        self.listening = False
        self.memo = None  # (compiles, when, states)
        self._lock = threading.Lock()

    def on_start(self, event) -> None:
        self.compiles += 1

    def on_end(self, event) -> None:
        self.compiles += 1

    def listen(self) -> bool:
        """Whether compiles are being counted: listening starts once Numba is imported
        whole. Imports nothing (another thread may be importing Numba: an import from
        here could meet it half done)."""
        with self._lock:
            if not self.listening and _imported("numba") and _imported("numba.core.event"):
                event = sys.modules["numba.core.event"]
                try:
                    class Listener(event.Listener):
                        def on_start(inner, ev):  # noqa: N805
                            self.on_start(ev)

                        def on_end(inner, ev):  # noqa: N805
                            self.on_end(ev)

                    event.register("numba:compiler_lock", Listener())
                    self.listening = True
                    self.memo = None  # taken unheard: kernels may have loaded since
                except Exception:  # an API this Numba lacks: every look stays a full one
                    return False
            return self.listening or "numba" not in sys.modules


def _imported(name: str) -> bool:
    """Whether module ``name`` is imported and done initialising."""
    module = sys.modules.get(name)
    return module is not None and not getattr(getattr(module, "__spec__", None),
                                              "_initializing", False)


_COMPILES = _CompileWatch()


def kernel_states() -> dict:
    """``group -> (loaded, cached, to_compile)`` for every group of :data:`KERNEL_GROUPS`;
    the last answer while no kernel was compiled or loaded since and the disk's answers
    are younger than :data:`DISK_RECHECK_S` (34 of the 53 us an observation took on two
    cores, karate's whole count 300)."""
    watching = _COMPILES.listen()
    now = time.monotonic()
    memo = _COMPILES.memo
    if (watching and memo is not None and memo[0] == _COMPILES.compiles
            and now - memo[1] < DISK_RECHECK_S):
        return memo[2]
    before = _COMPILES.compiles
    listings = {}
    states = {group: group_state(group, listings) for group in KERNEL_GROUPS}
    _COMPILES.memo = (before, now, states)
    return states


def observe() -> Warmth:
    """The facts of this process and machine, now (a few file-system look-ups); the last
    observation's object when every fact is as it was (its :attr:`Warmth.key` is then
    known)."""
    presence, why = gpu_presence()
    facts = dict(
        threads=thread_count(),
        numba_started=numba_started(),
        kernels=kernel_states(),
        scipy_sparse="scipy.sparse" in sys.modules,
        numpy_formats=numpy_formats(),
        numpy_max_bytes=numpy_max_bytes(),
        gpu=presence,
        gpu_why=why,
        cupy_imported="cupy" in sys.modules,
        gpu_used=presence == "present",
        # Whether the GPU's kernels were compiled before matters only until this process
        # has used the GPU (costs.py: _gpu_route); the markers are a folder listing.
        gpu_compiled=_gpu_compiled() if presence == "unknown" else frozenset(),
    )
    global _LAST_OBSERVED
    last = _LAST_OBSERVED  # one read: the pair is replaced whole
    if last is not None and last[0] == facts:
        return last[1]
    warmth = Warmth(**facts)
    _LAST_OBSERVED = (facts, warmth)
    return warmth


#: ``(facts, Warmth)`` of the last observation.
_LAST_OBSERVED = None


# -- what is counted ------------------------------------------------------------------------

#: Uncompressed bytes per compressed byte, where the stream does not say (bzip2, xz, zstd):
#: the shared graphs' gzip ratio is 3.3-4.5, and the others compress text a little better.
COMPRESSION_RATIO = 4.0
#: Mean degree assumed for a file or edge list whose vertices are not known before reading.
ASSUMED_MEAN_DEGREE = 16
_TEXT_FORMATS = ("snap", "csv", "graphchallenge", "matrix-market", "metis")


def _text_bytes(path: str, size: int, compression: str | None) -> int:
    """Decompressed bytes of a file: its size, a gzip member's ISIZE trailer (exact below
    4 GiB; past that it wraps, and the ratio guess takes over), or a guess."""
    if compression is None:
        return size
    guess = int(size * COMPRESSION_RATIO)
    if compression == "gzip" and size >= 18:
        with open(path, "rb") as f:
            f.seek(-4, os.SEEK_END)
            trailer = int.from_bytes(f.read(4), "little")
        return trailer if trailer >= size else guess
    return guess


def _edge_lines(head: bytes) -> tuple[int, int, tuple | None]:
    """``(edge lines, their bytes, declared (n, m) or None)`` in the sniffed head."""
    declared = None
    lines = [line for line in head.split(b"\n")[:-1]]  # the last may be cut
    body = [line for line in lines if line.strip() and line.lstrip()[:1] not in (b"#", b"%")]
    if head.lstrip().lower().startswith(b"%%matrixmarket") and body:
        fields = body[0].split()
        if len(fields) >= 3 and all(x.isdigit() for x in fields[:3]):
            declared, body = (int(fields[0]), int(fields[2])), body[1:]
    return len(body), sum(len(line) + 1 for line in body), declared


def sizable(graph) -> bool:
    """Whether :func:`workload_of` reads ``graph`` as it is: a ``CSRGraph``, a path, or a
    ``(src, dst)`` pair of arrays. Anything else a user holds (a NetworkX graph, a table)
    is built first."""
    from tricount.graph import CSRGraph

    return isinstance(graph, (CSRGraph, str, os.PathLike)) or (
        isinstance(graph, tuple) and len(graph) == 2
        and all(hasattr(side, "__len__") and not isinstance(side, (str, bytes))
                for side in graph))


def workload_of(graph, *, format: str = "auto") -> Workload:
    """The :class:`Workload` of what ``tricount.count`` was given: a graph, a
    ``(src, dst)`` pair, or a path (sniffed: its first 64 KiB decompressed)."""
    from tricount.graph import CSRGraph

    if isinstance(graph, CSRGraph):
        on_device = graph.xp.__name__ == "cupy"
        return Workload("device" if on_device else "host", graph.n_vertices, graph.n_edges)
    if isinstance(graph, tuple) and len(graph) == 2:
        entries = len(graph[0])
        kind = "device-edges" if type(graph[0]).__module__.startswith("cupy") else "edges"
        return Workload(kind, max(1, 2 * entries // ASSUMED_MEAN_DEGREE), entries, exact=False,
                        device_build=kind == "edges" and takes_ids(*graph))
    path = os.fspath(graph)
    if path == "-" or not os.path.isfile(path):
        # Standard input or a pipe: nothing can be sniffed without consuming it, and a
        # missing file is the reader's error to report. The workload of an unknown text.
        return Workload("text", 1, 0, exact=False, format="snap")
    from tricount.io.detect import resolve_format
    from tricount.io.source import open_source

    with open_source(path) as source:
        fmt = resolve_format(format, source)
        head, size, compression = source.head(), source.size, source.compression
    if fmt not in _TEXT_FORMATS:  # .npy/.npz pairs of ids, .tcsr's CSR, tables: ~6 B an edge
        m = size // (16 if fmt == "numpy" else 6)
        return Workload("binary", max(1, 2 * m // ASSUMED_MEAN_DEGREE), m, exact=False)
    text = _text_bytes(path, size, compression)
    n_lines, line_bytes, declared = _edge_lines(head)
    if declared is not None:
        n, m = declared
    else:
        m = int(text * n_lines / line_bytes) if line_bytes else 0
        n = max(1, 2 * m // ASSUMED_MEAN_DEGREE)
    return Workload("text", n, m, text_bytes=text, compressed=compression is not None,
                    exact=False, format=fmt)
