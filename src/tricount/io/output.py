"""Every output is written whole or not at all, and never over an input.

:func:`atomic_output` is the one way tricount writes a file. It writes to a
temporary file in the target's folder (so the final rename stays on one file
system), flushes it, ``fsync``\\ s it, renames it over the target and
``fsync``\\ s the folder. On any exception, ``KeyboardInterrupt`` (Ctrl-C) and
:class:`Terminated` (SIGTERM, see :func:`terminate_on_sigterm`) included,
the temporary is removed and the target is left as it was. A reader of the
target therefore sees the old file or the new one, never a mix, and two
writers of one path leave the one that renamed last. Only SIGKILL, a crash of
the process itself (a segfault or an abort in native code, seen when the memory
runs out under ``ulimit -v``) or a power cut can leave a temporary behind (named
``.NAME.tricount-*``, beside the target); the target is still whole.

Within :func:`committed_together` (the CLI runs every command inside it) the
renames wait until the whole command has succeeded: a command of several
outputs (``--per-vertex`` and ``--per-edge``, a benchmark's report and plot) that
fails on its second leaves its first as it was too.

``-`` as a target means standard output, and a target that exists and is
not a regular file (``/dev/null``, a named pipe, a shell's ``>(...)``, a
terminal) is a stream too: both are written directly, since a stream cannot
be renamed over (and a device node must never be replaced by a file), and a
failed write (``/dev/full``: no space) is an error, not a success. Every byte
reaches the stream (:class:`_WholeWrites`): an unbuffered standard output
(``python -u``) or a non-blocking pipe may take part of a write, which the
writer then finishes, or a closed reader ends it as a broken pipe. A target
that is a symbolic link is written through: the file it points to is
replaced.

:func:`check_outputs` refuses, before any work is done, an output that is one
of the inputs by any path: the same name, a symbolic link either way, a hard
link (same device and inode), or standard input redirected from it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import shutil
import stat
import sys
import tempfile
import threading

from tricount._threads import renew_in_child
from tricount.errors import TricountError

STDOUT = "-"


class OutputError(TricountError):
    """An output that cannot or must not be written (the message names it)."""


#: Temporaries being written, removed by :func:`remove_temporaries` on a signal.
_LIVE: set = set()
_LIVE_LOCK = threading.Lock()
# A forked child neither writes the parent's temporaries nor removes them on its signal.
renew_in_child(globals(), _LIVE=set, _LIVE_LOCK=threading.Lock)

#: Per thread: the outputs written whole inside :func:`committed_together`, waiting for
#: their renames (None outside it).
_GROUP = threading.local()


@contextlib.contextmanager
def committed_together():
    """Outputs written inside are renamed into place together, when the block ends without
    an exception; on one, every temporary is removed and every target keeps its old content.
    """
    outer = getattr(_GROUP, "pending", None)
    if outer is not None:  # nested: the outer block commits
        yield
        return
    _GROUP.pending = pending = []
    _GROUP.after = after = []
    try:
        yield
    except BaseException:
        _GROUP.pending = _GROUP.after = None
        for tmp, _target, _folder, _path in pending:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            _forget(tmp)
        raise
    _GROUP.pending = _GROUP.after = None
    try:
        for tmp, target, folder, path in pending:
            try:
                os.replace(tmp, target)
            except OSError as exc:
                raise write_error(path, exc) from None
            _fsync_folder(folder)
    finally:
        for tmp, _target, _folder, _path in pending:
            with contextlib.suppress(OSError):
                os.unlink(tmp)  # a rename that failed, or those after it
            _forget(tmp)
    for then in after:
        then()


def after_commit(then) -> None:
    """Call ``then()`` once the outputs of the enclosing :func:`committed_together` are in
    place (never, if it fails), or now outside one: "wrote FILE" is said only of a file
    that was written (a command that failed later said it of outputs it then left out)."""
    after = getattr(_GROUP, "after", None)
    if after is None:
        then()
    else:
        after.append(then)


def _forget(tmp: str) -> None:
    with _LIVE_LOCK:
        _LIVE.discard(tmp)


def remove_temporaries() -> None:
    """Remove every temporary being written (called just before the process ends on a
    signal: the targets keep their old content)."""
    with _LIVE_LOCK:
        for tmp in list(_LIVE):
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        _LIVE.clear()


def _identity(path):
    """``(device, inode)`` of what ``path`` names (links followed), or None."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return info.st_dev, info.st_ino


def input_identity(path):
    """The identity of an input path (``-``: standard input's file), or None."""
    if os.fspath(path) == "-":
        try:
            info = os.fstat(sys.stdin.fileno())
        except (OSError, ValueError, AttributeError):
            return None
        return info.st_dev, info.st_ino
    return _identity(os.fspath(path))


def _stdout_identity():
    """``(device, inode)`` of the regular file standard output writes to, or None (a
    terminal, a pipe, a device)."""
    try:
        info = os.fstat(sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISREG(info.st_mode) else None


def check_outputs(outputs, inputs) -> None:
    """Refuse an output that is an input (any path to the same file, or standard output
    redirected into it), or a folder.

    ``outputs`` and ``inputs`` are paths (None entries are ignored; ``-`` is standard
    output or input). Raises :class:`OutputError` naming the output.
    """
    seen = {}
    for path in inputs:
        if path is None:
            continue
        ident = input_identity(path)
        if ident is not None:
            seen[ident] = os.fspath(path)
        if os.fspath(path) != "-":
            seen.setdefault(os.path.realpath(os.fspath(path)), os.fspath(path))
    for out in outputs:
        if out is None:
            continue
        out = os.fspath(out)
        if out == STDOUT:
            source = seen.get(_stdout_identity())
            if source is not None:
                raise OutputError(f"<stdout>: is redirected into the input {_shown(source)}; "
                                  "writing it would destroy the input: write to another file")
            continue
        source = seen.get(_identity(out)) or seen.get(os.path.realpath(out))
        if source is not None and (source == out
                                   or os.path.abspath(source) == os.path.abspath(out)):
            raise OutputError(f"{out}: is also the input; write to another file")
        if source is not None:
            raise OutputError(f"{out}: is the same file as the input {_shown(source)} "
                              f"({'read from standard input' if source == '-' else 'a link'}); "
                              "writing it would destroy the input: write to another file")
        if os.path.isdir(out):
            raise OutputError(f"{out}: is a directory; expected a file name to write")
        _refuse_unwritable(out, _target(out))


def _refuse_unwritable(path: str, target: str) -> None:
    """Refuse to replace a file this process may not write (its mode, or another's file in a
    folder it may write): the shell's ``>`` refuses it, and replacing it by a rename would
    succeed where the user was told no (and hand the file to this user)."""
    if os.path.isfile(target) and not os.access(target, os.W_OK):
        raise OutputError(f"{path}: permission denied (the file is not writable by this user); "
                          "change its mode or write elsewhere")


def check_distinct_outputs(outputs) -> None:
    """Refuse two outputs that name one file, by any spelling (``x.csv`` and ``./x.csv``,
    a link, standard output twice): the second would replace the first. Raises
    :class:`OutputError` naming both."""
    seen = {}
    for out in outputs:
        if out is None:
            continue
        out = os.fspath(out)
        keys = [out] if out == STDOUT else [os.path.realpath(out), _identity(out)]
        for key in keys:
            if key is not None and key in seen:
                same = "" if seen[key] == out else f" (the same file as {shown_output(seen[key])})"
                raise OutputError(f"{shown_output(out)}: named twice as an output{same}; give "
                                  "each table its own file")
        for key in keys:
            if key is not None:
                seen[key] = out


def shown_output(path) -> str:
    """An output path as messages name it: ``<stdout>`` for ``-``."""
    return "<stdout>" if str(path) == STDOUT else str(path)


def _shown(path: str) -> str:
    return "<stdin>" if path == "-" else path


def prefixed_outputs(prefix: str, suffixes, inputs=()) -> list:
    """The files ``PREFIX + suffix`` of a command's ``--out PREFIX``, checked before any
    work: PREFIX must not be an existing folder, no output may be an input
    (:func:`check_outputs`), and PREFIX's folder is created now, so that a file in its way
    is refused before the run rather than after it. Raises :class:`OutputError`.

    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> [os.path.basename(p) for p in prefixed_outputs(os.path.join(folder, "new", "run"),
    ...                                                (".md", ".json"))]
    ['run.md', 'run.json']
    >>> os.path.isdir(os.path.join(folder, "new"))
    True
    >>> import shutil; shutil.rmtree(folder)
    """
    from pathlib import Path

    path = Path(prefix)
    if prefix.endswith(os.sep) or path.is_dir():
        example = os.path.join(prefix.rstrip(os.sep) or ".", "run")
        raise OutputError(f"{prefix}: is an existing folder; --out takes a file prefix "
                          f"(e.g. {example}), and writes "
                          + ", ".join(f"PREFIX{s}" for s in suffixes))
    paths = [path.with_name(path.name + s) for s in suffixes]
    check_outputs(paths, [g for g in inputs if os.path.exists(g)])
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"{prefix}: cannot create its folder {path.parent}: "
                          f"{exc.strerror or exc}") from None
    return paths


def is_stream(path: str) -> bool:
    """True when ``path`` names something that exists and is neither a regular file nor a
    folder: a device, a named pipe or a socket, written in place (:func:`atomic_output`)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _target(path: str) -> str:
    """The file a write to ``path`` replaces: symbolic links followed."""
    return os.path.realpath(path) if os.path.islink(path) else path


def _fsync_folder(folder: str) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # some file systems cannot sync a folder; the rename is still atomic
        pass
    finally:
        os.close(fd)


def write_error(path, exc: OSError) -> OutputError:
    """A clear message for an OS error while writing ``path`` (a full disk, say)."""
    if exc.errno == errno.ENOSPC:
        why = "no space left on the device; free space or write elsewhere"
    elif exc.errno == errno.EDQUOT:
        why = "disk quota exceeded; free space or write elsewhere"
    elif exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        why = f"permission denied ({exc.strerror}); write elsewhere"
    elif exc.errno == errno.ENOENT:
        why = "the folder does not exist"
    else:
        why = exc.strerror or str(exc)
    return OutputError(f"{path}: cannot write: {why}")


@contextlib.contextmanager
def atomic_output(path, *, suffix_hint: bool = True, seekable: bool = False):
    """Yield ``(file, name)``: a binary file to write and the temporary's name.

    On success the temporary replaces ``path``; on any exception it is removed
    and the exception propagates (an ``OSError`` as :class:`OutputError`).
    ``name`` ends with ``path``'s own suffix, for writers that pick a format by
    name (matplotlib). ``path == "-"`` yields standard output and None; a stream
    (:func:`is_stream`) yields itself, opened for writing, and None. A writer that
    seeks back (``seekable``: the native format writes its header last) is given an
    unnamed temporary file instead of a stream that cannot seek (a pipe), copied into
    the stream once whole.
    """
    path = os.fspath(path)
    if path == STDOUT:
        if sys.stdout is None:  # started with its standard output closed (>&-)
            from tricount._std_streams import CLOSED_STDOUT

            raise OutputError(CLOSED_STDOUT)
        with _to_stream(contextlib.nullcontext(sys.stdout.buffer), "<stdout>", seekable) as out:
            yield out
        return
    if is_stream(path):  # links followed: /dev/stdout, a shell's /dev/fd/63
        with _to_stream(_opened(path), path, seekable) as out:
            yield out
        return
    target = _target(path)
    _refuse_unwritable(path, target)
    folder = os.path.dirname(os.path.abspath(target))
    base = os.path.basename(target)
    try:
        # The name's first 100 bytes at most: '.NAME.tricount-XXXXXXXX.ext' of a legal 236- to
        # 255-byte name was past the file system's 255 ('File name too long').
        stem = os.fsencode(base)[:100].decode(errors="ignore") if len(os.fsencode(base)) > 100 \
            else base
        fd, tmp = tempfile.mkstemp(prefix=f".{stem}.tricount-", suffix=os.path.splitext(base)[1]
                                   if suffix_hint else "", dir=folder)
    except OSError as exc:
        raise write_error(path, exc) from None
    with _LIVE_LOCK:
        _LIVE.add(tmp)
    try:
        with os.fdopen(fd, "wb") as f:
            yield f, tmp
            f.flush()
            os.fsync(f.fileno())
        try:  # keep the permissions an existing target had, else a new file's usual ones
            _keep_permissions(tmp, os.stat(target))
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        pending = getattr(_GROUP, "pending", None)
        if pending is not None:  # renamed with the others (committed_together)
            pending.append((tmp, target, folder, path))
            return
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        _forget(tmp)
        if isinstance(exc, OSError):
            raise write_error(path, exc) from None
        raise
    _forget(tmp)
    _fsync_folder(folder)


def _keep_permissions(tmp: str, old: os.stat_result) -> None:
    """Give the replacement the old file's permission bits (not set-user-ID, set-group-ID or
    sticky, which a write clears) and, where this process may, its owner and group (root
    replacing a user's file made it root's). Hard links to the old file and its extended
    attributes stay with the old file (docs/io.md)."""
    os.chmod(tmp, old.st_mode & 0o777)
    mine = os.stat(tmp)
    if (mine.st_uid, mine.st_gid) == (old.st_uid, old.st_gid):
        return
    try:
        os.chown(tmp, old.st_uid, old.st_gid)
    except OSError:  # not permitted: the file is this user's now; its group where it may be
        with contextlib.suppress(OSError):
            os.chown(tmp, -1, old.st_gid)


@contextlib.contextmanager
def _opened(path: str):
    """``path`` opened for writing when entered, so that its OSError meets the caller's
    handling (:func:`_to_stream`)."""
    with open(path, "wb") as f:
        yield f


@contextlib.contextmanager
def _to_stream(stream, name: str, seekable: bool):
    """``(file, None)`` whose bytes go to the stream ``stream`` (a context manager) opens:
    the stream itself, or, for a ``seekable`` writer and a stream that cannot seek, an
    unnamed temporary file copied into it once the writer is done. An OS error is an
    :class:`OutputError` naming ``name``; a closed pipe stays a ``BrokenPipeError``."""
    try:
        with stream as opened:
            out = _WholeWrites(opened)
            if seekable and not out.seekable():
                try:
                    spool = tempfile.TemporaryFile()
                except OSError as exc:
                    raise _spool_error(name, exc) from None
                with spool:
                    try:  # the writer writes only into the spool here
                        yield spool, None
                        spool.seek(0)
                    except OSError as exc:
                        raise _spool_error(name, exc) from None
                    shutil.copyfileobj(spool, out, 1 << 22)
            else:
                yield out, None
            out.flush()
    except BrokenPipeError:  # the reader left (| head): the CLI's exit, not an error
        raise
    except OSError as exc:
        raise write_error(name, exc) from None


def _spool_error(name: str, exc: OSError) -> OutputError:
    """The temporary file a seeking writer fills before a stream, not the stream, failed:
    it was reported as '<stdout>: cannot write: no space left' with the pipe fine."""
    return OutputError(f"{name}: cannot hold the output in a temporary file in "
                       f"{tempfile.gettempdir()} first ({exc.strerror or exc}); set TMPDIR to "
                       "a writable folder with room, or write to a file")


class _WholeWrites:
    """A binary stream whose ``write`` writes every byte (and returns their number).

    A raw stream (standard output under ``python -u`` or ``PYTHONUNBUFFERED``) may write
    part of a buffer and say so only in its return value, which ``shutil.copyfileobj``
    and the compressors ignore: 64 KiB of a 1 MB ``.tcsr`` reached a pipe, and the command
    said it wrote the whole. A non-blocking pipe takes nothing while it is full (None, or
    ``BlockingIOError`` from a buffered stream): the writer waits until it can write. A
    reader that left gives ``BrokenPipeError`` on the next write, as for any stream.
    """

    def __init__(self, stream):
        self._stream = stream

    def write(self, data) -> int:
        view = memoryview(data).cast("B")
        total = len(view)
        while len(view):
            try:
                n = self._stream.write(view)
            except BlockingIOError as exc:  # a buffered stream on a full non-blocking pipe
                n = exc.characters_written
                self._wait()
            if n is None:  # a raw stream on a full non-blocking pipe
                self._wait()
                continue
            view = view[n:]
        return total

    def flush(self) -> None:
        while True:
            try:
                self._stream.flush()
                return
            except BlockingIOError:
                self._wait()

    def _wait(self) -> None:
        select.select([], [self._stream.fileno()], [])

    def __getattr__(self, name):  # seekable, fileno, closed, ... of the stream itself
        return getattr(self._stream, name)


def write_bytes(path, data) -> None:
    """Write ``data`` (bytes or a buffer) to ``path`` whole or not at all."""
    with atomic_output(path) as (f, _):
        f.write(data)
