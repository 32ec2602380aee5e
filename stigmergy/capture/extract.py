"""Extraction: the bytes of one captured input -> readable text, title and provenance metadata.

One entry point, `extract`. It picks a format from the media type (when the caller knows it), the
file extension and the magic bytes, enforces the capture limits, and hands the bytes to one
extractor: plain text and Markdown here, every other format a module of `capture/extractors/` that
declares its `Format` (HTML, PDF, DOCX; a new format is one new module there). Every result is normalised the same way, so the
readable text of a source page is stable: `\\n` newlines, no control characters but tab, no trailing
whitespace, at most one blank line in a row, exactly one trailing newline.

Same bytes in, same `Extraction` out: nothing here reads the clock except the `too-slow` limit,
which can only refuse, never change the text. The format rules are written down in docs/capture.md.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import PurePosixPath
from typing import Any

import yaml

from stigmergy.capture.extractors import EXTRACTOR_REVISION, Attachment, Budget, Format, formats
from stigmergy.errors import ContractError, InputError
from stigmergy.pages.frontmatter import FrontMatterLimitError, LimitedYAMLHandler
from stigmergy.pages.markdown import inert_links
from stigmergy.settings import CaptureSettings

TEXT = "text/plain"
MARKDOWN = "text/markdown"
HTML = "text/html"
PDF = "application/pdf"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
CHAT = "application/x-stigmergy-chat+json"  # one channel-day of a chat export (capture/chat/page.py)
MAIL = "message/rfc822"

# The built-in text formats; every other one comes from its module in capture/extractors/.
_BUILTIN_EXTENSIONS = {".txt": TEXT, ".text": TEXT, ".md": MARKDOWN, ".markdown": MARKDOWN}
_BUILTIN_MEDIA = {"text/plain": TEXT, "text/markdown": MARKDOWN, "text/x-markdown": MARKDOWN}


@lru_cache(maxsize=1)
def _registry() -> tuple[dict[str, Format], dict[str, str], dict[str, str]]:
    """(media type -> format, extension -> media type, declared media type -> media type)."""
    by_type = {f.media_type: f for f in formats()}
    by_extension = {**_BUILTIN_EXTENSIONS, **{e: f.media_type for f in formats() for e in f.extensions}}
    media = {**_BUILTIN_MEDIA, **{a: f.media_type for f in formats() for a in (f.media_type, *f.media_aliases)}}
    return by_type, by_extension, media

# Signatures that no text file starts with. Order matters only for readability.
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"%PDF-", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"\xfd7zXZ\x00", "an xz archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"\x7fELF", "an ELF executable"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "a legacy Office (OLE2) file"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"OggS", "an Ogg media file"),
    (b"fLaC", "a FLAC audio file"),
    (b"\x00\x00\x01\x00", "an icon file"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
)

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_LINE_BREAKS = re.compile(r"\r\n|[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_BLANK_RUN = re.compile(r"\n{3,}")
_FRONT_MATTER_END = re.compile(r"^(?:---|\.\.\.)[ \t]*$", re.MULTILINE)
_TITLE_MAX = 200


@dataclass(frozen=True)
class Extraction:
    """What one input reads as. `metadata` is a Markdown file's own front matter, a mail's headers, a
    chat page's channel, OCR's confidences (else `{}`); `pages` is a PDF's page count (else None); `author`
    is who wrote it when the input says and one person did (a mail's From, a chat page's only author);
    `attachments` are the files it carries. Field by field in docs/capture.md."""

    text: str
    media_type: str
    extractor: str
    extractor_version: str
    title: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    pages: int | None = None
    author: str | None = None
    attachments: tuple[Attachment, ...] = ()
    # The readable text shows every free-text value of the original bytes (a chat page: stigmergy's own
    # projection of an export), so the credential check need not scan the original as well.
    covers_original: bool = False


def extract(data: bytes, name: str, limits: CaptureSettings, media_type: str | None = None) -> Extraction:
    """Readable text of one input. Raises InputError(locator, rule, message) when it refuses."""
    return _extract(data, name, limits, media_type, carry=True)


def _extract(data: bytes, name: str, limits: CaptureSettings, media_type: str | None, carry: bool) -> Extraction:
    """`carry`: read the files the input carries (a mail's attachments) as sections of its text. A carried
    file's own attachments are not read: there is no nesting to bomb."""
    if len(data) > limits.max_bytes:
        raise InputError(
            name,
            "too-large",
            f"{len(data):,} bytes is over the capture limit of {limits.max_bytes:,} bytes",
            hint="raise capture.max_bytes in stigmergy.toml, or split the input",
        )
    if not data:
        raise InputError(name, "empty", "the input is empty (0 bytes)")
    budget = Budget(name, limits)
    kind = _detect(data, name, media_type)
    fmt = _registry()[0].get(kind)
    if fmt is not None:
        reading = fmt.read(data if fmt.binary else _decode(data, name, fmt), budget)
        if reading.attachments:
            reading = _read_attachments(reading, limits, budget) if carry else replace(reading, attachments=())
        found = _finish(name, limits, reading.body, reading.media_type or kind, fmt.extractor, reading.version,
                        reading.title, reading.metadata, reading.pages, fmt.empty_hint)
        if reading.author or reading.attachments or reading.covers_original:
            found = replace(found, author=reading.author, attachments=reading.attachments,
                            covers_original=reading.covers_original)
        return found
    text = _decode(data, name, None)
    if kind == MARKDOWN:
        metadata, body = _split_front_matter(_LINE_BREAKS.sub("\n", text), name)
        title = _clean_title(metadata.get("title")) or _first_h1(body)
        version = f"{EXTRACTOR_REVISION}+pyyaml-{yaml.__version__}"
        return _finish(name, limits, body, MARKDOWN, "markdown", version, title, metadata, None)
    return _finish(name, limits, text, TEXT, "text", EXTRACTOR_REVISION, _setext_title(text), {}, None)


def _read_attachments(reading: Any, limits: CaptureSettings, budget: Budget) -> Any:
    """Each carried file read like any input (text, PDF, DOCX, an image through OCR, an attached message
    without its attachments) into a `## Attachment: NAME` section of the text, or why it has no text."""
    sections, carried = [reading.body], []
    for a in reading.attachments:
        budget.check_time()
        declared = a.media_type if a.media_type not in ("", "application/octet-stream") else None
        try:
            found = _extract(a.data, a.name, limits, declared, carry=False) if a.data else None
        except InputError as exc:
            found, note = None, exc.detail
        else:
            note = "" if found else "empty"
        if found is not None:
            carried.append(replace(a, media_type=found.media_type, text=found.text, extractor=found.extractor,
                                   extractor_version=found.extractor_version))
            sections.append(f"## Attachment: {a.name}\n\n{found.text.strip()}")
        else:
            carried.append(replace(a, text="", extractor="none", extractor_version=EXTRACTOR_REVISION, note=note))
            sections.append(f"## Attachment: {a.name}\n\n({a.media_type}, {len(a.data):,} bytes: {note})")
        budget.check_chars(sum(len(x) for x in sections))
    return replace(reading, body="\n\n".join(sections), attachments=tuple(carried))


_SETEXT_RULE = re.compile(r"^[ ]{0,3}(=+|-+)[ \t]*$")


def _setext_title(text: str) -> str | None:
    """A plain-text file that opens with an underlined title ("Manual" over "======") is titled by it."""
    lines = _LINE_BREAKS.sub("\n", text[:4096]).lstrip("\n").split("\n")
    if len(lines) < 2 or not lines[0].strip() or not _SETEXT_RULE.match(lines[1]):
        return None
    if len(lines[1].strip()) < 3:
        return None  # a lone "-" under a line is a list or a sign, not a rule
    return _clean_title(lines[0])


def normalize_text(text: str) -> str:
    """The one normal form of readable text (see the module docstring). Empty stays empty."""
    text = _LINE_BREAKS.sub("\n", text)
    text = text.replace("\ufeff", "")
    text = _CONTROL.sub("", text)
    lines = [line.rstrip() for line in text.split("\n")]
    text = _BLANK_RUN.sub("\n\n", "\n".join(lines)).strip("\n")
    return text + "\n" if text else ""


# -- detection -----------------------------------------------------------------------------------


def _magic(data: bytes) -> str | None:
    for signature, label in _MAGIC:
        if data.startswith(signature):
            return label
    return None


def _detect(data: bytes, name: str, media_type: str | None) -> str:
    by_type, by_extension, media = _registry()
    declared = None
    if media_type:
        declared = media.get(media_type.split(";", 1)[0].strip().lower())
    suffix = PurePosixPath(name.replace("\\", "/")).suffix.lower()
    kind = declared or by_extension.get(suffix)
    what = f"media type {media_type}" if declared else f"extension {suffix}"
    magic = _magic(data)

    if kind is None:
        # Unknown extension: recognise the binary formats we can read, accept text, refuse the rest.
        for fmt in formats():
            if fmt.claims is not None and fmt.claims(data):
                return fmt.media_type
        if magic is not None:
            raise InputError(name, "unsupported-type", f"content is {magic}, which stigmergy cannot read")
        # NUL bytes are valid UTF-8 but no text file has them; without an extension to vouch for
        # the content, they mark it as binary.
        if b"\x00" not in data[:8192] and _decodes(data):
            return TEXT
        raise InputError(
            name,
            "unsupported-type",
            f"unknown file type {suffix or '(no extension)'} and the content is not UTF-8 text",
            hint="capture text, Markdown, HTML, PDF or DOCX files",
        )
    fmt = by_type.get(kind)
    if fmt is not None and fmt.verify is not None:
        fmt.verify(data, name, what, magic)
        return kind
    # A text format: binary content behind a text extension is refused, never decoded.
    if magic is not None:
        raise InputError(name, "unsupported-type", f"{what} says text but the content is {magic}")
    return kind


# -- decoding ------------------------------------------------------------------------------------


def _decode_or_none(data: bytes) -> str | None:
    # Only what the bytes themselves declare: a UTF-16 byte-order mark, else UTF-8 (with or without
    # its BOM). A latin-1 guess would "succeed" on any bytes and silently corrupt the evidence.
    if data.startswith((b"\xff\xfe", b"\xfe\xff")) and not data.startswith(b"\xff\xfe\x00\x00"):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


def _decodes(data: bytes) -> bool:
    return _decode_or_none(data) is not None


_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)


def _decode(data: bytes, name: str, fmt: Format | None) -> str:
    text = _decode_or_none(data)
    if text is not None:
        return text
    if fmt is not None and fmt.charset_meta:
        # An HTML page may declare its own charset; honouring a declaration is not guessing.
        import codecs

        match = _META_CHARSET.search(data[:4096])
        if match:
            label = match.group(1).decode("ascii")
            try:
                codecs.lookup(label)
                return data.decode(label)
            except (LookupError, UnicodeDecodeError):
                pass
    bad = _first_bad_byte(data)
    raise InputError(
        name,
        "undecodable",
        f"not valid UTF-8 (byte 0x{data[bad]:02x} at offset {bad}) and no UTF-16 byte-order mark",
        hint="convert it to UTF-8 first, e.g. iconv -f LATIN1 -t UTF-8",
    )


def _first_bad_byte(data: bytes) -> int:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start
    return 0


# -- Markdown ------------------------------------------------------------------------------------


def _split_front_matter(text: str, name: str) -> tuple[dict[str, Any], str]:
    """(the file's own front matter, body). A block that is not a YAML mapping stays in the body; a
    block over a YAML limit (size, depth, alias expansion) refuses the input."""
    text = text.lstrip("\ufeff")
    first, sep, rest = text.partition("\n")
    if first.rstrip() != "---" or not sep:
        return {}, text
    end = _FRONT_MATTER_END.search(rest)
    if end is None:
        return {}, text
    raw = rest[: end.start()]
    body = rest[end.end() :]
    try:
        meta = LimitedYAMLHandler().load(raw)
    except FrontMatterLimitError as exc:
        raise InputError(name, exc.rule, exc.message, hint="simplify the Markdown file's front matter") from None
    except ContractError:
        return {}, text
    if not isinstance(meta, dict):
        return {}, text
    return _plain(meta), body


def _plain(value: Any) -> Any:
    """YAML values as JSON-compatible ones (dates become ISO strings), so provenance can travel as
    JSON in change records and re-render as the same YAML."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, _dt.datetime | _dt.date | _dt.time):
        return value.isoformat()
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


# -- escaping ------------------------------------------------------------------------------------

# What a Markdown renderer would turn into markup rather than show: the start of an HTML tag, comment,
# declaration or processing instruction, and an entity or character reference. `a < b` and `AT&T` are
# left alone (they render as themselves).
_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")
_ENTITY = re.compile(r"&(?=#[0-9]{1,8};|#[xX][0-9A-Fa-f]{1,8};|[A-Za-z][A-Za-z0-9]{1,31};)")


def _escape_prose(text: str) -> str:
    return _TAG_START.sub("&lt;", _ENTITY.sub("&amp;", inert_links(text)))


def escape_markup(text: str, markdown: bool) -> str:
    """Text that renders as the text it was: decoded `&lt;script&gt;` must not become a raw tag in the
    source page's Markdown. Markdown input keeps its own code (code blocks and code spans, as markdown-it
    reads them), where a renderer already shows `<` literally; everything else is escaped."""
    if not markdown:
        return _escape_prose(text)
    from stigmergy.pages.markdown import code_lines, code_span_ranges

    lines = text.split("\n")
    code = code_lines(text)
    for n, line in enumerate(lines):
        if n in code or ("<" not in line and "&" not in line and "](" not in line and "]:" not in line):
            continue
        pieces, last = [], 0
        for start, end in code_span_ranges(line):
            pieces.append(_escape_prose(line[last:start]))
            pieces.append(line[start:end])
            last = end
        pieces.append(_escape_prose(line[last:]))
        lines[n] = "".join(pieces)
    return "\n".join(lines)


def _first_h1(body: str) -> str | None:
    from stigmergy.pages.markdown import first_h1

    return _clean_title(first_h1(body))


def _clean_title(value: Any) -> str | None:
    if value is None or isinstance(value, dict | list):
        return None
    title = " ".join(_CONTROL.sub(" ", str(value)).split())
    if len(title) > _TITLE_MAX:
        title = title[: _TITLE_MAX - 1].rstrip() + "…"
    return title or None


# -- result --------------------------------------------------------------------------------------


def _finish(
    name: str,
    limits: CaptureSettings,
    body: str,
    media_type: str,
    extractor: str,
    version: str,
    title: str | None,
    metadata: dict[str, Any],
    pages: int | None,
    empty_hint: str | None = None,
) -> Extraction:
    text = escape_markup(normalize_text(body), markdown=media_type == MARKDOWN)
    title = _escape_prose(title) if isinstance(title, str) else title
    if not text.strip():
        hint = empty_hint
        raise InputError(name, "empty", "no readable text after extraction", hint=hint)
    if len(text) > limits.max_readable_chars:
        raise InputError(
            name,
            "too-long",
            f"{len(text):,} readable characters is over the limit of {limits.max_readable_chars:,}",
            hint="raise capture.max_readable_chars in stigmergy.toml, or split the input",
        )
    return Extraction(
        text=text,
        media_type=media_type,
        extractor=extractor,
        extractor_version=version,
        title=_clean_title(title),
        metadata=metadata,
        pages=pages,
    )
