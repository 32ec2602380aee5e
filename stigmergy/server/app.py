"""`stigmergy serve`: one process, one Starlette application under uvicorn, serving the agents' MCP
endpoint (`/mcp`, streamable HTTP, the same tools as `stigmergy mcp`) and the read-only web view, on
127.0.0.1 by default.

Identity comes from a credential and nothing else: a request's reader is the person whose token (an MCP
client's `Authorization: Bearer`, or the token a browser signed in with once, behind an HttpOnly session
cookie) is in the tokens file; no parameter, header or cookie value names a reader. Each person gets one
`WikiService` (built on first use, kept; all share the warm search session).

Other front ends mount their routes here: `build_app(config, routes=[...])` (the Slack endpoint's
`stigmergy.server.slack.routes(config)` returns a list of Starlette routes; it maps a chat user to a person
and asks `config.service_for(email)`).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator, Sequence
from typing import Any

from stigmergy.errors import UsageError
from stigmergy.mcp.http import listen
from stigmergy.mcp.tools import Session
from stigmergy.server.config import ServeConfig
from stigmergy.server.guard import LOOPBACK_NAMES, Guard
from stigmergy.server.tokens import TokenRecord

MCP_PATH = "/mcp"
SCOPE_KEY = "stigmergy.caller"  # set by the bearer check: the TokenRecord behind this request


def client_key(scope: dict[str, Any]) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


def bearer(scope: dict[str, Any]) -> str | None:
    for name, value in scope.get("headers", []):
        if name.lower() == b"authorization":
            text = value.decode("latin-1")
            kind, _, token = text.partition(" ")
            return token.strip() if kind.lower() == "bearer" else ""
    return None


class BearerCaller:
    """ASGI wrapper of the MCP endpoint: the token must be an active one in the tokens file (else 401;
    429 once the address has failed too often); the record it matches rides in the scope for the tools."""

    def __init__(self, app: Any, config: ServeConfig) -> None:
        self.app, self.config = app, config

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        import json

        key = client_key(scope)
        token = bearer(scope)
        record: TokenRecord | None = None
        status, message = 401, "missing or wrong bearer token"
        if self.config.limiter.blocked(key):
            status, message = 429, "too many failed sign-ins from this address; wait a minute"
        elif token:
            record = self.config.tokens.verify(token)
        if record is None:
            if status == 401 and token is not None:
                self.config.limiter.fail(key)
            body = json.dumps({"error": message}).encode()
            await send({"type": "http.response.start", "status": status, "headers": [
                (b"content-type", b"application/json"), (b"www-authenticate", b"Bearer"),
                (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app({**scope, SCOPE_KEY: record}, receive, send)


def _mcp_resolver(config: ServeConfig) -> Any:
    from stigmergy.errors import StigmergyError

    def resolve(ctx: Any) -> Session:
        request = getattr(getattr(ctx, "request_context", None), "request", None)
        record = getattr(request, "scope", {}).get(SCOPE_KEY) if request is not None else None
        # The token was checked when the request came in; check it again now, so that a revocation
        # ends an agent's MCP session at its next call.
        if not isinstance(record, TokenRecord) or not config.tokens.is_active(record.id):
            raise StigmergyError("this request carries no valid token")
        return config.session_for(record.email)

    return resolve


def build_app(config: ServeConfig, routes: Sequence[Any] = ()) -> Any:
    """The Starlette application: `/mcp` for agents, the web view, and `routes` from other front ends
    (mounted after ours; a route of theirs cannot shadow one of ours)."""
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.applications import Starlette
    from starlette.routing import Route

    from stigmergy.mcp.server import build_server
    from stigmergy.server import web

    mcp_server = build_server(_mcp_resolver(config), allow_capture=config.allow_capture)
    # The Guard checks Host and Origin for every route; the SDK's own check would only know loopback names.
    # Plain JSON answers, not an event stream per call: no tool sends anything before its result, and the
    # stream's task group, pings and framing cost the server ~1 ms of a search (docs/serve.md).
    inner = mcp_server.streamable_http_app(
        streamable_http_path=MCP_PATH, json_response=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))
    session_manager = mcp_server.session_manager

    @contextlib.asynccontextmanager
    async def lifespan(_app: Any) -> AsyncIterator[None]:
        async with session_manager.run():
            yield

    all_routes = [Route(MCP_PATH, endpoint=BearerCaller(inner, config)),
                  *web.routes(config), *routes]
    app = Starlette(routes=all_routes, lifespan=lifespan)
    return Guard(app, config.host_names)


def serve(config: ServeConfig, host: str, port: int, routes: Sequence[Any] = (),
          announce: Any = None) -> None:
    """Serve until interrupted; `announce(url)` is told the address actually bound."""
    import anyio
    import uvicorn

    if host.strip("[]") not in ("127.0.0.1", "localhost", "::1") and set(config.host_names) <= set(LOOPBACK_NAMES):
        # Off the loopback the Host check needs the name clients use, and tokens need TLS in front.
        raise UsageError(f"--host {host}: not a loopback address",
                         hint="name the host clients use with --allow-host, behind a TLS proxy (tokens travel in clear)")
    sock = listen(host.strip("[]"), port)
    bound = sock.getsockname()[1]
    app = build_app(config, routes)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=2))
    shown = f"[{host.strip('[]')}]" if ":" in host else host
    (announce or (lambda u: (sys.stderr.write(f"stigmergy serve: listening on {u}\n"), sys.stderr.flush())))(
        f"http://{shown}:{bound}/")
    try:
        anyio.run(lambda: server.serve(sockets=[sock]))
    finally:
        config.close()
