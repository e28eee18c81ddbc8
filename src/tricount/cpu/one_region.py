"""When the bitmap counter counts a graph in one parallel region: the rule, without Numba.

On two threads or more, the bitmap counter (:mod:`tricount.cpu.bitmap`) may count a
mid-sized graph in one parallel region, every pair (x, v) settled at its anchor x
(:func:`tricount.cpu.bitmap.count_at_anchors`: Σ d+(v) probes, no deferred pairs, so no
first pass and no placing pass), instead of settling each pair at the end with the
shorter list (the owner rule: fewer probes, but three regions, or one pass on the calling
thread for a small graph). The one region wins where a region's entries and the deferred
pairs' bookkeeping cost more than the probes the owner rule saves: graphs of
:data:`ONE_REGION_MIN_EDGES` to :data:`ONE_REGION_MAX_EDGES` edges whose anchors take few
probes an edge
(:func:`probes_bound`; the probes are estimated from a sample of the rows by
:func:`tricount.cpu.bitmap.anchor_probes_per_edge`). The rule lives here, apart from the
kernels, so that the cost model (:mod:`tricount.backends.costs`) can read it without
starting Numba.
"""

from __future__ import annotations

from tricount._threads import BITMAP_FEW_THREADS

__all__ = ["probes_bound", "ONE_REGION_MAX_EDGES", "ONE_REGION_PROBES_PER_EDGE",
           "ONE_REGION_SMALL_EDGES", "ONE_REGION_SMALL_PROBES_PER_EDGE",
           "ONE_REGION_MIN_EDGES"]

#: The one region counts graphs of fewer edges than this. Measured up to soc-Epinions1's
#: 405,740 edges; past 2^20 the regions' entries are small beside the count, and the owner
#: rule's fewer probes win (R-MAT 18, 382 probes an edge at the anchors: 86-95 against
#: 45-48 ms on the H100 host's 16 threads, 2026-11-27).
ONE_REGION_MAX_EDGES = 1 << 20
#: ... while the anchors' probes, Σ d+(v) over the pairs, stay under this many an edge
#: (:data:`ONE_REGION_SMALL_PROBES_PER_EDGE` under :data:`ONE_REGION_SMALL_EDGES` edges on
#: more than :data:`tricount._threads.BITMAP_FEW_THREADS` threads). On 16 threads (H100
#: host, 2026-11-27) the graphs of 2^16 edges or more gained at 16-44 (ego-Facebook
#: 0.87-0.91 -> 0.39-0.46 ms, ca-HepPh 1.12-1.14 -> 0.58-0.60, email-Enron 1.31-1.42 ->
#: 0.93); soc-Epinions1 (52) took 2.0-2.5 ms in some processes and 4.0-4.8 (medians) in
#: others, against 2.5-3.2 by the three regions: a hub's whole row, which the owner rule
#: shares out among other anchors, falls on one thread (not measured apart); blogcatalog
#: (190) and R-MAT 16 (207) lost. On two threads (the 2-core development machine,
#: 2026-11-27, the same graph counted nine times) the graphs up to 42 gained too
#: (ego-Facebook 2.2 -> 0.9 ms, ca-HepPh 3.1 -> 1.6, ca-HepTh 0.31 -> 0.19, ppi 0.74 ->
#: 0.44), oregon1_010331 (59) lost (0.21 -> 0.25 ms) and blogcatalog (195) lost.
ONE_REGION_PROBES_PER_EDGE = 48
#: On more than two threads a smaller graph's regions' entries weigh more, and one
#: thread's share of a hub less: oregon1_010331 (22,002 edges, 66 probes an edge) 0.39-0.40
#: -> 0.16-0.17 ms on 16 threads.
ONE_REGION_SMALL_EDGES = 1 << 16
ONE_REGION_SMALL_PROBES_PER_EDGE = 128
#: Graphs of fewer edges than this keep the one pass on the calling thread, which beats the
#: region under it: on two threads (2-core machine, 2026-11-27, nine counts of each graph)
#: jazz, 2,742 edges, 0.023 against 0.033 ms, power, 6,594, 0.026 against 0.045, while
#: ca-GrQc (14,484) took 0.098 against 0.085 and ca-HepTh (25,973) 0.31 against 0.19; on 16
#: threads (H100 host, 2026-11-27 19:02 UTC, benchmarks/results/cpu_vs_gapbs_16_h100.md)
#: ca-GrQc 0.3-0.5 ms by the one pass against 0.1-0.2 in one region (the engine's serial
#: bound, 2^14 edges, had kept it on the calling thread), jazz and power unchanged.
ONE_REGION_MIN_EDGES = 1 << 13


def probes_bound(n_edges: int, threads: int) -> float | None:
    """The most anchor probes an edge with which a graph of ``n_edges`` edges is counted in
    one region on ``threads`` threads, or None when its size or the threads rule it out.

    >>> probes_bound(25_973, 2), probes_bound(25_973, 16), probes_bound(6_594, 2)
    (48, 128, None)
    >>> probes_bound(14_484, 2), probes_bound(14_484, 16)
    (48, 128)
    >>> probes_bound(25_973, 1) is None and probes_bound(1 << 20, 16) is None
    True
    """
    if threads < 2 or not max(1, ONE_REGION_MIN_EDGES) <= n_edges < ONE_REGION_MAX_EDGES:
        return None
    if threads > BITMAP_FEW_THREADS and n_edges < ONE_REGION_SMALL_EDGES:
        return ONE_REGION_SMALL_PROBES_PER_EDGE
    return ONE_REGION_PROBES_PER_EDGE
