"""The GPU's compiled-route markers (``tricount.gpu.warm``), on any machine: no CuPy needed."""

from __future__ import annotations

from tricount.gpu import warm


def test_a_route_is_marked_once_per_process(tmp_path, monkeypatch):
    monkeypatch.setattr(warm, "cupy_cache_dir", lambda: tmp_path)
    monkeypatch.setattr(warm, "_MARKED", set())
    warm.mark_compiled("hash-rank")
    assert warm.compiled_routes() == {"hash-rank"}
    for marker in (tmp_path / warm.MARKERS).iterdir():
        marker.unlink()
    warm.mark_compiled("hash-rank")  # every count asks: the disk is told once
    assert warm.compiled_routes() == frozenset()
    warm.mark_compiled("small-degree")
    assert warm.compiled_routes() == {"small-degree"}
