"""How a line speaks of a version figure the question names without writing it: by the product's major release
("the last version of pip that supported Python 2" for "python 2.7"), by a bound on the product's releases ("On
Python 3.10 or later" for "python 3.12", and "On Python 3.9 or earlier" for "python 3.9"), and a percentile as
engineers write it ("p99": "99th percentile"). Read by saying.says for a figure term."""

from __future__ import annotations

import re
from functools import lru_cache


@lru_cache(maxsize=256)
def _series_re(series: str) -> re.Pattern[str]:
    return re.compile(rf"\b{re.escape(series)}\s+v?(\d+(?:\.\d+)*)(?!\.?\d)", re.I)


def in_series(figure: str, series: str, text: str) -> bool:
    """Whether a line names only the major release a version figure is of ("Python 2" for "python 2.7"): not a line
    that names another release as well ("upgrade to Python 3 … dropped support for Python 2" says nothing of 3.8)."""
    said = _series_re(series).findall(text)
    return bool(said) and set(said) == {figure.split(".")[0]}


_UP = "later|newer|higher|above|greater|up"


@lru_cache(maxsize=256)
def _bound_re(series: str) -> re.Pattern[str]:
    """A bound on a product's releases: "Python 3.10 or later", "Python 3.9 or earlier", "Python 3.10+", "at least
    Python 3.10", "before Python 3.10", "pip v22.2 or later"."""
    s = re.escape(series)
    return re.compile(rf"\b{s}\s+v?(?P<v>\d+(?:\.\d+)*)(?:\s*(?P<plus>\+)|\s+(?:or|and)\s+(?P<dir>{_UP}|earlier|older|"
                      rf"lower|below)\b)|\b(?P<pre>at least|newer than|later than|prior to|before|older than|earlier than)"
                      rf"\s+{s}\s+v?(?P<w>\d+(?:\.\d+)*)", re.I)


_RELEASE_RE = re.compile(r"\d+(?:\.\d+)*")


def release(text: str) -> tuple[int, ...]:
    """The first release number `text` writes, as numbers ("py3.12": (3, 12); "Changed in version 22.1": (22, 1))."""
    m = _RELEASE_RE.search(text)
    return tuple(int(x) for x in m.group(0).split(".")) if m else ()


def in_bound(figure: str, series: str, text: str) -> bool:
    """Whether a line bounds the releases of the product a version figure is of ("On Python 3.10 or later" for
    "python 3.12" or "python 3.9"; "with pip v22.2 or later" for "pip 23"): a statement about the releases of the
    figure's major version on either side of the bound, and about any release within it, so the asker's own release
    is spoken of though not written. Python 2.7 is on neither: "On Python 3.10 or later" says nothing of it."""
    asked = release(figure)
    for m in _bound_re(series).finditer(text):
        bound = release(m.group("v") or m.group("w"))
        if not asked or not bound:
            continue
        if asked[0] == bound[0]:
            return True
        up = bool(m.group("plus")) or (m.group("dir") or "").lower() in _UP.split("|") or (
            (m.group("pre") or "").lower() in ("at least", "newer than", "later than"))
        if (asked >= bound) if up else (asked < bound):
            return True
    return False


# A percentile as engineers write it ("p99", "p95", "p99.9"), which a report spells out ("99th percentile")
PERCENTILE_RE = re.compile(r"p(\d{2}(?:\.\d+)?)", re.I)


@lru_cache(maxsize=64)
def _percentile_re(n: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\d.]){re.escape(n)}(?:st|nd|rd|th)?[ -]percentile\b", re.I)


def percentile_said(word: str, text: str) -> bool:
    """ "p99" is said by "99th percentile"."""
    m = PERCENTILE_RE.fullmatch(word)
    return m is not None and _percentile_re(m.group(1)).search(text) is not None
