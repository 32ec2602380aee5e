"""Figures stated in a line: amounts of money, percentages, dates and counts (normalised so that two
sources can be compared), the periods they belong to, and `Measure` facts (subject, measure, period,
figure) read from a line or a table row, which the contradiction check compares across sources.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from stigmergy.plan.deterministic.statements import STOP

# ---------------------------------------------------------------------------------------------- figures

_MONEY = r"(?:[$€£¥]\s?\d[\d,]*(?:\.\d+)?\s?(?:[kKmMbB]n?|million|billion|thousand|bn)?\b|\d[\d,]*(?:\.\d+)?\s?(?:[kKmMbB]|million|billion|thousand|bn)?\s?(?:USD|EUR|GBP|dollars|euros|pounds)\b)"
_PERCENT = r"\d[\d,]*(?:\.\d+)?\s?(?:%|percent\b|pp\b|bps\b)"
_ISO_DATE = r"\b\d{4}-\d{2}-\d{2}\b"
_TEXT_DATE = r"\b(?:\d{1,2}\s+)?(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?(?:\s+\d{1,2}(?:st|nd|rd|th)?,?)?\s+\d{4}\b"
_COUNT = r"\b\d[\d,]*(?:\.\d+)?\s?(?:[kKmM]\b)?"
FIGURE = re.compile(rf"(?P<money>{_MONEY})|(?P<percent>{_PERCENT})|(?P<date>{_ISO_DATE}|{_TEXT_DATE})|(?P<count>{_COUNT})")
PERIOD = re.compile(
    r"\b(?:Q[1-4]\s*(?:FY\s?)?'?\d{2,4}|Q[1-4]|H[12]\s*\d{4}|FY\s?'?\d{2,4}|(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{4}|\d{4})\b"
)
MEASURES = {
    "revenue": ("revenue", "revenues", "sales", "turnover", "income"),
    "arr": ("arr", "annual recurring revenue"),
    "mrr": ("mrr", "monthly recurring revenue"),
    "profit": ("profit", "ebitda", "net income", "margin", "margins"),
    "headcount": ("headcount", "employees", "staff", "engineers", "people", "hires"),
    "customers": ("customers", "clients", "accounts", "logos"),
    "users": ("users", "subscribers", "signups", "sign-ups", "downloads", "dau", "mau"),
    "churn": ("churn", "churn rate", "attrition"),
    "growth": ("growth", "grew", "increase", "increased"),
    "price": ("price", "priced", "pricing", "costs", "cost", "fee", "fees"),
    "budget": ("budget", "spend", "spending", "funding", "raised", "valuation", "round"),
    "launch": ("launched", "released", "shipped", "went live", "generally available", "general availability"),
    "launch plan": ("launch", "launches", "release date", "go-live", "deadline", "due", "target date", "scheduled"),
    "latency": ("latency", "uptime", "availability", "response time"),
    "conversion": ("conversion", "conversion rate", "retention", "nps"),
    "deals": ("deals", "contracts", "orders", "pipeline", "bookings"),
}


# One compiled pattern per measure: `measures_in` runs on every cited line of every touched page.
_MEASURE_RES = {
    measure: re.compile(r"\b(?:" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) + r")\b")
    for measure, words in MEASURES.items()
}


def measure_kinds(low: str) -> list[str]:
    """The measures whose words occur (whole word) in the lower-cased text, in MEASURES order."""
    return [m for m, rx in _MEASURE_RES.items() if rx.search(low)]


@dataclass(frozen=True)
class Figure:
    kind: str  # money | percent | date | count
    raw: str
    value: str  # normalised, comparable


def _norm_number(raw: str) -> str:
    s = raw.lower().replace(",", "").replace(" ", "")
    m = re.search(r"\d+(?:\.\d+)?", s)
    if not m:
        return s
    num = float(m.group(0))
    rest = s[m.end() :]
    mult = 1.0
    if rest.startswith(("k", "thousand")):
        mult = 1e3
    elif rest.startswith(("bn", "b", "billion")):
        mult = 1e9
    elif rest.startswith(("m", "million")):
        mult = 1e6
    cur = ""
    for sym, code in (("$", "usd"), ("€", "eur"), ("£", "gbp"), ("¥", "jpy"), ("usd", "usd"), ("dollar", "usd"),
                      ("eur", "eur"), ("gbp", "gbp"), ("pound", "gbp")):
        if sym in s:
            cur = code
            break
    return f"{cur}{num * mult:.6g}"


def figures(text: str) -> list[Figure]:
    out = []
    for m in FIGURE.finditer(text):
        kind = m.lastgroup or "count"
        raw = m.group(0).strip()
        if kind == "count":
            # Years, quarter numbers and list ordinals are not counts of anything.
            if re.fullmatch(r"(19|20)\d{2}", raw) or len(raw.replace(",", "")) == 0:
                continue
            before = text[max(0, m.start() - 2) : m.start()]
            if before.endswith(("Q", "H", "v", "#", "L")) or before.endswith("FY"):
                continue
        value = raw if kind == "date" else _norm_number(raw)
        out.append(Figure(kind, raw, value))
    return out


@dataclass(frozen=True)
class Measure:
    subject: str  # entity path or name
    measure: str
    period: str
    kind: str
    value: str
    raw: str

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.subject, self.measure, self.period, self.kind)


def measures_in(text: str, subjects: Sequence[str]) -> list[Measure]:
    """(subject, measure, period, figure) facts stated in one line. A line yields a measure only when
    it names exactly one subject and one measure word, so that two different quantities in one line
    are never compared with each other."""
    if len(subjects) != 1:
        return []
    return list(_measures_in(text, subjects[0]))


@lru_cache(maxsize=65536)
def _measures_in(text: str, subject: str) -> tuple[Measure, ...]:
    # Cached: the same old cited lines are re-measured by every capture that touches their page.
    return tuple(_measures_uncached(text, [subject]))


def _measures_uncached(text: str, subjects: Sequence[str]) -> list[Measure]:
    low = text.lower()
    kinds = measure_kinds(low)
    if not kinds:
        return _generic_measures(text, subjects[0])
    if {"launch", "launch plan"} <= set(kinds):
        kinds = [k for k in kinds if k != "launch plan"]
    if len(kinds) != 1:
        # 'ARR' also reads as 'revenue': prefer the more specific measure.
        if set(kinds) >= {"arr", "revenue"} and len(kinds) == 2:
            kinds = ["arr"]
        elif set(kinds) >= {"mrr", "revenue"} and len(kinds) == 2:
            kinds = ["mrr"]
        else:
            return []
    periods = sorted({" ".join(p.group(0).split()) for p in PERIOD.finditer(text)})
    figs = [f for f in figures(text) if f.kind != "date" or kinds[0].startswith("launch")]
    # Figures that are the period itself (a bare year) are already dropped by figures().
    by_kind: dict[str, list[Figure]] = {}
    for f in figs:
        by_kind.setdefault(f.kind, []).append(f)
    out = []
    for kind, fs in sorted(by_kind.items()):
        if len(fs) != 1:
            continue
        if kind == "date":
            period = ""
        else:
            period = periods[0] if len(periods) == 1 else ("" if not periods else "|".join(periods))
        out.append(Measure(subjects[0], kinds[0], period, kind, fs[0].value, fs[0].raw))
    return out


def row_measures(cells: Sequence[str], header: Sequence[str], subject: str) -> list[Measure]:
    """Measures of a table row: the first cell names the measure, each header cell the period."""
    if len(cells) < 2 or len(header) != len(cells):
        return []
    low = cells[0].lower()
    kinds = measure_kinds(low)
    if len(kinds) != 1:
        return []
    out = []
    for cell, head in zip(cells[1:], header[1:], strict=True):
        periods = [" ".join(p.group(0).split()) for p in PERIOD.finditer(head)]
        if len(periods) != 1:
            continue
        # "$1.2M, up 40% QoQ": one figure of each kind in a cell is one measure each.
        by_kind: dict[str, list[Figure]] = {}
        for f in figures(cell):
            if f.kind != "date":
                by_kind.setdefault(f.kind, []).append(f)
        for kind, fs in sorted(by_kind.items()):
            if len(fs) == 1:
                out.append(Measure(subject, kinds[0], periods[0], kind, fs[0].value, fs[0].raw))
    return out


_GENERIC = re.compile(
    r"\b(?P<subj>[A-Za-z]{3,})(?:'s|’s)?\s+(?:covers|covered|has|had|includes|included|spans|spanned|serves|served|"
    r"reached|reaches|totals|totalled|totaled)\s+(?:about\s+|around\s+|roughly\s+|approximately\s+)?"
    r"(?P<num>\d[\d,]*)\s+(?P<unit>[a-z]{3,})\b"
)
_VAGUE = {"it", "this", "that", "which", "who", "she", "they", "one", "each", "team", "everyone", "now", "also",
          "still", "already", "only", "and", "but", "what", "there", "here"}


def _generic_measures(text: str, subject: str) -> list[Measure]:
    """'<noun> covers 37 lanes': a count of <unit> held by <noun>, compared only with the same noun and unit."""
    out = []
    for m in _GENERIC.finditer(text):
        noun = m.group("subj").lower()
        if noun in _VAGUE or noun in STOP:
            continue
        out.append(Measure(subject, f"{noun} {m.group('unit')}", "", "count", _norm_number(m.group("num")), m.group("num")))
    return out if len(out) == 1 else []
