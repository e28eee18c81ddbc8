"""Fixtures of the emulated partition tests: the GPU replaced by fake_cupy, and the small sizes.

A test module takes them as its own globals (``fake_gpu = emulated_gpu.fake_gpu``); not a
``conftest.py``, since ``tests/conftest.py`` is imported by name elsewhere.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import fake_cupy  # noqa: E402
from partition_gpu_support import shrink  # noqa: E402


@pytest.fixture
def fake_gpu(monkeypatch):
    """CuPy replaced by fake_cupy's NumPy stand-in, and a usable GPU reported."""
    import tricount.gpu

    with fake_cupy.installed(monkeypatch) as cp:
        monkeypatch.setattr(tricount.gpu, "probe", lambda: (True, "GPU fake"))
        yield cp


@pytest.fixture
def tiny(monkeypatch):
    """Sizes that cut everything small (partition_gpu_support.shrink)."""
    shrink(monkeypatch)
