"""One live chat message (a Slack Events API `message` event) as a chat page of its own.

The live endpoint (`stigmergy serve --slack`) captures each message as it is posted: one capture per
message, because a source page is immutable and a day's page cannot grow as the day goes on (an export
captured later files the whole day, threads together, as its own pages). The page is the same format an
export expands into (`page.py`), so it is read, checked for credentials, mapped to a layer by
`[channels]` (an unmapped private channel refused) and filed exactly like a day of an export; the same
event gives the same bytes, so a redelivered event dedupes to the same capture.

What is captured: a person's message (no subtype), a file share and a reply also sent to the channel,
and an edit (`message_changed`: the edited text, marked edited). Not captured: bots (the endpoint's own
answers among them), joins and leaves, deletions (an erase is a decision for a person), and hidden
events. Slack's `channel_type` says what the conversation is: `channel` public, `group` private,
`mpim` a group message, `im` a direct message.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Mapping
from typing import Any

from stigmergy.capture.chat.page import ChatPage, Message

KIND_OF_CHANNEL_TYPE = {"channel": "public", "group": "private", "mpim": "mpim", "im": "dm"}
CAPTURED_SUBTYPES = (None, "file_share", "thread_broadcast", "message_changed")
_TS = re.compile(r"^\d{1,12}\.\d{1,8}$")
_ID = re.compile(r"^[A-Z0-9]{2,40}$")
_MENTION = re.compile(r"<@([A-Z0-9]{2,40})(?:\|[^<>]*)?>")
MAX_TEXT = 40_000  # Slack truncates a message at 40,000 characters; anything longer is not Slack's


def _files(raw: Any) -> tuple[str, ...]:
    names = []
    for f in raw if isinstance(raw, list) else []:
        if isinstance(f, dict) and f.get("mode") != "tombstone":
            name = f.get("name") or f.get("title")
            if isinstance(name, str) and name.strip():
                names.append(" ".join(name.split())[:200])
    return tuple(names[:100])


def message_of(event: Mapping[str, Any]) -> dict[str, Any] | None:
    """The message an event carries (an edit's new version), or None when it is not one to capture."""
    if event.get("type") != "message" or event.get("hidden"):
        return None
    subtype = event.get("subtype")
    if subtype not in CAPTURED_SUBTYPES:
        return None
    message = event.get("message") if subtype == "message_changed" else event
    if not isinstance(message, dict) or message.get("bot_id") or message.get("subtype") not in (None, "file_share",
                                                                                              "thread_broadcast"):
        return None
    ts, user = message.get("ts"), message.get("user")
    if not (isinstance(ts, str) and _TS.match(ts) and isinstance(user, str) and _ID.match(user)):
        return None
    text = message.get("text")
    if not isinstance(text, str) or len(text) > MAX_TEXT:
        return None
    if not text.strip() and not _files(message.get("files")):
        return None
    return dict(message, _edited=subtype == "message_changed" or bool(message.get("edited")))


def _at(ts: str) -> _dt.datetime:
    return _dt.datetime.fromtimestamp(float(ts), _dt.UTC)


def slack_message_page(event: Mapping[str, Any], channel: str, channel_id: str,
                       people: Mapping[str, Mapping[str, str]]) -> ChatPage | None:
    """The chat page of one message event in `channel` (its name, no '#'), or None when the event is not
    a message to capture. `people`: Slack user id -> {"name", "email"?}, for the author and mentions."""
    message = message_of(event)
    kind = KIND_OF_CHANNEL_TYPE.get(str(event.get("channel_type", "")))
    if message is None or kind is None:
        return None
    at = _at(message["ts"])
    thread = message.get("thread_ts")
    users_named = {message["user"], *_MENTION.findall(message["text"])}
    msg = Message(
        ts=message["ts"], user=message["user"], text=message["text"], at=at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        edited=bool(message["_edited"]), files=_files(message.get("files")),
    )
    title = f"Slack #{channel}, {at:%Y-%m-%d %H:%M}"
    if isinstance(thread, str) and thread != message["ts"]:
        title += " (reply)"  # the thread's first message is a capture of its own
    return ChatPage(tool="slack", channel=channel, channel_id=channel_id, kind=kind, day=at.date().isoformat(),
                    messages=(msg,), users={u: dict(people[u]) for u in sorted(users_named) if u in people},
                    title=title)
