"""Who calls the service: the reader whose layers scope every read (and every write: writing into a layer
is reading it), and the submitter a capture names. A front end resolves them from what it can vouch for
(the CLI: --as, STIGMERGY_READER, the Git identity; the MCP server: the reader fixed when it starts),
lazily: a command that never reads pays nothing to know who would."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property


class Identity:
    def __init__(self, reader: str | Callable[[], str], submitter: str | Callable[[], str] | None = None) -> None:
        self._reader = reader
        self._submitter = submitter

    @cached_property
    def reader(self) -> str:
        return self._reader if isinstance(self._reader, str) else self._reader()

    @cached_property
    def submitter(self) -> str:
        """'Name <email>' for the source page's submitted_by (default: the reader)."""
        if self._submitter is None:
            return self.reader or "unknown"
        return self._submitter if isinstance(self._submitter, str) else self._submitter()

    def with_reader(self, reader: str) -> Identity:
        """Another reader (`--as`), the same submitter."""
        return Identity(reader, self._submitter)

    def __repr__(self) -> str:
        return f"Identity(reader={self._reader!r})"
