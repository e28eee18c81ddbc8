"""The command line's front door: ``tricount list``, ``--json`` on every subcommand,
``-v``, ``--quiet``, ``--version``, progress only on a terminal, names in every output.

The bowtie on names (two triangles sharing carol), as a CSV file with a header:

    alice     dave
     |  \\   /  |
     |  carol  |
     |  /   \\  |
    bob      erin
"""

from __future__ import annotations

import json

import pytest

import tricount
import tricount._progress
import tricount.gpu
from tricount.cli import main

BOWTIE = ("source,target\nalice,bob\nalice,carol\nbob,carol\ncarol,dave\ncarol,erin\n"
          "dave,erin\n")
TRIANGLES = {("alice", "bob", "carol"), ("carol", "dave", "erin")}


@pytest.fixture(autouse=True)
def no_gpu(monkeypatch):
    monkeypatch.setattr(tricount.gpu, "probe", lambda: (False, "no GPU in this test"))
    monkeypatch.setattr(tricount._progress, "_setting", {"enabled": None})


@pytest.fixture
def bowtie(tmp_path):
    path = tmp_path / "bowtie.csv"
    path.write_text(BOWTIE)
    return path


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


class TestList:
    def test_tsv_to_stdout(self, capsys, bowtie):
        code, out, err = run(capsys, "list", bowtie, "-o", "-")
        assert code == 0
        assert {tuple(line.split("\t")) for line in out.splitlines()} == TRIANGLES
        assert "wrote 2 triangles" in err

    def test_parquet_and_tsv_files(self, capsys, bowtie, tmp_path):
        pq = pytest.importorskip("pyarrow.parquet")
        code, out, _ = run(capsys, "list", bowtie, "-o", tmp_path / "t.parquet", "--json")
        assert code == 0 and json.loads(out)["triangles"] == 2
        table = pq.read_table(tmp_path / "t.parquet")
        assert set(zip(*(table.column(c).to_pylist() for c in "uvw"))) == TRIANGLES
        code, _, _ = run(capsys, "list", bowtie, "-o", tmp_path / "t.tsv", "-q")
        rows = (tmp_path / "t.tsv").read_text().splitlines()
        assert {tuple(r.split("\t")) for r in rows} == TRIANGLES

    def test_integer_ids_and_chunks(self, capsys, tmp_path):
        path = tmp_path / "k5.txt"
        path.write_text("".join(f"{u} {v}\n" for u in range(5) for v in range(u + 1, 5)))
        code, out, _ = run(capsys, "list", path, "-o", "-", "--chunk-size", "3")
        assert code == 0 and len(out.splitlines()) == 10  # C(5, 3)

    def test_refusals_leave_no_file(self, capsys, bowtie, tmp_path):
        code, _, err = run(capsys, "list", bowtie, "-o", bowtie)
        assert code == 2 and bowtie.read_text() == BOWTIE
        code, _, err = run(capsys, "list", bowtie, "-o", "-", "--to", "parquet")
        assert code == 2 and "standard output takes TSV" in err
        code, _, err = run(capsys, "list", bowtie, "-o", tmp_path / "x.tsv", "--backend", "gpu")
        assert code == 3 and not (tmp_path / "x.tsv").exists()


def test_json_on_every_subcommand(capsys, bowtie, tmp_path):
    commands = [["count", bowtie], ["info", bowtie], ["clustering", bowtie],
                ["ktruss", bowtie, "--k", "3"], ["convert", bowtie, tmp_path / "b.txt"],
                ["generate", "complete", "--n", "5", tmp_path / "k5.txt"],
                ["list", bowtie, "-o", tmp_path / "t.tsv"]]
    for argv in commands:
        code, out, _ = run(capsys, *argv, "--json")
        assert code == 0, argv
        assert isinstance(json.loads(out), dict), argv
    assert json.loads(run(capsys, "generate", "complete", "--n", "5", tmp_path / "k.txt",
                          "--json")[1])["edges"] == 10
    # Before the subcommand's name too, and from the bounded R-MAT build.
    assert json.loads(run(capsys, "--json", "count", bowtie)[1])["triangles"] == 2
    report = json.loads(run(capsys, "generate", "rmat", "--scale", "6", "--chunk-edges", "10",
                            tmp_path / "r.tcsr", "--json")[1])
    assert report["format"] == "native" and report["edges"] > 0


def test_two_outputs_naming_one_file_are_refused(capsys, bowtie, tmp_path, monkeypatch):
    # Any spelling of one file: the second table would replace the first.
    monkeypatch.chdir(tmp_path)
    for first, second in (("same.csv", "./same.csv"), ("x.csv", str(tmp_path / "x.csv"))):
        code, _, err = run(capsys, "count", bowtie, "--per-vertex", first, "--per-edge", second)
        assert code == 2 and "named twice as an output" in err
    code, _, err = run(capsys, "count", bowtie, "--per-vertex", "")
    assert code == 2 and "output file name is empty" in err


def test_generate_refuses_what_no_disk_holds_and_text_under_tcsr(capsys, tmp_path):
    for argv in (["--scale", "4", "--ef", "99999999999999999999", tmp_path / "x.tcsr"],
                 ["--scale", "4", "--ef", str(2**63 - 1), tmp_path / "x.txt"]):
        code, _, err = run(capsys, "generate", "rmat", *argv)
        assert code == 2 and "R-MAT draws at most 2**44" in err
    code, _, err = run(capsys, "generate", "rmat", "--scale", "4", "--to", "snap",
                       tmp_path / "x.tcsr")
    assert code == 2 and "name it .txt" in err and not (tmp_path / "x.tcsr").exists()


def test_bench_user_time_checks_its_arguments(capsys, bowtie):
    for argv, message in ((["--trials", "0"], "--trials must be 1"),
                          (["--sides", "bogus"], "unknown bogus"),
                          (["--json"], "--json goes without it")):
        code, _, err = run(capsys, "bench", bowtie, "--user-time", *argv)
        assert code == 2 and message in err, argv
    code, _, err = run(capsys, "bench", "missing.txt", "--user-time")
    assert code == 2 and "no such file" in err


def test_names_in_every_table(capsys, bowtie, tmp_path):
    code, _, _ = run(capsys, "count", bowtie, "--per-vertex", tmp_path / "v.csv", "--per-edge",
                     tmp_path / "e.csv")
    assert code == 0
    assert (tmp_path / "v.csv").read_text().splitlines()[1:] == [
        "alice,1", "bob,1", "carol,2", "dave,1", "erin,1"]
    assert "alice,bob,1" in (tmp_path / "e.csv").read_text()
    code, out, _ = run(capsys, "clustering", bowtie, "--per-vertex", tmp_path / "c.csv")
    assert "carol,4,2,0.3333333333333333" in (tmp_path / "c.csv").read_text()


def test_vertices_range_in_the_cli(capsys, tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("1 2\n2 3\n3 1\n3 4\n")  # id 0 is in no edge
    edges = json.loads(run(capsys, "clustering", path, "--json")[1])
    ranged = json.loads(run(capsys, "clustering", path, "--json", "--vertices", "range")[1])
    assert (edges["vertices"], ranged["vertices"]) == (4, 5)
    assert ranged["average_clustering"] == pytest.approx(edges["average_clustering"] * 4 / 5)


def test_quiet_verbose_version(capsys, bowtie):
    code, out, err = run(capsys, "count", bowtie, "-q")
    assert (code, out, err) == (0, "2\n", "")
    for argv in (["bench", "complete:n=5", "--trials", "1", "-q"],
                 ["-q", "bench", "complete:n=5", "--trials", "1"]):
        code, _, err = run(capsys, *argv)
        assert code == 0 and "cpu/merge" not in err, argv  # no progress lines
    code, out, err = run(capsys, "-v", "count", bowtie)
    # auto's reason, logged: "no usable GPU ..." here; where CuPy is installed, the
    # prediction against the GPU's route
    assert code == 0 and out == "2\n" and "tricount: auto: " in err
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0 and capsys.readouterr().out.strip() == \
        f"tricount {tricount.__version__}"


def test_progress_only_on_a_terminal(capsys, monkeypatch):
    monkeypatch.setattr(tricount._progress, "PROGRESS_DELAY_S", 0.0)
    with tricount._progress.Ticker("counting"):  # stderr is captured: not a terminal
        pass
    assert capsys.readouterr().err == ""
    with tricount._progress.Ticker("counting", True):
        import time

        time.sleep(0.2)
    assert "counting" in capsys.readouterr().err
    tricount._progress.configure(enabled=False)  # --quiet
    assert not tricount._progress.is_enabled(None)


def test_docs_list_every_option_as_the_parser_has_it():
    """Options that existed only in --help (generate's --a/--b/--c, bench's --sides, list's
    --to, ...) and docs naming options that did not: docs/cli.md's reference is the
    parser's own, regenerated by python -m tricount.cli.reference."""
    from pathlib import Path

    from tricount.cli.reference import option_reference

    text = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text()
    block = text.split("<!-- options:begin -->\n", 1)[1].split("<!-- options:end -->", 1)[0]
    assert block == option_reference(), "run: python -m tricount.cli.reference, paste it"
    for flag in ("--count-zeros", "--chunk-edges", "--sides", "--peer-max-edges", "--to"):
        assert f"`{flag}" in block or f", {flag}" in block


@pytest.mark.parametrize("package", ["numba", "scipy"])
def test_a_missing_package_is_named_not_a_traceback(package, bowtie, capsys, monkeypatch):
    """Without Numba (or SciPy, for spgemm) a count printed ModuleNotFoundError's traceback
    (exit 1): it names the package and how to install it (exit 3, like a missing backend)."""
    import tricount.cli.count

    def missing(args):
        raise ModuleNotFoundError(f"No module named '{package}'", name=package)

    monkeypatch.setattr(tricount.cli.count, "run", missing)
    assert main(["count", str(bowtie), "--backend", "cpu"]) == 3
    err = capsys.readouterr().err
    assert f"needs the package '{package}'" in err and f"pip install {package}" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("failure, code, words", [
    (ImportError("libfoo.so: failed to map segment from shared object", name="numba.core"),
     3, "cannot load numba.core: libfoo.so: failed to map segment"),
    (RuntimeError("can't start new thread"), 2, "cannot start a thread"),
])
def test_a_process_out_of_memory_or_threads_is_named_not_a_traceback(failure, code, words,
                                                                      bowtie, capsys,
                                                                      monkeypatch):
    """Under a memory or thread limit (ulimit -v, ulimit -u) a library that could not be
    mapped, or a thread that could not start, printed a traceback (exit 1)."""
    import tricount.cli.count

    def fails(args):
        raise failure

    monkeypatch.setattr(tricount.cli.count, "run", fails)
    assert main(["count", str(bowtie)]) == code
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_no_thread_for_the_signal_watcher_still_runs_the_command(bowtie, capsys,
                                                                  monkeypatch):
    import signal
    import threading

    real_start = threading.Thread.start

    def no_watcher(self):
        if self.name == "tricount-signals":
            raise RuntimeError("can't start new thread")
        return real_start(self)

    before = signal.getsignal(signal.SIGTERM)
    monkeypatch.setattr(threading.Thread, "start", no_watcher)
    assert main(["count", str(bowtie), "--backend", "cpu"]) == 0
    assert capsys.readouterr().out.split()[0] == "2"
    assert signal.getsignal(signal.SIGTERM) is before  # the handlers given back


def test_a_parquet_output_without_pyarrow_is_refused_before_the_work(bowtie, capsys, tmp_path,
                                                                      monkeypatch):
    """Without pyarrow, ktruss wrote its CSV table, then failed on the Parquet one after the
    whole computation (seconds on a large graph)."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "pyarrow" else real(name, *a))
    csv, parquet = tmp_path / "d.csv", tmp_path / "e.parquet"
    assert main(["ktruss", str(bowtie), "--decomposition", str(csv), "--edges",
                 str(parquet)]) == 2
    assert "writing Parquet needs pyarrow" in capsys.readouterr().err
    assert not csv.exists() and not parquet.exists()


@pytest.mark.parametrize("value", ["0", "-1", "abc", "1.5", ""])
def test_numba_threads_below_one_is_named_not_a_traceback(value, bowtie, capsys, monkeypatch):
    """Numba's import raised 'Number of threads specified must be > 0.' (a traceback, exit
    1) on any route that loads it."""
    monkeypatch.setenv("NUMBA_NUM_THREADS", value)
    assert main(["count", str(bowtie), "--method", "bitmap"]) == 2
    assert f"NUMBA_NUM_THREADS='{value}'" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["", "garbage", "tbb,omp"])
def test_an_unknown_threading_layer_is_named_not_a_traceback(value, bowtie, capsys,
                                                             monkeypatch):
    """Numba raised "The threading layer requested '' is unknown to Numba." at the first
    parallel loop (ktruss, bitmap: a traceback, exit 1); small counts passed, hiding it."""
    monkeypatch.setenv("NUMBA_THREADING_LAYER", value)
    assert main(["count", str(bowtie), "--method", "bitmap"]) == 2
    assert f"NUMBA_THREADING_LAYER='{value}'" in capsys.readouterr().err
    monkeypatch.setenv("NUMBA_THREADING_LAYER", "WorkQueue")  # Numba takes any case
    assert main(["count", str(bowtie), "--method", "bitmap"]) == 0


def test_generate_takes_the_common_options_before_its_generator(tmp_path, capsys):
    # "tricount generate -q rmat ..." was "unrecognized arguments: -q" (the docs say every
    # command takes -q); "generate rmat ... -q" worked.
    out = tmp_path / "g.txt"
    assert main(["generate", "-q", "rmat", "--scale", "5", str(out)]) == 0
    assert capsys.readouterr().err == "" and out.exists()
