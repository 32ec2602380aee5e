"""The live Slack endpoint of `stigmergy serve`: the Events API (messages of the configured channels
captured through the normal pipeline and gates) and a slash command (`/wiki QUESTION`, answered by `ask`
as the person the Slack user maps to, citations linking to the web view).

Every request is verified as Slack signs it (https://api.slack.com/authentication/verifying-requests-from-slack):
`v0=` + hex HMAC-SHA256 of `v0:{X-Slack-Request-Timestamp}:{raw body}` under the app's signing secret,
compared in constant time with `X-Slack-Signature`; a timestamp more than five minutes away is refused,
and a command whose signature was seen before within those five minutes is a replay, refused. A
redelivered (or replayed) event (Slack's
retries carry `X-Slack-Retry-Num` and the same `event_id`) is acknowledged and never captured twice: the
event id is claimed in `.stigmergy/events/slack/` before the acknowledgement, across processes and restarts.

Slack wants an answer within three seconds, so an event is acknowledged at once and captured by one
worker thread, in order (a capture files and commits; the writer lock serialises it with the CLI's). A
question answered within `defer_after` seconds is answered in the response; a slower one (the first,
while the model loads) gets a short "looking it up" reply and its answer is posted to the command's
`response_url`, which must start with the configured prefix (Slack's own host): the server sends nothing
anywhere else. Answers are ephemeral, seen only by the person who asked, since they are scoped to what
that person may read; every string from the repository is escaped for Slack (`&`, `<`, `>`), so a page
cannot mention `@channel` or forge a link.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import queue
import re
import threading
import time
import urllib.parse
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from stigmergy.errors import LockTimeoutError, StigmergyError
from stigmergy.server.slack_config import SlackConfig, load_slack_config
from stigmergy.service import WikiService

SOURCE = "slack"
EVENTS_PATH = "/slack/events"
COMMANDS_PATH = "/slack/commands"
MAX_AGE_SECONDS = 5 * 60
MAX_BODY = 256 * 1024  # a Slack event or command is a few kilobytes
LOCK_ATTEMPTS = 3  # each waits [lock] timeout_seconds for the writer lock
_EVENT_ID = re.compile(r"^Ev[A-Za-z0-9]{4,60}$")
_CHANNEL = re.compile(r"^[A-Z0-9]{2,40}$")


class Host(Protocol):
    """What the server hands a chat endpoint: the repository's service, and one service per person."""

    service: WikiService

    def service_for(self, email: str) -> WikiService: ...


def signature(secret: str, timestamp: str, body: bytes) -> str:
    """Slack's v0 request signature of `body` sent at `timestamp`."""
    base = b"v0:" + timestamp.encode("ascii") + b":" + body
    return "v0=" + hmac.new(secret.encode("utf-8"), base, hashlib.sha256).hexdigest()


class Replays:
    """Signatures verified in the last five minutes: the same request sent again is refused. (A restart
    forgets them; an event's id is remembered on disk, and a question asked twice reads, never writes.)"""

    def __init__(self) -> None:
        self._seen: dict[str, float] = {}
        self._lock = threading.Lock()

    def first(self, sig: str, now: float) -> bool:
        with self._lock:
            if len(self._seen) > 1024:
                self._seen = {s: t for s, t in self._seen.items() if t > now}
            if self._seen.get(sig, 0.0) > now:
                return False
            self._seen[sig] = now + 2 * MAX_AGE_SECONDS
            return True


def escape(text: str) -> str:
    """Repository text as Slack shows it, never as its markup (no mention, channel ping or link)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def citation_url(web_url: str, path: str, lines: list[int]) -> str:
    """The web view's page for a cited source, its cited lines highlighted (the web view's own URL)."""
    from stigmergy.server.markdown import page_url

    return web_url + page_url(path, (lines[0], lines[-1]) if lines else None)


def _link(web_url: str, citation: Mapping[str, Any]) -> str:
    """A citation as a link: a wiki page by its name, a source page as "source", with the cited lines."""
    path, lines = str(citation.get("path", "")), [int(n) for n in citation.get("lines", [])]
    stem = path.rsplit("/", 1)[-1].removesuffix(".md")
    label = "source" if stem.startswith("cap_") else escape(stem)
    if lines:
        label += f" L{lines[0]}" + (f"-{lines[-1]}" if lines[-1] != lines[0] else "")
    return f"<{citation_url(web_url, path, lines)}|{label}>" if web_url else f"`{label}`"


def render_answer(question: str, result: Mapping[str, Any], web_url: str) -> dict[str, Any]:
    """A Slack message (ephemeral) from what `ask` returned: each sentence with its citations as links to
    the web view, and each contradiction that bears on it with both claims, their dates and sources."""
    out = [f"*{escape(question)}*"]
    if not result.get("answered"):
        out.append(escape(str(result.get("refusal") or "the wiki does not say")).capitalize() + ".")
    for s in result.get("sentences", []):
        refs = ", ".join(_link(web_url, c) for c in s.get("citations", []))
        out.append(f"• {escape(str(s.get('text', '')))}" + (f" ({refs})" if refs else ""))
    for part in (result.get("uncovered", []) or []) if result.get("answered") else []:
        out.append(f"_Not in the wiki: {escape(str(part))}_")
    for con in result.get("contradictions", []) or []:
        claims = "; ".join(f"{escape(str(c.get('text', '')))} ({escape(str(c.get('date', '')))}, "
                           f"{_link(web_url, c.get('citation') or {})})" for c in con.get("claims", []))
        out.append(f":warning: *{escape(str(con.get('subject', 'The sources disagree')))}*: {claims}")
    return {"response_type": "ephemeral", "text": "\n".join(out)}


def _reply(text: str) -> dict[str, Any]:
    return {"response_type": "ephemeral", "text": text}


class SlackEndpoint:
    def __init__(self, host: Host, config: SlackConfig, *, web_url: str = "", defer_after: float = 2.5,
                 clock: Callable[[], float] = time.time) -> None:
        self.host, self.config = host, config
        self.web_url = (config.web_url or web_url).rstrip("/")
        self.defer_after = defer_after
        self.clock = clock
        self.replays = Replays()
        capture_as = config.capture_as or host.service.settings.roles.service
        # Captures need an identity the layers name (writing into a layer is reading it); none, no capture.
        self.capturer = host.service_for(capture_as) if capture_as and config.channels else None
        self._work: queue.Queue[tuple[str, dict[str, Any]] | None] = queue.Queue()
        self._worker: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self.errors: list[str] = []  # what the worker could not do (the server's log shows it too)
        if self.capturer is not None:
            for event_id, payload in self.capturer.pending_events(SOURCE):
                self._enqueue(event_id, payload)  # acknowledged before a stop, never captured

    # -------------------------------------------------------------- the worker

    def _enqueue(self, event_id: str, payload: dict[str, Any]) -> None:
        with self._start_lock:
            if self._worker is None:
                self._worker = threading.Thread(target=self._run, name="slack-captures", daemon=True)
                self._worker.start()
        self._work.put((event_id, payload))

    def _run(self) -> None:
        import sys

        while True:
            job = self._work.get()
            try:
                if job is None:
                    return
                event_id, payload = job
                assert self.capturer is not None
                for attempt in range(LOCK_ATTEMPTS):
                    try:
                        self.capturer.capture_chat_message(
                            SOURCE, event_id, payload["event"], channel=payload["channel"],
                            channel_id=payload["channel_id"], people=self.config.people())
                        break
                    except LockTimeoutError:
                        # Another writer (a long recompile) held the lock for the whole wait: the event is
                        # still queued on disk; try again, and after the last try the next start does.
                        if attempt == LOCK_ATTEMPTS - 1:
                            raise
            except Exception as exc:  # noqa: BLE001 — one bad event must not stop the captures after it
                line = f"stigmergy serve: slack event not captured: {getattr(exc, 'message', exc)}"
                self.errors.append(line)
                sys.stderr.write(line + "\n")
            finally:
                self._work.task_done()

    def idle(self) -> None:
        """Wait until every acknowledged event has been captured (or refused)."""
        self._work.join()

    def close(self) -> None:
        if self._worker is not None:
            self._work.put(None)
            self._worker.join()

    # -------------------------------------------------------------- verification

    async def _verified(self, request: Any, *, once: bool) -> tuple[bytes | None, Any]:
        """(body, None) for a request Slack signed within five minutes (and, with `once`, not seen before);
        else (None, the refusal). Events are not checked `once`: a retry Slack sends in the same second has
        the same signature, and a replayed event is a redelivery the event id already stops."""
        from starlette.responses import JSONResponse

        def refuse(status: int, why: str) -> tuple[None, Any]:
            return None, JSONResponse({"ok": False, "error": why}, status_code=status)

        declared = request.headers.get("content-length", "")
        if declared and (not declared.isdigit() or int(declared) > MAX_BODY):
            return refuse(413, "request too large")
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY:
                return refuse(413, "request too large")
        stamp = request.headers.get("x-slack-request-timestamp", "")
        given = request.headers.get("x-slack-signature", "")
        if not stamp.isdigit() or len(stamp) > 12 or not given:
            return refuse(401, "unsigned request")
        now = self.clock()
        if abs(now - int(stamp)) > MAX_AGE_SECONDS:
            return refuse(401, "stale request (timestamp more than 5 minutes away)")
        if not hmac.compare_digest(given.encode("latin-1", "replace"),
                                   signature(self.config.signing_secret, stamp, body).encode()):
            return refuse(401, "bad signature")
        if once and not self.replays.first(given, now):
            return refuse(401, "replayed request")
        return body, None

    def _other_team(self, team: Any) -> bool:
        return bool(self.config.team_id) and team != self.config.team_id

    # -------------------------------------------------------------- the Events API

    async def events(self, request: Any) -> Any:
        from starlette.responses import JSONResponse

        body, refused = await self._verified(request, once=False)
        if body is None:
            return refused
        try:
            data = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            return JSONResponse({"ok": False, "error": "not JSON"}, status_code=400)
        if not isinstance(data, dict):
            return JSONResponse({"ok": False, "error": "not an event"}, status_code=400)
        if data.get("type") == "url_verification":
            challenge = data.get("challenge")
            if not isinstance(challenge, str) or len(challenge) > 200:
                return JSONResponse({"ok": False, "error": "bad challenge"}, status_code=400)
            return JSONResponse({"challenge": challenge})
        if self._other_team(data.get("team_id")):
            return JSONResponse({"ok": False, "error": "another workspace"}, status_code=403)
        if data.get("type") != "event_callback":
            return JSONResponse({"ok": True, "ignored": "not an event callback"})
        event, event_id = data.get("event"), data.get("event_id")
        if not isinstance(event, dict) or not isinstance(event_id, str) or not _EVENT_ID.match(event_id):
            return JSONResponse({"ok": False, "error": "not an event"}, status_code=400)
        channel_id = event.get("channel")
        name = self.config.channels.get(channel_id) if isinstance(channel_id, str) and _CHANNEL.match(channel_id) else None
        if name is None or self.capturer is None or event.get("type") != "message":
            return JSONResponse({"ok": True, "ignored": "not a message of a configured channel"})
        payload = {"event": event, "channel": name, "channel_id": channel_id}
        if not self.capturer.claim_event(SOURCE, event_id, payload):
            # A retry (or a replayed delivery) of an event already acknowledged: nothing to do again.
            return JSONResponse({"ok": True, "duplicate": True}, headers={"x-slack-no-retry": "1"})
        self._enqueue(event_id, payload)
        return JSONResponse({"ok": True, "queued": True})

    # -------------------------------------------------------------- the slash command

    def _reader(self, user_id: str) -> str | None:
        """The reader a Slack user asks as: the person the server's [users] maps them to; an unmapped user
        is refused (None), or a public reader ("") when the server says `unmapped_users = "public"`."""
        person = self.config.users.get(user_id)
        if person is not None:
            return person.reader
        return "" if self.config.unmapped_users == "public" else None

    def _answer(self, reader: str, question: str) -> dict[str, Any]:
        try:
            result = self.host.service_for(reader).ask(question)
        except StigmergyError as exc:
            return _reply(f"Could not answer: {escape(exc.message)}")
        return render_answer(question, result, self.web_url)

    async def commands(self, request: Any) -> Any:
        import anyio
        from starlette.background import BackgroundTask
        from starlette.responses import JSONResponse

        body, refused = await self._verified(request, once=True)
        if body is None:
            return refused
        try:
            form = {k: v[0] for k, v in urllib.parse.parse_qs(body.decode("utf-8"), max_num_fields=50).items()}
        except (UnicodeDecodeError, ValueError):
            return JSONResponse({"ok": False, "error": "not a form"}, status_code=400)
        if self._other_team(form.get("team_id")):
            return JSONResponse({"ok": False, "error": "another workspace"}, status_code=403)
        if form.get("command") != self.config.command:
            return JSONResponse(_reply(f"This endpoint answers {self.config.command} only."))
        user_id = form.get("user_id", "")
        reader = self._reader(user_id)
        if reader is None:
            return JSONResponse(_reply(
                f"Your Slack account ({escape(user_id[:40])}) is not mapped to a reader of this wiki, so it cannot "
                "answer you. Ask the wiki's administrator to add you under [users] in the server's slack.toml."))
        question = " ".join(form.get("text", "").split())[:2000]
        if not question or question.lower() == "help":
            return JSONResponse(_reply(f"Ask the wiki a question: `{self.config.command} when did the Lisbon office "
                                       "open?` The answer cites its sources; only you see it."))
        done = threading.Event()
        box: dict[str, Any] = {}

        def work() -> None:
            try:
                box["reply"] = self._answer(reader, question)
            except Exception as exc:  # noqa: BLE001 — the person gets a line, the server keeps serving
                box["reply"] = _reply(f"Could not answer ({type(exc).__name__}).")
            done.set()

        threading.Thread(target=work, name="slack-ask", daemon=True).start()
        if await anyio.to_thread.run_sync(done.wait, self.defer_after):
            return JSONResponse(box["reply"])
        url = form.get("response_url", "")
        if not url.startswith(self.config.response_url_prefix):
            done.wait()  # nowhere else to send it: answer late rather than send it anywhere else
            return JSONResponse(box["reply"])

        def post_late() -> None:
            import httpx

            done.wait()
            try:
                httpx.post(url, json={**box["reply"], "replace_original": True}, timeout=10.0)
            except httpx.HTTPError as exc:
                self.errors.append(f"stigmergy serve: slack answer not delivered: {type(exc).__name__}")

        return JSONResponse(_reply(f"Looking up: {escape(question)}"), background=BackgroundTask(post_late))

    def routes(self) -> list[Any]:
        from starlette.routing import Route

        return [Route(EVENTS_PATH, self.events, methods=["POST"]),
                Route(COMMANDS_PATH, self.commands, methods=["POST"])]


def endpoint(host: Host, config: SlackConfig | None = None, *, config_path: Path | None = None,
             **kw: Any) -> SlackEndpoint:
    """The endpoint, configured from the server's slack.toml and environment when `config` is None."""
    service = host.service
    return SlackEndpoint(host, config or load_slack_config(service.env, service.root, config_path), **kw)


def routes(host: Host, config: SlackConfig | None = None, **kw: Any) -> list[Any]:
    """Starlette routes of the Slack endpoint (`POST /slack/events`, `POST /slack/commands`)."""
    return endpoint(host, config, **kw).routes()
