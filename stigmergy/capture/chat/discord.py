"""A Discord channel export (DiscordChatExporter's JSON: `guild`, `channel`, `messages`, each message
with `id`, `type`, `timestamp`, `timestampEdited`, `content`, `author`, `attachments`, `mentions` and,
for a reply, `reference.messageId`) -> one chat page per day (UTC).

A reply is nested under the message that started its chain when that message is in the export, on
that message's day; edits show as `(edited)`; member joins, pins and other system notices are dropped.
The export does not say which guild channels are restricted to some roles, so a guild channel counts
as public unless `[channels]` maps it: map a restricted channel before capturing it. Direct and group
messages are private and need a mapping.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from dataclasses import replace
from typing import Any

from stigmergy.capture.chat.page import ChatPage, Message
from stigmergy.errors import InputError
from stigmergy.settings import CaptureSettings

_KINDS = {"DirectTextChat": "dm", "DirectGroupTextChat": "mpim", "GuildPrivateThread": "private"}
_SKIP = {"GuildMemberJoin", "RecipientAdd", "RecipientRemove", "ChannelPinnedMessage", "ChannelNameChange",
         "ChannelIconChange", "Call", "ThreadCreated"}
_MENTION = re.compile(r"<@!?(\d{1,25})>")
MAX_MESSAGES = 1_000_000


def looks_like_discord(data: bytes) -> bool:
    head = data[:4096]
    return b'"guild"' in head and b'"channel"' in head


def _at(value: Any) -> tuple[str, str] | None:
    try:
        when = _dt.datetime.fromisoformat(str(value).replace("Z", "+00:00")).astimezone(_dt.UTC)
    except (ValueError, TypeError):
        return None
    return when.strftime("%Y-%m-%dT%H:%M:%SZ"), when.date().isoformat()


def _person(author: Any) -> tuple[str, str]:
    if not isinstance(author, dict):
        return "", "unknown"
    name = author.get("nickname") or author.get("name") or author.get("id") or "unknown"
    return str(author.get("id", "")), " ".join(str(name).split())[:120]


def read_discord(data: bytes, locator: str, limits: CaptureSettings) -> list[tuple[str, ChatPage]]:
    try:
        raw = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise InputError(locator, "malformed", f"not a Discord export ({type(exc).__name__})") from None
    channel, messages = raw.get("channel"), raw.get("messages")
    if not isinstance(channel, dict) or not isinstance(messages, list):
        raise InputError(locator, "malformed", "not a Discord export (no channel or messages)")
    if len(messages) > MAX_MESSAGES:
        raise InputError(locator, "too-large", f"over {MAX_MESSAGES:,} messages")
    kind = _KINDS.get(str(channel.get("type", "")), "public")
    name = " ".join(str(channel.get("name") or channel.get("id") or "channel").split())
    users: dict[str, dict[str, str]] = {}
    kept: dict[str, tuple[str, Message]] = {}
    parent: dict[str, str] = {}
    for m in messages:
        if not isinstance(m, dict) or str(m.get("type", "Default")) in _SKIP or not m.get("id"):
            continue
        when = _at(m.get("timestamp"))
        if when is None:
            continue
        uid, who = _person(m.get("author"))
        users.setdefault(uid, {"name": who})
        for mention in m.get("mentions") or []:
            mid, mname = _person(mention)
            users.setdefault(mid, {"name": mname})
        files = tuple(" ".join(str(a.get("fileName")).split())[:200] for a in m.get("attachments") or []
                      if isinstance(a, dict) and a.get("fileName"))
        ref: dict[str, Any] = m["reference"] if isinstance(m.get("reference"), dict) else {}
        mid = str(m["id"])
        if ref.get("messageId"):
            parent[mid] = str(ref["messageId"])
        kept[mid] = (when[1], Message(ts=mid, user=uid, text=str(m.get("content") or ""), at=when[0],
                                      edited=bool(m.get("timestampEdited")), files=files, name=who))

    def root(mid: str) -> str:
        seen = set()
        while mid in parent and parent[mid] in kept and mid not in seen:
            seen.add(mid)
            mid = parent[mid]
        return mid

    threads: dict[str, list[Message]] = {}
    for mid, (_, msg) in kept.items():
        top = root(mid)
        if top != mid:
            threads.setdefault(top, []).append(replace(msg, thread=top))
    per_day: dict[str, list[Message]] = {}
    order = sorted((k for k in kept if root(k) == k), key=lambda k: (kept[k][1].at, int(k) if k.isdigit() else 0))
    for mid in order:
        day, msg = kept[mid]
        replies = sorted(threads.get(mid, []), key=lambda r: r.at)
        per_day.setdefault(day, []).extend([msg, *replies])
    out = []
    for day, msgs in sorted(per_day.items()):
        seen = {m.user for m in msgs} | {u for m in msgs for u in _MENTION.findall(m.text)}
        page = ChatPage(tool="discord", channel=name, channel_id=str(channel.get("id", name)), kind=kind, day=day,
                        messages=tuple(msgs), users={u: users[u] for u in sorted(seen) if u in users},
                        title=f"Discord #{name}, {day}")
        out.append((f"{locator}:{day}", page))
    if not out:
        raise InputError(locator, "empty", "the Discord export holds no message")
    return out
