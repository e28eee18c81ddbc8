"""Host edge arrays built into a graph on the GPU, when the GPU counts them.

A ``(src, dst)`` pair of NumPy arrays counted on the GPU (``tricount.count`` with the GPU
engine or executor: :func:`edges_for_device`) used to be built on the host
(:func:`tricount.prep.canonical.canonical_edges` with NumPy: 26.5-27.7 s for R-MAT 24's
268 M lines on a 32-core host) and its CSR copied to the device; the GPU builds the same graph
from the same lines in well under a second, copy included: the whole count took 0.35-0.41 s
(one H200, 2026-11-28, ``benchmarks/results/host_edges_gpu_h200x2.md``). So where the device
holds the lines and the fused build's room (:func:`builds_on_device`), the lines go to
the device as they are and the graph is built there by the code every device build shares
(:meth:`tricount.CSRGraph.from_edges` with CuPy arrays): the same vertices, edges, loop and
repeat counts and errors as the host build, since both run ``validate_edge_arrays`` and
``canonical_edges`` (masked and byte-swapped arrays, which CuPy cannot take as they are,
stay on the host). A count on
several GPUs (``devices=``) builds on the first of them; where every device keeps the
rank-ordered CSR, that one prepares the graph from its own memory while the others copy it
from there, else the graph goes through host memory (:func:`tricount.partition.gpu.count_gpu`).

The copy (:func:`upload_edges`) is the text loader's double buffer
(:class:`tricount.io.gpu_stream.DeviceEdges`): the host copies chunk ``k + 1`` into one
pinned buffer, on several threads (:func:`tricount.gpu.chunks.copy_into`), while a
non-blocking stream copies chunk ``k`` from the other to the device; a buffer is refilled
only after the event recorded behind its last copy. The device arrays are sized once, from
the number of lines. Once Numba has started in the process (:func:`narrows`), int64 ids
below ``2**31`` (R-MAT's, and most graphs') travel as int32, narrowed and checked in the pass
that fills the pinned buffer: half the bytes to write and to copy.

Lines that do not fit the device's one-piece build (R-MAT 27's 2.1 G lines: 34 GB of int64
and some 86 GB of room) take the bounded build (:mod:`tricount.prep.outofcore`) with chunks of
:data:`BOUNDED_CHUNK_LINES` copied to the device the same way: the GPU surveys and buckets
each chunk, the keys wait in host memory, each bucket is sorted on the GPU, and the graph
comes out in host memory, to be counted in parts (:func:`build_bounded_on_device`): R-MAT 27
from NumPy arrays to the count in 15.7 s on one H200. The host's own build sorts every line on
one core: 26-28 s at R-MAT 24 on the same host, and it was not timed at R-MAT 27.

An ``(m, 2)`` integer array or a table of integer id columns comes here as the pair of its
columns (``tricount.count`` reads it so: :func:`tricount.inputs.id_columns`). Ids NumPy cannot
hand over as they are (uint64, whose ids past ``2**63 - 1`` the host build maps; floats, which
the host validates), any other input (lists, names, NetworkX graphs) and small inputs stay on
the host path: the host builds them.
"""

from __future__ import annotations

import numpy as np

from tricount.errors import UnsupportedGraphError
from tricount.prep.outofcore.memory import DEVICE_SHARE, in_memory_bytes

__all__ = ["DEVICE_BUILD_MIN_LINES", "UPLOAD_CHUNK_LINES", "BOUNDED_CHUNK_LINES",
           "builds_on_device", "build_bounded_on_device",
           "edges_for_device", "narrows", "takes_ids", "upload_edges"]

#: Fewer lines are built on the host. At this many (R-MAT 14's) the whole count already took
#: 3-4 ms with the device's build, copy included, against 9-10 ms with the host's (one H200,
#: warm; ``benchmarks/results/host_edges_gpu_h200x2.md``); below it a few ms are at stake.
DEVICE_BUILD_MIN_LINES = 1 << 18
#: Lines a pinned buffer holds: two slots of two buffers, 32 MiB each for ids narrowed to
#: int32 (128 MiB in all), 64 MiB for int64, kept by CuPy's pinned pool after the count.
UPLOAD_CHUNK_LINES = 1 << 23
#: Lines a chunk of the bounded build copies to the device (1 GiB of int64 pairs there).
BOUNDED_CHUNK_LINES = 1 << 26
#: Integer types that go to the device as they are (the build widens them to int64).
_DEVICE_KINDS = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32)


def takes_ids(src, dst) -> bool:
    """Whether ``src``, ``dst`` are ids the device's build takes as they are: NumPy integer
    arrays of one 1-D shape and a type :func:`upload_edges` copies (in the machine's byte
    order: CuPy has no other), at least :data:`DEVICE_BUILD_MIN_LINES` of them. The cost
    model prices the GPU's route for these as this build (``backends.facts.Workload``)."""
    if not (isinstance(src, np.ndarray) and isinstance(dst, np.ndarray)) \
            or isinstance(src, np.ma.MaskedArray) or isinstance(dst, np.ma.MaskedArray):
        return False  # a mask's hidden entries: the host build refuses them
    if src.ndim != 1 or src.shape != dst.shape or src.dtype != dst.dtype \
            or src.dtype.type not in _DEVICE_KINDS or not src.dtype.isnative:
        return False
    return int(src.shape[0]) >= DEVICE_BUILD_MIN_LINES


def builds_on_device(src, dst, free_bytes: int | None) -> bool:
    """Whether host edge arrays ``src``, ``dst`` go to the device to be built there in one
    piece: ids the device takes (:func:`takes_ids`) whose int64 copies and the fused
    build's room fit ``DEVICE_SHARE`` of the device's ``free_bytes`` (None: no device)."""
    if free_bytes is None or not takes_ids(src, dst):
        return False
    m = int(src.shape[0])
    # Both ends as copied, their int64 widening (the same arrays for int64), and the build
    # beyond its input; a byte map of dense ids is not counted: the build itself weighs the
    # ids it finds (and goes to buckets if it must).
    copied = 0 if src.dtype.itemsize == 8 else 2 * src.dtype.itemsize * m
    need = copied + 16 * m + in_memory_bytes(m, 0, device=True)
    return need <= DEVICE_SHARE * free_bytes


def edges_for_device(graph):
    """``graph`` (what ``tricount.count`` was given) with its host edge arrays copied to the
    current device, when it is a ``(src, dst)`` pair that :func:`builds_on_device` takes;
    built in buckets on the device into a host graph when the ids suit the device but one
    piece does not fit (:func:`build_bounded_on_device`); else ``graph`` itself, for the host
    to build."""
    from tricount.gpu.device import free_device_bytes

    if not (isinstance(graph, tuple) and len(graph) == 2):
        return graph
    src, dst = graph
    free = free_device_bytes()
    if builds_on_device(src, dst, free):
        try:
            return upload_edges(src, dst)
        except UnsupportedGraphError:  # the device filled up meanwhile: the host builds
            return graph
    if free is not None and takes_ids(src, dst):
        return build_bounded_on_device(src, dst)
    return graph


def build_bounded_on_device(src: np.ndarray, dst: np.ndarray, *,
                            chunk_lines: int | None = None):
    """The host :class:`~tricount.CSRGraph` of host edge arrays too large for the device's
    one-piece build: the bounded build over chunks copied to the device (module doc)."""
    from tricount.graph import CSRGraph
    from tricount.prep.outofcore import BuildPlan, build_bounded

    m, chunk_lines = int(src.shape[0]), chunk_lines or BOUNDED_CHUNK_LINES

    def chunks():  # called once a pass: each pass copies the lines again
        for a in range(0, m, chunk_lines):
            yield upload_edges(src[a:a + chunk_lines], dst[a:a + chunk_lines])

    built = build_bounded(chunks, plan=BuildPlan(device="gpu"))
    g = CSRGraph.from_upper_csr(built.indptr, built.indices, built.n_vertices,
                                vertex_ids=built.vertex_ids,
                                self_loops_dropped=built.self_loops_dropped,
                                duplicates_dropped=built.duplicates_dropped, check=False)
    g.build = dict(built.note, reason=f"{m:,} edge lines do not fit the GPU's one-piece build")
    return g


def narrows(src: np.ndarray, dst: np.ndarray) -> bool:
    """Whether :func:`upload_edges` tries int32 for these ids: int64 arrays read in order
    (not the strided columns of an ``(m, 2)`` array, which the narrowing loop reads several
    times slower than NumPy copies them), once Numba has started in this process. Its start
    would cost a fresh process's first count more than the narrowing saves: 0.33 s at R-MAT
    22 (0.9-1.0 s against 1.24-1.34 s), where the narrowing saves under 0.01 s, and 0.18-0.30 s
    at R-MAT 24-26 (two H200s, 2026-11-28, ``benchmarks/results/host_edges_gpu_h200x2.md``)."""
    from tricount._threads import numba_started

    return src.dtype == np.int64 and src.strides == dst.strides == (8,) and numba_started()


def upload_edges(src: np.ndarray, dst: np.ndarray, *, chunk_lines: int | None = None):
    """``src`` and ``dst`` (host integer arrays of one length) as device int64 arrays, copied
    chunk by chunk through two pinned buffers (see the module doc).

    int64 ids go as int32 (:func:`narrows`) while every id of a chunk lies in
    ``0 .. 2**31 - 1``, checked in the same pass (:func:`tricount.gpu.chunks.narrow_into`):
    half the bytes written to pinned memory and copied to the device. From the first chunk
    that holds another id, the lines go as they are, and the device widens the ones it holds
    (as the text loader's ids do).
    """
    from tricount.gpu.chunks import copy_into, narrow_into
    from tricount.io.gpu_stream import DeviceEdges

    def narrowed(*arrays):
        if not narrow_into(*arrays):
            raise _WideIds

    m, chunk_lines = int(src.shape[0]), chunk_lines or UPLOAD_CHUNK_LINES
    narrow = narrows(src, dst)
    with DeviceEdges(capacity=m, path="the edge arrays") as sink:
        for a in range(0, m, chunk_lines):
            b = min(m, a + chunk_lines)
            if narrow:
                try:
                    sink.add(b - a, np.int32,
                             lambda s, d, a=a, b=b: narrowed(s, d, src[a:b], dst[a:b]))
                    continue
                except _WideIds:  # nothing of this chunk was queued: it goes again, wide
                    narrow = False
            sink.add(b - a, src.dtype,
                     lambda s, d, a=a, b=b: copy_into((s, src[a:b]), (d, dst[a:b])))
        return sink.take_edges()


class _WideIds(Exception):
    """A chunk of int64 ids holds one that int32 cannot (or a negative id, which the build
    then refuses with the host's message)."""
