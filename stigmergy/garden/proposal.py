"""What every maintenance operation proposes: changes rendered by code, the operation they belong to, and
a report for the user and the change record. The gates judge it like any plan (`gates.engine.judge`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from stigmergy.gates.engine import OperationInfo, Verdict


@dataclass(frozen=True)
class Proposal:
    op: OperationInfo
    title: str  # the commit subject after "<kind>: "
    changes: dict[str, str | None]
    report: dict[str, Any] = field(default_factory=dict)  # counts and lists, JSON-ready
    records: tuple[str, ...] = ()  # what the operation did, line by line (kept in the change record)
    nothing: str | None = None  # why nothing is proposed (then `changes` is empty)


@dataclass(frozen=True)
class Outcome:
    """What a maintenance operation did (or would do, with --dry-run)."""

    kind: str
    status: str  # committed | nothing | refused | dry-run
    message: str
    op_id: str | None = None
    commit: str | None = None
    paths: tuple[tuple[str, str], ...] = ()  # (action, path)
    report: dict[str, Any] = field(default_factory=dict)
    records: tuple[str, ...] = ()
    violations: tuple[dict[str, Any], ...] = ()

    @property
    def exit_code(self) -> int:
        return 3 if self.status == "refused" else 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "status": self.status,
            "message": self.message,
            "operation": self.op_id,
            "commit": self.commit,
            "paths": [{"action": a, "path": p} for a, p in self.paths],
            "report": self.report,
            "records": list(self.records),
            "violations": list(self.violations),
        }


def violations_of(verdict: Verdict) -> tuple[dict[str, Any], ...]:
    return tuple({"rule": v.rule, "path": v.path, "message": v.message, "lines": list(v.lines)} for v in verdict.violations)


def actions(changes: dict[str, str | None], exists: Any) -> tuple[tuple[str, str], ...]:
    """(action, path) for each change; `exists(path)` says whether the path is on disk now."""
    return tuple(
        ("delete" if text is None else ("modify" if exists(rel) else "add"), rel) for rel, text in sorted(changes.items())
    )
