"""Which graph a Dask worker process keeps for a count: on its GPU when it has one, else on the host.

:func:`prepare_graph` makes it: a :class:`~tricount.partition.device_graph.DeviceGraph` on
the process's current GPU where one is usable (``tricount.gpu.probe``; dask-cuda's
``LocalCUDACluster`` gives each worker one GPU as its device 0), else a
:class:`~tricount.partition.host_graph.HostGraph` counted by the CPU engine. Both plan,
count pieces and close alike; ``reason`` says why this one. CuPy is imported only when a
GPU is asked about.
"""

from __future__ import annotations

__all__ = ["prepare_graph", "PREFER"]

#: What a caller may ask for: the GPU where usable, the CPU, or the GPU or an error.
PREFER = ("auto", "cpu", "gpu")


def prepare_graph(source, *, prefer: str = "auto", partitions=None, max_memory=None):
    """This process's graph of ``source`` (a ``.tcsr`` path or a RankedCSR), ready to count.

    ``prefer``: ``"auto"`` (the GPU when one is usable), ``"cpu"``, or ``"gpu"`` (raise
    :class:`~tricount.BackendUnavailableError` when none is). ``partitions`` and
    ``max_memory`` are the count's, for the plan this graph may be asked for.
    """
    from tricount.errors import BackendUnavailableError, InvalidArgumentError
    from tricount.partition.host_graph import HostGraph

    if prefer not in PREFER:
        raise InvalidArgumentError(f"prefer must be one of {', '.join(PREFER)}, got {prefer!r}")
    why = "cpu requested"
    if prefer != "cpu":
        from tricount.gpu import probe

        usable, why = probe()
        if usable:
            from tricount.partition.device_graph import DeviceGraph

            graph = DeviceGraph.prepare(source, partitions=partitions, max_memory=max_memory)
            graph.reason = why
            return graph
        if prefer == "gpu":
            raise BackendUnavailableError(f"cannot count sub-problems on a GPU here: {why}")
        why = f"cpu: {why}"
    graph = HostGraph.open(source, partitions=partitions, max_memory=max_memory)
    graph.reason = why
    return graph
