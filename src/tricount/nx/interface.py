"""``BackendInterface``, the ``networkx.backends`` entry point of the backend ``tricount``.

NetworkX looks each function up by its dispatch name on this class, asks
``can_run`` (a reason string when tricount cannot compute the call the way
NetworkX would) and ``should_run`` (a reason string when NetworkX would be
faster), and converts graphs with ``convert_from_nx`` and ``convert_to_nx``.
The hooks forward to the ones each function registered; a reason string is
also logged at INFO on the ``tricount.nx`` logger (NetworkX logs it at DEBUG
on ``networkx``), so ``logging.basicConfig(level=logging.INFO)`` shows why a
call went to NetworkX.
"""

from __future__ import annotations

import logging

from tricount.nx import cluster, core, triads  # noqa: F401  (registers the functions)
from tricount.nx._decorators import registry  # noqa: F401  (re-exported for info)
from tricount.nx.graph import TricountGraph, from_networkx, to_networkx

__all__ = ["BackendInterface", "TricountGraph"]


log = logging.getLogger("tricount.nx")


def _hook(kind: str, name: str, args, kwargs):
    func = registry.get(name)
    if func is None:
        return f"{name!r} is not implemented by tricount"
    kwargs = {k: v for k, v in kwargs.items() if k != "backend"}
    try:
        answer = getattr(func, kind)(*args, **kwargs)
    except TypeError:  # arguments NetworkX itself will reject: let it say so
        return True
    if isinstance(answer, str):
        # NetworkX logs the reason at DEBUG on its own logger; say it on ours too.
        log.info("tricount %s %s: %s", "declines" if kind == "can_run" else "defers", name,
                 answer)
    return answer


class BackendInterface:
    """The backend: conversions, hooks, and one attribute per implemented function."""

    convert_from_nx = staticmethod(from_networkx)
    convert_to_nx = staticmethod(to_networkx)

    @staticmethod
    def can_run(name, args, kwargs):
        return _hook("can_run", name, args, kwargs)

    @staticmethod
    def should_run(name, args, kwargs):
        return _hook("should_run", name, args, kwargs)


for _name, _func in registry.items():
    setattr(BackendInterface, _name, staticmethod(_func))
del _name, _func
