"""Pages -> fragments: split by headings, then by length with overlap; short pages stay whole.

Offsets are character offsets into the whole page file and lines are 1-based file lines, so a fragment
can be quoted back exactly (`read PATH#n`) and cited.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from dataclasses import dataclass

from stigmergy.settings import IndexSettings

_HEADING_RE = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_FENCE_RE = re.compile(r"^\s*(```|~~~)")
# Bumped when the embedded text's layout changes: part of the embedding fingerprint.
EMBED_TEXT_VERSION = 1


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


def _sections(text: str, start: int, title: str) -> list[tuple[int, int, tuple[str, ...]]]:
    """(start, end, trail) for each heading section of text[start:]."""
    out: list[tuple[int, int, tuple[str, ...]]] = []
    stack: list[tuple[int, str]] = []
    sec_start, sec_trail = start, ()
    pos = start
    fenced = False
    for line in text[start:].splitlines(keepends=True):
        if _FENCE_RE.match(line):
            fenced = not fenced
        m = None if fenced else _HEADING_RE.match(line.rstrip("\n"))
        if m is not None:
            level, name = len(m.group(1)), m.group(2).strip()
            if pos > sec_start:
                out.append((sec_start, pos, sec_trail))
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, name))
            sec_start = pos
            sec_trail = tuple(n for lv, n in stack if not (lv == 1 and n == title))
        pos += len(line)
    if pos > sec_start:
        out.append((sec_start, pos, sec_trail))
    return out


def _windows(text: str, start: int, end: int, size: int, overlap: int) -> list[tuple[int, int]]:
    """Split text[start:end] into windows of about `size` chars overlapping by about `overlap`, cut at line
    or sentence ends where one is near."""
    out: list[tuple[int, int]] = []
    pos = start
    while pos < end:
        stop = min(end, pos + size)
        if stop < end:
            floor = pos + size // 2
            cut = text.rfind("\n", floor, stop)
            if cut < 0:
                cut = max(text.rfind(". ", floor, stop), text.rfind(" ", floor, stop))
            if cut > floor:
                stop = cut + 1
        out.append((pos, stop))
        if stop >= end:
            break
        nxt = max(pos + 1, stop - overlap)
        # Start the overlap at a word boundary so no fragment begins mid-word.
        space = text.find(" ", nxt, stop)
        nl = text.find("\n", nxt, stop)
        cands = [c + 1 for c in (space, nl) if c >= 0]
        pos = min(cands) if cands else nxt
    return out


def split_page(text: str, body_start: int, title: str, params: IndexSettings) -> list[Fragment]:
    """Fragments of a page file `text` whose body starts at char `body_start` (after the front matter)."""
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line_of(offset: int) -> int:
        return bisect.bisect_right(line_starts, offset)

    end = len(text)
    pieces: list[tuple[int, int, tuple[str, ...]]]
    if end - body_start <= params.fragment_chars:
        pieces = [(body_start, end, ())]
    else:
        merged: list[tuple[int, int, tuple[str, ...]]] = []
        for s, e, trail in _sections(text, body_start, title):
            # A short section joins the next one (the first one's trail is kept) rather than stand alone.
            if merged and merged[-1][1] - merged[-1][0] < params.min_fragment_chars and e - merged[-1][0] <= params.fragment_chars:
                ps, _, ptrail = merged[-1]
                merged[-1] = (ps, e, ptrail)
            else:
                merged.append((s, e, trail))
        pieces = []
        for s, e, trail in merged:
            if e - s <= params.fragment_chars:
                pieces.append((s, e, trail))
            else:
                pieces.extend((ws, we, trail) for ws, we in _windows(text, s, e, params.fragment_chars, params.overlap_chars))
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
