"""Compare partition schemes for counting beyond one device's memory, from real graph statistics.

For each graph (R-MAT, graph500 parameters, edge factor 16, seed 1; and the
graphs of ``../shared/data/graphs``), the rank-oriented CSR is built on the
CPU and four ways of cutting the count into sub-problems are measured at
several sizes, all in the same units:

- ``apex``: k ranges of apex ranks. ``apex/plan`` is what
  :func:`tricount.partition.plan.plan_partitions` cuts (the larger of the
  entry and work shares minimised, work = exact probes); the others cut so
  that each range holds 1/k of one estimate (``edges``: in-degree;
  ``wedges``: in(c) (in(c) - 1) / 2 + in(c); ``probes``: the exact two-paths
  a -> b -> c plus in(c)). Resident: the column block; moved: the block and
  the pair stream (rows below the range's end).
- ``tiles``: 2D tiles (i <= j) of the oriented adjacency over q row parts of
  equal entries: pairs a in P_i -> b in P_j, resident row strips i and j.
- ``triples``: block triples i <= j <= l after Suri and Vassilvitskii, q parts
  of equal column entries: resident A[i, j], A[i, l], A[j, l].
- ``rows``: anchor ranges over the whole replicated graph (Polak's several-GPU
  split), cut by exact work.

Columns: sub-problems; largest resident bytes (4 B per entry, 8 B per row
offset) as a fraction of the whole oriented CSR; bytes moved in passes over
the oriented CSR; work balance = largest / mean of the exact probe count
(two-paths a -> b -> c inside the sub-problem plus marks), the bitmap
counter's work. Run::

    PYTHONPATH=src python benchmarks/partition_schemes.py --scales 18 19 20 21 22 \
        --shared soc-Epinions1 email-Enron ca-AstroPh blogcatalog --out docs/partition_schemes.md
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from tricount import load_graph
from tricount.generate import rmat
from tricount.graph import CSRGraph
from tricount.partition.plan import cut_by_work, plan_partitions
from tricount.partition.ranked import apex_probes, in_degrees, rank_graph

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "graphs"


def _prefix(values):
    out = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum(values, out=out[1:])
    return out


class Stats:
    """Per-rank statistics of one rank-oriented graph."""

    def __init__(self, ranked):
        self.n, self.m = ranked.n_vertices, ranked.n_edges
        self.indptr, self.indices = ranked.indptr, ranked.indices
        self.out = np.diff(ranked.indptr)
        self.inn = in_degrees(ranked)
        self.probes = apex_probes(ranked, self.inn)
        self.true = self.probes + self.inn  # exact bitmap work per apex (probes + marks)
        self.whole = 4 * self.m + 8 * (self.n + 1)
        self._rows = None

    @property
    def rows(self):
        if self._rows is None:
            self._rows = np.repeat(np.arange(self.n, dtype=np.int64), self.out)
        return self._rows

    def parts(self, per_rank, q):
        """Part of every rank: q ranges of about equal ``per_rank`` sums."""
        bounds = cut_by_work(_prefix(per_rank), q)
        return np.searchsorted(bounds, np.arange(self.n), side="right") - 1, bounds

    def hist(self, key_part, index, q):
        """hist[v, p]: entries whose ``index`` is v and whose other end lies in part p."""
        return np.bincount(index * q + key_part, minlength=self.n * q).reshape(self.n, q)


def scheme_apex(s, k, estimate):
    if estimate == "plan":
        bounds = np.asarray(plan_partitions(s.inn, work=s.true, partitions=k).bounds)
    else:
        work = {"edges": s.inn, "wedges": s.inn * (s.inn - 1) // 2 + s.inn, "probes": s.true}
        bounds = cut_by_work(_prefix(work[estimate]), k)
    cum_in, cum_true = _prefix(s.inn), _prefix(s.true)
    lo, hi = bounds[:-1], bounds[1:]
    block = cum_in[hi] - cum_in[lo]
    resident = 4 * block + 8 * (hi + 1)
    moved = resident + 4 * cum_in[hi] + 8 * (hi + 1)
    return k, resident.max(), moved.sum(), cum_true[hi] - cum_true[lo]


def scheme_rows(s, k):
    # Work of anchor a: Σ over b in N+(a) of |N+(b)| probes plus |N+(a)| marks.
    per_anchor = np.bincount(s.rows, weights=s.out[s.indices], minlength=s.n).astype(np.int64)
    per_anchor += s.out
    bounds = cut_by_work(_prefix(per_anchor), k)
    cum = _prefix(per_anchor)
    return k, s.whole, k * s.whole, cum[bounds[1:]] - cum[bounds[:-1]]


def scheme_tiles(s, q):
    part, bounds = s.parts(s.out, q)
    strip = np.bincount(part, weights=s.out, minlength=q).astype(np.int64)
    size = np.diff(bounds)
    # in_i(b) from parts of a; work(i, j) = Σ_{b in P_j} in_i(b) * out(b), plus marks of P_i.
    in_hist = s.hist(part[s.rows], s.indices.astype(np.int64), q)
    resident, work = [], []
    for i in range(q):
        for j in range(i, q):
            rows = size[i] + (size[j] if j != i else 0)
            entries = strip[i] + (strip[j] if j != i else 0)
            resident.append(4 * entries + 8 * (rows + 2))
            sel = part == j
            work.append(int((in_hist[sel, i] * s.out[sel]).sum()) + int(strip[i]))
    resident = np.asarray(resident)
    return len(work), resident.max(), resident.sum(), np.asarray(work)


def scheme_triples(s, q):
    part, bounds = s.parts(s.inn, q)
    size = np.diff(bounds)
    pa, pc = part[s.rows], part[s.indices]
    block = np.bincount(pa * q + pc, minlength=q * q).reshape(q, q)
    in_hist = s.hist(pa, s.indices.astype(np.int64), q)      # in_i(b)
    out_hist = s.hist(pc, s.rows, q)                         # out_h(b)
    resident, work = [], []
    for i in range(q):
        for j in range(i, q):
            sel = part == j
            pair = in_hist[sel].T.astype(np.float64) @ out_hist[sel].astype(np.float64)
            for h in range(j, q):  # the apex part
                blocks = {(i, j), (i, h), (j, h)}
                entries = sum(int(block[x, y]) for x, y in blocks)
                rows = size[i] + (size[j] if j != i else 0)  # one offset array per row part
                resident.append(4 * entries + 8 * (rows + 2))
                work.append(int(pair[i, h]) + int(block[i, h]))
    resident = np.asarray(resident)
    return len(work), resident.max(), resident.sum(), np.asarray(work)


def row(graph, s, scheme, size, result):
    count, resident, moved, work = result
    work = np.asarray(work, dtype=np.float64)
    balance = work.max() / work.mean() if work.sum() else 1.0
    return {"graph": graph, "n": s.n, "m": s.m, "scheme": scheme, "size": size,
            "subproblems": int(count), "resident_bytes": int(resident),
            "resident_fraction": float(resident) / s.whole,
            "moved_passes": float(moved) / s.whole, "balance": float(balance)}


def measure(graph, s, ks):
    out = []
    for k in ks:
        for estimate in ("plan", "edges", "probes", "wedges"):
            out.append(row(graph, s, f"apex/{estimate}", k, scheme_apex(s, k, estimate)))
        out.append(row(graph, s, "rows", k, scheme_rows(s, k)))
    for q in (2, 3, 4):
        out.append(row(graph, s, "tiles", q, scheme_tiles(s, q)))
    for q in (2, 3):
        out.append(row(graph, s, "triples", q, scheme_triples(s, q)))
    return out


def markdown(rows) -> str:
    lines = ["| graph | n | m | scheme | k or q | sub-problems | largest resident (MB) "
             "| of whole | moved (passes) | balance (max/mean) |",
             "|---|--:|--:|---|--:|--:|--:|--:|--:|--:|"]
    for r in rows:
        lines.append(f"| {r['graph']} | {r['n']:,} | {r['m']:,} | {r['scheme']} | {r['size']} "
                     f"| {r['subproblems']} | {r['resident_bytes'] / 1e6:,.1f} "
                     f"| {r['resident_fraction']:.2f} | {r['moved_passes']:.2f} "
                     f"| {r['balance']:.2f} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", type=int, nargs="*", default=[18])
    parser.add_argument("--shared", nargs="*", default=[], help="names in graphs.json")
    parser.add_argument("--ks", type=int, nargs="+", default=[2, 4, 8])
    parser.add_argument("--out", help="write the markdown table here (and .jsonl beside it)")
    args = parser.parse_args(argv)
    rows = []
    sources = [(f"rmat-{s}", s) for s in args.scales]
    if args.shared:
        meta = {r["name"]: r for r in json.loads((SHARED / "graphs.json").read_text())}
        sources += [(name, SHARED / meta[name]["file"]) for name in args.shared]
    for name, what in sources:
        t0 = time.perf_counter()
        if isinstance(what, int):
            src, dst = rmat(what, 16, seed=1)
            graph = CSRGraph.from_edges(src, dst)
            del src, dst
        else:
            graph = load_graph(what)
        s = Stats(rank_graph(graph))
        del graph
        got = measure(name, s, args.ks)
        rows += got
        print(f"{name}: {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    table = markdown(rows)
    print(table)
    if args.out:
        Path(args.out).write_text(table)
        with open(Path(args.out).with_suffix(".jsonl"), "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
