"""``networkx_algorithm``: register a function of the backend and copy NetworkX's docs.

One decorator for every function (nx-cugraph's pattern): it records the
function under its dispatch name in :data:`registry` (which
:mod:`tricount.nx.interface` exposes and :mod:`tricount.nx.info` lists),
attaches the ``can_run``/``should_run`` hooks, and replaces the docstring by
NetworkX's own with what tricount adds.
"""

from __future__ import annotations

import re

import networkx as nx

__all__ = ["networkx_algorithm", "registry"]

#: Dispatch name -> implementing function.
registry: dict = {}


def _always(*args, **kwargs):
    return True


#: A numpydoc "Examples" section: its header, and everything up to the next section's.
_EXAMPLES = re.compile(r"^([ \t]*)Examples\n\1-{3,}\n.*?(?=^\1\w[\w ]*\n\1-{3,}\n|\Z)",
                       re.MULTILINE | re.DOTALL)


def _without_examples(doc: str) -> str:
    """NetworkX's docstring less its examples: they call NetworkX's function on a NetworkX
    graph, not this one, which takes the backend's graph (and doctest would run them)."""
    return _EXAMPLES.sub("", doc)


def networkx_algorithm(*, additional_docs: str, can_run=None, should_run=None,
                       additional_parameters: dict | None = None):
    """Register the decorated function as the backend's implementation of its namesake.

    ``can_run`` and ``should_run`` take the function's own arguments and return
    True or a string saying why not.
    """

    def register(func):
        name = func.__name__
        nx_func = getattr(nx, name)
        func.can_run = can_run or _always
        func.should_run = should_run or _always
        func.additional_docs = additional_docs
        func.additional_parameters = dict(additional_parameters or {})
        func.networkx_function = nx_func
        doc = _without_examples(getattr(nx_func, "_orig_doc", None) or nx_func.__doc__ or "")
        func.__doc__ = f"{doc.rstrip()}\n\n    tricount\n    --------\n    {additional_docs}\n"
        registry[name] = func
        return func

    return register
