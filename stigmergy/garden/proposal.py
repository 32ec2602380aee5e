"""What every maintenance operation proposes: changes rendered by code, the operation they belong to, and
a report for the user and the change record. The gates judge it like any plan (`gates.engine.judge`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from stigmergy.gates.engine import OperationInfo
from stigmergy.repo.trailers import TRAILER_INTO, TRAILER_MOVE, TRAILER_PAGE, TRAILER_TARGET


@dataclass(frozen=True)
class Proposal:
    op: OperationInfo
    title: str  # the commit subject after "<kind>: "
    changes: dict[str, str | None]
    report: dict[str, Any] = field(default_factory=dict)  # counts and lists, JSON-ready
    records: tuple[str, ...] = ()  # what the operation did, line by line (kept in the change record)
    nothing: str | None = None  # why nothing is proposed (then `changes` is empty)
    page_ids: tuple[str, ...] = ()  # the page acted on (and for a merge the page kept), by id

    @property
    def trailers(self) -> dict[str, str]:
        """What the commit claims besides its kind, so the history audit can verify it (gates/history.py)."""
        out = {}
        if self.op.kind in ("delete", "rename") and self.op.targets:
            out[TRAILER_TARGET] = self.op.targets[0]
        if self.op.moves:
            out[TRAILER_MOVE] = f"{self.op.moves[0][0]} -> {self.op.moves[0][1]}"
        if self.page_ids:
            out[TRAILER_PAGE] = self.page_ids[0]
        if len(self.page_ids) > 1:
            out[TRAILER_INTO] = self.page_ids[1]
        return out
