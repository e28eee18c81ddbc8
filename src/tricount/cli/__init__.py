"""The ``tricount`` command line: one module per subcommand, shared options in ``options``.

    tricount count [PATH] [--backend B] [--method M] [--per-vertex OUT] [--per-edge OUT]
    tricount info PATH                 format, sizes, what was dropped
    tricount convert IN OUT            to native binary (.tcsr) or SNAP text
    tricount generate NAME ... FILE    a seeded generated graph
    tricount clustering PATH           average clustering and transitivity
    tricount ktruss PATH               the k-truss, or every edge's trussness
    tricount list PATH -o OUT          every triangle, to Parquet, TSV or standard output
    tricount bench GRAPH...            time methods, backends and peers

Every subcommand takes ``--json`` (one JSON object on stdout), ``-v`` (the
log on stderr: ``-v`` info, ``-vv`` debug) and ``-q``/``--quiet`` (no
progress bars and no context lines); ``tricount --version`` prints the
version. Progress bars appear on stderr for any step longer than two seconds,
on a terminal only.

Each subcommand module has ``HELP`` (its line in ``tricount --help``), optionally
``DESCRIPTION``, ``add_arguments(parser)`` and ``run(args)``; :func:`build_parser`
registers every one the same way, and :func:`main` parses and hands the command to
:func:`tricount.cli.options.run`, which turns every failure into its exit code (0 ok,
2 bad input or usage, 3 backend unavailable, 4 verification failed, 130 Ctrl-C). The
subcommands reach the library through the public API (``tricount.count``,
``tricount.triangles``, ...), ``tricount.backends`` and ``tricount.io``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from tricount import _std_streams
from tricount.cli import options

__all__ = ["main", "build_parser"]

#: The subcommands, in the order ``tricount --help`` lists them (module = name).
SUBCOMMANDS = ("count", "info", "convert", "generate", "clustering", "ktruss", "list", "bench")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``tricount`` parser: every subcommand, or only ``command`` when it names one
    (what :func:`main` runs: the other subcommands' modules, and what they import to list
    their choices, such as the benchmark's peers, 0.15 s, stay unloaded)."""
    from tricount import __version__

    parser = argparse.ArgumentParser(prog="tricount", description="Exact triangle counting.")
    parser.add_argument("--version", action="version", version=f"tricount {__version__}")
    options.add_common(parser, top=True)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in (command,) if command in SUBCOMMANDS else SUBCOMMANDS:
        module = importlib.import_module(f"tricount.cli.{name}")
        command_parser = sub.add_parser(name, help=module.HELP,
                                        description=getattr(module, "DESCRIPTION", None))
        module.add_arguments(command_parser)
        command_parser.set_defaults(run=module.run)
    options.add_common_everywhere(sub)
    return parser


#: The values Numba takes for NUMBA_THREADING_LAYER.
NUMBA_LAYERS = ("default", "safe", "forksafe", "threadsafe", "tbb", "omp", "workqueue")


def _numba_environment_problem(env) -> str | None:
    """What is wrong with Numba's variables in ``env``, which Numba would meet with a
    traceback (a count of 0 at its import; an unknown layer at the first parallel loop) or
    a warning and its own default (a count that is not a number), or None.

    >>> _numba_environment_problem({"NUMBA_NUM_THREADS": "4", "NUMBA_THREADING_LAYER": "tbb"})
    >>> _numba_environment_problem({"NUMBA_THREADING_LAYER": ""})[:40]
    "NUMBA_THREADING_LAYER='': Numba's layers"
    """
    threads = env.get("NUMBA_NUM_THREADS")
    if threads is not None and not (threads.strip().lstrip("+").isdigit()
                                    and int(threads) >= 1):
        return (f"NUMBA_NUM_THREADS={threads!r}: a number of threads must be a whole number "
                "of at least 1 (or leave it unset)")
    layer = env.get("NUMBA_THREADING_LAYER")
    if layer is not None and layer.lower() not in NUMBA_LAYERS:  # Numba lowers it
        return (f"NUMBA_THREADING_LAYER={layer!r}: Numba's layers are "
                f"{', '.join(NUMBA_LAYERS)} (or leave it unset)")
    return None


def main(argv=None) -> int:
    """Run ``tricount`` with ``argv`` (default ``sys.argv[1:]``); return the exit code."""
    _std_streams.reserve()  # before any pipe or file is opened (the signal pipe included)
    _std_streams.stand_in()  # no message into standard output, no answer lost unsaid
    problem = _numba_environment_problem(os.environ)
    if problem:
        print(f"tricount: error: {problem}", file=sys.stderr)
        return options.EXIT_BAD_INPUT
    argv = sys.argv[1:] if argv is None else [*argv]  # (``list`` here is the subcommand)
    # The top-level options take no value: the first other word is the subcommand.
    command = next((word for word in argv if not word.startswith("-")), None)
    try:
        args = build_parser(command).parse_args(argv)
    except KeyboardInterrupt:
        print("tricount: interrupted", file=sys.stderr)
        return options.EXIT_INTERRUPTED
    options.apply_common(args)
    return options.run(args)


if __name__ == "__main__":
    sys.exit(main())
