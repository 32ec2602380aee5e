"""The capture and file pipelines: an acknowledged capture -> source page -> filing (plan -> gates) ->
one commit. `resume` finishes captures a crash interrupted (every writing command runs it first)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from stigmergy.capture.expand import expand
from stigmergy.capture.inputs import InputItem
from stigmergy.capture.queue import (
    CaptureOptions,
    QueuedCapture,
    ReadInput,
    acknowledge,
    chat_layer,
    read_input,
    validate_options,
)
from stigmergy.errors import (
    EXIT_FAILURE,
    EXIT_OK,
    EXIT_REFUSED,
    InputError,
    NotFoundError,
    StigmergyError,
    UsageError,
)
from stigmergy.pages.source import parse_source_page, render_source_page
from stigmergy.repo.evidence import sha256_hex
from stigmergy.repo.layout import classify, source_relpath
from stigmergy.repo.operations import TRAILER_CAPTURE, TRAILER_FILING, Repository, restore
from stigmergy.repo.state import CaptureRow
from stigmergy.settings import CaptureSettings, Settings
from stigmergy.write.operation import Operation, authorship, commit, commit_verdict, refusal
from stigmergy.write.recovery import adopt_landed_capture, rebuild_bookkeeping, undo_uncommitted

if TYPE_CHECKING:
    from stigmergy.gates.authorship import Authorship
    from stigmergy.write.filing import FilingResult, PlannerFactory

__all__ = [
    "CaptureOptions", "CaptureOutcome", "CaptureReport", "capture", "file_captures", "process", "read_inputs",
    "resume", "validate",
]


@dataclass(frozen=True)
class CaptureOutcome:
    locator: str
    status: str  # captured | filed | refused | waiting | exists | unchanged | failed
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


def outcomes_exit_code(outcomes: list[CaptureOutcome]) -> int:
    """A batch of captures ends 1 when one failed, else 3 when the gates refused one, else 0."""
    if any(o.status == "failed" for o in outcomes):
        return EXIT_FAILURE
    if any(o.status == "refused" for o in outcomes):
        return EXIT_REFUSED
    return EXIT_OK


@dataclass
class CaptureReport:
    outcomes: list[CaptureOutcome] = field(default_factory=list)
    resumed: list[CaptureOutcome] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return outcomes_exit_code(self.outcomes)

    def to_dict(self) -> dict[str, Any]:
        counts: dict[str, int] = {}
        for o in self.outcomes:
            counts[o.status] = counts.get(o.status, 0) + 1
        return {
            "captures": [o.to_dict() for o in self.outcomes],
            "resumed": [o.to_dict() for o in self.resumed],
            "counts": counts,
        }


def _file(repo: Repository, queued: QueuedCapture, rel: str, planners: PlannerFactory,
          who: Authorship) -> FilingResult:
    from stigmergy.write.filing import propose

    op = Operation(queued.op_id, "capture", queued.captured_at).info(
        capture_id=queued.capture_id, source_path=rel, resolves=queued.resolves, rationale=queued.rationale,
        occurred_at=queued.occurred_at,
    )
    return propose(repo.root, repo.settings, rel, op, planners(), who)


def _planners(repo: Repository, planners: PlannerFactory | None) -> PlannerFactory:
    if planners is not None:
        return planners
    from stigmergy.write.filing import default_planners

    return default_planners(repo.settings)


def process(repo: Repository, queued: QueuedCapture, planners: PlannerFactory | None = None) -> CaptureOutcome:
    """Render, file and commit one acknowledged capture (also the resume path)."""
    rel = queued.source_path
    text = render_source_page(queued.source_page(repo.evidence.get(queued.readable_sha).decode("utf-8")))
    changes: dict[str, str | None] = {rel: text}
    manifest: dict[str, Any] = {"capture": queued.capture_id, "locator": queued.locator, "reasons": []}
    if queued.redaction:
        manifest["redaction"] = dict(queued.redaction)
    status, op_status, message, rule = "captured", "committed", "", None
    violations: tuple[dict[str, Any], ...] = ()
    pages: tuple[str, ...] = ()
    twin = repo.state.find_capture(queued.content_sha, queued.layer) if queued.force else None
    if queued.file and twin is not None and twin.filed and twin.capture_id != queued.capture_id:
        # The same bytes were filed already: filing them again would only repeat their lines.
        status = "duplicate"
        message = f"same bytes as {twin.capture_id}, already filed: the source page lands, no wiki page changes"
        manifest["reasons"].append(message)
    elif queued.file:
        # The planner and gates read the new source page from disk, like every other page.
        restore(repo.root, {rel: text})
        who = authorship(repo)
        try:
            result = _file(repo, queued, rel, _planners(repo, planners), who)
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
            waits = uncommitted_pages(repo, [p for p in result.verdict.changes if p != rel], who)
            if result.verdict.ok and waits:
                status, message = "waiting", waiting_message(waits)
                manifest["reasons"].append(message)
                manifest["waiting_on"] = waits
            elif result.verdict.ok:
                changes.update(result.verdict.changes)
                pages = tuple(sorted(p for p in result.verdict.changes if p != rel))
                status = "filed"
                message = result.plan.summary
            else:
                refused = refusal(result.verdict)
                violations, rule, message = refused.violations, refused.rule, refused.message
                manifest["violations"] = list(violations)
                status, op_status = "refused", "refused"
                message += "; the source page landed alone"
    capture_row = CaptureRow(
        capture_id=queued.capture_id, content_sha=queued.content_sha, layer=queued.layer, source_path=rel,
        op_id=queued.op_id, captured_at=queued.captured_at, locator=queued.locator,
        filed=status in ("filed", "duplicate"),
    )
    row = commit(
        repo,
        Operation(queued.op_id, "capture", queued.captured_at),
        queued.title,
        changes,
        summary=message if status != "captured" else "",  # the body says why a filing waits or was refused
        manifest=manifest,
        status=op_status,
        capture=capture_row,
        queue_capture_id=queued.capture_id,
        track_inflight=len(changes) > 1,
        new_paths=frozenset({rel}),
        trailers={
            TRAILER_CAPTURE: queued.capture_id,
            TRAILER_FILING: status if status != "captured" else ("failed" if queued.file else "archived"),
        },
    )
    return CaptureOutcome(
        locator=queued.locator,
        status="captured" if status == "duplicate" else status,
        capture_id=queued.capture_id,
        source_path=rel,
        op_id=queued.op_id,
        commit=row.commit_sha,
        message=message,
        rule=rule,
        violations=violations,
        pages=pages,
    )


def resume(repo: Repository, planners: PlannerFactory | None = None) -> list[CaptureOutcome]:
    """Finish what a crash interrupted. Call with the writer lock held. Never takes back committed work."""
    # An interrupted erase is finished first: every later step assumes its history. The eraser (and the history
    # rewriting and scrubbing it imports) loads only then, not in every capture process.
    if repo.layout.erase_journal.exists():
        from stigmergy.write.erase import resume_erase

        resume_erase(repo)
    rebuild_bookkeeping(repo)
    for op_id, preimages in repo.state.inflight_ops():
        # An operation that committed had its row cleared with its bookkeeping (rebuilt above if need
        # be); one still here never committed, so what it wrote is taken back.
        if not repo.state.has_operation(op_id):
            undo_uncommitted(repo, preimages)
        repo.state.end_inflight(op_id)
    outcomes = []
    for pending in repo.state.pending():
        record, inflight = pending.envelope, pending.inflight
        queued = QueuedCapture.from_record(record)
        rel = source_relpath(queued.layer, queued.captured_at, queued.capture_id)
        if adopt_landed_capture(repo, record, rel):
            continue  # its commit landed; only the bookkeeping was missing
        if inflight:
            undo_uncommitted(repo, inflight)
        # Bookkeeping was rebuilt above, so a pending capture never committed: its page is a leftover.
        undo_uncommitted(repo, {rel: None})
        outcomes.append(process(repo, queued, planners))
    return outcomes


def restore_evidence(repo: Repository, source_path: str, content_sha: str, data: bytes) -> list[str]:
    """Re-capturing known bytes puts back a missing or corrupt original, and the readable text from the
    source page. Returns what was restored ('original', 'readable')."""
    restored = []
    if not repo.evidence.intact(content_sha):
        repo.evidence.put(data)
        restored.append("original")
    try:
        page = parse_source_page((repo.root / source_path).read_text(encoding="utf-8"), source_path)
    except (StigmergyError, OSError, UnicodeDecodeError):
        return restored
    readable = page.text.encode("utf-8")
    for art in page.artifacts:
        if not repo.evidence.intact(art.readable_sha256) and sha256_hex(readable) == art.readable_sha256:
            repo.evidence.put(readable)
            restored.append("readable")
    return restored


def validate(repo: Repository, options: CaptureOptions) -> None:
    """Every usage error of a capture (exit 2), before anything is read or stored."""
    validate_options(repo, options)
    if options.resolves is not None:
        _check_resolves(repo, options)


def _check_resolves(repo: Repository, options: CaptureOptions) -> None:
    from stigmergy.index.overview import contradictions

    found = [c for c in contradictions(repo.root, repo.settings, options.reader) if c.get("id") == options.resolves]
    # Unknown and not-yours-to-read get the same answer: the error must not confirm a restricted block.
    if not found:
        raise UsageError(f"--resolves {options.resolves}: no such contradiction",
                         hint="`stigmergy contradictions --status open` lists the open ones")
    if all(c.get("status") != "open" for c in found):
        raise UsageError(f"--resolves {options.resolves}: that contradiction is already resolved")
    if options.reader is not None:
        from stigmergy.layers import check_resolve

        check_resolve(repo.settings, options.reader, {str(c["layer"]) for c in found})


def read_inputs(
    items: Iterable[InputItem], options: CaptureOptions, limits: CaptureSettings, settings: Settings | None = None,
) -> list[ReadInput | CaptureOutcome]:
    """Read and extract every input (and check it for credentials) without the writer lock: extraction
    may be slow or hostile and must never hold up other writers. An input that holds many (a chat export,
    an mbox) becomes one entry per capture it holds; a chat page gets the layer its channel maps to
    (`settings` [channels]). A refused input is a failed outcome."""
    out: list[ReadInput | CaptureOutcome] = []
    settings = settings or Settings(capture=limits)
    for item in items:
        try:
            if item.size is not None and item.size > limits.max_bytes:
                read_input(item, limits)  # refuses it, unread, with the usual line
            data = item.read()
            parts = expand(item, data, limits) if len(data) <= limits.max_bytes else None
        except InputError as exc:
            out.append(CaptureOutcome(locator=item.locator, status="failed", message=exc.message, rule=exc.rule))
            continue
        except OSError as exc:
            out.append(_unreadable(item, exc))
            continue
        for part in parts if parts is not None else [_holding(item, data)]:
            try:
                read = read_input(part, limits, redact=options.redact)
                if options.replay_ids is None:  # an import keeps the layer its bundle names
                    layer = chat_layer(settings, read.extraction, part.locator, options.layer)
                    read = replace(read, layer=layer) if layer != options.layer else read
                out.append(read)
            except InputError as exc:
                out.append(CaptureOutcome(locator=part.locator, status="failed", message=exc.message, rule=exc.rule))
            except OSError as exc:
                out.append(_unreadable(part, exc))
    return out


def _holding(item: InputItem, data: bytes) -> InputItem:
    """The item with the bytes already read, so that reading it again reads nothing from disk."""
    return replace(item, read=lambda: data)


def _unreadable(item: InputItem, exc: OSError) -> CaptureOutcome:
    return CaptureOutcome(locator=item.locator, status="failed", message=f"{item.locator}: cannot read ({exc.strerror})",
                          rule="unreadable")


def capture(
    repo: Repository,
    items: Iterable[InputItem | ReadInput | CaptureOutcome],
    options: CaptureOptions,
    on_event: Callable[[str, CaptureOutcome], None] | None = None,
    planners: PlannerFactory | None = None,
) -> list[CaptureOutcome]:
    """Capture each item as its own operation. Call with the writer lock held, after `validate(repo,
    options)`, ideally with inputs that `read_inputs` already read (an InputItem is read here, under the
    lock). Bad inputs are reported as failed outcomes and change nothing; the others still land."""
    items = list(items)
    outcomes: list[CaptureOutcome] = []

    def report(kind: str, outcome: CaptureOutcome) -> None:
        outcomes.append(outcome)
        if on_event:
            on_event(kind, outcome)

    reads: list[ReadInput | CaptureOutcome] = []
    for entry in items:
        reads += read_inputs([entry], options, repo.settings.capture, repo.settings) if isinstance(entry, InputItem) else [entry]
    single = len(reads) == 1
    for read in reads:
        if isinstance(read, CaptureOutcome):
            report(read.status, read)
            continue
        item = read.item
        layer = read.layer or options.layer
        refused = _layer_refusal(repo, options, layer, item.locator) if layer != options.layer else None
        if refused is not None:
            report(refused.status, refused)
            continue
        if not options.force:
            existing = repo.state.find_capture(sha256_hex(read.data), layer)
            if existing is not None:
                restored = restore_evidence(repo, existing.source_path, existing.content_sha, read.data)
                report("exists", CaptureOutcome(
                    locator=item.locator,
                    status="exists",
                    capture_id=existing.capture_id,
                    source_path=existing.source_path,
                    op_id=existing.op_id,
                    message="already captured" + (f"; restored its {' and '.join(restored)} bytes" if restored else ""),
                ))
                continue
        queued = acknowledge(repo, read, options if layer == options.layer else replace(options, layer=layer),
                             single=single)
        if on_event:
            acked = CaptureOutcome(locator=item.locator, status="acknowledged", capture_id=queued.capture_id,
                                   op_id=queued.op_id)
            on_event("acknowledged", acked)
        repo.pause("ack")
        outcome = process(repo, queued, planners)
        report(outcome.status, outcome)
    return outcomes


def _layer_refusal(repo: Repository, options: CaptureOptions, layer: str, locator: str) -> CaptureOutcome | None:
    """A chat page mapped to another layer obeys the rule --layer does: the layer exists and the person
    capturing is one of its readers (writing into a layer is reading it). Else one failed line."""
    from stigmergy.layers import readable_layers

    try:
        repo.settings.layer(layer)
    except StigmergyError as exc:
        return CaptureOutcome(locator=locator, status="failed", message=f"{locator}: {exc.message}", rule="unknown-layer")
    if options.reader is not None and layer not in readable_layers(repo.settings, options.reader):
        return CaptureOutcome(
            locator=locator, status="failed", rule="not-a-reader",
            message=f"{locator}: {options.reader or 'an unnamed reader'} is not a reader of layer {layer!r}, which "
                    "[channels] maps this channel to; nothing was stored",
        )
    return None


def file_captures(
    repo: Repository,
    capture_ids: Iterable[str] | None = None,
    planners: PlannerFactory | None = None,
    on_event: Callable[[str, CaptureOutcome], None] | None = None,
    reader: str | None = None,
) -> list[CaptureOutcome]:
    """File archived captures (all unfiled ones when `capture_ids` is None), in capture order, one
    operation each. Call with the writer lock held. With a `reader`, filing obeys the rule capture does:
    writing into a layer is reading it, so a named capture of a layer the reader cannot read is a usage
    error (nothing filed), and the default set holds only the reader's layers."""
    from stigmergy.layers import readable_layers
    from stigmergy.write.filing import propose

    rows = repo.state.captures()
    readable = None if reader is None else set(readable_layers(repo.settings, reader))
    if capture_ids is None:
        chosen = [r for r in rows if not r.filed and (readable is None or r.layer in readable)]
    else:
        by_id = {r.capture_id: r for r in rows}
        chosen = []
        for cid in capture_ids:
            matches = [r for k, r in by_id.items() if k == cid or k.startswith(cid)]
            if len(matches) != 1:
                raise NotFoundError(f"no single capture matches {cid!r}", hint="`stigmergy log --kind capture` lists them")
            chosen.append(matches[0])
        for row in chosen:
            if readable is not None and row.layer not in readable:
                raise UsageError(
                    f"{row.capture_id}: {reader or 'an unnamed reader'} is not a reader of layer {row.layer!r}, "
                    "so cannot file its captures",
                    hint="file it as one of the layer's readers (--as)",
                )
        chosen.sort(key=lambda r: r.capture_id)
    planner = _planners(repo, planners)()
    outcomes = []

    def report(outcome: CaptureOutcome) -> None:
        outcomes.append(outcome)
        if on_event:
            on_event(outcome.status, outcome)

    for row in chosen:
        rel = row.source_path
        page = parse_source_page((repo.root / rel).read_text(encoding="utf-8"), rel)
        if row.filed:
            # Filing is idempotent: an already-filed capture is never planned (or committed) again.
            report(CaptureOutcome(locator=page.locator, status="unchanged", capture_id=page.id, source_path=rel,
                                  op_id=row.op_id, message="already filed; nothing to do"))
            continue
        op = Operation.start("file")
        info = op.info(
            capture_id=page.id, source_path=rel,
            resolves=page.resolution.resolves if page.resolution else None,
            rationale=page.resolution.rationale if page.resolution else None,
            occurred_at=page.occurred_at,
        )
        result = propose(repo.root, repo.settings, rel, info, planner, authorship(repo))
        waits = uncommitted_pages(repo, list(result.verdict.changes)) if result.verdict.ok else []
        if waits or (result.verdict.ok and not result.verdict.changes):
            # Nothing is committed: a person's uncommitted edit is never swept into our commit, and an
            # empty filing is no operation.
            status = "waiting" if waits else "unchanged"
            message = waiting_message(waits) if waits else "nothing to file: the wiki already holds what this source says"
            report(CaptureOutcome(locator=page.locator, status=status, capture_id=page.id, source_path=rel,
                                  message=message))
            continue
        done = commit_verdict(
            repo, op, page.title, result.verdict, summary=result.plan.summary,
            manifest={"capture": page.id, "planner": result.record, "plan_summary": result.plan.summary},
            capture=dataclasses.replace(row, filed=True),
            trailers={TRAILER_CAPTURE: page.id, TRAILER_FILING: "filed"},
        )
        if done.refused is None:
            status, message, rule, violations = "filed", result.plan.summary, None, ()
            pages = tuple(sorted(result.verdict.changes))
        else:
            status, message, rule = "refused", done.refused.message, done.refused.rule
            violations, pages = done.refused.violations, ()
        report(CaptureOutcome(
            locator=page.locator, status=status, capture_id=page.id, source_path=rel, op_id=op.op_id,
            commit=done.row.commit_sha, message=message, rule=rule, violations=violations, pages=pages,
        ))
    return outcomes


def uncommitted_pages(repo: Repository, paths: list[str], seen: Authorship | None = None) -> list[str]:
    """Wiki pages among `paths` whose working file differs from HEAD: a person's edit not yet committed.
    A filing that would write one waits, since our commit would carry (and claim) the person's edit.
    `seen`: the gates' Authorship, whose `git status` (moments ago, for these same pages) answers when it
    asked about every one of them: one git process less per capture."""
    wiki = [p for p in paths if (classify(p) or ("source", ""))[0] != "source"]
    if not wiki:
        return []
    known = seen.changed(wiki) if seen is not None else None
    if known is not None:
        return known
    return sorted({entry[3:] for entry in repo.git.status_porcelain(*wiki) if len(entry) > 3})


def waiting_message(paths: list[str]) -> str:
    return (f"filing waits: {', '.join(paths)} has uncommitted edits; commit them, then run `stigmergy file`")
