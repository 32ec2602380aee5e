"""A chat page (one channel and day of a chat export, capture/chat/page.py) as a capture format: what a
Slack or Discord export expands into, and what an import replays. Recognised by its own bytes."""

from __future__ import annotations

from stigmergy.capture.extractors import EXTRACTOR_REVISION, Budget, Format, Reading

MEDIA_TYPE = "application/x-stigmergy-chat+json"


def _read(data: bytes, budget: Budget) -> Reading:
    from stigmergy.capture.chat.page import REVISION, read_page

    body, title, meta, author = read_page(data, budget.locator)
    # Every free-text value of the page's bytes is on the page: the credential check reads the text once.
    return Reading(body, title, f"{EXTRACTOR_REVISION}.{REVISION}", metadata=meta, author=author,
                   covers_original=True)


def _claims(data: bytes) -> bool:
    from stigmergy.capture.chat.page import is_chat_page

    return is_chat_page(data)


FORMAT = Format(media_type=MEDIA_TYPE, extractor="chat", extensions=(), read=_read, binary=True,
                media_aliases=(MEDIA_TYPE,), claims=_claims)
