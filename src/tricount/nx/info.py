"""``get_info()`` for the ``networkx.backend_info`` entry point.

NetworkX calls it at the end of its own import, for every installed backend,
so this module imports nothing of tricount's kernels, nor CuPy, nor NetworkX.
The function table between the BEGIN and END markers is generated from the
registered functions: ``python -m tricount.nx.info`` rewrites it, and
``tests/nx/test_match_api.py`` fails when it is stale.

``TRICOUNT_NX_AUTOCONFIG=True`` makes :func:`get_info` fill in the NetworkX
variables that are not set yet (nx-cugraph's ``NX_CUGRAPH_AUTOCONFIG``), so
one variable switches the backend on: ``NETWORKX_BACKEND_PRIORITY=tricount``,
``NETWORKX_FALLBACK_TO_NX=True`` and ``NETWORKX_CACHE_CONVERTED_GRAPHS=True``.
``TRICOUNT_NX_BACKEND`` (``auto``, ``cpu``, ``gpu``) sets the default of
``nx.config.backends.tricount.backend``, the engine the functions run on.
"""

from __future__ import annotations

import os

__all__ = ["get_info", "FUNCTIONS"]

#: What each implemented function adds to NetworkX's docstring.
# BEGIN: functions
FUNCTIONS = {
    "all_triangles": {
        "additional_docs": "Lists every triangle once, streamed in chunks, each in node order.",
        "additional_parameters": {},
    },
    "average_clustering": {
        "additional_docs": "Undirected, directed (Fagiolo) and weighted, every vertex at once.",
        "additional_parameters": {},
    },
    "clustering": {
        "additional_docs": "Undirected, directed (Fagiolo) and weighted, every vertex at once.",
        "additional_parameters": {},
    },
    "k_truss": {
        "additional_docs": "Peels every edge of a support level in one parallel step (PKT).",
        "additional_parameters": {},
    },
    "transitivity": {
        "additional_docs": "Undirected graphs only; directed graphs fall back to NetworkX.",
        "additional_parameters": {},
    },
    "triadic_census": {
        "additional_docs": "Closed triads from the arc codes of the triangles, open ones from degrees.",
        "additional_parameters": {},
    },
    "triangles": {
        "additional_docs": "Counts every vertex at once, on the GPU when one is usable.",
        "additional_parameters": {},
    },
}
# END: functions

_AUTOCONFIG = {
    "NETWORKX_BACKEND_PRIORITY": "tricount",
    "NETWORKX_FALLBACK_TO_NX": "True",
    "NETWORKX_CACHE_CONVERTED_GRAPHS": "True",
}


def get_info() -> dict:
    """The backend's name, summary, default configuration and function table."""
    if os.environ.get("TRICOUNT_NX_AUTOCONFIG", "").strip().lower() in ("1", "true", "yes", "on"):
        for key, value in _AUTOCONFIG.items():
            os.environ.setdefault(key, value)
    return {
        "backend_name": "tricount",
        "project": "tricount",
        "package": "tricount",
        "short_summary": "Exact triangle counts, clustering and k-truss on NVIDIA GPUs and CPUs.",
        "default_config": {"backend": os.environ.get("TRICOUNT_NX_BACKEND", "auto")},
        "functions": {name: dict(entry) for name, entry in FUNCTIONS.items()},
    }


def _table_text() -> str:
    """The FUNCTIONS table as this file spells it, from the registered functions."""
    from tricount.nx.interface import registry

    lines = ["FUNCTIONS = {"]
    for name in sorted(registry):
        func = registry[name]
        lines += [
            f"    {name!r}: {{".replace("'", '"'),
            f"        \"additional_docs\": {func.additional_docs!r},".replace("'", '"'),
            f"        \"additional_parameters\": {func.additional_parameters!r},",
            "    },",
        ]
    lines.append("}")
    return "\n".join(lines)


def _rewrite(path: str) -> bool:
    """Regenerate the table in ``path``; returns whether the file changed."""
    with open(path) as f:
        text = f.read()
    begin = text.index("# BEGIN: functions\n") + len("# BEGIN: functions\n")
    end = text.index("# END: functions")
    new = text[:begin] + _table_text() + "\n" + text[end:]
    if new != text:
        with open(path, "w") as f:
            f.write(new)
    return new != text


if __name__ == "__main__":
    print("rewritten" if _rewrite(__file__) else "up to date")
