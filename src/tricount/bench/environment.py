"""Where a benchmark ran: machine, device, library versions, date, tricount commit.

Every JSON line of ``tricount bench`` carries these, so a number can always be
traced to the hardware and software that produced it.
"""

from __future__ import annotations

import datetime
import importlib.metadata
import os
import platform
import subprocess
from pathlib import Path

import tricount
from tricount.gpu.device import cupy

__all__ = ["machine", "device", "versions", "utc_now"]

#: Distributions whose versions every record carries (when installed).
CORE_PACKAGES = ("numpy", "scipy", "numba")


def utc_now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_gib() -> float | None:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    return None


def machine() -> dict:
    """The host: OS, architecture, CPU model, logical CPUs, memory."""
    return {
        "system": platform.system(),
        "release": platform.release(),
        "arch": platform.machine(),
        "cpu": _cpu_model(),
        "logical_cpus": os.cpu_count(),
        "memory_gib": _memory_gib(),
    }


def device(backend: str) -> dict:
    """What a backend counted on: the CPU (with its thread count) or the GPU."""
    if backend != "gpu":
        out = {"kind": "cpu", "name": _cpu_model(), "logical_cpus": os.cpu_count()}
        try:
            import numba  # compiles nothing, but costs half a second: only when asked

            out["numba_threads"] = numba.get_num_threads()
        except Exception:  # Numba is a dependency; a broken install just omits the field
            pass
        return out
    cp = cupy()
    dev = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(dev.id)
    name = props["name"]
    return {
        "kind": "gpu",
        "name": name.decode() if isinstance(name, bytes) else str(name),
        "compute_capability": f"{props['major']}.{props['minor']}",
        "memory_gib": round(props["totalGlobalMem"] / 2**30, 1),
        "multiprocessors": props["multiProcessorCount"],
        "driver": _cuda_version(cp.cuda.runtime.driverGetVersion()),
        "cuda_runtime": _cuda_version(cp.cuda.runtime.runtimeGetVersion()),
    }


def _cuda_version(v: int) -> str:
    return f"{v // 1000}.{(v % 1000) // 10}"


def _git_commit() -> str | None:
    """The tricount checkout's commit (+ "-dirty"), when it runs from a git tree."""
    root = Path(__file__).resolve().parents[3]
    if not (root / ".git").exists():
        return None
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short=12", "HEAD"],
                              capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain",
                                "--untracked-files=no"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    if head.returncode != 0:
        return None
    return head.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")


def _dist_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def versions(backends=(), peers=()) -> dict:
    """Python, tricount (and its commit), NumPy/SciPy/Numba, CuPy for the GPU, each peer."""
    out = {"python": platform.python_version(), "tricount": tricount.__version__}
    commit = _git_commit()
    if commit:
        out["tricount_commit"] = commit
    for name in CORE_PACKAGES:
        v = _dist_version(name)
        if v:
            out[name] = v
    if "gpu" in backends:
        out["cupy"] = cupy().__version__
    for peer in peers:
        v = peer.version()
        if v:
            out[peer.package] = v
    return out
