"""The background start of the device's context (``tricount.gpu.context``), on any machine:
the driver is replaced by a fake that records the calls."""

from __future__ import annotations

import ctypes
import sys

import pytest

from tricount.gpu import context


class FakeDriver:
    """The four driver calls the thread makes; ``fail`` names one that returns an error."""

    def __init__(self, fail: str = ""):
        self.calls, self.fail = [], fail

    def _call(self, name: str, result=None, value=None) -> int:
        self.calls.append(name)
        if name == self.fail:
            return 100  # CUDA_ERROR_NO_DEVICE
        if result is not None:
            result._obj.value = value
        return 0

    def cuInit(self, flags):
        return self._call("cuInit")

    def cuDeviceGet(self, device, ordinal):
        return self._call("cuDeviceGet", device, ordinal)

    def cuDevicePrimaryCtxRetain(self, context_out, device):
        assert device.value == 0
        return self._call("cuDevicePrimaryCtxRetain", context_out, 1234)


@pytest.fixture
def fresh(monkeypatch):
    """A process where nothing was started and CuPy is not imported."""
    monkeypatch.setattr(context, "_started", None)
    monkeypatch.delitem(sys.modules, "cupy", raising=False)
    monkeypatch.setattr(context.atexit, "register", lambda fn: None)


def test_the_thread_retains_device_0s_primary_context_once(fresh, monkeypatch):
    driver = FakeDriver()
    monkeypatch.setattr(ctypes, "CDLL", lambda name: driver)
    thread = context.start_primary_context()
    thread.join(5)
    assert not thread.is_alive() and thread.daemon
    assert driver.calls == ["cuInit", "cuDeviceGet", "cuDevicePrimaryCtxRetain"]
    assert context.start_primary_context() is None  # once per process
    assert driver.calls == ["cuInit", "cuDeviceGet", "cuDevicePrimaryCtxRetain"]


@pytest.mark.parametrize("fail", ["cuInit", "cuDeviceGet"])
def test_a_failing_driver_call_ends_the_thread_quietly(fresh, monkeypatch, fail):
    driver = FakeDriver(fail)
    monkeypatch.setattr(ctypes, "CDLL", lambda name: driver)
    context.start_primary_context().join(5)
    assert driver.calls[-1] == fail  # and nothing after it


def test_no_driver_library_ends_the_thread_quietly(fresh, monkeypatch):
    def missing(name):
        raise OSError(f"{name}: cannot open shared object file")

    monkeypatch.setattr(ctypes, "CDLL", missing)
    thread = context.start_primary_context()
    thread.join(5)
    assert not thread.is_alive()


def test_nothing_starts_once_cupy_is_imported(fresh, monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", object())
    monkeypatch.setattr(ctypes, "CDLL", lambda name: pytest.fail("the driver was loaded"))
    assert context.start_primary_context() is None


# -- what CuPy's first array-scalar operator imports, on a thread ------------------------


@pytest.fixture
def cupy_imported(monkeypatch):
    """CuPy imported, the module its operator imports not yet, nothing started."""
    monkeypatch.setattr(context, "_cupyx_import", None)
    monkeypatch.setitem(sys.modules, "cupy", object())
    monkeypatch.delitem(sys.modules, context.CUPYX_MODULE, raising=False)
    monkeypatch.setattr(context.atexit, "register", lambda fn: None)


def test_the_operators_module_is_imported_on_a_thread_once(cupy_imported, monkeypatch):
    imported = []
    monkeypatch.setattr(context.importlib, "import_module", imported.append)
    thread = context.start_cupyx_import()
    thread.join(5)
    assert not thread.is_alive() and thread.daemon
    assert imported == [context.CUPYX_MODULE]
    assert context.start_cupyx_import() is None  # once per process
    assert imported == [context.CUPYX_MODULE]


def test_a_failing_import_ends_the_thread_quietly(cupy_imported, monkeypatch):
    def broken(name):
        raise ImportError(f"{name}: SciPy is missing")

    monkeypatch.setattr(context.importlib, "import_module", broken)
    thread = context.start_cupyx_import()
    thread.join(5)
    assert not thread.is_alive()


@pytest.mark.parametrize("case", ["without CuPy", "imported already"])
def test_nothing_is_imported_without_cupy_or_when_done(cupy_imported, monkeypatch, case):
    monkeypatch.setattr(context.importlib, "import_module",
                        lambda name: pytest.fail("imported"))
    if case == "without CuPy":
        monkeypatch.delitem(sys.modules, "cupy")
    else:
        monkeypatch.setitem(sys.modules, context.CUPYX_MODULE, object())
    assert context.start_cupyx_import() is None


def test_the_exit_waits_for_each_thread(cupy_imported, monkeypatch):
    registered = []
    monkeypatch.setattr(context.atexit, "register", registered.append)
    monkeypatch.setattr(context.importlib, "import_module", lambda name: None)
    thread = context.start_cupyx_import()
    assert len(registered) == 1
    registered[0]()  # what the exit runs: the join, bounded by EXIT_WAIT_S
    assert not thread.is_alive()
    assert registered[0].func == thread.join and registered[0].args == (context.EXIT_WAIT_S,)
