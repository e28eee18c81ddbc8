"""A progress bar on stderr, only on a terminal and only for work over ~2 s.

tqdm is an optional dependency: without it loading is silent. A bar appears
only when stderr is a terminal (never in logs, pipes, CI or notebooks'
captured stderr) and only after ``PROGRESS_DELAY_S`` seconds, so fast loads
print nothing.
"""

from __future__ import annotations

import os
import sys

#: Seconds of work before a bar appears (the issue: "longer than about two seconds").
PROGRESS_DELAY_S = 2.0


class Progress:
    """Callable taking the byte position reached; a no-op when no bar is shown."""

    def __init__(self, path, total: int, enabled=None):
        self._bar = None
        if enabled is False or total <= 0:
            return
        if enabled is None and not _stderr_is_terminal():
            return
        try:
            from tqdm import tqdm
        except ImportError:
            return
        self._bar = tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024,
                         desc=os.path.basename(os.fspath(path)), delay=PROGRESS_DELAY_S,
                         file=sys.stderr, leave=False)
        self._pos = 0

    def __call__(self, pos: int) -> None:
        if self._bar is not None and pos > self._pos:
            self._bar.update(pos - self._pos)
            self._pos = pos

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False
