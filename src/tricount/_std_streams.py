"""The standard streams a process may start without (``<&-``, ``>&-``).

A file or pipe the process opens takes the lowest free descriptor: with standard input
closed, that was descriptor 0, and reading ``/dev/stdin`` read tricount's own signal pipe
(a hang that SIGTERM, whose byte it swallowed, could not end). :func:`reserve` (the CLI's
first step) opens ``/dev/null`` on every closed one of 0, 1 and 2, so that nothing else
lands there, and remembers which were closed: reading standard input then says that it is
closed (:func:`was_closed`), instead of reading nothing.

Python itself gives ``sys.stdout`` or ``sys.stderr`` as None for a descriptor closed at
start, and ``print(..., file=None)`` writes to standard output: with standard error closed
(``2>&-``) the context line and the errors went into standard output, after the answer or
into the table written there. :func:`stand_in` replaces them: standard error by
``/dev/null`` (the messages go nowhere, as ``2>&-`` asks), standard output by a stream whose
first write fails as writing to the closed descriptor would (exit 2, as the tables' writer
says), where Python would print nothing and the answer be lost with exit 0.
"""

from __future__ import annotations

import errno
import io
import os
import sys

__all__ = ["reserve", "was_closed", "stand_in", "CLOSED_STDOUT"]

#: What writing to a standard output closed at start says.
CLOSED_STDOUT = ("<stdout>: standard output is closed (>&-); redirect it (to /dev/null to "
                 "drop it) or name an output file")

_closed: set = set()


def reserve() -> None:
    """Open ``/dev/null`` on each of descriptors 0, 1 and 2 that is closed (idempotent)."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            held = os.open(os.devnull, os.O_RDWR)
            if held != fd:  # a lower one was free after all: leave this one be
                os.close(held)
                continue
            _closed.add(fd)


def was_closed(fd: int) -> bool:
    """Whether descriptor ``fd`` was closed when :func:`reserve` ran."""
    return fd in _closed


class _ClosedStdout(io.TextIOBase):
    """``sys.stdout`` of a process started with it closed: any write raises."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if text:
            _refuse()
        return 0

    @property
    def buffer(self):
        _refuse()


def _refuse():
    raise OSError(errno.EBADF, CLOSED_STDOUT)  # what writing to descriptor 1 would raise


def stand_in() -> None:
    """Give ``sys.stderr`` and ``sys.stdout`` stand-ins where Python left None (above)."""
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (the process's)
    if sys.stdout is None:
        sys.stdout = _ClosedStdout()
