"""Source pages (DESIGN §4): written once, never edited. Render and parse side by side; the parser
refuses anything that does not re-render to the same bytes, so line numbers stay stable forever."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from stigmergy.errors import ContractError
from stigmergy.pages.frontmatter import render_front_matter, split_front_matter

CAPTURE_ID_RE = re.compile(r"^cap_[0-9A-HJKMNP-TV-Z]{26}$")

# The end of a source line that OCR read below capture.ocr_min_confidence: shown and searchable, never a
# fact (the deterministic planner skips it; the gates refuse a wiki line that cites it).
UNSURE_RE = re.compile(r" ⟦unsure: OCR \d{1,3}%⟧$")


def unsure_mark(confidence: int) -> str:
    return f" ⟦unsure: OCR {max(0, min(100, int(confidence)))}%⟧"


def is_unsure(line: str) -> bool:
    return UNSURE_RE.search(line.rstrip()) is not None
ORIGINS = ("cli", "hook", "mcp", "import", "web")  # web: `stigmergy serve`'s capture form


@dataclass(frozen=True)
class Artifact:
    sha256: str
    bytes: int
    media_type: str
    readable_sha256: str
    extractor: str
    extractor_version: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "sha256": self.sha256,
            "bytes": self.bytes,
            "media_type": self.media_type,
            "readable_sha256": self.readable_sha256,
            "extractor": self.extractor,
            "extractor_version": self.extractor_version,
        }


@dataclass(frozen=True)
class Resolution:
    resolves: str
    rationale: str


@dataclass(frozen=True)
class SourcePage:
    id: str
    title: str
    captured_at: str
    occurred_at: str
    submitted_by: str
    layer: str
    origin: str
    locator: str
    artifacts: tuple[Artifact, ...]
    text: str  # readable text, the body after the `# Title` line and one blank line
    project: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    resolution: Resolution | None = None

    def front_matter(self) -> dict[str, Any]:
        meta: dict[str, Any] = {
            "id": self.id,
            "type": "source",
            "title": self.title,
            "captured_at": self.captured_at,
            "occurred_at": self.occurred_at,
            "submitted_by": self.submitted_by,
            "layer": self.layer,
            "origin": self.origin,
            "locator": self.locator,
            "project": self.project,
            "artifacts": [a.to_dict() for a in self.artifacts],
        }
        if self.metadata:
            meta["metadata"] = self.metadata
        if self.resolution is not None:
            meta["resolution"] = {"resolves": self.resolution.resolves, "rationale": self.resolution.rationale}
        return meta

    @property
    def body_start_line(self) -> int:
        """1-based file line of the first line of `text` (after front matter, `# Title` and a blank)."""
        return render_front_matter(self.front_matter()).count("\n") + 3

    def line_of(self, text_index: int) -> int:
        """File line number of the `text_index`-th (0-based) line of the readable text."""
        return self.body_start_line + text_index

    def file_lines(self) -> list[str]:
        return render_source_page(self).split("\n")


def _one_line(value: str) -> str:
    return " ".join(value.split())


def render_source_page(page: SourcePage) -> str:
    text = page.text if page.text.endswith("\n") else page.text + "\n"
    return f"{render_front_matter(page.front_matter())}# {_one_line(page.title)}\n\n{text}"


_REQUIRED = ("id", "type", "title", "captured_at", "occurred_at", "submitted_by", "layer", "origin", "locator", "artifacts")


def parse_source_page(text: str, relpath: str | None = None, *, canonical: bool = True) -> SourcePage:
    """The source page in `text`; a ContractError when it is not one. `canonical=False` leaves out the
    check that re-rendering gives the same bytes (the costly part), for a reader that checks it later,
    and only when what it read is used (`plan/deterministic/facts.source_canonical`)."""
    where = relpath or "source page"
    meta, body, _ = split_front_matter(text)
    missing = [k for k in _REQUIRED if k not in meta]
    if missing:
        raise ContractError(f"{where}: front matter lacks {', '.join(missing)}")
    if meta.get("type") != "source":
        raise ContractError(f"{where}: type must be 'source'")
    if not isinstance(meta["id"], str) or not CAPTURE_ID_RE.match(meta["id"]):
        raise ContractError(f"{where}: id {meta['id']!r} is not a capture id")
    if relpath is not None and not relpath.endswith(f"/{meta['id']}.md"):
        raise ContractError(f"{where}: file name does not match id {meta['id']}")
    title = str(meta["title"])
    heading = f"# {_one_line(title)}\n\n"
    if not body.startswith(heading):
        raise ContractError(f"{where}: body must start with '# {title}' and a blank line")
    try:
        artifacts = tuple(
            Artifact(
                sha256=str(a["sha256"]),
                bytes=int(a["bytes"]),
                media_type=str(a["media_type"]),
                readable_sha256=str(a["readable_sha256"]),
                extractor=str(a["extractor"]),
                extractor_version=str(a["extractor_version"]),
            )
            for a in meta["artifacts"]
        )
    except (TypeError, KeyError, ValueError) as exc:
        raise ContractError(f"{where}: malformed artifacts ({exc})") from exc
    res = meta.get("resolution")
    resolution = None
    if res is not None:
        if not isinstance(res, dict) or "resolves" not in res:
            raise ContractError(f"{where}: malformed resolution")
        resolution = Resolution(str(res["resolves"]), str(res.get("rationale", "")))
    metadata = meta.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise ContractError(f"{where}: metadata must be a mapping")
    page = SourcePage(
        id=meta["id"],
        title=title,
        captured_at=str(meta["captured_at"]),
        occurred_at=str(meta["occurred_at"]),
        submitted_by=str(meta["submitted_by"]),
        layer=str(meta["layer"]),
        origin=str(meta["origin"]),
        locator=str(meta["locator"]),
        artifacts=artifacts,
        text=body[len(heading) :],
        project=None if meta.get("project") is None else str(meta["project"]),
        metadata=metadata,
        resolution=resolution,
    )
    if canonical and render_source_page(page) != text:
        raise ContractError(f"{where}: not in canonical form (was it edited by hand?)")
    return page
