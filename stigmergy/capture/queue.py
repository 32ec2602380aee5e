"""What capture hands to the write path: a frozen `QueuedCapture`, acknowledged once its bytes are in
the evidence store and its queue row is committed. From then on a crash loses nothing, because
`stigmergy.write.capture.resume` (run first by every writing command) finishes it.

Capture owns its inputs and their extraction; rendering, filing and committing belong to `stigmergy.write`.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stigmergy.capture.inputs import InputItem
from stigmergy.errors import InputError, UsageError
from stigmergy.pages.source import Artifact, Resolution, SourcePage
from stigmergy.repo.ids import new_id
from stigmergy.repo.layout import source_relpath
from stigmergy.repo.operations import Repository, utc_now
from stigmergy.settings import PUBLIC_LAYER, CaptureSettings

if TYPE_CHECKING:  # extraction pulls in the format readers; load them only when a capture runs
    from stigmergy.capture.extract import Extraction

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
        )


def validate_options(repo: Repository, options: CaptureOptions) -> None:
    repo.settings.layer(options.layer)  # unknown layer -> ConfigError
    if options.occurred_at is not None and not _DATE_RE.match(options.occurred_at):
        raise UsageError(f"--occurred-at {options.occurred_at!r} is not an ISO date (YYYY-MM-DD[THH:MM[:SS]])")
    if (options.resolves is None) != (options.rationale is None):
        raise UsageError("--resolves and --rationale go together")
    if options.resolves is not None and not re.match(r"^con_[A-Za-z0-9_-]+$", options.resolves):
        raise UsageError(f"--resolves {options.resolves!r} is not a contradiction id (con_…)")


def read_input(item: InputItem, limits: CaptureSettings) -> tuple[bytes, Extraction]:
    """The input's bytes and readable text. Raises InputError (or OSError) when it refuses."""
    from stigmergy.capture.extract import extract

    if item.size is not None and item.size > limits.max_bytes:
        raise InputError(item.locator, "too-large", f"is {item.size} bytes, over the {limits.max_bytes}-byte limit")
    data = item.read()
    return data, extract(data, item.origin_name or item.locator, limits, media_type=item.media_type)


def acknowledge(
    repo: Repository, item: InputItem, data: bytes, extraction: Extraction, options: CaptureOptions, *, single: bool
) -> QueuedCapture:
    """Store the bytes and the readable text, and commit the queue row: the capture is acknowledged."""
    title = (options.title if options.title and single else None) or extraction.title or _title_from_locator(item.locator)
    title = " ".join(title.split())[:200] or "Untitled"
    metadata = _jsonable(extraction.metadata or {})
    captured_at = utc_now()
    readable = _strip_leading_h1(extraction.text, title)
    if not readable.strip():
        readable = extraction.text
    content_sha = repo.evidence.put(data)
    readable_sha = repo.evidence.put(readable.encode("utf-8"))
    project = options.project or (str(metadata["project"]) if isinstance(metadata.get("project"), str) else None)
    queued = QueuedCapture(
        capture_id=new_id("cap"),
        op_id=new_id("op"),
        title=title,
        captured_at=captured_at,
        occurred_at=options.occurred_at or _metadata_date(metadata) or _date_from_locator(item.locator)
        or captured_at[:10],
        submitted_by=options.submitted_by,
        layer=options.layer,
        origin=options.origin,
        locator=item.locator,
        project=project,
        metadata=metadata,
        resolves=options.resolves,
        rationale=options.rationale,
        content_sha=content_sha,
        readable_sha=readable_sha,
        artifacts=(
            Artifact(
                sha256=content_sha,
                bytes=len(data),
                media_type=extraction.media_type,
                readable_sha256=readable_sha,
                extractor=extraction.extractor,
                extractor_version=extraction.extractor_version,
            ),
        ),
        file=options.file,
        force=options.force,
    )
    repo.state.enqueue(queued.capture_id, queued.op_id, captured_at, queued.to_record())
    return queued


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
