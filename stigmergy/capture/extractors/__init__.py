"""Format extractors behind `stigmergy.capture.extract.extract`, one module per format: HTML (stdlib),
PDF (pypdf, with OCR for scanned pages), DOCX (python-docx), images (Tesseract OCR), mail (the standard
library's email package), chat pages (capture/chat/). Plain text and Markdown, the normal form every extractor's output takes,
are `extract.py`'s own.

A new capture format is one new module here that declares `FORMAT = Format(...)`: its media type, file
extensions, how its content is recognised, and `read`. `formats()` finds every module that declares one
(no import side effects beyond reading `FORMAT`); `extract.py` detects and dispatches through it. Heavy
parsers (pypdf, python-docx, an OCR engine) are imported inside `read`, so that `stigmergy --help` and a
capture of Markdown never load them.
"""

from __future__ import annotations

import importlib
import pkgutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from stigmergy.errors import InputError
from stigmergy.settings import CaptureSettings

# Bumped whenever a change to this package can change the readable text of the same bytes.
EXTRACTOR_REVISION = "3"  # 2: markup in extracted text is escaped (escape_markup); 3: unsafe links inert


@dataclass(frozen=True)
class Attachment:
    """A file carried inside an input (a mail's attachment): stored as its own artifact of the capture,
    its readable text (when it has one) a section of the capture's source page."""

    name: str
    data: bytes
    media_type: str
    text: str  # readable text, "" when stigmergy cannot read it
    extractor: str
    extractor_version: str
    note: str = ""  # why it has no text (its refusal), else ""


@dataclass(frozen=True)
class Reading:
    """What a format's `read` found: the body (any text; `extract` normalises it), the document's own title,
    the extractor's version, metadata it carries (HTML meta), and a page count when the format has pages."""

    body: str
    title: str | None
    version: str
    metadata: dict[str, Any] = field(default_factory=dict)
    pages: int | None = None
    media_type: str | None = None  # what the bytes turned out to be, when the format has several (images)
    author: str | None = None  # who wrote it, when the input says and one person did (a mail's From)
    attachments: tuple[Attachment, ...] = ()  # files it carries (a mail's attachments)
    covers_original: bool = False  # the body shows every free-text value of the bytes (extract.Extraction)


@dataclass(frozen=True)
class Format:
    media_type: str
    extractor: str  # recorded in the source page's artifacts
    extensions: tuple[str, ...]
    read: Callable[[Any, Budget], Reading]  # the bytes (binary) or the decoded text, and the limits
    media_aliases: tuple[str, ...] = ()  # declared media types that mean this format
    binary: bool = False  # `read` gets the bytes; else the text, decoded as a text file is
    # Recognises its own bytes behind an unknown extension (a PDF named `report`).
    claims: Callable[[bytes], bool] | None = None
    # Raises InputError when bytes behind this format's extension or media type are not of it:
    # (data, name, what was declared, the magic-bytes label or None).
    verify: Callable[[bytes, str, str, str | None], None] | None = None
    charset_meta: bool = False  # a text format whose content may declare its own charset (HTML)
    empty_hint: str | None = None  # said when nothing readable came out


@lru_cache(maxsize=1)
def formats() -> tuple[Format, ...]:
    """Every format a module of this package declares, in module-name order."""
    found = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        declared = getattr(module, "FORMAT", None)
        if isinstance(declared, Format):
            found.append(declared)
    return tuple(found)


class Budget:
    """The time and size limits of one extraction, checked between pages or paragraphs.

    The clock can only refuse an input, never change its text, so extraction stays deterministic.
    """

    def __init__(self, locator: str, limits: CaptureSettings) -> None:
        self.locator = locator
        self.limits = limits
        self._start = time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self._start

    def check_time(self) -> None:
        elapsed = time.monotonic() - self._start
        if elapsed > self.limits.max_seconds:
            raise InputError(
                self.locator,
                "too-slow",
                f"extraction took over {self.limits.max_seconds:g} s and was stopped",
                hint="raise capture.max_seconds in stigmergy.toml, or split the input",
            )

    def check_chars(self, count: int) -> None:
        if count > self.limits.max_readable_chars:
            raise InputError(
                self.locator,
                "too-long",
                f"over {self.limits.max_readable_chars:,} readable characters",
                hint="raise capture.max_readable_chars in stigmergy.toml, or split the input",
            )

    def check_pages(self, pages: int) -> None:
        if pages > self.limits.max_pages:
            raise InputError(
                self.locator,
                "too-many-pages",
                f"{pages:,} pages is over the limit of {self.limits.max_pages:,}",
                hint="raise capture.max_pages in stigmergy.toml, or split the document",
            )

    def check_expanded(self, size: int) -> None:
        # A small ZIP can inflate to gigabytes; refuse before python-docx reads it into memory.
        cap = max(self.limits.max_bytes * 10, 1)
        if size > cap:
            raise InputError(
                self.locator,
                "too-large",
                f"the archive expands to {size:,} bytes, over {cap:,} (10 x capture.max_bytes)",
            )
