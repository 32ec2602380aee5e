"""Figures in context: what a stated figure is about (its subject) and when (its period), read the way a
reader would when the line alone does not say.

A figure's subject and period come from, in this order: its own line, its heading trail (innermost
heading first), its table's row label and header, the sentence before it, the document's title, and the
document's front matter. The first of these that names a subject (or a period) decides; one that names
two different ones leaves it unknown rather than guessing. Two figures contradict each other only when
subject, measure, period and kind of figure all agree and the values differ.

The old side of a comparison is re-read from its own cited source with the same function, so a pair of
sources gives the same verdict whichever was filed first (sources are immutable, so their reading is
cached per path).
"""

from __future__ import annotations

import os
import re
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stigmergy.plan.deterministic.figures import PERIOD, Measure, measures_in, row_measures
from stigmergy.plan.deterministic.names import COMMON, NameIndex, find_known, proper_name_runs
from stigmergy.plan.deterministic.statements import Unit
from stigmergy.repo import page_memo

# Front matter fields that name what a whole document is about, and ones that state its period.
SUBJECT_KEYS = ("entity", "company", "organisation", "organization", "customer", "client", "product", "subject")
PERIOD_KEYS = ("period", "quarter", "fiscal_period", "reporting_period")
# Words that mark a version of a document, not what it is about ("Quarterly report (DRAFT)").
_VERSION_WORDS = {"draft", "final", "revised", "corrected", "correction", "v1", "v2", "update", "updated", "wip"}
# Entity kinds that own figures. A person is the speaker of a figure, a place where it happens.
_NON_SUBJECT_TYPES = {"person", "place"}


@dataclass(frozen=True)
class UnitContext:
    """What surrounds one statement: heading trail (outermost first), the statement before it in the same
    section, the document's title and its front matter."""

    trail: tuple[str, ...]
    previous: str
    title: str
    front_subjects: tuple[str, ...]
    front_period: str


@dataclass(frozen=True)
class Fact:
    subject: str  # an entity or project page path, "name:<folded name>", or "" (the team's own)
    measure: Measure  # measure.subject is unused here; measure/period/kind/value as stated
    period: str

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.subject, self.measure.measure, self.period, self.measure.kind)


def unit_contexts(
    units: Sequence[Unit], headings: Sequence[tuple[int, str, int]], title: str, metadata: Mapping[str, Any]
) -> list[UnitContext]:
    subjects = tuple(_meta_values(metadata, SUBJECT_KEYS))
    periods = _meta_values(metadata, PERIOD_KEYS)
    front_period = periods[0] if len(periods) == 1 else ""
    out: list[UnitContext] = []
    hi = 0
    stack: list[tuple[int, str]] = []
    prev_unit: Unit | None = None
    for u in units:
        while hi < len(headings) and headings[hi][0] < u.start:
            _, text, level = headings[hi]
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, text))
            hi += 1
        previous = ""
        if prev_unit is not None and prev_unit.section == u.section and prev_unit.kind in ("sentence", "item"):
            previous = prev_unit.text
        out.append(UnitContext(tuple(t for _, t in stack), previous, title, subjects, front_period))
        prev_unit = u
    return out


def _meta_values(metadata: Mapping[str, Any], keys: Sequence[str]) -> list[str]:
    out: list[str] = []
    for key in keys:
        value = metadata.get(key) if isinstance(metadata, Mapping) else None
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, str | int) and str(item).strip() and len(str(item)) <= 80:
                out.append(" ".join(str(item).split()))
    return out


class SubjectResolver:
    """Names -> subject keys. `names` maps every known name and alias (and this filing's new entities) to
    a page path; `kinds` gives a path's entity type when it is an entity page."""

    def __init__(self, names: Mapping[str, str], kinds: Mapping[str, str]) -> None:
        self.names = names if isinstance(names, NameIndex) else NameIndex(names)
        self.kinds = kinds
        self.folded = NameIndex({n.casefold(): p for n, p in self.names.items() if len(n) >= 3})
        self.display: dict[str, str] = {}  # "name:<folded>" -> the name as first written

    def in_text(self, text: str, *, loose: bool = False) -> set[str]:
        """Subjects named in text (persons and places excluded). `loose` matches names case-insensitively
        with '-' and '_' as spaces (titles made from file names), and falls back to the text's own
        proper names when it names no known one."""
        hits = {p for _, p, _, _ in find_known(text, self.names)}
        if loose and not hits:
            flat = re.sub(r"[-_]+", " ", text).casefold()
            hits = {p for _, p, _, _ in find_known(flat, self.folded)}
        subjects = {p for p in hits if self.kinds.get(p, "other") not in _NON_SUBJECT_TYPES}
        if loose and not hits:
            for name, _ in proper_name_runs(text):
                words = [w for w in name.split() if w.casefold() not in _VERSION_WORDS and w not in COMMON]
                if words and not any(ch.isdigit() for ch in words[0]):
                    key = "name:" + " ".join(words).casefold()
                    self.display.setdefault(key, " ".join(words))
                    subjects.add(key)
                    break
        return subjects


def subject_of(u: Unit, ctx: UnitContext, resolver: SubjectResolver) -> str | None:
    """The subject key of a statement, or None when its context names two (ambiguous)."""
    levels: list[tuple[str, bool]] = [(u.text, False)]
    levels += [(h, False) for h in reversed(ctx.trail)]
    if u.cells:
        levels.append((u.cells[0], False))
    if ctx.previous:
        levels.append((ctx.previous, False))
    levels.append((ctx.title, True))
    for text, loose in levels:
        found = resolver.in_text(text, loose=loose)
        if len(found) == 1:
            return next(iter(found))
        if len(found) > 1:
            return None
    for name in ctx.front_subjects:
        path = resolver.names.get(name) or resolver.folded.get(name.casefold())
        if path is not None:
            return path
        resolver.display.setdefault("name:" + name.casefold(), name)
        return "name:" + name.casefold()
    return ""


def _one_period(text: str) -> str | None:
    """The single period a text names ('' when none, None when several)."""
    found = {" ".join(m.group(0).split()) for m in PERIOD.finditer(text)}
    if len(found) > 1:
        return None
    return next(iter(found), "")


def period_of(stated: str, u: Unit, ctx: UnitContext) -> str | None:
    """The period of a figure: as stated on its line (or table column), else from the context."""
    if stated:
        if re.fullmatch(r"[QH][1-4]", stated):
            # "Q2 revenue" in a Q2 2026 report: the year comes from the context.
            for text in (*reversed(ctx.trail), ctx.title, ctx.front_period):
                year = re.search(r"\b(?:19|20)\d{2}\b", _without_dates(text))
                if year:
                    return f"{stated} {year.group(0)}"
        return stated
    for text in (*reversed(ctx.trail), ctx.previous, ctx.title):
        p = _one_period(_without_dates(text))
        if p is None:
            return None
        if p:
            return p
    return ctx.front_period or ""


_DATEISH = re.compile(r"\b\d{4}-\d{2}(?:-\d{2})?\b|\b\d{1,2}\s+[A-Z][a-z]+\s+\d{4}\b")


def _without_dates(text: str) -> str:
    # A calendar date names a day, not a reporting period: "2026-05-19 email" is not "2026".
    return _DATEISH.sub(" ", text)


def facts_of(u: Unit, ctx: UnitContext, resolver: SubjectResolver) -> list[Fact]:
    """Comparable facts a statement gives. Amounts, percentages and counts need a period (from the
    line or its context); dates and '<noun> covers N <unit>' counts compare without one."""
    if u.kind == "meta":
        return []
    ms = row_measures(u.cells, u.header, "") if u.cells and u.header else measures_in(u.text, [""])
    if not ms:
        return []
    subject = subject_of(u, ctx, resolver)
    if subject is None:
        return []
    version = version_of(u, ctx)
    if version is None:
        return []
    out = []
    for m in ms:
        generic = " " in m.measure
        if m.kind == "date" or generic:
            period = m.period
        else:
            got = period_of(m.period, u, ctx)
            if not got:
                continue
            period = got
        if version:
            # "Release 7.2.0 (released Aug 17, 2023)" and "Release 7.3.0 (released ...)" are about two
            # different versions: the version is part of what the figure is about.
            period = f"{period} {version}".strip()
        out.append(Fact(subject, m, period))
    return out


# A version or release identifier: "v2.1", "version 3.0", "Release 7.2.0", "Sphinx 8.1", "7.2.0". Not an
# amount ("$1.2M", "2.5 million", "4.5%"): those are figures, not names of what a figure is about.
_VERSION = re.compile(
    r"(?:\b[vV]|\b(?:[Vv]ersion|[Rr]elease|[A-Z][\w-]*)\s+|(?<![\w.$€£¥]))"
    r"(?P<v>\d+\.\d+(?:\.\d+)*)(?![\w.]*\d)(?!\s?(?:%|[kKmMbB]\b|bn\b|million|billion|thousand|percent))"
)


def _versions(text: str) -> set[str]:
    out = set()
    for m in _VERSION.finditer(text):
        v = m.group("v")
        # A bare "1.2" is a decimal; it names a version only after v/version/release/a name, or as x.y.z.
        if v.count(".") >= 2 or not m.group(0)[0].isdigit():
            out.add(v)
    return out


def version_of(u: Unit, ctx: UnitContext) -> str | None:
    """The version a statement is about: named on its line, else in its innermost heading that names
    one ('' when none, None when its line names several)."""
    found = _versions(u.text)
    if len(found) > 1:
        return None
    if found:
        return next(iter(found))
    for heading in reversed(ctx.trail):
        found = _versions(heading)
        if len(found) == 1:
            return next(iter(found))
    return ""


# ------------------------------------------------------------------------------------ source readings


@dataclass(frozen=True)
class SourceReading:
    units: tuple[Unit, ...]
    contexts: tuple[UnitContext, ...]
    by_range: dict[tuple[int, int], tuple[int, ...]]  # (first line, last line) -> unit indexes (sentences share lines)


def read_units(
    units: Sequence[Unit], headings: Sequence[tuple[int, str, int]], title: str, metadata: Mapping[str, Any]
) -> SourceReading:
    return _reading(units, unit_contexts(units, headings, title, metadata))


def _reading(units: Sequence[Unit], contexts: Sequence[UnitContext]) -> SourceReading:
    by_range: dict[tuple[int, int], tuple[int, ...]] = {}
    for i, u in enumerate(units):
        by_range[(u.start, u.end)] = (*by_range.get((u.start, u.end), ()), i)
    return SourceReading(tuple(units), tuple(contexts), by_range)


_READINGS: OrderedDict[tuple[str, str], SourceReading | None] = OrderedDict()
_MAX_READINGS = 4096


_CANONICAL: OrderedDict[tuple[str, str], bool] = OrderedDict()


def source_canonical(root: Path, relpath: str) -> bool:
    """Whether the source page at `relpath` is canonical (re-rendering gives its bytes): what a strict
    parse checks, asked only of the sources a disagreement would cite. Kept per path, as readings are."""
    key = (str(root), relpath)
    if key not in _CANONICAL:
        from stigmergy.errors import ContractError
        from stigmergy.pages.source import parse_source_page

        try:
            parse_source_page((root / relpath).read_text(encoding="utf-8"), relpath)
            _CANONICAL[key] = True
        except (OSError, UnicodeDecodeError, ContractError):
            _CANONICAL[key] = False
        if len(_CANONICAL) > _MAX_READINGS:
            _CANONICAL.popitem(last=False)
    return _CANONICAL[key]


# Readings kept for the next process (repo/page_memo.py): a capture after 2,000 documents reads back ~30 cited
# sources, and a new process (a hook's one-document capture) parsed each again, markdown-it's import included.
# The name carries the rows' format: a change to Unit or UnitContext raises it.
_KEPT_READINGS = "readings-v1"


def _reading_row(r: SourceReading) -> list[Any]:
    return [[[u.text, u.start, u.end, u.section, u.kind, u.order, list(u.cells), list(u.header)] for u in r.units],
            [[list(c.trail), c.previous, c.title, list(c.front_subjects), c.front_period] for c in r.contexts]]


def _strs(value: Any) -> tuple[str, ...] | None:
    return tuple(value) if isinstance(value, list) and all(isinstance(x, str) for x in value) else None


def _reading_from(value: Any) -> SourceReading | None:
    """A reading an earlier process kept; None unless every field has its type."""
    if not (isinstance(value, list) and len(value) == 2 and isinstance(value[0], list) and isinstance(value[1], list)
            and len(value[0]) == len(value[1])):
        return None
    units, contexts = [], []
    for u, c in zip(value[0], value[1], strict=True):
        if not (isinstance(u, list) and len(u) == 8 and isinstance(c, list) and len(c) == 5):
            return None
        text, start, end, section, kind, order, cells, header = u
        trail, previous, title, subjects, period = c
        cells_t, header_t, trail_t, subjects_t = _strs(cells), _strs(header), _strs(trail), _strs(subjects)
        if not (isinstance(text, str) and type(start) is int and type(end) is int and isinstance(section, str)
                and isinstance(kind, str) and type(order) is int and cells_t is not None and header_t is not None
                and trail_t is not None and subjects_t is not None and isinstance(previous, str)
                and isinstance(title, str) and isinstance(period, str)):
            return None
        units.append(Unit(text, start, end, section, kind, order, cells_t, header_t))
        contexts.append(UnitContext(trail_t, previous, title, subjects_t, period))
    return _reading(units, contexts)


def source_reading(root: Path, relpath: str) -> SourceReading | None:
    """The statements of a source page with their contexts. Sources never change once written, so the
    reading is kept per path (least recently used dropped past a bound), and for the next process under the
    page's stamp (repo/page_memo.py)."""
    key = (str(root), relpath)
    if key in _READINGS:
        _READINGS.move_to_end(key)
        return _READINGS[key]
    kept = page_memo.rows(root, _KEPT_READINGS)
    since = page_memo.now_ns()
    try:
        stamp: tuple[int, int] | None = page_memo.stamp_of(os.stat(root / relpath))
    except OSError:
        stamp = None
    reading = _reading_from(kept.take(relpath, stamp)) if stamp is not None else None
    if reading is None:
        reading = _read_source(root, relpath)
        if reading is not None and stamp is not None:
            kept.keep(relpath, stamp, _reading_row(reading), since)
    _READINGS[key] = reading
    if len(_READINGS) > _MAX_READINGS:
        _READINGS.popitem(last=False)
    return reading


def _read_source(root: Path, relpath: str) -> SourceReading | None:
    from stigmergy.errors import ContractError
    from stigmergy.pages.source import parse_source_page
    from stigmergy.plan.deterministic.statements import split_units

    try:
        text = (root / relpath).read_text(encoding="utf-8")
        # Not re-rendered here: most sources read back state nothing in dispute, and a reading is only
        # used as a side of a disagreement once `source_canonical` says it is a canonical page.
        page = parse_source_page(text, relpath, canonical=False)
    except (OSError, UnicodeDecodeError, ContractError):
        return None
    # The text's first line from the file itself (`page.body_start_line` renders the front matter
    # again to count it; the same number for the canonical page `source_canonical` asks for).
    start = text.count("\n", 0, len(text) - len(page.text)) + 1
    units, headings = split_units(page.text.split("\n"), start)
    return read_units(units, headings, page.title, page.metadata)
