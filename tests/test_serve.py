"""`stigmergy serve` over HTTP: a real server on 127.0.0.1, real HTTP clients. Tokens, sign-in, sessions,
Host and Origin, the security headers, the rate limit, revocation, and scope through every door."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from serve_support import running_server
from test_answer_support import BOARD, CANARY, PUBLIC, build_wiki

from stigmergy.server.guard import FailureLimiter
from stigmergy.server.tokens import TokenStore


@pytest.fixture(scope="module")
def wiki_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wiki(tmp_path_factory.mktemp("serve") / "w").root


@pytest.fixture
def server(wiki_root: Path, tmp_path: Path) -> Any:
    with running_server(wiki_root, tmp_path / "config" / "tokens.json") as running:
        yield running


def _client(server: Any) -> httpx.Client:
    return httpx.Client(base_url=server.url, follow_redirects=False, timeout=60)


def signed_in(server: Any, email: str) -> httpx.Client:
    _record, token = server.tokens.add(email)
    client = _client(server)
    r = client.post("/signin", data={"token": token}, headers={"origin": server.url})
    assert r.status_code == 303 and r.headers["location"] == "/", r.text
    return client


def test_tokens_are_stored_hashed_and_verified(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "tokens.json")
    record, token = store.add("ann@example.com")
    raw = (tmp_path / "tokens.json").read_text()
    assert token not in raw and record.sha256 in raw
    assert store.verify(token) == record
    assert store.verify(token + "x") is None and store.verify("") is None
    store.revoke("ann@example.com")
    assert store.verify(token) is None
    assert (tmp_path / "tokens.json").stat().st_mode & 0o077 == 0


def test_sign_in_sets_a_strict_httponly_cookie_and_sign_out_ends_it(server: Any) -> None:
    with _client(server) as anon:
        r = anon.get("/")
        assert r.status_code == 303 and r.headers["location"] == "/signin"
    client = signed_in(server, PUBLIC)
    cookie = client.cookies.get("stigmergy_session")
    r = client.get("/")
    assert r.status_code == 200 and PUBLIC in r.text
    # The cookie as sent: HttpOnly and SameSite=Strict.
    _record, token = server.tokens.add("bob@example.com")
    with _client(server) as c:
        r = c.post("/signin", data={"token": token}, headers={"origin": server.url})
        header = r.headers["set-cookie"]
        assert "HttpOnly" in header and "SameSite=Strict" in header
    r = client.post("/signout", headers={"origin": server.url})
    assert r.status_code == 303
    with _client(server) as replay:  # the old cookie, replayed after sign-out, is dead
        replay.cookies.set("stigmergy_session", cookie or "")
        assert replay.get("/").status_code == 303


def test_revocation_ends_web_and_mcp_sessions_at_once(server: Any) -> None:
    client = signed_in(server, PUBLIC)
    assert client.get("/").status_code == 200
    server.tokens.revoke(PUBLIC)
    assert client.get("/").status_code == 303


def test_a_wrong_token_is_refused_and_failures_are_rate_limited(wiki_root: Path, tmp_path: Path) -> None:
    with running_server(wiki_root, tmp_path / "t.json", limiter=FailureLimiter(limit=3, window=3600)) as srv:
        _record, token = srv.tokens.add(PUBLIC)
        with _client(srv) as c:
            for _ in range(3):
                assert c.post("/signin", data={"token": "stg_wrong"}, headers={"origin": srv.url}).status_code == 401
            # Past the limit even the right token waits: guessing cannot go on at any speed.
            r = c.post("/signin", data={"token": token}, headers={"origin": srv.url})
            assert r.status_code == 429
            r = c.post("/mcp", json={}, headers={"authorization": f"Bearer {token}"})
            assert r.status_code == 429


def test_host_and_origin_are_checked(server: Any) -> None:
    client = signed_in(server, PUBLIC)
    assert client.get("/", headers={"host": f"evil.example:{server.port}"}).status_code == 421
    assert client.get("/", headers={"host": "127.0.0.1:1"}).status_code == 421
    assert client.get("/", headers={"origin": "http://evil.example"}).status_code == 403
    # A sign-in form posted from another site (or with no Origin at all) is refused.
    _record, token = server.tokens.add("carol@example.com")
    with _client(server) as c:
        assert c.post("/signin", data={"token": token}).status_code == 403
        assert c.post("/signin", data={"token": token}, headers={"origin": "null"}).status_code == 403


def test_every_response_carries_the_security_headers(server: Any) -> None:
    client = signed_in(server, PUBLIC)
    for path in ("/", "/signin", "/static/style.css", "/no-such-page"):
        r = client.get(path)
        csp = r.headers.get("content-security-policy", "")
        assert "default-src 'none'" in csp and "script-src 'none'" in csp and "frame-ancestors 'none'" in csp, path
        assert r.headers["x-content-type-options"] == "nosniff"
    with _client(server) as anon:
        r = anon.get("/", headers={"host": "evil.example:1"})
        assert "default-src 'none'" in r.headers["content-security-policy"]


def _mcp(server: Any, token: str, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    import anyio
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def main() -> list[Any]:
        async with httpx2.AsyncClient(headers={"authorization": f"Bearer {token}"}, timeout=120) as http:
            async with Client(streamable_http_client(server.url + "/mcp", http_client=http)) as client:
                return [await client.call_tool(name, args) for name, args in calls]

    return anyio.run(main)


def test_mcp_reads_as_the_tokens_person(server: Any) -> None:
    _r, public_token = server.tokens.add(PUBLIC)
    _r, board_token = server.tokens.add(BOARD)
    query = {"query": f"{CANARY} Orbis acquire Aurora", "k": 10}
    (public,) = _mcp(server, public_token, [("search", query)])
    (board,) = _mcp(server, board_token, [("search", query)])
    assert public.structured_content["reader"] == PUBLIC and board.structured_content["reader"] == BOARD
    hits = public.structured_content["hits"]  # (the query itself is echoed back)
    assert hits and CANARY not in json.dumps(hits) and "layers/board" not in public.content[0].text
    assert any(h["path"].startswith("layers/board/") for h in board.structured_content["hits"])
    with _client(server) as c:
        r = c.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                   headers={"authorization": "Bearer stg_not-a-token", "accept": "application/json, text/event-stream"})
        assert r.status_code == 401
