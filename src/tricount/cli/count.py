"""``tricount count [PATH]``: the number of triangles, and optionally per-vertex and
per-edge tables.

    tricount count PATH [--backend B] [--method M] [--verify] [--json]
                        [--per-vertex OUT] [--per-edge OUT]
                        [--partitions K] [--devices D] [--max-memory BYTES]
                        [--scheduler ADDRESS]

``--method`` accepts the methods the backends offer (asked of them:
:data:`tricount.cpu.CPU_METHODS`, :data:`tricount.gpu.GPU_METHODS`). With no
PATH the built-in example (R-MAT scale 16) is counted. Output files are
checked before anything is read: none may be the input, by any path.

The count-in-parts options go to :func:`tricount.count`; with them the path
itself goes there too (a rank-ordered ``.tcsr`` is counted as read, and Dask
workers open it themselves), unless ``--verify``, a table or ``--format``
needs the graph read here. ``--scheduler`` connects a
``distributed.Client`` (exit 3 when Dask is missing or the scheduler cannot
be reached).
"""

from __future__ import annotations

import json
import sys
import time

from tricount.cli import options
from tricount.errors import TricountError

HELP = "count the triangles of a graph"

#: The built-in example `tricount count` runs with no PATH.
EXAMPLE_SCALE, EXAMPLE_EDGE_FACTOR, EXAMPLE_SEED = 16, 16, 1


def method_choices() -> dict:
    """``{backend: methods}`` as the engines declare them (``auto`` aside)."""
    from tricount.cpu import CPU_METHODS
    from tricount.gpu import GPU_METHODS

    return {"cpu": tuple(CPU_METHODS), "gpu": tuple(GPU_METHODS)}


def add_arguments(count) -> None:
    methods = method_choices()
    options.add_input(count, optional=True,
                      help=f"{options.INPUT_HELP}; default: the built-in R-MAT example "
                           f"(scale {EXAMPLE_SCALE}, edge factor {EXAMPLE_EDGE_FACTOR}, "
                           f"seed {EXAMPLE_SEED})")
    options.add_backend(count)
    count.add_argument("--method", default="auto", metavar="NAME",
                       help="counting method, default auto; " + "; ".join(
                           f"{b.upper()}: {', '.join(m)}" for b, m in methods.items()))
    count.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                       help="an option passed to the backend's count, e.g. orientation=id "
                            "(GPU); repeatable")
    options.add_json(count)
    options.add_partition_options(count)
    count.add_argument("--verify", action="store_true",
                       help="also count with the reference oracle; exit 4 on a mismatch")
    options.add_table_output(count, "--per-vertex",
                             "also write the triangles at every vertex (vertex,triangles)")
    options.add_table_output(count, "--per-edge",
                             "also write the triangles on every edge (source,target,triangles)")


def example_edges():
    from tricount.generate import rmat, rmat_name

    src, dst = rmat(EXAMPLE_SCALE, EXAMPLE_EDGE_FACTOR, seed=EXAMPLE_SEED)
    return src, dst, rmat_name(EXAMPLE_SCALE, EXAMPLE_EDGE_FACTOR, EXAMPLE_SEED)


def parse_options(pairs) -> dict:
    """``["sf=2", "variant=warp"]`` -> ``{"sf": 2, "variant": "warp"}`` (numbers parsed)."""
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise TricountError(f"--option expects KEY=VALUE, got {pair!r}")
        for kind in (int, float):
            try:
                out[key] = kind(value)
                break
            except ValueError:
                continue
        else:
            out[key] = value
    return out


def check_outputs(args, paths) -> None:
    """Refuse, before any work, table outputs that are the input or of unknown format."""
    from tricount.io.output import OutputError, check_distinct_outputs
    from tricount.io.output import check_outputs as refuse_inputs
    from tricount.io.tables import table_format

    if any(p == "" for p in paths):
        raise OutputError("an output file name is empty; name the file to write")
    paths = [p for p in paths if p]
    refuse_inputs(paths, [args.path])
    for path in paths:
        table_format(path)
    check_distinct_outputs(paths)


def _load_device(args) -> str:
    """Where to load a file: onto the GPU when the GPU backend is requested and only the
    total is wanted (a text streamed there, reading overlapped with the copies,
    :mod:`tricount.io.gpu_stream`, unless io reads it on the host first:
    :func:`tricount.io.streams_to_device`); --verify and the tables read the graph on the
    host."""
    if args.backend != "gpu" or args.verify or args.per_vertex or args.per_edge:
        return "cpu"
    from tricount.backends import get_backend

    get_backend("gpu")  # BackendUnavailableError (exit 3) before any reading
    return "gpu"


def _gpu_reads_native(args) -> bool:
    """Whether ``tricount.count`` gets the path itself: a plain ``.tcsr`` for the GPU, whose
    header says whether the count goes to parts (then read straight into device memory,
    :mod:`tricount.io.native_gpu`) before this host holds the graph."""
    if args.backend != "gpu" or args.path in (None, "-"):
        return False
    from tricount.backends import get_backend
    from tricount.io.native import native_file

    get_backend("gpu")  # BackendUnavailableError (exit 3) before any reading
    return native_file(args.path) is not None


def route_parser(args) -> str:
    """The text parser of the route the cost model picks for counting ``args.path`` (the
    count itself then runs on the graph read): "numpy" on a first run, where Numba's
    kernels would compile; "auto" (io's choice) when no route reads the file as text."""
    if args.backend not in ("auto", "cpu"):
        return "auto"
    from tricount.backends import select
    from tricount.backends.facts import workload_of

    try:
        workload = workload_of(args.path, format=args.format)
    except TricountError:
        return "auto"  # the read reports it, with the same message
    return select(args.backend, workload, method=args.method).parser


#: Seconds to reach a Dask scheduler and finish its handshake before giving up.
SCHEDULER_TIMEOUT_S = 30


def dask_client(address: str):
    """A ``distributed.Client`` connected to the scheduler at ``address``.

    A malformed address is bad usage (exit 2); a scheduler that cannot be reached, or a
    server there that does not answer as one, is an unavailable backend (exit 3). The
    client's own connection waits without a limit for the scheduler's side of the
    handshake (a server that accepts and stays silent would hold the command forever), so
    one connection is opened and handshaken first under :data:`SCHEDULER_TIMEOUT_S`.
    """
    from tricount.errors import BackendUnavailableError

    try:
        import distributed
    except ImportError:
        raise BackendUnavailableError('--scheduler needs dask and distributed (pip install '
                                      '".[dask]" from a tricount clone)') from None
    address = _scheduler_address(address)
    _probe_scheduler(address)
    try:
        return distributed.Client(address, timeout=f"{SCHEDULER_TIMEOUT_S}s")
    except (OSError, TimeoutError) as exc:
        raise BackendUnavailableError(f"cannot reach the Dask scheduler at {address}: "
                                      f"{exc}") from None


def _scheduler_address(address: str) -> str:
    """``address`` checked as a Dask address (``host:port`` is TCP), normalised."""
    from distributed.comm.addressing import parse_address, parse_host_port
    from distributed.comm.registry import get_backend

    address = address.strip()
    example = "give host:port or tcp://host:port, e.g. --scheduler tcp://10.0.0.5:8786"
    if not address:
        raise TricountError(f"--scheduler needs the scheduler's address; {example}")
    try:
        scheme, location = parse_address(address if "://" in address else "tcp://" + address)
        get_backend(scheme)  # an unknown scheme, or one whose library is missing (ucx)
        port = parse_host_port(location)[1] if scheme in ("tcp", "tls") else 1
    except (ValueError, TypeError, ImportError) as exc:
        raise TricountError(f"--scheduler {address!r} is not a Dask scheduler address "
                            f"({exc}); {example}") from None
    if not 0 < port < 65536:
        raise TricountError(f"--scheduler {address!r}: port {port} is outside 1-65535; "
                            f"{example}")
    return f"{scheme}://{location}"


def _probe_scheduler(address: str) -> None:
    """Open one connection to ``address`` and complete Dask's handshake within
    :data:`SCHEDULER_TIMEOUT_S`, or raise :class:`BackendUnavailableError`."""
    import asyncio

    from distributed.comm import connect

    from tricount.errors import BackendUnavailableError

    async def handshake():
        comm = await asyncio.wait_for(connect(address, timeout=SCHEDULER_TIMEOUT_S),
                                      SCHEDULER_TIMEOUT_S)
        await comm.close()

    try:
        asyncio.run(handshake())
    except (asyncio.TimeoutError, TimeoutError):
        raise BackendUnavailableError(
            f"the server at {address} did not answer as a Dask scheduler within "
            f"{SCHEDULER_TIMEOUT_S} s (is that the scheduler's port? dask-scheduler listens "
            "on 8786 by default)") from None
    except (OSError, ValueError, TypeError) as exc:  # refused, no such address, no ucx
        raise BackendUnavailableError(f"cannot reach the Dask scheduler at {address}: "
                                      f"{str(exc) or type(exc).__name__}") from None
    except Exception as exc:  # what a non-Dask server's bytes decode to (MemoryError, ...)
        raise BackendUnavailableError(
            f"the server at {address} does not speak Dask's protocol "
            f"({type(exc).__name__}); is that the scheduler's address?") from None


def run(args) -> int:
    import tricount
    from tricount.graph import CSRGraph

    check_outputs(args, (args.per_vertex, args.per_edge))
    count_options = parse_options(args.option)
    parts = options.partition_options(args)
    if args.scheduler is not None and args.backend != "auto":
        raise TricountError(f"--scheduler counts on a Dask cluster; it takes no --backend "
                            f"(got {args.backend})")
    if args.scheduler is not None and (args.per_vertex or args.per_edge):
        raise TricountError("--per-vertex and --per-edge are counted on this machine; they "
                            "take no --scheduler (drop it, or count the total alone there)")
    t0 = time.perf_counter()
    graph, load_s, build_s = None, None, 0.0
    if args.path is None:
        src, dst, name = example_edges()
        load_s = time.perf_counter() - t0
        graph = CSRGraph.from_edges(src, dst, name=name)
        build_s = time.perf_counter() - t0 - load_s
        source = graph
    elif (parts or args.scheduler is not None or _gpu_reads_native(args)) and not (
            args.verify or args.per_vertex or args.per_edge or args.format != "auto"):
        source = args.path  # the partition layer reads it (or its Dask workers do)
    else:
        device = _load_device(args)
        loaded = options.load(args, device=device,
                              parser=route_parser(args) if device == "cpu" else "auto")
        graph = source = loaded.graph
        load_s, build_s = loaded.timings["load_s"], loaded.timings["build_s"]
    client = None
    if args.scheduler is not None:
        if isinstance(source, str):
            from tricount.io.source import check_readable

            check_readable(source)  # before waiting on the scheduler; its workers read it
        client = dask_client(args.scheduler)
    try:
        with options.step("counting triangles"):
            result = tricount.count(source, backend="dask" if client else args.backend,
                                    method=args.method, client=client, **parts,
                                    **count_options)
    finally:
        if client is not None:
            client.close()
    if load_s is not None:
        result.timings["load_s"] = load_s
        result.timings["preprocess_s"] += build_s
    result.timings["total_s"] = time.perf_counter() - t0
    status = options.EXIT_OK
    report = result.to_dict()
    if graph is not None:
        report.update(write_tables(args, graph, result.backend))
    if args.verify:
        expected = tricount.count_triangles(graph, backend="reference")
        report["verified"] = expected == result.n_triangles
        report["reference_triangles"] = expected
        if expected != result.n_triangles:
            status = options.EXIT_VERIFY_FAILED
    out = options.answer_stream(args.per_vertex, args.per_edge)
    if args.json:
        print(json.dumps(report), file=out)
        return status
    print(result.n_triangles, file=out)
    facts = result.graph
    empty = " (the graph is empty)" if facts["edges"] == 0 else ""
    parted = ""
    if result.partition is not None:
        parted = (f"; {result.partition['subproblems']} sub-problem(s) on "
                  f"{', '.join(result.partition['where'])}")
    options.say(args, f"{facts['graph']}: {facts['vertices']} vertices, {facts['edges']} edges"
                      f"{empty}; {result.backend}/{result.method}, total "
                      f"{result.timings['total_s']:.3f} s, count {result.timings['count_s']:.3f} s"
                      f"{parted}")
    if args.verify:
        verdict = ("PASS" if status == options.EXIT_OK
                   else f"FAIL (reference says {report['reference_triangles']})")
        print(f"verification: {verdict}", file=sys.stderr)
    return status


def write_tables(args, graph, backend: str) -> dict:
    """Write the --per-vertex / --per-edge tables; returns fields for the report.

    ``backend`` is the one the count ran on, so every number comes from one place.
    """
    import tricount
    from tricount.io.tables import write_table

    report = {}
    if args.per_vertex:
        per_vertex = tricount.triangles(graph, backend=backend)
        write_table(args.per_vertex, {"vertex": options.id_column(graph),
                                      "triangles": per_vertex})
        report["per_vertex_file"] = args.per_vertex
        options.say_written(args, f"wrote triangles at {graph.n_vertices} vertices to "
                                  f"{args.per_vertex}")
    if args.per_edge:
        support = tricount.edge_support(graph, backend=backend)
        lo, hi = graph.edges()
        write_table(args.per_edge, {"source": options.id_column(graph, lo),
                                    "target": options.id_column(graph, hi),
                                    "triangles": support})
        report["per_edge_file"] = args.per_edge
        options.say_written(args, f"wrote triangles on {graph.n_edges} edges to {args.per_edge}")
    return report
