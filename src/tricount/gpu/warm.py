"""Which GPU routes this machine has compiled before: marker files beside CuPy's kernel cache.

CuPy compiles every kernel source with NVRTC once and keeps the binary in its
disk cache (``CUPY_CACHE_DIR``, default ``~/.cupy/kernel_cache``), keyed by the
source, the options and the device; tricount's loader (:mod:`tricount.gpu._module`)
passes the same source text and options for the same plan, so a later process
loads the binary instead of compiling (a few milliseconds against about a second
per file). Whether a route's binaries are there cannot be asked without CuPy, so
after a count succeeds the engine leaves a marker named by the route (method and
orientation) and by what the binaries depend on: the kernel sources and the CuPy
installation. :mod:`tricount.backends.facts` reads the markers, without importing
CuPy, to predict whether a count will compile.

Imports no CuPy. A marker that cannot be written is skipped (a wrong guess later,
never a wrong count).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.resources
import importlib.util
import os
from pathlib import Path

__all__ = ["cupy_cache_dir", "route_name", "mark_compiled", "compiled_routes"]

#: Folder of the markers, inside CuPy's cache folder (cleared with it).
MARKERS = "tricount-routes"


def cupy_cache_dir() -> Path:
    """CuPy's kernel cache folder."""
    return Path(os.environ.get("CUPY_CACHE_DIR") or os.path.expanduser("~/.cupy/kernel_cache"))


@functools.lru_cache(maxsize=1)
def _identity() -> str:
    """A digest of the kernel sources and of the CuPy installation (its path and time)."""
    digest = hashlib.sha1()
    kernels = importlib.resources.files("tricount.gpu.kernels")
    for entry in sorted(kernels.iterdir(), key=lambda e: e.name):
        if entry.name.endswith((".cu", ".cuh")):
            digest.update(entry.name.encode())
            digest.update(entry.read_bytes())
    spec = importlib.util.find_spec("cupy")
    if spec is not None and spec.origin:
        digest.update(spec.origin.encode())
        try:
            digest.update(str(os.stat(spec.origin).st_mtime_ns).encode())
        except OSError:
            pass
    return digest.hexdigest()[:16]


def route_name(method: str, orientation: str) -> str:
    """The route of a count: its method and orientation, e.g. ``"bitwedge-rank"``."""
    return f"{method}-{orientation}"


#: Routes this process has marked already: every count asks, and the disk needs telling once.
_MARKED: set = set()


def mark_compiled(route: str) -> None:
    """Leave the marker of ``route`` (after a count that compiled or loaded its kernels),
    once per process."""
    if route in _MARKED:
        return
    _MARKED.add(route)
    folder = cupy_cache_dir() / MARKERS
    marker = folder / f"{_identity()}-{route}"
    if marker.exists():
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        marker.touch()
    except OSError:
        pass


def compiled_routes() -> frozenset:
    """The routes compiled on this machine for these kernel sources and this CuPy."""
    folder = cupy_cache_dir() / MARKERS
    prefix = f"{_identity()}-"
    try:
        names = os.listdir(folder)
    except OSError:
        return frozenset()
    return frozenset(name[len(prefix):] for name in names if name.startswith(prefix))
