"""What capture hands to the write path: a frozen `QueuedCapture`, acknowledged once its bytes are in
the evidence store and its queue row is committed. From then on a crash loses nothing, because
`stigmergy.write.capture.resume` (run first by every writing command) finishes it.

Capture owns its inputs and their extraction; rendering, filing and committing belong to `stigmergy.write`.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stigmergy.capture.dates import calendar_when
from stigmergy.capture.inputs import InputItem
from stigmergy.errors import InputError, UsageError
from stigmergy.layers import readable_layers
from stigmergy.pages.source import Artifact, Resolution, SourcePage
from stigmergy.repo.evidence import sha256_hex
from stigmergy.repo.ids import new_id
from stigmergy.repo.layout import source_relpath
from stigmergy.repo.operations import Repository, utc_now
from stigmergy.settings import PUBLIC_LAYER, CaptureSettings, Settings

if TYPE_CHECKING:  # extraction pulls in the format readers; load them only when a capture runs
    from stigmergy.capture.extract import Extraction

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
    # Who captures, as a reader: capturing into a layer needs being one of its readers. None only for
    # callers that are not a person (tests of the pipeline, replays); every interface passes it.
    reader: str | None = None
    redact: bool = False  # store a redacted copy instead of refusing an input that holds a credential
    # (capture id, operation id, captured_at) to keep: an import replaying another repository's capture
    # (write/replay.py checks they are well-formed and free here).
    replay_ids: tuple[str, str, str] | None = None


@dataclass(frozen=True)
class ReadInput:
    """An input read and extracted (outside the writer lock), checked for credentials: what `acknowledge`
    stores. `redaction` is set when a credential was redacted: {original_sha256, findings}."""

    item: InputItem
    data: bytes
    extraction: Extraction
    redaction: Mapping[str, Any] | None = None
    layer: str | None = None  # the layer it goes to when not the capture's --layer (a mapped chat channel)


@dataclass(frozen=True)
class QueuedCapture:
    """One acknowledged capture, as its queue row holds it (the row's JSON keys are these field names,
    so rows written by earlier versions still resume)."""

    capture_id: str
    op_id: str
    title: str
    captured_at: str
    occurred_at: str
    submitted_by: str
    layer: str
    origin: str
    locator: str
    project: str | None
    metadata: Mapping[str, Any]
    resolves: str | None
    rationale: str | None
    content_sha: str
    readable_sha: str
    artifacts: tuple[Artifact, ...]
    file: bool
    force: bool
    redaction: Mapping[str, Any] | None = None

    @property
    def source_path(self) -> str:
        return source_relpath(self.layer, self.captured_at, self.capture_id)

    def source_page(self, text: str) -> SourcePage:
        return SourcePage(
            id=self.capture_id,
            title=self.title,
            captured_at=self.captured_at,
            occurred_at=self.occurred_at,
            submitted_by=self.submitted_by,
            layer=self.layer,
            origin=self.origin,
            locator=self.locator,
            artifacts=self.artifacts,
            text=text,
            project=self.project,
            metadata=dict(self.metadata),
            resolution=Resolution(self.resolves, self.rationale or "") if self.resolves else None,
        )

    def to_record(self) -> dict[str, Any]:
        return {
            "capture_id": self.capture_id,
            "op_id": self.op_id,
            "title": self.title,
            "captured_at": self.captured_at,
            "occurred_at": self.occurred_at,
            "submitted_by": self.submitted_by,
            "layer": self.layer,
            "origin": self.origin,
            "locator": self.locator,
            "project": self.project,
            "metadata": dict(self.metadata),
            "resolves": self.resolves,
            "rationale": self.rationale,
            "content_sha": self.content_sha,
            "readable_sha": self.readable_sha,
            "artifacts": [a.to_dict() for a in self.artifacts],
            "file": self.file,
            "force": self.force,
            "redaction": dict(self.redaction) if self.redaction else None,
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> QueuedCapture:
        return cls(
            capture_id=record["capture_id"],
            op_id=record["op_id"],
            title=record["title"],
            captured_at=record["captured_at"],
            occurred_at=record["occurred_at"],
            submitted_by=record["submitted_by"],
            layer=record["layer"],
            origin=record["origin"],
            locator=record["locator"],
            project=record.get("project"),
            metadata=record.get("metadata") or {},
            resolves=record.get("resolves"),
            rationale=record.get("rationale"),
            content_sha=record["content_sha"],
            readable_sha=record["readable_sha"],
            artifacts=tuple(Artifact(**a) for a in record["artifacts"]),
            file=bool(record.get("file")),
            force=bool(record.get("force")),
            redaction=record.get("redaction"),
        )


def validate_options(repo: Repository, options: CaptureOptions) -> None:
    """Usage errors (exit 2) before anything is read or stored."""
    repo.settings.layer(options.layer)  # unknown layer -> ConfigError
    repo.require_layer_checkout(options.layer)  # a layer in its own repository needs its checkout here
    if options.reader is not None and options.layer not in readable_layers(repo.settings, options.reader):
        # Writing into a layer is reading it (the planner reads its pages), so only its readers may.
        raise UsageError(
            f"--layer {options.layer}: {options.reader or 'an unnamed reader'} is not a reader of layer "
            f"{options.layer!r}, so cannot capture into it",
            hint=f"capture as one of its readers (--as), or ask to be added to [layers.{options.layer}] readers",
        )
    if options.occurred_at is not None and calendar_when(options.occurred_at) is None:
        raise UsageError(
            f"--occurred-at {options.occurred_at!r} is not a calendar date or time (YYYY-MM-DD[THH:MM[:SS]])"
        )
    if (options.resolves is None) != (options.rationale is None):
        raise UsageError("--resolves and --rationale go together")
    if options.resolves is not None and not re.match(r"^con_[A-Za-z0-9_-]+$", options.resolves):
        raise UsageError(f"--resolves {options.resolves!r} is not a contradiction id (con_…)")


def read_input(item: InputItem, limits: CaptureSettings, redact: bool = False) -> ReadInput:
    """Read, extract and check one input: the part of a capture that may be slow or hostile, done before
    the writer lock is taken. Raises InputError (or OSError) when it refuses; a refusal stores nothing."""
    from stigmergy.capture.extract import extract

    if item.size is not None and item.size > limits.max_bytes:
        raise InputError(item.locator, "too-large", f"is {item.size} bytes, over the {limits.max_bytes}-byte limit")
    data = item.read()
    try:
        extraction = extract(data, item.origin_name or item.locator, limits, media_type=item.media_type)
    except InputError as exc:
        if exc.locator != item.origin_name:
            raise
        # `text.txt` only tells extraction to read plain text: the person typed --text or piped stdin.
        label = _INPUT_LABELS.get(item.locator, item.locator)
        raise InputError(label, exc.rule, exc.detail, hint=exc.hint) from None
    metadata = _jsonable(extraction.metadata or {})
    for key in ("occurred_at", "date"):
        value = metadata.get(key)
        if isinstance(value, str) and value.strip() and calendar_when(value) is None and _looks_dated(value):
            raise InputError(item.locator, "bad-date", f"front matter {key} {value.strip()[:40]!r} is not a calendar date")
    return _check_secrets(ReadInput(item, data, extraction), redact)


def chat_layer(settings: Settings, extraction: Extraction, locator: str, default: str) -> str:
    """The layer a chat page goes to: its channel's `[channels]` mapping, else `default` for a public
    channel. A private channel, a group message or a direct message with no mapping is refused: it is
    never filed into the capture's layer (which is public by default)."""
    chat = extraction.metadata.get("chat") if isinstance(extraction.metadata, Mapping) else None
    if not isinstance(chat, Mapping):
        return default
    label, cid, kind = str(chat.get("channel", "")), str(chat.get("channel_id", "")), str(chat.get("kind", ""))
    mapped = settings.channel_layer(label, label.lstrip("#"), cid)
    if mapped is not None:
        return mapped
    if kind != "public":
        what = {"private": "a private channel", "mpim": "a group message", "dm": "a direct message"}.get(
            kind, "a private conversation")
        raise InputError(
            locator, "private-channel",
            f"{label} is {what} that [channels] in stigmergy.toml does not map to a layer; nothing was stored",
            hint=f'map it to a restricted layer: [channels] "{label}" = "LAYER"',
        )
    return default


def _looks_dated(value: str) -> bool:
    # `date: 2026-13-45` is an impossible date; `date: next week` is prose, not a date at all.
    return re.match(r"^\s*\d{4}-\d{1,2}-\d{1,2}", value) is not None


def _check_secrets(read: ReadInput, redact_them: bool) -> ReadInput:
    """Refuse an input that holds a credential (InputError naming the line and kind), or with `redact_them`
    return it with every copy redacted: what the evidence store, source page, wiki and index will hold."""
    from stigmergy.capture.secrets import find_secrets, find_secrets_each, redact

    ex = read.extraction
    original = None if ex.covers_original else _text_or_none(read.data)
    if redact_them:
        readable = ex.text
    else:
        # A readable line that is verbatim a line of the original was scanned already: scan only the others
        # (blanked, so line numbers hold), which halves the cost of the common case, text and Markdown.
        seen = set(original.split("\n")) if original is not None else set()
        readable = "\n".join("" if ln in seen else ln for ln in ex.text.split("\n"))
    meta_text = json.dumps(ex.metadata, ensure_ascii=False, indent=1, default=str) if ex.metadata else ""
    in_original, in_readable, in_meta = find_secrets_each([original or "", readable, f"{meta_text}\n{ex.title or ''}"])
    if not (in_original or in_readable or in_meta):
        return read
    first = (in_original or in_readable or in_meta)[0]
    where = f"line {first.line}" if (in_original or in_readable) else "front matter or title"
    kinds = sorted({f.kind for f in (*in_original, *in_readable, *in_meta)})
    if not redact_them:
        raise InputError(
            read.item.locator, "secret", f"{where} holds a credential ({first.kind}); nothing was stored",
            hint="remove it from the input, or capture with --redact to store a redacted copy",
        )
    values = {f.value for f in (*in_original, *in_readable, *in_meta) if f.value}
    text = redact(ex.text, in_readable)
    for value in sorted(values, key=len, reverse=True):
        text = text.replace(value, "[REDACTED]")
    title = ex.title
    if title and any(v in title for v in values) or find_secrets(title or ""):
        title = None
    metadata = _redact_values(ex.metadata, values, find_secrets)
    if find_secrets(text) or find_secrets(json.dumps(metadata, ensure_ascii=False, indent=1, default=str)):
        raise InputError(read.item.locator, "secret", f"{where} holds a credential ({first.kind}) that could not be "
                         "redacted; nothing was stored", hint="remove it from the input")
    redacted = replace(ex, text=text, title=title, metadata=metadata)
    findings = sorted({(f.line, f.kind) for f in (*in_original, *in_readable)})
    return ReadInput(
        read.item,
        text.encode("utf-8"),  # the original bytes hold the secret: the stored copy is the redacted text
        redacted,
        {"original_sha256": sha256_hex(read.data), "original_bytes": len(read.data), "kinds": kinds,
         "lines": [n for n, _ in findings]},
    )


def _text_or_none(data: bytes) -> str | None:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


def _redact_values(value: Any, secrets: set[str], find: Any) -> Any:
    if isinstance(value, dict):
        return {k: _redact_values(v, secrets, find) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact_values(v, secrets, find) for v in value]
    if isinstance(value, str) and (any(s in value for s in secrets) or find(value)):
        return "[REDACTED]"
    return value


def acknowledge(
    repo: Repository, read: ReadInput, options: CaptureOptions, *, single: bool
) -> QueuedCapture:
    """Store the bytes and the readable text, and commit the queue row: the capture is acknowledged."""
    item, data, extraction = read.item, read.data, read.extraction
    title = ((options.title if options.title and single else None) or extraction.title
             or (_title_from_first_line(extraction.text) if item.locator in _INPUT_LABELS else None)
             or _title_from_locator(item.locator))
    title = " ".join(title.split())[:200] or "Untitled"
    metadata = _jsonable(extraction.metadata or {})
    captured_at = options.replay_ids[2] if options.replay_ids else utc_now()
    readable = _strip_leading_h1(extraction.text, title)
    if not readable.strip():
        readable = extraction.text
    content_sha = repo.evidence.put(data)
    readable_sha = repo.evidence.put(readable.encode("utf-8"))
    carried = () if read.redaction else tuple(_attachment_artifact(repo, a) for a in extraction.attachments)
    project = options.project or (str(metadata["project"]) if isinstance(metadata.get("project"), str) else None)
    artifact = Artifact(
        sha256=content_sha,
        bytes=len(data),
        media_type=extraction.media_type,
        readable_sha256=readable_sha,
        extractor=extraction.extractor,
        extractor_version=extraction.extractor_version,
    )
    if read.redaction:
        # What is stored is the redacted text, so the artifact says so (the original's hash is in the
        # change record's manifest).
        artifact = replace(artifact, media_type="text/plain", extractor="redacted",
                           extractor_version=f"{extraction.extractor} {extraction.extractor_version}")
    queued = QueuedCapture(
        capture_id=options.replay_ids[0] if options.replay_ids else new_id("cap"),
        op_id=options.replay_ids[1] if options.replay_ids else new_id("op"),
        title=title,
        captured_at=captured_at,
        occurred_at=options.occurred_at or _metadata_date(metadata) or _date_from_locator(item.locator)
        or captured_at[:10],
        submitted_by=extraction.author or options.submitted_by,
        layer=options.layer,
        origin=options.origin,
        locator=item.locator,
        project=project,
        metadata=metadata,
        resolves=options.resolves,
        rationale=options.rationale,
        content_sha=content_sha,
        readable_sha=readable_sha,
        artifacts=(artifact, *carried),
        file=options.file,
        force=options.force,
        redaction=read.redaction,
    )
    repo.state.enqueue(queued.capture_id, queued.op_id, captured_at, queued.to_record())
    return queued


def _attachment_artifact(repo: Repository, attached: Any) -> Artifact:
    # Each carried file is an artifact of its own: its bytes and its readable text in the evidence store.
    return Artifact(sha256=repo.evidence.put(attached.data), bytes=len(attached.data), media_type=attached.media_type,
                    readable_sha256=repo.evidence.put(attached.text.encode("utf-8")), extractor=attached.extractor,
                    extractor_version=attached.extractor_version)


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


_INPUT_LABELS = {"text": "--text", "stdin": "stdin"}
_FIRST_LINE_TITLE_MAX = 80


def _title_from_first_line(text: str) -> str | None:
    """Typed or piped text has no file name: its first line, cut at a word near 80 characters, titles it."""
    for line in text.split("\n"):
        words = " ".join(line.strip().lstrip("#>*- ").split())
        if words:
            if len(words) <= _FIRST_LINE_TITLE_MAX:
                return words
            cut = words[: _FIRST_LINE_TITLE_MAX - 1]
            return (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip(" ,;:.") + "…"
    return None


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
        if isinstance(value, str) and calendar_when(value) is not None:
            return value.strip()
    return None
