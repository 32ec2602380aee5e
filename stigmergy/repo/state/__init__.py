"""The state store: the bookkeeping of one repository (the capture queue, the capture catalogue, the
operations and their change records, in-flight pre-images), a cache of what Git says.

`StateStore` (protocol.py) names every question the write path and the reads ask of it, and what crosses
it is a frozen value (`OperationRow`, `CaptureRow`, `PendingCapture`, `OperationRecord`). Each backend is
one module holding every statement it runs: `sqlite.py` (`StateDB`, `.stigmergy/state.sqlite`) today.
"""

from __future__ import annotations

from stigmergy.repo.state.protocol import (
    CaptureRow,
    OperationRecord,
    OperationRow,
    PendingCapture,
    StateStore,
)
from stigmergy.repo.state.sqlite import _MIGRATIONS, StateDB

__all__ = ["_MIGRATIONS", "CaptureRow", "OperationRecord", "OperationRow", "PendingCapture", "StateDB", "StateStore"]
