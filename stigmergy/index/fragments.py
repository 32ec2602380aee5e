"""Pages -> fragments: split by headings, then by length with overlap; short pages stay whole.

Length is counted in word pieces of the embedding model's tokenizer when one is given (`Tokens`): a
fragment's embedded text (title, heading trail, text) fits the model's window, so the vector arm sees
all of it. Without a tokenizer (a model folder with no tokenizer.json) the character settings apply.

Headings: Markdown pages (wiki pages and Markdown, HTML, PDF and DOCX captures, whose extractors write
ATX headings) are parsed with markdown-it-py (ATX and setext headings, nothing inside code). Plain-text
captures follow the plain-text conventions: reStructuredText titles (a line underlined, optionally also
overlined, by one repeated punctuation character; levels in order of first appearance, as docutils
does), setext underlines (the same rule), AsciiDoc `== Title` lines and `#` lines after a blank line.

Offsets are character offsets into the whole page file and lines are 1-based file lines, so a fragment
can be quoted back exactly (`read PATH#n`) and cited.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from stigmergy.settings import IndexSettings

# Bumped when the embedded text's layout or the splitting changes: part of the embedding fingerprint.
EMBED_TEXT_VERSION = 2
# Word pieces the model adds around every text ([CLS] ... [SEP]).
SPECIAL_TOKENS = 2
# Below this many word pieces for the text itself (after a very long title and trail) fragments would be
# slivers: they keep this many, and the model's truncation takes the tail of such a rare fragment.
MIN_TEXT_TOKENS = 64
_ADORNMENT = "=-~^\"'`#*+:._<>!$%&,/;?@\\|"
_ADORN_RE = re.compile(r"^([" + re.escape(_ADORNMENT) + r"])\1{2,}[ \t]*$")
_ASCIIDOC_RE = re.compile(r"^(={1,6})[ \t]+(\S.*?)[ \t]*$")
_ATX_RE = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")


class Tokens(Protocol):
    """Word-piece offsets of a text, as the embedding model's tokenizer splits it (no special tokens)."""

    def offsets(self, text: str) -> Sequence[tuple[int, int]]: ...


@dataclass(frozen=True)
class Fragment:
    seq: int  # 1-based position in the page
    trail: tuple[str, ...]  # heading trail, outermost first (the page's own `# Title` left out)
    start_char: int  # offsets into the page file text, end exclusive
    end_char: int
    start_line: int  # 1-based file lines, inclusive
    end_line: int
    text: str

    def embed_text(self, title: str) -> str:
        """What the embedder sees: page title, heading trail, fragment text."""
        head = " > ".join(self.trail)
        return f"{title}\n{head}\n{self.text}" if head else f"{title}\n{self.text}"

    def content_hash(self, title: str) -> str:
        return hashlib.sha256(self.embed_text(title).encode("utf-8")).hexdigest()


Section = tuple[int, int, tuple[str, ...]]


def _trail_sections(heads: list[tuple[int, int, str]], start: int, end: int, title: str) -> list[Section]:
    """Sections of text[start:end] from (offset of the heading's first line, level, name) in order."""
    out: list[Section] = []
    stack: list[tuple[int, str]] = []
    sec_start, sec_trail = start, ()
    for pos, level, name in heads:
        if pos > sec_start:
            out.append((sec_start, pos, sec_trail))
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, name))
        sec_start = pos
        sec_trail = tuple(n for _, n in stack if n != title)
    if end > sec_start:
        out.append((sec_start, end, sec_trail))
    return out


@lru_cache(maxsize=1)
def _markdown() -> object:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark")


def _markdown_heads(text: str, start: int) -> list[tuple[int, int, str]]:
    body = text[start:]
    line_starts = [0] + [m.end() for m in re.finditer("\n", body)]
    tokens = _markdown().parse(body)  # type: ignore[attr-defined]
    heads = []
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.map and i + 1 < len(tokens):
            name = " ".join(tokens[i + 1].content.split())
            if name:
                heads.append((start + line_starts[tok.map[0]], int(tok.tag[1:]), name))
    return heads


def _text_heads(text: str, start: int) -> list[tuple[int, int, str]]:
    """Headings of a plain-text capture (see the module docstring)."""
    lines = text[start:].splitlines(keepends=True)
    offsets = [start]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    plain = [ln.rstrip("\r\n") for ln in lines]
    styles: list[tuple[str, bool]] = []  # reST adornment styles in order of first appearance = levels
    heads: list[tuple[int, int, str]] = []
    i = 0
    while i < len(plain):
        line = plain[i]
        prev_blank = i == 0 or not plain[i - 1].strip()
        over = _ADORN_RE.match(line)
        if over and i + 2 < len(plain) and plain[i + 1].strip() and not _ADORN_RE.match(plain[i + 1]):
            under = _ADORN_RE.match(plain[i + 2])
            if under and under.group(1) == over.group(1) and prev_blank:
                style = (over.group(1), True)
                if style not in styles:
                    styles.append(style)
                heads.append((offsets[i], styles.index(style) + 1, plain[i + 1].strip()))
                i += 3
                continue
        if (line.strip() and not line[0].isspace() and not _ADORN_RE.match(line) and prev_blank
                and i + 1 < len(plain)):
            under = _ADORN_RE.match(plain[i + 1])
            if under and len(plain[i + 1].strip()) >= min(len(line.strip()), 3 + len(line.strip()) // 2):
                style = (under.group(1), False)
                if style not in styles:
                    styles.append(style)
                heads.append((offsets[i], styles.index(style) + 1, line.strip()))
                i += 2
                continue
        m = (_ASCIIDOC_RE.match(line) or _ATX_RE.match(line)) if prev_blank else None
        if m:
            heads.append((offsets[i], len(m.group(1)), m.group(2).strip()))
        i += 1
    return heads


def _sections(text: str, start: int, title: str, syntax: str = "markdown") -> list[Section]:
    """(start, end, trail) for each heading section of text[start:]."""
    heads = _text_heads(text, start) if syntax == "text" else _markdown_heads(text, start)
    return _trail_sections(heads, start, len(text), title)


def _cut(text: str, floor: int, stop: int) -> int:
    """A good end for a window ending near `stop`: a paragraph, line or sentence end after `floor`."""
    for sep in ("\n\n", "\n", ". "):
        cut = text.rfind(sep, floor, stop)
        if cut > floor:
            return cut + len(sep)
    cut = text.rfind(" ", floor, stop)
    return cut + 1 if cut > floor else stop


def _word_start(text: str, pos: int, limit: int) -> int:
    """`pos` moved forward to the start of a word (no fragment begins mid-word), at most to `limit`."""
    while pos < limit and pos > 0 and not text[pos - 1].isspace():
        pos += 1
    while pos < limit and text[pos].isspace():
        pos += 1
    return pos


def _char_windows(text: str, start: int, end: int, size: int, overlap: int) -> list[tuple[int, int]]:
    """Split text[start:end] into windows of about `size` chars overlapping by about `overlap`."""
    out: list[tuple[int, int]] = []
    pos = start
    while pos < end:
        stop = min(end, pos + size)
        if stop < end:
            stop = _cut(text, pos + size // 2, stop)
        out.append((pos, stop))
        if stop >= end:
            break
        pos = max(pos + 1, _word_start(text, max(pos + 1, stop - overlap), stop))
    return out


class _Counter:
    """Word pieces of spans of one page, from a single tokenisation of its body."""

    def __init__(self, tokens: Tokens, text: str, start: int) -> None:
        spans = tokens.offsets(text[start:])
        self.starts = [start + a for a, _ in spans]
        self.ends = [start + b for _, b in spans]

    def count(self, a: int, b: int) -> int:
        return max(0, bisect.bisect_right(self.ends, b) - bisect.bisect_left(self.starts, a))

    def windows(self, text: str, a: int, b: int, budget: int, overlap: int) -> list[tuple[int, int]]:
        """text[a:b] cut into windows of at most `budget` word pieces, each next one starting about
        `overlap` word pieces before the previous end (at a word start)."""
        out: list[tuple[int, int]] = []
        pos = a
        while pos < b:
            first = bisect.bisect_left(self.starts, pos)
            last = first + budget  # the first word piece that does not fit
            if last >= len(self.starts) or self.starts[last] >= b:
                out.append((pos, b))
                break
            stop = _cut(text, self.starts[first + budget // 2], self.starts[last])
            out.append((pos, stop))
            back = max(first + 1, bisect.bisect_left(self.starts, stop) - overlap)
            pos = max(pos + 1, _word_start(text, self.starts[back], stop))
        return out


def _head_tokens(tokens: Tokens | None, title: str, trail: tuple[str, ...]) -> int:
    if tokens is None:
        return 0
    head = " > ".join(trail)
    return SPECIAL_TOKENS + len(tokens.offsets(f"{title}\n{head}\n" if head else f"{title}\n"))


def split_page(text: str, body_start: int, title: str, params: IndexSettings, *,
               tokens: Tokens | None = None, window: int = 256, syntax: str = "markdown") -> list[Fragment]:
    """Fragments of a page file `text` whose body starts at char `body_start` (after the front matter).

    `tokens`: the embedding model's tokenizer; fragments then hold at most `window` word pieces with their
    title and trail (`[index] fragment_tokens` when set lower), overlapping by `overlap_tokens`.
    `syntax`: "markdown", or "text" for a plain-text capture (see the module docstring)."""
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line_of(offset: int) -> int:
        return bisect.bisect_right(line_starts, offset)

    end = len(text)
    counter = _Counter(tokens, text, body_start) if tokens is not None else None
    limit = params.fragment_limit(window)

    def fits(s: int, e: int, trail: tuple[str, ...]) -> bool:
        if counter is None:
            return e - s <= params.fragment_chars
        return counter.count(s, e) <= max(MIN_TEXT_TOKENS, limit - _head_tokens(tokens, title, trail))

    pieces: list[Section]
    if fits(body_start, end, ()):
        pieces = [(body_start, end, ())]
    else:
        merged: list[Section] = []
        for s, e, trail in _sections(text, body_start, title, syntax):
            # A short section joins the next one (the first one's trail is kept) rather than stand alone.
            if merged and merged[-1][1] - merged[-1][0] < params.min_fragment_chars:
                # Into a section that is cut into windows anyway (a heading line over a long text), it goes
                # under the longer section's trail.
                ps, _, ptrail = merged[-1]
                merged[-1] = (ps, e, ptrail if fits(ps, e, ptrail) else trail)
            else:
                merged.append((s, e, trail))
        pieces = []
        for s, e, trail in merged:
            if fits(s, e, trail):
                pieces.append((s, e, trail))
            elif counter is not None:
                budget = max(MIN_TEXT_TOKENS, limit - _head_tokens(tokens, title, trail))
                # An overlap of half a window or more would make a fragment per word piece: capped at a quarter.
                overlap = max(0, min(params.overlap_tokens, budget // 4))
                pieces.extend((ws, we, trail) for ws, we in counter.windows(text, s, e, budget, overlap))
            else:
                size = max(100, params.fragment_chars)
                overlap = max(0, min(params.overlap_chars, size // 4))
                pieces.extend((ws, we, trail) for ws, we in _char_windows(text, s, e, size, overlap))
    out: list[Fragment] = []
    for s, e, trail in pieces:
        # Trim surrounding blank space so offsets point at the words themselves.
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if s >= e and out:
            continue
        out.append(
            Fragment(
                seq=len(out) + 1, trail=trail, start_char=s, end_char=e,
                start_line=line_of(s), end_line=line_of(max(s, e - 1)), text=text[s:e],
            )
        )
    if not out:
        out.append(Fragment(1, (), body_start, body_start, line_of(body_start), line_of(body_start), ""))
    return out
