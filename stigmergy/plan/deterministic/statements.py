"""Splitting one source page into statements: each list item, sentence, table row or mail header as a
`Unit` with the file lines it came from and its section, inline markdown cleaned for copying onto a wiki
line, the wikilinks the source writes, and the plain words of a text (`terms`, with the `STOP` words it
drops). A pure function of the text: the same input gives the same statements byte for byte.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from stigmergy.pages.markdown import code_lines, code_span_ranges, mask_code_spans
from stigmergy.pages.source import is_unsure

# ---------------------------------------------------------------------------------------------- units

_LIST = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_WIKILINK = re.compile(r"\[\[([^\[\]|#]+)(?:#[^\[\]|]*)?(?:\|([^\[\]]+))?\]\]")
_MDLINK = re.compile(r"!?\[([^\[\]]*)\]\(([^()\s]*)(?:\s+\"[^\"]*\")?\)")
_COMMENT = re.compile(r"<!--.*?-->|<!--.*$")
_TAG = re.compile(r"</?[A-Za-z][^<>]{0,200}>")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]?\s+(?=[\"'(\[]?[A-Z0-9])")
_RULE = re.compile(r"^\s*(?:[-=_*~]\s*){3,}$")
# A mail or chat header ("From: Priya <p@x>", "Cc: ...", "Subject: ..."): it names people but states nothing.
_MAIL_HEADER = re.compile(r"^\s*(?:From|To|Cc|Bcc|Date|Sent|Subject|Reply-To)\s*:\s", re.I)
_ABBREV = re.compile(r"\b(?:Mr|Mrs|Ms|Dr|Prof|Inc|Ltd|Co|Corp|St|vs|etc|e\.g|i\.e|approx|No|Jr|Sr)\.$")

# "Clients/3. Cascade Foods", "see 2. Scope": a numbered item's number, not the end of a sentence.
_ORDINAL = re.compile(r"(?:^|[/(#\s])\d{1,2}\.$")

# A chat or transcript turn: "[13:25] Tomasz Wieczorek: ...", "09:14 Grace: ...", "Maya Okafor: ...".
_TURN = re.compile(
    r"^\s*(?:(?:\[[\d\-/ :T]{4,20}\]|\d{1,2}:\d{2}(?::\d{2})?)\s+[^:\n]{1,60}:\s"
    r"|[A-Z][\w'’.-]+(?:\s+[A-Z][\w'’.-]+){1,2}:\s)"
)

MAX_UNIT_CHARS = 420
# A table row as the HTML and DOCX extractors write it ("Battery backup | 72 hours | 8 hours": no outer pipes,
# no separator row). Only a run of two or more such lines with the same number of cells is a table; a run
# of three or more reads its first line as the header (the extractors keep a table's first row first).
_BARE_CELL_SEP = " | "
BARE_HEADER_ROWS = 3


@dataclass(frozen=True)
class Unit:
    """One statement of the source: cleaned text and the file lines it came from."""

    text: str
    start: int
    end: int
    section: str  # the nearest heading above it ('' at top)
    kind: str  # 'item' (list item), 'sentence' (paragraph text), 'row' (table row)
    order: int  # position in the source
    cells: tuple[str, ...] = ()  # table row cells
    header: tuple[str, ...] = ()  # the table's header cells


@dataclass(frozen=True)
class Link:
    target: str
    label: str | None


def clean_inline(text: str) -> str:
    """Markdown inline text made safe to copy onto a wiki line: links become their words (the builder
    re-links entities), HTML comments and tags go, whitespace collapses. Never adds a character that
    was not in the source line except ellipsis on an over-long line."""
    text = _COMMENT.sub(" ", text)
    text = _WIKILINK.sub(lambda m: (m.group(2) or m.group(1)).strip(), text)

    def md(m: re.Match[str]) -> str:
        label, url = m.group(1), m.group(2)
        if m.group(0).startswith("!"):
            return label
        if url.startswith(("http://", "https://")) and label.strip():
            return f"[{label}]({url})"
        return label

    text = _MDLINK.sub(md, text)
    text = _TAG.sub(" ", text)
    text = text.replace("[[", "[ [").replace("]]", "] ]")
    text = " ".join(text.split())
    if len(text) > MAX_UNIT_CHARS:
        cut = text[:MAX_UNIT_CHARS].rsplit(" ", 1)[0]
        text = cut.rstrip(",;:") + " …"
    return text


def source_links(text: str) -> list[Link]:
    """The wikilinks the source writes as links: one inside a fence, an indented code block or an inline
    code span is text (a syntax example, "`[[Entity|variant]]`", names no entity and no alias)."""
    if "[[" not in text:
        return []
    code = code_lines(text) if "```" in text or "~~~" in text or "\n    " in text or "\n\t" in text else frozenset()
    out: list[Link] = []
    lines = text.split("\n")
    for n, line in enumerate(lines):
        if "[[" not in line or n in code or _asciidoc_anchor(lines, n):
            continue
        spans = code_span_ranges(line)
        for m in _WIKILINK.finditer(line):
            if not any(a <= m.start() < b for a, b in spans):
                out.append(Link(m.group(1).strip(), (m.group(2) or "").strip() or None))
    return out


_ANCHOR_LINE = re.compile(r"^\[\[([A-Za-z0-9_:.-]+)\]\]$")


def _asciidoc_anchor(lines: Sequence[str], n: int) -> bool:
    """An AsciiDoc anchor on its own line, before the section it names ("[[OPTIONS]]" above "OPTIONS" and its
    underline): an id, not a wikilink. A man page's "[[FILES]]" made an entity page "FILES"."""
    m = _ANCHOR_LINE.match(lines[n].strip())
    if not m:
        return False
    ident = m.group(1)
    after = next((x.strip() for x in lines[n + 1 :] if x.strip()), "")
    return ident.isupper() or "_" in ident or after.replace(" ", "").replace("-", "").casefold() == \
        ident.replace("-", "").replace("_", "").casefold() or after.startswith(("=", "#"))


def _split_sentences(joined: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _SENTENCE_END.finditer(joined):
        piece = joined[start : m.start() + 1]
        if _ABBREV.search(piece.rstrip("\"')]")) or _ORDINAL.search(piece.rstrip()):
            continue
        spans.append((start, m.end()))
        start = m.end()
    spans.append((start, len(joined)))
    return spans


# What follows a `>>>` prompt in a session: a call, an assignment, an import, an index or one bare token. A mail
# quoted three levels deep (">>> Thanks, see you Monday.") is prose.
_PROMPT_CODE = re.compile(r"[(=\[]|^\s*(?:import|from)\s|^\s*\S+\s*$")


# A reference page's signature line, as the HTML extractor writes a Sphinx `<dt>`: "sqlite3.connect(database,
# timeout=5.0, …)", "class logging.Formatter(fmt=None)", "Cursor.execute(sql, parameters=(), /)". Code, not a
# statement: its figures are defaults, and it made a key point of a note.
_SIGNATURE = re.compile(r"^(?:(?:class|async|abstractmethod|classmethod|staticmethod|exception|coroutine|"
                        r"awaitable)\s+)*[A-Za-z_][\w.]*\(.*\)(?:\s*->\s*\S.*)?$")


def _signature_lines(lines: Sequence[str]) -> frozenset[int]:
    return frozenset(i for i, raw in enumerate(lines) if "(" in raw and _SIGNATURE.match(raw.strip()))


def _doctest_lines(lines: Sequence[str]) -> frozenset[int]:
    """An interactive session as the HTML extractor writes a reference page's example (`>>> pack(...)` and
    what it printed): code, not statements. It ends at a blank line, as docutils reads a doctest block, or at
    a line of prose, which the extractor may put right under the example (a capitalised line of eight or
    more words; a session's output is a value)."""
    out: set[int] = set()
    inside = False
    for i, raw in enumerate(lines):
        text = raw.strip()
        if text.startswith(">>>") and _PROMPT_CODE.search(text[3:]):
            inside = True
        elif not text or (len(text.split()) >= 8 and text[0].isupper()):
            inside = False
        if inside:
            out.add(i)
    return frozenset(out)


def _bare_split(text: str) -> list[str]:
    """A bare row's cells: split at " | " outside code spans. A pipe inside one is code ("`cat a | sort`", a
    shell pipe); an HTML table's cells may each hold code ("`100` | `CONTINUE` | Section 6.2.1")."""
    out, prev = [], 0
    for m in re.finditer(re.escape(_BARE_CELL_SEP), mask_code_spans(text) if "`" in text else text):
        out.append(text[prev : m.start()])
        prev = m.end()
    out.append(text[prev:])
    return out


def _bare_cells(raw: str) -> int:
    """How many cells a line holds as a bare table row (0: not one). A list item, a heading, a quote, an
    outer-piped row and a line whose only pipes are inside code (a shell pipe) are not."""
    text = raw.strip()
    if _BARE_CELL_SEP not in text or text.startswith(("|", "#", ">")) or _LIST.match(raw) or text.endswith("|"):
        return 0
    cells = _bare_split(text)
    return len(cells) if len(cells) > 1 else 0


def _bare_runs(lines: Sequence[str], code: frozenset[int]) -> dict[int, tuple[int, int]]:
    """Line index -> (its run's first line index, the run's length) for each line of a bare table."""
    cells = [0 if i in code else _bare_cells(raw) for i, raw in enumerate(lines)]
    out: dict[int, tuple[int, int]] = {}
    i = 0
    while i < len(lines):
        j = i + 1
        while cells[i] and j < len(lines) and cells[j] == cells[i]:
            j += 1
        if cells[i] and j - i >= 2:
            out.update({k: (i, j - i) for k in range(i, j)})
        i = j
    return out


def _above_separator(lines: Sequence[str], i: int) -> bool:
    """Whether line i is a table's header: the line under it is a separator row (`--- | ---`)."""
    return i + 1 < len(lines) and _TABLE_SEP.match(lines[i + 1]) is not None


def _row_unit(cells: tuple[str, ...], header: tuple[str, ...], header_line: int, ln: int, section: str,
              order: int) -> Unit | None:
    if header and len(header) == len(cells) and cells[0]:
        # "Revenue — Q2 2026: £2.41M; Q1 2026: £1.88M", cited from the header line down to the row,
        # so that every figure the line shows is in the cited lines.
        pairs = "; ".join(f"{h}: {c}" for h, c in zip(header[1:], cells[1:], strict=True) if c)
        text = f"{cells[0]} — {pairs}" if pairs else cells[0]
        return Unit(text, header_line, ln, section, "row", order, cells, header)
    text = "; ".join(c for c in cells if c)
    return Unit(text, ln, ln, section, "row", order, cells, ()) if text else None


def split_units(lines: Sequence[str], first_line: int) -> tuple[list[Unit], list[tuple[int, str, int]]]:
    """Statements of a body whose first line sits at file line `first_line`.

    Returns (units, headings) where headings are (file line, text, level)."""
    units: list[Unit] = []
    headings: list[tuple[int, str, int]] = []
    section = ""
    # fences, indented code, interactive sessions, a reference's signatures
    code = code_lines("\n".join(lines)) | _doctest_lines(lines) | _signature_lines(lines)
    bare = _bare_runs(lines, code)
    para: list[tuple[int, str]] = []

    def flush() -> None:
        if not para:
            return
        joined = ""
        offsets: list[tuple[int, int]] = []  # (offset in joined, file line)
        for ln, raw in para:
            if joined:
                joined += " "
            offsets.append((len(joined), ln))
            joined += raw.strip()
        for a, b in _split_sentences(joined):
            piece = joined[a:b].strip()
            if not piece:
                continue
            s_line = max(ln for off, ln in offsets if off <= a)
            # A line belongs to the piece if it starts before the piece ends: the last line of a paragraph may
            # be one character ("7", a doctest's output), which starts at the piece's last offset, b - 1.
            e_line = max(ln for off, ln in offsets if off < max(b, a + 1))
            text = clean_inline(piece)
            if text:
                units.append(Unit(text, s_line, e_line, section, "sentence", len(units)))
        para.clear()

    header: tuple[str, ...] = ()
    header_line = 0
    item: list[tuple[int, str]] = []  # a list item and its indented continuation lines

    def flush_item() -> None:
        if item:
            text = clean_inline(" ".join(t.strip() for _, t in item))
            if text:
                units.append(Unit(text, item[0][0], item[-1][0], section, "item", len(units)))
            item.clear()

    for i, raw in enumerate(lines):
        ln = first_line + i
        if item and raw.strip() and raw[:1] in (" ", "\t") and not _LIST.match(raw) and i not in code:
            item.append((ln, raw))
            continue
        flush_item()
        if i in code:
            flush()
            continue
        if not raw.strip() or is_unsure(raw):
            flush()  # an OCR line read below the confidence threshold is never a statement
            continue
        h = _HEADING.match(raw)
        if h:
            flush()
            section = clean_inline(h.group(2))
            headings.append((ln, section, len(h.group(1))))
            continue
        if _RULE.match(raw) and not raw.lstrip().startswith("|"):
            flush()
            continue
        if _MAIL_HEADER.match(raw):
            flush()
            text = clean_inline(raw)
            if text:
                units.append(Unit(text, ln, ln, section, "meta", len(units)))
            continue
        if raw.lstrip().startswith("|"):
            flush()
            if _TABLE_SEP.match(raw):
                continue
            cells = tuple(clean_inline(c) for c in raw.strip().strip("|").split("|"))
            if _above_separator(lines, i):
                header, header_line = cells, ln  # a header row states nothing by itself
                continue
            unit = _row_unit(cells, header, header_line, ln, section, len(units))
            if unit is not None:
                units.append(unit)
            continue
        if i in bare:
            flush()
            start, length = bare[i]
            if _TABLE_SEP.match(raw):
                continue
            cells = tuple(clean_inline(c) for c in _bare_split(raw.strip()))
            if _above_separator(lines, i) or (i == start and length >= BARE_HEADER_ROWS):
                header, header_line = cells, ln  # a header row states nothing by itself
                continue
            if i == start:
                header = ()
            unit = _row_unit(cells, header, header_line, ln, section, len(units))
            if unit is not None:
                units.append(unit)
            continue
        header = ()
        if raw.lstrip().startswith(">"):
            raw = raw.lstrip()[1:]
        if _LIST.match(raw):
            flush()
            item.append((ln, _LIST.sub("", raw, count=1)))
            continue
        if _TURN.match(raw):
            flush()  # a chat or transcript turn is a statement of its own speaker, never merged with the last
        para.append((ln, raw))
    flush_item()
    flush()
    return units, headings


# ------------------------------------------------------------------------------------------------ terms

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9-]{2,}")
STOP = set(
    """
    the and for with that this from have has had are was were will would should could can not but you your our
    their they them there here into onto over under about after before than then when what which who whom
    whose why how all any each more most other some such only own same very just also been being its it's
    we us i me my he she his her him of to in on at by as an or if so do does did a is be no yes new one two
    """.split()
)


def terms(text: str) -> Counter[str]:
    return Counter(w.lower() for w in _WORD.findall(text) if w.lower() not in STOP)
