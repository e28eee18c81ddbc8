"""When the bitmap counter counts a graph in id order: the bound on its probes, without Numba.

The bitmap counter (:mod:`tricount.cpu.bitmap`) counts either the graph's own upper CSR (id
order: nothing to orient) or its rank orientation; :func:`tricount.cpu.bitmap.plan_in_id_order`
counts the probes the id order would take (the count's own first pass) and compares them with
:func:`id_order_limit`. The
rule lives here, apart from the kernels, so that the cost model (:mod:`tricount.backends.costs`)
can read it without starting Numba.
"""

from __future__ import annotations

__all__ = ["id_order_limit", "likely_in_id_order", "ID_ORDER_PROBES_PER_EDGE",
           "ID_ORDER_SMALL_PROBES_PER_EDGE", "ID_ORDER_SMALL_MAX_EDGES", "ID_ORDER_MANY_THREADS",
           "ID_ORDER_MANY_THREADS_PROBES_PER_EDGE"]

#: :func:`id_order_limit`'s bounds, in probes per edge of the id order. Measured (best
#: of 3-20; the id order's probes and count against the rank orientation plus its count),
#: on 2 threads on the 2-core development machine and on 16 on the H100 host's 16 cores
#: (device runs 1-2 of 2026-11-26 23:40-23:58 UTC, benchmarks/results/cpu_vs_gapbs_16_h100.md):
#:
#: =================  =========  ==============  ==============  ===============
#: graph              edges      probes an edge  id / rank, 2    id / rank, 16
#: =================  =========  ==============  ==============  ===============
#: 14 shared graphs   2.7-406 K  0.5-42.5        0.44-0.66       0.33-0.54
#: R-MAT 16           910 K      58              0.73            0.44
#: R-MAT 17           1.86 M     73              0.87
#: R-MAT 18           3.8 M      92              1.01            0.53
#: R-MAT 20           15.7 M     145                             0.76
#: R-MAT 20, ef 4     4.1 M      46              1.18            0.50
#: grid 2000 x 2000   8.0 M      0.5             0.50            0.38
#: Watts-Strogatz     8.4 M      3.5             0.44            0.42
#: Barabási-Albert    8.4 M      7.4             0.61            0.29
#: G(2^20, 2^24)      16.8 M     9.0             0.76            0.57
#: =================  =========  ==============  ==============  ===============
#:
#: The rank orientation's passes (atomic adds, row sorts) gain 2x from 2 threads to 16, the
#: id order's count 4x, so the id order pays further on many threads. On fewer than
#: ``ID_ORDER_MANY_THREADS`` (4 threads unmeasured: the 2-thread rule): few probes an edge at
#: any size, up to 64 on graphs under 2^21 edges (R-MAT 17 at 73 is left to rank, a 13 %
#: loss; past that size the rank order's locality wins at fewer, R-MAT 20 with edge factor 4
#: at 46). From ``ID_ORDER_MANY_THREADS`` on: up to 128 at any size (R-MAT 20, at 145, is
#: left to rank: a 24 % loss). Where the rank order would have probed nothing, the id order
#: costs at most about 2.7x the orientation alone at these bounds (its probes at 1 ns on 2
#: threads, 0.18 ns on 16, against 20 and 8.4 ns an edge of orientation).
ID_ORDER_PROBES_PER_EDGE = 16
ID_ORDER_SMALL_PROBES_PER_EDGE = 64
ID_ORDER_SMALL_MAX_EDGES = 1 << 21
ID_ORDER_MANY_THREADS = 8
ID_ORDER_MANY_THREADS_PROBES_PER_EDGE = 128


def id_order_limit(n_edges: int, workers: int) -> int:
    """The most probes an edge for which a graph of ``n_edges`` edges, counted by
    ``workers`` threads, is counted in id order (the bounds above)."""
    if workers >= ID_ORDER_MANY_THREADS:
        return ID_ORDER_MANY_THREADS_PROBES_PER_EDGE
    if n_edges < ID_ORDER_SMALL_MAX_EDGES:
        return ID_ORDER_SMALL_PROBES_PER_EDGE
    return ID_ORDER_PROBES_PER_EDGE


def likely_in_id_order(n_edges: int, workers: int) -> bool:
    """What the cost model assumes before the probes are known: the id order where its bound
    is the generous one (graphs under :data:`ID_ORDER_SMALL_MAX_EDGES` edges, or many threads),
    as it was on every graph measured there but R-MAT 17 (73 probes an edge) and R-MAT 20 on
    16 threads (145)."""
    return n_edges < ID_ORDER_SMALL_MAX_EDGES or workers >= ID_ORDER_MANY_THREADS
