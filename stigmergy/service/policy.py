"""How each operation that writes treats the writer lock and the work a crash left: declared once here,
applied by `WikiService._writing` (tests/test_service.py runs each policy)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Recovery(Enum):
    # Finish what a crash interrupted (an erase, then pending captures) and rebuild the bookkeeping.
    RESUME = "resume"
    # The same, only when no capture is pending: the operation refuses pending captures itself, with its
    # own message, rather than filing them as a side effect (recompile).
    RESUME_IF_IDLE = "resume-if-idle"
    # Finish nothing and refuse to start while a capture or an erase waits (import replays a bundle onto
    # a repository at rest, or not at all).
    REFUSE_PENDING = "refuse-pending"
    # Finish nothing: the operation checks the repository itself (erase refuses pending work; a journaled
    # erase is finished by `resume`).
    NONE = "none"
    # The operation runs `resume` as its own first step and reports it (maintain).
    OWN_STEP = "own-step"


@dataclass(frozen=True)
class WritePolicy:
    wait: bool  # wait `[lock] timeout_seconds` for another writer, or refuse at once
    recovery: Recovery


RESUMING = WritePolicy(wait=True, recovery=Recovery.RESUME)

WRITE_POLICIES: dict[str, WritePolicy] = {
    "capture": RESUMING,
    "file": RESUMING,
    "resume": RESUMING,
    "garden": RESUMING,
    "delete": RESUMING,
    "merge": RESUMING,
    "rename": RESUMING,
    "recompile": WritePolicy(wait=True, recovery=Recovery.RESUME_IF_IDLE),
    "import": WritePolicy(wait=True, recovery=Recovery.REFUSE_PENDING),
    # An erase rewrites history: it waits for nobody and is refused at once while another writer works.
    "erase": WritePolicy(wait=False, recovery=Recovery.NONE),
    # A maintainer's verify / invalidate / reinstate commits the open feedback batches: it waits for a
    # writer like any judgement, and finishes nobody's captures (a click is not a filing run).
    "trust": WritePolicy(wait=True, recovery=Recovery.NONE),
    # Overlapping scheduler runs are normal: the second one skips, it never queues.
    "maintain": WritePolicy(wait=False, recovery=Recovery.OWN_STEP),
}

# Reading operations whose answer comes from the state database: it is a cache of Git, brought up to date
# first (never waiting for a writer: one that holds the lock keeps it current itself).
BOOKKEEPING_READS = frozenset({"log", "show", "status", "fsck"})
