"""``tricount bench`` end to end on tiny graphs: records, files, verification, peers, exits.

Nothing here is timed: tests read counts, flags and fields, never durations.
"""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import pytest

import tricount.gpu
from tricount.bench import BenchConfig, run_bench
from tricount.bench.report import markdown, read_jsonl, summarize
from tricount.cli import main
from tricount.cpu import CPU_METHODS

HAVE_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None
PHASES = {"load_s", "build_s", "h2d_s", "orient_s", "preprocess_s", "count_s", "kernel_s",
          "engine_s", "from_edges_s", "total_s"}


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def json_lines(out: str) -> list:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


@pytest.fixture
def k4_file(tmp_path):
    #   0 - 1
    #   | X |      K4 written with a self-loop and a repeat: 4 triangles
    #   3 - 2
    path = tmp_path / "k4.txt"
    path.write_text("# K4\n0 1\n0 2\n0 3\n1 2\n1 3\n2 3\n3 3\n1 0\n")
    return path


@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.setattr(tricount.gpu, "probe", lambda: (False, "no GPU in this test"))


class TestEndToEnd:
    def test_writes_jsonl_and_markdown_with_verified_counts(self, capsys, tmp_path, k4_file):
        prefix = tmp_path / "out" / "run"
        code, out, err = run_cli(capsys, "bench", "complete:n=12", "star:n=20", str(k4_file),
                                 "grid:rows=4,cols=5", "--backend", "cpu", "--trials", "2",
                                 "--out", str(prefix), "--json", "--no-plot")
        assert code == 0, err
        records = json_lines(out)
        assert len(records) == 4 * len(CPU_METHODS) * 2  # graphs x methods x trials
        expected = {"complete-n12": math.comb(12, 3), "star-n20": 0, "k4": 4, "grid-4x5": 0}
        for r in records:
            assert r["triangles"] == expected[r["graph"]] and r["verified"] is True
            assert r["verified_by"] == "reference oracle"
            assert r["side"] == "tricount" and r["backend"] == "cpu"
            assert PHASES <= set(r["timings"])
            assert r["edges_per_second"] == pytest.approx(r["edges"] / r["timings"]["count_s"])
            assert r["nnz"] == 2 * r["edges"]
            for key in ("machine", "device", "versions", "date", "command", "schema"):
                assert r[key], key
            assert r["versions"]["numpy"] and r["device"]["kind"] == "cpu"
        k4 = next(r for r in records if r["graph"] == "k4")
        assert (k4["vertices"], k4["edges"], k4["edge_lines"]) == (4, 6, 8)
        assert (k4["self_loops_dropped"], k4["max_degree"], k4["n_wedges"]) == (1, 3, 12)
        assert {r["trial"] for r in records} == {0, 1}
        # files: the JSON lines are the printed ones; the report exists (the plot is
        # test_the_cli_writes_the_plot's: matplotlib costs seconds)
        assert read_jsonl(prefix.with_suffix(".jsonl")) == records
        md = prefix.with_suffix(".md").read_text()
        assert md.startswith("# tricount bench") and "## tricount" in md
        assert not prefix.with_suffix(".png").exists()
        assert "verification: PASS" in err

    @pytest.mark.slow  # matplotlib's import and one rendering: .ci/run runs it after the suite
    def test_the_cli_writes_the_plot(self, capsys, tmp_path):
        # One rendering (a second or two of matplotlib): the CLI's PNG. Re-plotting
        # saved runs (python -m tricount.bench.plot) calls the same plot function.
        from tricount.bench.plot import main as plot_main

        prefix = tmp_path / "run"
        code, _, err = run_cli(capsys, "bench", "complete:n=6", "star:n=9", "--methods", "merge",
                               "--peers", "scipy", "--trials", "1", "--out", str(prefix))
        assert code == 0, err
        if HAVE_MATPLOTLIB:
            assert prefix.with_suffix(".png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        else:
            assert "plot not written: matplotlib is not installed" in err
        assert plot_main([str(prefix.with_suffix(".jsonl"))]) == 2  # no output name

    def test_markdown_on_stdout_without_json(self, capsys):
        code, out, _ = run_cli(capsys, "bench", "complete:n=5", "--methods", "merge",
                               "--trials", "1", "--quiet")
        assert code == 0 and out.startswith("# tricount bench") and "complete-n5" in out

    def test_summary_has_median_min_max_per_phase(self):
        result = run_bench(BenchConfig(["complete:n=7"], methods=("merge", "bitmap"), trials=3))
        rows = summarize(result.records)
        assert [r["label"] for r in rows] == ["cpu/merge", "cpu/bitmap"]
        for row in rows:
            assert row["trials"] == 3 and row["verified"] and row["triangles"] == 35
            for phase in ("load_s", "preprocess_s", "count_s", "kernel_s", "total_s"):
                s = row["phases"][phase]
                assert s["min"] <= s["median"] <= s["max"]

    def test_auto_method_records_what_ran(self):
        result = run_bench(BenchConfig(["complete:n=6"], methods=("auto",), trials=1))
        (record,) = result.records
        assert record["method"] == "auto" and record["method_run"] in CPU_METHODS

    def test_auto_backend_is_the_public_count_graph_by_graph(self, no_gpu):
        # "auto" as a backend is tricount.count's own pick for each graph, timed after the
        # other sides, and the report sets it against the fastest of them.
        config = BenchConfig(["complete:n=6", "star:n=9"], backends=("auto", "cpu"),
                             methods=("merge", "bitmap"), trials=2)
        result = run_bench(config)
        autos = [r for r in result.records if r["backend"] == "auto"]
        assert len(autos) == 4 and all(r["verified"] for r in autos)
        assert {r["method_run"].split("/")[0] for r in autos} == {"cpu"}
        assert [r["backend"] for r in result.records[:5]] == ["cpu"] * 4 + ["auto"]
        text = markdown(result.records)
        table = text.split("## auto against the best side")[1].split("\n## ")[0]
        rows = [line for line in table.splitlines() if line.startswith("| ")][1:]
        assert [row.split(" | ")[0] for row in rows] == ["| complete-n6", "| star-n9"]

    def test_auto_against_the_best_judges_the_total(self):
        from tricount.bench.report import AUTO_TOLERANCE, _auto_against_best

        def row(backend, total, unread, method_run=None):
            phases = {"total_s": {"median": total}, "from_edges_s": {"median": unread}}
            label = f"auto ({method_run})" if backend == "auto" else f"{backend}/x"
            return {"graph": "g", "side": "tricount", "backend": backend, "label": label,
                    "phases": phases}

        fast, slow = 1.0, 1.0 * AUTO_TOLERANCE + 0.05
        best = row("cpu", fast, 0.1)
        (ok,) = _auto_against_best([best, row("auto", 1.05, 0.15, "cpu/x")], ["g"])[-1:]
        assert ok.endswith("| 1.05x | 1.50x | yes |")
        (bad,) = _auto_against_best([best, row("auto", slow, 0.2, "gpu/auto")], ["g"])[-1:]
        assert "| cpu/x | 1 |" in bad and bad.endswith("| **no** |")
        assert _auto_against_best([best], ["g"]) == []  # no auto side, no table

    def test_report_rerenders_from_the_jsonl(self, tmp_path, capsys):
        from tricount.bench.report import main as report_main
        from tricount.bench.report import write_jsonl

        result = run_bench(BenchConfig(["complete:n=6"], methods=("merge",), trials=2))
        path = tmp_path / "r.jsonl"
        write_jsonl(result.records, path)
        assert report_main([str(path)]) == 0
        assert capsys.readouterr().out == markdown(result.records)


class TestVerification:
    def test_wrong_count_fails_with_exit_4(self, capsys, tmp_path, monkeypatch):
        from tricount.cpu import engine

        real = engine.count

        def off_by_one(graph, *, method="auto"):
            out = real(graph, method=method)
            if method == "bitmap":
                out.n_triangles += 1
            return out

        monkeypatch.setattr(engine, "count", off_by_one)
        prefix = tmp_path / "bad"
        code, out, err = run_cli(capsys, "bench", "complete:n=6", "--trials", "2", "--json",
                                 "--out", str(prefix), "--no-plot")
        assert code == 4
        records = json_lines(out)
        bad = [r for r in records if not r["verified"]]
        assert {r["method"] for r in bad} == {"bitmap"} and len(bad) == 2
        assert all(r["triangles"] == 21 and r["expected_triangles"] == 20 for r in bad)
        assert "verification FAILED" in err and "cpu/bitmap" in err
        # the outputs are still written, and say so
        assert "**FAILED**" in prefix.with_suffix(".md").read_text()
        assert not prefix.with_suffix(".png").exists()

    def test_above_the_oracle_limit_two_cpu_methods_must_agree(self, capsys):
        code, out, _ = run_cli(capsys, "bench", "complete:n=9", "--methods", "spgemm",
                               "--trials", "1", "--reference-max-edges", "10", "--json")
        assert code == 0
        (record,) = json_lines(out)
        assert record["verified_by"] == "agreement of cpu/merge and cpu/bitmap"
        assert record["verified"] and record["triangles"] == 84

    def test_disagreeing_cpu_methods_fail_verification(self, capsys, monkeypatch):
        from tricount.cpu import engine

        real = engine.count

        def bad_merge(graph, *, method="auto"):
            out = real(graph, method=method)
            if method == "merge":
                out.n_triangles = 0
            return out

        monkeypatch.setattr(engine, "count", bad_merge)
        code, out, err = run_cli(capsys, "bench", "complete:n=9", "--methods", "spgemm",
                                 "--trials", "1", "--reference-max-edges", "10", "--json")
        assert code == 4 and "DISAGREE" in err
        assert json_lines(out)[0]["verified"] is False


class TestPeers:
    def test_peer_runs_on_the_same_edges_and_is_verified(self, capsys, k4_file):
        code, out, err = run_cli(capsys, "bench", str(k4_file), "rmat:scale=6,ef=4",
                                 "--methods", "merge", "--peers", "scipy,networkx",
                                 "--trials", "2", "--json")
        assert code == 0, err
        records = json_lines(out)
        peers = [r for r in records if r["side"] == "peer"]
        assert {r["peer"] for r in peers} == {"scipy", "networkx"} and len(peers) == 8
        for graph in ("k4", "rmat-s6-ef4-seed1"):
            counts = {r["triangles"] for r in records if r["graph"] == graph}
            assert len(counts) == 1  # every side agrees
        assert all(r["verified"] and r["timings"]["from_edges_s"] > 0 for r in peers)
        assert all(r["versions"].get("scipy") for r in peers)

    def test_peer_table_in_markdown(self, capsys):
        code, out, _ = run_cli(capsys, "bench", "complete:n=8", "--methods", "merge",
                               "--peers", "scipy", "--trials", "1", "--quiet")
        assert code == 0 and "## Edges to count, construction included" in out

    def test_missing_peer_is_reported_not_fatal(self, capsys, monkeypatch):
        from tricount.bench import peers

        ghost = peers.Peer("igraph", "tricount_no_such_module", "igraph", "absent", None)
        monkeypatch.setitem(peers.PEERS, "igraph", ghost)
        code, out, err = run_cli(capsys, "bench", "complete:n=5", "--methods", "merge",
                                 "--peers", "igraph", "--trials", "1", "--json")
        assert code == 0
        assert "peer igraph not measured: igraph is not installed (pip install igraph)" in err
        assert all(r["side"] == "tricount" for r in json_lines(out))

    def test_peer_size_limit_skips_and_says_so(self, capsys):
        code, out, err = run_cli(capsys, "bench", "complete:n=8", "--methods", "merge",
                                 "--peers", "networkx", "--peer-max-edges", "5",
                                 "--trials", "1", "--json")
        assert code == 0 and "networkx on complete-n8: skipped" in err
        assert all(r["side"] == "tricount" for r in json_lines(out))

    def test_unknown_peer_exits_2(self, capsys):
        code, _, err = run_cli(capsys, "bench", "complete:n=5", "--peers", "snap")
        assert code == 2 and "unknown peer 'snap'" in err


class TestBadInput:
    def test_gpu_without_device_exits_3(self, capsys, no_gpu):
        code, out, err = run_cli(capsys, "bench", "complete:n=5", "--backend", "gpu")
        assert code == 3 and out == "" and "no GPU in this test" in err

    def test_unknown_method_exits_2(self, capsys):
        code, _, err = run_cli(capsys, "bench", "complete:n=5", "--methods", "hashing")
        assert code == 2 and "'hashing'" in err

    def test_gpu_only_method_on_cpu_exits_2(self, capsys):
        code, _, err = run_cli(capsys, "bench", "complete:n=5", "--methods", "radix")
        assert code == 2 and "'radix'" in err

    @pytest.mark.parametrize("graph,message", [
        ("nowhere.txt", "no such file, and not a generator spec"),
        ("rmat:ef=4", "lacks scale"),
    ])
    def test_bad_graph_exits_2(self, capsys, graph, message):
        code, _, err = run_cli(capsys, "bench", graph)
        assert code == 2 and message in err

    def test_zero_trials_exits_2(self, capsys):
        code, _, err = run_cli(capsys, "bench", "complete:n=5", "--trials", "0")
        assert code == 2 and "--trials" in err


class TestProgressAndPlot:
    def test_plain_lines_off_a_terminal(self, capsys):
        code, _, err = run_cli(capsys, "bench", "complete:n=5", "--methods", "merge",
                               "--trials", "1")
        assert code == 0 and "complete-n5 cpu/merge: count median" in err

    def test_bar_on_a_terminal(self):
        import io

        pytest.importorskip("tqdm")
        from tricount.bench.progress import BarProgress, make_progress

        class Tty(io.StringIO):
            def isatty(self):
                return True

        stream = Tty()
        progress = make_progress(stream=stream)
        assert isinstance(progress, BarProgress)
        progress.start(3)
        progress.advance(1, "k4 cpu/merge")
        progress.note("a note")
        progress.close()
        assert "a note" in stream.getvalue()

    def test_no_matplotlib_means_no_plot_but_a_note(self, capsys, tmp_path, monkeypatch):
        from tricount.bench import plot

        monkeypatch.setattr(plot, "matplotlib_available", lambda: (False, "matplotlib is absent"))
        prefix = tmp_path / "p"
        code, _, err = run_cli(capsys, "bench", "complete:n=5", "--methods", "merge",
                               "--trials", "1", "--out", str(prefix))
        assert code == 0 and "plot not written: matplotlib is absent" in err
        assert prefix.with_suffix(".jsonl").exists() and not prefix.with_suffix(".png").exists()


class TestMethodSelection:
    def test_qualified_methods_apply_to_one_backend(self):
        from tricount.bench.runner import _methods_for

        assert _methods_for("cpu", ["gpu/all", "cpu/bitmap"]) == ["bitmap"]
        assert _methods_for("cpu", ["all"]) == list(CPU_METHODS)
        assert _methods_for("cpu", ["merge", "radix", "auto"]) == ["merge", "auto"]
        assert _methods_for("reference", ["cpu/merge", "reference/all"]) == ["sets"]

    def test_qualified_unknown_method_exits_2(self, capsys):
        code, _, err = run_cli(capsys, "bench", "complete:n=5", "--methods", "cpu/radix")
        assert code == 2 and "backend 'cpu' has no method 'radix'" in err

    def test_qualified_method_for_an_unselected_backend_exits_2(self, capsys):
        code, _, err = run_cli(capsys, "bench", "complete:n=5", "--methods", "gpu/merge")
        assert code == 2 and "not among the chosen backends" in err

    def test_two_backends_cpu_and_reference(self, capsys):
        code, out, _ = run_cli(capsys, "bench", "complete:n=6", "--backend", "cpu,reference",
                               "--methods", "cpu/merge,reference/all", "--trials", "1", "--json")
        assert code == 0
        records = json_lines(out)
        assert [(r["backend"], r["method"]) for r in records] == [("cpu", "merge"),
                                                                  ("reference", "sets")]
        assert all(r["verified"] and r["triangles"] == 20 for r in records)



class TestUserTime:
    @pytest.mark.slow  # fresh processes, each starting Python, NumPy and Numba: 9 s on two cores
    def test_user_time_counts_in_fresh_processes_and_writes_the_table(self, capsys, tmp_path,
                                                                       k4_file):
        prefix = tmp_path / "user"
        code, out, _ = run_cli(capsys, "bench", "--user-time", str(k4_file), "--sides",
                               "auto,cpu/bitmap", "--trials", "1", "--out", str(prefix))
        assert code == 0
        assert "cpu/bitmap" in out and "k4.txt" in out
        records = json.loads((tmp_path / "user.json").read_text())
        # Every side's process printed the count: K4 has 4 triangles, loop and repeat dropped.
        assert [{side: a["triangles"] for side, a in r["answers"].items()} for r in records] \
            == [{"auto": 4, "cpu/bitmap": 4}]
        assert (tmp_path / "user.md").read_text().startswith(out.strip()[:20])

    def test_a_peer_that_cannot_run_is_named_not_dropped(self, capsys, monkeypatch, k4_file):
        # Without python-igraph the igraph column went missing without a word.
        from tricount.bench import usertime

        real = importlib.util.find_spec
        monkeypatch.setattr(importlib.util, "find_spec",
                            lambda name, *a: None if name == "igraph" else real(name, *a))
        floor = usertime._Cell([{"wall_s": 0.2, "cpu_s": 0.2, "stdout": "", "ok": True}])
        seen = {}

        def fake(paths, sides, **kwargs):
            seen["sides"] = [s.label for s in sides]
            return {"import": floor, "rows": []}

        monkeypatch.setattr(usertime, "user_time", fake)
        code, out, err = run_cli(capsys, "bench", "--user-time", str(k4_file))
        assert code == 0 and "igraph" not in seen["sides"]
        assert "not timed: igraph (igraph not installed" in out
        assert "note: igraph (igraph not installed" in err

    def test_the_table_says_whether_tricounts_bytecode_is_cached(self, monkeypatch, tmp_path):
        import tricount
        from tricount.bench import usertime

        # A package of one module, its .pyc present, then gone with writing switched off.
        package = tmp_path / "pkg"
        package.mkdir()
        (package / "__init__.py").write_text("")
        monkeypatch.setattr(tricount, "__file__", str(package / "__init__.py"))
        pyc = Path(importlib.util.cache_from_source(str(package / "__init__.py")))
        pyc.parent.mkdir()
        pyc.write_bytes(b"")
        assert usertime.bytecode_state({}).startswith("cached")
        pyc.unlink()
        assert usertime.bytecode_state({"PYTHONDONTWRITEBYTECODE": "1"}).startswith(
            "compiled in every process (1 of 1")
        assert usertime.bytecode_state({}).startswith("written by the first run")


def test_a_report_of_failed_runs_says_so():
    # "FAILED, 0 of 0 counts wrong or unverified" when every run had failed.
    text = markdown([], errors=["karate cpu/merge: FileNotFoundError"])
    assert "**FAILED**, 0 of 0 counts wrong or unverified; 1 run failed (notes)" in text


@pytest.mark.parametrize("argv, message", [
    (["--trials", "99999999999"], "--trials must be 1 .. 10000"),
    (["--trials", "0"], "--trials must be 1 .. 10000"),
    (["--peer-max-edges", "-1"], "--peer-max-edges must be at least 0"),
    (["--reference-max-edges", "-5"], "--reference-max-edges must be at least 0"),
    (["--cold"], "--cold and --sides go with --user-time"),
])
def test_bad_values_are_refused_before_any_work(capsys, argv, message):
    assert main(["bench", "complete:n=4", "--no-plot", *argv]) == 2
    assert message in capsys.readouterr().err


def test_a_file_of_vertex_names_is_benchmarked(capsys, tmp_path):
    """count, clustering, ktruss and list took a CSV of names; bench refused it ('src holds
    values that are not vertex ids')."""
    path = tmp_path / "names.csv"
    path.write_text("source,target\nalice,bob\nbob,carol\ncarol,alice\ncarol,dave\n")
    assert main(["bench", str(path), "--trials", "1", "--methods", "bitmap", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()
            if line.startswith("{")]
    assert rows and all(r["triangles"] == 1 and r["verified"] for r in rows)


def test_the_report_reaches_an_ascii_terminal(tmp_path):
    """Under LC_ALL=C without UTF-8 mode the Markdown's dashes raised UnicodeEncodeError (exit
    1, no --out files)."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, LC_ALL="C", PYTHONUTF8="0", PYTHONIOENCODING="")
    env.pop("PYTHONIOENCODING")
    proc = subprocess.run([sys.executable, "-m", "tricount", "bench", "complete:n=5",
                           "--trials", "1", "--methods", "bitmap", "--out",
                           str(tmp_path / "run"), "--no-plot"],
                          capture_output=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    assert b"complete-n5" in proc.stdout and (tmp_path / "run.md").exists()


def test_a_pipe_is_refused_as_not_a_regular_file(capsys, tmp_path):
    """A FIFO, /dev/stdin or <(...) was called a directory."""
    import os

    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    assert main(["bench", str(fifo), "--trials", "1"]) == 2
    assert "is not a regular file" in capsys.readouterr().err
