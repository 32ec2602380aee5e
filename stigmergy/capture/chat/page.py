"""One chat page: the messages of one channel on one day, threads kept together, as canonical JSON bytes
(the capture's original) and as the readable Markdown the source page shows.

The JSON is a projection of the export: the fields the page shows (author, time, text, thread, edited,
deleted, file names) and who the user ids are, sorted and compact, one message per line. The same day
always gives the same bytes, which is what makes re-capturing an export idempotent. `render` is a pure
function of those bytes, so an import that replays them gives the same source page.
"""

from __future__ import annotations

import datetime as _dt
import html
import json
import re
from dataclasses import dataclass, field
from typing import Any

from stigmergy.errors import InputError

FORMAT_TAG = "stigmergy-chat/1"
MEDIA_TYPE = "application/x-stigmergy-chat+json"
REVISION = "1"
KINDS = ("public", "private", "mpim", "dm")  # every kind but public needs a [channels] mapping


@dataclass(frozen=True)
class Message:
    ts: str  # the tool's own sortable id (Slack's "1767603240.000100"); also the thread key
    user: str  # user id ("" for an unknown author)
    text: str  # the tool's markup (Slack mrkdwn, Discord Markdown); mentions resolved when rendered
    at: str  # ISO 8601 UTC, "2026-01-05T09:14:00Z"
    thread: str | None = None  # ts of the thread's first message, for a reply
    edited: bool = False
    deleted: bool = False  # a deleted message kept only because replies hang under it
    files: tuple[str, ...] = ()
    name: str = ""  # author's name when the tool gives it per message (bots, Discord)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"at": self.at, "text": self.text, "ts": self.ts, "user": self.user}
        if self.thread:
            out["thread"] = self.thread
        if self.edited:
            out["edited"] = True
        if self.deleted:
            out["deleted"] = True
        if self.files:
            out["files"] = list(self.files)
        if self.name:
            out["name"] = self.name
        return out


@dataclass(frozen=True)
class ChatPage:
    tool: str  # slack | discord
    channel: str  # "general" (no '#'), or a DM's id
    channel_id: str
    kind: str  # one of KINDS
    day: str  # YYYY-MM-DD (UTC)
    messages: tuple[Message, ...]  # threads kept together: a parent, then its replies in time order
    users: dict[str, dict[str, str]] = field(default_factory=dict)  # id -> {"name", "email"?}
    title: str = ""  # e.g. "#general, 2026-01-05"

    @property
    def private(self) -> bool:
        return self.kind != "public"

    def to_bytes(self) -> bytes:
        head = {"channel": {"id": self.channel_id, "kind": self.kind, "name": self.channel}, "day": self.day,
                "format": FORMAT_TAG, "title": self.title, "tool": self.tool,
                "users": {k: dict(sorted(v.items())) for k, v in sorted(self.users.items())}}
        lines = [json.dumps(m.to_json(), ensure_ascii=False, sort_keys=True, separators=(",", ":"))
                 for m in self.messages]
        # One message a line: legible in a diff, and each line scanned for credentials on its own.
        head_text = json.dumps(head, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        return (head_text[:-1] + ',"messages":[\n' + ",\n".join(lines) + "\n]}\n").encode("utf-8")


def is_chat_page(data: bytes) -> bool:
    return data.startswith(b'{"channel":') and f'"format":"{FORMAT_TAG}"'.encode() in data[:4096]


def parse(data: bytes, locator: str) -> ChatPage:
    """A chat page from its bytes; InputError(malformed) when they are not one."""
    try:
        raw = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise InputError(locator, "malformed", f"not a chat page ({type(exc).__name__})") from None
    try:
        if raw.get("format") != FORMAT_TAG:
            raise ValueError("format")
        channel = raw["channel"]
        if channel["kind"] not in KINDS:
            raise ValueError("kind")
        messages = tuple(
            Message(ts=str(m["ts"]), user=str(m.get("user", "")), text=str(m.get("text", "")), at=str(m["at"]),
                    thread=str(m["thread"]) if m.get("thread") else None, edited=bool(m.get("edited")),
                    deleted=bool(m.get("deleted")), files=tuple(str(f) for f in m.get("files", ())),
                    name=str(m.get("name", "")))
            for m in raw["messages"]
        )
        users = {str(k): {str(a): str(b) for a, b in v.items()} for k, v in raw.get("users", {}).items()}
        _dt.date.fromisoformat(str(raw["day"]))
        return ChatPage(tool=str(raw["tool"]), channel=str(channel["name"]), channel_id=str(channel["id"]),
                        kind=str(channel["kind"]), day=str(raw["day"]), messages=messages, users=users,
                        title=str(raw.get("title", "")))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InputError(locator, "malformed", f"not a chat page (bad field: {exc})") from None


# -- rendering -------------------------------------------------------------------------------------

_SLACK_LINK = re.compile(r"<([^<>\n]{1,2000})>")


def author_name(page: ChatPage, m: Message) -> str:
    user = page.users.get(m.user) or {}
    return " ".join((m.name or user.get("name") or m.user or "unknown").split())


def slack_text(text: str, page: ChatPage) -> str:
    """Slack mrkdwn as plain text: `<@U1>` -> `@Ann Lee`, `<#C1|general>` -> `#general`, `<url|label>` ->
    `label (url)`, `<!here>` -> `@here`; then the three entities Slack escapes (&lt; &gt; &amp;)."""

    def link(m: re.Match[str]) -> str:
        inner = m.group(1)
        target, _, label = inner.partition("|")
        if target.startswith("@"):
            user = page.users.get(target[1:])
            return "@" + (user["name"] if user and user.get("name") else label or target[1:])
        if target.startswith("#"):
            return "#" + (label or target[1:])
        if target.startswith("!"):
            word = target[1:].split("^", 1)[0]
            return label if label else "@" + word
        if target.startswith("mailto:"):
            return label or target[7:]
        return f"{label} ({target})" if label and label != target else target

    return html.unescape(_SLACK_LINK.sub(link, text)) if "&" in text or "<" in text else text


_DISCORD_MENTION = re.compile(r"<@!?(\d{1,25})>")


def discord_text(text: str, page: ChatPage) -> str:
    """Discord's `<@123>` mentions as `@Name`; the rest is its Markdown, kept."""
    return _DISCORD_MENTION.sub(lambda m: "@" + (page.users.get(m.group(1), {}).get("name") or m.group(1)), text)


def _when(m: Message, day: str) -> str:
    try:
        at = _dt.datetime.fromisoformat(m.at.replace("Z", "+00:00"))
    except ValueError:
        return m.at
    stamp = at.strftime("%H:%M")
    return stamp if at.date().isoformat() == day else f"{at.date().isoformat()} {stamp}"


def _message_lines(page: ChatPage, m: Message, indent: str) -> list[str]:
    if m.deleted:
        text = "(message deleted)"
        who = ""
    else:
        text = slack_text(m.text, page) if page.tool == "slack" else discord_text(m.text, page)
        who = author_name(page, m)
    body = [ln.rstrip() for ln in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    body = [ln for ln in body if ln.strip()] or [""]
    first = body[0].strip()
    if m.edited and not m.deleted:
        first = (first + " (edited)").strip()
    if m.files and not m.deleted:
        named = "; ".join(" ".join(f.split()) for f in m.files)
        first = (first + f" [files: {named}]").strip()
    lead = f"{indent}- [{_when(m, page.day)}] " + (f"{who}: " if who else "")
    out = [(lead + first).rstrip()]
    # Continuation lines stay inside the list item (indented to its content), never a code block.
    out += [f"{indent}  {ln}" for ln in body[1:]]
    return out


def render(page: ChatPage) -> str:
    """The readable text: one list item per message, `[HH:MM] Author: text`, replies nested under the
    message that started their thread (a reply from another day shows its date)."""
    lines: list[str] = []
    for m in page.messages:
        lines += _message_lines(page, m, "  " if m.thread else "")
    return "\n".join(lines) + "\n"


def sole_author(page: ChatPage) -> str | None:
    """`Name <email>` (or the name) when one person wrote every message of the page, else None."""
    ids = {(m.user, m.name) for m in page.messages if not m.deleted}
    if len(ids) != 1:
        return None
    user_id, name = next(iter(ids))
    user = page.users.get(user_id) or {}
    shown = " ".join((name or user.get("name") or "").split())
    if not shown:
        return None
    email = user.get("email", "")
    return f"{shown} <{email}>" if email and "<" not in shown else shown


def metadata(page: ChatPage) -> dict[str, Any]:
    authors = sorted({author_name(page, m) for m in page.messages if not m.deleted})
    threads = len({m.thread for m in page.messages if m.thread})
    return {
        "date": page.day,
        "chat": {"tool": page.tool, "channel": channel_label(page), "channel_id": page.channel_id,
                 "kind": page.kind, "day": page.day, "messages": len(page.messages), "threads": threads,
                 "authors": authors},
    }


def channel_label(page: ChatPage) -> str:
    return f"#{page.channel}"


def read_page(data: bytes, locator: str) -> tuple[str, str, dict[str, Any], str | None]:
    """(readable text, title, metadata, sole author) of a chat page's bytes."""
    page = parse(data, locator)
    if not page.messages:
        raise InputError(locator, "empty", "the chat page holds no message")
    return render(page), page.title or f"{channel_label(page)}, {page.day}", metadata(page), sole_author(page)
