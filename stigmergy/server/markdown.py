"""A wiki page's Markdown as HTML (markdown-it-py, raw HTML off: a page cannot inject markup).

Two things differ from plain CommonMark: `[[Wikilinks]]` become links to the page they name when the
reader may read it (else plain text: an unreadable page is not even hinted at), and relative links
(citations) point into the web view, a citation's `#L31-L32` becoming the source page with those lines
highlighted.
"""

from __future__ import annotations

import functools
import posixpath
import re
from typing import Any
from urllib.parse import quote

WIKILINK_RE = re.compile(r"\[\[([^\[\]|#\n]+)(?:#([^\[\]|\n]*))?(?:\|([^\[\]\n]*))?\]\]")
LINES_RE = re.compile(r"^L(\d+)(?:-L(\d+))?$")
SAFE_SCHEMES = ("http://", "https://", "mailto:")


def page_url(path: str, lines: tuple[int, int] | None = None) -> str:
    url = "/page/" + quote(path)
    if lines is not None:
        url += f"?hl={lines[0]}-{lines[1]}#L{lines[0]}"
    return url


def view_href(href: str, page_path: str) -> tuple[str, bool]:
    """(the web view's URL for a link written in the page at `page_path`, whether it leaves the server)."""
    if href.startswith(SAFE_SCHEMES):
        return href, True
    if href.startswith("#") or not href:
        return href or "#", False
    target, _, fragment = href.partition("#")
    from urllib.parse import unquote

    joined = posixpath.normpath(posixpath.join(posixpath.dirname(page_path), unquote(target)))
    if joined.startswith(("..", "/")) or not joined.endswith(".md"):
        return "#", False  # a link out of the repository leads nowhere here
    m = LINES_RE.match(fragment)
    lines = (int(m.group(1)), int(m.group(2) or m.group(1))) if m else None
    return page_url(joined, lines), False


def _wikilink(state: Any, silent: bool) -> bool:
    if not state.src.startswith("[[", state.pos):
        return False
    m = WIKILINK_RE.match(state.src, state.pos)
    if m is None:
        return False
    if not silent:
        token = state.push("wikilink", "", 0)
        token.meta = {"target": m.group(1).strip(), "label": (m.group(3) or "").strip() or m.group(1).strip()}
    state.pos = m.end()
    return True


def _render_wikilink(self: Any, tokens: Any, idx: int, options: Any, env: dict[str, Any]) -> str:
    from html import escape

    meta = tokens[idx].meta
    path = env.get("links", {}).get(meta["target"].casefold())
    label = escape(meta["label"])
    if not path:
        return f"<span class=wikilink-missing>{label}</span>"
    return f"<a class=wikilink href=\"{escape(page_url(path))}\">{label}</a>"


def _render_link_open(self: Any, tokens: Any, idx: int, options: Any, env: dict[str, Any]) -> str:
    token = tokens[idx]
    href, external = view_href(str(token.attrGet("href") or ""), env.get("page", ""))
    token.attrSet("href", href)
    if external:
        token.attrSet("rel", "noopener noreferrer nofollow")
    elif "?hl=" in href:
        token.attrSet("class", "citation")
    return str(self.renderToken(tokens, idx, options, env))


@functools.lru_cache(maxsize=1)
def _parser() -> Any:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table").enable("strikethrough")
    md.inline.ruler.before("link", "wikilink", _wikilink)
    md.add_render_rule("wikilink", _render_wikilink)
    md.add_render_rule("link_open", _render_link_open)
    return md


def render_markdown(text: str, page_path: str, links: dict[str, str]) -> str:
    """HTML for `text` (Markdown written in the page at `page_path`); `links` maps a wikilink target
    (casefolded) to the readable page it names."""
    return str(_parser().render(text, {"page": page_path, "links": links}))
