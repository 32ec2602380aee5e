"""The deterministic answerer: score the evidence lines against the question, refuse below the evidence
threshold, otherwise keep the best lines, grouped by page (best page first, lines in page order).

A line's score is the share of the question's weight (idf over the reader's fragments) that the line
supports, where a term counts in full when the line itself says it and at `CONTEXT_CREDIT` when only its
context does: the page title, the heading trail, for a source sentence the sentence before it, and for a
table row its header row ("Revenue — Q1 2026: £1.88M" under "Quarterly report — Q1 2026"). The question's figures (Q1, 2026, 4.0)
are constraints, not weight: each must be in the line or its context, exactly. A name the line does not
say counts half when it is one of the wiki's recurring subjects (in at least 5% of the reader's
fragments: "Lanternfish Labs' revenue" in a company wiki), since those are mostly implied, never said.
A line is eligible only when
- it says at least one of the question's words that is neither a name nor a figure itself (a line that
  merely shares the names answers nothing about them),
- every figure of the question is in the line or its context,
- it holds the kind of thing the question asks for: a date for `when`, a number for `how many/much/long`.
The answer is given when the best eligible line scores at least `ANSWER_THRESHOLD`; other lines join it
when they score at least `KEEP_RATIO` of the best. Documented in docs/agents.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stigmergy.answer.evidence import Line
from stigmergy.answer.terms import Term, stems
from stigmergy.gates.figures import figures

ANSWER_THRESHOLD = 0.6
KEEP_RATIO = 0.85
CONTEXT_CREDIT = 0.7
MAX_LINES = 6

_WHEN = re.compile(r"^\s*(when|what (date|day|year|month)|on what (date|day)|since when|by when)\b", re.I)
_NUMBER = re.compile(r"\bhow (many|much|long|large|big|often|old|far)\b|\bwhat (percentage|share|number|amount)\b", re.I)
_DATE_WORD = re.compile(r"\b(january|february|march|april|may|june|july|august|september|october|november|december|"
                        r"jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|q[1-4]|monday|tuesday|wednesday|"
                        r"thursday|friday|saturday|sunday|today|yesterday|week)\b", re.I)


@dataclass(frozen=True)
class Scored:
    line: Line
    score: float
    matched: tuple[str, ...]


def expects(question: str) -> str | None:
    if _WHEN.search(question):
        return "date"
    if _NUMBER.search(question):
        return "number"
    return None


def _has_kind(text: str, kind: str | None) -> bool:
    if kind is None:
        return True
    found = figures(text)
    if kind == "number":
        return bool(found)
    return any(any(f.startswith(("d:", "m:", "md:")) for f in forms) for _, forms in found) or bool(
        _DATE_WORD.search(text)) or bool(re.search(r"(?<!\d)(19|20)\d\d(?!\d)", text))


def score_line(line: Line, terms: list[Term], kind: str | None) -> Scored | None:
    own = stems(line.text)
    context = stems(" ".join([line.title, *line.headings, line.before]))
    weighed = [t for t in terms if not t.figure]
    total = sum(t.weight for t in weighed)
    got = 0.0
    matched: list[str] = []
    said_topic = False
    for t in terms:
        if t.stem in own:
            matched.append(t.word)
            if not t.figure:
                got += t.weight
                said_topic = said_topic or not t.name
        elif t.stem in context:
            matched.append(t.word)
            if not t.figure:
                got += CONTEXT_CREDIT * t.weight
        elif t.figure:
            return None  # a figure the question names (Q1, 2026) is a constraint, not a hint
        elif t.name and t.common:
            total -= t.weight / 2
    if not said_topic and any(not (t.name or t.figure) for t in terms):
        return None
    if not _has_kind(line.text, kind):
        return None
    return Scored(line, got / total if total else 1.0, tuple(matched))


def select(lines: tuple[Line, ...], terms: list[Term], question: str, *, keep_ratio: float = KEEP_RATIO,
           max_lines: int = MAX_LINES) -> tuple[list[Scored], float]:
    """(the kept lines, best first; the best score seen, 0 when no line is eligible)."""
    if not terms:
        return [], 0.0
    kind = expects(question)
    scored = [s for s in (score_line(ln, terms, kind) for ln in lines) if s is not None]
    if not scored:
        return [], 0.0
    # Ties go to the better search rank, then to page order: deterministic for the same index.
    scored.sort(key=lambda s: (-round(s.score, 6), s.line.rank, s.line.page, s.line.line))
    best = scored[0].score
    if best < ANSWER_THRESHOLD:
        return [], best
    kept: list[Scored] = []
    said: set[str] = set()
    for s in scored:
        if s.score < keep_ratio * best or len(kept) >= max_lines:
            break
        key = " ".join(s.line.text.casefold().split())
        if key in said:
            continue  # the note and the entity page often carry the same cited line
        said.add(key)
        kept.append(s)
    return kept, best


def group(kept: list[Scored]) -> list[list[Scored]]:
    """By page, pages in the order of their best line, lines in page order."""
    order: list[str] = []
    by_page: dict[str, list[Scored]] = {}
    for s in kept:
        if s.line.page not in by_page:
            order.append(s.line.page)
            by_page[s.line.page] = []
        by_page[s.line.page].append(s)
    return [sorted(by_page[p], key=lambda s: s.line.line) for p in order]
