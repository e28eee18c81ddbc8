"""``tricount count --per-vertex/--per-edge``, ``tricount clustering``, ``tricount ktruss``."""

from __future__ import annotations

import csv
import json

import networkx as nx
import pytest

import tricount.gpu
from tricount.cli import main


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.setattr(tricount.gpu, "probe", lambda: (False, "no GPU in this test"))


@pytest.fixture
def k4_tail(tmp_path):
    #   K4 on {10, 11, 12, 13} with a tail 13 - 14, a loop and a repeat.
    path = tmp_path / "k4tail.txt"
    path.write_text("# K4 + tail\n10 11\n10 12\n10 13\n11 12\n11 13\n12 13\n13 14\n14 14\n11 10\n")
    return path


def nx_of(path):
    G = nx.read_edgelist(path, nodetype=int)
    G.remove_edges_from(list(nx.selfloop_edges(G)))
    return G


def test_count_writes_per_vertex_and_per_edge_csv(capsys, tmp_path, k4_tail, no_gpu):
    pv, pe = tmp_path / "pv.csv", tmp_path / "pe.csv"
    code, out, _ = run_cli(capsys, "count", k4_tail, "--per-vertex", pv, "--per-edge", pe, "--json")
    assert code == 0
    report = json.loads(out)
    assert report["triangles"] == 4
    assert report["per_vertex_file"] == str(pv) and report["per_edge_file"] == str(pe)
    rows = read_csv(pv)
    assert {int(r["vertex"]): int(r["triangles"]) for r in rows} == nx.triangles(nx_of(k4_tail))
    assert sum(int(r["triangles"]) for r in rows) == 3 * report["triangles"]
    edges = read_csv(pe)
    assert list(edges[0]) == ["source", "target", "triangles"]
    assert {(int(r["source"]), int(r["target"])): int(r["triangles"]) for r in edges} == {
        (10, 11): 2, (10, 12): 2, (10, 13): 2, (11, 12): 2, (11, 13): 2, (12, 13): 2, (13, 14): 0}


def test_count_writes_parquet(capsys, tmp_path, k4_tail, no_gpu):
    pq = pytest.importorskip("pyarrow.parquet")
    out_path = tmp_path / "pv.parquet"
    code, _, err = run_cli(capsys, "count", k4_tail, "--per-vertex", out_path)
    assert code == 0 and "wrote triangles at 5 vertices" in err
    table = pq.read_table(out_path).to_pydict()
    assert dict(zip(table["vertex"], table["triangles"])) == {10: 3, 11: 3, 12: 3, 13: 3, 14: 0}


@pytest.mark.parametrize("argv, header, answer", [
    (["count", "--per-vertex", "-"], "vertex,triangles", "triangles"),
    (["clustering", "--per-vertex", "-"], "vertex,degree,triangles,clustering",
     "average_clustering"),
    (["ktruss", "--decomposition", "-"], "source,target,trussness", "max_trussness"),
])
def test_a_table_on_stdout_leaves_it_to_the_table(capsys, k4_tail, no_gpu, argv, header,
                                                   answer):
    # Standard output holds the CSV alone; the answer (here its JSON) goes to stderr, as
    # convert's and list's reports do. Both once went to stdout, one after the other.
    command, *rest = argv
    code, out, err = run_cli(capsys, command, k4_tail, *rest, "--json")
    assert code == 0 and out.splitlines()[0] == header
    assert all("{" not in line for line in out.splitlines())
    assert answer in json.loads(err.strip().splitlines()[-1])


def test_unknown_table_extension_is_a_usage_error(capsys, tmp_path, k4_tail, no_gpu):
    code, out, err = run_cli(capsys, "count", k4_tail, "--per-vertex", tmp_path / "pv.txt")
    assert code == 2 and out == "" and "*.csv or *.parquet" in err


def test_clustering_json_matches_networkx(capsys, tmp_path, k4_tail, no_gpu):
    per_vertex = tmp_path / "cl.csv"
    code, out, _ = run_cli(capsys, "clustering", k4_tail, "--json", "--per-vertex", per_vertex)
    assert code == 0
    report = json.loads(out)
    G = nx_of(k4_tail)
    assert report["average_clustering"] == pytest.approx(nx.average_clustering(G), rel=1e-12)
    assert report["transitivity"] == nx.transitivity(G)
    assert report["triangles"] == 4 and report["wedges"] == 15 and report["backend"] == "cpu"
    rows = read_csv(per_vertex)
    assert list(rows[0]) == ["vertex", "degree", "triangles", "clustering"]
    assert {int(r["vertex"]): float(r["clustering"]) for r in rows} == nx.clustering(G)


def test_clustering_plain_output_and_count_zeros(capsys, k4_tail, no_gpu):
    code, out, err = run_cli(capsys, "clustering", k4_tail, "--no-count-zeros")
    assert code == 0
    lines = dict(line.split(" ", 1) for line in out.splitlines())
    G = nx_of(k4_tail)
    assert float(lines["average_clustering"]) == pytest.approx(
        nx.average_clustering(G, count_zeros=False), rel=1e-12)
    assert float(lines["transitivity"]) == nx.transitivity(G)
    assert "4 triangles" in err


def test_clustering_of_an_empty_graph(capsys, tmp_path, no_gpu):
    path = tmp_path / "loops.txt"
    path.write_text("1 1\n")
    code, out, _ = run_cli(capsys, "clustering", path, "--json", "--no-count-zeros")
    assert code == 0
    report = json.loads(out)
    assert report["average_clustering"] is None and report["transitivity"] == 0.0


def test_ktruss_summary_and_files(capsys, tmp_path, k4_tail, no_gpu):
    decomposition, edges = tmp_path / "d.csv", tmp_path / "e.csv"
    code, out, _ = run_cli(capsys, "ktruss", k4_tail, "--k", "3", "--json",
                           "--decomposition", decomposition, "--edges", edges)
    assert code == 0
    report = json.loads(out)
    assert (report["k"], report["truss_vertices"], report["truss_edges"]) == (3, 4, 6)
    assert report["max_trussness"] == 4
    rows = read_csv(decomposition)
    assert {(int(r["source"]), int(r["target"])): int(r["trussness"]) for r in rows}[(13, 14)] == 2
    kept = {frozenset((int(r["source"]), int(r["target"]))) for r in read_csv(edges)}
    assert kept == {frozenset(e) for e in nx.k_truss(nx_of(k4_tail), 3).edges}


def test_ktruss_default_is_the_largest_truss(capsys, k4_tail, no_gpu):
    code, out, _ = run_cli(capsys, "ktruss", k4_tail)
    assert code == 0
    assert out.splitlines() == ["4-truss: 4 vertices, 6 edges", "max trussness 4"]
    code, out, _ = run_cli(capsys, "ktruss", k4_tail, "--k", "5", "--json")
    assert json.loads(out)["truss_edges"] == 0 and json.loads(out)["max_trussness"] is None


def test_gpu_backend_unavailable_exits_3(capsys, k4_tail, no_gpu):
    for command in ("clustering", "ktruss"):
        code, out, err = run_cli(capsys, command, k4_tail, "--backend", "gpu")
        assert code == 3 and out == "" and "unavailable" in err


def test_missing_file_exits_2(capsys, tmp_path, no_gpu):
    code, out, err = run_cli(capsys, "clustering", tmp_path / "nope.txt")
    assert code == 2 and out == ""
