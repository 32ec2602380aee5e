"""HTML -> readable Markdown-ish text with the standard library's tolerant parser.

Headings become `#` lines, list items `- ` lines (nested ones indented), table rows `a | b` lines,
`<pre>` keeps its lines inside a code fence, inline `<code>`, `<kbd>`, `<samp>` and `<tt>` become code spans;
p/div/br and other blocks break paragraphs. Scripts, styles, templates, `<noscript>`, navigation (`<nav>`,
`role="navigation"`, `role="search"`), `hidden` and `aria-hidden` elements, permalink anchors ("¶") and comments
are dropped. The page's footer (`role="contentinfo"`, or a `<footer>` or an element of class or id `footer` outside
any article, section, aside or main) leaves the body: its text goes to the metadata as `footer`. Entities are
decoded and whitespace is collapsed. The title is `<title>`, else the first `<h1>`.
"""

from __future__ import annotations

import re
import sys
from html.parser import HTMLParser

from stigmergy.capture.extractors import EXTRACTOR_REVISION, Budget, Format, Reading
from stigmergy.errors import InputError

_DROP = {"script", "style", "noscript", "template", "nav", "svg", "iframe", "object"}
_VOID = {
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr",
}  # fmt: skip
_BLOCKS = {
    "p", "div", "section", "article", "header", "footer", "main", "aside", "blockquote", "dl", "dt",
    "dd", "figure", "figcaption", "address", "form", "fieldset", "hr", "center", "details", "summary",
    "body", "html", "caption",
}  # fmt: skip
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_SPACE = re.compile(r"[ \t\n\r\f\v\xa0]+")
_CHUNK = 65_536
_TICKS = re.compile(r"`{3,}")
# Kinds of blocks written one per line, with no blank line between neighbours of the same kind.
_TIGHT = {"li", "row"}
_META_KEYS = ("description", "author")
# Each level of list nesting indents every line under it by two spaces, so 20,000 nested lists with a
# word at each level would write 400 million characters: deeper nesting is refused, the limit named.
MAX_LIST_DEPTH = 64
REVISION = 5  # this extractor's own changes on top of EXTRACTOR_REVISION: 1, ARIA navigation and search dropped;
# 2, `<pre>` fenced as code; 3, inline code as code spans; 4, permalink anchors dropped; 5, the page's footer moved
# from the body to the metadata
# Inline code: a library reference names its classes and functions in `<code>` ("Create a new <code>Cursor</code>
# object"); written as plain words, "Cursor", "Connection" and "Logger" read as names of organisations.
_INLINE_CODE = {"code", "kbd", "samp", "tt"}
# A heading's permalink: Sphinx, MkDocs and others append an anchor whose whole text is a glyph ("¶", "#", "§"),
# which read as text ended every heading of a reference page with "¶" ("Caching¶", "cursor(factory=Cursor)¶").
_PERMALINK_GLYPHS = frozenset({"¶", "§", "#", "🔗", "⚓"})


# A page's chrome by its ARIA landmark: a documentation theme's breadcrumbs, sidebar and "next | previous" bars
# are `<div role="navigation">` as often as `<nav>` (Sphinx's classic theme), and a search box is
# `role="search"`. Filed as text, "The Python Standard Library » Binary Data Services »" on every page of a
# library reference made an entity page of each chapter title. Screen-reader-only duplicates are
# `aria-hidden="true"`.
_CHROME_ROLES = frozenset({"navigation", "search"})
# The page's footer says who made the page and the site, not what the page says: its copyright, "Powered by …"
# (filed as text, the status page's "Powered by Lanternfish Labs" was a key point of the company's page and a line
# `ask` could give for "which SMS provider do we use?"). It is provenance, so its text goes to the metadata. A
# `<footer>` is the page's (ARIA's contentinfo) only outside these; inside one it is that article's or section's
# (a byline, a date) and stays in the body.
_SECTIONING = frozenset({"article", "aside", "main", "section"})


def _footer_mark(name: str, value: str | None) -> bool:
    """A footer by its class or id, as themes older than `<footer>` write it: the Python documentation's
    `<div class="footer">` ("Copyright 2001-2026, Python Software Foundation … Created using Sphinx") made an
    entity page "Python Software Foundation" of every library page's footer."""
    v = (value or "").strip().lower()
    return (name == "class" and "footer" in v.split()) or (name == "id" and v == "footer")


def _page_footer(tag: str, attrs: list[tuple[str, str | None]], sections: int) -> bool:
    """The page's own footer: ARIA's contentinfo, or a footer outside every sectioning element."""
    if any(n == "role" and (v or "").strip().lower() == "contentinfo" for n, v in attrs):
        return True
    return sections == 0 and (tag == "footer" or any(_footer_mark(n, v) for n, v in attrs))


def _chrome(name: str, value: str | None) -> bool:
    v = (value or "").strip().lower()
    return (name == "role" and v in _CHROME_ROLES) or (name == "aria-hidden" and v == "true")


class _TooDeep(Exception):
    pass
_META_MAX = 1000


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[tuple[str, str]] = []
        self.title: str | None = None
        self.first_h1: str | None = None
        self.meta: dict[str, str] = {}
        self._inline: list[str] = []
        self._kind = "p"
        self._prefix = ""
        self._skip: str | None = None
        self._skip_depth = 0
        self._in_title = False
        self._title_parts: list[str] = []
        self._lists = 0
        self._pre = 0
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._heading: int | None = None
        # Open inline code elements: (the list their text goes to, where it starts); None for one inside another.
        self._code: list[tuple[list[str], int] | None] = []
        self._anchors: list[tuple[list[str], int]] = []  # open <a> elements, as for code
        self._sections = 0  # open sectioning elements (_SECTIONING): a <footer> inside one is content
        self._footer: list[str] | None = None  # the page footer being skipped: its text, for the metadata
        self._footer_drop = 0  # elements of _DROP open inside it (a tracking script in the footer)
        self._footer_chars = 0  # read for the metadata, over all the page's footers
        self._footers: list[str] = []

    # -- output ---------------------------------------------------------------------------------

    def _flush(self) -> None:
        if self._pre:
            raw = "".join(self._inline).strip("\n")
            if raw.strip():
                # A code block stays code in the Markdown: fenced, so that a planner reading the source page
                # never takes `def convert_date(val): """Convert ISO 8601 …"""` for prose naming "Convert ISO".
                fence = "`" * max(3, max((len(m) for m in _TICKS.findall(raw)), default=0) + 1)
                self.blocks.append(("pre", f"{fence}\n{raw}\n{fence}"))
        else:
            text = _SPACE.sub(" ", "".join(self._inline)).strip()
            if text:
                self.blocks.append((self._kind, self._prefix + text))
                if self._kind == "h1" and self.first_h1 is None:
                    self.first_h1 = text
                # After the first line of a list item, its further paragraphs are indented.
                if self._kind == "li" and self._prefix.lstrip().startswith("- "):
                    self._prefix = " " * len(self._prefix)
        self._inline = []

    def _block(self, kind: str = "p", prefix: str = "") -> None:
        self._flush()
        self._kind = kind
        self._prefix = prefix

    def _after_block(self) -> None:
        self._flush()
        if self._lists:
            self._kind, self._prefix = "li", "  " * self._lists
        else:
            self._kind, self._prefix = "p", ""

    # -- parser events --------------------------------------------------------------------------

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._in_title:
            # An unclosed <title> must not swallow the page.
            self.handle_endtag("title")
        if tag == "meta":
            self._meta(attrs)
            return
        if self._skip is not None:
            if tag == self._skip:
                self._skip_depth += 1
            elif self._footer is not None:
                if tag in _DROP and tag not in _VOID:
                    self._footer_drop += 1
                elif tag in _BLOCKS or tag in {"br", "li", "p"}:
                    self._footer_text(" ")
            return
        if tag == "title" and self.title is None:
            self._in_title = True
            return
        dropped = tag in _DROP or any(name == "hidden" or _chrome(name, value) for name, value in attrs)
        page_footer = not dropped and _page_footer(tag, attrs, self._sections)
        if (dropped or page_footer) and tag not in _VOID:
            self._skip, self._skip_depth = tag, 1
            if page_footer:
                self._footer, self._footer_drop = [], 0
            return
        if tag in _SECTIONING:
            self._sections += 1
        if self._cell is not None:
            # Inside a table cell, block structure collapses to spaces.
            if tag in _BLOCKS or tag in {"br", "li", "p"} or tag in _HEADINGS:
                self._cell.append(" ")
            elif tag in _INLINE_CODE and not self._pre:
                self._code.append(None if self._code else (self._cell, len(self._cell)))
            elif tag == "a":
                self._anchors.append((self._cell, len(self._cell)))
            return
        if tag in _HEADINGS:
            level = _HEADINGS[tag]
            self._heading = level
            self._block(f"h{level}", "#" * level + " ")
        elif tag in {"ul", "ol", "menu"}:
            self._flush()
            if self._lists >= MAX_LIST_DEPTH:
                raise _TooDeep
            self._lists += 1
        elif tag == "li":
            self._block("li", "  " * max(self._lists - 1, 0) + "- ")
        elif tag == "pre":
            self._block("pre")
            self._pre += 1
        elif tag in _INLINE_CODE and not self._pre:
            target = self._cell if self._cell is not None else self._inline
            self._code.append(None if self._code else (target, len(target)))
        elif tag == "a":
            self._anchors.append((self._inline, len(self._inline)))
        elif tag == "tr":
            self._flush()
            self._row = []
        elif tag in {"td", "th"}:
            if self._row is None:
                self._flush()
                self._row = []
            self._cell = []
        elif tag == "br":
            if self._pre:
                self._inline.append("\n")
            elif self._heading is not None:
                self._inline.append(" ")
            else:
                self._flush()
        elif tag in _BLOCKS or tag in {"table", "thead", "tbody", "tfoot"}:
            self._block("li" if self._lists else "p", self._prefix if self._kind == "li" else "")

    def _meta(self, attrs: list[tuple[str, str | None]]) -> None:
        # The page's own description and author are its metadata, as front matter is a Markdown file's.
        values = {k.lower(): v for k, v in attrs if v is not None}
        name, content = values.get("name", "").strip().lower(), values.get("content")
        if name in _META_KEYS and content and name not in self.meta:
            text = _SPACE.sub(" ", content).strip()[:_META_MAX]
            if text:
                self.meta[name] = text

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in _VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if self._skip is not None:
            if tag == self._skip:
                self._skip_depth -= 1
                if self._skip_depth == 0:
                    self._skip = None
                    self._end_footer()
            elif self._footer is not None and tag in _DROP:
                self._footer_drop = max(self._footer_drop - 1, 0)
            return
        if tag == "title" and self._in_title:
            self._in_title = False
            self.title = _SPACE.sub(" ", "".join(self._title_parts)).strip() or None
            return
        if tag in _SECTIONING:
            self._sections = max(self._sections - 1, 0)
        if tag in _INLINE_CODE and self._code:
            self._end_code()
            return
        if tag == "a" and self._anchors:
            target, start = self._anchors.pop()
            if (target is self._inline or target is self._cell) and "".join(target[start:]).strip() in _PERMALINK_GLYPHS:
                del target[start:]
            return
        if tag in {"td", "th"} and self._cell is not None:
            if self._row is not None:
                self._row.append(_SPACE.sub(" ", "".join(self._cell)).strip())
            self._cell = None
            return
        if self._cell is not None:
            return
        if tag == "tr" and self._row is not None:
            self._end_row()
        elif tag == "table":
            self._end_row()
            self._after_block()
        elif tag in _HEADINGS:
            self._flush()
            self._heading = None
            self._after_block()
        elif tag in {"ul", "ol", "menu"}:
            self._flush()
            self._lists = max(self._lists - 1, 0)
            self._after_block()
        elif tag == "li":
            self._after_block()
        elif tag == "pre":
            self._flush()
            self._pre = max(self._pre - 1, 0)
            self._after_block()
        elif tag in _BLOCKS:
            self._after_block()

    def _end_code(self) -> None:
        opened = self._code.pop()
        if opened is None:
            return
        target, start = opened
        if target is not self._inline and target is not self._cell:
            return  # a block ended inside the element: its text is written already, as prose
        text = "".join(target[start:])
        core = _SPACE.sub(" ", text).strip()
        if not core:
            return
        ticks = "``" if "`" in core else "`"
        pad = " " if core.startswith("`") or core.endswith("`") else ""
        lead = " " if text[:1].isspace() else ""
        tail = " " if text[-1:].isspace() else ""
        target[start:] = [f"{lead}{ticks}{pad}{core}{pad}{ticks}{tail}"]

    def _end_row(self) -> None:
        if self._cell is not None and self._row is not None:
            self._row.append(_SPACE.sub(" ", "".join(self._cell)).strip())
            self._cell = None
        if self._row is not None and any(self._row):
            self.blocks.append(("row", " | ".join(self._row)))
        self._row = None

    def _footer_text(self, data: str) -> None:
        # What the metadata keeps is bounded (_META_MAX, over all the page's footers): so is what is read for it,
        # or a page of 100,000 footers, or one footer of 100,000 nodes, would be held and compared whole.
        if self._footer is not None and not self._footer_drop and self._footer_chars < 4 * _META_MAX:
            self._footer.append(data)
            self._footer_chars += len(data)

    def _end_footer(self) -> None:
        if self._footer is not None:
            text = _SPACE.sub(" ", "".join(self._footer)).strip()
            if text and text not in self._footers:
                self._footers.append(text)
            self._footer = None

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self._title_parts.append(data)
        elif self._skip is not None:
            self._footer_text(data)
            return
        elif self._cell is not None:
            self._cell.append(data)
        else:
            self._inline.append(data)

    def close(self) -> None:
        super().close()
        self._end_row()
        self._flush()
        self._end_footer()  # a footer left open at the end of the page
        footer = " ".join(self._footers)
        if footer:
            # Kept in the source page's front matter: who made the page and when is provenance, not content.
            self.meta["footer"] = footer if len(footer) <= _META_MAX else footer[: _META_MAX - 1] + "…"


def html_to_text(html: str, budget: Budget | None = None) -> tuple[str, str | None]:
    """(readable text, title). The budget's clock is checked between chunks of the page."""
    text, title, _ = read_html(html, budget)
    return text, title


def read_html(html: str, budget: Budget | None = None) -> tuple[str, str | None, dict[str, str]]:
    """(readable text, title, metadata): metadata holds `<meta name="description|author">` and the page's
    footer (`footer`) when present."""
    reader = _Reader()
    try:
        for start in range(0, len(html), _CHUNK):
            if budget is not None:
                budget.check_time()
            reader.feed(html[start : start + _CHUNK])
        reader.close()
    except _TooDeep:
        raise InputError(budget.locator if budget else "html", "html-depth",
                         f"lists nested over {MAX_LIST_DEPTH} deep (the limit of nested lists)",
                         hint="flatten the lists, or capture the page as text") from None
    out: list[str] = []
    previous = None
    for kind, text in reader.blocks:
        if out:
            out.append("\n" if kind == previous and kind in _TIGHT else "\n\n")
        out.append(text)
        previous = kind
    return "".join(out), reader.title or reader.first_h1, dict(reader.meta)


def _read(text: str, budget: Budget) -> Reading:
    body, title, meta = read_html(text, budget)
    python = f"python-{sys.version_info.major}.{sys.version_info.minor}"
    return Reading(body, title, f"{EXTRACTOR_REVISION}.{REVISION}+{python}", metadata=meta)


FORMAT = Format(
    media_type="text/html", extractor="html", extensions=(".html", ".htm", ".xhtml"), read=_read,
    media_aliases=("text/html", "application/xhtml+xml"), charset_meta=True,
)
