"""The live Slack endpoint (stigmergy/server/slack.py) against a real server on 127.0.0.1 and a local
client that signs every request exactly as Slack does: v0 HMAC-SHA256 of `v0:{timestamp}:{body}` with the
signing secret. Bad signatures, stale timestamps, replays and other workspaces are refused; retries of an
event (X-Slack-Retry-Num, the same event_id) never capture twice, across a restart too; an unmapped
private channel is refused with nothing stored; `/wiki` answers as the Slack user's mapped person."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import socket
import threading
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import git
from export_fixtures import found
from test_answer_support import BOARD, CANARY, build_wiki
from test_capture import snapshot, source_files
from test_index_support import HashEmbedder

from stigmergy.errors import ConfigError
from stigmergy.pages.source import parse_source_page
from stigmergy.server import slack
from stigmergy.server.slack_config import Person, SlackConfig, load_slack_config
from stigmergy.service import Identity, WikiService
from stigmergy.settings import load_settings

SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
TEAM = "T0TEAM001"
BOT = "slack-bot@example.com"
ANN, BOB, CEO_U, STRANGER = "U0ANN0001", "U0BOB0001", "U0CEO0001", "U0NOBODY1"
GENERAL, BOARD_CH, SECRET_CH, RANDOM = "C0GENERAL", "G0BOARD01", "G0SECRET1", "C0RANDOM1"

LAYERS = f"""
[layers.board]
readers = ["{BOT}", "{BOARD}"]

[channels]
"#board" = "board"
"""


class Host:
    """What `stigmergy serve` hands a chat endpoint: the repository's service and one per person."""

    def __init__(self, service: WikiService) -> None:
        self.service = service
        self._people: dict[str, WikiService] = {}

    def service_for(self, email: str) -> WikiService:
        if email not in self._people:
            self._people[email] = self.service.with_identity(Identity(email, email))
        return self._people[email]


class Served:
    """An ASGI app (default: a plain Starlette app of `routes`) under uvicorn on 127.0.0.1, in a thread."""

    def __init__(self, routes: list[Any], app: Any = None) -> None:
        import uvicorn
        from starlette.applications import Starlette

        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        app = app if app is not None else Starlette(routes=routes)
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(30)


class SlackClient:
    """Sends what Slack sends: the body, X-Slack-Request-Timestamp, and X-Slack-Signature computed from them."""

    def __init__(self, url: str, secret: str = SECRET) -> None:
        self.url, self.secret = url, secret

    def sign(self, body: bytes, stamp: str, secret: str | None = None) -> str:
        base = b"v0:" + stamp.encode() + b":" + body
        return "v0=" + hmac.new((secret or self.secret).encode(), base, hashlib.sha256).hexdigest()

    def post(self, path: str, body: bytes, content_type: str, *, stamp: int | None = None, secret: str | None = None,
             signature: str | None = None, headers: dict[str, str] | None = None) -> httpx.Response:
        ts = str(int(time.time()) if stamp is None else stamp)
        sent = {"content-type": content_type, "x-slack-request-timestamp": ts,
                "x-slack-signature": signature or self.sign(body, ts, secret), **(headers or {})}
        return httpx.post(self.url + path, content=body, headers=sent, timeout=60)

    def event(self, event_id: str, event: dict[str, Any], *, team: str = TEAM, retry: int | None = None,
              **kw: Any) -> httpx.Response:
        body = json.dumps({"token": "unused", "team_id": team, "api_app_id": "A0APP0001", "type": "event_callback",
                           "event_id": event_id, "event_time": int(float(event.get("ts", "0"))), "event": event}).encode()
        headers = {"x-slack-retry-num": str(retry), "x-slack-retry-reason": "http_timeout"} if retry else {}
        return self.post(slack.EVENTS_PATH, body, "application/json", headers=headers, **kw)

    def command(self, text: str, user: str, *, team: str = TEAM, response_url: str = "https://hooks.slack.com/commands/T0/1/x",
                **kw: Any) -> httpx.Response:
        form = {"token": "unused", "team_id": team, "team_domain": "acme", "channel_id": GENERAL, "channel_name": "general",
                "user_id": user, "user_name": "someone", "command": "/wiki", "text": text, "api_app_id": "A0APP0001",
                "response_url": response_url, "trigger_id": "1.2.3"}
        return self.post(slack.COMMANDS_PATH, urllib.parse.urlencode(form).encode(), "application/x-www-form-urlencoded", **kw)


def message(ts: str, text: str, *, user: str = ANN, channel: str = GENERAL, channel_type: str = "channel",
            **extra: Any) -> dict[str, Any]:
    return {"type": "message", "channel": channel, "user": user, "text": text, "ts": ts, "event_ts": ts,
            "channel_type": channel_type, **extra}


def config(**kw: Any) -> SlackConfig:
    base: dict[str, Any] = dict(
        signing_secret=SECRET, team_id=TEAM, capture_as=BOT, web_url="https://wiki.example.com",
        channels={GENERAL: "general", BOARD_CH: "board", SECRET_CH: "secret-plans"},
        users={ANN: Person("ann@example.com", "Ann Lee"), BOB: Person("bob@example.com", "Bob Ray"),
               CEO_U: Person(BOARD, "Cee Oh")})
    base.update(kw)
    return SlackConfig(**base)


def _service(root: Path, embedder: Any = None) -> WikiService:
    return WikiService(root, load_settings(root), Identity(""), {}, embedder=embedder)


@pytest.fixture
def repo(wiki: Path) -> Path:
    (wiki / "stigmergy.toml").write_text((wiki / "stigmergy.toml").read_text() + LAYERS)
    git(wiki, "commit", "-qam", "board layer, #board channel")
    return wiki


@pytest.fixture
def live(repo: Path) -> Iterator[tuple[slack.SlackEndpoint, SlackClient]]:
    endpoint = slack.SlackEndpoint(Host(_service(repo)), config())
    served = Served(endpoint.routes())
    try:
        yield endpoint, SlackClient(served.url)
    finally:
        served.stop()
        endpoint.close()


def _sources(root: Path) -> list[Any]:
    return [parse_source_page(p.read_text(), str(p.relative_to(root))) for p in sorted(root.rglob("sources/**/cap_*.md"))]


def _paths(root: Path) -> list[str]:
    return [str(p.relative_to(root)) for p in sorted(root.rglob("sources/**/cap_*.md"))]


def _ledger(root: Path, event_id: str) -> dict[str, Any]:
    return json.loads((root / ".stigmergy" / "events" / "slack" / f"{event_id}.json").read_text())


# ---------------------------------------------------------------- verification


def test_url_verification_answers_the_challenge(live: tuple[slack.SlackEndpoint, SlackClient]) -> None:
    _, client = live
    body = json.dumps({"token": "unused", "challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
                       "type": "url_verification"}).encode()
    r = client.post(slack.EVENTS_PATH, body, "application/json")
    assert r.status_code == 200 and r.json() == {"challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"}
    # Unsigned, the same challenge gets nothing back.
    r = client.post(slack.EVENTS_PATH, body, "application/json", secret="not-the-secret-0123456789")
    assert r.status_code == 401 and "challenge" not in r.text


@pytest.mark.parametrize("attack", ["wrong-secret", "tampered", "stale", "future", "unsigned", "no-timestamp",
                                    "replay", "other-team", "huge"])
def test_forged_stale_replayed_and_foreign_requests_are_refused_and_nothing_stored(
        repo: Path, live: tuple[slack.SlackEndpoint, SlackClient], attack: str) -> None:
    endpoint, client = live
    event = message("1767603240.000100", "We ship Atlas on Friday")
    before = snapshot(repo)
    if attack == "wrong-secret":
        r = client.event("Ev0FORGED01", event, secret="a-different-secret-0123456789")
    elif attack == "tampered":  # signed, then a word changed in transit
        body = json.dumps({"team_id": TEAM, "type": "event_callback", "event_id": "Ev0FORGED01", "event": event}).encode()
        stamp = str(int(time.time()))
        sig = client.sign(body, stamp)
        r = client.post(slack.EVENTS_PATH, body.replace(b"Friday", b"Monday"), "application/json", stamp=int(stamp),
                        signature=sig)
    elif attack in ("stale", "future"):  # correctly signed, sent more than five minutes before (or after) now
        endpoint.clock = lambda: 1_800_000_000.0
        sign = -1 if attack == "stale" else 1
        edge = client.post(slack.EVENTS_PATH, b'{"type": "url_verification", "challenge": "c"}', "application/json",
                           stamp=1_800_000_000 + sign * 300)
        assert edge.json() == {"challenge": "c"}  # five minutes away exactly: still accepted
        r = client.event("Ev0FORGED01", event, stamp=1_800_000_000 + sign * 301)
        assert "stale" in r.text
    elif attack == "unsigned":
        r = httpx.post(client.url + slack.EVENTS_PATH, json={"type": "event_callback", "event_id": "Ev0FORGED01",
                                                             "team_id": TEAM, "event": event})
    elif attack == "no-timestamp":
        r = httpx.post(client.url + slack.EVENTS_PATH, content=b"{}", headers={"x-slack-signature": client.sign(b"{}", "")})
    elif attack == "replay":  # the very command Slack sent, captured and sent again within five minutes
        stamp = int(time.time())
        assert client.command("help", ANN, stamp=stamp).status_code == 200
        r = client.command("help", ANN, stamp=stamp)
    elif attack == "other-team":  # our signing secret, another workspace the app is installed in
        r = client.event("Ev0FORGED01", event, team="T0OTHER01")
        assert r.status_code == 403
        endpoint.idle()
        assert snapshot(repo) == before
        return
    else:
        r = client.post(slack.EVENTS_PATH, b"{" + b" " * (slack.MAX_BODY + 1) + b"}", "application/json")
        assert r.status_code == 413
        return
    assert r.status_code == 401, r.text
    endpoint.idle()
    assert snapshot(repo) == before
    assert not (repo / ".stigmergy" / "events").exists()


# ---------------------------------------------------------------- the Events API


def test_a_message_is_captured_once_however_often_slack_retries(repo: Path, live: tuple[slack.SlackEndpoint, SlackClient]) -> None:
    endpoint, client = live
    event = message("1767603240.000100", "We decided to ship Atlas 2.0 on Friday <@U0BOB0001>")
    first = client.event("Ev0ATLAS001", event)
    assert first.status_code == 200 and first.json() == {"ok": True, "queued": True}
    # Slack retries when the acknowledgement seems late: new timestamps and signatures, the same event_id.
    for n in (1, 2, 3):
        again = client.event("Ev0ATLAS001", event, retry=n)
        assert again.status_code == 200 and again.json()["duplicate"] is True
    endpoint.idle()
    [page] = _sources(repo)
    assert page.text == "- [08:54] Ann Lee: We decided to ship Atlas 2.0 on Friday @Bob Ray\n"
    assert page.title == "Slack #general, 2026-01-05 08:54" and page.layer == "public" and page.origin == "slack"
    assert page.submitted_by == "Ann Lee <ann@example.com>"
    assert page.metadata["chat"]["channel_id"] == GENERAL
    settled = _ledger(repo, "Ev0ATLAS001")
    assert settled["status"] == "filed" and [settled["source_path"]] == _paths(repo) and "payload" not in settled
    assert "Atlas" not in json.dumps(settled)  # local state keeps the outcome, not the message
    assert len(git(repo, "log", "--format=%H", "--grep", "Stigmergy-Kind: capture").split()) == 1
    hits = found(repo, "ship Atlas 2.0 Friday")
    assert any("Atlas" in snippet for _, snippet in hits), hits  # indexed, found
    # An edit is captured as the message now reads; the same edit delivered again is not.
    edited = {"type": "message", "subtype": "message_changed", "channel": GENERAL, "channel_type": "channel",
              "ts": "1767603300.000200", "hidden": False,
              "message": dict(event, text="We decided to ship Atlas 2.1 on Friday", edited={"user": ANN})}
    assert client.event("Ev0ATLAS002", edited).json()["queued"] is True
    assert client.event("Ev0ATLAS002", edited, retry=1).json()["duplicate"] is True
    endpoint.idle()
    texts = sorted(p.text for p in _sources(repo))
    assert texts == ["- [08:54] Ann Lee: We decided to ship Atlas 2.0 on Friday @Bob Ray\n",
                     "- [08:54] Ann Lee: We decided to ship Atlas 2.1 on Friday (edited)\n"]


def test_retries_arriving_together_capture_once(repo: Path, live: tuple[slack.SlackEndpoint, SlackClient]) -> None:
    endpoint, client = live
    event = message("1767603240.000300", "Budget for Atlas is 45k")
    results: list[httpx.Response] = []
    threads = [threading.Thread(target=lambda n=n: results.append(client.event("Ev0BURST001", event, retry=n or None)))
               for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r.json().get("queued", False) for r in results) == [False] * 5 + [True]
    endpoint.idle()
    assert len(_sources(repo)) == 1


def test_a_restart_remembers_events_and_captures_what_it_had_acknowledged(repo: Path) -> None:
    host = Host(_service(repo))
    event = message("1767603240.000400", "Headcount reached 12 people")
    # Acknowledged (claimed), and the server stopped before its worker captured it.
    assert host.service.claim_event("slack", "Ev0PENDING1", {"event": event, "channel": "general", "channel_id": GENERAL})
    endpoint = slack.SlackEndpoint(host, config())  # the next start picks it up
    served = Served(endpoint.routes())
    try:
        endpoint.idle()
        assert [p.text for p in _sources(repo)] == ["- [08:54] Ann Lee: Headcount reached 12 people\n"]
        # Slack's last retry of it, after the restart: acknowledged, not captured again.
        r = SlackClient(served.url).event("Ev0PENDING1", event, retry=3)
        assert r.json()["duplicate"] is True
        endpoint.idle()
        assert len(_sources(repo)) == 1
    finally:
        served.stop()
        endpoint.close()


def test_an_unmapped_private_channel_is_refused_and_nothing_of_it_stored(repo: Path,
                                                                        live: tuple[slack.SlackEndpoint, SlackClient]) -> None:
    endpoint, client = live
    before = snapshot(repo)
    secret_text = "PRIVATE-CANARY-7781 the layoffs list"
    r = client.event("Ev0SECRET01", message("1767603240.000500", secret_text, channel=SECRET_CH, channel_type="group"))
    assert r.status_code == 200  # acknowledged (Slack must not retry it), then refused by the pipeline
    endpoint.idle()
    assert _ledger(repo, "Ev0SECRET01")["rule"] == "private-channel"
    assert snapshot(repo) == before and not source_files(repo)
    for path in repo.rglob("*"):
        if path.is_file() and ".git" not in path.parts:
            assert b"PRIVATE-CANARY-7781" not in path.read_bytes(), path
    # A private channel [channels] maps goes to its layer; a direct message, unmapped, is refused too.
    client.event("Ev0BOARD001", message("1767603240.000600", "Orbis offered $72M", channel=BOARD_CH, channel_type="group",
                                         user=CEO_U))
    endpoint.idle()
    [page] = _sources(repo)
    assert _paths(repo)[0].startswith("layers/board/sources/") and page.layer == "board"
    assert page.submitted_by == f"Cee Oh <{BOARD}>"


def test_unconfigured_channels_bots_and_other_events_are_acknowledged_and_ignored(
        repo: Path, live: tuple[slack.SlackEndpoint, SlackClient]) -> None:
    endpoint, client = live
    before = snapshot(repo)
    assert client.event("Ev0IGNORE01", message("1767603240.000700", "off-topic", channel=RANDOM)).json()["ignored"]
    assert client.event("Ev0IGNORE02", message("1767603240.000800", "I am a bot", bot_id="B0BOT0001",
                                               subtype="bot_message")).status_code == 200
    assert client.event("Ev0IGNORE03", message("1767603240.000900", "", subtype="channel_join")).status_code == 200
    assert client.event("Ev0IGNORE04", {"type": "reaction_added", "user": ANN, "item": {"channel": GENERAL}}).json()["ignored"]
    assert client.event("../../etc/x", message("1767603240.001000", "path")).status_code == 400
    endpoint.idle()
    assert snapshot(repo) == before
    assert _ledger(repo, "Ev0IGNORE02") == {"status": "ignored"}


def test_a_message_holding_a_credential_is_refused(repo: Path, live: tuple[slack.SlackEndpoint, SlackClient]) -> None:
    endpoint, client = live
    before = snapshot(repo)
    client.event("Ev0CRED0001", message("1767603240.001100", "the key is AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"))
    endpoint.idle()
    assert _ledger(repo, "Ev0CRED0001")["rule"] == "secret"
    assert snapshot(repo) == before


# ---------------------------------------------------------------- the slash command


@pytest.fixture
def answering(tmp_path: Path) -> Iterator[tuple[slack.SlackEndpoint, SlackClient, Any]]:
    """The endpoint mounted in `stigmergy serve`'s own application (its Host and Origin checks, its
    security headers, one service per person sharing the warm search session)."""
    from stigmergy.server.app import build_app
    from stigmergy.server.config import ServeConfig
    from stigmergy.server.tokens import TokenStore

    b = build_wiki(tmp_path / "w")
    serve = ServeConfig(service=_service(b.root, HashEmbedder()), tokens=TokenStore(tmp_path / "tokens.json"))
    endpoint = slack.SlackEndpoint(serve, config(channels={}))
    served = Served([], app=build_app(serve, endpoint.routes()))
    b.serve = serve  # type: ignore[attr-defined]
    try:
        yield endpoint, SlackClient(served.url), b
    finally:
        served.stop()
        endpoint.close()
        serve.close()


def test_wiki_answers_as_the_mapped_person_with_links_to_the_web_view(answering: Any) -> None:
    _, client, _b = answering
    question = "How much did Orbis offer to acquire Aurora?"
    ceo = client.command(question, CEO_U)
    assert ceo.status_code == 200
    reply = ceo.json()
    assert reply["response_type"] == "ephemeral" and CANARY in reply["text"]
    assert "<https://wiki.example.com/page/layers/board/sources/" in reply["text"]
    # The link opens the cited source in the web view, for a reader who signs in there. The reply may link
    # the board note before the source (the two nearly tie on the search's score): the source's link is taken.
    link = re.search(r"<https://wiki\.example\.com(/page/layers/board/sources/[^|>]+)\|", reply["text"])
    assert link is not None
    _record, token = _b.serve.tokens.add(BOARD)
    with httpx.Client(base_url=client.url, timeout=60) as web:
        assert web.post("/signin", data={"token": token}, headers={"origin": client.url}).status_code == 303
        page = web.get(link.group(1))
        assert page.status_code == 200
        assert re.search(r"<tr id=L\d+ class=hl>.*?" + CANARY, page.text)  # the cited line, highlighted
    public = client.command(question, ANN).json()
    assert "does not say" in public["text"]
    assert CANARY not in public["text"] and "$72M" not in public["text"] and "board" not in public["text"]
    revenue = client.command("What was Aurora revenue in Q1 2026?", ANN).json()["text"]
    assert "$1.3M" in revenue and "<https://wiki.example.com/page/sources/" in revenue and "?hl=" in revenue
    assert "|Q1 report L" in revenue  # a wiki page by its name
    assert ":warning: *Aurora Q1 revenue*: Aurora revenue was $1.1M in Q1 2026. (2026-03-28, <https://" in revenue


def test_an_unmapped_user_is_refused_or_a_public_reader_as_the_server_says(answering: Any, tmp_path: Path) -> None:
    _, client, b = answering
    refused = client.command("How much did Orbis offer to acquire Aurora?", STRANGER).json()
    assert refused["response_type"] == "ephemeral" and "not mapped" in refused["text"] and CANARY not in refused["text"]
    endpoint = slack.SlackEndpoint(Host(_service(b.root, HashEmbedder())), config(channels={}, unmapped_users="public"))
    served = Served(endpoint.routes())
    try:
        other = SlackClient(served.url)
        text = other.command("What was Aurora revenue in Q1 2026?", STRANGER).json()["text"]
        assert "$1.3M" in text
        assert CANARY not in other.command("How much did Orbis offer to acquire Aurora?", STRANGER).json()["text"]
    finally:
        served.stop()


def test_a_slow_answer_is_posted_to_the_response_url_and_nowhere_else(answering: Any) -> None:
    endpoint, client, _b = answering
    endpoint.defer_after = 0.0  # every answer is late
    received: list[dict[str, Any]] = []

    async def hook(request: Any) -> Any:
        from starlette.responses import PlainTextResponse

        received.append(json.loads(await request.body()))
        return PlainTextResponse("ok")

    from starlette.routing import Route

    peer = Served([Route("/commands/T0/1/x", hook, methods=["POST"])])
    endpoint.config = config(channels={}, response_url_prefix=peer.url + "/")
    try:
        r = client.command("What was Aurora revenue in Q1 2026?", ANN, response_url=peer.url + "/commands/T0/1/x")
        assert r.json()["text"].startswith("Looking up:")
        deadline = time.monotonic() + 60
        while not received:
            assert time.monotonic() < deadline, endpoint.errors
            time.sleep(0.05)
        assert "$1.3M" in received[0]["text"] and received[0]["response_type"] == "ephemeral"
        # A response_url elsewhere is never called: the answer comes in the response, however late.
        r = client.command("What was Aurora revenue in Q1 2026?", ANN, response_url="http://169.254.169.254/latest/")
        assert "$1.3M" in r.json()["text"] and len(received) == 1
    finally:
        peer.stop()


def test_commands_are_verified_like_events(answering: Any) -> None:
    _, client, _b = answering
    assert client.command("anything", CEO_U, secret="a-different-secret-0123456789").status_code == 401
    assert client.command("anything", CEO_U, stamp=int(time.time()) - 600).status_code == 401
    assert client.command("anything", CEO_U, team="T0OTHER01").status_code == 403


def test_repository_text_is_escaped_for_slack() -> None:
    result = {"answered": True, "sentences": [{
        "text": "Ping <!channel> and <@U0CEO0001>, then <https://evil.example|the board deck> & more",
        "title": "Notes <b>", "citations": [{"path": "sources/2026/01/cap_X.md", "lines": [3, 4]}]}]}
    text = slack.render_answer("who <!here>?", result, "https://wiki.example.com")["text"]
    assert "<!channel>" not in text and "<!here>" not in text and "<https://evil" not in text and "<@U0CEO" not in text
    assert "&lt;!channel&gt;" in text and "&amp; more" in text
    assert "<https://wiki.example.com/page/sources/2026/01/cap_X.md?hl=3-4#L3|source L3-4>" in text


# ---------------------------------------------------------------- the server's configuration


def test_configuration_is_the_servers_and_never_the_repositorys(repo: Path, tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    with pytest.raises(ConfigError, match="signing secret"):
        load_slack_config(env, repo)
    cfg = load_slack_config({**env, "STIGMERGY_SLACK_SIGNING_SECRET": SECRET}, repo)
    assert cfg.signing_secret == SECRET and cfg.unmapped_users == "refuse" and SECRET not in repr(cfg)
    path = tmp_path / "xdg" / "stigmergy" / "slack.toml"
    path.parent.mkdir(parents=True)
    path.write_text(f'signing_secret = "{SECRET}"\nteam_id = "{TEAM}"\n[channels]\n{GENERAL} = "#general"\n'
                    f'[users]\n{ANN} = "Ann Lee <ann@example.com>"\n{BOB} = "bob@example.com"\n')
    os.chmod(path, 0o644)
    with pytest.raises(ConfigError, match="other accounts may read it"):
        load_slack_config(env, repo)
    os.chmod(path, 0o600)
    cfg = load_slack_config(env, repo)
    assert cfg.channels == {GENERAL: "general"} and cfg.users[ANN] == Person("ann@example.com", "Ann Lee")
    assert cfg.users[BOB] == Person("bob@example.com", "bob@example.com")
    # A slack.toml inside the repository (anyone who can push could map themselves to the CEO) is refused.
    inside = repo / "slack.toml"
    inside.write_text(f'[users]\n{STRANGER} = "{BOARD}"\n')
    with pytest.raises(ConfigError, match="inside the repository"):
        load_slack_config({**env, "STIGMERGY_SLACK_SIGNING_SECRET": SECRET}, repo, inside)
    with pytest.raises(ConfigError, match="unknown setting"):
        path.write_text('signing_secret = "x"\nreaders = ["*"]\n')
        load_slack_config(env, repo)


# ---------------------------------------------------------------- wired into `stigmergy serve --slack`


def test_stigmergy_serve_slack_captures_a_signed_message(repo: Path, tmp_path: Path) -> None:
    import subprocess
    import sys

    cfg = tmp_path / "xdg" / "stigmergy" / "slack.toml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text(f'team_id = "{TEAM}"\ncapture_as = "{BOT}"\n[channels]\n{GENERAL} = "general"\n'
                   f'[users]\n{ANN} = "Ann Lee <ann@example.com>"\n')
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "xdg"), "STIGMERGY_SLACK_SIGNING_SECRET": SECRET}
    proc = subprocess.Popen([sys.executable, "-m", "stigmergy", "serve", "--slack", "--port", "0"], cwd=repo, env=env,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        line = ""
        while "listening on" not in line:
            line = proc.stderr.readline()
            assert line, "the server exited before listening"
        client = SlackClient(line.split("listening on ", 1)[1].strip().rstrip("/"))
        assert client.event("Ev0SERVE001", message("1767603240.002000", "Lisbon office opened today")).json()["queued"]
        assert client.event("Ev0SERVE001", message("1767603240.002000", "Lisbon office opened today"),
                            retry=1).json()["duplicate"]
        assert client.event("Ev0SERVE002", message("1767603240.002100", "x"), secret="not-the-secret-0123456789"
                            ).status_code == 401
        deadline = time.monotonic() + 120
        ledger = repo / ".stigmergy" / "events" / "slack" / "Ev0SERVE001.json"
        while json.loads(ledger.read_text())["status"] == "queued":
            assert time.monotonic() < deadline and proc.poll() is None, "the message was not captured"
            time.sleep(0.1)
    finally:
        proc.terminate()
        proc.wait(30)
    [page] = _sources(repo)
    assert page.text == "- [08:54] Ann Lee: Lisbon office opened today\n"
    assert _ledger(repo, "Ev0SERVE001")["status"] == "filed"


def test_a_message_waiting_on_another_writer_stays_queued_and_is_captured_later(repo: Path) -> None:
    from stigmergy.repo.operations import Repository

    toml = repo / "stigmergy.toml"
    toml.write_text(re.sub(r"(?m)^(\[lock\]\n(?:#.*\n)*)timeout_seconds = .*$", r"\1timeout_seconds = 0.2", toml.read_text()))
    assert load_settings(repo).lock.timeout_seconds == 0.2
    git(repo, "commit", "-qam", "short lock wait")
    host = Host(_service(repo))
    endpoint = slack.SlackEndpoint(host, config())
    served = Served(endpoint.routes())
    try:
        with Repository(repo, load_settings(repo)).lock():  # a long recompile, say, holds the writer lock
            assert SlackClient(served.url).event("Ev0WAITING1", message("1767603240.003000", "Q3 plan agreed")).json()["queued"]
            endpoint.idle()
            assert _ledger(repo, "Ev0WAITING1")["status"] == "queued" and not source_files(repo)
            assert len(endpoint.errors) == 1
    finally:
        served.stop()
        endpoint.close()
    again = slack.SlackEndpoint(Host(_service(repo)), config())  # the next start takes it up
    try:
        again.idle()
    finally:
        again.close()
    assert [p.text for p in _sources(repo)] == ["- [08:54] Ann Lee: Q3 plan agreed\n"]
    assert _ledger(repo, "Ev0WAITING1")["status"] == "filed"
