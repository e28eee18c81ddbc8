"""Fixtures of the partition tests: the emulated GPU (fake_cupy) and the small sizes."""

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
