"""Load, compile and memoize the CUDA kernels of ``tricount/gpu/kernels``.

Each ``.cu`` file is read with :mod:`importlib.resources`, every quoted
``#include "<name>.cuh"`` replaced by that header's text (with ``#line``
markers, so compiler messages still name the right file and line), and
compiled with NVRTC through :class:`cupy.RawModule` on first use. Tunables
reach the source as ``-D`` defines over the file's ``#ifndef`` defaults. A
compiled module is memoized per (device, file, defines), and loading it
looks up each kernel by its exact name from :data:`ENTRY_POINTS`.
"""

from __future__ import annotations

import functools
import importlib.resources
import re

from tricount.errors import TricountError

__all__ = ["ENTRY_POINTS", "LOCAL_ENTRY_POINTS", "get_kernel", "kernel_source"]

#: Every ``extern "C"`` kernel, as (source stem, name). scripts/compile_kernels.sh
#: checks that this list and the sources agree.
ENTRY_POINTS = (
    ("merge", "tc_merge"),
    ("binary", "tc_binary_thread"),
    ("binary", "tc_binary_warp"),
    ("dynamic", "tc_dynamic"),
    ("bitmap", "tc_bitmap_shared"),
    ("bitmap", "tc_bitmap_global"),
    ("shared", "tc_shared"),
    ("radix", "tc_radix_wedges"),
    ("radix", "tc_radix_split_e"),
    ("radix", "tc_radix_histogram"),
    ("radix", "tc_radix_move"),
    ("hash", "tc_hash"),
    ("wedge", "tc_wedge"),
    ("wedge_fp", "tc_wedge_fp"),
    ("wedge_fp", "tc_wedge_fp_layout"),
    ("bitwedge", "tc_bitwedge"),
    ("timing", "tc_hold_stream"),
    ("per_vertex", "tc_per_vertex"),
    ("edge_support", "tc_edge_support"),
    ("truss", "tc_truss_peel"),
    ("prep", "tc_prep_edge_keys"),
    ("prep", "tc_prep_pair_flags"),
    ("prep", "tc_prep_unpack"),
    ("prep", "tc_prep_rank_keys"),
    ("prep", "tc_prep_plan_keys"),
    ("prep", "tc_prep_task_starts"),
    ("prep", "tc_prep_histogram"),
    ("slice", "tc_slice_out_degree"),
    ("slice", "tc_slice_rank_keys"),
    ("slice", "tc_slice_owner_pairs"),
    ("slice", "tc_slice_plan_keys"),
    ("slice", "tc_slice_low_ids"),
)

#: The kernels of the local computations (per vertex, per edge, truss).
LOCAL_ENTRY_POINTS = tuple(e for e in ENTRY_POINTS if e[0] in ("per_vertex", "edge_support", "truss"))

_INCLUDE = re.compile(r'^#include "([A-Za-z0-9_]+\.cuh)"[ \t]*$', re.MULTILINE)
#: NVRTC flags used for every file (CuPy adds the device's -arch itself).
NVRTC_OPTIONS = ("--std=c++17",)


def _read(name: str) -> str:
    return importlib.resources.files("tricount.gpu.kernels").joinpath(name).read_text()


def _paste(name: str, text: str) -> str:
    """Replace each quoted ``.cuh`` include by the header's text, recursively.

    The headers carry include guards, so a header pasted twice compiles once.
    """
    def include(match):
        header = match.group(1)
        line_after = text.count("\n", 0, match.start()) + 2  # the line after the include
        return (f'#line 1 "{header}"\n{_paste(header, _read(header))}\n'
                f'#line {line_after} "{name}"')

    return _INCLUDE.sub(include, text)


@functools.lru_cache(maxsize=None)
def kernel_source(stem: str) -> str:
    """The full source of ``kernels/<stem>.cu`` with its headers pasted in."""
    return _paste(f"{stem}.cu", _read(f"{stem}.cu"))


def _define_flags(defines: tuple) -> tuple:
    return tuple(f"-D{name}={value}" for name, value in defines)


@functools.lru_cache(maxsize=None)
def _module(device_id: int, stem: str, defines: tuple):
    import cupy

    with cupy.cuda.Device(device_id):
        return cupy.RawModule(code=kernel_source(stem),
                              options=NVRTC_OPTIONS + _define_flags(defines))


@functools.lru_cache(maxsize=None)
def _kernel(device_id: int, stem: str, name: str, defines: tuple):
    import cupy

    with cupy.cuda.Device(device_id):
        try:
            kernel = _module(device_id, stem, defines).get_function(name)
        except cupy.cuda.compiler.CompileException as exc:
            raise TricountError(f"kernels/{stem}.cu failed to compile with {defines}: {exc}") from exc
        kernel.num_regs  # forces the load now, not inside a timed region
        return kernel


def get_kernel(stem: str, name: str, **defines):
    """The compiled kernel ``name`` of ``kernels/<stem>.cu`` for the current device.

    ``defines`` become ``-DTC_<NAME>=value`` flags, e.g. ``block_size=64`` gives
    ``-DTC_BLOCK_SIZE=64``. Compiled once per (device, file, defines).
    """
    import cupy

    if (stem, name) not in ENTRY_POINTS:
        raise TricountError(f"no kernel {name!r} in kernels/{stem}.cu; see ENTRY_POINTS")
    key = tuple(sorted((f"TC_{k.upper()}", str(v)) for k, v in defines.items()))
    return _kernel(cupy.cuda.Device().id, stem, name, key)
