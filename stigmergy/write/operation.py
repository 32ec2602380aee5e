"""The steps every write pipeline shares: start an operation, judge a plan at the gates, and commit (or
record the refusal of) its changes as one Git commit with trailers plus a change record.

A pipeline (capture, file, and each one to come: garden, recompile, delete, merge, rename, erase,
import) is a function in `stigmergy.write` that, with the writer lock held and `resume` already run:

    op = Operation.start("delete")
    verdict = judge(repo, plan, op.info())            # the preservation gates; a verdict, never an exception
    # (or judge_changes(repo, changes, op.info()) for changes the pipeline rendered itself)
    outcome = commit_verdict(repo, op, title, verdict, manifest={...})

`commit_verdict` commits the verdict's changes when the gates accept and records a refused operation
(nothing written) when they do not. Pipelines that add their own changes (a source page) call `commit`
directly with `refusal(verdict)` for the reasons.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stigmergy.gates.authorship import Authorship, CommitHistory
from stigmergy.gates.context import OperationInfo
from stigmergy.gates.engine import Verdict, evaluate
from stigmergy.gates.engine import judge as judge_rendered
from stigmergy.plan.schema import Plan
from stigmergy.repo.ids import new_id
from stigmergy.repo.operations import CommitRequest, Repository, apply_and_commit, utc_now
from stigmergy.repo.state import CaptureRow, OperationRow


@dataclass(frozen=True)
class Operation:
    """One write operation in flight: the id and kind its commit trailers and change record carry, and
    the time its pages are stamped with (never the wall clock at the gates)."""

    op_id: str
    kind: str
    started_at: str

    @classmethod
    def start(cls, kind: str, op_id: str | None = None, started_at: str | None = None) -> Operation:
        return cls(op_id or new_id("op"), kind, started_at or utc_now())

    def info(self, **source: Any) -> OperationInfo:
        """What the gates know about this operation; `source` names the capture it files, if any."""
        return OperationInfo(op_id=self.op_id, kind=self.kind, timestamp=self.started_at, **source)


@dataclass(frozen=True)
class Refusal:
    violations: tuple[dict[str, Any], ...]
    rule: str
    message: str


def refusal(verdict: Verdict) -> Refusal:
    """The violations as records for the change record, the first rule, and a one-line message."""
    violations: tuple[dict[str, Any], ...] = tuple(
        {"rule": v.rule, "path": v.path, "message": v.message, "lines": list(v.lines)} for v in verdict.violations
    )
    rule = violations[0]["rule"]
    return Refusal(violations, rule, f"refused by gate {rule}: {violations[0]['message']}")


def commit_history(repo: Repository) -> CommitHistory:
    """The human-line gate's view of the history, kept with `repo` (so filing a folder reads `git log`
    once, not once per capture) and told of each commit `commit` makes."""
    history = repo.kept.get(CommitHistory)
    if history is None:
        history = repo.kept[CommitHistory] = CommitHistory()
    return history


def authorship(repo: Repository) -> Authorship:
    """Which lines of `repo`'s pages a person wrote, over the history kept with `repo`."""
    return Authorship(repo.root, repo.git, commit_history(repo))


def judge(repo: Repository, plan: Plan, op: OperationInfo) -> Verdict:
    """The gates' verdict on a plan (a planner's proposal)."""
    return evaluate(plan, repo.root, repo.settings, op, authorship(repo))


def judge_changes(
    repo: Repository, changes: Mapping[str, str | None], op: OperationInfo, records: tuple[str, ...] = ()
) -> Verdict:
    """The gates' verdict on changes code rendered itself (garden, delete, merge, rename, recompile)."""
    return judge_rendered(changes, repo.root, repo.settings, op, records, authorship(repo))


def commit(
    repo: Repository,
    op: Operation,
    title: str,
    changes: Mapping[str, str | None],
    *,
    summary: str = "",
    manifest: dict[str, Any] | None = None,
    status: str = "committed",
    capture: CaptureRow | None = None,
    queue_capture_id: str | None = None,
    track_inflight: bool = True,
    new_paths: frozenset[str] = frozenset(),
    trailers: Mapping[str, str] | None = None,
) -> OperationRow:
    """Write `changes`, commit them with the operation's trailers, and record the operation."""
    history = commit_history(repo)
    request = CommitRequest(
        op_id=op.op_id, kind=op.kind, title=title, changes=changes, started_at=op.started_at, summary=summary,
        manifest=manifest, status=status, capture=capture, queue_capture_id=queue_capture_id,
        track_inflight=track_inflight, new_paths=new_paths, trailers=trailers,
    )
    return apply_and_commit(
        repo,
        request,
        # The human-line gate keeps the history it has read; tell it of our commit so the next plan
        # need not run `git log`.
        listeners=(lambda root, parent, sha, paths: _record(repo, history, root, parent, sha, list(paths)),),
    )


def _record(repo: Repository, history: CommitHistory, root: Path, parent: str | None, sha: str, paths: list[str]) -> None:
    history.record_commit(parent, sha, paths)
    # What the plumbing commit knew of the files it committed keeps the gate's status answers (gates/worktree.py).
    history.record_worktree(root, parent, repo.git.landed(sha), paths)


@dataclass(frozen=True)
class Committed:
    """What `commit_verdict` did: the operation row, and the refusal when the gates refused."""

    row: OperationRow
    refused: Refusal | None


def commit_verdict(
    repo: Repository,
    op: Operation,
    title: str,
    verdict: Verdict,
    *,
    summary: str,
    manifest: dict[str, Any],
    capture: CaptureRow | None = None,
    trailers: Mapping[str, str] | None = None,
) -> Committed:
    """Commit an accepted verdict's changes (with `capture`'s row, if any), or record the refused
    operation (nothing written, the capture row untouched)."""
    manifest = {**manifest, "records": list(verdict.records)}
    if verdict.ok:
        row = commit(
            repo, op, title, dict(verdict.changes), summary=summary, manifest=manifest, capture=capture, trailers=trailers
        )
        return Committed(row, None)
    refused = refusal(verdict)
    manifest["violations"] = list(refused.violations)
    row = commit(repo, op, title, {}, summary=refused.message, manifest=manifest, status="refused")
    return Committed(row, refused)
