"""Copies between the GPUs of one host.

With unified addressing (every 64-bit CUDA platform) one ``cudaMemcpyAsync``
moves bytes from any device to any other: over NVLink or PCIe directly once
peer access is enabled, through host memory otherwise. Peer access only makes
the copy faster, so failing to enable it is not an error.
"""

from __future__ import annotations

import functools

from tricount.errors import TricountError
from tricount.gpu.device import cupy

__all__ = ["enable_peer_access", "copy_from_peer"]


@functools.lru_cache(maxsize=None)
def _enable(device_id: int, peer_id: int) -> bool:
    cp = cupy()
    if device_id == peer_id or not cp.cuda.runtime.deviceCanAccessPeer(device_id, peer_id):
        return False
    with cp.cuda.Device(device_id):
        try:
            cp.cuda.runtime.deviceEnablePeerAccess(peer_id)
        except cp.cuda.runtime.CUDARuntimeError:
            pass  # already enabled (by CuPy or by another caller): the copy is direct anyway
    return True


def enable_peer_access(device_id: int, peer_ids) -> None:
    """Let ``device_id`` read the memory of every device in ``peer_ids`` directly (once per
    process and pair; a pair that cannot is left to copy through the host)."""
    for peer in peer_ids:
        _enable(int(device_id), int(peer))


def copy_from_peer(dst, src, stream) -> None:
    """``dst[...] = src`` on ``stream``, the two contiguous arrays of one dtype and size on any
    devices (the same one included)."""
    if dst.dtype != src.dtype or dst.shape != src.shape:
        raise TricountError(f"a copy between devices needs equal arrays, not {src.dtype}"
                            f"{src.shape} into {dst.dtype}{dst.shape}")
    if src.nbytes:
        dst.data.copy_from_device_async(src.data, src.nbytes, stream)
