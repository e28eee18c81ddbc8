"""Which tricount backend the NetworkX functions run on."""

from __future__ import annotations

import networkx as nx

__all__ = ["engine_backend", "MULTIGRAPH_MESSAGE"]

#: NetworkX's own message (``not_implemented_for("multigraph")``).
MULTIGRAPH_MESSAGE = "not implemented for multigraph type"


def engine_backend() -> str:
    """``nx.config.backends.tricount.backend`` (``auto``, ``cpu`` or ``gpu``), else ``auto``."""
    config = getattr(getattr(nx, "config", None), "backends", None)
    ours = getattr(config, "tricount", None) if config is not None else None
    return getattr(ours, "backend", "auto") if ours is not None else "auto"
