"""Markdown structure, read by markdown-it-py (CommonMark), in one place: which lines are code (fenced
blocks of any fence length or kind, nested or unclosed; indented blocks) and where a line's inline code
spans are. Wikilinks, citations, lint and the planner skip code through these; nobody toggles on fences.

markdown-it-py is imported on first use, and only for text that has something code-like in it: a page
without a fence, a tilde fence or an indented line has no code block, and a line without a backtick
has no code span.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

_INDENTED = re.compile(r"^(?: {4}|\t)", re.M)
MAX_MARKDOWN_CHARS = 2_000_000  # a page larger than this is refused upstream; never parse beyond it


@lru_cache(maxsize=1)
def _block_parser() -> Any:
    from markdown_it import MarkdownIt

    # Block structure only: inline parsing is not needed to find code blocks, and costs twice as much.
    return MarkdownIt("commonmark").disable("inline")


@lru_cache(maxsize=1)
def _inline_parser() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark")


def maybe_block(text: str) -> bool:
    """Whether `text` has a fence (``` or ~~~) or a line indented by four spaces or a tab: only then can it
    hold a code block. Substring tests first: one multi-line regex with three alternatives tried at every
    character cost ~150 µs on a 5 kB page, and code_lines runs on every page text a curation replay or a
    plan writes (an indented line needs four spaces or a tab somewhere in the text)."""
    if "```" in text or "~~~" in text:
        return True
    if "    " not in text and "\t" not in text:
        return False
    return _INDENTED.search(text) is not None


@lru_cache(maxsize=256)
def code_lines(text: str) -> frozenset[int]:
    """0-based offsets of the lines of `text` that are code: a fenced block's lines with its fences, and
    indented code blocks. An unclosed fence runs to the end of the text, as CommonMark says."""
    if not maybe_block(text):
        return frozenset()
    tokens = _block_parser().parse(text[:MAX_MARKDOWN_CHARS])
    lines: set[int] = set()
    for token in tokens:
        if token.type in ("fence", "code_block") and token.map:
            lines.update(range(token.map[0], token.map[1]))
    return frozenset(lines)


def code_span_ranges(line: str) -> list[tuple[int, int]]:
    """[start, end) of each inline code span of `line`, by markdown-it's own backtick rule (a run of n
    backticks closes only at a run of exactly n; a backslash escapes; an unmatched run is text)."""
    if "`" not in line:
        return []
    from markdown_it.rules_inline import backtick
    from markdown_it.rules_inline.state_inline import StateInline

    state = StateInline(line, _inline_parser(), {}, [])
    spans = []
    pos = 0
    while pos < len(line):
        ch = line[pos]
        if ch == "\\":
            pos += 2
            continue
        if ch != "`":
            pos += 1
            continue
        state.pos = pos
        if backtick(state, True) and state.pos > pos:
            if line[pos : state.pos].strip("`"):  # a matched span, not just an unmatched run skipped
                spans.append((pos, state.pos))
            pos = state.pos
        else:
            pos += 1
    return spans


def mask_code_spans(line: str) -> str:
    """`line` with its inline code spans blanked (same length, so offsets still point into `line`)."""
    for start, end in code_span_ranges(line):
        line = line[:start] + " " * (end - start) + line[end:]
    return line


def first_h1(text: str) -> str | None:
    """The text of the first top-level ATX `# Heading` outside code, or None."""
    if "#" not in text:
        return None
    tokens = _block_parser().parse(text[:MAX_MARKDOWN_CHARS])
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag == "h1" and token.markup == "#" and token.level == 0:
            content = tokens[i + 1].content.strip()
            if content:
                return content
    return None


# A link whose destination is not http, https, mailto or a relative path (`javascript:`, `data:`,
# `vbscript:`, `file:`) would be live in every viewer of the pages: the product writes it inert. An inline
# link's `](` becomes `]\(` and a reference definition's `[` becomes `\[`, so the text shows as written
# and no link is formed; `<javascript:…>` autolinks are already tag starts, escaped by capture (extract.escape_markup). A scheme
# written with a backslash (`javascript\:`, which Markdown reads as `javascript:`) counts as one.
SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
_SCHEME = r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)\\?:"
_INLINE_DEST = re.compile(r"\]\((?=[ \t]*(?:\n[ \t]*)?<?[ \t]*(?:" + _SCHEME + r"|$))", re.M)
# (anywhere in a line: a definition may follow a list item's or a quote's marker; `\[` elsewhere shows `[`)
_REF_DEF = re.compile(r"(?P<bs>\\*)\[(?=[^\[\]\n]+\]:[ \t]*(?:\n[ \t]*)?<?" + _SCHEME + ")")


def _unsafe(m: re.Match[str]) -> bool:
    scheme = m.group("scheme")
    return scheme is None or scheme.lower() not in SAFE_SCHEMES


def inert_links(text: str) -> str:
    """`text` with every Markdown link to a scheme other than http, https and mailto made plain text."""
    if "](" not in text and "]:" not in text:
        return text
    text = _INLINE_DEST.sub(lambda m: "]\\(" if _unsafe(m) else m.group(0), text)
    # (a `[` after an odd run of backslashes is escaped already)
    return _REF_DEF.sub(lambda m: m.group("bs") + "\\[" if _unsafe(m) and len(m.group("bs")) % 2 == 0
                        else m.group(0), text)


def unsafe_link(line: str) -> bool:
    """Whether `line` holds a link that `inert_links` would make plain text."""
    return inert_links(line) != line
