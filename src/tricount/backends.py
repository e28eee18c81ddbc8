"""Choosing a backend: explicit names raise when unusable; only ``auto`` falls back."""

from __future__ import annotations

import logging

from tricount.errors import BackendUnavailableError, TricountError

BACKENDS = ("auto", "cpu", "gpu", "reference")

log = logging.getLogger("tricount")


def select_backend(requested: str) -> tuple[str, str]:
    """Return ``(backend, reason)`` for a requested backend name."""
    if requested not in BACKENDS:
        raise TricountError(f"unknown backend {requested!r}; choose one of {', '.join(BACKENDS)}")
    if requested in ("cpu", "reference"):
        return requested, "requested"
    from tricount.gpu import probe

    usable, why = probe()
    if requested == "gpu":
        if not usable:
            raise BackendUnavailableError(f"backend 'gpu' is unavailable: {why}")
        return "gpu", f"requested; {why}"
    if usable:
        return "gpu", f"auto: {why} is usable"
    reason = f"auto: no usable GPU ({why}), using the CPU"
    log.info(reason)
    return "cpu", reason


def engine_for(backend: str):
    """The module implementing ``count(graph, *, method)`` for a backend."""
    if backend == "cpu":
        from tricount.cpu import engine
    elif backend == "gpu":
        from tricount.gpu import engine
    else:
        from tricount import reference_engine as engine
    return engine
