"""A Slack export (the workspace or channel export zip) -> one chat page per channel and day.

The format, as Slack documents it ("How to read Slack data exports"): `users.json`, `channels.json`
(public channels), `groups.json` (private channels), `mpims.json` (group messages), `dms.json` (direct
messages), and a folder per conversation (its name; a DM's id) holding one `YYYY-MM-DD.json` per day, a
list of messages (`ts`, `user`, `text`, `thread_ts`, `subtype`, `edited`, `files`, ...).

What a page shows: every message once, in time order, replies nested under the message that started
their thread even when they were written on a later day (a thread whose first message is not in the
export stays on the days it was written). Edits are honoured (`edited`, and a `message_changed` event
replaces the text it names), deletions too (`message_deleted` and a deleted file are dropped; a deleted
message with replies becomes "(message deleted)", as Slack shows it). Joins and leaves are dropped. A
folder that no list names is private: only a conversation `channels.json` lists is public.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from stigmergy.capture.chat.archive import SafeZip
from stigmergy.capture.chat.page import ChatPage, Message
from stigmergy.errors import InputError
from stigmergy.settings import CaptureSettings

LISTS = {"channels.json": "public", "groups.json": "private", "mpims.json": "mpim", "dms.json": "dm"}
_DAY_FILE = re.compile(r"^([^/]{1,200})/(\d{4}-\d{2}-\d{2})\.json$")
_MENTION = re.compile(r"<@([A-Z0-9]{2,40})(?:\|[^<>]*)?>")
_NOISE = {"channel_join", "channel_leave", "group_join", "group_leave", "bot_add", "bot_remove"}
MAX_MESSAGES = 1_000_000


@dataclass(frozen=True)
class Conversation:
    folder: str
    id: str
    name: str
    kind: str
    members: tuple[str, ...] = ()


def is_slack_export(names: set[str]) -> bool:
    return "users.json" in names and any(n in names for n in LISTS)


def _load(archive: SafeZip, name: str) -> Any:
    try:
        return json.loads(archive.read(name).decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise InputError(archive.locator, "malformed", f"{name} is not JSON ({type(exc).__name__})") from None


def _users(raw: Any) -> dict[str, dict[str, str]]:
    users: dict[str, dict[str, str]] = {}
    for u in raw if isinstance(raw, list) else []:
        if not isinstance(u, dict) or not isinstance(u.get("id"), str):
            continue
        profile: dict[str, Any] = u["profile"] if isinstance(u.get("profile"), dict) else {}
        name = next((str(v) for v in (profile.get("real_name"), u.get("real_name"), profile.get("display_name"),
                                       u.get("name")) if isinstance(v, str) and v.strip()), u["id"])
        entry = {"name": " ".join(name.split())[:120]}
        email = profile.get("email")
        if isinstance(email, str) and "@" in email and len(email) < 200:
            entry["email"] = email.strip()
        users[u["id"]] = entry
    return users


def _conversations(archive: SafeZip) -> dict[str, Conversation]:
    found: dict[str, Conversation] = {}
    for list_name, kind in LISTS.items():
        if list_name not in archive.members:
            continue
        raw = _load(archive, list_name)
        for c in raw if isinstance(raw, list) else []:
            if not isinstance(c, dict) or not isinstance(c.get("id"), str):
                continue
            is_private = bool(c.get("is_private")) and kind == "public"  # a private channel listed as public
            folder = c["id"] if kind == "dm" else str(c.get("name") or c["id"])
            members = tuple(str(m) for m in c.get("members") or () if isinstance(m, str))
            found[folder] = Conversation(folder, c["id"], folder, "private" if is_private else kind, members)
    return found


def _at(ts: str) -> str:
    try:
        return _dt.datetime.fromtimestamp(float(ts), _dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except (ValueError, OverflowError, OSError):
        return ts


def _files(raw: Any) -> tuple[str, ...]:
    names = []
    for f in raw if isinstance(raw, list) else []:
        if not isinstance(f, dict):
            continue
        if f.get("mode") == "tombstone":
            continue  # a deleted file
        name = f.get("name") or f.get("title")
        if isinstance(name, str) and name.strip():
            names.append(" ".join(name.split())[:200])
    return tuple(names)


def _name(raw: dict[str, Any]) -> str:
    if raw.get("user"):
        return ""
    for key in ("username",):
        if isinstance(raw.get(key), str):
            return raw[key]
    bot = raw.get("bot_profile")
    return str(bot.get("name", "")) if isinstance(bot, dict) else ""


def _messages(archive: SafeZip, folder: str, days: list[tuple[str, str]]) -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    for day, member in days:
        raw = _load(archive, member)
        if not isinstance(raw, list):
            raise InputError(archive.locator, "malformed", f"{member} is not a list of messages")
        out += [(day, m) for m in raw if isinstance(m, dict) and isinstance(m.get("ts"), str)]
        if len(out) > MAX_MESSAGES:
            raise InputError(archive.locator, "too-large", f"over {MAX_MESSAGES:,} messages in {folder}")
    return out


def _pages(conv: Conversation, raw: list[tuple[str, dict[str, Any]]], users: dict[str, dict[str, str]],
           ) -> Iterator[ChatPage]:
    changed: dict[str, dict[str, Any]] = {}
    deleted: set[str] = set()
    for _, m in raw:
        if m.get("subtype") == "message_changed" and isinstance(m.get("message"), dict):
            inner = m["message"]
            if isinstance(inner.get("ts"), str):
                changed[inner["ts"]] = inner
        elif m.get("subtype") == "message_deleted" and isinstance(m.get("deleted_ts"), str):
            deleted.add(m["deleted_ts"])
    by_ts: dict[str, tuple[str, Message]] = {}
    for day, m in raw:
        sub = m.get("subtype")
        if sub in ("message_changed", "message_deleted") or sub in _NOISE or m["ts"] in by_ts:
            continue
        now = changed.get(m["ts"], m)
        thread = m.get("thread_ts") if isinstance(m.get("thread_ts"), str) and m.get("thread_ts") != m["ts"] else None
        files = _files(now.get("files"))
        text = str(now.get("text") or "")
        gone = m["ts"] in deleted or sub == "tombstone" or (not text.strip() and not files and bool(m.get("files")))
        if gone:  # a deleted message keeps nothing of what it said, not even in the page's own bytes
            text, files = "", ()
        by_ts[m["ts"]] = (day, Message(
            ts=m["ts"], user="" if gone else str(m.get("user") or ""), text=text, at=_at(m["ts"]), thread=thread,
            edited=not gone and (bool(now.get("edited")) or m["ts"] in changed), deleted=gone, files=files,
            name="" if gone else _name(m)))
    replies: dict[str, list[Message]] = {}
    tops: list[tuple[str, Message]] = []
    for day, msg in by_ts.values():
        if msg.thread and msg.thread in by_ts:
            replies.setdefault(msg.thread, []).append(msg)
        else:
            tops.append((day, replace(msg, thread=None)))  # its thread began before the export
    per_day: dict[str, list[Message]] = {}
    for day, top in sorted(tops, key=lambda t: (t[0], _key(t[1].ts))):
        kids = [r for r in sorted(replies.get(top.ts, []), key=lambda r: _key(r.ts)) if not r.deleted]
        if top.deleted and not kids:
            continue  # deleted and nothing hangs under it: gone, as in Slack
        per_day.setdefault(day, []).extend([top, *kids])
    for day, messages in sorted(per_day.items()):
        seen = {m.user for m in messages} | {u for m in messages for u in _MENTION.findall(m.text)}
        page_users = {u: users[u] for u in sorted(seen) if u in users}
        yield ChatPage(tool="slack", channel=conv.name, channel_id=conv.id, kind=conv.kind, day=day,
                       messages=tuple(messages), users=page_users, title=_title(conv, users, day))


def _key(ts: str) -> tuple[int, str]:
    head, _, tail = ts.partition(".")
    return (int(head) if head.isdigit() else 0, tail)


def _title(conv: Conversation, users: dict[str, dict[str, str]], day: str) -> str:
    if conv.kind == "dm":
        names = " and ".join(users.get(m, {}).get("name", m) for m in conv.members) or conv.id
        return f"Direct messages, {names}, {day}"
    return f"Slack #{conv.name}, {day}"


def read_export(data: bytes, locator: str, limits: CaptureSettings) -> list[tuple[str, ChatPage]]:
    """(member locator, page) for every channel and day of a Slack export, in folder and day order."""
    archive = SafeZip(data, locator, limits)
    if not is_slack_export(set(archive.members)):
        raise InputError(locator, "unsupported-type", "a ZIP archive that is not a Slack export (no users.json "
                         "beside channels.json, groups.json, mpims.json or dms.json)")
    users = _users(_load(archive, "users.json"))
    conversations = _conversations(archive)
    folders: dict[str, list[tuple[str, str]]] = {}
    for name in sorted(archive.members):
        m = _DAY_FILE.match(name)
        if m:
            folders.setdefault(m.group(1), []).append((m.group(2), name))
    out: list[tuple[str, ChatPage]] = []
    for folder, days in sorted(folders.items()):
        # A folder no list names may be anything: it is private until a [channels] mapping says otherwise.
        conv = conversations.get(folder) or Conversation(folder, folder, folder, "private")
        for page in _pages(conv, _messages(archive, folder, days), users):
            out.append((f"{locator}:{folder}/{page.day}.json", page))
    if not out:
        raise InputError(locator, "empty", "the Slack export holds no message")
    return out
