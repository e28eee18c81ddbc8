"""What every subcommand shares: common options, loading, and errors as exit codes.

Exit codes (:func:`run`):

====  ==================================================================
0     success
2     bad input or usage: a malformed file (named, with its line), a bad
      option, an output that is an input or cannot be written (a full disk)
3     the requested backend is unavailable (``--backend gpu`` without a GPU)
4     verification failed (``--verify``, ``bench``)
130   interrupted (Ctrl-C): one line on stderr, no traceback, no partial output
141   standard output was closed early (``| head -n 0``): quietly, as a
      program killed by SIGPIPE
143   terminated (SIGTERM): as Ctrl-C
====  ==================================================================

Answers go to stdout (or one JSON object with ``--json``), context and
errors to stderr (one ``tricount: error: ...`` line).

Ctrl-C while Numba compiles or loads a cached kernel (under its global
compiler lock) is deferred until the lock is released: interrupting Numba
there could crash the interpreter (a SIGSEGV in about one run in three).
"""

from __future__ import annotations

import errno
import os
import signal
import sys
import threading

from tricount.backends import BACKENDS
from tricount.errors import BackendUnavailableError, TricountError
from tricount.io import FORMATS
from tricount.io.detect import ALIASES
from tricount.io.output import Terminated, terminate_on_sigterm

EXIT_OK = 0
EXIT_BAD_INPUT = 2
EXIT_BACKEND_UNAVAILABLE = 3
EXIT_VERIFY_FAILED = 4
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141
EXIT_TERMINATED = 143

INPUT_HELP = ("graph file: SNAP/TSV edge list, GraphChallenge _adj.tsv/.mmio, Matrix Market, "
              "METIS, .npy/.npz or .tcsr; plain or .gz/.bz2/.xz/.zst; - for standard input")


def add_input(parser, *, optional: bool = False, help: str = INPUT_HELP) -> None:
    """The input graph (PATH) and ``--format``."""
    parser.add_argument("path", nargs="?" if optional else None, metavar="PATH", help=help)
    parser.add_argument("--format", default="auto", choices=sorted(set(ALIASES)),
                        metavar="FORMAT",
                        help=f"input format: auto (default) or one of {', '.join(FORMATS)}")


def add_backend(parser) -> None:
    parser.add_argument("--backend", choices=BACKENDS, default="auto",
                        help="where to compute: auto (the GPU when usable), cpu, gpu or "
                             "reference (default auto)")


def add_json(parser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def say(args, message: str) -> None:
    """A context line on stderr (not with --json)."""
    if not getattr(args, "json", False):
        print(message, file=sys.stderr)


def load(args, *, device: str = "cpu"):
    """Read ``args.path`` (format ``args.format``); returns the ``LoadedGraph``."""
    from tricount.io import read_graph

    return read_graph(args.path, format=getattr(args, "format", "auto"), device=device)


def host(a):
    from tricount.prep.xp import to_host

    return to_host(a)


def id_column(graph, index=None):
    """The graph's original vertex ids (of ``index`` when given), on the host."""
    import numpy as np

    ids = np.asarray(host(graph.vertex_ids))
    return ids[host(index)] if index is not None else ids


# -- running a command ------------------------------------------------------------------


class _SigintGuard:
    """SIGINT raises KeyboardInterrupt, except inside Numba's compiler lock (deferred)."""

    def __init__(self):
        self.pending = False

    @staticmethod
    def _numba_busy() -> bool:
        if "numba.core.compiler_lock" not in sys.modules:
            return False
        lock = sys.modules["numba.core.compiler_lock"].global_compiler_lock
        try:
            return lock.is_locked()
        except Exception:  # an internal API: if it changes, interrupt as usual
            return False

    def __call__(self, signum, frame):
        if self._numba_busy():
            if not self.pending:
                self.pending = True
                threading.Thread(target=self._deliver_later, daemon=True).start()
            return
        self.pending = False
        raise KeyboardInterrupt

    def _deliver_later(self):
        """Wait for the main thread to leave the compiler lock, then interrupt it."""
        import _thread

        with sys.modules["numba.core.compiler_lock"].global_compiler_lock:
            pass  # acquired: the main thread has released it
        self.pending = False  # if the main thread is back inside, the handler defers again
        _thread.interrupt_main(signal.SIGINT)


def _install_handlers() -> None:
    if threading.current_thread() is not threading.main_thread():
        return
    signal.signal(signal.SIGINT, _SigintGuard())
    terminate_on_sigterm()


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


def run(args) -> int:
    """Run the parsed command ``args.run(args)``; map every failure to its exit code."""
    handlers = (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM))
    _install_handlers()
    try:
        code = args.run(args)
        sys.stdout.flush()
        return code
    except BackendUnavailableError as exc:
        error(exc)
        return EXIT_BACKEND_UNAVAILABLE
    except TricountError as exc:
        error(exc)
        return EXIT_BAD_INPUT
    except MemoryError:
        error("out of memory; use a machine with more memory, or a smaller graph")
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        print("tricount: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Terminated:
        print("tricount: terminated", file=sys.stderr)
        return EXIT_TERMINATED
    except OSError as exc:  # writing the answer to a full disk or a closed terminal
        if exc.errno == errno.EPIPE:
            _quiet_stdout()
            return EXIT_BROKEN_PIPE
        error(f"{exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else ""))
        return EXIT_BAD_INPUT
    finally:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, handlers[0])
            signal.signal(signal.SIGTERM, handlers[1])
