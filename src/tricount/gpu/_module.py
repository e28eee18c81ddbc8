"""Load, compile and memoize the CUDA kernels of ``tricount/gpu/kernels``.

Each ``.cu`` file is read with :mod:`importlib.resources`, every quoted
``#include "<name>.cuh"`` replaced by that header's text (with ``#line``
markers, so compiler messages still name the right file and line), and
compiled with NVRTC through :class:`cupy.RawModule` on first use. A compiled
module is memoized per (device, file, defines), and loading it looks up each
kernel by its exact name from :data:`ENTRY_POINTS`.

The defines are written as ``#define`` lines at the top of the source, not
passed as ``-D`` flags, so that every module is compiled with the same options
as CuPy's own kernels. CuPy's disk cache keys each module by its options and
the compiler's version, which it learns by compiling an empty program once per
distinct set of options in a process: about 20 ms each, paid by a first count
even when every module comes from the disk cache (issue 25). The source carries
the defines, so distinct defines are still distinct cache entries.

Defines come from Python, all of them: a launch passes a value for every
``#ifndef TC_X`` / ``#define TC_X value`` default of its file (headers
included), or :func:`get_kernel` refuses it, so the ``.cu`` defaults never
decide what runs. Each launcher builds its file's defines from its launch
shape and keeps the defaults' table (``DEFAULT_DEFINES``), which a CPU test
compares with the file's ``#ifndef`` values so that the two cannot drift.

Kernels outside the package (``benchmarks/baselines``) pass ``folder=``; their
headers are read from that folder first, then from the package.
"""

from __future__ import annotations

import functools
import importlib.resources
import re
from pathlib import Path

from tricount.errors import TricountError
from tricount.gpu.device import cupy

__all__ = ["ENTRY_POINTS", "LOCAL_ENTRY_POINTS", "get_kernel", "kernel_source", "module_code",
           "source_defaults", "define_flags", "checked_flags"]

#: Every ``extern "C"`` kernel of the package, as (source stem, name).
#: scripts/compile_kernels.sh checks that this list and the sources agree.
ENTRY_POINTS = (
    ("hash", "tc_hash"),
    ("wedge", "tc_wedge"),
    ("wedge_fp", "tc_wedge_fp"),
    ("wedge_fp", "tc_wedge_fp_layout"),
    ("bitwedge", "tc_bitwedge"),
    ("timing", "tc_hold_stream"),
    ("per_vertex", "tc_per_vertex"),
    ("edge_support", "tc_edge_support"),
    ("truss", "tc_truss_peel"),
    ("listing", "tc_list_count"),
    ("listing", "tc_list_write"),
    ("directed", "tc_directed"),
    ("weighted", "tc_weighted"),
    ("prep", "tc_prep_edge_keys"),
    ("prep", "tc_prep_pair_flags"),
    ("prep", "tc_prep_unpack"),
    ("prep", "tc_prep_rank_keys"),
    ("prep", "tc_prep_plan_keys"),
    ("prep", "tc_prep_task_starts"),
    ("prep", "tc_prep_histogram"),
    ("slice", "tc_slice_out_degree"),
    ("slice", "tc_slice_rank_keys"),
    ("slice", "tc_slice_rank_keys_by_share"),
    ("slice", "tc_slice_owner_pairs"),
    ("slice", "tc_slice_plan_keys"),
    ("slice", "tc_slice_low_ids"),
    ("slice", "tc_slice_scatter"),
    ("slice", "tc_slice_row_keys"),
    ("slice", "tc_slice_block_pairs"),
    ("slice", "tc_slice_block_pair_count"),
    ("slice", "tc_slice_csr_pairs"),
    ("slice", "tc_slice_owner_work"),
    ("slice", "tc_slice_entry_rows"),
    ("slice", "tc_slice_row_lengths"),
    ("small", "tc_small_degrees"),
    ("small", "tc_small_orient"),
    ("small", "tc_small_place"),
    ("small", "tc_small_count"),
    ("small", "tc_small_count_bits"),
)

#: The kernels of the local computations (per vertex, per edge, truss).
LOCAL_ENTRY_POINTS = tuple(e for e in ENTRY_POINTS if e[0] in ("per_vertex", "edge_support", "truss"))

_INCLUDE = re.compile(r'^#include "([A-Za-z0-9_]+\.cuh)"[ \t]*$', re.MULTILINE)
#: ``#ifndef TC_X`` directly followed by ``#define TC_X value`` (a trailing comment dropped).
_DEFAULT = re.compile(r"^#ifndef (TC_\w+)[ \t]*\n#define \1[ \t]+(.*?)[ \t]*(?://.*)?$",
                      re.MULTILINE)
#: NVRTC flags used for every file: CuPy's own default, so that its kernels and ours share
#: one set of options (CuPy adds the device's -arch and its include paths itself).
NVRTC_OPTIONS = ("--std=c++17",)


def _read(name: str, folder: str | None) -> str:
    if folder is not None and (Path(folder) / name).is_file():
        return (Path(folder) / name).read_text()
    return importlib.resources.files("tricount.gpu.kernels").joinpath(name).read_text()


def _paste(name: str, text: str, folder: str | None) -> str:
    """Replace each quoted ``.cuh`` include by the header's text, recursively.

    The headers carry include guards, so a header pasted twice compiles once.
    """
    def include(match):
        header = match.group(1)
        line_after = text.count("\n", 0, match.start()) + 2  # the line after the include
        return (f'#line 1 "{header}"\n{_paste(header, _read(header, folder), folder)}\n'
                f'#line {line_after} "{name}"')

    return _INCLUDE.sub(include, text)


@functools.lru_cache(maxsize=None)
def kernel_source(stem: str, folder: str | None = None) -> str:
    """The full source of ``<stem>.cu`` (in ``folder``, else the package's kernels)
    with its headers pasted in."""
    return _paste(f"{stem}.cu", _read(f"{stem}.cu", folder), folder)


@functools.lru_cache(maxsize=None)
def source_defaults(stem: str, folder: str | None = None) -> dict:
    """``{"TC_X": "value"}``: the default each ``#ifndef TC_X`` of the pasted source
    gives, the first one where a file and a header both give one (the
    preprocessor keeps the first)."""
    defaults = {}
    for name, value in _DEFAULT.findall(kernel_source(stem, folder)):
        defaults.setdefault(name, value)
    return defaults


def define_flags(defines: dict) -> dict:
    """``{"block_size": 64}`` as ``{"TC_BLOCK_SIZE": "64"}``; booleans as 0 or 1."""
    return {f"TC_{k.upper()}": str(int(v) if isinstance(v, bool) else v)
            for k, v in defines.items()}


def module_code(stem: str, defines: tuple, folder: str | None = None) -> str:
    """The text NVRTC compiles: a ``#define`` line for each ``(name, value)`` of
    ``defines``, then :func:`kernel_source` numbered from its own line 1."""
    head = "".join(f"#define {k} {v}\n" for k, v in defines)
    return f'{head}#line 1 "{stem}.cu"\n{kernel_source(stem, folder)}'


@functools.lru_cache(maxsize=None)
def _module(device_id: int, stem: str, folder: str | None, defines: tuple):
    cp = cupy()
    with cp.cuda.Device(device_id):
        return cp.RawModule(code=module_code(stem, defines, folder), options=NVRTC_OPTIONS)


@functools.lru_cache(maxsize=None)
def _kernel(device_id: int, stem: str, name: str, folder: str | None, defines: tuple):
    cp = cupy()
    with cp.cuda.Device(device_id):
        try:
            kernel = _module(device_id, stem, folder, defines).get_function(name)
        except cp.cuda.compiler.CompileException as exc:
            raise TricountError(f"{stem}.cu failed to compile with {defines}: {exc}") from exc
        kernel.num_regs  # forces the load now, not inside a timed region
        return kernel


def get_kernel(stem: str, name: str, defines: dict, *, folder: str | None = None):
    """The compiled kernel ``name`` of ``<stem>.cu`` for the current device.

    ``defines`` holds a value for every ``#ifndef`` default of the file
    (:func:`source_defaults`), e.g. ``block_size=64`` for ``-DTC_BLOCK_SIZE=64``;
    a missing or unknown one raises :class:`TricountError`. Compiled once per
    (device, file, defines).
    """
    if folder is None and (stem, name) not in ENTRY_POINTS:
        raise TricountError(f"no kernel {name!r} in kernels/{stem}.cu; see ENTRY_POINTS")
    flags = checked_flags(stem, defines, folder)
    return _kernel(cupy().cuda.Device().id, stem, name, folder, tuple(sorted(flags.items())))


def checked_flags(stem: str, defines: dict, folder: str | None = None) -> dict:
    """:func:`define_flags` of ``defines``, which must name every ``#ifndef`` default of
    ``<stem>.cu`` and nothing else (:class:`TricountError` otherwise)."""
    flags = define_flags(defines)
    declared = source_defaults(stem, folder)
    if flags.keys() != declared.keys():
        missing, unknown = sorted(declared.keys() - flags), sorted(flags.keys() - declared)
        raise TricountError(f"{stem}.cu: every define must be passed; missing {missing}, "
                            f"unknown {unknown}")
    return flags
