"""``tricount info PATH``: describe a graph file (format, sizes, what was dropped)."""

from __future__ import annotations

import json
import os

from tricount.cli import options

HELP = "describe a graph file: format, sizes, what was dropped"


def add_arguments(info) -> None:
    options.add_input(info)
    options.add_json(info)


def describe(path, loaded) -> dict:
    """The JSON report of a loaded graph: format, compression, sizes, drops, timings."""
    g = loaded.graph
    report = {"path": os.fspath(path), "format": loaded.format,
              "compression": loaded.compression}
    report.update(g.summary())
    report["empty"] = g.n_edges == 0
    report.update({k: round(v, 6) for k, v in loaded.timings.items()})
    return report


def run(args) -> int:
    loaded = options.load(args)
    report = describe(args.path, loaded)
    if args.json:
        print(json.dumps(report))
        return options.EXIT_OK
    packed = f" ({loaded.compression})" if loaded.compression else ""
    empty = " (the graph is empty)" if report["empty"] else ""
    print(f"format: {loaded.format}{packed}")
    print(f"vertices: {report['vertices']}")
    print(f"edges: {report['edges']}{empty}")
    print(f"max degree: {report['max_degree']}")
    print(f"self-loops dropped: {report['self_loops_dropped']}")
    print(f"duplicates dropped: {report['duplicates_dropped']}")
    options.say(args, f"read in {loaded.timings['load_s']:.3f} s, built in "
                      f"{loaded.timings['build_s']:.3f} s")
    return options.EXIT_OK
