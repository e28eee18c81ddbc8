"""The NetworkX backend ``tricount``: ``nx.triangles(G, backend="tricount")``.

Thin by design: :mod:`tricount.nx.graph` converts between NetworkX graphs and
:class:`~tricount.nx.graph.TricountGraph` (a :class:`~tricount.CSRGraph` plus
node labels and, when NetworkX asks, attributes); each function in
:mod:`tricount.nx.cluster` and :mod:`tricount.nx.core` is registered by
:func:`tricount.nx._decorators.networkx_algorithm`, translates NetworkX's
conventions and calls :mod:`tricount.local`. :mod:`tricount.nx.interface` is
the ``networkx.backends`` entry point and :mod:`tricount.nx.info` the
``networkx.backend_info`` one.

Importing this package imports neither NetworkX nor CuPy (NetworkX loads
:func:`tricount.nx.info.get_info` while it is itself being imported).
"""
