"""The benchmark plot: rate against graph size, one line per method and per peer.

Left panel: tricount's counting rate (m / median count time). Right panel,
when peers ran: edges-to-count rate, construction included, for tricount and
every peer, so both sides are timed over the same span. Both axes are
logarithmic; m counts each undirected edge once. Needs matplotlib (the
``bench`` extra); :func:`plot` says so instead of failing when it is absent.
"""

from __future__ import annotations

import sys

from tricount.bench.report import read_jsonl, summarize
from tricount.errors import import_failure
from tricount.generate.spec import find_generator

__all__ = ["plot", "matplotlib_available"]


def matplotlib_available() -> tuple[bool, str]:
    try:
        import matplotlib  # noqa: F401
    except ImportError as exc:
        why = import_failure(exc, "matplotlib", "matplotlib")
        if why.endswith("not installed"):
            why += ' (pip install ".[bench]" from a tricount clone)'
        return False, why
    return True, "installed"


MARKERS = "osD^vP*Xh<>"


def family(row: dict) -> str:
    """The graph family a point belongs to: the generator's name, or ``file``."""
    source = str(row.get("source") or "")
    head = source.split(":", 1)[0]
    g = find_generator(head) if ":" in source else None
    return g.name if g is not None else "file"


def _series(rows, rate_key):
    """``{(side, family): [(m, M edges/s), ...]}`` sorted by m."""
    series: dict = {}
    for r in rows:
        if r[rate_key] is None:
            continue
        side = r["label"] if r["side"] == "peer" else f"tricount {r['label']}"
        series.setdefault((side, family(r)), []).append((r["edges"], r[rate_key] / 1e6))
    return {k: sorted(v) for k, v in series.items()}


def plot(records, path, *, title: str = "tricount bench") -> None:
    """Write the PNG for a run's records to ``path`` (a file name or a binary file)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.ticker import NullFormatter

    rows = summarize(records)
    ours = [r for r in rows if r["side"] == "tricount"]
    has_peers = any(r["side"] == "peer" for r in rows)
    panels = [("counting rate: m / count time", _series(ours, "edges_per_second"))]
    if has_peers:
        panels.append(("edges → count, construction included",
                       _series(rows, "from_edges_per_second")))
    fig, axes = plt.subplots(1, len(panels), figsize=(8.0 * len(panels), 4.8), squeeze=False)
    sides = list(dict.fromkeys(side for _, series in panels for side, _ in series))
    families = list(dict.fromkeys(fam for _, series in panels for _, fam in series))
    colors = {side: f"C{i % 10}" for i, side in enumerate(sides)}
    markers = {fam: MARKERS[i % len(MARKERS)] for i, fam in enumerate(families)}
    for ax, (subtitle, series) in zip(axes[0], panels):
        # One line per (side, graph family): lines never join different families.
        for (side, fam), points in series.items():
            xs, ys = zip(*points)
            ax.plot(xs, ys, color=colors[side], marker=markers[fam],
                    linestyle="-" if side.startswith("tricount") else "--")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())  # decades only: minor labels collide
        ax.set_xlabel("m: undirected edges, each counted once")
        ax.set_ylabel("million edges per second")
        ax.set_title(subtitle, fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        present = list(dict.fromkeys(side for side, _ in series))
        handles = [Line2D([], [], color=colors[s], linestyle="-" if s.startswith("tricount")
                          else "--", label=s) for s in present]
        if len(families) > 1:
            handles += [Line2D([], [], color="0.3", marker=markers[f], linestyle="none",
                               label=f"graphs: {f}") for f in families]
        if handles:
            ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                      borderaxespad=0.0)
    if records:
        first = records[0]
        names = []
        for r in records:
            name = (r.get("device") or {}).get("name")
            if r["side"] == "tricount" and name and name not in names:
                names.append(name)
        trials = first["trials"]
        title = (f"{title}: {' + '.join(names)}, {first['date'][:10]}, median of {trials} "
                 f"trial{'s' if trials != 1 else ''}")
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None) -> int:
    """``python -m tricount.bench.plot RUN.jsonl [...] OUT.png``: re-plot saved runs."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 2 or not argv[-1].endswith(".png"):
        print("usage: python -m tricount.bench.plot RUN.jsonl [...] OUT.png", file=sys.stderr)
        return 2
    plot([r for path in argv[:-1] for r in read_jsonl(path)], argv[-1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
