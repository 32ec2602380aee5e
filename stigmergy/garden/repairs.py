"""Deterministic repairs of what lint finds, page by page. Each returns the page's new text (or the same
text) plus what it did; `garden.plan` assembles them into one operation.

- dead wikilinks resolve through a name that differs only in case, accents or punctuation, when exactly
  one readable page answers to it; otherwise they become plain text. What a reader sees never changes.
- ambiguous links (one stem, several pages) point at the page the linking page lists in `entities:`,
  else at the only entity among them, written as a path link (`[[wiki/entities/Aurora|Aurora]]`).
- `entities:` names resolve the same way, or are dropped; `sources:` is recomputed from the body.
- a page that is not canonical but whose values are valid is re-rendered canonically, and a contradiction
  block whose data decodes is re-rendered from its data."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from stigmergy.errors import ContractError
from stigmergy.garden.snapshot import Snapshot, layer_of
from stigmergy.gates.context import readers_allow
from stigmergy.pages.contradictions import DATA_PREFIX, END_MARKER, START_PREFIX, decode_data, render_block
from stigmergy.pages.frontmatter import split_front_matter
from stigmergy.pages.markdown import code_lines
from stigmergy.pages.paths import stem_of
from stigmergy.pages.wiki import WikiPage, parse_wiki_page, render_wiki_page
from stigmergy.pages.wikilinks import WIKILINK_RE, fold_name, link_key
from stigmergy.repo.layout import classify
from stigmergy.settings import Settings


@dataclass
class PageRepair:
    rel: str
    text: str
    done: list[dict[str, str]] = field(default_factory=list)  # {"repair", "path", "detail"}
    left: list[dict[str, str]] = field(default_factory=list)  # what could not be repaired, and why

    def did(self, repair: str, detail: str) -> None:
        self.done.append({"repair": repair, "path": self.rel, "detail": detail})

    def cannot(self, finding: str, why: str) -> None:
        self.left.append({"finding": finding, "path": self.rel, "why": why})


class FoldedNames:
    """{folded name: pages} over titles, stems and aliases: the second chance of a dead link."""

    def __init__(self, snap: Snapshot) -> None:
        self.snap = snap
        self.names: dict[str, set[str]] = {}
        for rel, page in snap.pages().items():
            for name in (page.title, stem_of(rel), *page.aliases):
                key = fold_name(name)
                if key:
                    self.names.setdefault(key, set()).add(rel)

    def unique(self, name: str, layer: str, settings: Settings) -> str | None:
        found = [p for p in self.names.get(fold_name(name), ()) if readers_allow(settings, layer, layer_of(p))]
        mine = [p for p in found if layer_of(p) == layer] or found
        return mine[0] if len(mine) == 1 else None


def recanonicalise(rel: str, text: str) -> tuple[str | None, str]:
    """A canonical rendering of a page whose values are valid but whose bytes are not, or (None, why)."""
    try:
        meta, body, _ = split_front_matter(text)
    except ContractError as exc:
        return None, exc.message
    import datetime as _dt

    def scalar(value: object) -> object:
        if isinstance(value, _dt.datetime):
            return value.astimezone(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if value.tzinfo else value.strftime("%Y-%m-%dT%H:%M:%SZ")
        return value

    try:
        body = _canonical_blocks(rel, body.rstrip("\n") + "\n")
        entity = meta.get("type") == "entity"
        page = WikiPage(
            **{k: scalar(meta[k]) for k in ("id", "type", "title", "status", "created", "updated", "layer")},  # type: ignore[arg-type]
            body=body,
            entities=tuple(meta.get("entities") or ()),
            entity_type=meta.get("entity_type") if entity else None,
            aliases=tuple(meta.get("aliases") or ()) if entity else (),
            decay=meta.get("decay"),
        ).with_body(body, rel)
        out = render_wiki_page(page)
        parse_wiki_page(out, rel)
    except (KeyError, TypeError, ContractError) as exc:
        return None, getattr(exc, "message", None) or f"front matter cannot be rebuilt ({exc})"
    return out, ""


_BLOCK_RE = re.compile(
    re.escape(START_PREFIX) + r"(\S+) -->\n(?:.*\n)*?" + re.escape(DATA_PREFIX) + r"(\S+) -->\n" + re.escape(END_MARKER) + r"\n?"
)


def _canonical_blocks(rel: str, body: str) -> str:
    """Each contradiction block re-rendered from its data line, when that decodes to a valid record."""
    if START_PREFIX not in body:
        return body

    def sub(m: re.Match[str]) -> str:
        try:
            record = decode_data(m.group(2))
        except ContractError:
            return m.group(0)
        if record.id != m.group(1):
            return m.group(0)
        return render_block(record, rel) + ("" if m.group(0).endswith("\n") else "")

    return _BLOCK_RE.sub(sub, body)


def _rewrite_links(line: str, choose) -> str:  # noqa: ANN001 - choose(target) -> new target, "" to unlink, None to keep
    def sub(m: re.Match[str]) -> str:
        target = m.group(1).strip()
        new = choose(target)
        if new is None:
            return m.group(0)
        shown = m.group(3) if m.group(3) else target
        if new == "":
            return shown
        heading = f"#{m.group(2)}" if m.group(2) is not None else ""
        return f"[[{new}{heading}|{shown}]]"

    return WIKILINK_RE.sub(sub, line)


def repair_page(rel: str, text: str, snap: Snapshot, folded: FoldedNames, timestamp: str) -> PageRepair:
    """Repair one page's links, `entities:` and `sources:` against the wiki in `snap`."""
    out = PageRepair(rel, text)
    try:
        page = parse_wiki_page(text, rel)
    except ContractError as exc:
        fixed, why = recanonicalise(rel, text)
        if fixed is None:
            out.cannot("contract", f"not canonical and cannot be rebuilt: {why}")
            return out
        out.did("canonical", "re-rendered in canonical form")
        page = parse_wiki_page(fixed, rel)
        out.text = fixed
        del exc
    layer = layer_of(rel)
    settings = snap.settings
    resolver = snap.resolver

    def visible(found: list[str]) -> list[str]:
        # A page of a narrower layer does not answer a link written here: the repair is the one a made-up
        # name gets, so what garden does to a page says nothing of which restricted titles exist.
        return [p for p in found if readers_allow(settings, layer, layer_of(p))]

    def choose(target: str) -> str | None:
        found = visible(resolver.resolve(target, from_layer=layer))
        if len(found) == 1:
            return None
        if not found:
            hit = folded.unique(target, layer, settings)
            if hit is not None:
                out.did("dead-link", f"[[{target}]] -> {hit}")
                return _link_name(hit, snap)
            out.did("dead-link", f"[[{target}]] made plain text (no page answers to it)")
            return ""
        pick = _disambiguate(found, page, snap)
        if pick is None:
            out.cannot("ambiguous-link", f"[[{target}]] matches {', '.join(found)} and nothing says which")
            return None
        out.did("ambiguous-link", f"[[{target}]] -> {pick}")
        return pick[: -len(".md")]

    lines = page.body.split("\n")
    code = code_lines(page.body)  # any fence, nested or unclosed, and indented code: links there are quoted
    for i, line in enumerate(lines):
        if i in code or "[[" not in line or "`" in line:
            continue
        lines[i] = _rewrite_links(line, choose)
    entities = []
    for title in page.entities:
        found = [p for p in visible(resolver.resolve(title, from_layer=layer)) if (classify(p) or ("", ""))[0] == "entity"]
        if found:
            entities.append(title)
            continue
        hit = folded.unique(title, layer, settings)
        if hit is not None and (classify(hit) or ("", ""))[0] == "entity":
            entities.append(snap.pages()[hit].title)
            out.did("dead-link", f"entity {title!r} -> {hit}")
        else:
            out.did("dead-link", f"entity {title!r} dropped from entities (no entity page)")
    new = page.with_body("\n".join(lines), rel)
    if new.sources != page.sources:
        out.did("sources-drift", "sources recomputed from the citations")
    new = replace(new, entities=tuple(dict.fromkeys(entities)))
    if new != page or out.text != text:
        out.text = render_wiki_page(replace(new, updated=timestamp) if new != page else new)
    return out


def _link_name(rel: str, snap: Snapshot) -> str:
    """How to write a link to `rel`: its stem when that is unique, else its path without `.md`."""
    stem = stem_of(rel)
    return stem if snap.stems.get(link_key(stem)) == [rel] else rel[: -len(".md")]


def _disambiguate(found: list[str], page: WikiPage, snap: Snapshot) -> str | None:
    listed = {link_key(t) for t in page.entities}
    named = [p for p in found if (pg := snap.page(p)) is not None and link_key(pg.title) in listed]
    if len(named) == 1:
        return named[0]
    entities = [p for p in found if (classify(p) or ("", ""))[0] == "entity"]
    return entities[0] if len(entities) == 1 else None
