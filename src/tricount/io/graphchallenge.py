"""GraphChallenge adjacency TSV (``*_adj.tsv``): ``row<TAB>col<TAB>value``, 1-based.

Read as an edge list (the value column is ignored, every line an undirected
edge, ``vertex_ids`` the ids used), except that ids are 1-based: a 0 id is
refused with its line, since it is no vertex of such a file (a 0-based file
mislabelled ``_adj.tsv`` would otherwise be read with a vertex too many).
GraphChallenge's ``.mmio`` files are Matrix Market (:mod:`tricount.io.mtx`);
its ``*_inc.tsv`` incidence files are refused by name (``detect``).
"""

from __future__ import annotations

from tricount.io._parse import Declared, parse_edge_text


def read(source, out, *, progress=None) -> Declared:
    """Parse a GraphChallenge ``_adj.tsv`` into ``out`` (an ``EdgeText``)."""
    parse_edge_text(source, out, id_min=1, progress=progress,
                    out_of_range="vertex id {token} is not a vertex: GraphChallenge "
                                 "adjacency ids are 1-based (read a 0-based file with "
                                 "--format snap)")
    return Declared()
