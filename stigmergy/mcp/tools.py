"""What each MCP tool does, as plain functions over a `Session` (no MCP types here): the same library calls
as the CLI's commands, with the reader fixed by the session and every result bounded in size."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stigmergy.errors import EXIT_REFUSED, NotFoundError, StigmergyError, UsageError
from stigmergy.settings import Settings

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
    """One server's fixed state: the repository, its settings, the reader (never changed by a client) and a
    warm search session shared by the tools."""

    root: Path
    settings: Settings
    reader: str
    env: Mapping[str, str]
    allow_capture: bool = False
    _searcher: Any = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def searcher(self) -> Any:
        from stigmergy.index.search import Searcher

        if self._searcher is None:
            self._searcher = Searcher(self.root, self.settings)
        return self._searcher

    def close(self) -> None:
        if self._searcher is not None:
            self._searcher.close()
            self._searcher = None


def _bounded(name: str, value: int, low: int, high: int) -> int:
    if not low <= value <= high:
        raise UsageError(f"{name} must be between {low} and {high}, got {value}")
    return value


def search(s: Session, query: str, k: int | None = None, type: str | None = None, entity: str | None = None,
           status: str | None = None, layer: str | None = None, since: str | None = None) -> dict[str, Any]:
    from stigmergy.index.search import Filters

    if k is not None:
        _bounded("k", k, 1, MAX_K)
    if not query.strip():
        raise UsageError("search needs a query")
    filters = Filters(type=type, entity=entity, status=status, layer=layer, since=since)
    with s._lock:
        try:
            result = s.searcher().search(query, s.reader, k=k, filters=filters)
        except Exception:
            s.close()  # a broken warm session (index rebuilt under it) is reopened on the next call
            raise
    return result.to_dict()


def read(s: Session, refs: list[str], evidence: bool = False, chars: int | None = None) -> dict[str, Any]:
    from stigmergy.index.reads import read_pages

    if chars is not None:
        _bounded("chars", chars, 1, MAX_HEAD_CHARS)
    return read_pages(s.root, s.settings, s.reader, refs, evidence=evidence, head_chars=chars)


def list_(s: Session, type: str | None = None, entity: str | None = None, status: str | None = None,
          layer: str | None = None, since: str | None = None, limit: int = MAX_LIST) -> dict[str, Any]:
    from stigmergy.index.reads import list_pages
    from stigmergy.index.search import Filters

    _bounded("limit", limit, 1, MAX_LIST)
    return list_pages(s.root, s.settings, s.reader,
                      Filters(type=type, entity=entity, status=status, layer=layer, since=since), limit=limit)


def describe(s: Session, entity: str) -> dict[str, Any]:
    from stigmergy.index.reads import describe_entity

    return describe_entity(s.root, s.settings, s.reader, entity)


def contradictions(s: Session, status: str | None = None, limit: int = MAX_CONTRADICTIONS) -> dict[str, Any]:
    from stigmergy.index.overview import contradictions as scan

    if status not in (None, "open", "resolved"):
        raise UsageError(f"status must be open or resolved, got {status!r}")
    _bounded("limit", limit, 1, MAX_CONTRADICTIONS)
    found = scan(s.root, s.settings, s.reader, status=status)
    # The blocks are read from the working tree (never stale); `index` says what search and ask see.
    return {"reader": s.reader, "index": _freshness(s), "total": len(found), "contradictions": found[:limit],
            "truncated": len(found) > limit}


def _freshness(s: Session) -> dict[str, Any] | None:
    from stigmergy.index.reads import list_pages

    try:
        return list_pages(s.root, s.settings, s.reader, limit=1)["index"]
    except NotFoundError:
        return None


def ask(s: Session, question: str, evidence: bool = False) -> dict[str, Any]:
    from stigmergy.answer.service import ask as answer

    with s._lock:
        try:
            return answer(s.root, s.settings, s.reader, question, evidence=evidence, searcher=s.searcher(), env=s.env)
        except Exception:
            s.close()
            raise


def status(s: Session) -> dict[str, Any]:
    """What this reader can see: the index's freshness over their layers, pages and contradictions. The
    operation log is not here: its summaries name pages of every layer."""
    from stigmergy.index.overview import overview
    from stigmergy.index.reads import list_pages
    from stigmergy.layers import readable_layers

    try:
        listed = list_pages(s.root, s.settings, s.reader, limit=1)
        index, total = listed["index"], listed["total"]
    except NotFoundError:  # no index yet: say so rather than fail, the rest is read from the tree
        index, total = None, None
    view = overview(s.root, s.settings, s.reader)
    return {"reader": s.reader, "layers": list(readable_layers(s.settings, s.reader)), "index": index,
            "pages": total, "pages_by_type": view["pages"], "contradictions": view["contradictions"],
            "capture": s.allow_capture}


def capture(s: Session, text: str, title: str | None = None, occurred_at: str | None = None,
            layer: str = "public", project: str | None = None, resolves: str | None = None,
            rationale: str | None = None) -> dict[str, Any]:
    """File `text` through the normal path (evidence, source page, planner, gates, one commit) as the
    reader. Only with --allow-capture, and only into a layer the reader may read."""
    from stigmergy.capture.inputs import InputItem
    from stigmergy.capture.queue import CaptureOptions
    from stigmergy.layers import readable_layers
    from stigmergy.repo.operations import Repository
    from stigmergy.write.capture import capture as run_capture
    from stigmergy.write.capture import read_inputs, resume, validate

    if not s.allow_capture:
        raise UsageError("capture is off on this server", hint="start it with `stigmergy mcp --allow-capture`")
    if not text.strip():
        raise UsageError("nothing to capture: the text is empty")
    if len(text) > MAX_CAPTURE_CHARS:
        raise UsageError(f"the text is {len(text)} characters; an MCP capture takes at most {MAX_CAPTURE_CHARS}")
    if layer not in readable_layers(s.settings, s.reader):
        # The same answer as an undeclared layer: a reader cannot learn which restricted layers exist.
        raise UsageError(f"no layer {layer!r} that {s.reader or 'this reader'} may write to")
    data = text.encode("utf-8")
    item = InputItem(locator="mcp", read=lambda: data, size=len(data), origin_name="mcp.md")
    options = CaptureOptions(title=title, occurred_at=occurred_at, submitted_by=s.reader or "unknown", layer=layer,
                             project=project, resolves=resolves, rationale=rationale, origin="mcp", reader=s.reader)
    repo = Repository(s.root, s.settings)
    validate(repo, options)  # also: --resolves names an open contradiction this reader can see
    read = read_inputs([item], options, s.settings.capture)  # extraction and the secret check, before the lock
    with repo.lock():
        resume(repo, s.env)
        outcomes = run_capture(repo, read, options, env_vars=s.env)
    outcome = outcomes[0]
    if outcome.status == "failed":
        raise UsageError(outcome.message)
    if outcome.status == "refused":
        raise CaptureRefused(f"the gates refused the wiki change ({outcome.rule}); the source page landed: "
                             f"{outcome.source_path}", details=outcome.to_dict())
    return {"reader": s.reader, "capture": outcome.to_dict()}
