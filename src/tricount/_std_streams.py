"""The standard streams a process may start without (``<&-``, ``>&-``).

A file or pipe the process opens takes the lowest free descriptor: with standard input
closed, that was descriptor 0, and reading ``/dev/stdin`` read tricount's own signal pipe
(a hang that SIGTERM, whose byte it swallowed, could not end). :func:`reserve` (the CLI's
first step) opens ``/dev/null`` on every closed one of 0, 1 and 2, so that nothing else
lands there, and remembers which were closed: reading standard input then says that it is
closed (:func:`was_closed`), instead of reading nothing.
"""

from __future__ import annotations

import os

__all__ = ["reserve", "was_closed"]

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
