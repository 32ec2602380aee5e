"""Inputs that hold many captures: a chat export (one page per channel and day) and an mbox (one
capture per message). `expand` turns one such input into the inputs it holds, each with its own bytes
(a chat page, one message), so each is extracted, checked, deduplicated and filed like any file.

Anything wrong with the container (an unsafe member name, a zip bomb, a member over the limits, a
malformed list) refuses the whole input before any of it is captured: one line, nothing stored.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from stigmergy.capture.inputs import InputItem, printable
from stigmergy.settings import CaptureSettings

ZIP = b"PK\x03\x04"


def _suffix(item: InputItem) -> str:
    return PurePosixPath((item.origin_name or item.locator).replace("\\", "/")).suffix.lower()


def expand(item: InputItem, data: bytes, limits: CaptureSettings) -> list[InputItem] | None:
    """The inputs `item` holds, in their order; None when it is a single input."""
    suffix = _suffix(item)
    media = (item.media_type or "").split(";", 1)[0].strip().lower()
    if (suffix == ".zip" or media == "application/zip") and data.startswith(ZIP) and _names_slack(data):
        from stigmergy.capture.chat.slack import read_export
        from stigmergy.capture.extract import CHAT

        return [_item(loc, page.to_bytes(), CHAT) for loc, page in read_export(data, item.locator, limits)]
    if suffix == ".json" and data.lstrip()[:1] == b"{" and b'"guild"' in data[:4096]:
        from stigmergy.capture.chat.discord import looks_like_discord, read_discord
        from stigmergy.capture.extract import CHAT

        if looks_like_discord(data):
            return [_item(loc, page.to_bytes(), CHAT) for loc, page in read_discord(data, item.locator, limits)]
    if suffix == ".mbox" or media == "application/mbox":
        from stigmergy.capture.extract import MAIL
        from stigmergy.capture.mail.mbox import split_mbox

        return [_item(loc, raw, MAIL) for loc, raw in split_mbox(data, item.locator, limits)]
    return None


def _names_slack(data: bytes) -> bool:
    """Whether a ZIP's central directory names a Slack export's lists (nothing is decompressed here; any
    other ZIP goes on to extraction, which reads a DOCX and refuses the rest)."""
    import io
    import zipfile

    from stigmergy.capture.chat.slack import is_slack_export

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return is_slack_export(set(archive.namelist()))
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return False


def _item(locator: str, data: bytes, media_type: str) -> InputItem:
    # A part's name comes from inside the container (a channel's name, a member's): printed escaped too.
    return InputItem(locator=printable(locator), read=lambda: data, size=len(data), media_type=media_type)
