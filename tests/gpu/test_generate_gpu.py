"""Same seed, same graph: every generator gives bit-identical arrays on NumPy and CuPy.

Also runs ``tricount bench`` on the GPU backend end to end (tiny graphs, every
GPU method verified against the oracle) and with generation on the GPU.
Skipped as a whole without CuPy or a usable GPU.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

cupy = pytest.importorskip("cupy")

import tricount.gpu  # noqa: E402

_usable, _why = tricount.gpu.probe()
if not _usable:
    pytest.skip(f"no usable GPU: {_why}", allow_module_level=True)

pytestmark = pytest.mark.gpu

from tricount.generate import generate_spec  # noqa: E402

SPECS = [
    "rmat:scale=1,ef=3",
    "rmat:scale=10,ef=16,seed=7",
    "rmat:scale=12,ef=8,seed=2,a=0.45,b=0.15,c=0.15",
    "rmat:scale=9,ef=4,permute=0",
    "er:n=33,m=500",  # dense: the complement path
    "er:n=5000,m=40000,seed=3",
    "er:n=100000,m=1,seed=9",
    "ba:n=2,m=1",
    "ba:n=1025,m=3,seed=4",
    "ba:n=20000,m=8,seed=1",
    "ws:n=1000,k=10,p=0.0",
    "ws:n=1000,k=10,p=0.3,seed=5",
    "ws:n=4097,k=32,p=1.0,seed=2",
    "complete:n=1",
    "complete:n=33",
    "complete:n=300",
    "star:n=0",
    "star:n=1025",
    "grid:rows=31,cols=33",
    "grid:rows=32,cols=32,periodic=1",
]


def test_cupy_arrays_live_on_the_device():
    src, dst, _ = generate_spec("rmat:scale=6", xp=cupy)
    assert isinstance(src, cupy.ndarray) and isinstance(dst, cupy.ndarray)
    assert src.dtype == dst.dtype == cupy.int64


@pytest.mark.parametrize("spec", SPECS)
def test_same_seed_same_graph_on_numpy_and_cupy(spec):
    host_src, host_dst, host_name = generate_spec(spec)
    dev_src, dev_dst, dev_name = generate_spec(spec, xp=cupy)
    assert host_name == dev_name
    assert np.array_equal(host_src, cupy.asnumpy(dev_src))
    assert np.array_equal(host_dst, cupy.asnumpy(dev_dst))


def test_rmat_batches_do_not_change_the_graph_on_the_gpu(monkeypatch):
    import importlib

    mod = importlib.import_module("tricount.generate.rmat")
    whole = generate_spec("rmat:scale=11,ef=4,seed=3")
    monkeypatch.setattr(mod, "BATCH_EDGES", 1000)  # a batch boundary inside a warp's range
    dev_src, dev_dst, _ = generate_spec("rmat:scale=11,ef=4,seed=3", xp=cupy)
    assert np.array_equal(whole[0], cupy.asnumpy(dev_src))
    assert np.array_equal(whole[1], cupy.asnumpy(dev_dst))


def test_er_redraw_path_matches(monkeypatch):
    import importlib

    mod = importlib.import_module("tricount.generate.erdos_renyi")
    host = generate_spec("er:n=3000,m=30000,seed=8")
    monkeypatch.setattr(mod, "DRAW_SLACK", 0.01)  # force the longer second block on the GPU
    dev = generate_spec("er:n=3000,m=30000,seed=8", xp=cupy)
    assert np.array_equal(host[0], cupy.asnumpy(dev[0]))
    assert np.array_equal(host[1], cupy.asnumpy(dev[1]))


def test_bench_gpu_backend_end_to_end(capsys, tmp_path):
    from tricount.cli import main
    from tricount.gpu import GPU_METHODS

    prefix = tmp_path / "gpu"
    code = main(["bench", "complete:n=40", "rmat:scale=8,ef=8", "star:n=100", "--backend", "gpu",
                 "--methods", "all", "--trials", "2", "--json", "--out", str(prefix)])
    out, err = capsys.readouterr()
    assert code == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    assert len(records) == 3 * len(GPU_METHODS) * 2
    for r in records:
        assert r["verified"] and r["verified_by"] == "reference oracle"
        assert r["device"]["kind"] == "gpu" and r["versions"]["cupy"]
        assert r["timings"]["h2d_s"] >= 0 and r["timings"]["kernel_s"] is not None
    assert prefix.with_suffix(".jsonl").exists() and prefix.with_suffix(".md").exists()


def test_bench_generates_on_the_gpu(capsys):
    from tricount.cli import main

    code = main(["bench", "rmat:scale=9,ef=4", "--generate-on", "gpu", "--backend", "cpu",
                 "--methods", "merge", "--trials", "1", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    (record,) = [json.loads(line) for line in out.splitlines()]
    assert record["verified"]
