"""Faster twins of preparation steps, registered by the package that owns them.

Preparation is written once against an array namespace (``xp``), but on the GPU
a few steps have fused versions (custom kernels, fewer passes) that return the
same arrays. Those live in :mod:`tricount.gpu`, above this package, so
:mod:`tricount.prep` cannot import them: the GPU package registers a module path
here for the CuPy namespace (without importing CuPy), and a step asks
:func:`lookup` for its twin before running the portable code.

A twin takes the portable function's arguments and returns its result, or None
to decline (the portable code then runs). The GPU tests compare every twin with
the portable code array by array.

>>> lookup(__import__("numpy"), "canonical_edges") is None
True
"""

from __future__ import annotations

import importlib

__all__ = ["register", "lookup"]

# xp module name -> dotted path of the module holding its twins.
_TWIN_MODULES: dict[str, str] = {}


def register(xp_name: str, module_path: str) -> None:
    """Declare that ``module_path`` holds fused twins for arrays of namespace ``xp_name``.

    The module is imported only when a step asks for a twin on such arrays.
    """
    _TWIN_MODULES[xp_name] = module_path


def lookup(xp, name: str):
    """The twin of step ``name`` for namespace ``xp`` (a module, or its name: a step that
    may use the GPU on host arrays asks for ``"cupy"``), or None when there is none."""
    path = _TWIN_MODULES.get(xp if isinstance(xp, str) else xp.__name__)
    if path is None:
        return None
    twins = importlib.import_module(path)
    return getattr(twins, "TWINS", {}).get(name)
