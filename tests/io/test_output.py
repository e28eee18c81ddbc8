"""Outputs are written whole or not at all, and never over an input (issue 23).

The atomic writer (tricount.io.output) under failures injected at every
write, Ctrl-C and a full disk; every command's outputs refused when they are
the input by any path; a writer killed by a signal at random moments leaves
the target absent or whole; two writers of one path leave one whole file.
"""

from __future__ import annotations

import errno
import os
import random
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import tricount
from tricount.cli import main
from tricount.graph import CSRGraph
from tricount.io import load_graph, output, write_graph
from tricount.io.output import OutputError, atomic_output, check_outputs

sys.path.insert(0, str(Path(__file__).parent))
from io_support import write_text  # noqa: E402

K4_TAIL = "# K4 + tail\n10 11\n10 12\n10 13\n11 12\n11 13\n12 13\n13 14\n"


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def leftovers(folder) -> list:
    return sorted(p.name for p in Path(folder).iterdir() if ".tricount-" in p.name)


@pytest.fixture
def k4(tmp_path):
    return write_text(tmp_path / "k4.txt", K4_TAIL)


class TestAtomicOutput:
    def test_written_whole_with_no_temporary_left(self, tmp_path):
        target = tmp_path / "out.bin"
        with atomic_output(target) as (f, tmp):
            f.write(b"abc")
            assert Path(tmp).parent == tmp_path and not target.exists()
        assert target.read_bytes() == b"abc" and leftovers(tmp_path) == []

    @pytest.mark.parametrize("error", [RuntimeError, KeyboardInterrupt])
    def test_a_failure_keeps_the_old_file(self, tmp_path, error):
        target = tmp_path / "out.bin"
        target.write_bytes(b"old")
        with pytest.raises(error):
            with atomic_output(target) as (f, _):
                f.write(b"new, half")
                raise error()
        assert target.read_bytes() == b"old" and leftovers(tmp_path) == []

    def test_a_symlink_is_written_through(self, tmp_path):
        real = tmp_path / "real.txt"
        real.write_bytes(b"old")
        (tmp_path / "link.txt").symlink_to(real)
        with atomic_output(tmp_path / "link.txt") as (f, _):
            f.write(b"new")
        assert (tmp_path / "link.txt").is_symlink() and real.read_bytes() == b"new"

    @pytest.mark.parametrize("seekable", [False, True])
    def test_a_named_pipe_is_written_in_place(self, tmp_path, seekable):
        # A writer that seeks back (the native format) writes a temporary copied in whole.
        fifo = tmp_path / "pipe"
        os.mkfifo(fifo)
        got = []
        reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
        reader.start()
        with atomic_output(fifo, seekable=seekable) as (f, tmp):
            assert tmp is None
            f.write(b"\0\0c")
            if seekable:
                f.seek(0)
                f.write(b"ab")
        reader.join(timeout=60)
        assert got == [b"abc" if seekable else b"\0\0c"]
        assert stat.S_ISFIFO(os.stat(fifo).st_mode) and leftovers(tmp_path) == []

    @pytest.mark.skipif(not os.path.exists("/dev/null"), reason="no /dev/null")
    def test_a_device_is_written_never_replaced(self, k4, capsys):
        # As root, renaming a temporary over /dev/null would replace the device node.
        code, _, err = run_cli(capsys, "convert", k4, "/dev/null", "--to", "snap")
        assert code == 0, err
        assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
        assert not [p for p in os.listdir("/dev") if ".tricount-" in p]

    @pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
    @pytest.mark.parametrize("argv", [["convert", "{k4}", "/dev/full", "--to", "snap"],
                                      ["list", "{k4}", "-o", "/dev/full", "--backend", "cpu"]])
    def test_a_full_device_is_a_clear_error(self, k4, capsys, argv):
        code, out, err = run_cli(capsys, *[a.format(k4=k4) for a in argv])
        assert code == 2 and "wrote" not in err + out
        assert err.startswith("tricount: error: /dev/full: cannot write: no space left")
        assert stat.S_ISCHR(os.stat("/dev/full").st_mode)

    def test_full_disk_is_a_clear_error(self, tmp_path, monkeypatch):
        def full(fd):
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(output.os, "fsync", full)
        with pytest.raises(OutputError, match="out.bin: cannot write: no space left"):
            with atomic_output(tmp_path / "out.bin") as (f, _):
                f.write(b"x")
        assert not (tmp_path / "out.bin").exists() and leftovers(tmp_path) == []

    @pytest.mark.parametrize("name", ["g.tcsr", "g.txt", "g.txt.gz", "g.txt.zst"])
    def test_failure_injected_at_every_write(self, tmp_path, name, monkeypatch):
        """Whatever write fails, the target keeps its old graph (or stays absent)."""
        if name.endswith(".zst"):
            pytest.importorskip("zstandard")
        rng = np.random.default_rng(5)
        old = CSRGraph.from_edges(*rng.integers(0, 300, (2, 3000)))
        new = CSRGraph.from_edges(*rng.integers(0, 400, (2, 4000)))
        target = tmp_path / name
        write_graph(target, old)
        want = tricount.count_triangles(old, backend="cpu")
        real_fdopen = os.fdopen
        for fail_at in range(1, 40):
            calls = [0]

            def fdopen(fd, mode, *a, fail_at=fail_at, calls=calls):
                f = real_fdopen(fd, mode, *a)
                write = f.write

                def failing(data):
                    calls[0] += 1
                    if calls[0] == fail_at:
                        raise OSError(errno.EIO, "injected")
                    return write(data)

                f.write = failing
                return f

            monkeypatch.setattr(output.os, "fdopen", fdopen)
            try:
                write_graph(target, new)
            except OutputError:
                assert tricount.count_triangles(load_graph(target), backend="cpu") == want
                assert leftovers(tmp_path) == []
                continue
            monkeypatch.undo()
            break  # every write passed: the new graph is whole
        assert tricount.count_triangles(load_graph(target), backend="cpu") == \
            tricount.count_triangles(new, backend="cpu")

    def test_two_writers_last_rename_wins(self, tmp_path):
        target = tmp_path / "g.tcsr"
        graphs = [CSRGraph.from_edges(*np.random.default_rng(s).integers(0, 200, (2, 2000)))
                  for s in (1, 2)]
        counts = {tricount.count_triangles(g, backend="cpu") for g in graphs}

        def writer(g):
            for _ in range(15):
                write_graph(target, g)

        threads = [threading.Thread(target=writer, args=(g,)) for g in graphs]
        for t in threads:
            t.start()
        for _ in range(30):  # a reader meanwhile sees one graph or the other, whole
            if target.exists():
                assert tricount.count_triangles(load_graph(target), backend="cpu") in counts
        for t in threads:
            t.join()
        assert tricount.count_triangles(load_graph(target), backend="cpu") in counts
        assert leftovers(tmp_path) == []


class TestReplacedFile:
    """What a replaced file keeps: its permissions and owner, not set-user-ID; a file the
    user may not write is refused (the rename would succeed where the shell's > says no)."""

    def test_permissions_are_kept_but_not_set_user_id(self, tmp_path):
        target = tmp_path / "t.csv"
        target.write_bytes(b"old")
        for mode, kept in ((0o640, 0o640), (0o4755, 0o755), (0o2750, 0o750)):
            os.chmod(target, mode)
            with atomic_output(target) as (f, _):
                f.write(b"new")
            assert stat.S_IMODE(os.stat(target).st_mode) == kept and target.read_bytes() == b"new"

    def test_a_file_the_user_may_not_write_is_refused(self, tmp_path, k4, capsys, monkeypatch):
        target = tmp_path / "v.csv"
        target.write_bytes(b"theirs")
        os.chmod(target, 0o444)
        real = os.access  # root may write any file: the refusal is taken from os.access
        monkeypatch.setattr(os, "access", lambda p, mode, **kw: False
                            if os.fspath(p) == os.fspath(target) else real(p, mode, **kw))
        with pytest.raises(OutputError, match="permission denied"):
            with atomic_output(target) as (f, _):
                f.write(b"mine")
        code, _out, err = run_cli(capsys, "count", k4, "--per-vertex", target)
        assert code == 2 and "not writable by this user" in err
        assert target.read_bytes() == b"theirs" and leftovers(tmp_path) == []

    @pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")
    def test_root_keeps_the_owner(self, tmp_path):
        target = tmp_path / "t.csv"
        target.write_bytes(b"old")
        os.chown(target, 65534, 65534)  # a user's file, replaced by an admin's job
        with atomic_output(target) as (f, _):
            f.write(b"new")
        info = os.stat(target)
        assert (info.st_uid, info.st_gid) == (65534, 65534)


class TestCommittedTogether:
    """A command of several outputs replaces the old ones together or not at all."""

    @pytest.mark.parametrize("error", [RuntimeError, KeyboardInterrupt])
    def test_a_failure_after_the_first_output_keeps_both_old_files(self, tmp_path, error):
        first, second = tmp_path / "a.csv", tmp_path / "b.csv"
        first.write_bytes(b"old a")
        second.write_bytes(b"old b")
        with pytest.raises(error):
            with output.committed_together():
                with atomic_output(first) as (f, _):
                    f.write(b"new a")
                assert first.read_bytes() == b"old a"  # waits for the others
                with atomic_output(second) as (f, _):
                    f.write(b"new b")
                raise error()
        assert (first.read_bytes(), second.read_bytes()) == (b"old a", b"old b")
        assert leftovers(tmp_path) == [] and not output._LIVE

    def test_success_renames_every_output(self, tmp_path):
        first, second = tmp_path / "a.csv", tmp_path / "b.csv"
        first.write_bytes(b"old a")
        with output.committed_together():
            for target, text in ((first, b"new a"), (second, b"new b")):
                with atomic_output(target) as (f, _):
                    f.write(text)
            with output.committed_together():  # nested: the outer block commits
                with atomic_output(tmp_path / "c.csv") as (f, _):
                    f.write(b"new c")
            assert not (tmp_path / "c.csv").exists()
        assert [p.read_bytes() for p in (first, second, tmp_path / "c.csv")] == [
            b"new a", b"new b", b"new c"]
        assert leftovers(tmp_path) == [] and not output._LIVE

    def test_a_command_failing_on_its_second_output_keeps_its_first(self, tmp_path, k4,
                                                                     capsys, monkeypatch):
        from tricount.io import tables

        per_vertex, per_edge = tmp_path / "v.csv", tmp_path / "e.csv"
        per_vertex.write_text("old\n")
        real = tables.write_table

        def second_fails(path, columns, **kw):
            if os.fspath(path) == os.fspath(per_edge):
                raise OutputError(f"{path}: cannot write: No space left on device")
            return real(path, columns, **kw)

        monkeypatch.setattr(tables, "write_table", second_fails)
        code, _out, err = run_cli(capsys, "count", k4, "--per-vertex", per_vertex,
                                  "--per-edge", per_edge)
        assert code == 2 and "No space left" in err
        assert per_vertex.read_text() == "old\n" and not per_edge.exists()
        assert leftovers(tmp_path) == []
        assert "wrote" not in err  # it said "wrote triangles at 4 vertices to v.csv"

    def test_wrote_is_said_once_the_outputs_are_in_place(self, tmp_path, k4, capsys):
        said = []
        with output.committed_together():
            with atomic_output(tmp_path / "a.csv") as (f, _):
                f.write(b"a")
            output.after_commit(lambda: said.append((tmp_path / "a.csv").read_bytes()))
            assert said == []
        assert said == [b"a"]
        with pytest.raises(RuntimeError), output.committed_together():
            output.after_commit(lambda: said.append("never"))
            raise RuntimeError()
        output.after_commit(lambda: said.append("now"))  # outside a group: at once
        assert said == [b"a", "now"]
        code, _out, err = run_cli(capsys, "count", k4, "--per-vertex", tmp_path / "v.csv",
                                  "--per-edge", tmp_path / "e.csv")
        assert code == 0 and "wrote triangles at 5 vertices" in err

    def test_an_output_in_a_missing_folder_keeps_the_first(self, tmp_path, k4, capsys):
        per_vertex = tmp_path / "v.csv"
        per_vertex.write_text("old\n")
        code, _out, err = run_cli(capsys, "count", k4, "--per-vertex", per_vertex,
                                  "--per-edge", tmp_path / "missing" / "e.csv")
        assert code == 2 and "the folder does not exist" in err
        assert per_vertex.read_text() == "old\n"


class TestNeverOverTheInput:
    """The nine ways of issue 23, refused before any work with exit 2, input untouched."""

    def _paths(self, tmp_path, k4, how):
        out = tmp_path / "out.csv"
        if how == "same":
            return k4, k4
        if how == "symlink to input":
            out.symlink_to(k4)
        elif how == "hard link":
            os.link(k4, out)
        elif how == "input links to output":
            out.write_text(K4_TAIL)
            k4.unlink()
            k4.symlink_to(out)
        return k4, out

    @pytest.mark.parametrize("how", ["same", "symlink to input", "hard link",
                                     "input links to output"])
    @pytest.mark.parametrize("argv", [
        ["count", "{IN}", "--per-vertex", "{OUT}"],
        ["count", "{IN}", "--per-edge", "{OUT}"],
        ["clustering", "{IN}", "--per-vertex", "{OUT}"],
        ["ktruss", "{IN}", "--decomposition", "{OUT}"],
        ["ktruss", "{IN}", "--edges", "{OUT}"],
        ["convert", "{IN}", "{OUT}", "--to", "snap"],
    ])
    def test_refused(self, tmp_path, k4, capsys, how, argv):
        src, out = self._paths(tmp_path, k4, how)
        before = Path(src).read_bytes()
        code, stdout, err = run_cli(capsys, *[a.replace("{IN}", str(src))
                                              .replace("{OUT}", str(out)) for a in argv])
        assert code == 2 and stdout == ""
        assert "the input" in err and "Traceback" not in err
        assert Path(src).read_bytes() == before

    def test_check_outputs_sees_stdin(self, tmp_path, k4, monkeypatch):
        with open(k4, "rb") as f:
            monkeypatch.setattr(sys, "stdin", f)
            with pytest.raises(OutputError, match="the same file as the input <stdin>"):
                check_outputs([k4], ["-"])

    def test_another_spelling_of_the_input_is_the_input(self, k4, monkeypatch):
        monkeypatch.chdir(k4.parent)
        with pytest.raises(OutputError, match="is also the input; write to another file"):
            check_outputs([f"./{k4.name}"], [str(k4)])

    @pytest.mark.parametrize("spelling", ["same", "dot", "absolute"])
    def test_write_triangles_never_over_its_graph_file(self, k4, monkeypatch, spelling):
        monkeypatch.chdir(k4.parent)
        graph = {"same": k4.name, "dot": k4.name, "absolute": str(k4)}[spelling]
        out = {"same": k4.name, "dot": f"./{k4.name}", "absolute": k4.name}[spelling]
        before = k4.read_bytes()
        with pytest.raises(OutputError, match="is also the input"):
            tricount.write_triangles(graph, out, backend="cpu")
        assert k4.read_bytes() == before

    @pytest.mark.parametrize("argv", [["list", "{IN}", "-o", "-"],
                                      ["convert", "{IN}", "-", "--to", "snap"]])
    def test_stdout_redirected_into_the_input(self, k4, capsys, monkeypatch, argv):
        before = k4.read_bytes()
        with open(k4, "a") as appended:  # tricount list g.txt -o - >> g.txt
            monkeypatch.setattr(sys, "stdout", appended)
            code = main([a.replace("{IN}", str(k4)) for a in argv])
        assert code == 2 and k4.read_bytes() == before
        assert "<stdout>: is redirected into the input" in capsys.readouterr().err

    def test_convert_to_stdout(self, tmp_path, k4, capfdbinary):
        assert main(["convert", str(k4), "-", "--to", "snap"]) == 0
        out = capfdbinary.readouterr().out.decode()
        assert not (Path.cwd() / "-").exists()
        assert sorted(line for line in out.splitlines() if not line.startswith("#")) == \
            sorted(line.replace(" ", "\t") for line in K4_TAIL.splitlines()[1:])

    def test_native_into_a_pipe_is_whole(self, tmp_path, k4):
        # The native writer writes its header last (a seek back): into a pipe it writes an
        # unnamed temporary, copied once whole (it once sent a zeroed header, then failed).
        proc = _cli("convert", k4, "-", "--to", "native")
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        piped = tmp_path / "piped.tcsr"
        piped.write_bytes(out)
        direct = tmp_path / "direct.tcsr"
        write_graph(direct, load_graph(k4))
        assert piped.read_bytes() == direct.read_bytes()

    def test_bench_out_onto_a_folder_is_refused_before_the_run(self, tmp_path, capsys,
                                                               monkeypatch):
        from tricount.bench import runner

        monkeypatch.setattr(runner, "run_bench", lambda *a, **k: pytest.fail("ran"))
        code, _, err = run_cli(capsys, "bench", "complete:n=5", "--out", tmp_path)
        assert code == 2 and "is an existing folder" in err

    def test_user_time_out_is_checked_before_the_run(self, tmp_path, capsys, monkeypatch):
        # The user-time table is minutes of fresh processes: a prefix it cannot use (an
        # existing folder, a folder path through a file) is refused before anything runs.
        from tricount.bench import usertime

        monkeypatch.setattr(usertime, "user_time", lambda *a, **k: pytest.fail("ran"))
        graph = write_text(tmp_path / "k4.txt", "0 1\n0 2\n0 3\n1 2\n1 3\n2 3\n")
        code, _, err = run_cli(capsys, "bench", "--user-time", graph, "--out", tmp_path)
        assert code == 2 and "is an existing folder" in err
        code, _, err = run_cli(capsys, "bench", "--user-time", graph, "--out",
                               tmp_path / "k4.txt" / "run")
        assert code == 2 and "cannot create its folder" in err

    def test_user_time_writes_its_table_into_a_new_folder(self, tmp_path, capsys, monkeypatch):
        from tricount.bench import usertime

        floor = usertime._Cell([{"wall_s": 0.2, "cpu_s": 0.2, "stdout": "", "ok": True}])
        monkeypatch.setattr(usertime, "user_time",
                            lambda *a, **k: {"import": floor, "rows": []})
        graph = write_text(tmp_path / "k4.txt", "0 1\n0 2\n0 3\n1 2\n1 3\n2 3\n")
        prefix = tmp_path / "new" / "deeper" / "user"
        code, out, _ = run_cli(capsys, "bench", "--user-time", graph, "--sides", "auto",
                               "--out", prefix)
        assert code == 0
        assert (prefix.parent / "user.md").read_text().strip() == out.strip()
        assert (prefix.parent / "user.json").read_text() == "[]\n"


def _cli(*argv, stdout=subprocess.PIPE):
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2] / "src"))
    return subprocess.Popen([sys.executable, "-m", "tricount", *map(str, argv)], env=env,
                            stdout=stdout, stderr=subprocess.PIPE)


class _Stdout:
    """A standard output whose writes fail with ``error`` (a closed pipe, a full disk)."""

    def __init__(self, error):
        self.error = error
        self.buffer = self

    def write(self, data):
        raise self.error

    def flush(self):
        pass


def test_a_full_temporary_folder_is_not_called_a_full_stdout(k4, capsys, monkeypatch):
    # A .tcsr to a pipe is held in a temporary file first (its header is written last);
    # that file's failure read "<stdout>: cannot write: no space left", the pipe fine.
    import io

    class Pipe(io.RawIOBase):
        def writable(self):
            return True

        def seekable(self):
            return False

        def write(self, data):
            return len(data)

    stdout = type("Stdout", (), {"buffer": Pipe(), "flush": lambda self: None})()
    monkeypatch.setattr(sys, "stdout", stdout)

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(output.tempfile, "TemporaryFile", full)
    assert main(["convert", str(k4), "-", "--to", "native"]) == 2
    err = capsys.readouterr().err
    assert "cannot hold the output in a temporary file in" in err and "TMPDIR" in err


def test_closed_stdout_exits_quietly(k4, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdout", _Stdout(BrokenPipeError(errno.EPIPE, "Broken pipe")))
    assert main(["count", str(k4), "--backend", "cpu"]) == 141
    assert capsys.readouterr().err == ""


def test_full_disk_on_stdout_is_a_clear_error(k4, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdout", _Stdout(OSError(errno.ENOSPC, "No space left on device")))
    assert main(["convert", str(k4), "-", "--to", "snap"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tricount: error: <stdout>: cannot write: no space left")
    assert "Traceback" not in err


@pytest.mark.slow
def test_writer_killed_at_random_moments(tmp_path):
    """SIGINT, SIGTERM, SIGHUP or SIGKILL at a seeded random moment of `tricount convert`:
    the target is absent or whole; after SIGINT/SIGTERM/SIGHUP no temporary is left and
    the exit is 130/143/129 with one line."""
    src = tmp_path / "g.txt"
    rng = np.random.default_rng(11)
    edges = rng.integers(0, 20_000, (200_000, 2))
    src.write_text("".join(f"{u} {v}\n" for u, v in edges.tolist()))
    want = tricount.count_triangles(load_graph(src), backend="cpu")
    pick = random.Random(23)
    for k, sig in enumerate([signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGKILL]):
        target = tmp_path / f"out{k}.tcsr"
        proc = _cli("convert", src, target)
        time.sleep(pick.uniform(0.8, 2.5))
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
        if target.exists():
            assert tricount.count_triangles(load_graph(target), backend="cpu") == want
        if sig != signal.SIGKILL:
            assert leftovers(tmp_path) == [], sig
            code = {signal.SIGINT: 130, signal.SIGTERM: 143, signal.SIGHUP: 129}[sig]
            # 0: the signal came after the end; -sig: before the command started (importing)
            assert proc.returncode in (0, code, -sig), (proc.returncode, err)
            if proc.returncode == code:
                assert len(err.splitlines()) == 1, err


@pytest.mark.slow
def test_closed_stdout_and_full_disk_in_a_process(tmp_path, k4):
    proc = _cli("count", k4, "--backend", "cpu")
    proc.stdout.close()  # | head -n 0
    assert proc.wait(timeout=120) == 141
    assert b"Traceback" not in proc.stderr.read()
    with open("/dev/full", "wb") as full:
        proc = _cli("convert", k4, "-", "--to", "snap", stdout=full)
        _, err = proc.communicate(timeout=120)
    assert proc.returncode == 2 and b"no space left" in err and b"Traceback" not in err


def test_sighup_ends_the_command_unless_ignored():
    """SIGHUP (the terminal closed) goes to the watcher as SIGTERM does; under nohup
    (SIGHUP ignored when the command starts) it stays ignored."""
    from tricount.cli.options import SIGNAL_EXITS, signals_end_the_process

    assert SIGNAL_EXITS[signal.SIGHUP][0] == 129
    before = signal.getsignal(signal.SIGHUP)
    try:
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
        with signals_end_the_process():
            assert signal.getsignal(signal.SIGHUP) not in (signal.SIG_DFL, signal.SIG_IGN)
        assert signal.getsignal(signal.SIGHUP) == signal.SIG_DFL
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        with signals_end_the_process():
            assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
        assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, before)


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="needs /dev/null")
@pytest.mark.parametrize("argv", [
    ["count", "{g}", "--per-vertex", "/dev/null"],
    ["count", "{g}", "--per-edge", "/dev/null"],
    ["clustering", "{g}", "--per-vertex", "/dev/null"],
    ["convert", "{g}", "/dev/null"],
    ["list", "{g}", "-o", "/dev/null"],
])
def test_a_target_that_is_not_a_regular_file_is_a_stream(argv, k4, capsys):
    """docs/io.md: /dev/null, a pipe or >(...) is written in place, like -. A table there
    was refused ('cannot tell the table format from no extension'), and so was convert."""
    assert main([a.format(g=k4) for a in argv]) == 0
    assert "Traceback" not in capsys.readouterr().err


class _Stingy:
    """A raw stream that takes at most 7 bytes a call, and every third call nothing (None,
    as a raw stream on a full non-blocking pipe says)."""

    def __init__(self, fd):
        self.fd, self.calls, self.data = fd, 0, bytearray()

    def write(self, b):
        self.calls += 1
        if self.calls % 3 == 0:
            return None
        b = bytes(b[:7])
        self.data += b
        return len(b)

    def fileno(self):
        return self.fd

    def flush(self):
        pass


def test_a_stream_that_takes_part_of_a_write_gets_every_byte():
    r, w = os.pipe()  # select() on an empty pipe's write end returns at once
    try:
        raw = _Stingy(w)
        out = output._WholeWrites(raw)
        payload = bytes(range(256)) * 5
        assert out.write(payload) == len(payload) and out.write(memoryview(b"xy")) == 2
        assert bytes(raw.data) == payload + b"xy"
    finally:
        os.close(r)
        os.close(w)


@pytest.mark.parametrize("unbuffered", [True, False])
def test_every_byte_reaches_a_non_blocking_pipe(unbuffered, tmp_path):
    """Under PYTHONUNBUFFERED standard output is a raw stream: 64 KiB of a 1 MB .tcsr reached
    a pipe and the command said it wrote the whole (exit 0)."""
    import fcntl

    expected = tmp_path / "g.tcsr"
    assert main(["generate", "rmat", "--scale", "13", str(expected)]) == 0
    r, w = os.pipe()
    fcntl.fcntl(w, fcntl.F_SETFL, fcntl.fcntl(w, fcntl.F_GETFL) | os.O_NONBLOCK)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    proc = subprocess.Popen([sys.executable, "-m", "tricount", "generate", "rmat", "--scale",
                             "13", "--to", "native", "-"], stdout=w, stderr=subprocess.PIPE,
                            env=env)
    os.close(w)
    got = bytearray()
    with os.fdopen(r, "rb", buffering=0) as reader:
        while chunk := reader.read(1 << 12):  # a slow reader keeps the pipe full
            got += chunk
            time.sleep(0.0005)
    assert proc.wait(timeout=120) == 0, proc.stderr.read()
    proc.stderr.close()
    assert bytes(got) == expected.read_bytes()


@pytest.mark.parametrize("command, code, stdout", [
    # The context line went into standard output, after the table written there.
    ("count {k4} --per-vertex - 2>&-", 0, "vertex,triangles\n10,3\n11,3\n12,3\n13,3\n14,0\n"),
    # The error went into standard output.
    ("count {missing} 2>&-", 2, ""),
    ("count {k4} 2>&-", 0, "4\n"),
])
def test_a_closed_standard_error_sends_nothing_to_standard_output(k4, tmp_path, command, code,
                                                                   stdout):
    # Python leaves sys.stderr None when descriptor 2 is closed at start, and print(...,
    # file=None) prints to standard output.
    line = command.format(k4=k4, missing=tmp_path / "missing.txt")
    proc = subprocess.run(f"{sys.executable} -m tricount {line}", shell=True,
                          capture_output=True, text=True, timeout=120)
    assert (proc.returncode, proc.stdout) == (code, stdout)


@pytest.mark.parametrize("options", [[], ["--per-vertex", "{v}"]])
def test_an_answer_for_a_closed_standard_output_is_a_clear_error(k4, tmp_path, options):
    # It was lost with exit 0 (Python prints nothing to a None sys.stdout), as any answer
    # printed there; coreutils say "write error: Bad file descriptor" and exit 1.
    line = " ".join(["count", str(k4), *[o.format(v=tmp_path / "v.csv") for o in options]])
    proc = subprocess.run(f"{sys.executable} -m tricount {line} >&-", shell=True,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "standard output is closed" in proc.stderr
    assert "Traceback" not in proc.stderr and "wrote" not in proc.stderr
    assert not (tmp_path / "v.csv").exists()  # the command failed: no output of it stays
    proc = subprocess.run(f"{sys.executable} -m tricount convert {k4} {tmp_path / 'k.tcsr'} "
                          ">&-", shell=True, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and (tmp_path / "k.tcsr").exists()  # nothing to print there


def test_a_closed_standard_output_is_a_clear_error(tmp_path):
    proc = subprocess.run(f"{sys.executable} -m tricount generate rmat --scale 6 - >&-",
                          shell=True, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "standard output is closed" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("source", ["/dev/stdin", "-"])
def test_a_closed_standard_input_is_a_clear_error(source, tmp_path):
    """With fd 0 closed, tricount's own signal pipe took it: reading /dev/stdin read that
    pipe (a hang SIGTERM could not end); reading - was an AttributeError."""
    proc = subprocess.run(f"{sys.executable} -m tricount count {source} <&-", shell=True,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "standard input is closed" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_an_output_name_of_255_bytes_is_written(tmp_path, k4):
    """The temporary '.NAME.tricount-XXXXXXXX.tcsr' of a name past 236 bytes was too long."""
    target = tmp_path / ("b" * 250 + ".tcsr")
    assert main(["convert", str(k4), str(target)]) == 0
    assert load_graph(target).n_edges == 7  # K4 and its tail
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([target.name, "k4.txt"])


def test_writers_take_a_bytes_path_as_load_graph_does(tmp_path, k4):
    g = load_graph(os.fsencode(k4))
    write_graph(os.fsencode(tmp_path / "w.tcsr"), g)
    assert load_graph(tmp_path / "w.tcsr").n_edges == g.n_edges
    assert tricount.write_triangles(g, os.fsencode(tmp_path / "t.tsv"), backend="cpu") == 4


def test_a_removed_current_folder_is_named(tmp_path):
    # "tricount: error: No such file or directory": no path, no cause.
    gone = tmp_path / "gone"
    gone.mkdir()
    proc = subprocess.run(f"cd {gone} && rmdir {gone} && {sys.executable} -m tricount count "
                          "k4.txt --per-vertex v.csv", shell=True, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2 and "the current folder no longer exists" in proc.stderr
