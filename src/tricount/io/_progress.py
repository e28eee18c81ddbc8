"""The byte bar of a read: :class:`tricount._progress.Progress` (see there)."""

from __future__ import annotations

from tricount._progress import PROGRESS_DELAY_S, Progress, Ticker

__all__ = ["PROGRESS_DELAY_S", "Progress", "Ticker"]
