"""`stigmergy serve` over HTTP: a real server on 127.0.0.1, real HTTP clients. Tokens, sign-in, sessions,
Host and Origin, the security headers, the rate limit, revocation, and scope through every door."""

from __future__ import annotations

import contextlib
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


BOARD_NOTE = "layers/board/wiki/notes/Board minutes.md"
Q1 = "wiki/notes/Q1 report.md"


def _board_source(wiki_root: Path) -> str:
    return next(p.relative_to(wiki_root).as_posix() for p in (wiki_root / "layers" / "board" / "sources").rglob("*.md"))


def test_a_page_renders_citations_contradictions_and_freshness(server: Any) -> None:
    import re

    client = signed_in(server, PUBLIC)
    r = client.get(f"/page/{Q1}")
    assert r.status_code == 200
    assert "id=fresh" in r.text and "(current)" in r.text
    assert "<section class=contradiction" in r.text and "2026-03-28" in r.text and "2026-04-02" in r.text
    assert "$1.1M" in r.text and "$1.3M" in r.text and "status <span class=status id=status>developing" in r.text
    href = re.search(r'href="(/page/sources/[^"]+\?hl=(\d+)-\d+#L\d+)" class="citation"', r.text)
    assert href is not None
    source = client.get(href.group(1).replace("&amp;", "&"))
    line = href.group(2)
    assert source.status_code == 200
    row = re.search(rf"<tr id=L{line} class=hl>.*?</tr>", source.text)
    assert row is not None and "Aurora revenue was $1.3M" in row.group(0)
    assert source.text.count("class=hl") == 1
    assert "submitted by" in source.text and "test@example.com" in source.text and "sha256" in source.text


def test_history_lists_the_pages_commits_and_withholds_what_touched_other_layers(server: Any) -> None:
    # The fixture's one commit wrote the public note and the board's pages together.
    board = signed_in(server, BOARD).get(f"/history/{Q1}")
    assert board.status_code == 200 and "<td>pages</td>" in board.text
    public = signed_in(server, PUBLIC).get(f"/history/{Q1}")
    assert public.status_code == 200 and "<td>pages</td>" not in public.text
    assert "also touched layers you do not read" in public.text


def _not_found_body(client: httpx.Client, path: str) -> str:
    r = client.get(path)
    assert r.status_code == 404, (path, r.status_code)
    return r.text


def test_a_public_reader_never_reaches_the_board_layer(server: Any, wiki_root: Path) -> None:
    client = signed_in(server, PUBLIC)
    board_source = _board_source(wiki_root)
    for kind in ("page", "history", "original"):
        for path in (BOARD_NOTE, board_source):
            body = _not_found_body(client, f"/{kind}/{path}")
            absent = _not_found_body(client, f"/{kind}/{path.replace('Board', 'Bored').replace('cap_', 'cap_0')}")
            # Not yours to read and absent are the same answer, to the byte (but for the path asked).
            assert body.replace(path, "P") == absent.replace(path.replace("Board", "Bored").replace("cap_", "cap_0"), "P")
            assert CANARY not in body and "Orbis" not in body
    # Through a traversal, an encoded slash, a fragment reference.
    for sneaky in ("/page/wiki/../layers/board/wiki/notes/Board%20minutes.md", "/page/layers%2Fboard%2Fwiki%2Fnotes%2FBoard%20minutes.md",
                   f"/page/{BOARD_NOTE}%231", "/history/layers/%2A/wiki/notes/Board%20minutes.md",
                   "/history/wiki/notes/%2A.md", "/history/:(glob)layers/**/Board minutes.md"):
        r = client.get(sneaky)
        assert r.status_code == 404 and CANARY not in r.text and "Orbis" not in r.text, sneaky
    for path in ("/search?q=" + CANARY + "+Orbis+acquire", "/search?q=board+minutes", "/ask?q=Who+offered+to+acquire+Aurora%3F",
                 "/contradictions", "/", f"/page/{Q1}", "/entity/Aurora", f"/history/{Q1}"):
        r = client.get(path)
        text = r.text.replace(CANARY + " Orbis acquire", "")  # the query is echoed in its own box
        assert "layers/board" not in text and "Orbis" not in text and "Board minutes" not in text, path
    # The board reader sees it all, by the same doors.
    board = signed_in(server, BOARD)
    assert board.get(f"/page/{BOARD_NOTE}").status_code == 200
    assert CANARY in board.get(f"/page/{BOARD_NOTE}").text
    assert "layers/board" in board.get("/search?q=" + CANARY).text
    assert board.get(f"/history/{BOARD_NOTE}").status_code == 200


def test_no_identity_comes_from_the_request(server: Any) -> None:
    client = signed_in(server, PUBLIC)
    for extra in ({"as": BOARD}, {"reader": BOARD}):
        r = client.get(f"/page/{BOARD_NOTE}", params=extra, headers={"x-stigmergy-reader": BOARD})
        assert r.status_code == 404
    client.cookies.set("reader", BOARD)
    assert CANARY not in client.get("/search", params={"q": "Orbis acquire", "as": BOARD}).text


HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def test_every_repository_string_is_escaped(tmp_path: Path) -> None:
    from test_answer_support import line_of
    from test_index_support import HashEmbedder, RepoBuilder, cite

    from stigmergy.index.build import build_index

    b = RepoBuilder(tmp_path / "w")
    src = b.source(f"Memo {HOSTILE}", f"Evil says {HOSTILE} and \"quotes\" & ampersands.\n", key="evil")
    n = line_of(b.root, src, "Evil says")
    title = "Memo \"onmouseover=alert(1) x='"
    note = f"wiki/notes/{title}.md"
    b.wiki("note", title, f"- Evil says {HOSTILE} [[{HOSTILE}|<b>label</b>]] [x](javascript:alert(1)) {cite(note, src, n)}\n")
    b.wiki("entity", "Aurora", f"- Aurora appears with {HOSTILE}. {cite('wiki/entities/Aurora.md', src, n)}\n")
    b.commit()
    build_index(b.root, b.settings, embedder=HashEmbedder())
    with running_server(b.root, tmp_path / "tokens.json") as srv:
        client = signed_in(srv, PUBLIC)
        pages = [f"/page/{note}", f"/page/{src}", f"/page/{src}?hl=1-999", "/search?q=Evil+says+alert",
                 f"/search?q={HOSTILE}", f"/ask?q={HOSTILE}", "/entity/Aurora", f"/history/{note}",
                 f"/page/{HOSTILE}", f"/entity/{HOSTILE}", "/"]
        for path in pages:
            r = client.get(path)
            assert r.status_code in (200, 400, 404), path
            lowered = r.text.lower()
            assert "<script" not in lowered and "<img" not in lowered and "<b>label" not in lowered, path
            assert "href=\"javascript" not in lowered and "href=javascript" not in lowered, path
            assert 'x="' not in r.text and "onmouseover=alert(1) x=" not in r.text.replace("&quot;onmouseover", ""), path
        assert "&lt;script&gt;" in client.get(f"/page/{note}").text


def _captured_wiki(wiki: Path) -> tuple[str, str]:
    """The conftest wiki with a board layer, one public and one board capture, indexed."""
    from conftest import git, run_cli
    from test_index_support import HashEmbedder

    from stigmergy.index.build import build_index
    from stigmergy.settings import load_settings

    with (wiki / "stigmergy.toml").open("a") as fh:
        fh.write(f'\n[layers.board]\nreaders = ["{BOARD}"]\n')
    git(wiki, "commit", "-qam", "board layer")
    assert run_cli(["capture", "--text", "Aurora opened a Lisbon office in March 2026.", "--title", "Lisbon"], wiki)[0] == 0
    code, _out, err = run_cli(["--as", BOARD, "capture", "--layer", "board", "--title", "Offer",
                               "--text", f"{CANARY}: Orbis offered $72M for Aurora."], wiki)
    assert code == 0, err
    build_index(wiki, load_settings(wiki, {}), embedder=HashEmbedder())
    public = next(p for p in (wiki / "sources").rglob("cap_*.md")).relative_to(wiki).as_posix()
    board = next(p for p in (wiki / "layers" / "board" / "sources").rglob("cap_*.md")).relative_to(wiki).as_posix()
    return public, board


def test_original_bytes_reach_only_readers_of_their_layer(wiki: Path, tmp_path: Path) -> None:
    public_src, board_src = _captured_wiki(wiki)
    with running_server(wiki, tmp_path / "tokens.json") as srv:
        public = signed_in(srv, PUBLIC)
        r = public.get(f"/original/{public_src}")
        assert r.status_code == 200 and r.content == b"Aurora opened a Lisbon office in March 2026."
        assert r.headers["content-type"] == "application/octet-stream"
        assert r.headers["content-disposition"].startswith("attachment")
        assert "Original bytes" in public.get(f"/page/{public_src}").text
        assert public.get(f"/original/{board_src}").status_code == 404
        board = signed_in(srv, BOARD)
        assert CANARY.encode() in board.get(f"/original/{board_src}").content


def test_capture_through_mcp_only_when_allowed_and_only_into_readable_layers(wiki: Path, tmp_path: Path) -> None:
    _captured_wiki(wiki)
    with running_server(wiki, tmp_path / "tokens.json") as srv:
        _r, token = srv.tokens.add(PUBLIC)
        (off,) = _mcp(srv, token, [("capture", {"text": "Nope."})])
        assert off.is_error
    with running_server(wiki, tmp_path / "tokens.json", allow_capture=True) as srv:
        into_board, into_public = _mcp(srv, token, [
            ("capture", {"text": "Orbis board note.", "layer": "board"}),
            ("capture", {"text": "Aurora hired a CFO in May 2026.", "title": "CFO"})])
        assert into_board.is_error and "may write to" in into_board.content[0].text
        assert not into_public.is_error, into_public.content[0].text
        assert into_public.structured_content["capture"]["status"] in ("filed", "captured")
    from conftest import git

    log = git(wiki, "log", "-1", "--format=%B")
    assert "CFO" in log or "capture" in log
    assert "board note" not in git(wiki, "log", "--format=%B")


def test_tokens_commands(wiki: Path, tmp_path: Path) -> None:
    from conftest import run_cli

    tokens = tmp_path / "cfg" / "tokens.json"
    code, out, err = run_cli(["tokens", "add", "ann@example.com", "--tokens-file", str(tokens)], wiki)
    token = out.strip()
    assert code == 0 and token.startswith("stg_") and "shown once" in err
    assert token not in tokens.read_text()
    code, out, _ = run_cli(["tokens", "list", "--json", "--tokens-file", str(tokens)], wiki)
    listed = json.loads(out)["tokens"]
    assert code == 0 and [t["email"] for t in listed] == ["ann@example.com"] and "sha256" not in out
    assert run_cli(["tokens", "add", "not an email", "--tokens-file", str(tokens)], wiki)[0] == 2
    # A tokens file inside the repository could be committed with it.
    code, _out, err = run_cli(["tokens", "add", "ann@example.com", "--tokens-file", str(wiki / "t.json")], wiki)
    assert code == 2 and "outside the repository" in err
    assert run_cli(["tokens", "revoke", listed[0]["id"], "--tokens-file", str(tokens)], wiki)[0] == 0
    assert run_cli(["tokens", "revoke", listed[0]["id"], "--tokens-file", str(tokens)], wiki)[0] == 1
    assert TokenStore(tokens).verify(token) is None


def test_serve_as_a_real_process(wiki: Path, tmp_path: Path) -> None:
    import os
    import re
    import subprocess
    import sys
    import time

    from conftest import REPO_ROOT

    tokens = tmp_path / "tokens.json"
    _record, token = TokenStore(tokens).add(PUBLIC)
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    refused = subprocess.run([sys.executable, "-m", "stigmergy", "serve", "--host", "0.0.0.0", "--tokens-file",
                              str(tokens)], cwd=wiki, env=env, capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and "not a loopback address" in refused.stderr
    proc = subprocess.Popen([sys.executable, "-m", "stigmergy", "serve", "--port", "0", "--tokens-file", str(tokens),
                             "--search-processes", "2"],
                            cwd=wiki, env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    workers: list[int] = []
    try:
        assert proc.stderr is not None
        url = None
        deadline = time.monotonic() + 90
        while url is None and time.monotonic() < deadline:
            m = re.search(r"listening on (http://127\.0\.0\.1:\d+)/", proc.stderr.readline())
            url = m.group(1) if m else None
        assert url is not None
        with httpx.Client(base_url=url, timeout=60) as c:
            r = c.post("/signin", data={"token": token}, headers={"origin": url})
            assert r.status_code == 303
            assert PUBLIC in c.get("/").text
            # Searches go to the two worker processes (service/search_workers.py); this wiki has no index,
            # and their refusal reaches the page as the server's own would (their answers: test_search_workers).
            found = c.get("/search", params={"q": "Aurora revenue"}).text
            assert "this repository has no index yet" in found and "run `stigmergy index`" in found
        workers = _children(proc.pid)
        assert len(workers) >= 2
    finally:
        proc.kill()  # outright: the workers must leave on their own
        proc.wait(timeout=20)
    # Warnings and errors only on stderr: the MCP SDK's default wrote INFO lines through Rich (mcp/server.py).
    assert proc.stderr is not None and "INFO" not in proc.stderr.read()
    deadline = time.monotonic() + 15
    while any(Path(f"/proc/{w}").exists() for w in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(Path(f"/proc/{w}").exists() for w in workers)


def _children(pid: int) -> list[int]:
    """The live child processes of `pid` (Linux: /proc/PID/task/*/children)."""
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            out.extend(int(c) for c in (task / "children").read_text().split())
    return out


def test_the_capture_form_only_when_allowed_and_only_into_readable_layers(wiki: Path, tmp_path: Path) -> None:
    from conftest import git

    _captured_wiki(wiki)
    with running_server(wiki, tmp_path / "tokens.json") as srv:
        client = signed_in(srv, PUBLIC)
        assert client.get("/capture").status_code == 404
        r = client.post("/capture", data={"text": "Nope."}, headers={"origin": srv.url})
        assert r.status_code == 404
    head = git(wiki, "rev-parse", "HEAD")
    with running_server(wiki, tmp_path / "tokens.json", allow_capture=True) as srv:
        client = signed_in(srv, PUBLIC)
        form = client.get("/capture").text
        assert "<option value=\"public\">" in form and "board" not in form
        # Another site's page posting into the form, or a layer the person does not read: refused.
        assert client.post("/capture", data={"text": "x"}, headers={"origin": "http://evil.example"}).status_code == 403
        r = client.post("/capture", data={"text": "Orbis board note.", "layer": "board"}, headers={"origin": srv.url})
        assert r.status_code == 400 and "may write to" in r.text
        assert git(wiki, "rev-parse", "HEAD") == head
        r = client.post("/capture", data={"text": "Aurora hired a CFO in May 2026.", "title": "CFO hire"},
                        headers={"origin": srv.url})
        assert r.status_code == 200 and "id=captured" in r.text, r.text
    assert git(wiki, "rev-parse", "HEAD") != head
    source = git(wiki, "log", "-1", "--name-only", "--format=", "--", "sources")
    text = (wiki / source.strip().splitlines()[0]).read_text()
    assert f"submitted_by: {PUBLIC}" in text and "origin: web" in text
    assert "board note" not in git(wiki, "log", "--format=%B")


def test_every_page_says_when_the_index_is_stale(wiki: Path, tmp_path: Path) -> None:
    from conftest import git

    _captured_wiki(wiki)
    with running_server(wiki, tmp_path / "tokens.json") as srv:
        client = signed_in(srv, PUBLIC)
        note = next(p for p in (wiki / "wiki").rglob("*.md") if p.name != "index.md")
        rel = note.relative_to(wiki).as_posix()
        assert "(current)" in client.get(f"/page/{rel}").text
        note.write_text(note.read_text() + "\nA human line.\n")
        git(wiki, "commit", "-qam", "a human edit")
        for path in ("/", f"/page/{rel}", "/search?q=Lisbon", "/contradictions", f"/history/{rel}"):
            assert "STALE" in client.get(path).text, path


def test_every_wikilink_of_a_long_page_is_a_link_and_trust_is_shown(tmp_path: Path) -> None:
    from test_index_support import HashEmbedder, RepoBuilder

    from stigmergy.index.build import build_index

    b = RepoBuilder(tmp_path / "w")
    names = [f"Entity {i}" for i in range(30)]  # read resolves 20 links; the view draws every one
    for name in names:
        b.wiki("entity", name, f"- {name} is an organisation.\n")
    b.wiki("note", "Roll call", "".join(f"- See [[{n}]].\n" for n in names))
    b.commit()
    build_index(b.root, b.settings, embedder=HashEmbedder())
    with running_server(b.root, tmp_path / "tokens.json") as srv:
        r = signed_in(srv, PUBLIC).get("/page/wiki/notes/Roll call.md")
        assert r.text.count("class=wikilink ") == 30 and "wikilink-missing" not in r.text
        assert "id=confidence>0.5<" in r.text and "candidate" in r.text


def test_a_reader_removed_while_the_server_runs_loses_the_layer_at_the_next_request(tmp_path: Path) -> None:
    """Issue 18: a person's service lives as long as the server; readers are read again whenever
    stigmergy.toml changes, so the web view (and the MCP endpoint and Slack, through the same session)
    stop serving the board to someone taken off its readers, without a restart."""
    root = build_wiki(tmp_path / "w").root
    with running_server(root, tmp_path / "config" / "tokens.json") as server:
        board = signed_in(server, BOARD)
        assert CANARY in board.get(f"/page/{BOARD_NOTE}").text
        toml = (root / "stigmergy.toml").read_text()
        (root / "stigmergy.toml").write_text(toml.replace(f'"{BOARD}"', '"someone-else@example.com"'))
        r = board.get(f"/page/{BOARD_NOTE}")
        assert r.status_code == 404 and CANARY not in r.text
        assert "layers/board" not in board.get("/search?q=" + CANARY).text.replace(CANARY, "")
        (root / "stigmergy.toml").write_text(toml)
        assert CANARY in board.get(f"/page/{BOARD_NOTE}").text


def test_a_stigmergy_toml_that_no_longer_parses_serves_nothing(tmp_path: Path) -> None:
    root = build_wiki(tmp_path / "w").root
    with running_server(root, tmp_path / "tokens.json") as srv:
        board = signed_in(srv, BOARD)
        assert CANARY in board.get(f"/page/{BOARD_NOTE}").text
        (root / "stigmergy.toml").write_text("[layers.board\nreaders = [")
        for path in (f"/page/{BOARD_NOTE}", "/", f"/original/{BOARD_NOTE}"):
            r = board.get(path)
            assert r.status_code == 503 and CANARY not in r.text, path
            assert "default-src 'none'" in r.headers["content-security-policy"]


def test_connections_accepted_on_the_listening_socket_send_without_delay() -> None:
    """asyncio turns Nagle off only on sockets whose proto says TCP; with proto 0 every response on a kept-alive
    connection (headers, then body) waited ~40 ms for the client's delayed ACK."""
    import asyncio
    import socket

    from stigmergy.server.app import listen

    async def accepted_nodelay() -> int:
        seen: list[int] = []

        async def on_client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            sock = writer.get_extra_info("socket")
            seen.append(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()

        server = await asyncio.start_server(on_client, sock=listen("127.0.0.1", 0))
        port = server.sockets[0].getsockname()[1]
        _r, w = await asyncio.open_connection("127.0.0.1", port)
        for _ in range(100):
            if seen:
                break
            await asyncio.sleep(0.01)
        w.close()
        server.close()
        return seen[0]

    assert asyncio.run(accepted_nodelay()) != 0


def test_feedback_from_a_page_view_is_the_signed_in_readers_and_scoped(tmp_path: Path) -> None:
    """The useful / wrong control: a same-origin POST, recorded as the credential's person (never a form
    field's), refused as absent on a page the person cannot read, and shown at once."""
    root = build_wiki(tmp_path / "w").root
    with running_server(root, tmp_path / "tokens.json") as srv:
        client = signed_in(srv, PUBLIC)
        page = client.get(f"/page/{Q1}").text
        assert f"action=\"/feedback/{Q1.replace(' ', '%20')}\"" in page and "value=wrong" in page
        # Not signed in, another site's page, a layer the person does not read, a kind that is not feedback:
        # refused, nothing written.
        with _client(srv) as anon:
            r = anon.post(f"/feedback/{Q1}", data={"kind": "wrong"}, headers={"origin": srv.url})
            assert r.status_code == 303 and r.headers["location"] == "/signin"
        assert client.post(f"/feedback/{Q1}", data={"kind": "wrong"},
                           headers={"origin": "http://evil.example"}).status_code == 403
        assert client.post(f"/feedback/{Q1}", data={"kind": "wrong"}).status_code == 403  # no Origin at all
        hidden = client.post(f"/feedback/{BOARD_NOTE}", data={"kind": "wrong"}, headers={"origin": srv.url})
        absent = client.post(f"/feedback/{BOARD_NOTE.replace('Board', 'Bored')}", data={"kind": "wrong"},
                             headers={"origin": srv.url})
        assert hidden.status_code == absent.status_code == 404 and CANARY not in hidden.text
        assert client.post(f"/feedback/{Q1}", data={"kind": "verify"}, headers={"origin": srv.url}).status_code == 400
        assert not (root / "feedback").exists() and not (root / "layers" / "board" / "feedback").exists()
        # The person's own judgement, whatever the form claims about who sends it.
        r = client.post(f"/feedback/{Q1}", data={"kind": "wrong", "note": "the Q1 figure is Q2's", "by": BOARD,
                                                 "as": BOARD}, headers={"origin": srv.url})
        assert r.status_code == 303 and r.headers["location"].startswith(f"/page/{Q1.replace(' ', '%20')}")
        shown = client.get(r.headers["location"]).text
        assert "1 feedback" in shown and "the Q1 figure is Q2&#x27;s" in shown
    [batch] = list((root / "feedback").rglob("fb_*.jsonl"))
    [record] = [json.loads(line) for line in batch.read_text().splitlines()]
    assert record["by"] == PUBLIC and record["kind"] == "wrong" and record["path"] == Q1


def test_a_search_hits_passage_can_be_judged_and_the_search_comes_back(tmp_path: Path) -> None:
    root = build_wiki(tmp_path / "w").root
    with running_server(root, tmp_path / "tokens.json") as srv:
        client = signed_in(srv, PUBLIC)
        page = client.get("/search", params={"q": "Lisbon office"}).text
        assert "class=passage-feedback" in page and 'name=fragment value="' in page
        import re

        path, frag = re.search(r'action="/feedback/([^"]+)" method=post class=passage-feedback>'
                               r'<input type=hidden name=fragment value="(\d+)">', page).groups()  # type: ignore[union-attr]
        for bad in ("1x", "../1", "9" * 9):  # not a passage number: refused, nothing written
            r = client.post(f"/feedback/{path}", data={"kind": "wrong", "fragment": bad}, headers={"origin": srv.url})
            assert r.status_code == 400
        r = client.post(f"/feedback/{path}", data={"kind": "wrong", "fragment": frag, "q": "Lisbon office"},
                        headers={"origin": srv.url})
        assert r.status_code == 303 and r.headers["location"] == "/search?q=Lisbon%20office&fb=1"
        assert "id=recorded" in client.get(r.headers["location"]).text
        # The judgement is for that search (query-scoped); a hostile, overlong search is kept bounded and
        # never echoed unescaped.
        hostile = "<script>alert(1)</script> " + "Lisbon office " * 40
        r = client.post(f"/feedback/{path}", data={"kind": "wrong", "fragment": frag, "q": hostile},
                        headers={"origin": srv.url})
        assert r.status_code == 303 and "<script>alert" not in client.get(r.headers["location"]).text
    record, long = [json.loads(line) for b in (root / "feedback").rglob("fb_*.jsonl")
                    for line in b.read_text().splitlines()]
    assert record["fragment"] == int(frag) and record["line_sha"] and record["by"] == PUBLIC
    assert record["query"] == "Lisbon office"
    assert long["query"].startswith("<script>alert(1)</script> Lisbon") and len(long["query"]) <= 300
