"""Format extractors behind `stigmergy.capture.extract.extract`: HTML (stdlib), PDF (pypdf), DOCX
(python-docx). pypdf and python-docx are imported inside their functions so that `stigmergy --help`
never loads them."""

from __future__ import annotations

import time

from stigmergy.errors import InputError
from stigmergy.settings import CaptureSettings


class Budget:
    """The time and size limits of one extraction, checked between pages or paragraphs.

    The clock can only refuse an input, never change its text, so extraction stays deterministic.
    """

    def __init__(self, locator: str, limits: CaptureSettings) -> None:
        self.locator = locator
        self.limits = limits
        self._start = time.monotonic()

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
