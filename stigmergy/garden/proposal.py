"""What every maintenance operation proposes: changes rendered by code, the operation they belong to, and
a report for the user and the change record. The gates judge it like any plan (`gates.engine.judge`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from stigmergy.gates.engine import OperationInfo


@dataclass(frozen=True)
class Proposal:
    op: OperationInfo
    title: str  # the commit subject after "<kind>: "
    changes: dict[str, str | None]
    report: dict[str, Any] = field(default_factory=dict)  # counts and lists, JSON-ready
    records: tuple[str, ...] = ()  # what the operation did, line by line (kept in the change record)
    nothing: str | None = None  # why nothing is proposed (then `changes` is empty)
