"""The one front door: every interface (the CLI, the MCP server, the web server to come) builds one
`WikiService` from the repository root, the settings, the caller's `Identity` and the environment, calls
one method per operation and renders what it returns (DESIGN §13). Front ends import this package and
the foundation (errors, settings) only: tests/test_architecture.py fails on a front end that reaches
into write/, repo/, index/ or any other stage.

Adding an operation: a method on `WikiService` (in `wiki.py`; a trust judgement's in `judgements.py`) that
calls one library entry point; if it writes, a line in `policy.WRITE_POLICIES` says how it takes the writer
lock (`_writing`, in `core.py`, with what every operation stands on) and what it recovers first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stigmergy.service.identity import Identity
from stigmergy.service.policy import WRITE_POLICIES, Recovery, WritePolicy
from stigmergy.service.values import Captured, CaptureRequest, Gathered, LintResult
from stigmergy.service.wiki import WikiService, init_repository, locate
from stigmergy.trust.records import (
    MAX_QUERY as MAX_FEEDBACK_QUERY,  # a judged search's length, for front ends
)

if TYPE_CHECKING:  # the values front ends annotate with; imported where they are made
    from stigmergy.index.store import Filters
    from stigmergy.write.capture import CaptureOutcome

# Page types and statuses, for front ends that check a filter before asking.
PAGE_TYPES = ("note", "concept", "entity", "project")
PAGE_STATUSES = ("seed", "developing", "mature", "evergreen")


def filters(type: str | None = None, entity: str | None = None, status: str | None = None,
            layer: str | None = None, since: str | None = None) -> Filters:
    """What a search or a listing is narrowed to (beside the caller's layers)."""
    from stigmergy.index.store import Filters

    return Filters(type=type, entity=entity, status=status, layer=layer, since=since)


__all__ = [
    "PAGE_STATUSES", "PAGE_TYPES", "WRITE_POLICIES", "CaptureOutcome", "CaptureRequest", "Captured", "Filters",
    "Gathered", "Identity", "LintResult", "Recovery", "WikiService", "WritePolicy", "filters", "init_repository",
    "locate", "MAX_FEEDBACK_QUERY",
]
