"""One mail message -> readable text, headers as provenance, its attachments.

The page opens with the headers a reader needs (From, To, Cc, Date, Subject), then the text part (or the
HTML part made text, as HTML capture does) with quoted replies folded: a `>` block, the "On ... wrote:"
line above it, and an Outlook "Original Message" tail become one bracketed line saying how many lines
were folded, so a thread captured message by message does not repeat itself (the original bytes keep
every line). Each attachment is an artifact of its own; its readable text, when stigmergy can read it
(text, PDF, DOCX, an image through OCR), is a section of the page.

Limits: at most capture.max_mail_parts MIME parts and MAX_DEPTH levels of nesting (counted from the
bytes before parsing, so a nested-multipart bomb never reaches the parser), attachments extracted with
the capture limits, attached messages read without their own attachments.
"""

from __future__ import annotations

import datetime as _dt
import re
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import getaddresses, parsedate_to_datetime
from typing import Any

from stigmergy.capture.extractors import Attachment, Budget
from stigmergy.errors import InputError
from stigmergy.settings import CaptureSettings

REVISION = "1"
MEDIA_TYPE = "message/rfc822"
MAX_DEPTH = 12
_BOUNDARY = re.compile(rb"boundary\s*=", re.IGNORECASE)
_ATTRIBUTION = re.compile(r"^\s*(?:On\b.{4,300}\bwrote:|.{2,200}\bschrieb\b.{0,100}:|Le\b.{4,300}\ba écrit ?:)\s*$")
_ORIGINAL = re.compile(r"^\s*(?:-{2,}\s*(?:Original Message|Forwarded message)\s*-{2,}|_{10,})\s*$", re.I)
_OUTLOOK_FROM = re.compile(r"^\s*\**From:\**\s+\S")
_OUTLOOK_NEXT = re.compile(r"^\s*\**(?:Sent|Date|To):\**\s")
_SAFE_NAME = re.compile(r"[\x00-\x1f\x7f/\\]+")


def _check_bomb(data: bytes, locator: str, limits: CaptureSettings) -> None:
    count = len(_BOUNDARY.findall(data))
    if count > limits.max_mail_parts:
        raise InputError(locator, "mail-bomb", f"{count:,} multipart boundaries is over the limit of "
                         f"{limits.max_mail_parts:,} MIME parts", hint="raise capture.max_mail_parts in stigmergy.toml")


def parse_message(data: bytes, locator: str, limits: CaptureSettings) -> EmailMessage:
    _check_bomb(data, locator, limits)
    try:
        msg = BytesParser(policy=policy.default).parsebytes(data)
    except (RecursionError, ValueError, TypeError, LookupError, IndexError) as exc:
        raise InputError(locator, "malformed", f"the mail cannot be parsed ({type(exc).__name__})") from None
    parts = 0
    stack: list[tuple[Any, int]] = [(msg, 0)]
    while stack:
        part, depth = stack.pop()
        parts += 1
        if depth > MAX_DEPTH:
            raise InputError(locator, "mail-bomb", f"MIME parts nested over {MAX_DEPTH} deep")
        if parts > limits.max_mail_parts:
            raise InputError(locator, "mail-bomb", f"over {limits.max_mail_parts:,} MIME parts",
                             hint="raise capture.max_mail_parts in stigmergy.toml")
        if part.is_multipart():
            payload = part.get_payload()
            stack += [(p, depth + 1) for p in payload if hasattr(p, "get_content_type")] if isinstance(payload, list) else []
    if not isinstance(msg, EmailMessage) or not (msg.get("From") or msg.get("Subject") or msg.get("Message-ID")):
        raise InputError(locator, "malformed", "not a mail message (no From, Subject or Message-ID header)")
    return msg


def _header(msg: EmailMessage, name: str) -> str:
    try:
        value = msg.get(name)
    except (ValueError, TypeError, IndexError, LookupError):  # a header the policy cannot parse
        value = None
    return " ".join(str(value).split())[:2000] if value is not None else ""


def _addresses(msg: EmailMessage, name: str) -> list[str]:
    raw = _header(msg, name)
    if not raw:
        return []
    out = []
    for display, addr in getaddresses([raw]):
        if not addr and not display:
            continue
        out.append(f"{display} <{addr}>" if display and addr else addr or display)
    return out[:200]


def _shown(address: str) -> str:
    # "Ann Lee (ann@example.com)": angle brackets would be escaped as markup in the page's text.
    return re.sub(r"<([^<>]*)>", r"(\1)", address)


def _date(msg: EmailMessage) -> str | None:
    raw = _header(msg, "Date")
    if not raw:
        return None
    try:
        when = parsedate_to_datetime(raw)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=_dt.UTC)
    return when.isoformat(timespec="seconds")


def headers(msg: EmailMessage) -> dict[str, Any]:
    """Provenance: from, to, cc, date (ISO), subject, message_id, in_reply_to, references."""
    meta: dict[str, Any] = {}
    for key, name in (("from", "From"), ("to", "To"), ("cc", "Cc")):
        found = _addresses(msg, name)
        if found:
            meta[key] = found[0] if key == "from" else found
    date = _date(msg)
    if date:
        meta["date"] = date
    for key, name in (("subject", "Subject"), ("message_id", "Message-ID"), ("in_reply_to", "In-Reply-To")):
        value = _header(msg, name)
        if value:
            meta[key] = value
    refs = _header(msg, "References").split()
    if refs:
        meta["references"] = refs[:50]
    return meta


def fold_quotes(text: str) -> str:
    """Quoted replies folded into one bracketed line each (see the module docstring)."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if _ORIGINAL.match(line) or (_OUTLOOK_FROM.match(line) and any(
                _OUTLOOK_NEXT.match(x) for x in lines[i + 1 : i + 4]) and any(ln.strip() for ln in out)):
            rest = [ln for ln in lines[i:] if ln.strip()]
            out.append(f"[earlier message folded: {len(rest)} lines]")
            break
        if line.lstrip().startswith(">"):
            j = i
            while j < len(lines) and (lines[j].lstrip().startswith(">") or not lines[j].strip()):
                j += 1
            while j > i and not lines[j - 1].strip():
                j -= 1
            count = sum(1 for ln in lines[i:j] if ln.strip().lstrip("> ").strip())
            while out and not out[-1].strip():
                out.pop()
            who = ""
            if out and _ATTRIBUTION.match(out[-1]):
                who = " ".join(out.pop().split()).rstrip(":")
            elif len(out) >= 2 and _ATTRIBUTION.match(out[-2] + " " + out[-1]):
                who = " ".join((out[-2] + " " + out.pop()).split()).rstrip(":")
                out.pop()
            out.append(f"[quoted reply folded: {count} lines{' — ' + who if who else ''}]")
            out.append("")
            i = j
            continue
        out.append(line)
        i += 1
    folded = "\n".join(out).strip("\n")
    return folded if re.sub(r"\[(?:quoted reply|earlier message) folded[^\]]*\]", "", folded).strip() else text


def _body(msg: EmailMessage, budget: Budget) -> str:
    try:
        part = msg.get_body(preferencelist=("plain", "html"))
    except (KeyError, ValueError, TypeError):
        part = None
    if part is None:
        return ""
    content = _text_of(part)
    if part.get_content_type() == "text/html":
        from stigmergy.capture.extractors.html_text import read_html

        content = read_html(content, budget)[0]
    return fold_quotes(content.replace("\r\n", "\n"))


def _text_of(part: Any) -> str:
    try:
        content = part.get_content()
        return content if isinstance(content, str) else ""
    except (LookupError, UnicodeError, ValueError, AssertionError, KeyError):
        raw = part.get_payload(decode=True) or b""
        return raw.decode("utf-8", "replace")


def _attachment_name(part: Any, n: int) -> str:
    try:
        name = part.get_filename()
    except (ValueError, TypeError, LookupError):
        name = None
    name = _SAFE_NAME.sub("_", str(name or "")).strip(" ._")[:200]
    return name or f"attachment-{n}"


def attachments(msg: EmailMessage, body_part: Any) -> list[tuple[str, str, bytes]]:
    """(file name, declared media type, bytes) of every leaf part that is not the body."""
    out: list[tuple[str, str, bytes]] = []
    for part in msg.walk():
        if part.is_multipart() or part is body_part or part is msg and not msg.is_multipart():
            continue
        ctype = part.get_content_type()
        disposition = part.get_content_disposition()
        if disposition != "attachment" and not part.get_filename() and ctype.startswith("text/"):
            continue  # an alternative body (the HTML twin of the text part), not a file
        raw = part.get_payload(decode=True)
        data = raw if isinstance(raw, bytes) else b""
        if ctype == "message/rfc822" and not data:
            inner = part.get_payload()
            if isinstance(inner, list) and inner and hasattr(inner[0], "as_bytes"):
                data = inner[0].as_bytes()
        out.append((_attachment_name(part, len(out) + 1), ctype, data))
    return out


def read_mail(data: bytes, budget: Budget) -> tuple[str, str | None, dict[str, Any], str | None, list[Attachment]]:
    """(readable text without the attachments, title, headers, author, attachments with their bytes).
    capture/extract.py reads each attachment into a section of the page."""
    msg = parse_message(data, budget.locator, budget.limits)
    meta = headers(msg)
    head = [f"From: {_shown(meta['from'])}"] if meta.get("from") else []
    head += [f"To: {', '.join(map(_shown, meta['to']))}"] if meta.get("to") else []
    head += [f"Cc: {', '.join(map(_shown, meta['cc']))}"] if meta.get("cc") else []
    head += [f"Date: {meta['date']}"] if meta.get("date") else []
    head += [f"Subject: {meta['subject']}"] if meta.get("subject") else []
    try:
        body_part = msg.get_body(preferencelist=("plain", "html"))
    except (KeyError, ValueError, TypeError):
        body_part = None
    body = "\n\n".join(x for x in ("\n".join(head), _body(msg, budget)) if x.strip())
    budget.check_chars(len(body))
    carried = [Attachment(name, blob, MEDIA_TYPE if ctype == "message/rfc822" else ctype, "", "", "")
               for name, ctype, blob in attachments(msg, body_part)]
    return body, meta.get("subject"), meta, meta.get("from"), carried
