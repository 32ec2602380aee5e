"""When a capture happened: ISO dates and date-times that exist on the calendar and the clock.

The shape is checked first (YYYY-MM-DD, optionally THH:MM[:SS[.fff]] and a zone), then the value: a
`2026-13-45` or a `2026-02-30T25:61` has the shape and names no day or time, so it is refused.
"""

from __future__ import annotations

import datetime as _dt
import re

_SHAPE = re.compile(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?)?$")


def calendar_when(value: str) -> str | None:
    """`value` stripped when it is a real ISO date or date-time, else None."""
    text = value.strip()
    if not _SHAPE.match(text):
        return None
    try:
        if len(text) == 10:
            _dt.date.fromisoformat(text)
        else:
            iso = text.replace(" ", "T", 1)
            if iso.endswith("Z"):
                iso = iso[:-1] + "+00:00"
            if re.search(r"[+-]\d{4}$", iso):
                iso = iso[:-2] + ":" + iso[-2:]
            _dt.datetime.fromisoformat(iso)
    except ValueError:
        return None
    return text
