"""The second transport: streamable HTTP on the loopback interface, behind a bearer token.

The token comes from the environment (the CLI reads `STIGMERGY_MCP_TOKEN`); a request without it, or with
another one, gets 401 before it reaches the MCP session. The server binds 127.0.0.1 only: a token sent over
plain HTTP must not leave the machine.
"""

from __future__ import annotations

import hmac
import json
import socket
import sys
from typing import Any

from stigmergy.errors import ConfigError
from stigmergy.mcp.server import build_server
from stigmergy.mcp.tools import Session

HOST = "127.0.0.1"
PATH = "/mcp"
MIN_TOKEN_CHARS = 16


class BearerAuth:
    """ASGI middleware: every HTTP request must carry `Authorization: Bearer <token>` (compared in constant
    time); lifespan events pass through so the MCP session manager starts and stops."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = b""
            for name, value in scope.get("headers", []):
                if name.lower() == b"authorization":
                    given = value
                    break
            if not hmac.compare_digest(given, self.expected):
                body = json.dumps({"error": "missing or wrong bearer token"}).encode()
                await send({"type": "http.response.start", "status": 401, "headers": [
                    (b"content-type", b"application/json"), (b"www-authenticate", b"Bearer"),
                    (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def serve_http(session: Session, token: str, port: int) -> None:
    """Serve until interrupted; prints the URL (with the port actually bound) on stderr."""
    import anyio
    import uvicorn

    if len(token) < MIN_TOKEN_CHARS:
        raise ConfigError(f"the MCP bearer token must be at least {MIN_TOKEN_CHARS} characters",
                          hint="export STIGMERGY_MCP_TOKEN=$(python -c 'import secrets; print(secrets.token_urlsafe(32))')")
    app = BearerAuth(build_server(session).streamable_http_app(streamable_http_path=PATH, host=HOST, json_response=True), token)
    sock = listen(HOST, port)
    bound = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    sys.stderr.write(f"stigmergy mcp: listening on http://{HOST}:{bound}{PATH} as {session.reader or '(no identity)'}\n")
    sys.stderr.flush()
    anyio.run(lambda: server.serve(sockets=[sock]))


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket, bound before the URL is announced (a client that connects at once waits in the
    backlog instead of being refused). `stigmergy serve` listens through it too."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named, not 0: asyncio sets TCP_NODELAY only on sockets whose proto says TCP, and without it
    # every response on a kept-alive connection (headers, then body) waited ~40 ms for a delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror}") from exc
    return sock
