"""The command line: answers, JSON fields, exit codes, the built-in example."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import tricount.gpu
from tricount.cli import main

JSON_KEYS = {
    "graph", "triangles", "vertices", "edges", "self_loops_dropped", "duplicates_dropped",
    "backend", "method", "timings", "edges_per_second",
}


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.setattr(tricount.gpu, "probe", lambda: (False, "no GPU in this test"))


@pytest.fixture
def k4_file(tmp_path):
    path = tmp_path / "k4.txt"
    path.write_text("# K4 with a loop and a repeat\n0\t1\n0\t2\n0\t3\n1\t2\n1\t3\n2\t3\n3\t3\n1\t0\n")
    return path


@pytest.mark.slow  # R-MAT 16 generated, written and counted twice: .ci/run runs it after the suite
def test_builtin_example_equals_counting_the_generated_file(capsys, tmp_path, no_gpu):
    code, out, _ = run_cli(capsys, "count", "--json")
    assert code == 0
    example = json.loads(out)
    assert JSON_KEYS <= set(example)
    assert example["graph"] == "rmat-s16-ef16-seed1"
    path = tmp_path / "rmat16.txt"
    code, _, err = run_cli(capsys, "generate", "rmat", "--scale", "16", "--edge-factor", "16",
                           "--seed", "1", str(path))
    assert code == 0 and "wrote 1048576 edge lines (909759 edges; loops and repeats kept)" in err
    code, out, _ = run_cli(capsys, "count", str(path), "--json", "--method", "merge")
    from_file = json.loads(out)
    assert from_file["triangles"] == example["triangles"] == 15_640_241
    for key in ("vertices", "edges", "self_loops_dropped", "duplicates_dropped"):
        assert from_file[key] == example[key], key


def test_plain_output_is_the_count_then_one_context_line(capsys, k4_file, no_gpu):
    code, out, err = run_cli(capsys, "count", str(k4_file))
    assert code == 0
    assert out == "4\n"
    context = err.strip().splitlines()
    assert len(context) == 1
    assert "k4" in context[0] and "4 vertices" in context[0] and "6 edges" in context[0]
    assert "cpu/" in context[0]


def test_json_fields(capsys, k4_file):
    code, out, _ = run_cli(capsys, "count", str(k4_file), "--json", "--backend", "cpu")
    report = json.loads(out)
    assert code == 0
    assert report["triangles"] == 4 and report["vertices"] == 4 and report["edges"] == 6
    assert report["self_loops_dropped"] == 1 and report["duplicates_dropped"] == 0
    assert report["backend"] == "cpu" and report["backend_reason"] == "requested"
    assert set(report["timings"]) >= {"load_s", "preprocess_s", "count_s", "total_s"}
    assert report["edges_per_second"] == pytest.approx(6 / report["timings"]["count_s"])


def test_verify(capsys, k4_file):
    code, out, _ = run_cli(capsys, "count", str(k4_file), "--json", "--verify", "--backend", "cpu")
    assert code == 0
    report = json.loads(out)
    assert report["verified"] is True and report["reference_triangles"] == 4


def test_empty_graph_says_so(capsys, tmp_path):
    path = tmp_path / "empty.txt"
    path.write_text("# nothing here\n% nor here\n")
    code, out, err = run_cli(capsys, "count", str(path), "--backend", "cpu")
    assert code == 0 and out == "0\n" and "the graph is empty" in err


@pytest.mark.parametrize(
    "content,message",
    [
        ("0 1\n1 x\n", "line 2: expected a non-negative integer vertex id, found 'x'"),
        ("0 1\n-4 2\n", "line 2: vertex ids must be non-negative, found '-4'"),
        ("0 1\n2\n", "line 2: expected two vertex ids"),
        ("9223372036854775808 1\n", "line 1: vertex id '9223372036854775808' is larger than 2**63-1"),
    ],
)
def test_bad_lines_exit_2_naming_file_and_line(capsys, tmp_path, content, message):
    path = tmp_path / "bad.txt"
    path.write_text(content)
    code, out, err = run_cli(capsys, "count", str(path), "--backend", "cpu")
    assert code == 2 and out == ""
    assert err.startswith("tricount: error: ") and str(path) in err and message in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_missing_file_and_directory_exit_2(capsys, tmp_path):
    code, _, err = run_cli(capsys, "count", str(tmp_path / "nope.txt"))
    assert code == 2 and "nope.txt: no such file" in err
    code, _, err = run_cli(capsys, "count", str(tmp_path))
    assert code == 2 and "is a directory" in err


def test_truncated_gzip_exits_2(capsys, tmp_path):
    import gzip

    data = gzip.compress(b"0 1\n1 2\n2 0\n" * 1000)
    path = tmp_path / "cut.txt.gz"
    path.write_bytes(data[: len(data) // 2])
    code, _, err = run_cli(capsys, "count", str(path))
    assert code == 2 and "gzip" in err


def test_gpu_backend_unavailable_exits_3(capsys, k4_file, no_gpu):
    code, out, err = run_cli(capsys, "count", str(k4_file), "--backend", "gpu")
    assert code == 3 and out == ""
    assert "backend 'gpu' is unavailable: no GPU in this test" in err


def test_gpu_only_method_on_cpu_exits_2(capsys, k4_file):
    code, _, err = run_cli(capsys, "count", str(k4_file), "--backend", "cpu", "--method", "hash")
    assert code == 2 and "only on the GPU" in err


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as info:
        main(["count", "--backend", "tpu"])
    assert info.value.code == 2
    with pytest.raises(SystemExit) as info:
        main([])
    assert info.value.code == 2


def test_generate_writes_snap_text(capsys, tmp_path):
    path = tmp_path / "small.txt.gz"
    code, _, _ = run_cli(capsys, "generate", "rmat", "--scale", "6", "--edge-factor", "4", str(path))
    assert code == 0
    import gzip

    lines = gzip.decompress(path.read_bytes()).decode().splitlines()
    assert lines[0].startswith("# R-MAT rmat-s6-ef4-seed1")
    body = [line for line in lines if not line.startswith("#")]
    assert len(body) == 256 and all(len(line.split("\t")) == 2 for line in body)


def test_console_entry_point_runs_as_a_process(k4_file):
    proc = subprocess.run([sys.executable, "-m", "tricount", "count", str(k4_file), "--backend",
                           "cpu"], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout == "4\n" and "Traceback" not in proc.stderr


def test_count_help_lists_the_methods_the_backends_declare(capsys):
    from tricount.cpu import CPU_METHODS
    from tricount.gpu import GPU_METHODS

    with pytest.raises(SystemExit):
        main(["count", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"CPU: {', '.join(CPU_METHODS)};" in text
    assert f"GPU: {', '.join(GPU_METHODS)} " in text


def test_version(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0 and capsys.readouterr().out.startswith("tricount ")


def test_a_file_name_that_is_not_utf8_makes_valid_json(capsys, tmp_path):
    # The name's undecodable byte reached --json as a lone surrogate ("caf\udce9"), which
    # no UTF-8 reader of the report can take.
    import os

    path = os.path.join(os.fsencode(tmp_path), b"caf\xe9.txt")
    with open(path, "w") as f:
        f.write("0 1\n1 2\n2 0\n")
    assert main(["count", "--json", os.fsdecode(path)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["graph"] == "caf\ufffd" and report["triangles"] == 1
    report["graph"].encode("utf-8")
