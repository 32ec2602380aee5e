"""What front ends hand the service and get back, beyond the library's own outcome values."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from stigmergy.capture.inputs import InputItem, Skipped
    from stigmergy.gates.history import HistoryAudit
    from stigmergy.gates.lint import LintReport
    from stigmergy.write.capture import CaptureOutcome, CaptureReport


@dataclass(frozen=True)
class CaptureRequest:
    """A capture as a front end received it: files or directories (`inputs`), `text`, or standard input
    (`-` among the inputs, read with `stdin`), and the options of every capture of the batch."""

    inputs: tuple[str, ...] = ()
    text: str | None = None
    stdin: Callable[[], bytes] | None = None
    include: tuple[str, ...] = ()  # globs of files to take from directories (default: [capture] include)
    exclude: tuple[str, ...] = ()  # globs to skip, beside [capture] exclude
    hidden: bool = False  # take dot-files and what Git ignores from directories too (the user's flag only)
    title: str | None = None
    occurred_at: str | None = None
    submitted_by: str | None = None  # default: the caller's identity
    layer: str = "public"
    project: str | None = None
    resolves: str | None = None
    rationale: str | None = None
    force: bool = False
    file: bool = True
    redact: bool = False
    origin: str = "cli"


@dataclass(frozen=True)
class Gathered:
    """A capture request checked and expanded into inputs (nothing read, stored or locked yet): the inputs
    to capture, the arguments that failed (a missing path), and directory entries skipped."""

    request: CaptureRequest
    options: Any  # capture.queue.CaptureOptions
    items: tuple[InputItem, ...]
    failed: tuple[CaptureOutcome, ...]
    skipped: tuple[Skipped, ...]


@dataclass(frozen=True)
class Captured:
    """What a capture did: the report (outcomes of the batch, captures `resume` finished first) and the
    directory entries skipped."""

    report: CaptureReport
    skipped: tuple[Skipped, ...] = ()

    @property
    def exit_code(self) -> int:
        return self.report.exit_code

    def to_dict(self) -> dict[str, Any]:
        return {**self.report.to_dict(), "skipped": [{"locator": s.locator, "reason": s.reason} for s in self.skipped]}


@dataclass(frozen=True)
class LintResult:
    """Lint as the reader may see it: the contract findings of their layers, the history audit's findings
    of their layers, and counts of what lies in the others."""

    report: LintReport  # scoped to the reader's layers
    history: HistoryAudit  # every finding (ok, commits, head)
    shown: HistoryAudit  # the findings in the reader's layers
    history_hidden: int
    accepted: bool  # --accept-history marked the history up to HEAD as reviewed

    @property
    def history_fails(self) -> bool:
        return not self.history.ok and not self.accepted

    @property
    def ok(self) -> bool:
        return self.report.ok and not self.history_fails

    def to_dict(self) -> dict[str, Any]:
        return {**self.report.to_dict(), "ok": self.ok,
                "history": {**self.shown.to_dict(), "ok": self.history.ok, "hidden": self.history_hidden}}


def replace_findings(history: HistoryAudit, findings: Sequence[Any]) -> HistoryAudit:
    return dataclasses.replace(history, findings=tuple(findings))


__all__ = ["CaptureRequest", "Captured", "Gathered", "LintResult"]
