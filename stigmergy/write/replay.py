"""`stigmergy import`: replay an export bundle into this repository through the capture pipeline.

Each capture is captured again from its original bytes, in bundle order, with the metadata it had (title,
occurred_at, submitted_by, layer, project, locator; origin `import`), and filed by this repository's
planner: the gates judge everything again, and no page, vector or index row is copied. Idempotent: a
capture whose bytes this repository already holds in that layer (as many times as the bundle has them so
far) is skipped, so a second import files nothing. A resolution names a contradiction by an id of the
exporting repository; it is mapped to the contradiction here with the same subject whose claims cite the
same (replayed) captures, and dropped, with a note, when there is none.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stigmergy.capture.inputs import InputItem
from stigmergy.capture.queue import CaptureOptions, validate_options
from stigmergy.errors import ConfigError, StigmergyError, UsageError
from stigmergy.history.bundle import Bundle, BundleEntry, read_bundle
from stigmergy.history.layer_repos import present, tracked
from stigmergy.pages.contradictions import scan_blocks
from stigmergy.pages.paths import unsafe_relpath_reason
from stigmergy.repo.evidence import sha256_hex
from stigmergy.repo.layout import classify
from stigmergy.repo.operations import Repository
from stigmergy.write.capture import CaptureOutcome, capture, outcomes_exit_code, validate
from stigmergy.write.curation import replay_curation, replay_human_lines

# Media types an export's part was read as (a chat page, one mbox message): replayed by type, not by name.
_PART_TYPES = ("application/x-stigmergy-chat+json", "message/rfc822")

if TYPE_CHECKING:
    from stigmergy.write.filing import PlannerFactory


@dataclass
class ImportReport:
    outcomes: list[CaptureOutcome] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    curation: dict[str, int] = field(default_factory=dict)  # replayed | in-effect | not-replayed | human-lines
    feedback: dict[str, int] = field(default_factory=dict)  # imported | already-here | no-page

    @property
    def exit_code(self) -> int:
        return outcomes_exit_code(self.outcomes)

    def to_dict(self) -> dict[str, Any]:
        counts = Counter(o.status for o in self.outcomes)
        return {"captures": [o.to_dict() for o in self.outcomes], "counts": dict(counts), "notes": self.notes,
                "curation": self.curation, "feedback": self.feedback}


def _contradiction_id(repo: Repository, described: Mapping[str, Any] | None, ids: Mapping[str, str]) -> str | None:
    """The id here of the contradiction `described` (subject + claims by old capture id), if there is one."""
    if not described:
        return None
    want = sorted((ids.get(c["capture_id"], "?"), c["start"], c["end"]) for c in described.get("claims", []))
    for path in tracked(repo, present(repo), "wiki"):
        kind = classify(path)
        if not kind or kind[0] == "source":
            continue
        text = (repo.root / path).read_text(encoding="utf-8")
        if "stigmergy:contradiction" not in text:
            continue
        for b in scan_blocks(text, path)[0]:
            have = sorted((c.source, c.start, c.end) for c in b.record.claims)
            if b.record.subject == described.get("subject") and have == want:
                return b.record.id
    return None


def import_bundle(
    repo: Repository,
    src: Path,
    planners: PlannerFactory | None = None,
    on_event: Callable[[str, CaptureOutcome], None] | None = None,
    reader: str | None = None,
) -> ImportReport:
    """Replay the bundle at `src`. Call with the writer lock held, after `write.recovery.refuse_while_pending`.
    With `reader`, every layer the bundle writes into (captures, curation, people's lines) must be one they
    may read, as a capture into it would need: else nothing is imported (exit 2)."""
    bundle: Bundle = read_bundle(src)
    if reader is not None:
        _check_reader(repo, bundle, reader)
    missing = sorted({e.layer for e in bundle.entries} - set(repo.settings.layer_names()))
    kept_apart = _own_repository_layers(bundle)
    if missing:
        lines = "; ".join(
            f"[layers.{m['name']}] readers = {m['readers']}"
            + (" and repository = (its own repository)" if m.get("name") in kept_apart else "")
            for m in bundle.manifest.get("layers", []) if m.get("name") in missing
        )
        raise ConfigError(f"the bundle has captures of undeclared layer(s) {', '.join(missing)}",
                          hint=f"declare them in stigmergy.toml first: {lines}")
    # A layer the exporter kept in a repository of its own stays in one here: filed into this repository,
    # its bytes would reach everyone who may clone it.
    used = {e.layer for e in bundle.entries} | {c.layer for _, c in bundle.curation}
    if merged := sorted(la for la in kept_apart & used if la not in repo.own_repository_layers):
        raise ConfigError(f"layer {', '.join(merged)} was kept in a repository of its own where it was exported, "
                          "and is not here; nothing imported",
                          hint=f"give [layers.{merged[0]}] a `repository` in stigmergy.toml and clone that "
                               f"repository at layers/{merged[0]}/, then import again")
    for layer in sorted(used & repo.own_repository_layers):
        repo.require_layer_checkout(layer)  # refused (exit 2, what to clone) before anything is filed
    for entry in bundle.entries:  # every entry's metadata is checked before anything is filed
        try:
            validate_options(repo, _options(entry, None, None, False))
        except StigmergyError as exc:
            raise StigmergyError(f"{src}: capture {entry.seq} ({entry.locator}): {exc.message}") from exc
    report = ImportReport()
    ids: dict[str, str] = {}  # exporting capture id -> capture id here
    seen: Counter[tuple[str, str]] = Counter()
    taken = {row.capture_id for row in repo.state.captures()}
    curation = list(bundle.curation)
    def replay_next() -> None:
        # The entries of one garden operation (aliases learned on several pages) go as one operation.
        first = curation.pop(0)[1]
        more = []
        while first.op_id and curation and curation[0][1].op_id == first.op_id:
            more.append(curation.pop(0)[1])
        replay_curation(repo, first, report, more=more)

    for entry in bundle.entries:
        while curation and curation[0][0] < entry.seq:
            replay_next()
        key = (entry.sha256, entry.layer)
        seen[key] += 1
        have = repo.state.captures_of_content(*key)
        if len(have) >= seen[key]:
            ids[entry.capture_id] = have[seen[key] - 1]
            outcome = CaptureOutcome(locator=entry.locator, status="exists", capture_id=ids[entry.capture_id],
                                     message="already imported")
            report.outcomes.append(outcome)
            if on_event:
                on_event("exists", outcome)
            continue
        keep = _free_ids(repo, entry, taken)
        outcome = _replay(repo, bundle, entry, ids, seen[key] > 1, report, planners, on_event, keep)
        if outcome.capture_id:
            ids[entry.capture_id] = outcome.capture_id
            taken.add(outcome.capture_id)
    while curation:
        replay_next()
    replay_human_lines(repo, bundle.human, report)
    _replay_feedback(repo, bundle, ids, report)
    return report


def _own_repository_layers(bundle: Bundle) -> set[str]:
    """The bundle's layers its manifest says were kept in a repository of their own (any non-empty value:
    the manifest is untrusted, and only this fact about it is used)."""
    return {str(m["name"]) for m in bundle.manifest.get("layers") or []
            if isinstance(m, dict) and isinstance(m.get("name"), str) and m.get("repository")}


def _replay_feedback(repo: Repository, bundle: Bundle, ids: Mapping[str, str], report: ImportReport) -> None:
    """The bundle's feedback records, pointed at this repository's pages (a wiki page by its path, a source
    page by its replayed capture) and committed as one operation. A record whose id is already here is
    skipped, so a second import adds nothing; one whose page is not here is dropped, with a note."""
    if not bundle.feedback:
        return
    from stigmergy.trust.records import iter_records
    from stigmergy.write.trust import commit_batches, record

    have = {r.id for r in iter_records(repo.root)}
    counts = {"imported": 0, "already-here": 0, "no-page": 0}
    for r in bundle.feedback:
        if r.id in have:
            counts["already-here"] += 1
            continue
        target = _page_here(repo, r.page, r.path, r.layer, ids)
        if target is None:
            counts["no-page"] += 1
            continue
        captures = tuple(ids[c] for c in r.captures if c in ids)
        record(repo.root, repo.layout.state_dir, replace(r, page=target[0], path=target[1], captures=captures))
        counts["imported"] += 1
    if counts["imported"]:
        commit_batches(repo, "feedback", "feedback imported from a bundle", manifest={"bundle": str(bundle.root)})
    if counts["no-page"]:
        report.notes.append(f"{counts['no-page']} feedback record(s) concern pages this repository does not have; "
                            "not imported")
    report.feedback = counts


_ID_LINE_RE = re.compile(r"^id: ['\"]?((?:pg|cap)_[0-9A-Z]{26})['\"]?$", re.M)


def _page_here(repo: Repository, page: str, path: str, layer: str, ids: Mapping[str, str]) -> tuple[str, str] | None:
    """(page id, path) here of the page a bundle's record names: a source page by its capture's id here, a wiki
    page at the same path (the bundle's paths are untrusted: a page path of the record's own layer only)."""
    if page.startswith("cap_"):
        new = ids.get(page)
        if new is None:
            return None
        found = [p for p in tracked(repo, present(repo), "sources") if p.endswith(f"/{new}.md")
                 and (classify(p) or ("", ""))[0] == "source"]
        return (new, found[0]) if found else None
    kind = classify(path)
    if unsafe_relpath_reason(path) is not None or kind is None or kind[0] == "source" or kind[1] != layer:
        return None
    full = repo.root / path
    if full.is_symlink() or not full.is_file():
        return None
    m = _ID_LINE_RE.search(full.read_text(encoding="utf-8", errors="replace").split("\n---\n", 1)[0])
    return (m.group(1), path) if m else None


def _check_reader(repo: Repository, bundle: Bundle, reader: str) -> None:
    from stigmergy.layers import path_layer, readable_layers

    layers = {e.layer for e in bundle.entries} | {c.layer for _, c in bundle.curation} \
        | {path_layer(h.page) for h in bundle.human}
    denied = sorted(str(la) for la in layers - set(readable_layers(repo.settings, reader))
                    if str(la) in repo.settings.layer_names())
    if denied:
        raise UsageError(f"{bundle.root}: {reader or 'an unnamed reader'} is not a reader of layer "
                         f"{', '.join(denied)}, which the bundle writes into; nothing was imported",
                         hint="import as one of its readers (--as), as a capture into that layer would need")


_CAP_RE = re.compile(r"^cap_[0-9A-Z]{26}$")
_OP_RE = re.compile(r"^op_[0-9A-Z]{26}$")
_TS_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")


def _free_ids(repo: Repository, entry: BundleEntry, taken: set[str]) -> tuple[str, str, str] | None:
    """The exporting repository's (capture id, operation id, captured_at), kept when they are well-formed
    and unused here: the replayed wiki then cites the same source pages, byte for byte. Else new ones."""
    if not (entry.op_id and _CAP_RE.match(entry.capture_id) and _OP_RE.match(entry.op_id)
            and _TS_RE.match(entry.captured_at)):
        return None
    if entry.capture_id in taken or repo.state.has_operation(entry.op_id):
        return None
    return entry.capture_id, entry.op_id, entry.captured_at


def _options(entry: BundleEntry, resolves: str | None, rationale: str | None, force: bool,
             keep: tuple[str, str, str] | None = None) -> CaptureOptions:
    return CaptureOptions(
        title=entry.title, occurred_at=entry.occurred_at, submitted_by=entry.submitted_by, layer=entry.layer,
        project=entry.project, resolves=resolves, rationale=rationale, force=force, file=True, origin="import",
        replay_ids=keep,
    )


def _replay(
    repo: Repository, bundle: Bundle, entry: BundleEntry, ids: dict[str, str], force: bool, report: ImportReport,
    planners: PlannerFactory | None, on_event: Callable[[str, CaptureOutcome], None] | None,
    keep: tuple[str, str, str] | None = None,
) -> CaptureOutcome:
    data = bundle.read(entry)
    if sha256_hex(data) != entry.sha256:
        raise StigmergyError(f"{entry.file}: content changed while importing")
    resolves = rationale = None
    if entry.resolution:
        resolves = _contradiction_id(repo, entry.resolution.get("contradiction"), ids)
        if resolves is None:
            report.notes.append(
                f"{entry.locator}: resolved {entry.resolution.get('resolves')} in the exported repository; "
                "no matching contradiction here, so it was captured without the resolution"
            )
        else:
            rationale = str(entry.resolution.get("rationale") or "")
    options = _options(entry, resolves, rationale, force, keep)
    # Detected again from the name, as the first capture did (stdin and --text had a `.txt` name).
    name = f"{entry.locator}.txt" if entry.locator in ("stdin", "text") else None
    # The media type it was read as, so that a part of an export (a chat page, one mbox message, named
    # `team.mbox:3`) reads back as it did, not by its locator's extension.
    item = InputItem(locator=entry.locator, read=lambda: data, size=len(data), origin_name=name,
                     media_type=entry.media_type if entry.media_type in _PART_TYPES else None)
    validate(repo, options)
    outcomes = capture(repo, [item], options, on_event=on_event, planners=planners)
    report.outcomes.extend(outcomes)
    return outcomes[-1]
