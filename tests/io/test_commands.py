"""``tricount convert`` and ``tricount info``, in-process (tests/test_cli.py runs a process)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tricount.cli import main
from tricount.io import _progress, load_graph

sys.path.insert(0, str(Path(__file__).parent))
from io_support import count, shared_rows, write_text  # noqa: E402


def run(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


class TestInfo:
    def test_json(self, capsys):
        (row,) = shared_rows(["ca-GrQc"])
        code, out, _ = run(["info", row["path"], "--json"], capsys)
        report = json.loads(out)
        assert code == 0
        assert report["format"] == "snap" and report["compression"] == "gzip"
        assert report["edges"] == row["edges"] and report["max_degree"] == row["max_degree"]
        assert report["self_loops_dropped"] == 12 and report["duplicates_dropped"] == 0
        assert report["empty"] is False and report["load_s"] >= 0

    def test_text(self, tmp_path, capsys):
        path = write_text(tmp_path / "g_adj.tsv", "1\t2\t1\n2\t1\t1\n2\t3\t1\n3\t3\t1\n")
        code, out, _ = run(["info", path], capsys)
        assert code == 0
        assert out.splitlines() == ["format: graphchallenge", "vertices: 3", "edges: 2",
                                    "max degree: 2", "self-loops dropped: 1",
                                    "duplicates dropped: 0"]

    def test_format_option(self, tmp_path, capsys):
        path = write_text(tmp_path / "g.dat", "2 1\n2\n1\n")
        code, out, _ = run(["info", path, "--format", "metis", "--json"], capsys)
        assert code == 0 and json.loads(out)["format"] == "metis"


class TestConvert:
    @pytest.mark.parametrize("out_name", ["g.tcsr", "g.txt", "g.tsv.gz", "g.el.bz2"])
    def test_round_trip(self, out_name, tmp_path, capsys):
        (row,) = shared_rows(["jazz"])
        out = tmp_path / out_name
        code, stdout, err = run(["convert", row["path"], out], capsys)
        assert code == 0 and stdout == "" and "wrote" in err
        assert count(load_graph(out)) == row["triangles"]

    def test_json_and_explicit_output_format(self, tmp_path, capsys):
        src = write_text(tmp_path / "k.mtx", "%%MatrixMarket matrix coordinate pattern "
                                             "symmetric\n3 3 3\n2 1\n3 1\n3 2\n")
        code, out, _ = run(["convert", src, tmp_path / "k.out", "--to", "native", "--json"],
                           capsys)
        report = json.loads(out)
        assert code == 0 and report["output_format"] == "native"
        assert report["format"] == "matrix-market"
        assert count(load_graph(tmp_path / "k.out", format="native")) == 1

    def test_unknown_output_suffix(self, tmp_path, capsys):
        src = write_text(tmp_path / "g.txt", "0 1\n")
        code, out, err = run(["convert", src, tmp_path / "g.xyz"], capsys)
        assert code == 2 and "cannot tell the output format" in err

    def test_bad_input_exits_2(self, tmp_path, capsys):
        src = write_text(tmp_path / "g.txt", "0 1\n1 oops\n")
        code, _, err = run(["convert", src, tmp_path / "g.tcsr"], capsys)
        assert code == 2 and "g.txt, line 2: expected a non-negative integer" in err
        assert not (tmp_path / "g.tcsr").exists()


def test_count_reads_native(tmp_path, capsys):
    (row,) = shared_rows(["football"])
    out = tmp_path / "f.tcsr"
    assert run(["convert", row["path"], out], capsys)[0] == 0
    code, stdout, _ = run(["count", out, "--backend", "cpu", "--json"], capsys)
    assert code == 0 and json.loads(stdout)["triangles"] == row["triangles"]


class TestProgress:
    def test_silent_off_a_terminal(self, tmp_path, capsys):
        load_graph(write_text(tmp_path / "g.txt", "0 1\n"))
        assert capsys.readouterr().err == ""

    def test_forced_bar_appears_only_after_the_delay(self, tmp_path, capsys, monkeypatch):
        import tricount._progress

        monkeypatch.setattr(tricount._progress, "PROGRESS_DELAY_S", 0.0)
        bar = _progress.Progress(tmp_path / "g.txt", 100, enabled=True)
        bar(50)
        bar(100)
        bar.close()
        assert "g.txt" in capsys.readouterr().err
