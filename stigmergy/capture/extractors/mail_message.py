"""Mail (`.eml`, message/rfc822) as a capture format: capture/mail/message.py reads it; the attachments
it returns are read into sections of the page by capture/extract.py."""

from __future__ import annotations

import sys

from stigmergy.capture.extractors import EXTRACTOR_REVISION, Budget, Format, Reading
from stigmergy.errors import InputError

MEDIA_TYPE = "message/rfc822"


def _read(data: bytes, budget: Budget) -> Reading:
    from stigmergy.capture.mail.message import REVISION, read_mail

    body, title, meta, author, carried = read_mail(data, budget)
    python = f"python-{sys.version_info.major}.{sys.version_info.minor}"
    return Reading(body, title, f"{EXTRACTOR_REVISION}.{REVISION}+{python}", metadata=meta, author=author,
                   attachments=tuple(carried))


def _verify(data: bytes, name: str, what: str, magic: str | None) -> None:
    if magic is not None:
        raise InputError(name, "unsupported-type", f"{what} says a mail message but the content is {magic}")


FORMAT = Format(media_type=MEDIA_TYPE, extractor="email", extensions=(".eml",), read=_read, binary=True,
                media_aliases=(MEDIA_TYPE,), verify=_verify)
