"""Figures on a cited line must appear in the cited source lines (DESIGN §5).

A figure is a number, an amount, a percentage or a date. Each figure is normalised to a set of forms and
matches when any form also comes out of the cited lines:

- numbers drop thousands separators and trailing zeros: `1,300` = `1300`, `1.30` = `1.3`;
- an amount with a scale has two forms, its mantissa and its value: `$1.3M` = {`1.3`, `1300000`}, so it
  matches `1.3 million`, `$1,300,000` or a table cell `1.3`; currency signs and `%` are ignored;
- dates become ISO: `March 3, 2026`, `3 March 2026` and `2026-03-03` are one date; `March 2026` is a
  month; a date in the source also supplies its month, its year and its month-day, so a wiki line may
  say `in 2026` or `March 2026` of a source that says `2026-03-03`;
- digits inside words count as numbers (`Q1` is 1, `FY2026` is 2026).

What is not a figure: the citation group at the end of the line, the list marker (`- `, `* `, `1. `),
link targets (`[text](url)` keeps only its text), and wikilinks (`[[Q1 2026 review]]` names a page).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from functools import lru_cache

from stigmergy.pages.citations import strip_citations

MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
               "november", "december")
_MONTHS = {
    **{name: n for n, name in enumerate(MONTH_NAMES, 1)},
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
    "oct": 10, "nov": 11, "dec": 12,
}
_MON = r"(?P<mon>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
# The scales a figure's amount is written with, and a number with its thousands grouped or not (the answerer reads a
# question's "£14.5k" and a line's "£14,500" as one amount by these: answer/values.amount).
SCALES = {
    "k": 1_000, "thousand": 1_000, "m": 1_000_000, "mn": 1_000_000, "million": 1_000_000,
    "b": 1_000_000_000, "bn": 1_000_000_000, "billion": 1_000_000_000, "t": 10**12, "tn": 10**12,
    "trillion": 10**12,
}
NUMBER = r"(?P<int>\d{1,3}(?:,\d{3})+|\d+)(?P<frac>\.\d+)?"
_PATTERNS = [
    ("iso", re.compile(r"(?<!\d)(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})(?:T\d{2}:\d{2}(?::\d{2})?Z?)?(?!\d)")),
    ("mdy", re.compile(_MON + r"\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<y>\d{4})(?!\d)", re.I)),
    ("dmy", re.compile(r"(?<!\d)(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+" + _MON + r",?\s+(?P<y>\d{4})(?!\d)", re.I)),
    ("my", re.compile(r"\b" + _MON + r",?\s+(?P<y>\d{4})(?!\d)", re.I)),
    ("md", re.compile(r"\b" + _MON + r"\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?\b(?!,?\s*\d)", re.I)),
    ("ym", re.compile(r"(?<!\d)(?P<y>\d{4})-(?P<m>\d{2})(?![\d-])")),
    (
        "num",
        re.compile(
            r"(?<![\d.,])" + NUMBER + r"(?:\s?(?P<scale>thousand|million|billion|trillion|mn|bn|tn|[kmbt])\b)?",
            re.I,
        ),
    ),
]
# Cheap tests that rule patterns out before they scan a line: every date pattern but the ISO ones needs a
# month's name (each starts with one of these three letters, anywhere: `mdy` is not anchored at a word),
# the ISO ones need a hyphen, and every figure a digit. Scanning a line with all seven patterns was a tenth
# of a chat export's gate time (issue 24); most lines name no month.
_MONTH_PREFIXES = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_NEEDS_MONTH = frozenset({"mdy", "dmy", "my", "md"})
_NEEDS_HYPHEN = frozenset({"iso", "ym"})
_DIGIT = re.compile(r"\d")
_LIST_MARKER = re.compile(r"^\s*(?:>\s*)*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")
_MD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_WIKILINK = re.compile(r"\[\[([^\[\]|#\n]+)(?:#[^\[\]|\n]*)?(?:\|([^\[\]\n]*))?\]\]")


def _norm(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text or "0"


def _month(name: str) -> int:
    """The month a name matched by the patterns means; 0 (no date) for one `re.I` matched through a letter
    that only folds to an ASCII one (ſ, ı, İ): `ſeptember` raised KeyError at the gate."""
    key = name.casefold().replace("\u0131", "i").replace("i\u0307", "i").rstrip(".")
    return _MONTHS.get(key, 0)


def _extract(text: str, *, source_side: bool) -> list[tuple[str, frozenset[str]]]:
    return list(_extract_cached(text, source_side))


@lru_cache(maxsize=4096)
def _extract_cached(text: str, source_side: bool) -> tuple[tuple[str, frozenset[str]], ...]:
    # Memoised: the same cited source lines back several wiki lines (an entity page and the note), and
    # a refused plan is checked again after its repair.
    if _DIGIT.search(text) is None:
        return ()
    low = text.casefold()  # substring tests (an alternation with re.I cost more than the patterns it skips)
    months = any(prefix in low for prefix in _MONTH_PREFIXES)
    hyphen = "-" in text
    taken = [False] * len(text)
    found: list[tuple[int, str, frozenset[str]]] = []
    for kind, pattern in _PATTERNS:
        if (not months and kind in _NEEDS_MONTH) or (not hyphen and kind in _NEEDS_HYPHEN):
            continue
        for m in pattern.finditer(text):
            if any(taken[m.start() : m.end()]):
                continue
            forms: set[str] = set()
            if kind == "num":
                try:
                    mantissa = Decimal(m["int"].replace(",", "") + (m["frac"] or ""))
                except InvalidOperation:
                    continue
                forms.add(_norm(mantissa))
                if m["scale"]:
                    forms.add(_norm(mantissa * SCALES[m["scale"].lower()]))
            else:
                y = m.groupdict().get("y")
                month = int(m["m"]) if m.groupdict().get("m") else (_month(m["mon"]) if m.groupdict().get("mon") else None)
                d = int(m["d"]) if m.groupdict().get("d") else None
                if month is None or not 1 <= month <= 12 or (d is not None and not 1 <= d <= 31):
                    continue
                if y and d:
                    forms.add(f"d:{y}-{month:02d}-{d:02d}")
                elif y:
                    forms.add(f"m:{y}-{month:02d}")
                else:
                    forms.add(f"md:{month:02d}-{d:02d}")
                if source_side:
                    if y:
                        forms.update({f"m:{y}-{month:02d}", str(int(y))})
                    if d:
                        forms.update({f"md:{month:02d}-{d:02d}", str(d)})
                    forms.add(str(month))
            for i in range(m.start(), m.end()):
                taken[i] = True
            found.append((m.start(), m.group(0), frozenset(forms)))
    # Digits glued to letters (Q1, FY2026, H2) were skipped by the patterns above.
    for m in re.finditer(r"\d+(?:\.\d+)?", text):
        if not any(taken[m.start() : m.end()]):
            found.append((m.start(), m.group(0), frozenset({_norm(Decimal(m.group(0)))})))
            for i in range(m.start(), m.end()):
                taken[i] = True
    found.sort()
    return tuple((raw, forms) for _, raw, forms in found)


def claim_text(line: str, *, keep_link_text: bool = True) -> str:
    """The part of a wiki line that states something: no citation group, list marker or link targets.

    With `keep_link_text=False`, wikilinks vanish entirely: they name pages, they do not state figures."""
    text = strip_citations(line)
    text = _LIST_MARKER.sub("", text, count=1)
    if keep_link_text:
        text = _WIKILINK.sub(lambda m: m.group(2) if m.group(2) else m.group(1), text)
    else:
        text = _WIKILINK.sub("", text)
    return _MD_LINK.sub(lambda m: m.group(1), text)


def figures(text: str) -> list[tuple[str, frozenset[str]]]:
    """(raw text, normalised forms) of each figure in a claim."""
    return _extract(text, source_side=False)


def source_forms(text: str) -> set[str]:
    out: set[str] = set()
    for _, forms in _extract(text, source_side=True):
        out |= forms
    return out


def missing_figures(line: str, cited_text: str) -> list[str]:
    """Figures of a wiki line that do not appear in the cited source text."""
    available = source_forms(cited_text)
    return [raw for raw, forms in figures(claim_text(line, keep_link_text=False)) if not forms & available]
