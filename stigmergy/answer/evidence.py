"""The lines an answer may rest on: the search hits' fragments (with their neighbours), read through the
same scoped `read_pages` the CLI's `read` uses, each wiki line with the source lines it cites and each
source line citing itself."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stigmergy.errors import NotFoundError
from stigmergy.gates.figures import claim_text
from stigmergy.index.reads import MAX_READS, read_pages
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

    @property
    def wiki_cite(self) -> Cite:
        return Cite(self.page, self.line, self.line, self.raw)

    def support_text(self) -> str:
        """Everything this line may be checked against: itself and the lines it cites."""
        return "\n".join([self.text, *(c.text for c in self.cites)])


@dataclass(frozen=True)
class Evidence:
    lines: tuple[Line, ...]
    pages: tuple[dict[str, Any], ...]  # read_pages' page objects, in search order
    index: dict[str, Any] | None


def _fragment_refs(hits: list[dict[str, Any]]) -> list[str]:
    return [f"{h['path']}#{h['fragment']}" for h in hits]


def _read(root: Path, settings: Settings, reader: str, refs: list[str]) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    pages: list[dict[str, Any]] = []
    index = None
    for i in range(0, len(refs), MAX_READS):
        batch = refs[i : i + MAX_READS]
        try:
            got = read_pages(root, settings, reader, batch, evidence=True)
            pages.extend(got["pages"])
            index = got["index"]
        except NotFoundError:
            # A page the index still lists may be gone from the working tree (a stale index): read the others.
            for ref in batch:
                try:
                    got = read_pages(root, settings, reader, [ref], evidence=True)
                except NotFoundError:
                    continue
                pages.extend(got["pages"])
                index = got["index"]
    return pages, index


def _headings(page: dict[str, Any], line: int) -> tuple[str, ...]:
    for frag in page["fragments"]:
        a, b = frag["lines"]
        if a <= line <= b:
            return tuple(frag["headings"])
    return ()


def _is_claim(raw: str) -> bool:
    s = raw.strip()
    return bool(s) and not s.startswith(("#", ">", "<!--", "```", "|---", "| ---")) and s.strip("|-: ") != ""


_MARKER_RE = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])[\"”')]?\s+(?=[A-Z0-9£$€\"“(])")


def _source_units(content: list[str], first: int, body_from: int) -> list[tuple[int, int, str, str]]:
    """A source's text as (first line, last line, sentence, its context): hard-wrapped paragraphs and list
    items are joined, then split into sentences, each citing exactly the lines it spans; a sentence's
    context is the previous sentence of its paragraph. A table row stands alone, with the table's header
    row as its context (the row says "| Revenue | £1.88M |", the header says which quarter)."""
    blocks: list[tuple[list[tuple[int, str]], str]] = []  # (lines, the table header for a table row)
    header = ""
    in_table = False
    for offset, raw in enumerate(content):
        n = first + offset
        row = raw.lstrip().startswith("|")
        if offset < body_from or not _is_claim(raw):
            in_table = in_table and row  # a separator row (|---|) keeps the table going
            blocks.append(([], ""))
            continue
        if row:
            if not in_table:
                header, in_table = raw.strip(), True
                blocks.append(([(n, raw.strip())], ""))
            else:
                blocks.append(([(n, raw.strip())], header))
            blocks.append(([], ""))
            continue
        in_table = False
        if not blocks or not blocks[-1][0] or _MARKER_RE.match(raw):
            blocks.append(([], ""))
        blocks[-1][0].append((n, raw.strip()))
    units: list[tuple[int, int, str, str]] = []
    for block, table_header in blocks:
        if not block:
            continue
        text, starts = "", []
        for n, part in block:
            starts.append((len(text), n))
            text += part + " "
        pos = 0
        previous = table_header
        for piece in _SENTENCE_END_RE.split(text.rstrip()):
            at = text.index(piece, pos)
            end = at + len(piece)
            pos = end
            a = max(n for off, n in starts if off <= at)
            b = max(n for off, n in starts if off < end)
            units.append((a, b, piece.strip(), previous))
            previous = piece.strip()
    return units


def gather(root: Path, settings: Settings, reader: str, hits: list[dict[str, Any]]) -> Evidence:
    pages, index = _read(root, settings, reader, _fragment_refs(hits))
    lines: list[Line] = []
    seen: set[tuple[str, int, str]] = set()
    for rank, page in enumerate(pages, 1):
        first = page["lines"][0]
        content = page["content"].split("\n")
        if page["type"] == "source":
            # The H1 is the title, not a statement of the source.
            body_from = next((i + 1 for i, t in enumerate(content) if t.startswith("# ")), 0)
            for a, b, sentence, before in _source_units(content, first, body_from):
                text = claim_text(sentence).strip()
                if not text or (page["path"], a, text) in seen:
                    continue
                seen.add((page["path"], a, text))
                cited = "\n".join(content[a - first : b - first + 1])
                lines.append(Line(page["path"], page["title"], page["type"], page["layer"], a, sentence, text,
                                  _headings(page, a), (Cite(page["path"], a, b, cited),), rank, before))
            continue
        evidence = {e["line"]: e for e in page.get("evidence", [])}
        for offset, raw in enumerate(content):
            n = first + offset
            ev = evidence.get(n)
            if ev is None or not _is_claim(raw):
                continue  # a wiki line without a citation states nothing an answer may rest on
            text = claim_text(raw).strip()
            if not text or (page["path"], n, text) in seen:
                continue
            seen.add((page["path"], n, text))
            cites = tuple(Cite(c["path"], c["lines"][0], c["lines"][1], c["text"])
                          for c in ev["cites"] if c["text"] is not None)
            lines.append(Line(page["path"], page["title"], page["type"], page["layer"], n, raw, text,
                              _headings(page, n), cites, rank))
    return Evidence(tuple(lines), tuple(pages), index)
