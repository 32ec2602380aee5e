"""Which X has the most: a question that asks for the top of a table is answered by the row that holds the
largest figure, not by the table's header nor by whichever row shares the most words with the question
("which country did the most survey participants come from": the header "Country Name | Number of
participants" is what the question's words find; the answer is the row with the most participants)."""

from __future__ import annotations

import re

from stigmergy.answer.compose import cells
from stigmergy.answer.evidence import Line
from stigmergy.answer.terms import stem, stems

# "the most", "the highest", "came out on top"; not "at most" (a bound) nor "the most recent" (a date)
_MOST_RE = re.compile(r"\b(?:most|highest|largest|biggest|greatest|top)\b(?!\s+(?:recent|recently|likely))", re.I)
_BOUND_RE = re.compile(r"\bat (?:the )?most\b|\bup to\b|\bmost recent", re.I)
# What a question about the top of a table asks for: a row's name, not a figure, a date or a yes or no.
_ROW_KINDS = frozenset("thing place person org project product value".split())
_TOTAL_RE = re.compile(r"^\W*(?:grand\s+)?(?:total|sum|overall|all)\b", re.I)
_FIGURE_RE = re.compile(r"^[\s_*]*[£$€]?\s*(\d[\d,]*(?:\.\d+)?)\s*%?[\s_*]*$")


def asks_most(question: str, kind: str) -> bool:
    return kind in _ROW_KINDS and bool(_MOST_RE.search(question)) and not _BOUND_RE.search(question)


def _figure(cell: str) -> float | None:
    m = _FIGURE_RE.match(cell)
    return float(m.group(1).replace(",", "")) if m else None


def top_row(line: Line, lines: tuple[Line, ...], question: str) -> Line | None:
    """The row of `line`'s table (`line` is its header or one of its rows) with the largest figure in the
    column the question speaks of, or in the only column of figures; None when there is no single such row."""
    if not line.text.lstrip().startswith("|"):
        return None
    header = line.before if line.before.lstrip().startswith("|") else line.text
    rows = [ln for ln in lines if ln.page == line.page and ln.before == header and ln.text.lstrip().startswith("|")
            and ln.text != header and not _TOTAL_RE.match(cells(ln.text)[0])]
    head = cells(header)
    table = [cells(r.text) for r in rows]
    if len(rows) < 2 or any(len(t) != len(head) for t in table):
        return None
    columns = [i for i in range(1, len(head)) if sum(_figure(t[i]) is not None for t in table) > len(table) / 2]
    asked = stems(question)
    named = [i for i in columns if {stem(w) for w in head[i].split()} & asked]
    column = named[0] if len(named) == 1 else columns[0] if len(columns) == 1 else None
    if column is None:
        return None
    figures = [(_figure(t[column]), r) for t, r in zip(table, rows, strict=True)]
    known = sorted(((f, r) for f, r in figures if f is not None), key=lambda p: -p[0])
    if len(known) >= 2 and known[0][0] == known[1][0]:
        return None  # a tie has no single top
    return known[0][1] if known else None
