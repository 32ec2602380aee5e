"""The maintenance pipelines: garden, delete, merge and rename. Each is analysis (in `stigmergy.garden`)
-> a proposal of code-rendered changes -> the same gates as a plan (`gates.engine.judge`) -> one commit
with `Stigmergy-Kind: <kind>` and a change record, or nothing changed and a reason. Call them with the
writer lock held and `resume` run (the CLI does both). `dry_run` judges and reports, and writes nothing."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from stigmergy.errors import EXIT_CHECK, EXIT_OK, EXIT_REFUSED
from stigmergy.garden.proposal import Proposal
from stigmergy.gates.engine import Verdict
from stigmergy.repo.ids import id_ms, iso_of_ms, new_id
from stigmergy.repo.operations import Repository, utc_now
from stigmergy.write.operation import Operation, commit_verdict, judge_changes

MAX_GATE_ROUNDS = 3


@dataclass(frozen=True)
class Outcome:
    """What a maintenance operation did, or would do with --dry-run."""

    kind: str
    status: str  # committed | nothing | refused | dry-run | pending (garden --check)
    message: str
    op_id: str | None = None
    commit: str | None = None
    paths: tuple[tuple[str, str], ...] = ()  # (action, path)
    report: dict[str, Any] = field(default_factory=dict)
    records: tuple[str, ...] = ()
    violations: tuple[dict[str, Any], ...] = ()
    findings_left: int = 0  # lint findings no repair could fix (garden)

    @property
    def exit_code(self) -> int:
        if self.status == "refused":
            return EXIT_REFUSED
        if self.status == "pending" or self.findings_left:
            return EXIT_CHECK
        return EXIT_OK

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
            "exit_code": self.exit_code,
        }


def _paths(repo: Repository, changes: Any) -> tuple[tuple[str, str], ...]:
    return tuple(
        ("delete" if t is None else ("modify" if (repo.root / rel).exists() else "add"), rel) for rel, t in sorted(changes.items())
    )


def _violations(verdict: Verdict) -> tuple[dict[str, Any], ...]:
    return tuple({"rule": v.rule, "path": v.path, "message": v.message, "lines": list(v.lines)} for v in verdict.violations)


def new_operation(kind: str) -> tuple[str, str]:
    """(op id, timestamp) for a maintenance operation about to be planned. The timestamp is the id's own
    time, so a fresh clone recovers it from the commit's trailer (the curation record replays it)."""
    op_id = new_id("op")
    ms = id_ms(op_id)
    return op_id, (iso_of_ms(ms) if ms is not None else utc_now())


def run_proposal(repo: Repository, proposal: Proposal, *, dry_run: bool = False, summary: str = "") -> Outcome:
    """Judge `proposal` and commit it as one operation (or report why nothing changed)."""
    kind = proposal.op.kind
    if proposal.nothing is not None or not proposal.changes:
        return Outcome(kind, "nothing", proposal.nothing or "nothing to change", report=proposal.report)
    verdict = judge_changes(repo, proposal.changes, proposal.op, proposal.records)
    paths = _paths(repo, verdict.changes)
    if dry_run:
        status = "dry-run" if verdict.ok else "refused"
        message = "dry run: nothing written" + ("" if verdict.ok else f"; the gates would refuse: {verdict.violations[0].message}")
        return Outcome(kind, status, message, paths=paths, report=proposal.report, records=verdict.records,
                       violations=_violations(verdict))
    op = Operation(proposal.op.op_id, kind, proposal.op.timestamp)
    manifest = {"report": proposal.report, "reasons": [summary] if summary else []}
    if proposal.op.rationale:
        manifest["rationale"] = proposal.op.rationale
    done = commit_verdict(repo, op, proposal.title, verdict, summary=summary or proposal.title, manifest=manifest,
                          trailers=proposal.trailers)
    if done.refused is not None:
        return Outcome(kind, "refused", done.refused.message, op_id=op.op_id, report=proposal.report,
                       records=verdict.records, violations=done.refused.violations)
    return Outcome(kind, "committed", summary or proposal.title, op_id=op.op_id, commit=done.row.commit_sha,
                   paths=paths, report=proposal.report, records=verdict.records)


def touched_layers(proposal: Proposal) -> set[str]:
    """Every layer an operation changes a file in, or names a page of."""
    from stigmergy.layers import path_layer

    return {path_layer(p) for p in (*proposal.changes, *proposal.op.targets, *(m[1] for m in proposal.op.moves))}


def _check_role(repo: Repository, kind: str, who: str | None, proposal: Proposal) -> None:
    """A maintainer of every layer the operation touches, or refused before anything is written (`who`
    None: a replay of the curation record, allowed as a whole by whoever started it)."""
    from stigmergy import layers

    if who is not None:
        {"delete": layers.check_delete, "merge": layers.check_merge, "rename": layers.check_rename}[kind](
            repo.settings, who, touched_layers(proposal))


# -- delete ------------------------------------------------------------------------------------------


def delete(repo: Repository, target: str, rationale: str, *, reader: str | None, dry_run: bool = False,
           op: tuple[str, str] | None = None) -> Outcome:
    """`op`: the (id, timestamp) to use, when an import replays an operation of the curation record."""
    from stigmergy.garden.delete import plan_delete

    op_id, ts = op or new_operation("delete")
    proposal = plan_delete(repo.root, repo.settings, target, rationale, reader=reader, op_id=op_id, timestamp=ts)
    _check_role(repo, "delete", reader, proposal)
    report = proposal.report
    summary = f"{proposal.title}: {rationale}" if rationale else proposal.title
    outcome = run_proposal(repo, proposal, dry_run=dry_run, summary=summary)
    if outcome.status == "committed" and report.get("target_kind") == "source":
        # Capturing the same bytes again should file them anew, not answer "already captured".
        repo.state.forget_capture(report["target"].rsplit("/", 1)[1][:-3])
    return outcome


# -- garden ------------------------------------------------------------------------------------------


def garden(repo: Repository, *, check: bool = False, dry_run: bool = False, index: bool = True,
           readable: frozenset[str] | None = None, writable: frozenset[str] | None = None) -> Outcome:
    """Repair what lint finds, as one operation; with `check`, change nothing and report what is pending.
    Repairs are made only in `writable` layers (None: all; the rest are `report.unwritten`, a count);
    `--check` judges every layer. What the outcome names is scoped to `readable` (None: all)."""
    from stigmergy.garden.scope import scope_garden

    plan, outcome = _garden(repo, check=check, dry_run=dry_run, index=index, writable=None if check else writable)
    return scope_garden(outcome, plan, readable)


def _garden(repo: Repository, *, check: bool, dry_run: bool, index: bool,
            writable: frozenset[str] | None = None) -> tuple[Any, Outcome]:
    from stigmergy.garden.plan import plan_garden, without
    from stigmergy.gates.history import audit_since_last_check
    from stigmergy.gates.lint import lint_repository

    op_id, ts = new_operation("garden")
    plan = plan_garden(repo.root, repo.settings, op_id=op_id, timestamp=ts, writable=writable)
    index_behind = index and _index_behind(repo)
    # A repair that would break a gate is not stored: drop the refused pages' repairs and judge again.
    for _ in range(MAX_GATE_ROUNDS):
        if not plan.proposal.changes:
            break
        verdict = judge_changes(repo, plan.proposal.changes, plan.proposal.op, plan.proposal.records)
        if verdict.ok:
            break
        why = {v.path: f"[{v.rule}] {v.message}" for v in verdict.violations}
        plan = without(plan, set(why) or set(plan.proposal.changes), why)
    history = audit_since_last_check(repo.root, repo.settings)
    report = {**plan.report(), "index_behind_head": bool(index_behind), "history": history.to_dict()}
    if not history.ok:
        plan = replace(plan, left=plan.left + tuple(
            {"finding": f"history:{h.rule}", "path": h.path, "why": f"needs a person (`stigmergy lint`): {h.render()}"}
            for h in history.findings))
    pending = bool(plan.proposal.changes) or bool(index_behind)
    if check or dry_run:
        status = "pending" if (pending and check) else ("dry-run" if dry_run and pending else "nothing")
        message = _garden_message(plan, index_behind, pending)
        if dry_run:
            message = f"dry run, nothing written; {message}"
        return plan, Outcome("garden", status, message, paths=_paths(repo, plan.proposal.changes), report=report,
                             records=plan.proposal.records, findings_left=len(plan.left) if check else 0)
    outcome = run_proposal(repo, replace(plan.proposal, report=report), summary=_garden_message(plan, False, True))
    if index and (index_behind or (outcome.status == "committed" and _index_present(repo))):
        report["index"] = _update_index(repo)
    after = lint_repository(repo.root, repo.settings)
    report["lint_after"] = after.to_dict()["counts"]
    # Info findings (a person's uncited line) are shown, never failed on: lint exits 0 for them too.
    left = [_entry(f) for f in after.findings if f.severity != "info"]
    report["findings_info"] = [_entry(f) for f in after.findings if f.severity == "info"]
    history = audit_since_last_check(repo.root, repo.settings)
    left += [{"rule": f"history:{h.rule}", "path": h.path, "line": None, "message": h.render()} for h in history.findings]
    report["findings_left"] = left
    return plan, replace(outcome, report=report, findings_left=len(left),
                         message=outcome.message if outcome.status != "nothing" else _garden_message(plan, False, False))


def _entry(f: Any) -> dict[str, Any]:
    """A lint finding as a report entry; one that tells of a narrower layer carries what a non-reader of it
    is told instead (`_about`, `_blind`: garden/scope.py reads and removes them)."""
    entry = f.to_dict()
    if f.about is not None:
        entry["_about"] = f.about
        entry["_blind"] = {**entry, "rule": f.blind[0], "message": f.blind[1]} if f.blind else None
    return entry


def _garden_message(plan: Any, index_behind: bool, pending: bool) -> str:
    counts = plan.report()["repairs"]
    parts = [f"{n} {k}" for k, n in sorted(counts.items())]
    if index_behind:
        parts.append("index behind HEAD")
    tail = (f"; {len(plan.left)} finding(s) need a person" if plan.left else "") + (
        f"; {plan.unwritten} repair(s) in layers this identity may not write, left to their writers"
        if plan.unwritten else "")
    if not pending:
        return "nothing to repair" + tail
    return "repairs: " + ", ".join(parts) + tail


def _index_present(repo: Repository) -> bool:
    from stigmergy.index.store import index_location

    return index_location(repo.layout, repo.settings).exists()


def _index_behind(repo: Repository) -> bool:
    """An index that exists and reflects another commit than HEAD (no index: nothing to bring up to date)."""
    if not _index_present(repo):
        return False
    from stigmergy.index.store import index_location, index_state

    state = index_state(index_location(repo.layout, repo.settings))
    return bool(state["readable"] and state["commit"] != repo.git.head())


def _update_index(repo: Repository) -> dict[str, Any]:
    from dataclasses import asdict

    from stigmergy.index.build import build_index

    return {k: v for k, v in asdict(build_index(repo.root, repo.settings)).items() if not isinstance(v, list | dict)}


# -- merge and rename --------------------------------------------------------------------------------


def merge(repo: Repository, page: str, into: str, *, reader: str | None, dry_run: bool = False,
          op: tuple[str, str] | None = None) -> Outcome:
    from stigmergy.garden.identity import plan_merge

    op_id, ts = op or new_operation("merge")
    proposal = plan_merge(repo.root, repo.settings, page, into, reader=reader, op_id=op_id, timestamp=ts)
    _check_role(repo, "merge", reader, proposal)
    return run_proposal(repo, proposal, dry_run=dry_run, summary=proposal.title)


def rename(repo: Repository, page: str, title: str, *, reader: str | None, dry_run: bool = False,
           op: tuple[str, str] | None = None) -> Outcome:
    from stigmergy.garden.identity import plan_rename

    op_id, ts = op or new_operation("rename")
    proposal = plan_rename(repo.root, repo.settings, page, title, reader=reader, op_id=op_id, timestamp=ts)
    _check_role(repo, "rename", reader, proposal)
    return run_proposal(repo, proposal, dry_run=dry_run, summary=proposal.title)
