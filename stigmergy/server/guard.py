"""What every request to `stigmergy serve` passes first: the Host and Origin checks (no DNS rebinding:
a page on another site that resolves its own name to 127.0.0.1 still sends its own Host), the security
headers on every response (a strict Content-Security-Policy: nothing from another host, no inline script
or style), the web view's sessions, and the limit on failed sign-ins.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from stigmergy.server.tokens import TokenRecord, TokenStore

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")

CSP = ("default-src 'none'; style-src 'self'; img-src 'self'; script-src 'none'; connect-src 'self'; "
       "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    # same-origin, not no-referrer: under no-referrer a browser posts our own forms with `Origin: null`.
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
]


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return value.decode("latin-1")
    return None


def host_allowed(host: str | None, names: Iterable[str], port: int | None) -> bool:
    """`host` is `name:port` for one of `names` and the port this server listens on."""
    if not host:
        return False
    name, sep, given_port = host.rpartition(":")
    if not sep or not given_port.isdigit() or (port is not None and int(given_port) != port):
        return False
    return name.lower() in {n.lower() for n in names}


def origin_allowed(origin: str, names: Iterable[str], port: int | None) -> bool:
    scheme, sep, rest = origin.partition("://")
    return bool(sep) and scheme == "http" and "/" not in rest and host_allowed(rest, names, port)


async def _refuse(send: Any, status: int, message: str) -> None:
    body = message.encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode()),
        *SECURITY_HEADERS]})
    await send({"type": "http.response.body", "body": body})


class Guard:
    """ASGI middleware: refuse a request whose Host is not this server (421) or whose Origin, when sent,
    is another site (403); add the security headers to every response. Lifespan events pass through."""

    def __init__(self, app: Any, names: Iterable[str]) -> None:
        self.app = app
        self.names = tuple(names)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        server = scope.get("server")
        port = server[1] if server and len(server) > 1 else None
        if not host_allowed(_header(scope, b"host"), self.names, port):
            await _refuse(send, 421, "this server does not answer to that host name")
            return
        origin = _header(scope, b"origin")
        if origin is not None and not origin_allowed(origin, self.names, port):
            await _refuse(send, 403, "cross-origin request refused")
            return

        async def secured(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                message = {**message, "headers": [*message.get("headers", []),
                                                  *(h for h in SECURITY_HEADERS if h[0] not in names)]}
            await send(message)

        await self.app(scope, receive, secured)


class FailureLimiter:
    """At most `limit` failed sign-ins (web form or bearer token) per client address in `window`
    seconds; past that, every attempt from that address is refused until the window has passed, the
    right token included (so guessing cannot continue at any speed)."""

    def __init__(self, limit: int = 10, window: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit, self.window, self.clock = limit, window, clock
        self._failures: dict[str, list[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, key: str) -> list[float]:
        cutoff = self.clock() - self.window
        kept = [t for t in self._failures.get(key, []) if t > cutoff]
        if kept:
            self._failures[key] = kept
        else:
            self._failures.pop(key, None)
        return kept

    def blocked(self, key: str) -> bool:
        with self._lock:
            return len(self._recent(key)) >= self.limit

    def fail(self, key: str) -> None:
        with self._lock:
            self._failures.setdefault(key, []).append(self.clock())
            self._recent(key)


@dataclass
class WebSession:
    id: str
    token_id: str
    email: str
    created: float
    seen: float = field(default=0.0)


class SessionStore:
    """The web view's sessions, in memory (a restart signs everyone out). A session lives while its
    token is active and it was used within `idle` seconds; sign-out and revocation end it at once."""

    def __init__(self, tokens: TokenStore, idle: float = 12 * 3600, clock: Callable[[], float] = time.monotonic) -> None:
        self.tokens, self.idle, self.clock = tokens, idle, clock
        self._sessions: dict[str, WebSession] = {}
        self._lock = threading.Lock()

    def start(self, record: TokenRecord) -> WebSession:
        now = self.clock()
        session = WebSession(secrets.token_urlsafe(32), record.id, record.email, now, now)
        with self._lock:
            self._sessions[session.id] = session
        return session

    def get(self, sid: str | None) -> WebSession | None:
        if not sid:
            return None
        with self._lock:
            session = self._sessions.get(sid)
            if session is None:
                return None
            now = self.clock()
            if now - session.seen > self.idle or not self.tokens.is_active(session.token_id):
                del self._sessions[sid]
                return None
            session.seen = now
            return session

    def end(self, sid: str | None) -> None:
        with self._lock:
            self._sessions.pop(sid or "", None)

    def __len__(self) -> int:
        return len(self._sessions)
