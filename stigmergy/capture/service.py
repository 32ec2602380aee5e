"""Capture: input bytes -> evidence store -> queue row (acknowledged) -> source page -> filing -> commit.

A capture is acknowledged only once its bytes are in the store and its queue row is committed; from
then on a crash loses nothing, because `resume` (run first by every writing command) finishes it.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stigmergy.capture.evidence import sha256_hex
from stigmergy.capture.inputs import InputItem
from stigmergy.errors import InputError, StigmergyError, UsageError
from stigmergy.pages.source import Artifact, Resolution, SourcePage, render_source_page
from stigmergy.repo.ids import new_id
from stigmergy.repo.layout import source_relpath
from stigmergy.repo.operations import Repository, apply_and_commit, restore, utc_now
from stigmergy.repo.recovery import rebuild_bookkeeping
from stigmergy.settings import PUBLIC_LAYER

_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2})?(\.\d+)?(Z|[+-]\d{2}:?\d{2})?)?$")


@dataclass(frozen=True)
class CaptureOptions:
    title: str | None = None
    occurred_at: str | None = None
    submitted_by: str = "unknown"
    layer: str = PUBLIC_LAYER
    project: str | None = None
    resolves: str | None = None
    rationale: str | None = None
    force: bool = False
    file: bool = True
    origin: str = "cli"


@dataclass(frozen=True)
class CaptureOutcome:
    locator: str
    status: str  # captured | filed | refused | exists | failed
    capture_id: str | None = None
    source_path: str | None = None
    op_id: str | None = None
    commit: str | None = None
    message: str = ""
    rule: str | None = None
    violations: tuple[dict[str, Any], ...] = ()
    pages: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "locator": self.locator,
            "status": self.status,
            "capture_id": self.capture_id,
            "source_path": self.source_path,
            "operation": self.op_id,
            "commit": self.commit,
            "message": self.message,
            "rule": self.rule,
            "violations": list(self.violations),
            "pages": list(self.pages),
        }


@dataclass
class CaptureReport:
    outcomes: list[CaptureOutcome] = field(default_factory=list)
    resumed: list[CaptureOutcome] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        if any(o.status == "failed" for o in self.outcomes):
            return 1
        if any(o.status == "refused" for o in self.outcomes):
            return 3
        return 0

    def to_dict(self) -> dict[str, Any]:
        counts: dict[str, int] = {}
        for o in self.outcomes:
            counts[o.status] = counts.get(o.status, 0) + 1
        return {
            "captures": [o.to_dict() for o in self.outcomes],
            "resumed": [o.to_dict() for o in self.resumed],
            "counts": counts,
        }


def validate_options(repo: Repository, options: CaptureOptions) -> None:
    repo.settings.layer(options.layer)  # unknown layer -> ConfigError
    if options.occurred_at is not None and not _DATE_RE.match(options.occurred_at):
        raise UsageError(f"--occurred-at {options.occurred_at!r} is not an ISO date (YYYY-MM-DD[THH:MM[:SS]])")
    if (options.resolves is None) != (options.rationale is None):
        raise UsageError("--resolves and --rationale go together")
    if options.resolves is not None and not re.match(r"^con_[A-Za-z0-9_-]+$", options.resolves):
        raise UsageError(f"--resolves {options.resolves!r} is not a contradiction id (con_…)")


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, _dt.datetime | _dt.date):
        return value.isoformat()
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


_NAME_DATE_RE = re.compile(r"^(\d{4}-\d{2}-\d{2})[-_ ]+")


def _date_from_locator(locator: str) -> str | None:
    """A file named `2026-05-19-pilot-email.txt` says when it happened; take it when nothing else does."""
    m = _NAME_DATE_RE.match(Path(locator).name)
    if not m:
        return None
    try:
        _dt.date.fromisoformat(m.group(1))
    except ValueError:
        return None
    return m.group(1)


def _title_from_locator(locator: str) -> str:
    stem = Path(locator).stem if locator not in ("stdin", "text") else locator
    stem = _NAME_DATE_RE.sub("", stem) or stem
    words = re.sub(r"[-_]+", " ", stem).strip()
    return words[:1].upper() + words[1:] if words else "Untitled"


def _strip_leading_h1(text: str, title: str) -> str:
    lines = text.split("\n")
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i < len(lines) and lines[i].startswith("# ") and " ".join(lines[i][2:].split()) == " ".join(title.split()):
        i += 1
        while i < len(lines) and not lines[i].strip():
            i += 1
        return "\n".join(lines[i:])
    return text


def _metadata_date(meta: Mapping[str, Any]) -> str | None:
    for key in ("occurred_at", "date"):
        value = meta.get(key)
        if isinstance(value, _dt.datetime | _dt.date):
            return value.isoformat()
        if isinstance(value, str) and _DATE_RE.match(value.strip()):
            return value.strip()
    return None


def _render_page(repo: Repository, env: Mapping[str, Any]) -> tuple[str, str]:
    text = repo.evidence.get(env["readable_sha"]).decode("utf-8")
    page = SourcePage(
        id=env["capture_id"],
        title=env["title"],
        captured_at=env["captured_at"],
        occurred_at=env["occurred_at"],
        submitted_by=env["submitted_by"],
        layer=env["layer"],
        origin=env["origin"],
        locator=env["locator"],
        artifacts=tuple(Artifact(**a) for a in env["artifacts"]),
        text=text,
        project=env.get("project"),
        metadata=env.get("metadata") or {},
        resolution=Resolution(env["resolves"], env.get("rationale") or "") if env.get("resolves") else None,
    )
    rel = source_relpath(env["layer"], env["captured_at"], env["capture_id"])
    return rel, render_source_page(page)


def _file(repo: Repository, env: Mapping[str, Any], rel: str, env_vars: Mapping[str, str]):  # noqa: ANN202
    from stigmergy.gates.engine import OperationInfo
    from stigmergy.plan.filing import make_planner, propose

    op = OperationInfo(
        op_id=env["op_id"],
        kind="capture",
        timestamp=env["captured_at"],
        capture_id=env["capture_id"],
        source_path=rel,
        resolves=env.get("resolves"),
        rationale=env.get("rationale"),
    )
    return propose(repo.root, repo.settings, rel, op, make_planner(repo.settings, env_vars))


def _refusal(verdict: Any) -> tuple[tuple[dict[str, Any], ...], str, str]:
    """(violations as records for the change record, the first rule, a one-line message)."""
    violations = tuple(
        {"rule": v.rule, "path": v.path, "message": v.message, "lines": list(v.lines)} for v in verdict.violations
    )
    rule = violations[0]["rule"]
    return violations, rule, f"refused by gate {rule}: {violations[0]['message']}"


def process(repo: Repository, env: Mapping[str, Any], env_vars: Mapping[str, str] | None = None) -> CaptureOutcome:
    """Render, file and commit one acknowledged capture (also the resume path)."""
    rel, text = _render_page(repo, env)
    changes: dict[str, str | None] = {rel: text}
    manifest: dict[str, Any] = {"capture": env["capture_id"], "locator": env["locator"], "reasons": []}
    status, op_status, message, rule = "captured", "committed", "", None
    violations: tuple[dict[str, Any], ...] = ()
    pages: tuple[str, ...] = ()
    if env.get("file"):
        # The planner and gates read the new source page from disk, like every other page.
        restore(repo.root, {rel: text})
        try:
            result = _file(repo, env, rel, env_vars or {})
        except StigmergyError as exc:
            manifest["reasons"].append(f"filing failed: {exc.message}")
            manifest["planner_error"] = exc.message
            status, message = "captured", f"source only: {exc.message}"
        except BaseException:
            restore(repo.root, {rel: None})
            raise
        else:
            manifest["planner"] = result.record
            manifest["plan_summary"] = result.plan.summary
            manifest["records"] = list(result.verdict.records)
            if result.verdict.ok:
                changes.update(result.verdict.changes)
                pages = tuple(sorted(p for p in result.verdict.changes if p != rel))
                status = "filed"
                message = result.plan.summary
            else:
                violations, rule, message = _refusal(result.verdict)
                manifest["violations"] = list(violations)
                status, op_status = "refused", "refused"
                message += "; the source page landed alone"
    capture_row = {
        "capture_id": env["capture_id"],
        "content_sha": env["content_sha"],
        "layer": env["layer"],
        "source_path": rel,
        "op_id": env["op_id"],
        "captured_at": env["captured_at"],
        "locator": env["locator"],
        "filed": 1 if status == "filed" else 0,
    }
    row = apply_and_commit(
        repo,
        op_id=env["op_id"],
        kind="capture",
        title=env["title"],
        changes=changes,
        started_at=env["captured_at"],
        summary=message if status != "captured" else "",
        manifest=manifest,
        status=op_status,
        capture=capture_row,
        queue_capture_id=env["capture_id"],
        track_inflight=len(changes) > 1,
        new_paths=frozenset({rel}),
    )
    return CaptureOutcome(
        locator=env["locator"],
        status=status,
        capture_id=env["capture_id"],
        source_path=rel,
        op_id=env["op_id"],
        commit=row.commit_sha,
        message=message,
        rule=rule,
        violations=violations,
        pages=pages,
    )


def resume(repo: Repository, env_vars: Mapping[str, str] | None = None) -> list[CaptureOutcome]:
    """Finish what a crash interrupted. Call with the writer lock held."""
    rebuild_bookkeeping(repo)
    for op_id, preimages in repo.state.inflight_ops():
        # An operation that committed had its row cleared with its bookkeeping (rebuilt above if need
        # be); one still here never committed, so what it wrote is taken back.
        if not repo.state.has_operation(op_id):
            restore(repo.root, preimages)
        repo.state.end_inflight(op_id)
    outcomes = []
    for _capture_id, _op_id, env, inflight in repo.state.pending():
        if inflight:
            restore(repo.root, inflight)
        # Bookkeeping was rebuilt above, so a pending capture never committed: its page is a leftover.
        restore(repo.root, {source_relpath(env["layer"], env["captured_at"], env["capture_id"]): None})
        outcomes.append(process(repo, env, env_vars))
    return outcomes


def capture(
    repo: Repository,
    items: Iterable[InputItem],
    options: CaptureOptions,
    on_event: Callable[[str, CaptureOutcome], None] | None = None,
    env_vars: Mapping[str, str] | None = None,
) -> list[CaptureOutcome]:
    """Capture each item as its own operation. Call with the writer lock held. Bad inputs are reported
    as failed outcomes and change nothing; the others still land."""
    from stigmergy.capture.extract import extract

    validate_options(repo, options)
    items = list(items)
    outcomes: list[CaptureOutcome] = []
    limits = repo.settings.capture
    for item in items:
        try:
            if item.size is not None and item.size > limits.max_bytes:
                raise InputError(item.locator, "too-large", f"is {item.size} bytes, over the {limits.max_bytes}-byte limit")
            data = item.read()
            extraction = extract(data, item.origin_name or item.locator, limits, media_type=item.media_type)
        except InputError as exc:
            outcome = CaptureOutcome(locator=item.locator, status="failed", message=exc.message, rule=exc.rule)
            outcomes.append(outcome)
            if on_event:
                on_event("failed", outcome)
            continue
        except OSError as exc:
            outcome = CaptureOutcome(
                locator=item.locator, status="failed", message=f"{item.locator}: cannot read ({exc.strerror})", rule="unreadable"
            )
            outcomes.append(outcome)
            if on_event:
                on_event("failed", outcome)
            continue
        content_sha = sha256_hex(data)
        if not options.force:
            existing = repo.state.find_capture(content_sha, options.layer)
            if existing is not None:
                outcome = CaptureOutcome(
                    locator=item.locator,
                    status="exists",
                    capture_id=existing["capture_id"],
                    source_path=existing["source_path"],
                    op_id=existing["op_id"],
                    message="already captured",
                )
                outcomes.append(outcome)
                if on_event:
                    on_event("exists", outcome)
                continue
        title = (options.title if options.title and len(items) == 1 else None) or extraction.title or _title_from_locator(item.locator)
        title = " ".join(title.split())[:200] or "Untitled"
        metadata = _jsonable(extraction.metadata or {})
        captured_at = utc_now()
        readable = _strip_leading_h1(extraction.text, title)
        if not readable.strip():
            readable = extraction.text
        readable_bytes = readable.encode("utf-8")
        repo.evidence.put(data)
        readable_sha = repo.evidence.put(readable_bytes)
        project = options.project or (str(metadata["project"]) if isinstance(metadata.get("project"), str) else None)
        env = {
            "capture_id": new_id("cap"),
            "op_id": new_id("op"),
            "title": title,
            "captured_at": captured_at,
            "occurred_at": options.occurred_at or _metadata_date(metadata) or _date_from_locator(item.locator)
            or captured_at[:10],
            "submitted_by": options.submitted_by,
            "layer": options.layer,
            "origin": options.origin,
            "locator": item.locator,
            "project": project,
            "metadata": metadata,
            "resolves": options.resolves,
            "rationale": options.rationale,
            "content_sha": content_sha,
            "readable_sha": readable_sha,
            "artifacts": [
                {
                    "sha256": content_sha,
                    "bytes": len(data),
                    "media_type": extraction.media_type,
                    "readable_sha256": readable_sha,
                    "extractor": extraction.extractor,
                    "extractor_version": extraction.extractor_version,
                }
            ],
            "file": options.file,
            "force": options.force,
        }
        repo.state.enqueue(env["capture_id"], env["op_id"], captured_at, env)
        acked = CaptureOutcome(locator=item.locator, status="acknowledged", capture_id=env["capture_id"], op_id=env["op_id"])
        if on_event:
            on_event("acknowledged", acked)
        repo.pause("ack")
        outcome = process(repo, env, env_vars)
        outcomes.append(outcome)
        if on_event:
            on_event(outcome.status, outcome)
    return outcomes


def file_captures(
    repo: Repository,
    capture_ids: Iterable[str] | None = None,
    env_vars: Mapping[str, str] | None = None,
    on_event: Callable[[str, CaptureOutcome], None] | None = None,
) -> list[CaptureOutcome]:
    """File archived captures (all unfiled ones when `capture_ids` is None), in capture order, one
    operation each. Call with the writer lock held."""
    from stigmergy.errors import NotFoundError

    rows = repo.state.captures()
    if capture_ids is None:
        chosen = [r for r in rows if not r["filed"]]
    else:
        by_id = {r["capture_id"]: r for r in rows}
        chosen = []
        for cid in capture_ids:
            matches = [r for k, r in by_id.items() if k == cid or k.startswith(cid)]
            if len(matches) != 1:
                raise NotFoundError(f"no single capture matches {cid!r}", hint="`stigmergy log --kind capture` lists them")
            chosen.append(matches[0])
        chosen.sort(key=lambda r: r["capture_id"])
    from stigmergy.gates.engine import OperationInfo
    from stigmergy.pages.source import parse_source_page
    from stigmergy.plan.filing import make_planner, propose

    planner = make_planner(repo.settings, env_vars or {})
    outcomes = []
    for row in chosen:
        rel = row["source_path"]
        page = parse_source_page((repo.root / rel).read_text(encoding="utf-8"), rel)
        op_id = new_id("op")
        started = utc_now()
        op = OperationInfo(
            op_id=op_id, kind="file", timestamp=started, capture_id=page.id, source_path=rel,
            resolves=page.resolution.resolves if page.resolution else None,
            rationale=page.resolution.rationale if page.resolution else None,
        )
        result = propose(repo.root, repo.settings, rel, op, planner)
        manifest: dict[str, Any] = {
            "capture": page.id, "planner": result.record, "plan_summary": result.plan.summary,
            "records": list(result.verdict.records),
        }
        capture_row = {**dict(row), "filed": 1}
        if result.verdict.ok:
            changes = dict(result.verdict.changes)
            status, op_status, message, rule, violations = "filed", "committed", result.plan.summary, None, ()
        else:
            violations, rule, message = _refusal(result.verdict)
            manifest["violations"] = list(violations)
            changes, status, op_status = {}, "refused", "refused"
            capture_row = None
        commit_row = apply_and_commit(
            repo, op_id=op_id, kind="file", title=page.title, changes=changes, started_at=started,
            summary=message, manifest=manifest, status=op_status, capture=capture_row, track_inflight=True,
        )
        outcome = CaptureOutcome(
            locator=page.locator, status=status, capture_id=page.id, source_path=rel, op_id=op_id,
            commit=commit_row.commit_sha, message=message, rule=rule, violations=violations,
            pages=tuple(sorted(changes)),
        )
        outcomes.append(outcome)
        if on_event:
            on_event(status, outcome)
    return outcomes
