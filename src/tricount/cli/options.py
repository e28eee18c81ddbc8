"""What every subcommand shares: common options, loading, and errors as exit codes.

Exit codes (:func:`run`):

====  ==================================================================
0     success
2     bad input or usage: a malformed file (named, with its line), a bad
      option, an output that is an input or cannot be written (a full disk)
3     the requested backend is unavailable (``--backend gpu`` without a GPU)
4     verification failed (``--verify``, ``bench``)
129   hung up (SIGHUP, the terminal closed; not under ``nohup``): as Ctrl-C
130   interrupted (Ctrl-C): one line on stderr, no traceback, no partial output
141   standard output was closed early (``| head -n 0``): quietly, as a
      program killed by SIGPIPE
143   terminated (SIGTERM): as Ctrl-C
====  ==================================================================

Answers go to stdout (or one JSON object with ``--json``), context and
errors to stderr (one ``tricount: error: ...`` line).

Ctrl-C, SIGTERM and SIGHUP are not turned into exceptions: an exception raised
while Numba loads a cached kernel, starts its thread pool or runs a parallel
region can crash the interpreter (a SIGSEGV in about one run in three, seen
with ``tricount convert``). Instead Python's own C handler writes the signal
to a wakeup pipe (:func:`signal.set_wakeup_fd`), and a watcher thread reading
it removes the outputs being written (:func:`tricount.io.output.
remove_temporaries`), prints one line and ends the process with 130 (143, 129),
at once, even while a long kernel holds the main thread.
"""

from __future__ import annotations

import argparse
import errno
import math
import os
import signal
import sys
import threading

from tricount.backends import BACKENDS
from tricount.errors import BackendUnavailableError, TricountError
from tricount.io import FORMATS
from tricount.io.detect import ALIASES
from tricount.io.output import remove_temporaries

EXIT_OK = 0
EXIT_BAD_INPUT = 2
EXIT_BACKEND_UNAVAILABLE = 3
EXIT_VERIFY_FAILED = 4
EXIT_HUNG_UP = 129
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141
EXIT_TERMINATED = 143

INPUT_HELP = ("graph file: SNAP/TSV edge list, CSV (a header, names), Parquet, Arrow, "
              "GraphChallenge _adj.tsv/.mmio, Matrix Market, METIS, .npy/.npz or .tcsr; plain "
              "or .gz/.bz2/.xz/.zst; - for standard input")


def add_input(parser, *, optional: bool = False, help: str = INPUT_HELP) -> None:
    """The input graph (PATH) and ``--format``."""
    parser.add_argument("path", nargs="?" if optional else None, metavar="PATH", help=help)
    parser.add_argument("--format", default="auto", choices=sorted(set(ALIASES)),
                        metavar="FORMAT",
                        help=f"input format: auto (default) or one of {', '.join(FORMATS)}")


def add_backend(parser) -> None:
    parser.add_argument("--backend", choices=BACKENDS, default="auto",
                        help="where to compute: auto (the route predicted to answer first: "
                             "small graphs on the CPU, others on a usable GPU), cpu, gpu or "
                             "reference (default auto)")


def add_json(parser) -> None:
    # Suppressed default: the top level's --json (``tricount --json count``) stands.
    parser.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                        help="print one JSON object")


def answer_stream(*outputs):
    """Where a command prints its answer (its lines, or its ``--json`` object): standard
    error when one of ``outputs`` is ``-`` (a table goes to standard output, which must hold
    that table alone, as ``convert`` and ``list`` do), else standard output."""
    return sys.stderr if "-" in outputs else sys.stdout


def add_table_output(parser, flag: str, what: str) -> None:
    """``flag OUT``: a table the command writes to OUT (:func:`tricount.io.tables.write_table`:
    CSV or Parquet by the suffix); ``what`` says what it holds."""
    parser.add_argument(flag, metavar="OUT", help=f"{what} to OUT (.csv or .parquet)")


#: --max-memory's suffixes (powers of 1024; a trailing "B" or "iB" is allowed).
BYTE_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def parse_bytes(text: str) -> int:
    """``"12G"`` -> 12 * 2**30: a positive number of bytes, with an optional K/M/G/T suffix.

    >>> parse_bytes("1000"), parse_bytes("1.5K"), parse_bytes("2GiB")
    (1000, 1536, 2147483648)
    """
    raw = text.strip().upper().removesuffix("IB").removesuffix("B")
    unit = raw[-1:] if raw[-1:] in BYTE_UNITS else ""
    try:
        value = float(raw[:len(raw) - len(unit)]) * BYTE_UNITS[unit]
    except ValueError:
        value = 0
    if not (value >= 1 and math.isfinite(value) and value == int(value)):
        raise argparse.ArgumentTypeError(f"expected a positive whole number of bytes such as "
                                         f"8G or 500000000, got {text!r}")
    return int(value)


def parse_devices(text: str):
    """``"all"``, a number of GPUs (``"2"``), or GPU ids (``"0,1"``; one id: ``"1,"``).

    >>> parse_devices("all"), parse_devices("2"), parse_devices("0,0"), parse_devices("1,")
    ('all', 2, (0, 0), (1,))
    """
    if text == "all":
        return text
    try:
        if "," in text:
            parts = text.split(",")
            if parts[-1] == "":  # "1,": the id 1, not one GPU
                parts.pop()
            ids = tuple(int(part) for part in parts)
            if ids and all(i >= 0 for i in ids):
                return ids
        elif int(text) >= 1:
            return int(text)
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"expected all, a number of GPUs, or ids like 0,1 (one "
                                     f"id: 1,); got {text!r}")


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def add_partition_options(parser) -> None:
    """--partitions, --devices, --max-memory and --scheduler (a count in parts)."""
    group = parser.add_argument_group("counting in parts (tricount.partition)")
    group.add_argument("--partitions", type=positive_int, metavar="K",
                       help="count in K apex ranges, on any backend but reference (default: "
                            "one, or the least that fits the GPU)")
    group.add_argument("--devices", type=parse_devices, metavar="D",
                       help="spread the count over GPUs of this host: all, a number, or ids "
                            "such as 0,1 (one GPU by its id: 1,)")
    group.add_argument("--max-memory", type=parse_bytes, metavar="BYTES",
                       help="bytes the count may hold on a GPU (on the CPU: per sub-problem); "
                            "suffixes K, M, G, T are powers of 1024")
    group.add_argument("--scheduler", metavar="ADDRESS",
                       help="count the sub-problems on the Dask cluster at ADDRESS "
                            "(tcp://host:8786); selects the dask backend")


def partition_options(args) -> dict:
    """The count-in-parts keywords the command line set."""
    return {key: getattr(args, key) for key in ("partitions", "devices", "max_memory")
            if getattr(args, key, None) is not None}


def add_common(parser, *, top: bool = False) -> None:
    """``--json``, ``-v`` and ``-q``/``--quiet`` on ``parser`` (those it lacks). Below the
    top level their defaults are suppressed, so ``tricount -v count`` and ``tricount count
    -v`` both count."""
    have = {s for action in parser._actions for s in action.option_strings}
    default = {} if top else {"default": argparse.SUPPRESS}
    if "--json" not in have:
        parser.add_argument("--json", action="store_true", help="print one JSON object",
                            **default)
    if "-v" not in have:
        parser.add_argument("-v", "--verbose", action="count", default=0 if top else
                            argparse.SUPPRESS, help="log to stderr (-v info, -vv debug)")
    if "--quiet" not in have:
        parser.add_argument("-q", "--quiet", action="store_true",
                            help="no progress bars and no context lines on stderr", **default)


def add_common_everywhere(subparsers) -> None:
    """:func:`add_common` on every subcommand, nested ones (``generate rmat``) included."""
    for parser in set(subparsers.choices.values()):
        nested = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if nested:  # on the parent too: ``generate -q rmat`` as ``generate rmat -q``
            add_common_everywhere(nested[0])
        add_common(parser)


def apply_common(args) -> None:
    """Act on ``-v`` (logging) and ``--quiet`` (no bars) before the command runs."""
    import logging

    from tricount import _progress

    verbose = getattr(args, "verbose", 0) or 0
    log = logging.getLogger("tricount")
    for handler in [h for h in log.handlers if getattr(h, "tricount_cli", False)]:
        log.removeHandler(handler)  # a previous main() in this process
    quiet = getattr(args, "quiet", False)
    # Warnings (a first run's compilation, tricount.backends.select) always, unless --quiet;
    # the log itself with -v.
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
    handler.tricount_cli = True
    log.addHandler(handler)
    if verbose:
        log.setLevel(logging.DEBUG if verbose > 1 else logging.INFO)
    else:
        log.setLevel(logging.ERROR if quiet else logging.WARNING)
    if quiet:
        _progress.configure(enabled=False)


def say(args, message: str) -> None:
    """A context line on stderr (not with --json or --quiet)."""
    if not getattr(args, "json", False) and not getattr(args, "quiet", False):
        print(message, file=sys.stderr)


def say_written(args, message: str) -> None:
    """:func:`say` ``message`` ("wrote FILE") once the command's outputs are in place."""
    from tricount.io.output import after_commit

    after_commit(lambda: say(args, message))


def step(label: str):
    """A ticker on stderr while a step runs longer than two seconds (``--quiet``: none)."""
    from tricount._progress import Ticker

    return Ticker(label)


def load(args, *, device: str = "cpu", parser: str = "auto"):
    """Read ``args.path`` (format ``args.format``) with ``parser``; returns the ``LoadedGraph``."""
    from tricount.io import read_graph

    return read_graph(args.path, format=getattr(args, "format", "auto"), device=device,
                      parser=parser)


def host(a):
    from tricount.prep.xp import to_host

    return to_host(a)


def id_column(graph, index=None):
    """The graph's original vertex ids (of ``index`` when given), on the host."""
    import numpy as np

    ids = np.asarray(host(graph.vertex_ids))
    return ids[host(index)] if index is not None else ids


# -- running a command ------------------------------------------------------------------


#: What the watcher does on each signal: (exit code, the one line it prints).
SIGNAL_EXITS = {signal.SIGINT: (EXIT_INTERRUPTED, "tricount: interrupted\n"),
                signal.SIGTERM: (EXIT_TERMINATED, "tricount: terminated\n")}
if hasattr(signal, "SIGHUP"):  # the terminal closed: as SIGTERM, exit 128 + 1
    SIGNAL_EXITS[signal.SIGHUP] = (EXIT_HUNG_UP, "tricount: hung up\n")


def _watch(read_fd: int) -> None:
    """Wait for a signal number on the wakeup pipe; clean up and end the process."""
    while True:
        try:
            data = os.read(read_fd, 64)
        except OSError:
            return
        if not data:  # the pipe was closed: the command is over
            return
        for signum in data:
            if signum in SIGNAL_EXITS:
                code, line = SIGNAL_EXITS[signum]
                remove_temporaries()
                try:
                    os.write(2, line.encode())
                finally:
                    os._exit(code)


class signals_end_the_process:
    """Within: Ctrl-C, SIGTERM and SIGHUP end the process through the watcher (module doc).

    Only in the main thread (elsewhere signals keep Python's behaviour)."""

    def __enter__(self):
        self.active = threading.current_thread() is threading.main_thread()
        if not self.active:
            return self
        self.read_fd, self.write_fd = os.pipe()
        os.set_blocking(self.write_fd, False)
        self.previous_fd = signal.set_wakeup_fd(self.write_fd, warn_on_full_buffer=False)
        # A signal ignored when the command started (SIGHUP under nohup) stays ignored.
        self.previous = {s: signal.signal(s, _ignore) for s in SIGNAL_EXITS
                         if signal.getsignal(s) is not signal.SIG_IGN}
        try:
            threading.Thread(target=_watch, args=(self.read_fd,), name="tricount-signals",
                             daemon=True).start()
        except RuntimeError:  # no thread to be had (memory, ulimit -u): Python's own handling
            self.__exit__()
            os.close(self.read_fd)
            self.active = False
        return self

    def __exit__(self, *exc):
        if self.active:
            for s, handler in self.previous.items():
                signal.signal(s, handler)
            signal.set_wakeup_fd(self.previous_fd)
            os.close(self.write_fd)  # the watcher reads the end of the pipe and returns
        return False


def _ignore(signum, frame):
    """The Python-level handler: nothing (the watcher acts on the wakeup pipe)."""


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so that the interpreter's last flush cannot fail."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def error(message) -> None:
    print(f"tricount: error: {message}", file=sys.stderr)


def _cwd_exists() -> bool:
    try:
        os.getcwd()
    except FileNotFoundError:
        return False
    return True


def run(args) -> int:
    """Run the parsed command ``args.run(args)``; map every failure to its exit code."""
    with signals_end_the_process():
        return _run(args)


def _run(args) -> int:
    from tricount.io.output import committed_together

    try:
        with committed_together():  # a command's outputs replace the old ones only together
            code = args.run(args)
        if sys.stdout is not None:  # None: started with it closed (>&-), printing nothing
            sys.stdout.flush()
        return code
    except BackendUnavailableError as exc:
        error(exc)
        return EXIT_BACKEND_UNAVAILABLE
    except TricountError as exc:
        error(exc)
        return EXIT_BAD_INPUT
    except MemoryError as exc:
        what = f" ({str(exc)[:200]})" if str(exc) else ""  # NumPy names the size it asked for
        error(f"out of memory{what}; use a machine with more memory, or a smaller graph")
        return EXIT_BAD_INPUT
    except ModuleNotFoundError as exc:  # an installation without a package the route needs
        if not exc.name:
            raise
        package = exc.name.split(".")[0]
        hint = " (a dependency of tricount: reinstall it)" if package in ("numba", "numpy") \
            else ""
        error(f"this needs the package {package!r}, which is not installed here: pip install "
              f"{package}{hint}")
        return EXIT_BACKEND_UNAVAILABLE
    except ImportError as exc:  # a library that is there but cannot be loaded (no memory
        # left to map it under a memory limit, a damaged file): its own words
        error(f"cannot load {exc.name or 'a library'}: {str(exc)[:300]}; with little memory "
              "left (ulimit -v) raise the limit, else reinstall it")
        return EXIT_BACKEND_UNAVAILABLE
    except RuntimeError as exc:
        if "can't start new thread" not in str(exc):
            raise
        error("cannot start a thread: out of memory, or past the limit of processes and "
              "threads (ulimit -u); raise the limit or set NUMBA_NUM_THREADS lower")
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:  # raised by a caller's handler (in-process use)
        print("tricount: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except OSError as exc:  # writing the answer to a full disk or a closed terminal
        if exc.errno == errno.EPIPE:
            _quiet_stdout()
            return EXIT_BROKEN_PIPE
        if exc.errno == errno.ENOENT and not exc.filename and not _cwd_exists():
            error("the current folder no longer exists (removed since the shell entered it): "
                  "cd to one that does, or give absolute paths")
            return EXIT_BAD_INPUT
        error(f"{exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else ""))
        return EXIT_BAD_INPUT
