"""Progress for ``tricount bench``: a tqdm bar on a terminal, plain stderr lines otherwise.

The bar appears only when a run lasts longer than :data:`BAR_DELAY_S` and
stderr is a terminal with tqdm installed (the ``bench`` extra). Without either,
one line per finished step goes to stderr, so logs of long runs stay readable.
"""

from __future__ import annotations

import sys

#: Seconds before the bar shows: short runs print no bar at all.
BAR_DELAY_S = 2.0


class Progress:
    """Counts steps and prints notes; the plain-text version."""

    def __init__(self, stream=None, quiet: bool = False):
        self.stream = stream if stream is not None else sys.stderr
        self.quiet = quiet
        self.total = 0
        self.done = 0

    def start(self, total: int) -> None:
        self.total = total

    def advance(self, steps: int = 1, label: str = "") -> None:
        self.done += steps

    def note(self, message: str) -> None:
        """A line for the log (side finished, peer skipped, graph loaded)."""
        if not self.quiet:
            print(message, file=self.stream, flush=True)

    def close(self) -> None:
        pass


class BarProgress(Progress):
    """A tqdm bar on stderr; notes are printed above it."""

    def __init__(self, stream=None, quiet: bool = False):
        super().__init__(stream, quiet)
        self._bar = None

    def start(self, total: int) -> None:
        from tqdm import tqdm

        self.total = total
        self._bar = tqdm(total=total, file=self.stream, delay=BAR_DELAY_S, unit="run",
                         dynamic_ncols=True, leave=False)

    def advance(self, steps: int = 1, label: str = "") -> None:
        self.done += steps
        if self._bar is not None:
            if label:
                self._bar.set_description_str(label, refresh=False)
            self._bar.update(steps)  # 0 steps: a new label only (loading, verifying)

    def note(self, message: str) -> None:
        if self.quiet:
            return
        if self._bar is not None:
            self._bar.write(message, file=self.stream)
        else:
            print(message, file=self.stream, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def make_progress(quiet: bool = False, stream=None) -> Progress:
    """A bar when stderr is a terminal and tqdm is installed, else plain lines."""
    stream = stream if stream is not None else sys.stderr
    if getattr(stream, "isatty", lambda: False)():
        try:
            import tqdm  # noqa: F401
        except ImportError:
            return Progress(stream, quiet)
        return BarProgress(stream, quiet)
    return Progress(stream, quiet)
