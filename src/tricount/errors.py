"""The one exception family of tricount, and the checks that raise it at the API's edge.

Every error a user can cause is a :class:`TricountError`. Errors about the
input are also :class:`ValueError`, so generic handlers keep working; an
argument of the wrong type or value is an :class:`InvalidArgumentError`, also a
:class:`TypeError` and a :class:`ValueError`, and its message names the
parameter.

>>> check_count(3.5, "n_vertices")
Traceback (most recent call last):
    ...
tricount.errors.InvalidArgumentError: n_vertices must be an integer, got 3.5 (float)
"""

from __future__ import annotations

import operator

__all__ = [
    "TricountError",
    "InvalidArgumentError",
    "InvalidEdgesError",
    "GraphFormatError",
    "UnsupportedGraphError",
    "UnknownMethodError",
    "BackendUnavailableError",
    "check_count",
    "check_text",
    "check_choice",
    "import_failure",
]


class TricountError(Exception):
    """Base class of every error tricount raises on purpose."""


class InvalidArgumentError(TricountError, ValueError, TypeError):
    """An argument tricount cannot take: the message names the parameter and what it expects.

    Both a :class:`TypeError` and a :class:`ValueError` (as NumPy's
    ``AxisError`` is both a ValueError and an IndexError), so that code
    catching either for a bad argument keeps working.
    """


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

    def __reduce__(self):
        # Rebuilt from its own arguments: pickling (a Dask worker's error sent to the client,
        # a process pool's) passes only ``args``, the whole message, which __init__ would
        # take for the path and then miss its message.
        return _graph_format_error, (self.path, self.reason, self.line, self.__dict__)


def _graph_format_error(path, message, line, state):
    error = GraphFormatError(path, message, line=line)
    error.__dict__.update(state)
    return error


class UnsupportedGraphError(TricountError, ValueError):
    """A graph the requested operation cannot handle (too large, wrong kind)."""


class UnknownMethodError(TricountError, ValueError):
    """A method name the chosen backend does not implement."""


class BackendUnavailableError(TricountError, RuntimeError):
    """An explicitly requested backend cannot run here (no CuPy, no GPU)."""


def _shown(value) -> str:
    return f"{value!r} ({type(value).__name__})"


def check_count(value, name: str, *, minimum: int | None = 0) -> int:
    """``value`` as a Python int no smaller than ``minimum`` (None: any), else
    :class:`InvalidArgumentError`.

    Anything :func:`operator.index` accepts (Python and NumPy integers) is an
    integer; ``bool`` and floats, even whole ones, are not.
    """
    try:
        if isinstance(value, bool):  # an int to Python, never a count to a user
            raise TypeError
        value = operator.index(value)
    except TypeError:
        raise InvalidArgumentError(f"{name} must be an integer, got {_shown(value)}") from None
    if minimum is not None and value < minimum:
        raise InvalidArgumentError(f"{name} must be at least {minimum}, got {value}")
    return value


def check_text(value, name: str, *, none_ok: bool = False):
    """``value`` when it is a ``str`` (or None, with ``none_ok``), else
    :class:`InvalidArgumentError`."""
    if not (isinstance(value, str) or (none_ok and value is None)):
        raise InvalidArgumentError(
            f"{name} must be a string{' or None' if none_ok else ''}, got {_shown(value)}")
    return value


def check_choice(value, name: str, choices) -> str:
    """``value`` when it is one of the strings ``choices``, else :class:`InvalidArgumentError`."""
    if not isinstance(value, str) or value not in choices:
        raise InvalidArgumentError(
            f"{name} must be one of {', '.join(map(repr, choices))}; got {_shown(value)}")
    return value


def import_failure(exc: ImportError, name: str, module: str) -> str:
    """Why importing ``module`` (shown as ``name``) failed, in words: not installed, or
    installed but not loadable (a broken install, or too little memory left to map its
    libraries under ``ulimit -v``), which "pip install" would not mend.

    >>> import_failure(ModuleNotFoundError("No module named 'cupy'", name="cupy"), "CuPy", "cupy")
    'CuPy is not installed'
    >>> import_failure(ImportError("libcudart.so.13: cannot map segment"), "CuPy", "cupy")
    'CuPy is installed but cannot be loaded (libcudart.so.13: cannot map segment)'
    """
    missing = isinstance(exc, ModuleNotFoundError) and (exc.name or module).split(".")[0] \
        == module.split(".")[0]
    if missing:
        return f"{name} is not installed"
    reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
    return f"{name} is installed but cannot be loaded ({reason})"
