"""What each MCP tool does, as plain functions over a `Session` (no MCP types here): the same library calls
as the CLI's commands, with the reader fixed by the session and every result bounded in size."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from stigmergy.errors import EXIT_REFUSED, StigmergyError, UsageError
from stigmergy.service import WikiService, filters

MAX_K = 50
MAX_HEAD_CHARS = 20_000
MAX_LIST = 200
MAX_CONTRADICTIONS = 200
MAX_CAPTURE_CHARS = 200_000


class CaptureRefused(StigmergyError):
    """A capture whose wiki change the gates refused (exit code 3 on the CLI); `details` is the outcome."""

    exit_code = EXIT_REFUSED

    def __init__(self, message: str, details: dict[str, Any]) -> None:
        super().__init__(message)
        self.details = details


@dataclass
class Session:
    """One server's fixed state: the service (its repository, settings, the reader, never changed by a
    client, and the warm search session the tools share) and whether capture is offered."""

    service: WikiService
    allow_capture: bool = False

    @property
    def reader(self) -> str:
        return self.service.reader

    def close(self) -> None:
        self.service.close()


def _bounded(name: str, value: int, low: int, high: int) -> int:
    if not low <= value <= high:
        raise UsageError(f"{name} must be between {low} and {high}, got {value}")
    return value


def search(s: Session, query: str, k: int | None = None, type: str | None = None, entity: str | None = None,
           status: str | None = None, layer: str | None = None, since: str | None = None) -> dict[str, Any]:
    if k is not None:
        _bounded("k", k, 1, MAX_K)
    if not query.strip():
        raise UsageError("search needs a query")
    return s.service.search(query, k=k, filters=filters(type, entity, status, layer, since)).to_dict()


def read(s: Session, refs: list[str], evidence: bool = False, chars: int | None = None) -> dict[str, Any]:
    if chars is not None:
        _bounded("chars", chars, 1, MAX_HEAD_CHARS)
    return s.service.read(refs, evidence=evidence, chars=chars)


def list_(s: Session, type: str | None = None, entity: str | None = None, status: str | None = None,
          layer: str | None = None, since: str | None = None, limit: int = MAX_LIST) -> dict[str, Any]:
    _bounded("limit", limit, 1, MAX_LIST)
    return s.service.list_pages(filters(type, entity, status, layer, since), limit=limit)


def describe(s: Session, entity: str) -> dict[str, Any]:
    return s.service.describe(entity)


def contradictions(s: Session, status: str | None = None, limit: int = MAX_CONTRADICTIONS) -> dict[str, Any]:
    if status not in (None, "open", "resolved"):
        raise UsageError(f"status must be open or resolved, got {status!r}")
    _bounded("limit", limit, 1, MAX_CONTRADICTIONS)
    found = s.service.contradictions(status)
    # The blocks are read from the working tree (never stale); `index` says what search and ask see.
    return {"reader": s.reader, "index": s.service.freshness(), "total": len(found), "contradictions": found[:limit],
            "truncated": len(found) > limit}


def ask(s: Session, question: str, evidence: bool = False) -> dict[str, Any]:
    return s.service.ask(question, evidence=evidence)


def feedback(s: Session, page: str, verdict: str, note: str = "", query: str = "") -> dict[str, Any]:
    """A reader's judgement of a page, fragment or claim line, as the session's reader (scoped like `read`)."""
    return s.service.feedback(page, verdict, note, query)


def status(s: Session) -> dict[str, Any]:
    """What this reader can see: the index's freshness over their layers, pages and contradictions. The
    operation log is not here: its summaries name pages of every layer."""
    from stigmergy.errors import NotFoundError

    try:
        listed = s.service.list_pages(limit=1)
        index, total = listed["index"], listed["total"]
    except NotFoundError:  # no index yet: say so rather than fail, the rest is read from the tree
        index, total = None, None
    view = s.service.overview()
    return {"reader": s.reader, "layers": list(s.service.readable()), "index": index,
            "pages": total, "pages_by_type": view["pages"], "contradictions": view["contradictions"],
            "capture": s.allow_capture}


def capture(s: Session, text: str, title: str | None = None, occurred_at: str | None = None,
            layer: str = "public", project: str | None = None, resolves: str | None = None,
            rationale: str | None = None) -> dict[str, Any]:
    """File `text` through the normal path (evidence, source page, planner, gates, one commit) as the
    reader. Only with --allow-capture, and only into a layer the reader may read."""
    if not s.allow_capture:
        raise UsageError("capture is off on this server", hint="start it with `stigmergy mcp --allow-capture`")
    if not text.strip():
        raise UsageError("nothing to capture: the text is empty")
    if len(text) > MAX_CAPTURE_CHARS:
        raise UsageError(f"the text is {len(text)} characters; an MCP capture takes at most {MAX_CAPTURE_CHARS}")
    outcome = s.service.capture_text(text, title=title, occurred_at=occurred_at, layer=layer, project=project,
                                     resolves=resolves, rationale=rationale, origin="mcp")
    if outcome.status == "failed":
        raise UsageError(outcome.message)
    if outcome.status == "refused":
        raise CaptureRefused(f"the gates refused the wiki change ({outcome.rule}); the source page landed: "
                             f"{outcome.source_path}", details=outcome.to_dict())
    return {"reader": s.reader, "capture": outcome.to_dict()}
