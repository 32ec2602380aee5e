"""The lines an answer may rest on: the search hits' fragments (with their neighbours), read through the
same scoped `read_pages` the CLI's `read` uses, each wiki line with the source lines it cites and each
source line citing itself."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stigmergy.answer.units import (
    ALSO_RE,
    AUTO_ITEM_RE,
    FOLLOW_ON_WORDS,
    GOES_ON_RE,
    NEXT_STEP_RE,
    WEB_LINK_RE,
    is_claim,
    leads_of,
    notes_of,
    row_statement,
    statement,
    units_of,
)
from stigmergy.errors import NotFoundError
from stigmergy.gates.figures import claim_text
from stigmergy.index.reads import MAX_READS, read_neighbours, read_pages
from stigmergy.layers import readable_layers
from stigmergy.pages.markdown import code_lines
from stigmergy.settings import Settings


@dataclass(frozen=True)
class Cite:
    path: str  # repository-relative: a source page, or the wiki page itself
    start: int
    end: int
    text: str  # the cited lines

    def anchor(self) -> str:
        return f"{self.path}#L{self.start}" + (f"-L{self.end}" if self.end != self.start else "")

    def to_dict(self, with_text: bool) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "lines": [self.start, self.end]}
        if with_text:
            out["text"] = self.text
        return out


@dataclass(frozen=True)
class Line:
    page: str
    title: str
    type: str
    layer: str
    line: int  # 1-based line of the page file
    raw: str
    text: str  # what the line states: no list marker, citation group or link targets
    headings: tuple[str, ...]
    cites: tuple[Cite, ...]  # the source lines it rests on (a source line: itself)
    rank: int  # the search rank of its page (1 = best)
    before: str = ""  # a source sentence's previous sentence in its paragraph, or a table row's header row
    before_cite: Cite | None = None  # the lines of `before`
    date: str = ""  # when what it rests on was said: its source's occurred_at (a wiki line: its latest source's)
    sources: tuple[str, ...] = ()  # the titles of the sources it rests on
    title_cite: Cite | None = None  # a source line: its page's title line (an answer may lean on the title)
    note: str = ""  # the release note the line sits in, as Sphinx renders it ("Changed in version 22.1")
    note_cite: Cite | None = None  # the note's directive line
    lead: str = ""  # a list item's later sentence: the lead-in of its list ("Over the two weeks at 100%:")

    @property
    def wiki_cite(self) -> Cite:
        return Cite(self.page, self.line, self.line, self.raw)

    @property
    def links(self) -> tuple[str, ...]:
        """The web addresses the line's links point at: `text` keeps a link's words and drops its target,
        which for "where do I report it" is the answer ("at the dedicated [pip issue](https://…/13281)")."""
        return tuple(dict.fromkeys(WEB_LINK_RE.findall(self.raw)))

    def support_text(self) -> str:
        """Everything this line may be checked against: itself and the lines it cites."""
        return "\n".join([self.text, *(c.text for c in self.cites)])


@dataclass(frozen=True)
class Evidence:
    lines: tuple[Line, ...]
    pages: tuple[dict[str, Any], ...]  # read_pages' page objects, in search order
    index: dict[str, Any] | None
    contradictions: tuple[dict[str, Any], ...] = ()  # every block (open and resolved) on the pages read, with "page"


def _fragment_refs(hits: list[dict[str, Any]]) -> list[str]:
    return [f"{h['path']}#{h['fragment']}" for h in hits]


# The best page of the search is read whole (every fragment) when short enough. Two pages answered the same
# questions on every set and cost 1.1-1.2x the CPU of a cold ask (more lines to embed); one costs 1.05x.
# 24 windows of the model's 256 word pieces (seventh pass, 16 before): a survey's write-up runs to 24, its
# answer two sections past the hit; 32 let one more unanswerable question be "answered" on the public set and
# was dropped (docs/agents.md). Times the neighbours a read shows on each side (one at the model's window,
# three at `[index] fragment_tokens = 96`), so that shorter fragments bound about the same length of page.
WHOLE_PAGES = 1
WHOLE_PAGE_FRAGMENTS = 24
# A best page too long to read whole (over WHOLE_PAGE_FRAGMENTS windows) often answers in a window its best did not
# show: the search names its next best (index/search.Hit.runners) and they are read too. Four gained 4 right answers
# over two on pip's read sets (2 fewer wrong, 1 more unanswerable answered; docs/agents.md, issue 19, forty-ninth
# session).
RUNNERS = 4


def _rest_of_top(pages: list[dict[str, Any]], around: int = 1) -> list[str]:
    """References to the fragments of the search's best page that its best fragment's window left out.
    The search finds the page ("Caching") by one fragment; the line that answers may sit two sections on
    ("Default paths … Windows: %LocalAppData%\\pip\\Cache"). Each reference reads a fragment with `around`
    neighbours on each side, so one in 2 × `around` + 1 is asked for."""
    refs: list[str] = []
    paths: list[str] = []
    for page in pages:
        if page["path"] in paths:
            continue
        paths.append(page["path"])
        if len(paths) > WHOLE_PAGES:
            break
        total = int(page.get("fragments_total") or 0)
        if total > WHOLE_PAGE_FRAGMENTS * around:
            continue
        shown = {f["n"] for p in pages if p["path"] == page["path"] for f in p["fragments"]}
        missing = [m for m in range(1, total + 1) if m not in shown]
        while missing:
            # The farthest fragment whose read still starts at the first one missing.
            centre = max(c for c in range(missing[0], min(total, missing[0] + around) + 1)
                         if c == missing[0] or c in missing)
            refs.append(f"{page['path']}#{centre}")
            missing = [m for m in missing if abs(m - centre) > around]
    return refs


def _read(root: Path, settings: Settings, reader: str, refs: list[str], store: Any = None
          ) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The pages `refs` name; through `store` (the search session's) when given, so that each batch does not
    open and close the index again (a warm server's `ask` made two or three reads)."""
    pages: list[dict[str, Any]] = []
    index = None
    for i in range(0, len(refs), MAX_READS):
        batch = refs[i : i + MAX_READS]
        try:
            got = read_pages(root, settings, reader, batch, evidence=True, check_freshness=False, store=store,
                             paragraphs=True)
            pages.extend(got["pages"])
            index = got["index"]
        except NotFoundError:
            # A page the index still lists may be gone from the working tree (a stale index): read the others.
            for ref in batch:
                try:
                    got = read_pages(root, settings, reader, [ref], evidence=True, check_freshness=False,
                                     store=store, paragraphs=True)
                except NotFoundError:
                    continue
                pages.extend(got["pages"])
                index = got["index"]
    return pages, index


def _headings(page: dict[str, Any], line: int) -> tuple[str, ...]:
    frags = page["fragments"]
    for frag in frags:
        a, b = frag["lines"]
        if a <= line <= b:
            return _below(page, tuple(frag["headings"]), a, line)
    # A read widened to whole paragraphs: the lines before its first fragment are of that fragment's section.
    if frags and line < frags[0]["lines"][0]:
        return tuple(frags[0]["headings"])
    if frags and line > frags[-1]["lines"][1]:
        return _below(page, tuple(frags[-1]["headings"]), frags[-1]["lines"][0], line)
    return ()


_ATX_RE = re.compile(r"^(#{2,6})\s+(.+?)\s*#*\s*$")


def _below(page: dict[str, Any], trail: tuple[str, ...], start: int, line: int) -> tuple[str, ...]:
    """The heading trail of `line`: a fragment's trail is its first section's, and a fragment that holds two short
    sections ("## Outlook for Q2 2026", then "## Risks") gave the second's lines the first's heading; a heading met
    between the fragment's start and the line takes the place of the trail's heading of its level ("## Risks": the
    trail's first). Only a place: a fragment that opens with the page's title keeps its empty trail, as the index
    fragments it (a deeper heading does not lengthen the trail either)."""
    content = page["content"].split("\n")
    first = page["lines"][0]
    code = code_lines(page["content"])  # "## step two" in a fenced shell block is no heading (cached per page)
    for n in range(max(start, first) + 1, line):
        at = n - first
        m = _ATX_RE.match(content[at]) if 0 <= at < len(content) and at not in code else None
        if m and len(m.group(1)) - 2 < len(trail):
            trail = (*trail[: len(m.group(1)) - 2], m.group(2))
    return trail


def _facts(store: Any, layers: tuple[str, ...], paths: set[str]) -> dict[str, tuple[str, str]]:
    """path -> (title, occurred_at) of the readable source pages among `paths`."""
    if store is None or not layers or not paths:
        return {}
    return {r.path: (r.title, str(r.occurred_at)[:10]) for r in store.sources_at(sorted(paths), layers)}


def _blocks(store: Any, layers: tuple[str, ...], paths: list[str]) -> tuple[dict[str, Any], ...]:
    """Every contradiction block (open and resolved) the index holds for the readable pages `paths`."""
    if store is None or not layers or not paths:
        return ()
    out = []
    for path, data in store.contradictions_at(paths, layers):
        try:
            record = json.loads(data)
        except ValueError:
            continue
        out.append({"page": path, **record})
    return tuple(out)


def follow_on(line: Line, lines: tuple[Line, ...], reason: bool = False, steps: bool = False) -> Line | None:
    """The sentence after a source sentence in its paragraph when it goes on with it and is short: an answer
    that quotes "Sales promised the Danish customer a German-language report." without "It is not on the
    roadmap." says the opposite of its source. For a *why*, a sentence that gives another reason goes on with
    it too ("The trademark search in February *also* found a conflict …" after the first reason for a rename);
    for a *how* (`steps`), one that tells the reader what to do next ("Badges are issued by the building reception
    on your first day." then "Bring a photo ID.")."""
    if line.type != "source" or not line.cites:
        return None
    at = line.cites[0]
    goes_on = (GOES_ON_RE, ALSO_RE) if reason else (GOES_ON_RE, NEXT_STEP_RE) if steps else (GOES_ON_RE,)
    return next((ln for ln in lines if ln.page == line.page and ln.before_cite is not None
                 and ln.before_cite.start == at.start and ln.before_cite.end == at.end and ln is not line
                 and not ln.text.startswith("|") and any(r.match(ln.text) for r in goes_on)
                 and len(ln.text.split()) <= FOLLOW_ON_WORDS), None)


def said_before(line: Line, lines: tuple[Line, ...]) -> Line | None:
    """The evidence line that is `line`'s sentence before (its `before_cite`), read as a line of its own."""
    at = line.before_cite
    if at is None:
        return None
    return next((ln for ln in lines if ln.page == line.page and ln.cites and ln.cites[0].start == at.start
                 and ln.cites[0].end == at.end and ln is not line), None)


def gather(root: Path, settings: Settings, reader: str, hits: list[dict[str, Any]], store: Any = None,
           also: list[str] | None = None) -> Evidence:
    """The evidence lines of the hits' fragments (and of the `also` references: the best page's next best
    fragments); with `store` (the search session's), each line also carries the titles and dates of the sources it
    rests on, and the pages' resolved contradictions come too."""
    pages, index = _read(root, settings, reader, _fragment_refs(hits), store)
    rank_of: dict[str, int] = {}
    for page in pages:
        rank_of.setdefault(page["path"], len(rank_of) + 1)
    more = _rest_of_top(pages, read_neighbours(settings))
    # the `also` references of pages the hits hold, less the fragments already read
    read = {f"{p['path']}#{f['n']}" for p in pages for f in p["fragments"]} | set(more)
    more += [ref for ref in also or [] if ref not in read and ref.rsplit("#", 1)[0] in rank_of]
    if more:
        pages.extend(_read(root, settings, reader, more, store)[0])
    layers = readable_layers(settings, reader)
    lines: list[Line] = []
    seen: set[tuple[str, int, str]] = set()
    cited_paths = {p["path"] for p in pages if p["type"] == "source"}
    for page in pages:
        for ev in page.get("evidence", []):
            cited_paths.update(c["path"] for c in ev["cites"] if c["path"])
    facts = _facts(store, layers, cited_paths)
    for page in pages:
        rank = rank_of[page["path"]]
        first = page["lines"][0]
        content = page["content"].split("\n")
        if page["type"] == "source":
            # The H1 is the title, not a statement of the source.
            body_from = next((i + 1 for i, t in enumerate(content) if t.startswith("# ")), 0)
            title_cite = Cite(page["path"], first + body_from - 1, first + body_from - 1,
                              content[body_from - 1]) if body_from else None
            title, date = facts.get(page["path"], (page["title"], ""))
            date = date or str(page["front_matter"].get("occurred_at") or "")[:10]
            notes = notes_of(page["content"], first, body_from)
            for (a, b, sentence, before, before_at, rst_heading), lead in zip(
                    units_of(page["content"], first, body_from), leads_of(page["content"], first, body_from),
                    strict=True):
                text = AUTO_ITEM_RE.sub("", claim_text(sentence)).strip()
                if not text or not (statement(text) or row_statement(text, before)) or (page["path"], a, text) in seen:
                    continue
                seen.add((page["path"], a, text))
                cited = "\n".join(content[a - first : b - first + 1])
                bcite = (Cite(page["path"], before_at[0], before_at[1],
                              "\n".join(content[before_at[0] - first : before_at[1] - first + 1]))
                         if before_at else None)
                trail = _headings(page, a)
                if rst_heading and rst_heading not in trail:
                    trail = (*trail, rst_heading)
                note, note_at = notes.get(a, ("", 0))
                lines.append(Line(page["path"], page["title"], page["type"], page["layer"], a, sentence, text,
                                  trail, (Cite(page["path"], a, b, cited),), rank, before, bcite,
                                  date, (title,), title_cite, note,
                                  Cite(page["path"], note_at, note_at, content[note_at - first]) if note else None,
                                  lead))
            continue
        evidence = {e["line"]: e for e in page.get("evidence", [])}
        for offset, raw in enumerate(content):
            n = first + offset
            ev = evidence.get(n)
            if ev is None or not is_claim(raw):
                continue  # a wiki line without a citation states nothing an answer may rest on
            text = claim_text(raw).strip()
            if not text or (page["path"], n, text) in seen:
                continue
            seen.add((page["path"], n, text))
            cites = tuple(Cite(c["path"], c["lines"][0], c["lines"][1], c["text"])
                          for c in ev["cites"] if c["text"] is not None)
            known = [facts[c.path] for c in cites if c.path in facts]
            lines.append(Line(page["path"], page["title"], page["type"], page["layer"], n, raw, text,
                              _headings(page, n), cites, rank, date=max((d for _, d in known), default=""),
                              sources=tuple(dict.fromkeys(t for t, _ in known))))
    return Evidence(tuple(lines), tuple(pages), index, _blocks(store, layers, [p["path"] for p in pages]))
