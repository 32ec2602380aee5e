"""The one place the index reads page files. It is lenient on purpose: a hand-edited page that the strict
contract parsers (stigmergy.pages.*) would refuse is still indexed, so search never hides it; the gates and
lint are where non-canonical pages get reported."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from stigmergy.errors import ContractError
from stigmergy.index.analysis import configured_languages, page_languages
from stigmergy.index.fragments import Fragment, Tokens, split_page
from stigmergy.pages.citations import Citation, citations_by_line
from stigmergy.pages.contradictions import Contradiction, scan_blocks
from stigmergy.pages.frontmatter import split_front_matter
from stigmergy.pages.markdown import code_lines
from stigmergy.pages.wikilinks import WikiLink, parse_wikilinks
from stigmergy.repo.layout import classify
from stigmergy.settings import IndexSettings

_H1_RE = re.compile(r"^#[ \t]+(.+?)\s*$", re.M)


@dataclass(frozen=True)
class PageDoc:
    path: str
    type: str  # source | note | concept | entity | project
    layer: str
    title: str
    meta: dict[str, Any]
    text: str
    body_start: int  # char offset of the body
    body_first_line: int  # 1-based file line of the body's first line
    fragments: tuple[Fragment, ...]
    links: tuple[WikiLink, ...]
    citations: dict[int, tuple[Citation, ...]]  # file line -> citations
    contradictions: tuple[Contradiction, ...]
    claim_lines: int  # body lines that state something (wiki pages)
    languages: tuple[str, ...] = ()  # Snowball stemmers besides English's for its text (index/analysis.py)

    @property
    def status(self) -> str | None:
        return self.meta.get("status") if self.type != "source" else None

    def strings(self, key: str) -> tuple[str, ...]:
        value = self.meta.get(key)
        return tuple(str(v) for v in value) if isinstance(value, list) else ()

    @property
    def entities(self) -> tuple[str, ...]:
        return self.strings("entities")

    @property
    def aliases(self) -> tuple[str, ...]:
        return self.strings("aliases") if self.type == "entity" else ()


def _str(value: Any) -> str | None:
    return None if value is None else str(value)


def meta_str(meta: dict[str, Any], key: str) -> str | None:
    return _str(meta.get(key))


def _syntax(ptype: str, meta: dict[str, Any]) -> str:
    """"text" for a source page captured from plain text (its headings follow plain-text conventions),
    else "markdown" (wiki pages; Markdown, HTML, PDF and DOCX captures, whose extractors write ATX headings)."""
    if ptype != "source":
        return "markdown"
    artifacts = meta.get("artifacts")
    first = artifacts[0] if isinstance(artifacts, list) and artifacts and isinstance(artifacts[0], dict) else {}
    return "text" if str(first.get("media_type", "")).startswith("text/plain") else "markdown"


def parse_page(path: str, text: str, params: IndexSettings, tokens: Tokens | None = None,
               window: int = 256, *, fragments: bool = True) -> PageDoc | None:
    """The page at repository-relative `path`, or None when `path` is not a page location. `tokens` and
    `window`: the embedding model's tokenizer and window (`embedder.fragment_tokens`), which fragment
    lengths are counted in; without them, characters. `fragments=False` leaves them out (most of the cost:
    feedback on a whole page needs none)."""
    kind = classify(path)
    if kind is None:
        return None
    ptype, layer = kind
    try:
        meta, body, head_lines = split_front_matter(text)
    except ContractError:
        # Indexed as plain text so that it stays findable; lint reports the broken front matter.
        meta, body, head_lines = {}, text, 0
    body_start = len(text) - len(body)
    title = meta_str(meta, "title")
    if not title:
        m = _H1_RE.search(body)
        title = m.group(1) if m else path.rsplit("/", 1)[-1][:-3]
    first = head_lines + 1
    links = tuple(parse_wikilinks(body, first_line=first))
    cites = citations_by_line(body, path, first_line=first, errors=[])
    blocks, _ = scan_blocks(body, path, first_line=first)
    claims = 0
    if ptype != "source":
        in_block = {n for b in blocks for n in range(b.start_line, b.end_line + 1)}
        code = code_lines(body)  # quoted code is not a claim
        for offset, line in enumerate(body.split("\n")):
            s = line.strip()
            if s and not s.startswith(("#", ">", "<!--")) and offset not in code and first + offset not in in_block:
                claims += 1
    return PageDoc(
        path=path, type=ptype, layer=layer, title=title, meta=meta, text=text, body_start=body_start,
        body_first_line=first, links=links,
        fragments=tuple(split_page(text, body_start, title, params, tokens=tokens, window=window,
                                   syntax=_syntax(ptype, meta))) if fragments else (),
        citations=cites, contradictions=tuple(b.record for b in blocks), claim_lines=claims,
        languages=page_languages(meta, configured_languages(params.languages)),
    )
