"""Later and final beat earlier and draft. When the line that would answer rests on one side of a
disagreement, the answer gives the other side if it is the later or final one, and shows the loser as
superseded, both cited:

1. a contradiction block on a page read for the answer whose claim the line rests on: a resolved block
   answers with its resolution (and the claim whose figures the resolution states); an open one with its
   later claim (by date);
2. a line resting only on sources titled as drafts (DRAFT, preliminary, provisional) when an eligible line
   rests on a source of the same title marked final (or simply later);
3. for figures and dates: a near-tied eligible line restating the same thing (most of the same question
   words and of its own words) with another value from a later source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from stigmergy.answer.evidence import Cite, Line
from stigmergy.answer.select import Scored
from stigmergy.answer.series import release
from stigmergy.answer.terms import fold, stems
from stigmergy.gates.figures import figures
from stigmergy.repo.containment import read_contained
from stigmergy.repo.layout import classify

DRAFT_RE = re.compile(r"\b(draft|preliminary|provisional|unreviewed|work in progress|wip|unaudited)\b", re.I)
FINAL_RE = re.compile(r"\b(final|revised|corrected|amended|audited|approved|signed[- ]off|v\d+ final)\b", re.I)
LATER_RATIO = 0.9  # rule 3: the later line scores at least this share of the best
SAME_WORDS = 0.5  # rule 3: the two lines share at least this share of their words
RESTATED = 0.6  # rule 3: … and when they share this much, the later one may score down to RESTATED_RATIO
RESTATED_RATIO = 0.75
NOTE_RATIO = 0.85  # a later release's note wins when it scores at least this share of the best


@dataclass
class Decision:
    lines: list[Line]  # what the answer says (one line, or a claim and its resolution)
    superseded: list[dict[str, Any]] = field(default_factory=list)


def title_key(title: str) -> str:
    t = DRAFT_RE.sub(" ", FINAL_RE.sub(" ", fold(title)))
    return " ".join(re.sub(r"[()\[\]{}:—–\-,.]", " ", t).split())


def _is_draft(line: Line) -> bool:
    titles = line.sources or (line.title,)
    return bool(titles) and all(DRAFT_RE.search(t) for t in titles)


def _is_final(line: Line) -> bool:
    return any(FINAL_RE.search(t) for t in (line.sources or (line.title,)))


def _keys(line: Line) -> set[str]:
    return {title_key(t) for t in (line.sources or (line.title,))}


def _rests_on(line: Line, claim: dict[str, Any]) -> bool:
    if " ".join(fold(line.text).split()) == " ".join(fold(claim["text"]).split()):
        return True
    # By citation, a line that cites the claim's lines among others must also speak of what the claim does: a
    # note's "Headcount — Q2 2026: 58" citing a whole table rests on its headcount row, not on its revenue row.
    return any(c.path == claim["path"] and c.start <= claim["end"] and claim["start"] <= c.end for c in line.cites) \
        and bool(_words(line.text) & _words(claim["text"]))


def _words(text: str) -> frozenset[str]:
    return frozenset(w for w in stems(text) if not any(ch.isdigit() for ch in w))


def _values(text: str) -> frozenset[str]:
    return frozenset(f for _, forms in figures(text) for f in forms)


def _cite_lines(root: Path, layers: tuple[str, ...], path: str, start: int, end: int) -> Cite | None:
    """A source's lines, read only when the path is a source page of a layer the reader may read."""
    kind = classify(path)
    if kind is None or kind[0] != "source" or kind[1] not in layers:
        return None
    text = read_contained(root, path, errors="replace")
    if text is None:
        return None
    lines = text.split("\n")
    if not 1 <= start <= end <= len(lines):
        return None
    return Cite(path, start, end, "\n".join(lines[start - 1 : end]))


def _title_line(root: Path, layers: tuple[str, ...], path: str) -> Cite | None:
    kind = classify(path)
    if kind is None or kind[0] != "source" or kind[1] not in layers:
        return None
    text = read_contained(root, path, errors="replace") or ""
    for i, t in enumerate(text.split("\n")[:200], 1):
        if t.startswith("# "):
            return Cite(path, i, i, t)
    return None


def _claim_line(claim: dict[str, Any], page: str, root: Path, layers: tuple[str, ...], like: Line) -> Line | None:
    cite = _cite_lines(root, layers, claim["path"], claim["start"], claim["end"])
    if cite is None:
        return None
    return Line(page, like.title, "note", like.layer, like.line, claim["text"], claim["text"], like.headings,
                (cite,), like.rank, date=claim.get("date", ""), sources=())


def superseded_entry(line: Line, why: str, date: str = "") -> dict[str, Any]:
    cites = [c for c in line.cites]
    if line.type != "source":
        cites.insert(0, line.wiki_cite)
    return {"text": line.text, "date": date or line.date, "why": why,
            "citations": [{"path": c.path, "lines": [c.start, c.end], "text": c.text} for c in dict.fromkeys(cites)]}


def _line_for(claim: dict[str, Any], scored: list[Scored], pool: tuple[Line, ...], page: str, root: Path,
              layers: tuple[str, ...], like: Line) -> Line | None:
    for s in scored:
        if s.eligible and _rests_on(s.line, claim):
            return s.line
    for ln in pool:
        if _rests_on(ln, claim):
            return ln
    return _claim_line(claim, page, root, layers, like)


def decide(top: Scored, scored: list[Scored], pool: tuple[Line, ...], blocks: tuple[dict[str, Any], ...],
           root: Path, layers: tuple[str, ...], slot_kind: str, question: str = "") -> Decision:
    line = top.line
    for con in blocks:
        claims = con.get("claims", [])
        mine = [c for c in claims if _rests_on(line, c)]
        if not mine:
            continue
        if con.get("status") == "resolved" and con.get("resolution"):
            return _resolved(con, line, scored, pool, root, layers)
        dates = [c.get("date", "") for c in claims]
        if len(set(dates)) < 2:
            continue  # the same date on both sides: nothing says which is later; the block is reported
        later = max(range(len(claims)), key=lambda i: dates[i])
        if claims[later] in mine:
            return Decision([line], [superseded_entry(_claim_line(c, con["page"], root, layers, line) or line,
                                                      f"an earlier claim ({c.get('date', '')}); sources disagree: "
                                                      f"{con.get('subject', '')}", c.get("date", ""))
                                     for i, c in enumerate(claims) if i != later
                                     and _claim_line(c, con["page"], root, layers, line) is not None])
        winner = _line_for(claims[later], scored, pool, con["page"], root, layers, line)
        if winner is None:
            continue
        winner = replace(winner, date=winner.date or dates[later])
        return Decision([winner], [superseded_entry(line, f"a later source ({dates[later]}) says otherwise: "
                                                          f"{con.get('subject', '')}", mine[0].get("date", ""))])
    noted = _later_note(top, scored) if slot_kind == "yesno" or _NOW_ASKED_RE.search(question) else None
    if noted is not None:
        lost = [superseded_entry(line, f"{line.note}; a later release's note says otherwise ({noted.line.note})")
                ] if line.note else []
        return Decision([noted.line], lost)
    if _is_draft(line):
        for s in scored:
            # The final version's line must say what the draft's says, as fully: a forecast for the next quarter
            # in the final report ("Expect … ARR of about £9.2M at the end of Q3") does not correct the draft's
            # "ARR at quarter end — Q2 2026: £8.2M".
            if s.eligible and s.line is not line and not _is_draft(s.line) and (_keys(s.line) & _keys(line)) \
                    and (_is_final(s.line) or s.line.date > line.date) and _values(s.line.text) != _values(line.text) \
                    and s.fill >= top.fill and len(set(s.matched) & set(top.matched)) * 2 >= len(top.matched):
                return Decision([s.line], [superseded_entry(line, "a draft; the final version says otherwise")])
    elif _is_final(line):
        for s in scored:
            if s.eligible and _is_draft(s.line) and (_keys(s.line) & _keys(line)) and s.score >= 0.8 * top.score \
                    and _values(s.line.text) != _values(line.text) and _values(s.line.text):
                return Decision([line], [superseded_entry(s.line, "a draft; the final version says otherwise")])
    if slot_kind in ("quantity", "date") and line.date:
        mine_words = stems(line.text)
        for s in scored:
            other = s.line
            if not s.eligible or other is line or not other.date or other.date <= line.date:
                continue
            if set(other.sources) & set(line.sources) or _values(other.text) == _values(line.text):
                continue
            theirs = stems(other.text)
            overlap = len(mine_words & theirs) / max(1, min(len(mine_words), len(theirs)))
            # A restatement (most words shared) from a later source wins even a little below the best.
            if overlap < SAME_WORDS or s.score < (RESTATED_RATIO if overlap >= RESTATED else LATER_RATIO) * top.score:
                continue
            if len(set(s.matched) & set(top.matched)) * 2 < len(top.matched):
                continue
            return Decision([other], [superseded_entry(line, f"an earlier source ({line.date}); a later one "
                                                             f"({other.date}) says otherwise")])
    return Decision([line])


# A question about what holds now ("can I still use …", "does pip use … nowadays"): a change note speaks of it.
# Not "how does pip know …": a line that says how is the answer, whatever a release note near it changed.
_NOW_ASKED_RE = re.compile(r"\b(?:still|anymore|any more|any longer|no longer|nowadays|these days|currently|"
                           r"current|now|latest|today)\b", re.I)


def _later_note(top: Scored, scored: list[Scored]) -> Scored | None:
    """A release note on the same page that speaks of what the best line speaks of, near tied with it, from a
    later release than the best line's own note (or when it has none): "Changed in version 22.1: The
    --use-deprecated=out-of-tree-build option has been removed" is the answer to "can I still use it", not the
    21.3 note that added it nor the text the change notes amend."""
    line = top.line
    mine = release(line.note)
    found = [s for s in scored if s.eligible and s.line is not line and s.line.page == line.page and s.line.note
             and s.score >= NOTE_RATIO * top.score and release(s.line.note) > mine
             and set(s.matched) & set(top.matched)]
    return max(found, key=lambda s: (release(s.line.note), s.score), default=None)


def _resolved(con: dict[str, Any], line: Line, scored: list[Scored], pool: tuple[Line, ...], root: Path,
              layers: tuple[str, ...]) -> Decision:
    res = con["resolution"]
    said = _values(res.get("rationale", ""))
    claims = con.get("claims", [])
    winner_i = next((i for i, c in enumerate(claims) if _values(c["text"]) and _values(c["text"]) <= said), None)
    out: list[Line] = []
    if winner_i is not None:
        won = _line_for(claims[winner_i], scored, pool, con["page"], root, layers, line)
        if won is not None:
            out.append(won)
    title = _title_line(root, layers, res.get("path", ""))
    rationale = f"Resolved {res.get('date', '')}: {res.get('rationale', '')}".strip()
    out.append(Line(con["page"], line.title, "note", line.layer, line.line, rationale, rationale, line.headings,
                    (title,) if title else (), line.rank, date=res.get("date", "")))
    lost = []
    for i, c in enumerate(claims):
        if i == winner_i:
            continue
        cl = _claim_line(c, con["page"], root, layers, line)
        if cl is not None:
            lost.append(superseded_entry(cl, f"resolved on {res.get('date', '')}: {con.get('subject', '')}",
                                         c.get("date", "")))
    return Decision(out, lost)
