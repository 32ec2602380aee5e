"""`stigmergy maintain`: the one command a scheduler runs. In order: `resume` (finish what a crash left),
file what is pending, `garden`, bring the index up to date, and keep the Git store packed (`git gc
--auto`, which only acts past Git's own thresholds). One summary line and an exit code a scheduler can
use: 0 all is well (or another run holds the lock: overlapping cron runs are normal), 4 something needs
a person (garden left findings, a filing was refused), 1 a step failed."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from stigmergy.errors import EXIT_CHECK, EXIT_FAILURE, EXIT_OK, LockTimeoutError, StigmergyError
from stigmergy.repo.lock import WriterLock
from stigmergy.repo.operations import Repository

if TYPE_CHECKING:
    from stigmergy.write.filing import PlannerFactory


@dataclass
class MaintainReport:
    steps: list[dict[str, Any]] = field(default_factory=list)  # {"step", "status", "message", "seconds"}
    locked_out: str | None = None

    @property
    def exit_code(self) -> int:
        if any(s["status"] == "failed" for s in self.steps):
            return EXIT_FAILURE
        if any(s["status"] == "attention" for s in self.steps):
            return EXIT_CHECK
        return EXIT_OK

    def summary(self) -> str:
        if self.locked_out:
            return f"maintain: skipped, {self.locked_out}"
        parts = [f"{s['step']} {s['status']}" + (f" ({s['message']})" if s["message"] else "") for s in self.steps]
        return "maintain: " + "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {"steps": self.steps, "locked_out": self.locked_out, "summary": self.summary(), "exit_code": self.exit_code}


def maintain(repo: Repository, planners: PlannerFactory | None = None, *, index: bool = True,
             lock: WriterLock | None = None, identity: str | None = None) -> MaintainReport:
    """Run the steps. `lock`: the writer lock, not yet held, that a scheduler's run never waits for (by
    default one with no timeout that clears the git lock files a killed process left). `identity`: who the
    run acts as (the service passes `--as`, else `[roles] service`, else the reader): garden writes only in
    the layers it may write, and reports the rest as counts. None: every layer."""
    report = MaintainReport()
    if lock is None:
        lock = WriterLock(repo.layout.lock_file, 0, after_acquire=lambda: repo.git.clear_stale_locks(lambda _m: None))
    try:
        lock.acquire()
    except LockTimeoutError:
        report.locked_out = f"another stigmergy writer (pid {lock.owner()}) holds the lock"
        return report
    try:
        if not _step(report, "resume", lambda: _resume(repo, planners)):
            return report  # nothing else is safe on a repository a crash left half-written
        _step(report, "file", lambda: _file(repo, planners))
        _step(report, "garden", lambda: _garden(repo, identity))
        _step(report, "trust", lambda: _trust(repo, identity))
    finally:
        lock.release()
    if index:
        _step(report, "index", lambda: _index(repo))
    _step(report, "git", lambda: _pack(repo))
    return report


def _step(report: MaintainReport, name: str, run: Callable[[], tuple[str, str]]) -> bool:
    started = time.perf_counter()
    try:
        status, message = run()
    except StigmergyError as exc:
        status, message = "failed", exc.message
    report.steps.append({"step": name, "status": status, "message": message,
                         "seconds": round(time.perf_counter() - started, 2)})
    return status != "failed"


def _resume(repo: Repository, planners: PlannerFactory | None) -> tuple[str, str]:
    from stigmergy.write.capture import resume

    outcomes = resume(repo, planners)
    refused = sum(1 for o in outcomes if o.status == "refused")
    return ("attention" if refused else "ok"), (f"{len(outcomes)} finished" + (f", {refused} refused" if refused else "")
                                                if outcomes else "")


def _file(repo: Repository, planners: PlannerFactory | None) -> tuple[str, str]:
    from stigmergy.write.capture import file_captures

    # A capture whose filing the gates refused stays refused until someone changes something: filing it
    # again every ten minutes would only add a refused operation each time. `stigmergy file` retries it.
    refused = {
        str(op.manifest.get("capture")) for op in repo.state.operations(limit=1_000_000)
        if op.kind in ("capture", "file") and op.status == "refused"
    }
    pending = [r.capture_id for r in repo.state.captures() if not r.filed and r.capture_id not in refused]
    skipped = sum(1 for r in repo.state.captures() if not r.filed and r.capture_id in refused)
    outcomes = file_captures(repo, pending, planners=planners) if pending else []
    counts: dict[str, int] = {}
    for o in outcomes:
        counts[o.status] = counts.get(o.status, 0) + 1
    message = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    if skipped:
        message += (", " if message else "") + f"{skipped} refused before (`stigmergy file CAPTURE` retries)"
    return ("attention" if counts.get("refused") else "ok"), message


def _garden(repo: Repository, identity: str | None) -> tuple[str, str]:
    from stigmergy.layers import readable_layers, writable_layers
    from stigmergy.write.maintenance import garden

    if identity is None:
        outcome = garden(repo, index=False)
    else:
        outcome = garden(repo, index=False, readable=frozenset(readable_layers(repo.settings, identity)),
                         writable=frozenset(writable_layers(repo.settings, identity)))
    left = outcome.findings_left
    if outcome.status == "refused":
        return "failed", outcome.message
    return ("attention" if left else "ok"), outcome.message + (f"; {left} finding(s) need a person" if left and "need a person" not in outcome.message else "")


def _trust(repo: Repository, identity: str | None) -> tuple[str, str]:
    """Mark stale what the sweep finds, reset the priors of pages whose feedback keeps contradicting
    them, and commit every open feedback batch as one operation (docs/trust.md). Acts only in the layers
    `identity` may write; the lists (contradictions open too long, popular but unexamined) need a person
    and `garden --check` names them. Nothing is deleted."""
    from stigmergy.layers import writable_layers
    from stigmergy.trust.access import access_counts
    from stigmergy.trust.book import load_book
    from stigmergy.trust.model import now_days
    from stigmergy.trust.sweep import judge, scan_pages
    from stigmergy.write.trust import commit_batches, make_record, record

    s = repo.settings.trust
    book = load_book(repo.root, s)
    rows, dates = scan_pages(repo.root, repo.git.ls_files("wiki", "sources", "layers"))
    writable = None if identity is None else set(writable_layers(repo.settings, identity))
    found = judge(rows, dates, book, access_counts(repo.layout.state_dir), now_days(), s, readable=writable)
    by = identity or "stigmergy maintain"
    for kind, items in (("stale", found.stale), ("reset", found.resets)):
        for item in items:
            row = next(r for r in rows if r.path == item["path"])
            record(repo.root, repo.layout.state_dir, make_record(
                kind, by, row.facts.page_id, row.path, row.facts.layer, row.sources,
                note=item.get("reason") or f"{item.get('errors')} of {item.get('feedback')} feedback against the posterior"))
    done = commit_batches(repo, "feedback", "feedback and trust upkeep",
                          summary=f"{len(found.stale)} stale, {len(found.resets)} prior reset(s)",
                          manifest={"stale": len(found.stale), "resets": len(found.resets)})
    batches = len(done.manifest.get("batches", [])) if done is not None else 0
    message = (f"{batches} feedback batch(es) committed, {len(found.stale)} marked stale, "
               f"{len(found.resets)} prior reset(s); {len(found.contradictions)} contradiction(s) open too long, "
               f"{len(found.popular)} popular but unexamined")
    return "ok", message


def _index(repo: Repository) -> tuple[str, str]:
    from stigmergy.index.store import index_location

    if not index_location(repo.layout, repo.settings).exists():
        return "skipped", "no index yet (run `stigmergy index` once to create it)"
    from stigmergy.index.build import build_index

    built = build_index(repo.root, repo.settings)
    return "ok", f"{built.pages_indexed} page(s) indexed, {built.pages_removed} removed"


def _pack(repo: Repository) -> tuple[str, str]:
    before = _loose(repo)
    repo.git.run("gc", "--auto", "--quiet")
    after = _loose(repo)
    return "ok", (f"packed {before - after} loose objects" if after < before else f"{after} loose objects")


def _loose(repo: Repository) -> int:
    out = repo.git.run("count-objects", check=False)
    try:
        return int(out.split()[0])
    except (IndexError, ValueError):
        return 0
