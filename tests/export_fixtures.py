"""Real inputs for the chat, mail and image tests, written in each tool's documented format: a Slack
export zip (users.json, channels.json, groups.json, mpims.json, dms.json, one folder per conversation
with one YYYY-MM-DD.json per day), a multipart mail, an mbox, images rendered from known text."""

from __future__ import annotations

import datetime as dt
import io
import json
import zipfile
from email.message import EmailMessage
from pathlib import Path

USERS = [
    {"id": "U01ANN", "team_id": "T01", "name": "ann", "real_name": "Ann Lee", "deleted": False,
     "profile": {"real_name": "Ann Lee", "display_name": "ann", "email": "ann@example.com"}},
    {"id": "U02BOB", "team_id": "T01", "name": "bob", "real_name": "Bob Ray", "deleted": False,
     "profile": {"real_name": "Bob Ray", "display_name": "bob", "email": "bob@example.com"}},
    {"id": "U03CEE", "team_id": "T01", "name": "cee", "profile": {"real_name": "Cee Okafor", "display_name": "cee"}},
]


def ts(day: str, hh: int, mm: int, seq: int = 0) -> str:
    when = dt.datetime.fromisoformat(f"{day}T{hh:02d}:{mm:02d}:00+00:00")
    return f"{int(when.timestamp())}.{seq:06d}"


def msg(user: str, day: str, hh: int, mm: int, text: str, **extra) -> dict:
    return {"type": "message", "user": user, "text": text, "ts": ts(day, hh, mm), **extra}


def slack_export(path: Path, days: dict[str, dict[str, list[dict]]] | None = None, *, private: bool = True,
                 extra_members: dict[str, bytes] | None = None) -> Path:
    """A Slack export zip. `days` maps folder -> day -> messages (default: a small workspace with a
    public #general (thread, edit, deletion, file), a private #board and a direct message)."""
    d1, d2 = "2026-03-02", "2026-03-03"
    parent = ts(d1, 9, 14)
    if days is None:
        days = {
            "general": {
                d1: [
                    msg("U01ANN", d1, 9, 14, "We decided to ship Atlas 2.0 on Friday <@U02BOB>",
                        thread_ts=parent, reply_count=2),
                    msg("U02BOB", d1, 9, 20, "Agreed, release notes by Thursday", thread_ts=parent,
                        parent_user_id="U01ANN"),
                    msg("U03CEE", d1, 9, 40, "Typo here", edited={"user": "U03CEE", "ts": ts(d1, 9, 41)}),
                    msg("U02BOB", d1, 10, 5, "Plan attached", files=[{"id": "F1", "name": "atlas-plan.pdf",
                        "title": "Atlas plan", "mimetype": "application/pdf"}]),
                    msg("U01ANN", d1, 11, 0, "this one will be deleted"),
                    {"type": "message", "subtype": "message_deleted", "hidden": True, "deleted_ts": ts(d1, 11, 0),
                     "ts": ts(d1, 11, 2)},
                    {"type": "message", "subtype": "channel_join", "user": "U03CEE", "text": "<@U03CEE> has joined",
                     "ts": ts(d1, 8, 0)},
                ],
                d2: [
                    msg("U03CEE", d2, 8, 30, "Late reply: QA signed off", thread_ts=parent, parent_user_id="U01ANN"),
                    msg("U01ANN", d2, 9, 0, "Budget for Atlas is 40k", ),
                    {"type": "message", "subtype": "message_changed", "hidden": True, "ts": ts(d2, 9, 5),
                     "message": {"type": "message", "user": "U01ANN", "text": "Budget for Atlas is 45k",
                                 "ts": ts(d2, 9, 0), "edited": {"user": "U01ANN", "ts": ts(d2, 9, 5)}}},
                ],
            },
            "board": {d1: [msg("U01ANN", d1, 15, 0, "Board approved the Halden acquisition for 2.1M")]},
            "D01ANNBOB": {d1: [msg("U02BOB", d1, 16, 0, "Salary review for Cee is next week")]},
        }
    channels = [{"id": "C01GEN", "name": "general", "created": 1700000000, "creator": "U01ANN", "is_general": True,
                 "members": ["U01ANN", "U02BOB", "U03CEE"], "topic": {"value": "", "creator": "", "last_set": 0},
                 "purpose": {"value": "Company-wide", "creator": "U01ANN", "last_set": 0}}]
    for folder in days:
        if folder not in ("general", "board", "D01ANNBOB"):
            channels.append({"id": "C" + folder.upper()[:8], "name": folder, "created": 1700000000, "members": []})
    groups = [{"id": "G01BRD", "name": "board", "created": 1700000000, "creator": "U01ANN", "is_private": True,
               "members": ["U01ANN"]}] if private else []
    dms = [{"id": "D01ANNBOB", "created": 1700000000, "members": ["U01ANN", "U02BOB"]}] if private else []
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("users.json", json.dumps(USERS, indent=4))
        z.writestr("channels.json", json.dumps(channels, indent=4))
        z.writestr("groups.json", json.dumps(groups, indent=4))
        z.writestr("mpims.json", "[]")
        z.writestr("dms.json", json.dumps(dms, indent=4))
        z.writestr("integration_logs.json", "[]")
        for folder, per_day in days.items():
            for day, messages in per_day.items():
                z.writestr(f"{folder}/{day}.json", json.dumps(messages, indent=4))
        for name, data in (extra_members or {}).items():
            z.writestr(name, data)
    path.write_bytes(buf.getvalue())
    return path


def multipart_mail(attachment: bytes = b"Attached runbook: rotate the Halden keys every 90 days.\n",
                   name: str = "runbook.txt", ctype: tuple[str, str] = ("text", "plain"), **headers) -> bytes:
    m = EmailMessage()
    m["From"] = headers.get("from_", "Ann Lee <ann@example.com>")
    m["To"] = "Bob Ray <bob@example.com>, team@example.com"
    m["Date"] = headers.get("date", "Tue, 03 Mar 2026 10:15:00 +0000")
    m["Subject"] = headers.get("subject", "Atlas launch moved to Friday")
    m["Message-ID"] = headers.get("message_id", "<atlas-1@example.com>")
    if headers.get("in_reply_to"):
        m["In-Reply-To"] = headers["in_reply_to"]
    m.set_content(headers.get("body", "Hi Bob,\n\nWe moved the Atlas launch to Friday 6 March.\n\nAnn\n"))
    m.add_alternative("<p>Hi Bob,</p><p>We moved the Atlas launch to <b>Friday 6 March</b>.</p>", subtype="html")
    m.add_attachment(attachment, maintype=ctype[0], subtype=ctype[1], filename=name)
    return bytes(m)


SCAN_TEXT = [
    "Halden maintenance window",
    "The Atlas database moves to the Oslo region on 14 March 2026.",
    "Owner: Priya Raman. Budget approved at 38,500 euros.",
    "Rollback plan: restore the snapshot taken at 02:00.",
]


def rendered_image(lines: list[str] = SCAN_TEXT, fmt: str = "PNG", size: int = 30, width: int = 1400) -> bytes:
    """A page image rendered from known text with Pillow's own font (no system font needed)."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.load_default(size=size)
    height = 80 + int(len(lines) * size * 1.8)
    image = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(image)
    for n, line in enumerate(lines):
        draw.text((60, 40 + int(n * size * 1.8)), line, fill=0, font=font)
    out = io.BytesIO()
    image.save(out, format=fmt)
    return out.getvalue()


def found(root: Path, query: str, reader: str = "test@example.com") -> list[tuple[str, str]]:
    """(path, snippet) of the hits a real index (built with the tests' hash embedder) gives `query`."""
    from test_index_support import HashEmbedder

    from stigmergy.index.build import build_index
    from stigmergy.index.search import Searcher
    from stigmergy.settings import load_settings

    settings = load_settings(root)
    build_index(root, settings, embedder=HashEmbedder())
    searcher = Searcher(root, settings, HashEmbedder())
    try:
        return [(h.path, h.snippet) for h in searcher.search(query, reader).hits]
    finally:
        searcher.close()


def discord_export(path: Path, channel_type: str = "GuildTextChat") -> Path:
    """A channel exported by DiscordChatExporter (its JSON format), with a reply chain and an edit."""
    ann = {"id": "111", "name": "ann", "discriminator": "0000", "nickname": "Ann Lee", "isBot": False, "roles": []}
    bob = {"id": "222", "name": "bob", "discriminator": "0000", "nickname": "Bob Ray", "isBot": False, "roles": []}

    def m(mid: str, who: dict, at: str, content: str, **extra) -> dict:
        return {"id": mid, "type": extra.pop("type", "Default"), "timestamp": at, "timestampEdited": extra.pop("edited", None),
                "callEndedTimestamp": None, "isPinned": False, "content": content, "author": who,
                "attachments": extra.pop("attachments", []), "embeds": [], "stickers": [], "reactions": [],
                "mentions": extra.pop("mentions", []), **extra}

    messages = [
        m("1001", ann, "2026-03-02T09:14:00.000+00:00", "The Orion beta opens on 9 March <@222>", mentions=[bob]),
        m("1002", bob, "2026-03-02T09:20:00.000+00:00", "I'll send the invites", type="Reply",
          reference={"messageId": "1001", "channelId": "9", "guildId": "8"}),
        m("1003", ann, "2026-03-03T08:00:00.000+00:00", "Invites went out", type="Reply",
          reference={"messageId": "1002", "channelId": "9", "guildId": "8"}),
        m("1004", bob, "2026-03-03T10:00:00.000+00:00", "Orion pricing is 12 euros", edited="2026-03-03T10:05:00+00:00",
          attachments=[{"id": "a", "url": "https://cdn.example/x", "fileName": "pricing.xlsx", "fileSizeBytes": 10}]),
        m("1005", bob, "2026-03-03T10:06:00.000+00:00", "Joined the server.", type="GuildMemberJoin"),
    ]
    data = {"guild": {"id": "8", "name": "Acme", "iconUrl": ""},
            "channel": {"id": "9", "type": channel_type, "categoryId": "7", "category": "Text", "name": "launch",
                        "topic": None},
            "dateRange": {"after": None, "before": None}, "exportedAt": "2026-03-04T00:00:00+00:00",
            "messages": messages, "messageCount": len(messages)}
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path
