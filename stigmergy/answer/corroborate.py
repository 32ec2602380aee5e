"""Other sources that state an answer's value, cited with it: "delayed by up to 47 minutes" quoted from the investor
letter also cites the status page that says the same. A reader sees how many sources agree, and the answer rests on
the fact, not on whichever of its sources the scores put first.

A line corroborates the quoted one only when it would answer the part itself (eligible, scoring at least
CORROBORATING_SHARE of the quoted line and the threshold), rests on other sources, and states the same value of the
asked kind: the same date or figure (one's values all said by the other's text), or the same entities. Kinds with no
such value (a reason, a procedure, a definition, yes or no) are quoted from their one line, as before.
"""

from __future__ import annotations

from stigmergy.answer.evidence import Line
from stigmergy.answer.names import Names, words
from stigmergy.answer.question import Slot
from stigmergy.answer.select import Scored
from stigmergy.answer.values import Asked, dates_in, figures_in, is_new_name

MAX_CORROBORATING = 2  # more sources than this make a citation list, not an answer
CORROBORATING_SHARE = 0.8  # of the quoted line's score: a line that answers nearly as well on its own


def _said(text: str) -> str:
    return " ".join(words(text))


def _values(slot: Slot, text: str, names: Names, q: Asked) -> tuple[set[str], set[int]]:
    """(the dates or figures of the asked kind, folded; the entities of the asked kind) that `text` gives and the
    question does not."""
    if slot.kind == "date":
        return {_said(v) for v in dates_in(text, q)} - {""}, set()
    if slot.kind == "quantity":
        return {_said(v) for v in figures_in(text, q, slot.unit)} - {""}, set()
    if slot.named:
        return set(), {e.page for _, _, e in names.found(text) if e.page not in q.entities and is_new_name(e.title, q)}
    return set(), set()


def _agree(slot: Slot, quoted: Line, other: Line, names: Names, q: Asked,
           known: tuple[set[str], set[int]] | None = None) -> bool:
    """`known`: the quoted line's own values, when the caller has read them already."""
    mine, my_ents = known if known is not None else _values(slot, quoted.text, names, q)
    theirs, their_ents = _values(slot, other.text, names, q)
    if my_ents or their_ents:
        # The same names, no more: "Ines Carvalho handed the team over to Samuel Achterberg" names Ines too, and says
        # something else of her.
        return bool(my_ents) and my_ents == their_ents
    if not mine or not theirs:
        return False
    # "Tuesday 2 June 2026" and "2 June 2026" are one date: one line's values all said in the other's words.
    return all(v in _said(other.text) for v in mine) or all(v in _said(quoted.text) for v in theirs)


def _sources(line: Line) -> set[str]:
    return {c.path for c in line.cites}


def corroborating(quoted: Line, top: Scored, scored: list[Scored], slot: Slot, names: Names, q: Asked,
                  threshold: float) -> list[Line]:
    """At most MAX_CORROBORATING other lines that state `quoted`'s value, best first."""
    floor = max(threshold, CORROBORATING_SHARE * top.score)
    seen = _sources(quoted)
    mine = _values(slot, quoted.text, names, q)  # read once, not once per candidate
    out: list[Line] = []
    for sc in scored:
        if len(out) >= MAX_CORROBORATING or sc.score < floor:
            break
        line = sc.line
        if not sc.eligible or sc.via_context or not _sources(line) or _sources(line) & seen:
            continue
        if not _agree(slot, quoted, line, names, q, mine):
            continue
        seen |= _sources(line)
        out.append(line)
    return out


def also_said(lines: list[Line]) -> list[dict[str, str]]:
    """The sources the corroborating lines rest on, by title and path, as the answer names them."""
    out: dict[str, str] = {}
    for line in lines:
        paths = list(dict.fromkeys(c.path for c in line.cites))
        # A wiki line knows its sources' titles in the order it cites them; when they do not pair up, its own
        # page's title names them.
        titles = list(line.sources) if line.type != "source" and len(line.sources) == len(paths) else \
            [line.title] * len(paths)
        for path, title in zip(paths, titles, strict=True):
            out.setdefault(path, title)
    return [{"title": t, "path": p} for p, t in out.items()]
