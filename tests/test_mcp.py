"""`stigmergy mcp`: the tools through the SDK's own client, in process (fast) and against the real
server as a subprocess: streamable HTTP behind a bearer token, and stdio (with the real model)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import REPO_ROOT, git, run_cli
from test_answer_support import BOARD, CANARY, PUBLIC, build_wiki
from test_index_support import HashEmbedder, RepoBuilder, link_model_cache, shared_embedder

from stigmergy.index.build import build_index
from stigmergy.mcp.server import build_server
from stigmergy.mcp.tools import Session
from stigmergy.service import Identity, WikiService

# Every server offers these; `feedback` records the reader's judgement (docs/trust.md), `capture` only when allowed.
READ_TOOLS = ["ask", "contradictions", "describe", "feedback", "list", "read", "search", "status"]
TOKEN = "t0k3n-for-the-tests-only-0123456789"


@pytest.fixture
def repo(tmp_path: Path, index_env: dict[str, str]) -> RepoBuilder:
    return build_wiki(tmp_path / "w", env=index_env)


def _session(b: RepoBuilder, reader: str, **kw: Any) -> Session:
    return Session(WikiService(b.root, b.settings, Identity(reader), {}, embedder=HashEmbedder()), **kw)


def _calls(b: RepoBuilder, reader: str, calls: list[tuple[str, dict[str, Any]]], **kw: Any) -> list[Any]:
    """Connect the SDK's client to the server in process and make the calls in order."""
    from mcp import Client

    session = _session(b, reader, **kw)
    results: list[Any] = []

    async def main() -> None:
        async with Client(build_server(session)) as client:
            for name, args in calls:
                results.append(await client.list_tools() if name == "list_tools" else await client.call_tool(name, args))

    try:
        anyio.run(main)
    finally:
        session.close()
    return results


def test_tools_and_scope_in_process(repo: RepoBuilder) -> None:
    query = {"query": f"{CANARY} Orbis acquire Aurora", "k": 10}
    tools, public, spoofed, by_layer, listed = _calls(repo, PUBLIC, [
        ("list_tools", {}), ("search", query), ("search", {**query, "as": BOARD, "reader": BOARD}),
        ("search", {**query, "layer": "board"}), ("list", {"layer": "board"})])
    assert sorted(t.name for t in tools.tools) == READ_TOOLS
    assert by_layer.structured_content["hits"] == [] and listed.structured_content["total"] == 0
    for result in (public, spoofed):  # a client cannot choose whom it reads as
        assert not result.is_error
        assert result.structured_content["reader"] == PUBLIC
        hits = result.structured_content["hits"]  # (the query itself is echoed back)
        assert hits and CANARY not in json.dumps(hits) and "layers/board" not in result.content[0].text
    [board] = _calls(repo, BOARD, [("search", query)])
    assert any(h["path"].startswith("layers/board/") for h in board.structured_content["hits"])


def test_read_fragment_and_errors_match_the_cli(repo: RepoBuilder) -> None:
    restricted = "layers/board/wiki/notes/Board minutes.md"
    frag, hidden, too_many, bad_k, escape, absolute = _calls(repo, PUBLIC, [
        ("read", {"refs": ["wiki/notes/Q1 report.md#1"], "evidence": True}),
        ("read", {"refs": [restricted]}),
        ("read", {"refs": ["a.md"] * 6}),
        ("search", {"query": "x", "k": 500}),
        ("read", {"refs": ["wiki/../../../etc/passwd"]}),
        ("read", {"refs": ["/etc/passwd"]}),
    ])
    assert escape.is_error and absolute.is_error and "root:" not in escape.content[0].text + absolute.content[0].text
    page = frag.structured_content["pages"][0]
    assert page["fragment"] == 1 and page["lines"][0] <= page["lines"][1] and page["evidence"]
    assert frag.structured_content["index"]["stale"] is False and frag.structured_content["index"]["commit"]
    code, _, err = run_cli(["--as", PUBLIC, "read", restricted], repo.root, env=repo.env)
    assert hidden.is_error and code == 1
    assert hidden.content[0].text.split("\n")[0] == err.split("\n")[0] == f"error: no page at {restricted}"
    assert hidden.structured_content["error"]["exit_code"] == 1
    assert too_many.is_error and bad_k.is_error and "between 1 and 50" in bad_k.content[0].text


def test_ask_describe_list_contradictions_status(repo: RepoBuilder) -> None:
    ask, describe, listed, cons, status = _calls(repo, PUBLIC, [
        ("ask", {"question": "What was Aurora revenue in Q1 2026?"}),
        ("describe", {"entity": "Nobody"}),
        ("list", {"limit": 2}),
        ("contradictions", {"status": "open"}),
        ("status", {}),
    ])
    a = ask.structured_content
    assert a["answered"] and a["sentences"][0]["citations"] and a["contradictions"] and "stale" in a["index"]
    assert describe.is_error and "no entity called" in describe.content[0].text
    assert len(listed.structured_content["pages"]) == 2 and listed.structured_content["total"] > 2
    assert [c["subject"] for c in cons.structured_content["contradictions"]] == ["Aurora Q1 revenue"]
    assert cons.structured_content["index"]["stale"] is False
    st = status.structured_content
    assert st["reader"] == PUBLIC and st["layers"] == ["public"] and st["capture"] is False
    assert CANARY not in json.dumps([a, st])


def test_capture_only_when_allowed_and_through_the_gates(repo: RepoBuilder) -> None:
    text = "The Porto office opened on 4 May 2026 with 9 people."
    [tools, off] = _calls(repo, PUBLIC, [("list_tools", {}), ("capture", {"text": text})])
    assert "capture" not in [t.name for t in tools.tools] and off.is_error
    head = git(repo.root, "rev-parse", "HEAD")
    tools, done, hidden_layer, empty = _calls(repo, PUBLIC, [
        ("list_tools", {}), ("capture", {"text": text, "title": "Porto office"}),
        ("capture", {"text": text, "layer": "board"}), ("capture", {"text": "  "})], allow_capture=True)
    assert "capture" in [t.name for t in tools.tools]
    out = done.structured_content["capture"]
    assert not done.is_error and out["status"] == "filed" and out["commit"] != head.strip()
    source = (repo.root / out["source_path"]).read_text()
    assert "origin: mcp" in source and f"submitted_by: {PUBLIC}" in source
    assert hidden_layer.is_error and "no layer 'board'" in hidden_layer.content[0].text
    assert empty.is_error


def test_status_without_an_index_and_search_telling_to_build_one(tmp_path: Path) -> None:
    b = build_wiki(tmp_path / "w", index=False)
    session = Session(WikiService(b.root, b.settings, Identity(PUBLIC), {}))
    from mcp import Client

    async def main() -> tuple[Any, Any]:
        async with Client(build_server(session)) as client:
            return await client.call_tool("status", {}), await client.call_tool("search", {"query": "Aurora"})

    status, search = anyio.run(main)
    assert not status.is_error and status.structured_content["index"] is None
    assert status.structured_content["pages_by_type"]["note"] == 1  # the board note is not the reader's
    assert search.is_error and "no index yet" in search.content[0].text


def _start_http(root: Path, env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-m", "stigmergy", "mcp", "--http", "--port", "0", "--as", PUBLIC],
                            cwd=root, env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    deadline = time.monotonic() + 60
    assert proc.stderr is not None
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        m = re.search(r"listening on (http://127\.0\.0\.1:\d+/mcp)", line)
        if m:
            return proc, m.group(1)
        if not line and proc.poll() is not None:
            break
    proc.kill()
    raise AssertionError("the server did not start")


def test_http_transport_needs_the_bearer_token(repo: RepoBuilder) -> None:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    env = {**os.environ, **repo.env, "PYTHONPATH": str(REPO_ROOT)}
    no_token = subprocess.run([sys.executable, "-m", "stigmergy", "mcp", "--http"], cwd=repo.root, env=env,
                              capture_output=True, text=True)
    assert no_token.returncode == 2 and no_token.stderr.startswith("error: --http needs a bearer token")
    proc, url = _start_http(repo.root, {**env, "STIGMERGY_MCP_TOKEN": TOKEN})
    try:
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
        headers = {"accept": "application/json, text/event-stream"}
        for auth in ({}, {"authorization": "Bearer wrong-token-wrong-token"}, {"authorization": TOKEN}):
            r = httpx2.post(url, json=init, headers={**headers, **auth}, timeout=60)
            assert r.status_code == 401, auth

        async def main() -> tuple[Any, Any]:
            async with httpx2.AsyncClient(headers={"authorization": f"Bearer {TOKEN}"}, timeout=120) as http:
                async with Client(streamable_http_client(url, http_client=http)) as client:
                    return await client.list_tools(), await client.call_tool("read", {"refs": ["wiki/notes/Q1 report.md#1"]})

        tools, read = anyio.run(main)
        assert sorted(t.name for t in tools.tools) == READ_TOOLS
        assert read.structured_content["pages"][0]["path"] == "wiki/notes/Q1 report.md"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.model
def test_stdio_server_as_a_real_subprocess(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    from mcp import Client, StdioServerParameters

    b = build_wiki(tmp_path / "w", index=False)
    base = tmp_path_factory.getbasetemp()
    link_model_cache(b.root, base)
    build_index(b.root, b.settings, embedder=shared_embedder(base))
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}

    def serve(reader: str, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
        params = StdioServerParameters(command=sys.executable, args=["-m", "stigmergy", "mcp"], cwd=str(b.root),
                                       env={**env, "STIGMERGY_READER": reader})
        out: list[Any] = []

        async def main() -> None:
            async with Client(params, read_timeout_seconds=120) as client:
                for name, args in calls:
                    out.append(await client.list_tools() if name == "list_tools" else await client.call_tool(name, args))

        anyio.run(main)
        return out

    query = {"query": "Orbis offered to acquire Aurora", "k": 10}  # the canary is not in the query
    tools, public, frag, ask = serve(PUBLIC, [
        ("list_tools", {}), ("search", query), ("read", {"refs": ["wiki/notes/Q1 report.md#1"]}),
        ("ask", {"question": "When did the Lisbon office open?"})])
    assert sorted(t.name for t in tools.tools) == READ_TOOLS
    assert public.structured_content["reader"] == PUBLIC and CANARY not in json.dumps(public.structured_content)
    assert frag.structured_content["pages"][0]["fragment"] == 1
    a = ask.structured_content
    assert a["answered"] and "2 March 2026" in a["sentences"][0]["text"] and a["index"]["stale"] is False
    [board] = serve(BOARD, [("search", query)])
    assert any(h["path"].startswith("layers/board/") for h in board.structured_content["hits"])
    # The CLI's `ask` answers the same question with the same shape.
    code, out, _ = run_cli(["--as", PUBLIC, "ask", "When did the Lisbon office open?", "--json", "--evidence"], b.root)
    cli = json.loads(out)
    assert code == 0 and [x["text"] for x in cli["sentences"]] == [x["text"] for x in a["sentences"]]
    assert all("text" in c for x in cli["sentences"] for c in x["citations"])


def test_help_does_not_import_the_agents_stack() -> None:
    code = (
        "import sys\nfrom stigmergy.cli.app import main\nsys.argv = ['stigmergy', '--help']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('mcp', 'uvicorn', 'starlette', 'httpx2', 'snowballstemmer', 'stigmergy.answer.service') "
        "if m in sys.modules]\nprint('HEAVY', heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    assert "HEAVY []" in out.stdout, out.stdout + out.stderr


def test_feedback_tool_records_as_the_reader_and_hides_what_they_cannot_read(repo: RepoBuilder) -> None:
    """Hostile: a board page named through the tool answers exactly as a missing page, writes nothing; the
    reader is the server's, whatever the arguments say."""
    restricted = "layers/board/wiki/notes/Board minutes.md"
    hidden, missing, bad, done = _calls(repo, PUBLIC, [
        ("feedback", {"page": restricted, "verdict": "wrong", "note": "let me in"}),
        ("feedback", {"page": "layers/board/wiki/notes/No such page.md", "verdict": "wrong"}),
        ("feedback", {"page": "wiki/notes/Q1 report.md", "verdict": "delete"}),
        ("feedback", {"page": "wiki/notes/Q1 report.md#1", "verdict": "useful", "note": "clear"}),
    ])
    assert hidden.is_error and missing.is_error and bad.is_error
    assert hidden.content[0].text.replace(restricted, "P").split("\n")[0] == \
        missing.content[0].text.replace("layers/board/wiki/notes/No such page.md", "P").split("\n")[0]
    assert not (repo.root / "layers" / "board" / "feedback").exists()
    record = done.structured_content["record"]
    assert record["by"] == PUBLIC and record["fragment"] == 1 and done.structured_content["trust"]["feedback"] == 1
