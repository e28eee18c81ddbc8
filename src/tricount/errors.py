"""The one exception family of tricount.

Every error a user can cause is a :class:`TricountError`. Errors about the
input are also :class:`ValueError`, so generic handlers keep working.
"""

from __future__ import annotations

__all__ = [
    "TricountError",
    "InvalidEdgesError",
    "GraphFormatError",
    "UnsupportedGraphError",
    "UnknownMethodError",
    "BackendUnavailableError",
]


class TricountError(Exception):
    """Base class of every error tricount raises on purpose."""


class InvalidEdgesError(TricountError, ValueError):
    """Edge arrays that cannot describe a graph (lengths, signs, fractions)."""


class GraphFormatError(TricountError, ValueError):
    """A file that does not follow its format; the message names file and line."""

    def __init__(self, path, message: str, *, line: int | None = None):
        self.path = None if path is None else str(path)
        self.line = line
        self.reason = message
        where = self.path if self.path is not None else "<input>"
        if line is not None:
            where = f"{where}, line {line}"
        super().__init__(f"{where}: {message}")


class UnsupportedGraphError(TricountError, ValueError):
    """A graph the requested operation cannot handle (too large, wrong kind)."""


class UnknownMethodError(TricountError, ValueError):
    """A method name the chosen backend does not implement."""


class BackendUnavailableError(TricountError, RuntimeError):
    """An explicitly requested backend cannot run here (no CuPy, no GPU)."""
