"""What `stigmergy serve` is built from, and the one place a person's service is made."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from stigmergy.mcp.tools import Session
from stigmergy.server.guard import LOOPBACK_NAMES, FailureLimiter, SessionStore
from stigmergy.server.tokens import TokenStore
from stigmergy.service import Identity, WikiService


@dataclass
class ServeConfig:
    """What the server is built from: the service for the repository (its identity unused: every
    caller gets their own), the tokens file, whether capture is offered, and the host names it answers to."""

    service: WikiService
    tokens: TokenStore
    allow_capture: bool = False
    host_names: tuple[str, ...] = LOOPBACK_NAMES
    limiter: FailureLimiter = field(default_factory=FailureLimiter)
    sessions: SessionStore | None = None
    _callers: dict[str, Session] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        if self.sessions is None:
            self.sessions = SessionStore(self.tokens)

    def session_for(self, email: str) -> Session:
        """The person's session (service + whether capture is offered), made once. Only ever called with
        the e-mail of a verified token (or, for a chat endpoint, of the person a chat user maps to)."""
        with self._lock:
            found = self._callers.get(email)
            if found is None:
                found = Session(self.service.for_caller(Identity(email, email)), allow_capture=self.allow_capture)
                self._callers[email] = found
        # Long-lived, like the MCP server's: readers are read again whenever stigmergy.toml changed, so a
        # person removed from a layer loses it at their next request (a file that no longer parses refuses).
        found.service.refresh_settings()
        return found

    def service_for(self, email: str) -> WikiService:
        return self.session_for(email).service

    def close(self) -> None:
        with self._lock:
            for s in self._callers.values():
                s.close()
            self._callers.clear()
        self.service.close()
