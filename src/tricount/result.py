"""What a count returns besides the number: where it ran, how, why, and how long."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class EngineResult:
    """One backend's answer for one prepared graph.

    ``timings`` holds seconds: ``preprocess_s`` (orientation), ``count_s`` (all
    counting work) and, where the backend can isolate it, ``kernel_s``.
    """

    n_triangles: int
    method: str
    method_reason: str
    timings: dict = field(default_factory=dict)


@dataclass
class CountResult:
    """The answer of :func:`tricount.count` (LAGraph's in/out style: what ran, and why).

    ``graph`` holds the graph's facts (:meth:`tricount.CSRGraph.summary`); its
    ``max_degree`` is None when the count did not need the degrees on the host (a
    graph in host memory counted on the GPU, or by the CPU's bitmap counter in id order):
    ``tricount.Graph.max_degree`` computes it.
    ``partition`` is None for a count in one piece; a partitioned count puts its
    report there (:meth:`tricount.partition.PartitionReport.to_dict`: how many
    sub-problems ran, where, why, and per device what each cost).
    """

    n_triangles: int
    backend: str
    backend_reason: str
    method: str
    method_reason: str
    graph: dict
    timings: dict
    partition: dict | None = None

    def __int__(self) -> int:
        return self.n_triangles

    @property
    def edges_per_second(self) -> float | None:
        """Undirected edges (counted once) over counting seconds."""
        count_s = self.timings.get("count_s")
        if not count_s:
            return None
        return self.graph["edges"] / count_s

    def to_dict(self) -> dict:
        out = dict(self.graph)
        out.update(
            triangles=self.n_triangles,
            backend=self.backend,
            backend_reason=self.backend_reason,
            method=self.method,
            method_reason=self.method_reason,
            timings=dict(self.timings),
            edges_per_second=self.edges_per_second,
        )
        if self.partition is not None:
            out["partition"] = self.partition
        return out
