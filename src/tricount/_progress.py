"""Progress on stderr: a bar for every step that takes longer than two seconds.

Two kinds, both drawn by tqdm (a dependency) and both silent unless stderr is
a terminal (never in logs, pipes, CI or captured output):

- :class:`Progress`: a bar with a total (bytes read, triangles written), fed
  by calls with the position reached;
- :class:`Ticker`: a step without a total (building the CSR, counting,
  writing), shown as its label and the seconds so far, refreshed by a thread
  while the step runs (the kernels release the GIL).

Either appears only after :data:`PROGRESS_DELAY_S`, so quick steps print
nothing. :func:`configure` switches every bar off (``tricount --quiet``) or
forces them on; the default (None) is "on a terminal".
"""

from __future__ import annotations

import os
import sys
import threading

__all__ = ["PROGRESS_DELAY_S", "configure", "is_enabled", "Progress", "Ticker"]

#: Seconds of work before a bar appears (the issue: "longer than about two seconds").
PROGRESS_DELAY_S = 2.0
#: Seconds between two redraws of a ticker.
TICK_S = 0.5

_setting = {"enabled": None}


def configure(*, enabled) -> None:
    """Bars on (True), off (False), or on a terminal only (None, the default)."""
    _setting["enabled"] = enabled


def is_enabled(requested=None) -> bool:
    """Whether to draw: ``requested`` (True/False) wins, then :func:`configure`, then
    whether stderr is a terminal; never without tqdm."""
    for choice in (requested, _setting["enabled"]):
        if choice is not None:
            return bool(choice) and _have_tqdm()
    return _stderr_is_terminal() and _have_tqdm()


def _delay() -> float:
    return PROGRESS_DELAY_S  # read at call time: tests set it to 0


def _have_tqdm() -> bool:
    try:
        import tqdm  # noqa: F401
    except ImportError:
        return False
    return True


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


class Progress:
    """Callable taking the position reached (of ``total``); a no-op when no bar is shown.

    ``total`` None or 0: a count without an end. ``unit`` "B" scales to KiB, MiB...
    """

    def __init__(self, label, total, enabled=None, *, unit: str = "B"):
        self._bar = None
        self._pos = 0
        if (unit == "B" and not total) or not is_enabled(enabled):
            return
        from tqdm import tqdm

        scaled = unit == "B"
        self._bar = tqdm(total=total or None, unit=unit, unit_scale=True,
                         unit_divisor=1024 if scaled else 1000,
                         desc=os.path.basename(os.fspath(label)), delay=_delay(),
                         file=sys.stderr, leave=False)

    def __call__(self, pos: int, total: int | None = None) -> None:
        if self._bar is None:
            return
        if total is not None and self._bar.total != total:
            self._bar.total = total
            self._bar.refresh()
        if pos > self._pos:
            self._bar.update(pos - self._pos)
            self._pos = pos

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class Ticker:
    """``with Ticker("counting"):`` shows "counting: 00:03" on stderr while the block runs
    past :data:`PROGRESS_DELAY_S`; nothing otherwise."""

    def __init__(self, label: str, enabled=None):
        self.label = label
        self._on = is_enabled(enabled)
        self._done = threading.Event()
        self._thread = None

    def _run(self) -> None:
        if self._done.wait(_delay()):
            return
        from tqdm import tqdm

        bar = tqdm(total=None, desc=self.label, bar_format="{desc}: {elapsed}", file=sys.stderr,
                   leave=False)
        try:
            while not self._done.wait(TICK_S):
                bar.refresh()
        finally:
            bar.close()

    def __enter__(self):
        if self._on:
            self._thread = threading.Thread(target=self._run, name="tricount-ticker",
                                            daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc):
        self._done.set()
        if self._thread is not None:
            self._thread.join()
        return False
